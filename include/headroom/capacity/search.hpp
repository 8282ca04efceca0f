// SPDX-License-Identifier: Apache-2.0
// The search for μ*: bracket by steps, then bisect, deciding a rate only when its interval
// allows (lower >= q passes, upper < q fails) and measuring more runs where it cannot. Part of
// capacity.hpp; docs/capacity.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "conformance.hpp"
#include "curve.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace capacity {
namespace detail {
using namespace ::headroom::detail;  // capacity's internals call the shared ones too
}  // namespace detail

// ---- the search ----------------------------------------------------------------------------

/// What the search does with a point whose interval still contains q (cannot decide) once
/// it may measure no more there.
enum class undecided_policy {
  narrow,              ///< keep it as undecided and bisect on both sides of the undecided
                       ///< zone until tolerance or budget (default): the tightest bracket
  stop,                ///< stop at the first undecided point and report the bracket so far
  treat_as_failing,    ///< count it as failing (conservative) and go on
  use_point_estimate,  ///< decide by share >= q (noise then steers the bisection)
};

/// What search_capacity asks a measure that takes it: a rate, and how many runs were
/// already measured there. Each call must return a NEW independent run (another seed, a
/// fresh load test): the search pools the runs of one rate (pooled_conformance).
struct capacity_probe {
  double rate_per_second = 0.0;  ///< λ to offer, req/s
  std::size_t run = 0;           ///< runs already measured at this λ (0: the first)
};

/// Options for search_capacity.
struct capacity_search_options {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double quota = 0.9;                 ///< q, in (0, 1)
  double rate_low_per_second = 1.0;   ///< first λ tried, > 0 (ideally one that passes)
  double rate_high_per_second = 2.0;  ///< second λ tried, > rate_low_per_second (ideally failing)
  double relative_tolerance = 0.01;   ///< stop when high − low <= tolerance·low, > 0
  double growth_factor = 2.0;         ///< bracket expansion (and contraction) factor, > 1
  std::size_t max_measurements = 40;  ///< calls to measure (runs), at most; >= 2
  std::size_t max_runs_per_rate = 4;  ///< runs pooled at one λ before it is undecided, >= 1
                                      ///< (measures taking a capacity_probe; others: 1)
  std::optional<std::size_t> request_budget{};  ///< requests (n + discarded, over all runs)
                                                ///< after which no run starts; > 0
  undecided_policy when_undecided = undecided_policy::narrow;  ///< see undecided_policy
};

/// Why the search stopped.
enum class search_stop {
  converged,         ///< high − low <= tolerance·low
  undecided,         ///< undecided points remain: within tolerance of them on both sides
                     ///< (narrow), or at the first one (stop); measure longer there
  no_passing_rate,   ///< budget spent stepping down without a passing λ
  never_saturated,   ///< budget spent stepping up without a failing λ
  budget_exhausted,  ///< budget spent while bisecting
};

/// The search's answer: μ* lies in [bracket_low, bracket_high) at the stated confidence.
struct capacity_search_result {
  /// The largest λ that passed (bracket_low_per_second); nullopt if none.
  std::optional<double> capacity_per_second;
  double bracket_low_per_second = 0.0;  ///< largest passing λ (0 if none)
  double bracket_high_per_second = std::numeric_limits<double>::infinity();  ///< smallest failing λ
  search_stop reason = search_stop::converged;                               ///< why it stopped
  std::vector<capacity_point> measured;  ///< one point per λ, its runs pooled, in order
  double confidence = 1.0;   ///< two-sided level of the intervals that decided (0.95 for
                             ///< z = 1.96); 1 when every point was an exact model value
  std::size_t runs = 0;      ///< calls to measure
  std::size_t requests = 0;  ///< requests spent: Σ (n + discarded) over every run
};

namespace detail {

/// Checks search_capacity's options; throws invalid_argument naming the field.
HEADROOM_DECL void validate_search_options(const capacity_search_options& options);

/// Whether a measure can be called with a capacity_probe or a rate and returns a
/// conformance_estimate or a double.
template <class Measure>
consteval bool measure_shape_ok() {
  const auto returns_ok = [](auto tag) {
    using value = typename decltype(tag)::type;
    return std::is_convertible_v<value, conformance_estimate> ||
           std::is_convertible_v<value, double>;
  };
  if constexpr (std::is_invocable_v<Measure&, capacity_probe>)
    return returns_ok(std::type_identity<std::invoke_result_t<Measure&, capacity_probe>>{});
  else if constexpr (std::is_invocable_v<Measure&, double>)
    return returns_ok(std::type_identity<std::invoke_result_t<Measure&, double>>{});
  else
    return false;
}

/// One search_capacity call: the measure, the validated options, the bracket [low, high)
/// and the undecided rates inside it. Each stage of the search is one member function.
template <class Measure>
class capacity_search {
 public:
  static constexpr bool takes_probe = std::is_invocable_v<Measure&, capacity_probe>;

  capacity_search(Measure& measure, const capacity_search_options& options)
      : measure_(measure), options_(options) {}

  /// Brackets, then bisects; returns the result (call once).
  capacity_search_result run() {
    if (const auto stop = find_passing_rate()) return finish(*stop);
    if (const auto stop = find_failing_rate()) return finish(*stop);
    return finish(bisect());
  }

 private:
  enum class verdict { pass, fail, undecided };

  bool budget_left() const {
    return result_.runs < options_.max_measurements &&
           (!options_.request_budget || result_.requests < *options_.request_budget);
  }

  /// measure's answer at `rate`, as an estimate (a double is an exact conformance).
  conformance_estimate call_measure(double rate, std::size_t run) {
    using returned = std::conditional_t<takes_probe, std::invoke_result<Measure&, capacity_probe>,
                                        std::invoke_result<Measure&, double>>;
    using value = typename returned::type;
    if constexpr (std::is_convertible_v<value, conformance_estimate>) {
      if constexpr (takes_probe)
        return measure_(capacity_probe{.rate_per_second = rate, .run = run});
      else
        return measure_(rate);
    } else {
      static_assert(std::is_convertible_v<value, double>,
                    "measure must return a conformance_estimate or a double");
      double share = 0.0;
      if constexpr (takes_probe)
        share = static_cast<double>(measure_(capacity_probe{.rate_per_second = rate, .run = run}));
      else
        share = static_cast<double>(measure_(rate));
      return exact_conformance(require_unit("measure(rate)", share));
    }
  }

  /// One run at `rate`: measured, checked and counted against the budget.
  conformance_estimate run_once(double rate, std::size_t run) {
    ++result_.runs;
    const conformance_estimate e = call_measure(rate, run);
    require_unit("measure(rate).share", e.share);
    require_unit("measure(rate).lower", e.lower);
    require_unit("measure(rate).upper", e.upper);
    require_unit("measure(rate).wilson_lower", e.wilson_lower);
    require_unit("measure(rate).wilson_upper", e.wilson_upper);
    require_positive("measure(rate).z", e.z);
    result_.requests += e.n + e.discarded;
    if (!e.exact) result_.confidence = std::min(result_.confidence, e.confidence());
    return e;
  }

  /// Runs at `rate` until the pooled interval decides, the runs per rate or the budget
  /// run out, or a run is exact; records the point and returns its verdict.
  verdict probe(double rate) {
    const double q = options_.quota;
    std::vector<conformance_estimate> runs;
    conformance_estimate pooled;
    for (std::size_t run = 0;; ++run) {
      runs.push_back(run_once(rate, run));
      const auto& last = runs.back();
      if (last.exact) {
        result_.measured.push_back({.rate_per_second = rate, .conformance = last});
        return last.share >= q ? verdict::pass : verdict::fail;
      }
      pooled = runs.size() == 1 ? last : pooled_conformance(runs, last.z);
      if (!pooled.empty() && (pooled.lower >= q || pooled.upper < q)) break;
      if (!takes_probe || run + 1 >= options_.max_runs_per_rate || !budget_left()) break;
    }
    result_.measured.push_back({.rate_per_second = rate, .conformance = pooled});
    if (!pooled.empty()) {
      if (pooled.lower >= q) return verdict::pass;
      if (pooled.upper < q) return verdict::fail;
    }
    return undecided_verdict(pooled);
  }

  /// What a point whose interval still holds q counts as, by options.when_undecided.
  verdict undecided_verdict(const conformance_estimate& pooled) const {
    switch (options_.when_undecided) {
      case undecided_policy::treat_as_failing:
        return verdict::fail;
      case undecided_policy::use_point_estimate:
        if (!pooled.empty()) return pooled.share >= options_.quota ? verdict::pass : verdict::fail;
        return verdict::fail;
      case undecided_policy::narrow:
      case undecided_policy::stop:
        break;
    }
    return verdict::undecided;
  }

  /// Records a verdict; false when the search must stop (undecided under policy stop).
  bool record(double rate, verdict v) {
    if (v == verdict::pass) low_ = std::max(low_.value_or(rate), rate);
    if (v == verdict::fail) high_ = std::min(high_.value_or(rate), rate);
    if (v == verdict::undecided) undecided_.push_back(rate);
    std::erase_if(undecided_,
                  [&](double r) { return (low_ && !(r > *low_)) || (high_ && !(r < *high_)); });
    return v != verdict::undecided || options_.when_undecided != undecided_policy::stop;
  }

  /// Stage 1. A passing rate: rate_low, then downwards by growth_factor.
  std::optional<search_stop> find_passing_rate() {
    for (double next = options_.rate_low_per_second; !low_; next /= options_.growth_factor) {
      if (!budget_left()) return search_stop::no_passing_rate;
      if (!record(next, probe(next))) return search_stop::undecided;
    }
    return std::nullopt;
  }

  /// Stage 2. A failing rate (unless stage 1 found one): rate_high, then upwards.
  std::optional<search_stop> find_failing_rate() {
    for (double next = options_.rate_high_per_second; !high_; next *= options_.growth_factor) {
      if (!budget_left()) return search_stop::never_saturated;
      if (!record(next, probe(next))) return search_stop::undecided;
    }
    return std::nullopt;
  }

  /// Stage 3. Bisection of [low, high), or of the gaps on either side of the undecided rates.
  search_stop bisect() {
    const double tolerance = options_.relative_tolerance;
    for (;;) {
      const auto [lowest, highest] = std::minmax_element(undecided_.begin(), undecided_.end());
      const double left_end = undecided_.empty() ? *high_ : *lowest;
      const double right_start = undecided_.empty() ? *high_ : *highest;
      const double left = left_end - *low_;
      const double right = *high_ - right_start;
      if (left <= tolerance * *low_ && right <= tolerance * *low_)
        return undecided_.empty() ? search_stop::converged : search_stop::undecided;
      if (!budget_left()) return search_stop::budget_exhausted;
      const double mid = left >= right ? 0.5 * (*low_ + left_end) : 0.5 * (right_start + *high_);
      if (!record(mid, probe(mid))) return search_stop::undecided;
    }
  }

  capacity_search_result finish(search_stop reason) {
    result_.reason = reason;
    result_.capacity_per_second = low_;
    result_.bracket_low_per_second = low_.value_or(0.0);
    result_.bracket_high_per_second = high_.value_or(std::numeric_limits<double>::infinity());
    return std::move(result_);
  }

  Measure& measure_;
  const capacity_search_options& options_;
  capacity_search_result result_{};
  std::optional<double> low_;      // largest passing rate
  std::optional<double> high_;     // smallest failing rate
  std::vector<double> undecided_;  // undecided rates inside (low, high)
};

}  // namespace detail

/// Searches μ* with a caller-supplied measure that runs a load test (or a simulator) and
/// returns a conformance_estimate, or a double taken as an exact conformance (a model).
/// measure(capacity_probe) is called again at a rate whose pooled interval still holds q,
/// up to max_runs_per_rate runs (each must be independent); measure(double rate) once per
/// rate. A point passes when its interval's lower bound >= q, fails when its upper bound
/// < q, and is undecided otherwise (an exact value passes iff >= q): a reported μ* always
/// has lower >= q. Brackets by steps of growth_factor from rate_low/rate_high, then
/// bisects until high − low <= relative_tolerance·low; undecided rates (policy narrow)
/// stay inside the bracket and the gaps on their two sides are bisected to that tolerance
/// instead. Assumes conformance falls with λ.
template <class Measure>
[[nodiscard]] capacity_search_result search_capacity(Measure&& measure,
                                                     const capacity_search_options& options) {
  using M = std::remove_reference_t<Measure>;
  if constexpr (!detail::measure_shape_ok<M>()) {
    static_assert(
        detail::measure_shape_ok<M>(),
        "headroom: search_capacity's measure must be callable as "
        "measure(headroom::capacity::capacity_probe) or measure(double rate_per_second), and "
        "return a headroom::capacity::conformance_estimate or a double (an exact conformance)");
    return {};
  } else {
    detail::validate_search_options(options);
    return detail::capacity_search<M>(measure, options).run();
  }
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/capacity/search.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

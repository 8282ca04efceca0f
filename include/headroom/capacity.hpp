// SPDX-License-Identifier: Apache-2.0
// Measuring a replica's capacity μ*: per-request outcomes, an SLO, conformance over a
// window with its Wilson interval, the capacity curve and a search for μ* that respects
// the measurement's noise. SPEC.md §1; the method and its pitfalls: docs/capacity.md.
//
// Times are std::chrono::duration<double> seconds from the run's start. Latencies are
// measured from the INTENDED arrival time (the schedule's), never from the send time, so
// a client that falls behind its schedule cannot hide the queue it built (no
// coordinated omission); the client-side delay is reported on its own.
//
// From capacity to control: target concurrency L* = ρ*·μ*·W̄ (target_concurrency) and
// replicas needed ceil(λ/(ρ*·μ*)) (replicas_needed) are queueing.hpp's, included here;
// conformance_estimate::mean_latency gives W̄ at a measured rate.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "detail/checks.hpp"
#include "error.hpp"
#include "queueing.hpp"

namespace headroom {
inline namespace v0 {

// ---- one request ----------------------------------------------------------------------------

/// What happened to one request of a load test (or of a simulated replica). A plain
/// aggregate; times in seconds from the run's start. For an errored request only
/// intended_arrival must be meaningful; the other times are ignored.
struct request_outcome {
  std::chrono::duration<double> intended_arrival{};  ///< when the schedule said to send it
  std::chrono::duration<double> sent{};              ///< when the client actually sent it
  std::chrono::duration<double> first_token{};       ///< when the first output token arrived
  std::chrono::duration<double> finished{};          ///< when the last token / the answer arrived
  std::size_t prompt_tokens = 0;                     ///< input tokens
  std::size_t output_tokens = 0;                     ///< generated tokens
  bool error = false;  ///< failed, timed out or refused: never conforming
};

/// Time to first token from the intended arrival: first_token − intended_arrival.
[[nodiscard]] constexpr std::chrono::duration<double> time_to_first_token(
    const request_outcome& o) noexcept {
  return o.first_token - o.intended_arrival;
}
/// End-to-end latency from the intended arrival: finished − intended_arrival.
[[nodiscard]] constexpr std::chrono::duration<double> end_to_end_latency(
    const request_outcome& o) noexcept {
  return o.finished - o.intended_arrival;
}
/// The client-side queue: sent − intended_arrival (the load generator's own lag; large
/// values mean the client, not the server, could not keep the schedule).
[[nodiscard]] constexpr std::chrono::duration<double> client_queue_delay(
    const request_outcome& o) noexcept {
  return o.sent - o.intended_arrival;
}
/// TTFT as the server sees it, first_token − sent: what a tool that times from the send
/// reports. Shown for comparison; the SLO uses time_to_first_token.
[[nodiscard]] constexpr std::chrono::duration<double> time_to_first_token_from_send(
    const request_outcome& o) noexcept {
  return o.first_token - o.sent;
}
/// TPOT, vLLM definition (benchmarks/serve.py): (E2E − TTFT)/(output_tokens − 1) =
/// (finished − first_token)/(out − 1), the mean time per token after the first; 0 when
/// out <= 1. Independent of whether E2E and TTFT start at the send or the intended time.
/// guidellm calls the same quantity inter_token_latency.
[[nodiscard]] constexpr std::chrono::duration<double> tpot_vllm(const request_outcome& o) noexcept {
  if (o.output_tokens <= 1) return std::chrono::duration<double>::zero();
  return (o.finished - o.first_token) / static_cast<double>(o.output_tokens - 1);
}
/// TPOT, guidellm definition (src/guidellm/schemas/request_stats.py,
/// GenerativeRequestStats.time_per_output_token_ms, "including first token"):
/// (last token − request start)/output_tokens, i.e. E2E/out, TTFT included in the
/// numerator and the first token in the denominator. Here the start is the intended
/// arrival (guidellm's request_start is its send time; equal when the client keeps its
/// schedule); 0 when out = 0 (guidellm: None). (guidellm <= 0.1 divided (last − first) by
/// out instead; that older variant is not offered.)
[[nodiscard]] constexpr std::chrono::duration<double> tpot_guidellm(
    const request_outcome& o) noexcept {
  if (o.output_tokens == 0) return std::chrono::duration<double>::zero();
  return (o.finished - o.intended_arrival) / static_cast<double>(o.output_tokens);
}

// ---- the SLO --------------------------------------------------------------------------------

/// Which TPOT a service-level objective constrains.
enum class tpot_definition {
  vllm,     ///< tpot_vllm: (E2E − TTFT)/(out − 1)
  guidellm  ///< tpot_guidellm: E2E/out
};

/// A latency promise: a request conforms when it did not fail, TTFT <= ttft, TPOT <= tpot
/// and, when set, E2E <= e2e (all inclusive, latencies from the intended arrival).
struct slo {
  std::chrono::duration<double> ttft{};                ///< TTFT threshold, > 0
  std::chrono::duration<double> tpot{};                ///< TPOT threshold, > 0
  std::optional<std::chrono::duration<double>> e2e{};  ///< optional E2E threshold, > 0
  tpot_definition tpot_kind = tpot_definition::vllm;   ///< which TPOT tpot constrains
};

/// Checks an SLO: every threshold finite and > 0; throws invalid_argument ("slo.ttft", ...).
inline void validate(const slo& objective) {
  detail::require_positive("slo.ttft", objective.ttft.count());
  detail::require_positive("slo.tpot", objective.tpot.count());
  if (objective.e2e) detail::require_positive("slo.e2e", objective.e2e->count());
}

/// Whether one outcome meets the SLO (errors never do). No validation: call
/// validate(objective) once beforehand; NaN times compare false and fail.
[[nodiscard]] constexpr bool meets_slo(const slo& objective, const request_outcome& o) noexcept {
  if (o.error) return false;
  // Counts, not durations: without C++20's <=> for durations (libc++ 14), duration's <= is
  // !(b < a), which a NaN passes.
  if (!(time_to_first_token(o).count() <= objective.ttft.count())) return false;
  const auto tpot = objective.tpot_kind == tpot_definition::vllm ? tpot_vllm(o) : tpot_guidellm(o);
  if (!(tpot.count() <= objective.tpot.count())) return false;
  if (objective.e2e && !(end_to_end_latency(o).count() <= objective.e2e->count())) return false;
  return true;
}

// ---- conformance and its interval ------------------------------------------------------------

/// A two-sided confidence interval for a proportion, both ends in [0, 1].
struct proportion_interval {
  double lower = 0.0;  ///< lower bound
  double upper = 1.0;  ///< upper bound
};

/// Wilson score interval for `successes` out of n trials at normal quantile z (1.96 for
/// 95 %): (p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n). Wilson, JASA 22 (1927);
/// unlike the Wald interval it stays inside [0, 1] and is sane at p̂ = 0 or 1.
/// Requires n > 0, successes <= n, z finite and > 0.
[[nodiscard]] inline proportion_interval wilson_interval(std::size_t successes, std::size_t n,
                                                         double z = 1.96) {
  if (n == 0) detail::fail("n", n, "a proportion needs at least one trial");
  if (successes > n) detail::fail("successes", successes, "must be <= n");
  detail::require_positive("z", z);
  const double trials = static_cast<double>(n);
  const double p = static_cast<double>(successes) / trials;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / trials;
  const double centre = (p + z2 / (2.0 * trials)) / denominator;
  const double half =
      z * std::sqrt(p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)) / denominator;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

/// Conformance over a window: the share of requests meeting the SLO, its Wilson interval,
/// the plain binomial standard error sqrt(p̂(1−p̂)/n), and the counts it rests on.
/// n = 0 (nothing left after warm-up/cool-down) is a reported outcome: empty() is true,
/// share 0 and the interval [0, 1]; treat it as "no information", not as 0 %.
struct conformance_estimate {
  std::size_t n = 0;            ///< outcomes in the window: the sample size
  std::size_t conforming = 0;   ///< of which met the SLO
  std::size_t errors = 0;       ///< of which failed (counted as non-conforming)
  std::size_t discarded = 0;    ///< outcomes outside the window (warm-up, cool-down)
  double share = 0.0;           ///< conforming / n
  double wilson_lower = 0.0;    ///< Wilson lower bound at z
  double wilson_upper = 1.0;    ///< Wilson upper bound at z
  double standard_error = 0.0;  ///< sqrt(share·(1 − share)/n); 0 when n = 0
  double z = 1.96;              ///< the normal quantile of the interval
  std::chrono::duration<double> mean_latency{};  ///< mean E2E of the window's successful
                                                 ///< requests (W̄ for L* = ρ*μ*W̄); 0 if none
  bool exact = false;  ///< a model value, not a sample (exact_conformance): interval = share
  /// True when the window held no outcome: the estimate carries no information.
  [[nodiscard]] constexpr bool empty() const noexcept { return n == 0 && !exact; }
};

/// The estimate for `conforming` successes out of n (n may be 0: an empty estimate).
/// Use it when counting on the fly (a simulator). conforming <= n; z finite and > 0.
[[nodiscard]] inline conformance_estimate conformance_from_counts(std::size_t conforming,
                                                                  std::size_t n, double z = 1.96) {
  detail::require_positive("z", z);
  if (conforming > n) detail::fail("conforming", conforming, "must be <= n");
  conformance_estimate e;
  e.n = n;
  e.conforming = conforming;
  e.z = z;
  if (n == 0) return e;
  const double trials = static_cast<double>(n);
  e.share = static_cast<double>(conforming) / trials;
  e.standard_error = conformance_standard_error(e.share, static_cast<std::int64_t>(n));
  const auto interval = wilson_interval(conforming, n, z);
  e.wilson_lower = interval.lower;
  e.wilson_upper = interval.upper;
  return e;
}

/// A conformance known exactly (from a model such as M/M/1, not from a sample): the
/// interval collapses to the share. share in [0, 1].
[[nodiscard]] inline conformance_estimate exact_conformance(double share) {
  detail::require_unit("share", share);
  conformance_estimate e;
  e.share = share;
  e.wilson_lower = share;
  e.wilson_upper = share;
  e.exact = true;
  return e;
}

/// Which outcomes count: those whose intended arrival lies in
/// [warm_up, run_end − cool_down] (inclusive), run_end defaulting to the latest intended
/// arrival. Warm-up drops the seconds while the queue forms; cool-down the tail, which
/// meets a draining server.
struct measurement_window {
  std::chrono::duration<double> warm_up{};                 ///< seconds discarded at the start, >= 0
  std::chrono::duration<double> cool_down{};               ///< seconds discarded at the end, >= 0
  std::optional<std::chrono::duration<double>> run_end{};  ///< the run's end; default: last arrival
};

/// Conformance of `outcomes` (any order) to `objective` over `window`, with the Wilson
/// interval at z. Throws invalid_argument for an empty span, an invalid SLO or window, or
/// a non-finite time (intended_arrival always; the others unless error is set). An empty
/// window after the discards is not an error: the result has n = 0 and empty() true.
[[nodiscard]] inline conformance_estimate measure_conformance(
    std::span<const request_outcome> outcomes, const slo& objective,
    const measurement_window& window = {}, double z = 1.96) {
  validate(objective);
  detail::require_positive("z", z);
  detail::require_non_negative("window.warm_up", window.warm_up.count());
  detail::require_non_negative("window.cool_down", window.cool_down.count());
  if (window.run_end) detail::require_finite("window.run_end", window.run_end->count());
  if (outcomes.empty()) detail::fail("outcomes.size()", 0, "there are no outcomes to measure");
  double last_arrival_s = -std::numeric_limits<double>::infinity();
  for (const auto& o : outcomes) {
    if (!detail::is_finite(o.intended_arrival.count()))
      detail::fail("outcome.intended_arrival", o.intended_arrival, "must be a finite time");
    if (!o.error) {
      if (!detail::is_finite(o.sent.count()))
        detail::fail("outcome.sent", o.sent, "must be a finite time");
      if (!detail::is_finite(o.first_token.count()))
        detail::fail("outcome.first_token", o.first_token, "must be a finite time");
      if (!detail::is_finite(o.finished.count()))
        detail::fail("outcome.finished", o.finished, "must be a finite time");
    }
    last_arrival_s = std::max(last_arrival_s, o.intended_arrival.count());
  }
  const double begin_s = window.warm_up.count();
  const double end_s =
      (window.run_end ? window.run_end->count() : last_arrival_s) - window.cool_down.count();
  std::size_t n = 0;
  std::size_t conforming = 0;
  std::size_t errors = 0;
  double latency_sum_s = 0.0;
  for (const auto& o : outcomes) {
    const double t = o.intended_arrival.count();
    if (t < begin_s || t > end_s) continue;
    ++n;
    if (o.error) {
      ++errors;
      continue;
    }
    latency_sum_s += end_to_end_latency(o).count();
    if (meets_slo(objective, o)) ++conforming;
  }
  auto estimate = conformance_from_counts(conforming, n, z);
  estimate.errors = errors;
  estimate.discarded = outcomes.size() - n;
  if (n > errors)
    estimate.mean_latency =
        std::chrono::duration<double>(latency_sum_s / static_cast<double>(n - errors));
  return estimate;
}

// ---- the capacity curve -------------------------------------------------------------------

/// One point of the capacity curve: the offered open-loop rate λ (req/s) and the
/// conformance measured there.
struct capacity_point {
  double rate_per_s = 0.0;             ///< λ offered, req/s
  conformance_estimate conformance{};  ///< measured at λ
};

/// Which number is compared with the quota.
enum class capacity_rule {
  point_estimate,     ///< share >= q (SPEC's definition)
  wilson_lower_bound  ///< wilson_lower >= q: conservative, "conforming with confidence"
};

/// Options for find_capacity.
struct capacity_options {
  double quota = 0.9;                                  ///< q, in (0, 1)
  capacity_rule rule = capacity_rule::point_estimate;  ///< what must reach q
  bool interpolate = false;  ///< interpolate linearly between the last pass and the next point
};

/// μ* read off a curve, with what the caller should know about the curve.
struct capacity_result {
  std::optional<double> capacity_per_s;  ///< μ*, req/s; nullopt when no point reaches q
  bool saturated = false;                ///< a point above μ* fails: μ* is bracketed by the grid
                           ///< (false: every point passed, μ* >= the highest rate measured)
  bool monotone = true;                    ///< conformance never rises with λ (point estimates)
  bool monotone_within_noise = true;       ///< no rise with disjoint Wilson intervals (a real rise)
  std::optional<double> first_rise_per_s;  ///< the lowest λ where conformance rose, if any
  std::size_t empty_points = 0;            ///< points with n = 0, counted as failing
};

namespace detail {
[[nodiscard]] inline double rule_value(const conformance_estimate& e, capacity_rule rule) noexcept {
  return rule == capacity_rule::point_estimate ? e.share : e.wilson_lower;
}
[[nodiscard]] inline std::vector<capacity_point> sorted_curve(
    std::span<const capacity_point> curve) {
  if (curve.empty()) fail("curve.size()", 0, "the curve has no points");
  for (const auto& p : curve) {
    require_positive("curve[i].rate_per_s", p.rate_per_s);
    require_unit("curve[i].conformance.share", p.conformance.share);
    require_unit("curve[i].conformance.wilson_lower", p.conformance.wilson_lower);
    require_unit("curve[i].conformance.wilson_upper", p.conformance.wilson_upper);
  }
  std::vector<capacity_point> sorted(curve.begin(), curve.end());
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const capacity_point& a, const capacity_point& b) { return a.rate_per_s < b.rate_per_s; });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].rate_per_s == sorted[i - 1].rate_per_s)
      fail("curve[i].rate_per_s", sorted[i].rate_per_s, "rates must be distinct");
  return sorted;
}
}  // namespace detail

/// μ* = max{λ : conformance(λ) >= q} over the curve's points (any order, distinct λ > 0),
/// SPEC.md §1, with the chosen rule; with interpolate, the crossing between that point and
/// the next (failing) one. Empty points count as failing. Flags a non-monotone curve.
[[nodiscard]] inline capacity_result find_capacity(std::span<const capacity_point> curve,
                                                   const capacity_options& options = {}) {
  detail::require_open_unit("options.quota", options.quota);
  const auto points = detail::sorted_curve(curve);
  const double q = options.quota;
  capacity_result result;
  std::optional<std::size_t> last_pass;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& e = points[i].conformance;
    if (e.empty()) {
      ++result.empty_points;
      continue;
    }
    if (detail::rule_value(e, options.rule) >= q) last_pass = i;
    // Monotonicity against every earlier non-empty point.
    for (std::size_t j = 0; j < i; ++j) {
      const auto& earlier = points[j].conformance;
      if (earlier.empty()) continue;
      if (e.share > earlier.share) {
        if (result.monotone) result.first_rise_per_s = points[i].rate_per_s;
        result.monotone = false;
        if (e.wilson_lower > earlier.wilson_upper) result.monotone_within_noise = false;
      }
    }
  }
  if (!last_pass) {
    result.saturated = true;
    return result;
  }
  const std::size_t i = *last_pass;
  result.capacity_per_s = points[i].rate_per_s;
  result.saturated = i + 1 < points.size();
  if (options.interpolate && result.saturated && !points[i + 1].conformance.empty()) {
    const double m0 = detail::rule_value(points[i].conformance, options.rule);
    const double m1 = detail::rule_value(points[i + 1].conformance, options.rule);
    const double r0 = points[i].rate_per_s;
    const double r1 = points[i + 1].rate_per_s;
    if (m0 > m1) result.capacity_per_s = r0 + (m0 - q) * (r1 - r0) / (m0 - m1);
  }
  return result;
}

// ---- the search ----------------------------------------------------------------------------

/// What the search does with a point whose Wilson interval contains q (cannot decide).
enum class undecided_policy {
  stop,                ///< stop there and report the bracket (default: more samples needed)
  treat_as_failing,    ///< count it as failing (conservative) and go on
  use_point_estimate,  ///< decide by share >= q (noise then steers the bisection)
};

/// Options for search_capacity.
struct capacity_search_options {
  double quota = 0.9;                 ///< q, in (0, 1)
  double rate_low_per_s = 1.0;        ///< first λ tried, > 0 (ideally one that passes)
  double rate_high_per_s = 2.0;       ///< second λ tried, > rate_low (ideally one that fails)
  double relative_tolerance = 0.01;   ///< stop when high − low <= tolerance·low, > 0
  double growth_factor = 2.0;         ///< bracket expansion (and contraction) factor, > 1
  std::size_t max_measurements = 40;  ///< calls to measure, at most; >= 2
  undecided_policy when_undecided = undecided_policy::stop;  ///< see undecided_policy
};

/// Why the search stopped.
enum class search_stop {
  converged,         ///< high − low <= tolerance·low
  undecided,         ///< a point's interval contained q (policy stop): measure it longer
  no_passing_rate,   ///< budget spent stepping down without a passing λ
  never_saturated,   ///< budget spent stepping up without a failing λ
  budget_exhausted,  ///< budget spent while bisecting
};

/// The search's answer: μ* lies in [bracket_low, bracket_high).
struct capacity_search_result {
  std::optional<double>
      capacity_per_s;              ///< the largest λ that passed (bracket_low); nullopt if none
  double bracket_low_per_s = 0.0;  ///< largest passing λ (0 if none)
  double bracket_high_per_s = std::numeric_limits<double>::infinity();  ///< smallest failing λ
  search_stop reason = search_stop::converged;                          ///< why it stopped
  std::vector<capacity_point> measured;  ///< every point, in the order measured
};

/// Searches μ* with a caller-supplied measure(λ) that runs a real load test (or a
/// simulator) at λ req/s and returns a conformance_estimate, or a double taken as an
/// exact conformance (a model). A point passes when its Wilson lower bound >= q, fails
/// when its upper bound < q, and is undecided otherwise (an exact value passes iff >= q).
/// Brackets by steps of growth_factor from rate_low/rate_high, then bisects until
/// high − low <= relative_tolerance·low. Assumes conformance falls with λ.
template <class Measure>
requires std::is_invocable_v<Measure&, double>
[[nodiscard]] capacity_search_result search_capacity(Measure&& measure,
                                                     const capacity_search_options& options) {
  const double q = detail::require_open_unit("options.quota", options.quota);
  const double low0 = detail::require_positive("options.rate_low_per_s", options.rate_low_per_s);
  const double high0 = detail::require_positive("options.rate_high_per_s", options.rate_high_per_s);
  if (!(high0 > low0))
    detail::fail("options.rate_high_per_s", high0, "must be > options.rate_low_per_s");
  const double tolerance =
      detail::require_positive("options.relative_tolerance", options.relative_tolerance);
  const double growth = detail::require_finite("options.growth_factor", options.growth_factor);
  if (!(growth > 1.0)) detail::fail("options.growth_factor", growth, "must be > 1");
  if (options.max_measurements < 2)
    detail::fail("options.max_measurements", options.max_measurements, "must be >= 2");

  capacity_search_result result;
  enum class verdict { pass, fail, undecided };
  auto probe = [&](double rate) -> verdict {
    conformance_estimate e;
    using returned = std::invoke_result_t<Measure&, double>;
    if constexpr (std::is_convertible_v<returned, conformance_estimate>) {
      e = measure(rate);
    } else {
      static_assert(std::is_convertible_v<returned, double>,
                    "measure(rate) must return a conformance_estimate or a double");
      const auto share = static_cast<double>(measure(rate));
      e = exact_conformance(detail::require_unit("measure(rate)", share));
    }
    detail::require_unit("measure(rate).share", e.share);
    detail::require_unit("measure(rate).wilson_lower", e.wilson_lower);
    detail::require_unit("measure(rate).wilson_upper", e.wilson_upper);
    result.measured.push_back({rate, e});
    if (e.exact) return e.share >= q ? verdict::pass : verdict::fail;
    if (!e.empty()) {
      if (e.wilson_lower >= q) return verdict::pass;
      if (e.wilson_upper < q) return verdict::fail;
    }
    switch (options.when_undecided) {
      case undecided_policy::treat_as_failing:
        return verdict::fail;
      case undecided_policy::use_point_estimate:
        if (!e.empty()) return e.share >= q ? verdict::pass : verdict::fail;
        return verdict::fail;
      case undecided_policy::stop:
        break;
    }
    return verdict::undecided;
  };
  std::optional<double> low;   // largest passing rate
  std::optional<double> high;  // smallest failing rate
  auto finish = [&](search_stop reason) {
    result.reason = reason;
    result.capacity_per_s = low;
    result.bracket_low_per_s = low.value_or(0.0);
    result.bracket_high_per_s = high.value_or(std::numeric_limits<double>::infinity());
    return std::move(result);
  };
  auto budget_left = [&] { return result.measured.size() < options.max_measurements; };

  // 1. A passing rate: rate_low, then downwards by growth_factor.
  double next = low0;
  while (!low) {
    if (!budget_left()) return finish(search_stop::no_passing_rate);
    switch (probe(next)) {
      case verdict::pass:
        low = next;
        break;
      case verdict::fail:
        high = next;
        next /= growth;
        break;
      case verdict::undecided:
        return finish(search_stop::undecided);
    }
  }
  // 2. A failing rate (unless step 1 found one): rate_high, then upwards by growth_factor.
  next = high0;
  while (!high) {
    if (!budget_left()) return finish(search_stop::never_saturated);
    switch (probe(next)) {
      case verdict::pass:
        low = next;
        next *= growth;
        break;
      case verdict::fail:
        high = next;
        break;
      case verdict::undecided:
        return finish(search_stop::undecided);
    }
  }
  // 3. Bisection.
  while (*high - *low > tolerance * *low) {
    if (!budget_left()) return finish(search_stop::budget_exhausted);
    const double mid = 0.5 * (*low + *high);
    switch (probe(mid)) {
      case verdict::pass:
        low = mid;
        break;
      case verdict::fail:
        high = mid;
        break;
      case verdict::undecided:
        return finish(search_stop::undecided);
    }
  }
  return finish(search_stop::converged);
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

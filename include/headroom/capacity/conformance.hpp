// SPDX-License-Identifier: Apache-2.0
// Conformance: the share of requests that meet the SLO, with a confidence interval that
// holds for requests correlated by the queue (batch means in arrival order, Student's t),
// Wilson's for independent requests, a measurement window that discards warm-up, and
// independent replications pooled. Part of capacity.hpp; docs/capacity.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../detail/student_t.hpp"
#include "../error.hpp"
#include "../queueing.hpp"
#include "outcome.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace capacity {
namespace detail {
using namespace ::headroom::detail;  // capacity's internals call the shared ones too
}  // namespace detail

namespace detail {
/// The normal quantile of a two-sided 95 % interval: the default level of every interval.
inline constexpr double z_95 = 1.96;
/// The one-sided 10 % normal quantile: the level of the batch means' lag-1 test (LBATCH's).
inline constexpr double z_one_sided_10 = 1.2815515655446004;
/// A batch must span at least this many design effects (Sokal's windowing rule).
inline constexpr double min_batch_design_effects = 8.0;
/// Cap on the batch means' lag-1 correlation φ, so (1 + φ)/(1 − φ) inflates by 19 at most.
inline constexpr double max_batch_correlation = 0.9;
/// Below this |skewness/6| Willink's adjustment is the identity (and would divide by ~0).
inline constexpr double negligible_skewness = 1e-12;
}  // namespace detail

// ---- conformance and its interval ------------------------------------------------------------

/// A two-sided confidence interval for a proportion, both ends in [0, 1].
struct proportion_interval {
  double lower = 0.0;  ///< lower bound
  double upper = 1.0;  ///< upper bound
};

namespace detail {

/// Wilson's score interval for a share p over `trials` trials (not necessarily an integer:
/// an effective sample size) at quantile z. No checks: p in [0, 1], trials > 0, z > 0.
[[nodiscard]] HEADROOM_DECL proportion_interval wilson_bounds(double p, double trials,
                                                              double z) noexcept;

}  // namespace detail

/// Counts of a proportion: `successes` out of `trials`.
struct proportion_counts {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::size_t successes = 0;  ///< <= trials
  std::size_t trials = 0;     ///< n
};

/// Wilson score interval for `successes` out of n INDEPENDENT trials at normal quantile z
/// (1.96 for 95 %): (p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n). Wilson, JASA 22
/// (1927). Valid only when the trials are independent (one request per independent run,
/// say); requests of one load test share the queue and are not: use measure_conformance's
/// interval (docs/capacity.md). Requires trials > 0, successes <= trials, z finite and > 0:
/// wilson_interval({.successes = 90, .trials = 100}).
[[nodiscard]] HEADROOM_DECL proportion_interval wilson_interval(const proportion_counts& counts,
                                                                double z = detail::z_95);

/// What a conformance interval assumes about the requests it rests on.
enum class interval_basis {
  independent_requests,  ///< Wilson on n independent trials (counts only, no arrival order)
  batch_means,           ///< one run in arrival order: batch means (correlated requests)
  replications,          ///< independent runs, a t interval over their conformances
  pooled_runs,           ///< independent runs pooled, each with its own batch-means variance
  exact,                 ///< a model value, not a sample: the interval is the share itself
};

/// Conformance over a window: the share of requests meeting the SLO, with a confidence
/// interval [lower, upper] that holds for requests correlated in arrival order (see
/// `basis`), the effective sample size it rests on, the Wilson interval that assumes
/// independent requests, and the counts. n = 0 (nothing left after warm-up/cool-down) is a
/// reported outcome: empty() is true, share 0 and both intervals [0, 1]; treat it as "no
/// information", not as 0 %.
struct conformance_estimate {
  std::size_t n = 0;                   ///< outcomes in the window: the sample size
  std::size_t conforming = 0;          ///< of which met the SLO
  std::size_t errors = 0;              ///< of which failed (counted as non-conforming)
  std::size_t discarded = 0;           ///< outcomes outside the window (warm-up, cool-down)
  double share = 0.0;                  ///< conforming / n
  double lower = 0.0;                  ///< lower bound of the interval at z's level, on `basis`
  double upper = 1.0;                  ///< upper bound of the interval at z's level, on `basis`
  double wilson_lower = 0.0;           ///< Wilson lower bound at z (independent requests only)
  double wilson_upper = 1.0;           ///< Wilson upper bound at z (independent requests only)
  double standard_error = 0.0;         ///< standard error of share on `basis` (binomial
                                       ///< sqrt(share(1 − share)/n) for independent requests)
  double effective_sample_size = 0.0;  ///< share(1 − share)/standard_error², at most n: the
                                       ///< independent requests worth as much (n if no variance)
  /// Degrees of freedom of standard_error: batches − 1, runs − 1, Satterthwaite's when
  /// pooled; infinite for independent requests.
  double degrees_of_freedom = std::numeric_limits<double>::infinity();
  double skewness = 0.0;       ///< estimated skewness of share's sampling distribution
  std::size_t batches = 0;     ///< batch means (or runs) the standard error rests on
  std::size_t batch_size = 0;  ///< requests per batch (batch_means; 0 otherwise)
  double z = detail::z_95;     ///< the normal quantile naming the level (1.96: 95 %)
  interval_basis basis = interval_basis::independent_requests;  ///< what lower/upper assume
  std::chrono::duration<double> mean_latency{};  ///< mean E2E of the window's successful
                                                 ///< requests (W̄ for L* = ρ*μ*W̄); 0 if none
  bool exact = false;  ///< a model value, not a sample (exact_conformance): interval = share
  /// True when the window held no outcome: the estimate carries no information.
  [[nodiscard]] constexpr bool empty() const noexcept { return n == 0 && !exact; }
  /// The two-sided confidence level of the intervals, erf(z/√2): 0.95 for z = 1.96.
  [[nodiscard]] double confidence() const noexcept { return std::erf(z / std::numbers::sqrt2); }
};

namespace detail {

/// Sets e.lower, e.upper and e.effective_sample_size from e.share, e.n, e.standard_error,
/// e.degrees_of_freedom, e.skewness and e.z: the hull of (1) Wilson's score interval at the
/// effective sample size with the t quantile (the share's variance shrinks towards 0 and 1,
/// as a binomial's does: Kish's design effect, Korn & Graubard, Survey Methodology 24
/// (1998)) and (2) the t interval with Willink's skewness adjustment (Willink, Commun.
/// Stat. Theory Methods 34 (2005); as in Skart, Tafazzoli & Wilson, IIE Trans. 43 (2011)):
/// [p̂ − G(t)·se, p̂ − G(−t)·se], G(ζ) = ((1 + 6β(ζ − β))^⅓ − 1)/(2β), β = skewness/6.
HEADROOM_DECL void finish_interval(conformance_estimate& e);

/// The estimate for counts alone: Wilson's interval for independent requests.
[[nodiscard]] HEADROOM_DECL conformance_estimate independent_estimate(std::size_t conforming,
                                                                      std::size_t n, double z);

/// Mean, sample variance, lag-1 autocorrelation, von Neumann's C and sample skewness of
/// a short series (k >= 2).
struct series_moments {
  double mean = 0.0;
  double variance = 0.0;
  double lag1 = 0.0;
  double von_neumann = 0.0;
  double skewness = 0.0;
};
[[nodiscard]] HEADROOM_DECL series_moments moments_of(std::span<const double> y) noexcept;

}  // namespace detail

/// The estimate for `successes` conforming requests out of n = `trials` INDEPENDENT ones (n
/// may be 0: an empty estimate): basis independent_requests, lower/upper = Wilson. Counts
/// carry no arrival order, so they cannot show correlation: for a simulator or a load
/// generator counting on the fly use conformance_series. successes <= trials; z finite and
/// > 0: conformance_from_counts({.successes = 180, .trials = 200}).
[[nodiscard]] HEADROOM_DECL conformance_estimate
conformance_from_counts(const proportion_counts& counts, double z = detail::z_95);

/// A conformance known exactly (from a model such as M/M/1, not from a sample): the
/// interval collapses to the share. share in [0, 1].
[[nodiscard]] HEADROOM_DECL conformance_estimate exact_conformance(double share);

/// Requests in arrival order, one at a time (a load generator or a simulator counting on
/// the fly), and their conformance with an interval that holds for correlated requests:
/// batch means with a batch size chosen from the data (docs/capacity.md, "The interval").
/// O(1) per request and 2 KiB whatever the run's length: it keeps at most 256 batch sums,
/// merging neighbours (and doubling the batch size) when full.
class conformance_series {
 public:
  /// Fewer batches than this are never used: below it the t quantile explodes.
  static constexpr std::size_t min_batches = 5;

  /// Records the next request in arrival order: whether it met the SLO.
  constexpr void add(bool conforming) noexcept {
    partial_ += conforming ? 1 : 0;
    if (++fill_ < batch_size_) return;
    close_batch();
  }
  /// Requests recorded.
  [[nodiscard]] constexpr std::size_t size() const noexcept {
    return count_ * batch_size_ + fill_;  // merging keeps count_·batch_size_
  }
  /// Of which met the SLO.
  [[nodiscard]] constexpr std::size_t conforming() const noexcept {
    std::uint64_t sum = partial_;  // merging keeps the sum of the stored batches
    for (std::size_t i = 0; i < count_; ++i) sum += sums_[i];
    return static_cast<std::size_t>(sum);
  }

  /// The conformance so far with its interval at the level of normal quantile z (finite,
  /// > 0; the t quantile of the same level is used): share = conforming/n over every
  /// request; the standard error from batch means (basis batch_means); fewer than
  /// min_batches requests fall back to Wilson (basis independent_requests); n = 0 is empty.
  ///
  /// Batch size: from the stored batches (128–255; one per request below 256 requests),
  /// doubled until (1) von Neumann's test finds no lag-1 correlation between batch means
  /// at the 10 % level (as LBATCH, Fishman & Yarberry, INFORMS J. Comput. 9 (1997)) and
  /// (2) the batch is at least 8 design effects long (Sokal's windowing rule), or until
  /// fewer than min_batches would remain.
  /// Variance inflated by (1 + φ)/(1 − φ) for the batch means' lag-1 correlation φ > 0 and
  /// skewness from the batch means (the adjustments of Skart); interval by finish_interval.
  [[nodiscard]] HEADROOM_DECL conformance_estimate estimate(double z = detail::z_95) const;

 private:
  static constexpr std::size_t capacity = 256;

  constexpr void close_batch() noexcept {
    sums_[count_++] = partial_;
    partial_ = 0;
    fill_ = 0;
    if (count_ < capacity) return;
    for (std::size_t i = 0; i < capacity / 2; ++i) sums_[i] = sums_[2 * i] + sums_[2 * i + 1];
    count_ = capacity / 2;
    batch_size_ *= 2;
  }

  std::array<std::uint64_t, capacity> sums_{};
  std::size_t count_ = 0;       // complete batches stored
  std::size_t batch_size_ = 1;  // requests per stored batch (a power of two)
  std::size_t fill_ = 0;        // requests in the open batch
  std::uint64_t partial_ = 0;   // of which conformed
};

/// Which outcomes count: those whose intended arrival lies in
/// [warm_up, run_end − cool_down] (inclusive), run_end defaulting to the latest intended
/// arrival. Warm-up drops the seconds while the queue forms; cool-down the tail, which
/// meets a draining server.
struct measurement_window {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::chrono::duration<double> warm_up{};                 ///< seconds discarded at the start, >= 0
  std::chrono::duration<double> cool_down{};               ///< seconds discarded at the end, >= 0
  std::optional<std::chrono::duration<double>> run_end{};  ///< the run's end; default: last arrival
};

/// Conformance of `outcomes` (any order; taken in intended-arrival order) to `objective`
/// over `window`, with the interval for correlated requests at z's level
/// (conformance_series: batch means) and Wilson's for independent ones. Throws
/// invalid_argument for an empty span, an invalid SLO or window, or a non-finite time
/// (intended_arrival always; the others unless error is set). An empty window after the
/// discards is not an error: the result has n = 0 and empty() true.
[[nodiscard]] HEADROOM_DECL conformance_estimate
measure_conformance(std::span<const request_outcome> outcomes, const slo& objective,
                    const measurement_window& window = {}, double z = detail::z_95);

namespace detail {
/// Checks the fields a combination of runs reads; names them runs[i].*.
HEADROOM_DECL void validate_run(const conformance_estimate& e);
/// Totals of the non-empty runs: counts, share, Wilson, mean latency; the rest zero.
[[nodiscard]] HEADROOM_DECL conformance_estimate
totals_of(std::span<const conformance_estimate> runs, double z, std::size_t& used);
}  // namespace detail

namespace detail {
/// The totals of `runs` under `basis` and how many are non-empty; `done` is the answer
/// already when none or one of them is (the empty totals, or that run as it is).
struct combined_runs {
  conformance_estimate totals{};
  std::size_t used = 0;
  std::optional<conformance_estimate> done{};
};
[[nodiscard]] HEADROOM_DECL combined_runs combine_runs(std::span<const conformance_estimate> runs,
                                                       double z, interval_basis basis);
}  // namespace detail

/// Independent replications: R runs at the same load with different seeds (independent
/// of each other, each correlated within) → a t interval over their conformances, R − 1
/// degrees of freedom (Law, Simulation Modeling and Analysis, 5th ed., §9.4). share =
/// Σconforming/Σn, its variance the ratio estimator's over runs (the plain variance of the
/// runs' shares when their n are equal); skewness-adjusted as measure_conformance's.
/// Assumes only that the runs are independent; needs R of 10 or more to be tight. Empty
/// runs are skipped; one non-empty run is returned as it is; none gives an empty estimate.
/// Throws invalid_argument for an exact run or inconsistent fields (runs[i].*); z > 0.
[[nodiscard]] HEADROOM_DECL conformance_estimate
replicated_conformance(std::span<const conformance_estimate> runs, double z = detail::z_95);

/// Independent runs at the same load pooled into one estimate, each contributing its own
/// standard error (batch means within the run): share = Σconforming/Σn, variance
/// Σ(n_r/n)²·se_r², degrees of freedom by Satterthwaite (Biometrics Bull. 2, 1946),
/// third cumulants added likewise. Unlike replicated_conformance it is tight with two or
/// three runs, but it trusts each run's interval. What search_capacity does with the runs
/// it measures at one rate. Empty runs are skipped; one non-empty run is returned as it
/// is; none gives an empty estimate. Throws as replicated_conformance; z > 0.
[[nodiscard]] HEADROOM_DECL conformance_estimate
pooled_conformance(std::span<const conformance_estimate> runs, double z = detail::z_95);

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/capacity/conformance.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Measuring a replica's capacity μ*: per-request outcomes, an SLO, conformance over a
// window with a confidence interval that holds for requests correlated by the queue (batch
// means in arrival order; Wilson's for independent requests; independent replications),
// the capacity curve and a search for μ* that decides only what its intervals allow and
// measures more where they cannot. The method, its coverage and its pitfalls:
// docs/capacity.md.
//
// Times are std::chrono::duration<double> seconds from the run's start. Latencies are
// measured from the INTENDED arrival time (the schedule's), never from the send time, so
// a client that falls behind its schedule cannot hide the queue it built (no
// coordinated omission); the client-side delay is reported on its own.
//
// From capacity to control: target concurrency L* = ρ*·μ*·W̄ (target_concurrency) and
// replicas needed ceil(λ/(ρ*·μ*)) (replicas_needed) are queueing.hpp's, included here;
// conformance_estimate::mean_latency gives W̄ at a measured rate. Rates are requests per
// second, spelled *_per_second.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checks.hpp"
#include "error.hpp"
#include "queueing.hpp"

namespace headroom {
inline namespace v0 {

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
/// From this many degrees of freedom the t quantile is the Cornish–Fisher expansion.
inline constexpr double cornish_fisher_min_df = 1e6;
/// Relative width at which the bisection for a t quantile stops, and its step limit.
inline constexpr double t_quantile_tolerance = 1e-14;
inline constexpr int t_quantile_max_steps = 200;
/// Lentz's method for the incomplete beta fraction: the floor that keeps a denominator
/// from 0, the step change that counts as converged, and the step limit.
inline constexpr double lentz_floor = 1e-300;
inline constexpr double lentz_tolerance = 1e-15;
inline constexpr int lentz_max_steps = 400;
}  // namespace detail

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

namespace detail {

/// Wilson's score interval for a share p over `trials` trials (not necessarily an integer:
/// an effective sample size) at quantile z. No checks: p in [0, 1], trials > 0, z > 0.
[[nodiscard]] inline proportion_interval wilson_bounds(double p, double trials, double z) noexcept {
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / trials;
  const double centre = (p + z2 / (2.0 * trials)) / denominator;
  const double half =
      z * std::sqrt(p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)) / denominator;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

/// ln Γ(x) for x >= 0.5: Lanczos' approximation with g = 7 and nine coefficients
/// (Lanczos, SIAM J. Numer. Anal. B 1 (1964); the coefficient set of Godfrey), relative
/// error below 1e-13 on that range.
[[nodiscard]] inline double log_gamma(double x) noexcept {
  constexpr double c[9] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                           771.32342877765313,   -176.61502916214059,   12.507343278686905,
                           -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  const double y = x - 1.0;
  double a = c[0];
  for (int i = 1; i < 9; ++i) a += c[i] / (y + static_cast<double>(i));
  const double t = y + 7.5;
  return 0.91893853320467274 + (y + 0.5) * std::log(t) - t + std::log(a);  // ½ln 2π + …
}

/// Continued fraction of the incomplete beta function, modified Lentz's method
/// (Abramowitz & Stegun 26.5.8; Press et al., Numerical Recipes 3rd ed. §6.4).
[[nodiscard]] inline double incomplete_beta_fraction(double a, double b, double x) noexcept {
  constexpr double tiny = lentz_floor;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= lentz_max_steps; ++m) {
    const double md = static_cast<double>(m);
    const double m2 = 2.0 * md;
    double aa = md * (b - md) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + md) * (qab + md) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1.0) < lentz_tolerance) break;
  }
  return h;
}

/// The regularized incomplete beta function I_x(a, b), a, b >= 0.5, x in [0, 1].
[[nodiscard]] inline double incomplete_beta(double a, double b, double x) noexcept {
  if (!(x > 0.0)) return 0.0;
  if (!(x < 1.0)) return 1.0;
  const double front = std::exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1.0 - front * incomplete_beta_fraction(b, a, 1.0 - x) / b;
}

/// P(T > t) for Student's t with df >= 1 degrees of freedom and t >= 0:
/// ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1 with 26.5.27).
[[nodiscard]] inline double student_t_upper_tail(double t, double df) noexcept {
  return 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
}

/// The quantile of Student's t with df degrees of freedom that has the upper tail of the
/// normal quantile z: P(T_df > t) = P(Z > z) = ½·erfc(z/√2). df >= 1; infinite df gives z
/// itself; df >= 10⁶ uses the Cornish–Fisher expansion of A&S 26.7.5. z > 0.
[[nodiscard]] inline double student_t_quantile_matching(double z, double df) noexcept {
  if (!(df < cornish_fisher_min_df)) {
    if (!(df <= std::numeric_limits<double>::max())) return z;
    const double z2 = z * z;
    return z + z * (z2 + 1.0) / (4.0 * df) + z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * df * df);
  }
  const double tail = 0.5 * std::erfc(z / std::numbers::sqrt2);
  double low = z;  // the t quantile is never below the normal one
  double high = 2.0 * z + 1.0;
  while (student_t_upper_tail(high, df) > tail && high < 1e300) {
    low = high;
    high *= 2.0;
  }
  for (int i = 0; i < t_quantile_max_steps && high - low > t_quantile_tolerance * high; ++i) {
    const double mid = 0.5 * (low + high);
    (student_t_upper_tail(mid, df) > tail ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

}  // namespace detail

/// Counts of a proportion: `successes` out of `trials`.
struct proportion_counts {
  [[no_unique_address]] detail::designated_initializers_only designated_initializers_only{};
  std::size_t successes = 0;  ///< <= trials
  std::size_t trials = 0;     ///< n
};

/// Wilson score interval for `successes` out of n INDEPENDENT trials at normal quantile z
/// (1.96 for 95 %): (p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n). Wilson, JASA 22
/// (1927). Valid only when the trials are independent (one request per independent run,
/// say); requests of one load test share the queue and are not: use measure_conformance's
/// interval (docs/capacity.md). Requires trials > 0, successes <= trials, z finite and > 0:
/// wilson_interval({.successes = 90, .trials = 100}).
[[nodiscard]] inline proportion_interval wilson_interval(const proportion_counts& counts,
                                                         double z = detail::z_95) {
  if (counts.trials == 0)
    detail::fail("trials", counts.trials, "a proportion needs at least one trial");
  if (counts.successes > counts.trials)
    detail::fail("successes", counts.successes, "must be <= trials");
  detail::require_positive("z", z);
  const double n = static_cast<double>(counts.trials);
  return detail::wilson_bounds(static_cast<double>(counts.successes) / n, n, z);
}

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
inline void finish_interval(conformance_estimate& e) {
  const double trials = static_cast<double>(e.n);
  const double p = e.share;
  const double se = e.standard_error;
  e.effective_sample_size = trials;
  if (se > 0.0 && p > 0.0 && p < 1.0)
    e.effective_sample_size = std::min(trials, p * (1.0 - p) / (se * se));
  const double t = student_t_quantile_matching(e.z, e.degrees_of_freedom);
  const auto score = wilson_bounds(p, e.effective_sample_size, t);
  double lower = score.lower;
  double upper = score.upper;
  if (se > 0.0) {
    const double beta = e.skewness / 6.0;
    const auto g = [beta](double zeta) {
      if (std::abs(beta) < negligible_skewness) return zeta;
      return (std::cbrt(1.0 + 6.0 * beta * (zeta - beta)) - 1.0) / (2.0 * beta);
    };
    lower = std::min(lower, p - g(t) * se);
    upper = std::max(upper, p - g(-t) * se);
  }
  e.lower = std::clamp(lower, 0.0, 1.0);
  e.upper = std::clamp(upper, 0.0, 1.0);
}

/// The estimate for counts alone: Wilson's interval for independent requests.
[[nodiscard]] inline conformance_estimate independent_estimate(std::size_t conforming,
                                                               std::size_t n, double z) {
  conformance_estimate e;
  e.n = n;
  e.conforming = conforming;
  e.z = z;
  if (n == 0) return e;
  const double trials = static_cast<double>(n);
  e.share = static_cast<double>(conforming) / trials;
  e.standard_error = conformance_standard_error(e.share, static_cast<std::int64_t>(n));
  const auto interval = wilson_bounds(e.share, trials, z);
  e.wilson_lower = e.lower = interval.lower;
  e.wilson_upper = e.upper = interval.upper;
  e.effective_sample_size = trials;
  e.batches = n;
  e.batch_size = 1;
  return e;
}

/// Mean, sample variance, lag-1 autocorrelation, von Neumann's C and sample skewness of
/// a short series (k >= 2).
struct series_moments {
  double mean = 0.0;
  double variance = 0.0;
  double lag1 = 0.0;
  double von_neumann = 0.0;
  double skewness = 0.0;
};
[[nodiscard]] inline series_moments moments_of(std::span<const double> y) noexcept {
  series_moments m;
  const double k = static_cast<double>(y.size());
  for (const double v : y) m.mean += v;
  m.mean /= k;
  double squares = 0.0;
  double cubes = 0.0;
  double lagged = 0.0;
  double successive = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = y[i] - m.mean;
    squares += d * d;
    cubes += d * d * d;
    if (i + 1 < y.size()) {
      lagged += d * (y[i + 1] - m.mean);
      successive += (y[i + 1] - y[i]) * (y[i + 1] - y[i]);
    }
  }
  if (!(squares > 0.0)) return m;
  m.variance = squares / (k - 1.0);
  m.lag1 = lagged / squares;
  m.von_neumann = 1.0 - successive / (2.0 * squares);
  if (y.size() >= 3)
    m.skewness = k / ((k - 1.0) * (k - 2.0)) * cubes / (m.variance * std::sqrt(m.variance));
  return m;
}

}  // namespace detail

/// The estimate for `successes` conforming requests out of n = `trials` INDEPENDENT ones (n
/// may be 0: an empty estimate): basis independent_requests, lower/upper = Wilson. Counts
/// carry no arrival order, so they cannot show correlation: for a simulator or a load
/// generator counting on the fly use conformance_series. successes <= trials; z finite and
/// > 0: conformance_from_counts({.successes = 180, .trials = 200}).
[[nodiscard]] inline conformance_estimate conformance_from_counts(const proportion_counts& counts,
                                                                  double z = detail::z_95) {
  detail::require_positive("z", z);
  if (counts.successes > counts.trials)
    detail::fail("successes", counts.successes, "must be <= trials");
  return detail::independent_estimate(counts.successes, counts.trials, z);
}

/// A conformance known exactly (from a model such as M/M/1, not from a sample): the
/// interval collapses to the share. share in [0, 1].
[[nodiscard]] inline conformance_estimate exact_conformance(double share) {
  detail::require_unit("share", share);
  conformance_estimate e;
  e.share = share;
  e.lower = e.upper = share;
  e.wilson_lower = share;
  e.wilson_upper = share;
  e.standard_error = 0.0;
  e.degrees_of_freedom = std::numeric_limits<double>::infinity();
  e.basis = interval_basis::exact;
  e.exact = true;
  return e;
}

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
  [[nodiscard]] conformance_estimate estimate(double z = detail::z_95) const {
    detail::require_positive("z", z);
    const std::size_t n = size();
    if (n < min_batches) return detail::independent_estimate(conforming(), n, z);
    conformance_estimate e = detail::independent_estimate(conforming(), n, z);
    e.basis = interval_basis::batch_means;
    // Candidate levels: groups of 2^j stored sums, aligned to the end of the run (the
    // leading remainder, nearest the warm-up, is left out of the variance only).
    std::array<double, capacity> means{};
    std::size_t group = 1;
    std::size_t k = count_;
    detail::series_moments chosen{};
    std::size_t chosen_k = 0;
    std::size_t chosen_size = 0;
    for (;;) {
      const std::size_t first = count_ - k * group;
      const double size = static_cast<double>(group * batch_size_);
      for (std::size_t i = 0; i < k; ++i) {
        std::uint64_t sum = 0;
        for (std::size_t j = 0; j < group; ++j) sum += sums_[first + i * group + j];
        means[i] = static_cast<double>(sum) / size;
      }
      const auto m = detail::moments_of(std::span<const double>(means.data(), k));
      chosen = m;
      chosen_k = k;
      chosen_size = group * batch_size_;
      const double kd = static_cast<double>(k);
      const bool correlated =
          m.von_neumann > detail::z_one_sided_10 * std::sqrt((kd - 2.0) / (kd * kd - 1.0));
      const double spread = m.mean * (1.0 - m.mean);
      const double design_effect = spread > 0.0 ? size * m.variance / spread : 1.0;
      const bool too_short = size < detail::min_batch_design_effects * design_effect;
      if (!(m.variance > 0.0) || (!correlated && !too_short)) break;
      if (k / 2 < min_batches) break;
      group *= 2;
      k /= 2;
    }
    const double kd = static_cast<double>(chosen_k);
    double variance = chosen.variance / kd;
    const double phi = std::min(chosen.lag1, detail::max_batch_correlation);
    if (phi > 0.0) variance *= (1.0 + phi) / (1.0 - phi);
    e.standard_error = std::sqrt(variance);
    e.degrees_of_freedom = kd - 1.0;
    e.skewness = chosen.skewness / std::sqrt(kd);
    e.batches = chosen_k;
    e.batch_size = chosen_size;
    detail::finish_interval(e);
    return e;
  }

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
[[nodiscard]] inline conformance_estimate measure_conformance(
    std::span<const request_outcome> outcomes, const slo& objective,
    const measurement_window& window = {}, double z = detail::z_95) {
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
  const auto inside = [&](const request_outcome& o) {
    const double t = o.intended_arrival.count();
    return t >= begin_s && t <= end_s;
  };
  // One pass, feeding the series while the window's outcomes come in arrival order; the
  // first one out of order sends the window through a sort instead.
  std::size_t n = 0;
  std::size_t errors = 0;
  double latency_sum_s = 0.0;
  bool in_order = true;
  double previous_s = -std::numeric_limits<double>::infinity();
  conformance_series series;
  for (const auto& o : outcomes) {
    if (!inside(o)) continue;
    ++n;
    if (in_order) {
      in_order = o.intended_arrival.count() >= previous_s;
      previous_s = o.intended_arrival.count();
      if (in_order) series.add(meets_slo(objective, o));
    }
    if (o.error) {
      ++errors;
      continue;
    }
    latency_sum_s += end_to_end_latency(o).count();
  }
  if (!in_order) {
    std::vector<std::pair<double, bool>> ordered;
    ordered.reserve(n);
    for (const auto& o : outcomes)
      if (inside(o)) ordered.emplace_back(o.intended_arrival.count(), meets_slo(objective, o));
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    series = conformance_series{};
    for (const auto& [t, hit] : ordered) series.add(hit);
  }
  auto estimate = series.estimate(z);
  estimate.errors = errors;
  estimate.discarded = outcomes.size() - n;
  if (n > errors)
    estimate.mean_latency =
        std::chrono::duration<double>(latency_sum_s / static_cast<double>(n - errors));
  return estimate;
}

namespace detail {
/// Checks the fields a combination of runs reads; names them runs[i].*.
inline void validate_run(const conformance_estimate& e) {
  if (e.exact) fail("runs[i].exact", e.share, "a model value is not a run to combine");
  if (e.conforming > e.n) fail("runs[i].conforming", e.conforming, "must be <= runs[i].n");
  require_unit("runs[i].share", e.share);
  require_non_negative("runs[i].standard_error", e.standard_error);
  require_finite("runs[i].skewness", e.skewness);
  if (!(e.degrees_of_freedom >= 1.0))
    fail("runs[i].degrees_of_freedom", e.degrees_of_freedom, "must be >= 1 (or infinite)");
  require_non_negative("runs[i].mean_latency", e.mean_latency.count());
}
/// Totals of the non-empty runs: counts, share, Wilson, mean latency; the rest zero.
[[nodiscard]] inline conformance_estimate totals_of(std::span<const conformance_estimate> runs,
                                                    double z, std::size_t& used) {
  conformance_estimate total;
  double latency_sum_s = 0.0;
  used = 0;
  for (const auto& r : runs) {
    validate_run(r);
    total.discarded += r.discarded;
    if (r.empty()) continue;
    ++used;
    total.n += r.n;
    total.conforming += r.conforming;
    total.errors += r.errors;
    latency_sum_s += r.mean_latency.count() * static_cast<double>(r.n - r.errors);
  }
  total.z = z;
  if (total.n == 0) return total;
  auto wilson = independent_estimate(total.conforming, total.n, z);
  total.share = wilson.share;
  total.wilson_lower = wilson.wilson_lower;
  total.wilson_upper = wilson.wilson_upper;
  if (total.n > total.errors)
    total.mean_latency =
        std::chrono::duration<double>(latency_sum_s / static_cast<double>(total.n - total.errors));
  return total;
}
}  // namespace detail

/// Independent replications: R runs at the same load with different seeds (independent
/// of each other, each correlated within) → a t interval over their conformances, R − 1
/// degrees of freedom (Law, Simulation Modeling and Analysis, 5th ed., §9.4). share =
/// Σconforming/Σn, its variance the ratio estimator's over runs (the plain variance of the
/// runs' shares when their n are equal); skewness-adjusted as measure_conformance's.
/// Assumes only that the runs are independent; needs R of 10 or more to be tight. Empty
/// runs are skipped; one non-empty run is returned as it is; none gives an empty estimate.
/// Throws invalid_argument for an exact run or inconsistent fields (runs[i].*); z > 0.
[[nodiscard]] inline conformance_estimate replicated_conformance(
    std::span<const conformance_estimate> runs, double z = detail::z_95) {
  detail::require_positive("z", z);
  std::size_t used = 0;
  auto e = detail::totals_of(runs, z, used);
  e.basis = interval_basis::replications;
  if (used == 0) return e;
  if (used == 1) {
    for (const auto& r : runs)
      if (!r.empty()) {
        auto single = r;
        single.discarded = e.discarded;
        return single;
      }
  }
  std::vector<double> y;
  y.reserve(used);
  const double mean_n = static_cast<double>(e.n) / static_cast<double>(used);
  for (const auto& r : runs)
    if (!r.empty())
      y.push_back(e.share +
                  (static_cast<double>(r.conforming) - e.share * static_cast<double>(r.n)) /
                      mean_n);
  const auto m = detail::moments_of(y);
  const double runs_d = static_cast<double>(used);
  e.standard_error = std::sqrt(m.variance / runs_d);
  e.degrees_of_freedom = runs_d - 1.0;
  e.skewness = m.skewness / std::sqrt(runs_d);
  e.batches = used;
  e.batch_size = 0;
  detail::finish_interval(e);
  return e;
}

/// Independent runs at the same load pooled into one estimate, each contributing its own
/// standard error (batch means within the run): share = Σconforming/Σn, variance
/// Σ(n_r/n)²·se_r², degrees of freedom by Satterthwaite (Biometrics Bull. 2, 1946),
/// third cumulants added likewise. Unlike replicated_conformance it is tight with two or
/// three runs, but it trusts each run's interval. What search_capacity does with the runs
/// it measures at one rate. Empty runs are skipped; one non-empty run is returned as it
/// is; none gives an empty estimate. Throws as replicated_conformance; z > 0.
[[nodiscard]] inline conformance_estimate pooled_conformance(
    std::span<const conformance_estimate> runs, double z = detail::z_95) {
  detail::require_positive("z", z);
  std::size_t used = 0;
  auto e = detail::totals_of(runs, z, used);
  e.basis = interval_basis::pooled_runs;
  if (used == 0) return e;
  if (used == 1) {
    for (const auto& r : runs)
      if (!r.empty()) {
        auto single = r;
        single.discarded = e.discarded;
        return single;
      }
  }
  const double total = static_cast<double>(e.n);
  double variance = 0.0;
  double df_denominator = 0.0;
  double third = 0.0;
  for (const auto& r : runs) {
    if (r.empty()) continue;
    const double w = static_cast<double>(r.n) / total;
    const double a = w * w * r.standard_error * r.standard_error;
    variance += a;
    if (r.degrees_of_freedom <= std::numeric_limits<double>::max())
      df_denominator += a * a / r.degrees_of_freedom;
    third += w * w * w * r.skewness * r.standard_error * r.standard_error * r.standard_error;
    e.batches += r.batches;
  }
  e.standard_error = std::sqrt(variance);
  e.degrees_of_freedom = df_denominator > 0.0 ? std::max(1.0, variance * variance / df_denominator)
                                              : std::numeric_limits<double>::infinity();
  e.skewness = variance > 0.0 ? third / (variance * e.standard_error) : 0.0;
  e.batch_size = 0;
  detail::finish_interval(e);
  return e;
}

// ---- the capacity curve -------------------------------------------------------------------

/// One point of the capacity curve: the offered open-loop rate λ (req/s) and the
/// conformance measured there.
struct capacity_point {
  double rate_per_second = 0.0;        ///< λ offered, req/s
  conformance_estimate conformance{};  ///< measured at λ
};

/// Which number is compared with the quota.
enum class capacity_rule {
  point_estimate,      ///< share >= q: the definition of μ*
  lower_bound,         ///< lower >= q: "conforming with confidence", correlation accounted for
  wilson_lower_bound,  ///< wilson_lower >= q: the same assuming independent requests, which
                       ///< a queue's are not (too optimistic: docs/capacity.md)
};

/// Options for find_capacity.
struct capacity_options {
  double quota = 0.9;                                  ///< q, in (0, 1)
  capacity_rule rule = capacity_rule::point_estimate;  ///< what must reach q
  bool interpolate = false;  ///< interpolate linearly between the last pass and the next point
};

/// μ* read off a curve, with what the caller should know about the curve.
struct capacity_result {
  std::optional<double> capacity_per_second;  ///< μ*, req/s; nullopt when no point reaches q
  bool saturated = false;  ///< a point above μ* fails: μ* is bracketed by the grid
                           ///< (false: every point passed, μ* >= the highest rate measured)
  bool monotone = true;    ///< conformance never rises with λ (point estimates)
  bool monotone_within_noise = true;            ///< no rise with disjoint intervals (a real rise)
  std::optional<double> first_rise_per_second;  ///< the lowest λ where conformance rose, if any
  std::size_t empty_points = 0;                 ///< points with n = 0, counted as failing
  /// The largest λ whose interval lies at or above q (lower >= q): μ* is at least this
  /// with confidence. nullopt when no point's does.
  std::optional<double> confident_per_second;
  /// The largest λ whose interval reaches q (upper >= q): every higher point fails with
  /// confidence, so μ* lies below the next rate of the grid. nullopt when none reaches q.
  std::optional<double> plausible_per_second;
};

namespace detail {
[[nodiscard]] inline double rule_value(const conformance_estimate& e, capacity_rule rule) noexcept {
  switch (rule) {
    case capacity_rule::lower_bound:
      return e.lower;
    case capacity_rule::wilson_lower_bound:
      return e.wilson_lower;
    case capacity_rule::point_estimate:
      break;
  }
  return e.share;
}
[[nodiscard]] inline std::vector<capacity_point> sorted_curve(
    std::span<const capacity_point> curve) {
  if (curve.empty()) fail("curve.size()", 0, "the curve has no points");
  for (const auto& p : curve) {
    require_positive("curve[i].rate_per_second", p.rate_per_second);
    require_unit("curve[i].conformance.share", p.conformance.share);
    require_unit("curve[i].conformance.lower", p.conformance.lower);
    require_unit("curve[i].conformance.upper", p.conformance.upper);
    require_unit("curve[i].conformance.wilson_lower", p.conformance.wilson_lower);
    require_unit("curve[i].conformance.wilson_upper", p.conformance.wilson_upper);
  }
  std::vector<capacity_point> sorted(curve.begin(), curve.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const capacity_point& a, const capacity_point& b) {
                     return a.rate_per_second < b.rate_per_second;
                   });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].rate_per_second == sorted[i - 1].rate_per_second)
      fail("curve[i].rate_per_second", sorted[i].rate_per_second, "rates must be distinct");
  return sorted;
}
}  // namespace detail

/// μ* = max{λ : conformance(λ) >= q} over the curve's points (any order, distinct λ > 0)
/// with the chosen rule; with interpolate, the crossing between that point and the next
/// (failing) one. Empty points count as failing. Flags a non-monotone curve, and reads
/// the bracket the intervals allow (confident_per_second, plausible_per_second).
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
    if (e.lower >= q) result.confident_per_second = points[i].rate_per_second;
    if (e.upper >= q) result.plausible_per_second = points[i].rate_per_second;
    // Monotonicity against every earlier non-empty point.
    for (std::size_t j = 0; j < i; ++j) {
      const auto& earlier = points[j].conformance;
      if (earlier.empty()) continue;
      if (e.share > earlier.share) {
        if (result.monotone) result.first_rise_per_second = points[i].rate_per_second;
        result.monotone = false;
        if (e.lower > earlier.upper) result.monotone_within_noise = false;
      }
    }
  }
  if (!last_pass) {
    result.saturated = true;
    return result;
  }
  const std::size_t i = *last_pass;
  result.capacity_per_second = points[i].rate_per_second;
  result.saturated = i + 1 < points.size();
  if (options.interpolate && result.saturated && !points[i + 1].conformance.empty()) {
    const double m0 = detail::rule_value(points[i].conformance, options.rule);
    const double m1 = detail::rule_value(points[i + 1].conformance, options.rule);
    const double r0 = points[i].rate_per_second;
    const double r1 = points[i + 1].rate_per_second;
    if (m0 > m1) result.capacity_per_second = r0 + (m0 - q) * (r1 - r0) / (m0 - m1);
  }
  return result;
}

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
requires std::is_invocable_v<Measure&, capacity_probe> || std::is_invocable_v<Measure&, double>
[[nodiscard]] capacity_search_result search_capacity(Measure&& measure,
                                                     const capacity_search_options& options) {
  const double q = detail::require_open_unit("options.quota", options.quota);
  const double low0 =
      detail::require_positive("options.rate_low_per_second", options.rate_low_per_second);
  const double high0 =
      detail::require_positive("options.rate_high_per_second", options.rate_high_per_second);
  if (!(high0 > low0))
    detail::fail("options.rate_high_per_second", high0, "must be > options.rate_low_per_second");
  const double tolerance =
      detail::require_positive("options.relative_tolerance", options.relative_tolerance);
  const double growth = detail::require_finite("options.growth_factor", options.growth_factor);
  if (!(growth > 1.0)) detail::fail("options.growth_factor", growth, "must be > 1");
  if (options.max_measurements < 2)
    detail::fail("options.max_measurements", options.max_measurements, "must be >= 2");
  if (options.max_runs_per_rate < 1)
    detail::fail("options.max_runs_per_rate", options.max_runs_per_rate, "must be >= 1");
  if (options.request_budget && *options.request_budget == 0)
    detail::fail("options.request_budget", *options.request_budget, "must be > 0");

  constexpr bool takes_probe = std::is_invocable_v<Measure&, capacity_probe>;
  capacity_search_result result;
  enum class verdict { pass, fail, undecided };
  auto budget_left = [&] {
    return result.runs < options.max_measurements &&
           (!options.request_budget || result.requests < *options.request_budget);
  };
  auto run_once = [&](double rate, std::size_t run) -> conformance_estimate {
    using returned = std::conditional_t<takes_probe, std::invoke_result<Measure&, capacity_probe>,
                                        std::invoke_result<Measure&, double>>;
    using value = typename returned::type;
    ++result.runs;
    conformance_estimate e;
    if constexpr (std::is_convertible_v<value, conformance_estimate>) {
      if constexpr (takes_probe)
        e = measure(capacity_probe{rate, run});
      else
        e = measure(rate);
    } else {
      static_assert(std::is_convertible_v<value, double>,
                    "measure must return a conformance_estimate or a double");
      double share = 0.0;
      if constexpr (takes_probe)
        share = static_cast<double>(measure(capacity_probe{rate, run}));
      else
        share = static_cast<double>(measure(rate));
      e = exact_conformance(detail::require_unit("measure(rate)", share));
    }
    detail::require_unit("measure(rate).share", e.share);
    detail::require_unit("measure(rate).lower", e.lower);
    detail::require_unit("measure(rate).upper", e.upper);
    detail::require_unit("measure(rate).wilson_lower", e.wilson_lower);
    detail::require_unit("measure(rate).wilson_upper", e.wilson_upper);
    detail::require_positive("measure(rate).z", e.z);
    result.requests += e.n + e.discarded;
    if (!e.exact) result.confidence = std::min(result.confidence, e.confidence());
    return e;
  };
  auto probe = [&](double rate) -> verdict {
    std::vector<conformance_estimate> runs;
    conformance_estimate pooled;
    for (std::size_t run = 0;; ++run) {
      runs.push_back(run_once(rate, run));
      const auto& last = runs.back();
      if (last.exact) {
        result.measured.push_back({.rate_per_second = rate, .conformance = last});
        return last.share >= q ? verdict::pass : verdict::fail;
      }
      pooled = runs.size() == 1 ? last : pooled_conformance(runs, last.z);
      if (!pooled.empty() && (pooled.lower >= q || pooled.upper < q)) break;
      if (!takes_probe || run + 1 >= options.max_runs_per_rate || !budget_left()) break;
    }
    result.measured.push_back({.rate_per_second = rate, .conformance = pooled});
    if (!pooled.empty()) {
      if (pooled.lower >= q) return verdict::pass;
      if (pooled.upper < q) return verdict::fail;
    }
    switch (options.when_undecided) {
      case undecided_policy::treat_as_failing:
        return verdict::fail;
      case undecided_policy::use_point_estimate:
        if (!pooled.empty()) return pooled.share >= q ? verdict::pass : verdict::fail;
        return verdict::fail;
      case undecided_policy::narrow:
      case undecided_policy::stop:
        break;
    }
    return verdict::undecided;
  };
  std::optional<double> low;      // largest passing rate
  std::optional<double> high;     // smallest failing rate
  std::vector<double> undecided;  // undecided rates inside (low, high)
  auto finish = [&](search_stop reason) {
    result.reason = reason;
    result.capacity_per_second = low;
    result.bracket_low_per_second = low.value_or(0.0);
    result.bracket_high_per_second = high.value_or(std::numeric_limits<double>::infinity());
    return std::move(result);
  };
  // Records a verdict; false when the search must stop (undecided under policy stop).
  auto record = [&](double rate, verdict v) {
    if (v == verdict::pass) low = std::max(low.value_or(rate), rate);
    if (v == verdict::fail) high = std::min(high.value_or(rate), rate);
    if (v == verdict::undecided) undecided.push_back(rate);
    std::erase_if(undecided,
                  [&](double r) { return (low && !(r > *low)) || (high && !(r < *high)); });
    return v != verdict::undecided || options.when_undecided != undecided_policy::stop;
  };

  // 1. A passing rate: rate_low, then downwards by growth_factor.
  double next = low0;
  while (!low) {
    if (!budget_left()) return finish(search_stop::no_passing_rate);
    if (!record(next, probe(next))) return finish(search_stop::undecided);
    next /= growth;
  }
  // 2. A failing rate (unless step 1 found one): rate_high, then upwards by growth_factor.
  next = high0;
  while (!high) {
    if (!budget_left()) return finish(search_stop::never_saturated);
    if (!record(next, probe(next))) return finish(search_stop::undecided);
    next *= growth;
  }
  // 3. Bisection of [low, high), or of the gaps on either side of the undecided rates.
  for (;;) {
    const auto [lowest, highest] = std::minmax_element(undecided.begin(), undecided.end());
    const double left_end = undecided.empty() ? *high : *lowest;
    const double right_start = undecided.empty() ? *high : *highest;
    const double left = left_end - *low;
    const double right = *high - right_start;
    if (left <= tolerance * *low && right <= tolerance * *low)
      return finish(undecided.empty() ? search_stop::converged : search_stop::undecided);
    if (!budget_left()) return finish(search_stop::budget_exhausted);
    const double mid = left >= right ? 0.5 * (*low + left_end) : 0.5 * (right_start + *high);
    if (!record(mid, probe(mid))) return finish(search_stop::undecided);
  }
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Arrival schedules for load tests: open loop (Poisson, gamma gaps by coefficient of
// variation, constant rate, a linear ramp, trace replay) and a closed-loop population.
//
// Times are std::chrono::duration<double> seconds from the run's start. Every random
// schedule is a function of the engine passed in (any std::uniform_random_bit_generator):
// seed it and the schedule is reproducible. The variates come from detail/random.hpp,
// not from std:: distributions (whose algorithms differ between standard libraries), so a
// seeded std::mt19937_64 gives the same schedule with libstdc++, libc++ and MSVC.
// Open versus closed loop, and why capacity is measured open loop: docs/arrivals.md. The
// rate a closed loop offers, λ = N/(W + Z), is queueing.hpp's closed_loop::rate. Rates are
// requests per second, spelled *_per_second; two rates, or a rate and a coefficient of
// variation, are named fields of one aggregate written with designated initializers
// (queueing.hpp explains the convention).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "detail/checks.hpp"
#include "detail/random.hpp"
#include "error.hpp"
#include "queueing.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Arrival schedules: Poisson, gamma, constant, ramps and replayed traces (docs/arrivals.md).
namespace arrivals {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {
/// Expected arrivals above which linear_ramp_schedule refuses a ramp (2^53): up to it the
/// count and the reservation are exact in a double and the loop ends.
inline constexpr double max_expected_arrivals = 9007199254740992.0;
/// linear_ramp_schedule reserves the expected count plus this many standard deviations
/// (a Poisson count's is sqrt(mean)) plus ramp_reserve_slack: it seldom reallocates.
inline constexpr double ramp_reserve_deviations = 4.0;
inline constexpr double ramp_reserve_slack = 8.0;

/// A gap CV: finite and >= 0, and for cv > 0 the gamma shape 1/cv² finite and > 0 (cv within
/// about [1.5e-154, 1.3e154]); outside that range every draw would be NaN.
constexpr double require_gap_cv(const char* name, double cv) {
  require_non_negative(name, cv);
  if (cv > 0.0) {
    const double shape = 1.0 / (cv * cv);
    if (!(shape > 0.0 && is_finite(shape)))
      fail(name, cv, "must be 0 or give a finite gamma shape 1/cv^2 > 0 (about 1e-154 to 1e154)");
  }
  return cv;
}

/// A gap of mean 1 and coefficient of variation cv >= 0: constant for cv = 0, standard
/// exponential for cv = 1, otherwise Gamma(1/cv², cv²).
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline double unit_mean_gap(G& engine, double cv) noexcept(noexcept(engine())) {
  if (cv == 0.0) return 1.0;
  if (cv == 1.0) return standard_exponential(engine);
  const double shape = 1.0 / (cv * cv);
  return standard_gamma(engine, shape) / shape;
}
}  // namespace detail

/// An inter-arrival time sampler: s(engine) returns the next gap (seconds, >= 0) and
/// s.rate_per_second() the mean arrival rate it produces (1 / mean gap).
template <class S, class G>
concept GapSampler = std::uniform_random_bit_generator<std::remove_cvref_t<G>> &&
    requires(const S& sampler, G& engine) {
  { sampler(engine) } -> std::convertible_to<std::chrono::duration<double>>;
  { sampler.rate_per_second() } -> std::convertible_to<double>;
};

/// I.i.d. exponential gaps with mean 1/rate: a Poisson process of rate λ (req/s).
/// Inverse transform −ln(U)/λ on a uniform built from the engine's bits.
class exponential_gaps {
 public:
  /// rate_per_second: λ, finite and > 0.
  constexpr explicit exponential_gaps(double rate_per_second)
      : rate_per_second_(detail::require_positive("rate_per_second", rate_per_second)) {}
  /// The next gap in seconds.
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] std::chrono::duration<double> operator()(G& engine) const
      noexcept(noexcept(engine())) {
    return std::chrono::duration<double>(detail::standard_exponential(engine) / rate_per_second_);
  }
  /// λ in requests per second.
  [[nodiscard]] constexpr double rate_per_second() const noexcept { return rate_per_second_; }

 private:
  double rate_per_second_;
};

/// The parameters of gamma gaps.
struct gamma_gaps_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double rate_per_second = 0;  ///< λ, the mean arrival rate, finite and > 0
  double cv = 1;               ///< the gaps' coefficient of variation, finite and >= 0 (1: Poisson)
};

/// The parameters of gamma gaps given by vLLM's burstiness b = 1/cv².
struct gamma_burstiness_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double rate_per_second = 0;  ///< λ, the mean arrival rate, finite and > 0
  double burstiness = 1;       ///< b = 1/cv², finite and > 0 (1: Poisson)
};

/// I.i.d. gamma gaps with mean 1/λ and coefficient of variation cv (shape 1/cv², scale
/// cv²/λ). cv = 1 is Poisson (and draws exactly what exponential_gaps draws), cv > 1
/// burstier, cv < 1 smoother, cv = 0 constant gaps. vLLM's --burstiness is 1/cv².
class gamma_gaps {
 public:
  /// gamma_gaps({.rate_per_second = 8, .cv = 2}).
  constexpr explicit gamma_gaps(const gamma_gaps_inputs& inputs)
      : rate_per_second_(detail::require_positive("rate_per_second", inputs.rate_per_second)),
        cv_(detail::require_gap_cv("cv", inputs.cv)) {}
  /// The gamma gaps with vLLM's burstiness parameter b = 1/cv² (b > 0, finite).
  [[nodiscard]] HEADROOM_DECL static gamma_gaps from_burstiness(
      const gamma_burstiness_inputs& inputs);
  /// The next gap in seconds.
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] std::chrono::duration<double> operator()(G& engine) const
      noexcept(noexcept(engine())) {
    return std::chrono::duration<double>(detail::unit_mean_gap(engine, cv_) / rate_per_second_);
  }
  /// λ in requests per second.
  [[nodiscard]] constexpr double rate_per_second() const noexcept { return rate_per_second_; }
  /// The coefficient of variation of the gaps (standard deviation / mean).
  [[nodiscard]] constexpr double cv() const noexcept { return cv_; }
  /// vLLM's burstiness, 1/cv² (infinite for constant gaps).
  [[nodiscard]] constexpr double burstiness() const noexcept {
    return cv_ == 0.0 ? std::numeric_limits<double>::infinity() : 1.0 / (cv_ * cv_);
  }

 private:
  double rate_per_second_;
  double cv_;
};

/// Constant gaps 1/λ: a deterministic (D) arrival process. Draws nothing from the engine.
class constant_gaps {
 public:
  /// rate_per_second: λ, finite and > 0.
  constexpr explicit constant_gaps(double rate_per_second)
      : rate_per_second_(detail::require_positive("rate_per_second", rate_per_second)) {}
  /// The gap, always 1/λ seconds.
  template <class G>
  [[nodiscard]] constexpr std::chrono::duration<double> operator()(G&) const noexcept {
    return std::chrono::duration<double>(1.0 / rate_per_second_);
  }
  /// λ in requests per second.
  [[nodiscard]] constexpr double rate_per_second() const noexcept { return rate_per_second_; }

 private:
  double rate_per_second_;
};

/// The first `count` arrival times of the renewal process with the sampler's gaps:
/// t_k = start + gap_1 + ... + gap_(k+1), so the first arrival comes one gap after start,
/// as in vLLM's benchmark before its rescaling. Deterministic for a seeded engine.
template <class S, std::uniform_random_bit_generator G>
requires GapSampler<S, G>
[[nodiscard]] std::vector<std::chrono::duration<double>> open_loop_schedule(
    const S& sampler, std::size_t count, G& engine,
    std::chrono::duration<double> start = std::chrono::duration<double>::zero()) {
  detail::require_finite("start", start.count());
  std::vector<std::chrono::duration<double>> times;
  if (count > times.max_size()) detail::fail("count", count, "exceeds the largest vector");
  times.reserve(count);
  std::chrono::duration<double> t = start;
  for (std::size_t i = 0; i < count; ++i) {
    t += sampler(engine);
    times.push_back(t);
  }
  return times;
}

/// `count` Poisson arrivals at rate λ (req/s) from start: open_loop_schedule with
/// exponential_gaps. λ must be finite and > 0.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::vector<std::chrono::duration<double>> poisson_schedule(
    double rate_per_second, std::size_t count, G& engine,
    std::chrono::duration<double> start = std::chrono::duration<double>::zero()) {
  return open_loop_schedule(exponential_gaps(rate_per_second), count, engine, start);
}

/// `count` arrivals with gamma gaps of mean 1/λ and coefficient of variation cv:
/// gamma_schedule({.rate_per_second = 8, .cv = 2}, 1000, engine).
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::vector<std::chrono::duration<double>> gamma_schedule(
    const gamma_gaps_inputs& gaps, std::size_t count, G& engine,
    std::chrono::duration<double> start = std::chrono::duration<double>::zero()) {
  return open_loop_schedule(gamma_gaps(gaps), count, engine, start);
}

/// `count` arrivals at exactly 1/λ apart, the first at start + 1/λ.
[[nodiscard]] HEADROOM_DECL std::vector<std::chrono::duration<double>> constant_schedule(
    double rate_per_second, std::size_t count,
    std::chrono::duration<double> start = std::chrono::duration<double>::zero());

/// vLLM-compatible schedule (benchmarks/serve.py, no ramp-up): draws `count` gaps from the
/// sampler, cumulates them, then multiplies every time by N/(λ·t_N) so the last arrival
/// lands exactly at N/λ. The realised rate is then exactly λ, which hides the rate's
/// sampling noise and makes the gaps dependent: it is not a Poisson process. Use it only
/// to reproduce vLLM numbers; prefer open_loop_schedule otherwise.
template <class S, std::uniform_random_bit_generator G>
requires GapSampler<S, G>
[[nodiscard]] std::vector<std::chrono::duration<double>> vllm_rescaled_schedule(const S& sampler,
                                                                                std::size_t count,
                                                                                G& engine) {
  auto times = open_loop_schedule(sampler, count, engine);
  if (times.empty() || times.back().count() <= 0.0) return times;
  const double target_last_s =
      static_cast<double>(count) / static_cast<double>(sampler.rate_per_second());
  const double factor = target_last_s / times.back().count();
  for (auto& t : times) t *= factor;
  return times;
}

/// A ramp of the arrival rate, linear from rate_begin_per_second at 0 to
/// rate_end_per_second at `duration`.
struct linear_ramp_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double rate_begin_per_second = 0;          ///< r0, finite and >= 0
  double rate_end_per_second = 0;            ///< r1, finite and >= 0 (not both 0)
  std::chrono::duration<double> duration{};  ///< T, finite and > 0
};

/// Arrivals of an inhomogeneous Poisson process whose rate moves linearly from r0 at 0 to r1
/// at T, over [0, T). Built by time transform: unit-rate Poisson points s_i are mapped
/// through the inverse of the cumulative rate Λ(t) = r0·t + (r1 − r0)·t²/(2T),
/// t = 2s / (r0 + sqrt(r0² + 2(r1 − r0)s/T)). The count is random; its mean is at most 2^53.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::vector<std::chrono::duration<double>> linear_ramp_schedule(
    const linear_ramp_inputs& ramp, G& engine) {
  const double r0 =
      detail::require_non_negative("rate_begin_per_second", ramp.rate_begin_per_second);
  const double r1 = detail::require_non_negative("rate_end_per_second", ramp.rate_end_per_second);
  const double length_s = detail::require_positive("duration", ramp.duration.count());
  if (r0 == 0.0 && r1 == 0.0)
    detail::fail("rate_end_per_second", r1, "the ramp needs a positive rate at one end at least");
  const double slope = (r1 - r0) / length_s;        // rate change per second
  const double total = 0.5 * (r0 + r1) * length_s;  // Λ(T), the expected count
  if (!(total <= detail::max_expected_arrivals))
    detail::fail("duration", ramp.duration,
                 "gives an expected count (rate_begin + rate_end) / 2 x duration above 2^53");
  std::vector<std::chrono::duration<double>> times;
  times.reserve(static_cast<std::size_t>(
      total + detail::ramp_reserve_deviations * std::sqrt(total) + detail::ramp_reserve_slack));
  double s = 0.0;
  for (;;) {
    s += detail::standard_exponential(engine);
    if (s >= total) break;
    const double disc = r0 * r0 + 2.0 * slope * s;
    const double t = 2.0 * s / (r0 + std::sqrt(disc > 0.0 ? disc : 0.0));
    if (!(t < length_s)) break;
    times.push_back(std::chrono::duration<double>(t));
  }
  return times;
}

namespace detail {
HEADROOM_DECL void require_trace(std::span<const std::chrono::duration<double>> trace);
}  // namespace detail

/// Replays a trace of arrival timestamps (sorted, finite, any origin) as a schedule
/// relative to its first timestamp: t_i − t_0. Unsorted or NaN → invalid_argument.
[[nodiscard]] HEADROOM_DECL std::vector<std::chrono::duration<double>> replay_schedule(
    std::span<const std::chrono::duration<double>> trace);

/// Replays a trace time-scaled to a target mean rate: t'_i = (t_i − t_0)·(λ_trace/λ_target)
/// with λ_trace = (n − 1)/(t_last − t_0). Keeps the trace's burst shape (its gaps' CV).
/// Needs at least two distinct timestamps; target_rate_per_second finite and > 0.
[[nodiscard]] HEADROOM_DECL std::vector<std::chrono::duration<double>> replay_schedule(
    std::span<const std::chrono::duration<double>> trace, double target_rate_per_second);

/// The mean rate a schedule realises, (n − 1)/(t_last − t_first) in req/s: the estimator
/// replay_schedule scales by. Needs two distinct, sorted, finite times.
[[nodiscard]] HEADROOM_DECL double observed_rate_per_second(
    std::span<const std::chrono::duration<double>> schedule);

/// A closed-loop population: N users, each sending its next request a think time after
/// the previous answer. Think times are gamma with the given mean and CV (1: exponential,
/// 0: constant). Right only where the population really is fixed (docs/arrivals.md).
class closed_loop_population {
 public:
  /// users > 0; mean_think_time finite and >= 0; think_cv finite and >= 0.
  HEADROOM_DECL closed_loop_population(std::size_t users,
                                       std::chrono::duration<double> mean_think_time,
                                       double think_cv = 1.0);
  /// One think time (seconds) drawn from the engine; always 0 when the mean is 0.
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] std::chrono::duration<double> think_time(G& engine) const
      noexcept(noexcept(engine())) {
    if (mean_think_time_.count() == 0.0) return std::chrono::duration<double>::zero();
    return mean_think_time_ * detail::unit_mean_gap(engine, think_cv_);
  }
  /// When a user whose answer arrived at `answered` sends its next request.
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] std::chrono::duration<double> next_send(std::chrono::duration<double> answered,
                                                        G& engine) const
      noexcept(noexcept(engine())) {
    return answered + think_time(engine);
  }
  /// Each user's first send time: one think time after 0 (staggers the start), N values.
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] std::vector<std::chrono::duration<double>> first_sends(G& engine) const {
    std::vector<std::chrono::duration<double>> times;
    times.reserve(users_);
    for (std::size_t i = 0; i < users_; ++i) times.push_back(think_time(engine));
    return times;
  }
  /// The rate this population really offered when the run's mean sojourn was W: the
  /// interactive response-time law N/(W + Z) req/s (queueing.hpp closed_loop::rate).
  /// mean_sojourn finite and >= 0, W + Z > 0.
  [[nodiscard]] HEADROOM_DECL double offered_rate_per_second(
      std::chrono::duration<double> mean_sojourn) const;
  /// N, the number of users.
  [[nodiscard]] std::size_t users() const noexcept { return users_; }
  /// Z, the mean think time.
  [[nodiscard]] std::chrono::duration<double> mean_think_time() const noexcept {
    return mean_think_time_;
  }
  /// The think times' coefficient of variation.
  [[nodiscard]] double think_cv() const noexcept { return think_cv_; }

 private:
  std::size_t users_;
  std::chrono::duration<double> mean_think_time_;
  double think_cv_;
};

}  // namespace arrivals
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "impl/arrivals.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

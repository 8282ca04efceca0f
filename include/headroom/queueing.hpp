// SPDX-License-Identifier: Apache-2.0
// Queueing closed forms: Little's law and the sizing rules built on it (target concurrency
// L* = ρ*μ*W̄, replicas needed ceil(λ/(ρ*μ*))), the statistics of a measured conformance,
// M/M/1 (sojourn and waiting-time conformance, capacity μ* and its inverse), M/M/c
// (Erlang B and C, waiting-time conformance, the smallest c for a quota), M/D/1 and M/G/1
// (Pollaczek–Khinchine), and the closed-loop response-time law. See docs/queueing.md.
//
// Units: rates in events per second (requests/s, fields spelled *_per_second), durations as
// std::chrono durations (any duration converts; results are std::chrono::duration<T>,
// seconds), loads in Erlangs.
//
// Named fields: a formula with two or more quantities of one type takes them as named
// fields of one aggregate, written with designated initializers, so that a swap cannot
// compile: replicas_needed({.arrival_rate_per_second = 60, .target_utilization = 0.8,
// .capacity_per_second = 8}). A queue is such an aggregate and its formulas are its members:
// mm1_queue{.arrival_rate_per_second = 0.8, .service_rate_per_second = 1}.mean_sojourn().
// The aggregates accept designated initializers only (detail::designated_initializers_only).
// A formula whose arguments differ in type (a rate and a duration) stays positional.
//
// Types: each aggregate is a template basic_X<T> over its floating-point type, X =
// basic_X<double>. A braced call f({...}) computes in double, f<float>({...}) or
// f(basic_X<float>{...}) in float. A positional formula is a template over the type A of its
// first real parameter and computes in T = A for a floating-point A, double for an integer A.
//
// Errors: NaN, infinities, negative values, zero where it is meaningless and quotas outside
// (0, 1) throw headroom::invalid_argument naming the field (or parameter) as the caller
// wrote it: "arrival_rate_per_second = -1: must be finite and >= 0".
//
// Unstable queues (λ >= cμ) are a domain outcome, never an exception. The rule, everywhere:
// a function returns its limit as λ approaches cμ from below. A conformance (probability of
// meeting a threshold) is 0, the probability of waiting is 1, a mean or a quantile is
// +infinity. is_stable() says which side of the wall a queue is on.
//
// Every function is constexpr: exponentials and logarithms go through detail::cxm, which
// calls std:: at run time and a series during constant evaluation.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"
#include "detail/erlang.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Queueing formulas: Little's law, M/M/1, M/D/1, M/G/1, M/M/c, Erlang B and C, replica counts
/// (docs/queueing.md).
namespace queueing {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {
/// closed_loop::response_time forgives a rate this many ulps of think_time above N/Z: the
/// last rounding of a rate measured exactly at the closed loop's ceiling.
inline constexpr int closed_loop_rounding_ulps = 8;
/// Bisection steps per bit of the floating-point type, at most, in mm1_wait_capacity: the
/// search stops earlier, when the bracket holds two adjacent numbers.
inline constexpr int bisection_steps_per_digit = 4;
}  // namespace detail

// ============================================================================================
// Little's law, L = λW, and the sizing rules it gives
// ============================================================================================

/// Mean number in the system, L = λW (Little's law): rate in events/s times the mean time
/// each spends inside. Holds for any stable system, whatever the distributions.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T littles_law_in_flight(A rate_per_second, detail::seconds_arg<T> sojourn) {
  const T rate = detail::require_non_negative("rate_per_second", static_cast<T>(rate_per_second));
  return rate * detail::require_non_negative_seconds<T>("sojourn", sojourn);
}

/// Throughput from occupancy, λ = L/W, in events/s. sojourn must be > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T littles_law_rate(A in_flight, detail::seconds_arg<T> sojourn) {
  const T l = detail::require_non_negative("in_flight", static_cast<T>(in_flight));
  return l / detail::require_positive_seconds<T>("sojourn", sojourn);
}

/// Inputs of littles_law_sojourn.
template <std::floating_point T>
struct basic_littles_law_sojourn_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T in_flight = 0;        ///< L, mean number in the system, >= 0
  T rate_per_second = 0;  ///< λ, the throughput, events/s, > 0
};
using littles_law_sojourn_inputs = basic_littles_law_sojourn_inputs<double>;

/// Mean sojourn from occupancy and throughput, W = L/λ.
template <std::floating_point T = double>
[[nodiscard]] constexpr detail::seconds_t<T> littles_law_sojourn(
    const basic_littles_law_sojourn_inputs<T>& inputs) {
  const T l = detail::require_non_negative("in_flight", inputs.in_flight);
  return detail::seconds_t<T>(l /
                              detail::require_positive("rate_per_second", inputs.rate_per_second));
}

/// In-flight requests per replica, L_r = λW/N_r: the autoscaler's metric.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T in_flight_per_replica(A rate_per_second, detail::seconds_arg<T> sojourn,
                                                std::int64_t replicas) {
  const T in_flight = littles_law_in_flight(static_cast<T>(rate_per_second), sojourn);
  return in_flight / static_cast<T>(detail::require_count_at_least("replicas", replicas, 1));
}

/// Inputs of target_concurrency.
template <std::floating_point T>
struct basic_target_concurrency_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T target_utilization = 0;             ///< ρ*, the share of μ* a replica runs at, in (0, 1]
  T capacity_per_second = 0;            ///< μ*, a replica's capacity, req/s, > 0
  detail::seconds_t<T> mean_sojourn{};  ///< W̄ at the target load, >= 0
};
using target_concurrency_inputs = basic_target_concurrency_inputs<double>;

/// Target concurrency per replica, L* = ρ*·μ*·W̄ (Little's law at the target load): a replica
/// run at ρ* of its capacity μ* (req/s) with mean sojourn W̄ holds L* requests in flight.
template <std::floating_point T = double>
[[nodiscard]] constexpr T target_concurrency(const basic_target_concurrency_inputs<T>& inputs) {
  const T rho = detail::require_unit_positive("target_utilization", inputs.target_utilization);
  const T mu = detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  return rho * mu * detail::require_non_negative_seconds<T>("mean_sojourn", inputs.mean_sojourn);
}

/// Inputs of replicas_needed.
template <std::floating_point T>
struct basic_replicas_needed_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;  ///< λ, the traffic to serve, req/s, >= 0
  T target_utilization = 0;       ///< ρ*, the share of μ* each replica runs at, in (0, 1]
  T capacity_per_second = 0;      ///< μ*, a replica's capacity, req/s, > 0
};
using replicas_needed_inputs = basic_replicas_needed_inputs<double>;

/// Replicas needed for a rate, N_r* = ceil(λ/(ρ*·μ*)). Evaluated exactly in that order, with
/// no tolerance, so it matches numpy's int(np.ceil(rate / (rho * mu))) bit for bit; 0 for a
/// zero rate. A count above 2^62 is rejected, naming arrival_rate_per_second.
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t replicas_needed(
    const basic_replicas_needed_inputs<T>& inputs) {
  const T rate =
      detail::require_non_negative("arrival_rate_per_second", inputs.arrival_rate_per_second);
  const T rho = detail::require_unit_positive("target_utilization", inputs.target_utilization);
  const T mu = detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  return detail::require_ceil_count("arrival_rate_per_second",
                                    detail::cxm::product_ratio({rate}, {rho, mu}));
}

/// Standard error of a conformance measured as a frequency over n requests,
/// sqrt(q(1−q)/n): 0.021 for q = 0.9 at n = 200. q in [0, 1], n >= 1.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T conformance_standard_error(A conformance, std::int64_t samples) {
  const T q = detail::require_unit("conformance", static_cast<T>(conformance));
  const auto n = detail::require_count_at_least("samples", samples, 1);
  return detail::cxm::sqrt(q * (T(1) - q) / static_cast<T>(n));
}

/// Inputs of conformance_samples_needed.
template <std::floating_point T>
struct basic_conformance_samples_needed_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T conformance = 0;     ///< q, the conformance expected, in [0, 1]
  T standard_error = 0;  ///< the largest standard error wanted, > 0
};
using conformance_samples_needed_inputs = basic_conformance_samples_needed_inputs<double>;

/// Requests to measure so that a conformance near q has standard error at most se:
/// ceil(q(1−q)/se²).
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t conformance_samples_needed(
    const basic_conformance_samples_needed_inputs<T>& inputs) {
  const T q = detail::require_unit("conformance", inputs.conformance);
  const T se = detail::require_positive("standard_error", inputs.standard_error);
  return detail::require_ceil_count("standard_error",
                                    detail::cxm::product_ratio({q, T(1) - q}, {se, se}));
}

// ============================================================================================
// The closed-loop response-time law, λ = N/(W + Z)
// ============================================================================================

/// A closed loop of N users, each waiting W for an answer then thinking Z before the next
/// request, and the interactive response-time law λ = N/(W + Z) that ties its rate to W.
template <std::floating_point T>
struct basic_closed_loop {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T users = 0;                        ///< N, >= 0
  detail::seconds_t<T> think_time{};  ///< Z, the mean think time, >= 0

  /// Throughput at mean sojourn W: λ = N/(W + Z), req/s. sojourn >= 0, W + Z > 0.
  [[nodiscard]] constexpr T rate(detail::seconds_t<T> sojourn) const {
    const T n = detail::require_non_negative("users", users);
    const T w = detail::require_non_negative_seconds<T>("sojourn", sojourn);
    const T z = detail::require_non_negative_seconds<T>("think_time", think_time);
    if (!(w > T(0) || z > T(0)))
      detail::fail("sojourn", sojourn, "sojourn + think_time must be > 0");
    // N / (W + Z), both halved where their sum would overflow (exactly: they are then huge).
    const T scale = w + z <= std::numeric_limits<T>::max() ? T(1) : T(0.5);
    return detail::cxm::product_ratio({n, scale}, {w * scale + z * scale});
  }

  /// Mean response time of the loop running at λ: W = N/λ − Z. A rate above N/Z is
  /// impossible for a closed loop and is rejected (invalid_argument naming rate_per_second).
  /// rate_per_second > 0.
  [[nodiscard]] constexpr detail::seconds_t<T> response_time(T rate_per_second) const {
    const T n = detail::require_non_negative("users", users);
    const T rate = detail::require_positive("rate_per_second", rate_per_second);
    const T z = detail::require_non_negative_seconds<T>("think_time", think_time);
    T w = n / rate - z;
    if (w < T(0)) {
      // Forgive the last rounding of an input measured exactly at N/Z.
      if (-w > T(detail::closed_loop_rounding_ulps) * std::numeric_limits<T>::epsilon() * z)
        detail::fail("rate_per_second", rate,
                     "exceeds users / think_time: no closed loop runs so fast");
      w = T(0);
    }
    return detail::seconds_t<T>(w);
  }
};
using closed_loop = basic_closed_loop<double>;

// ============================================================================================
// M/M/1: Poisson arrivals at λ, one server, exponential service at μ
// ============================================================================================

/// An M/M/1 queue and its formulas. Every member validates the rates (λ >= 0, μ > 0); an
/// unstable queue (λ >= μ) is an outcome: conformances 0, means and quantiles +infinity.
template <std::floating_point T>
struct basic_mm1_queue {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;  ///< λ, req/s, >= 0
  T service_rate_per_second = 0;  ///< μ, req/s, > 0

  /// true iff λ < μ: the queue has a steady state.
  [[nodiscard]] constexpr bool is_stable() const {
    const T l = lambda();
    return l < mu();
  }

  /// Utilization ρ = λ/μ (may exceed 1: an unstable input is not an error).
  [[nodiscard]] constexpr T utilization() const {
    const T l = lambda();
    return l / mu();
  }

  /// Sojourn-time conformance P(W <= τ) = 1 − e^{−(μ−λ)τ}: the sojourn of an M/M/1 queue
  /// is exponential with parameter μ−λ. 0 when unstable. threshold >= 0.
  [[nodiscard]] constexpr T sojourn_conformance(detail::seconds_t<T> threshold) const {
    const T l = lambda();
    const T m = mu();
    const T tau = detail::require_non_negative_seconds<T>("threshold", threshold);
    if (!(l < m)) return T(0);
    return -detail::cxm::expm1(-(m - l) * tau);
  }

  /// Waiting-time conformance P(W_q <= τ) = 1 − ρe^{−(μ−λ)τ} (time in queue before service
  /// starts; a request finds the server idle with probability 1 − ρ). 0 when unstable.
  [[nodiscard]] constexpr T wait_conformance(detail::seconds_t<T> threshold) const {
    const T l = lambda();
    const T m = mu();
    const T tau = detail::require_non_negative_seconds<T>("threshold", threshold);
    if (!(l < m)) return T(0);
    return T(1) - (l / m) * detail::cxm::exp(-(m - l) * tau);
  }

  /// The sojourn time that a fraction q of requests meets: ln(1/(1−q))/(μ−λ) (the
  /// q-quantile of the exponential sojourn). +infinity when unstable. quota in (0, 1).
  [[nodiscard]] constexpr detail::seconds_t<T> sojourn_quantile(T quota) const {
    const T l = lambda();
    const T m = mu();
    const T q = detail::require_open_unit("quota", quota);
    if (!(l < m)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
    return detail::seconds_t<T>(detail::cxm::quota_log(q) / (m - l));
  }

  /// Mean sojourn W = 1/(μ−λ). +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_sojourn() const {
    const T l = lambda();
    const T m = mu();
    if (!(l < m)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
    return detail::seconds_t<T>(T(1) / (m - l));
  }

  /// Mean wait in queue W_q = ρ/(μ−λ). +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_wait() const {
    const T l = lambda();
    const T m = mu();
    if (!(l < m)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
    return detail::seconds_t<T>((l / m) / (m - l));
  }

  /// Mean number in the system L = ρ/(1−ρ). +infinity when unstable.
  [[nodiscard]] constexpr T mean_in_system() const {
    const T l = lambda();
    const T m = mu();
    if (!(l < m)) return std::numeric_limits<T>::infinity();
    return l / (m - l);
  }

  /// Mean queue length (waiting, not in service) L_q = ρ²/(1−ρ). +infinity when unstable.
  [[nodiscard]] constexpr T mean_queue_length() const {
    const T l = lambda();
    const T m = mu();
    if (!(l < m)) return std::numeric_limits<T>::infinity();
    return (l / m) * l / (m - l);
  }

 private:
  constexpr T lambda() const {
    return detail::require_non_negative("arrival_rate_per_second", arrival_rate_per_second);
  }
  constexpr T mu() const {
    return detail::require_positive("service_rate_per_second", service_rate_per_second);
  }
};
using mm1_queue = basic_mm1_queue<double>;

/// Inputs of mm1_capacity and mm1_wait_capacity: a server and a latency quota.
template <std::floating_point T>
struct basic_mm1_capacity_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T service_rate_per_second = 0;     ///< μ, req/s, > 0
  detail::seconds_t<T> threshold{};  ///< τ, the latency threshold
  T quota = 0;                       ///< q, the share that must meet τ, in (0, 1)
};
using mm1_capacity_inputs = basic_mm1_capacity_inputs<double>;

/// Capacity under a sojourn quota, μ* = max{λ : 1 − e^{−(μ−λ)τ} >= q} = μ − ln(1/(1−q))/τ
/// (μ − ln 10/τ for q = 0.9). 0 when even an idle server misses the quota
/// (μτ < ln(1/(1−q))). threshold > 0.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mm1_capacity(const basic_mm1_capacity_inputs<T>& inputs) {
  const T mu = detail::require_positive("service_rate_per_second", inputs.service_rate_per_second);
  const T tau = detail::require_positive_seconds<T>("threshold", inputs.threshold);
  const T q = detail::require_open_unit("quota", inputs.quota);
  const T capacity = mu - detail::cxm::quota_log(q) / tau;
  return capacity > T(0) ? capacity : T(0);
}

/// Capacity under a waiting-time quota: the largest λ with 1 − (λ/μ)e^{−(μ−λ)τ} >= q. No
/// closed form (λ appears twice); found by bisection to the last bit. Always >= 0 (an idle
/// server never waits). threshold >= 0.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mm1_wait_capacity(const basic_mm1_capacity_inputs<T>& inputs) {
  const T mu = detail::require_positive("service_rate_per_second", inputs.service_rate_per_second);
  const T tau = detail::require_non_negative_seconds<T>("threshold", inputs.threshold);
  const T q = detail::require_open_unit("quota", inputs.quota);
  // (λ/μ)e^{−(μ−λ)τ} rises with λ from 0 to 1: bisect for the point where it reaches 1 − q.
  T low = 0;
  T high = mu;
  for (int i = 0; i < detail::bisection_steps_per_digit * std::numeric_limits<T>::digits; ++i) {
    const T mid = low + (high - low) / T(2);
    if (mid <= low || mid >= high) break;
    if ((mid / mu) * detail::cxm::exp(-(mu - mid) * tau) <= T(1) - q)
      low = mid;
    else
      high = mid;
  }
  return low;
}

/// Inputs of mm1_service_rate_needed: a rate and a latency quota.
template <std::floating_point T>
struct basic_mm1_service_rate_needed_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;     ///< λ, req/s, >= 0
  detail::seconds_t<T> threshold{};  ///< τ, the sojourn threshold, > 0
  T quota = 0;                       ///< q, the share that must meet τ, in (0, 1)
};
using mm1_service_rate_needed_inputs = basic_mm1_service_rate_needed_inputs<double>;

/// The inverse of mm1_capacity: the service rate a server needs so that λ meets the sojourn
/// quota, μ = λ + ln(1/(1−q))/τ.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mm1_service_rate_needed(
    const basic_mm1_service_rate_needed_inputs<T>& inputs) {
  const T lambda =
      detail::require_non_negative("arrival_rate_per_second", inputs.arrival_rate_per_second);
  const T tau = detail::require_positive_seconds<T>("threshold", inputs.threshold);
  const T q = detail::require_open_unit("quota", inputs.quota);
  return lambda + detail::cxm::quota_log(q) / tau;
}
// ============================================================================================
// M/M/c: Poisson arrivals at λ, c identical servers at μ each, one shared FIFO queue
// ============================================================================================

/// Inputs of erlang_b and erlang_c: c servers offered a = λ/μ Erlangs.
template <std::floating_point T>
struct basic_erlang_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int64_t servers = 0;  ///< c, >= 1
  T offered_load = 0;        ///< a = λ/μ, Erlangs, in [0, 2^53]
};
using erlang_inputs = basic_erlang_inputs<double>;

/// Erlang B, the blocking probability of an M/M/c/c loss system with offered load a = λ/μ
/// Erlangs. O(1) in c (the recurrence up to c = 49, Temme's expansion of the incomplete
/// gamma function above), stable for any c.
template <std::floating_point T = double>
[[nodiscard]] constexpr T erlang_b(const basic_erlang_inputs<T>& inputs) {
  const auto c = detail::require_count_at_least("servers", inputs.servers, 1);
  const T a = detail::require_offered_load("offered_load", inputs.offered_load);
  return detail::erlang_b_value(c, a);
}

/// Erlang C, the probability that an arrival to an M/M/c queue waits, with offered load
/// a = λ/μ Erlangs: C = B/(1 − ρ(1 − B)), ρ = a/c. 1 when unstable (a >= c).
template <std::floating_point T = double>
[[nodiscard]] constexpr T erlang_c(const basic_erlang_inputs<T>& inputs) {
  const auto c = detail::require_count_at_least("servers", inputs.servers, 1);
  const T a = detail::require_offered_load("offered_load", inputs.offered_load);
  return detail::erlang_c_value(c, a);
}

/// An M/M/c queue (c servers at μ each, one shared FIFO queue) and its formulas. Every
/// member validates λ >= 0, μ > 0, c >= 1 and λ/μ <= 2^53; an unstable queue (λ >= cμ) is
/// an outcome: the probability of waiting 1, the conformance 0, means +infinity.
template <std::floating_point T>
struct basic_mmc_queue {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;  ///< λ, req/s, >= 0
  T service_rate_per_second = 0;  ///< μ of each server, req/s, > 0
  std::int64_t servers = 0;       ///< c, >= 1

  /// The offered load a = λ/μ, Erlangs.
  [[nodiscard]] constexpr T offered_load() const { return checked().a; }

  /// true iff λ < cμ (equivalently a < c).
  [[nodiscard]] constexpr bool is_stable() const {
    const auto q = checked();
    return q.a < static_cast<T>(q.c);
  }

  /// Probability of waiting, Erlang C at a = λ/μ. 1 when unstable.
  [[nodiscard]] constexpr T wait_probability() const {
    const auto q = checked();
    return detail::erlang_c_value(q.c, q.a);
  }

  /// Waiting-time conformance P(W_q <= t) = 1 − C·e^{−(cμ−λ)t} (the call-centre "service
  /// level"). 0 when unstable. threshold >= 0 (t = 0 gives 1 − C).
  [[nodiscard]] constexpr T wait_conformance(detail::seconds_t<T> threshold) const {
    const auto q = checked();
    const T t = detail::require_non_negative_seconds<T>("threshold", threshold);
    return detail::mmc_wait_conformance_value(q.mu, q.c, q.a, t);
  }

  /// Mean wait in queue W_q = C/(cμ − λ). +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_wait() const {
    const auto q = checked();
    if (!(q.a < static_cast<T>(q.c)))
      return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
    const T wait = detail::erlang_c_value(q.c, q.a);
    // wait / (cμ − λ), with cμ − λ = μ(c − a): cμ may overflow where the difference does not.
    return detail::seconds_t<T>(
        detail::cxm::product_ratio({wait}, {q.mu, static_cast<T>(q.c) - q.a}));
  }

  /// Mean sojourn W = W_q + 1/μ. +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_sojourn() const {
    const auto wait = mean_wait();
    return wait + detail::seconds_t<T>(T(1) / service_rate_per_second);
  }

  /// Mean queue length L_q = λ·W_q = C·ρ/(1 − ρ). +infinity when unstable.
  [[nodiscard]] constexpr T mean_queue_length() const {
    const auto wait = mean_wait();
    if (arrival_rate_per_second == T(0)) return T(0);
    return arrival_rate_per_second * wait.count();
  }

 private:
  struct valid {
    T mu;
    std::int64_t c;
    T a;
  };
  constexpr valid checked() const {
    const T lambda =
        detail::require_non_negative("arrival_rate_per_second", arrival_rate_per_second);
    const T mu = detail::require_positive("service_rate_per_second", service_rate_per_second);
    const auto c = detail::require_count_at_least("servers", servers, 1);
    return {mu, c, detail::require_offered_load("arrival_rate_per_second", lambda / mu)};
  }
};
using mmc_queue = basic_mmc_queue<double>;

/// Inputs of mmc_servers_needed: a rate, a server and a waiting-time quota.
template <std::floating_point T>
struct basic_mmc_servers_needed_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;     ///< λ, req/s, >= 0 (λ/μ <= 2^53)
  T service_rate_per_second = 0;     ///< μ of each server, req/s, > 0
  detail::seconds_t<T> threshold{};  ///< t, the waiting-time threshold, >= 0
  T quota = 0;                       ///< q, the share that must wait at most t, in (0, 1)
};
using mmc_servers_needed_inputs = basic_mmc_servers_needed_inputs<double>;

/// The smallest number of servers c for which P(W_q <= t) >= q: how many replicas a pooled
/// fleet (one shared queue) needs. From the smallest stable c = floor(λ/μ) + 1, doubling
/// steps then bisection: O(log(c − λ/μ)) Erlang C evaluations of O(1) each; the same c a
/// walk up from floor(λ/μ) + 1 would find. Returns 1 for λ = 0.
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t mmc_servers_needed(
    const basic_mmc_servers_needed_inputs<T>& inputs) {
  const T lambda =
      detail::require_non_negative("arrival_rate_per_second", inputs.arrival_rate_per_second);
  const T mu = detail::require_positive("service_rate_per_second", inputs.service_rate_per_second);
  const T t = detail::require_non_negative_seconds<T>("threshold", inputs.threshold);
  const T q = detail::require_open_unit("quota", inputs.quota);
  detail::require_offered_load("arrival_rate_per_second", lambda / mu);
  return detail::mmc_servers_needed_value(lambda, mu, t, q);
}

// ============================================================================================
// M/G/1 and M/D/1: Pollaczek–Khinchine
// ============================================================================================

/// An M/G/1 queue: Poisson arrivals, one server whose service time has mean 1/μ and
/// coefficient of variation c_s (0 deterministic, 1 exponential), and its Pollaczek–Khinchine
/// means. Every member validates λ >= 0, μ > 0, c_s >= 0; +infinity when unstable.
template <std::floating_point T>
struct basic_mg1_queue {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;  ///< λ, req/s, >= 0
  T service_rate_per_second = 0;  ///< μ, req/s, > 0
  T service_cv = 0;               ///< c_s, standard deviation / mean of the service time, >= 0

  /// Mean wait in queue W_q = ρ(1 + c_s²)/(2μ(1 − ρ)). +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_wait() const {
    const T lambda =
        detail::require_non_negative("arrival_rate_per_second", arrival_rate_per_second);
    const T mu = detail::require_positive("service_rate_per_second", service_rate_per_second);
    const T cv = detail::require_non_negative("service_cv", service_cv);
    if (!(lambda < mu)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
    // ρ(1 + cv²) / (2(μ − λ)) as two products, so that a large cv cannot meet ρ = 0 (0 × ∞).
    const T gap = mu - lambda;
    return detail::seconds_t<T>(detail::cxm::product_ratio({lambda}, {mu, T(2), gap}) +
                                detail::cxm::product_ratio({lambda, cv, cv}, {mu, T(2), gap}));
  }

  /// Mean sojourn W = W_q + 1/μ. +infinity when unstable.
  [[nodiscard]] constexpr detail::seconds_t<T> mean_sojourn() const {
    const auto wait = mean_wait();
    return wait + detail::seconds_t<T>(T(1) / service_rate_per_second);
  }
};
using mg1_queue = basic_mg1_queue<double>;

/// An M/D/1 queue (deterministic service time 1/μ): the M/G/1 queue with c_s = 0, whose
/// wait is half the M/M/1 wait. +infinity when unstable.
template <std::floating_point T>
struct basic_md1_queue {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T arrival_rate_per_second = 0;  ///< λ, req/s, >= 0
  T service_rate_per_second = 0;  ///< μ, req/s, > 0

  /// Mean wait in queue W_q = ρ/(2μ(1 − ρ)).
  [[nodiscard]] constexpr detail::seconds_t<T> mean_wait() const { return as_mg1().mean_wait(); }

  /// Mean sojourn W = 1/μ + ρ/(2μ(1 − ρ)).
  [[nodiscard]] constexpr detail::seconds_t<T> mean_sojourn() const {
    return as_mg1().mean_sojourn();
  }

  /// Mean queue length L_q = ρ²/(2(1 − ρ)).
  [[nodiscard]] constexpr T mean_queue_length() const {
    const auto wait = mean_wait();
    if (arrival_rate_per_second == T(0)) return T(0);
    return arrival_rate_per_second * wait.count();
  }

  /// Waiting-time conformance P(W_q <= t), Erlang's formula (Erlang 1909; Crommelin 1932):
  /// with D = 1/μ, (1 − ρ) Σ_{k=0}^{⌊t/D⌋} (λ(kD − t))^k / k! · e^{−λ(kD − t)}. At t = 0 it is
  /// 1 − ρ, at t = D (1 − ρ)e^ρ; 0 when unstable. The series alternates, summed in long
  /// double: where its terms are so large that the sum would keep fewer than 8 digits
  /// (λ·t beyond about 16 with an 80-bit long double, 9 with a 64-bit one) it throws
  /// invalid_argument naming `threshold` rather than answer wrongly. threshold >= 0.
  [[nodiscard]] T wait_conformance(detail::seconds_t<T> threshold) const {
    const T lambda =
        detail::require_non_negative("arrival_rate_per_second", arrival_rate_per_second);
    const T mu = detail::require_positive("service_rate_per_second", service_rate_per_second);
    const T t = detail::require_non_negative_seconds<T>("threshold", threshold);
    const T rho = lambda / mu;
    if (!(rho < T(1))) return T(0);
    if (lambda == T(0)) return T(1);
    using L = long double;
    const L d = L(1) / static_cast<L>(mu), l = static_cast<L>(lambda), tl = static_cast<L>(t);
    const auto last = static_cast<std::int64_t>(std::floor(tl / d));
    L sum = 0, magnitude = 0, log_factorial = 0;  // ln k!, summed (lgamma is not thread-safe)
    for (std::int64_t k = 0; k <= last; ++k) {
      if (k > 0) log_factorial += std::log(static_cast<L>(k));
      const L u = l * (tl - static_cast<L>(k) * d);  // λ(t − kD) >= 0
      L term = 0;
      if (k == 0)
        term = std::exp(u);
      else if (u > L(0))
        term = std::exp(static_cast<L>(k) * std::log(u) - log_factorial + u);
      magnitude += term;
      sum += (k % 2 == 0) ? term : -term;
    }
    const L lost = magnitude * static_cast<L>(last + 2) * std::numeric_limits<L>::epsilon();
    if (!(lost <= L(1e-8)))
      detail::fail("threshold", t,
                   "is too long for Erlang's series at this arrival rate: lambda * threshold "
                   "leaves fewer than 8 digits");
    const L f = (L(1) - static_cast<L>(rho)) * sum;
    return static_cast<T>(std::clamp(f, L(0), L(1)));
  }

  /// The same queue as an M/G/1 queue with service_cv = 0.
  [[nodiscard]] constexpr basic_mg1_queue<T> as_mg1() const {
    return {.arrival_rate_per_second = arrival_rate_per_second,
            .service_rate_per_second = service_rate_per_second,
            .service_cv = T(0)};
  }
};
using md1_queue = basic_md1_queue<double>;

}  // namespace queueing
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

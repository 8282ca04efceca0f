// SPDX-License-Identifier: Apache-2.0
// Queueing closed forms: Little's law and the sizing rules built on it (target concurrency
// L* = ρ*μ*W̄, replicas needed ceil(λ/(ρ*μ*))), the statistics of a measured conformance,
// M/M/1 (sojourn and waiting-time conformance, capacity μ* and its inverse), M/M/c
// (Erlang B and C, waiting-time conformance, the smallest c for a quota), M/D/1 and M/G/1
// (Pollaczek–Khinchine), and the closed-loop response-time law. See docs/queueing.md.
//
// Units: rates in events per second (requests/s), durations as std::chrono durations (any
// duration converts; results are std::chrono::duration<T>, seconds), loads in Erlangs.
//
// Types: each formula is a template over the type A of its first real parameter and computes
// in T = A for a floating-point A, double for an integer A; its other real parameters take T.
//
// Errors: NaN, infinities, negative values, zero where it is meaningless and quotas outside
// (0, 1) throw headroom::invalid_argument naming the parameter.
//
// Unstable queues (λ >= cμ) are a domain outcome, never an exception. The rule, everywhere:
// a function returns its limit as λ approaches cμ from below. A conformance (probability of
// meeting a threshold) is 0, the probability of waiting is 1, a mean or a quantile is
// +infinity. mm1_is_stable / mmc_is_stable say which side of the wall an input is on.
//
// Every function is constexpr: exponentials and logarithms go through detail::cxm, which
// calls std:: at run time and a series during constant evaluation.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"

namespace headroom {
inline namespace v0 {

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

/// Mean sojourn from occupancy and throughput, W = L/λ. rate_per_second must be > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> littles_law_sojourn(
    A in_flight, detail::same_t<T> rate_per_second) {
  const T l = detail::require_non_negative("in_flight", static_cast<T>(in_flight));
  return detail::seconds_t<T>(l / detail::require_positive("rate_per_second", rate_per_second));
}

/// In-flight requests per replica, L_r = λW/N_r (SPEC §2): the autoscaler's metric.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T in_flight_per_replica(A rate_per_second, detail::seconds_arg<T> sojourn,
                                                std::int64_t replicas) {
  const T in_flight = littles_law_in_flight(static_cast<T>(rate_per_second), sojourn);
  return in_flight / static_cast<T>(detail::require_count_at_least("replicas", replicas, 1));
}

/// Target concurrency per replica, L* = ρ*·μ*·W̄ (Little's law at the target load): a replica
/// run at ρ* of its capacity μ* (req/s) with mean sojourn W̄ holds L* requests in flight.
/// rho_target in (0, 1], capacity > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T target_concurrency(A rho_target, detail::same_t<T> capacity,
                                             detail::seconds_arg<T> mean_sojourn) {
  const T rho = detail::require_unit_positive("rho_target", static_cast<T>(rho_target));
  const T mu = detail::require_positive("capacity", capacity);
  return rho * mu * detail::require_non_negative_seconds<T>("mean_sojourn", mean_sojourn);
}

/// Replicas needed for a rate, N_r* = ceil(λ/(ρ*·μ*)) (SPEC §2). Evaluated exactly in that
/// order, with no tolerance, so it matches numpy's int(np.ceil(rate / (rho * mu))) bit for
/// bit; 0 for a zero rate. rate >= 0, rho_target in (0, 1], capacity > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::int64_t replicas_needed(A rate_per_second,
                                                     detail::same_t<T> rho_target,
                                                     detail::same_t<T> capacity) {
  const T rate = detail::require_non_negative("rate_per_second", static_cast<T>(rate_per_second));
  const T rho = detail::require_unit_positive("rho_target", rho_target);
  const T mu = detail::require_positive("capacity", capacity);
  return detail::require_ceil_count("rate_per_second",
                                    detail::cxm::product_ratio({rate}, {rho, mu}));
}

/// Standard error of a conformance measured as a frequency over n requests,
/// sqrt(q(1−q)/n): 0.021 for q = 0.9 at n = 200 (SPEC §1). q in [0, 1], n >= 1.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T conformance_standard_error(A conformance, std::int64_t samples) {
  const T q = detail::require_unit("conformance", static_cast<T>(conformance));
  const auto n = detail::require_count_at_least("samples", samples, 1);
  return detail::cxm::sqrt(q * (T(1) - q) / static_cast<T>(n));
}

/// Requests to measure so that a conformance near q has standard error at most se:
/// ceil(q(1−q)/se²). q in [0, 1], standard_error > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::int64_t conformance_samples_needed(A conformance,
                                                                detail::same_t<T> standard_error) {
  const T q = detail::require_unit("conformance", static_cast<T>(conformance));
  const T se = detail::require_positive("standard_error", standard_error);
  return detail::require_ceil_count("standard_error",
                                    detail::cxm::product_ratio({q, T(1) - q}, {se, se}));
}

// ============================================================================================
// The closed-loop response-time law, λ = N/(W + Z)
// ============================================================================================

/// Throughput of a closed loop of N users, each waiting W for an answer then thinking Z
/// before the next request: λ = N/(W + Z) (interactive response-time law). W + Z > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T closed_loop_rate(A users, detail::seconds_arg<T> sojourn,
                                           detail::seconds_arg<T> think_time) {
  const T n = detail::require_non_negative("users", static_cast<T>(users));
  const T w = detail::require_non_negative_seconds<T>("sojourn", sojourn);
  const T z = detail::require_non_negative_seconds<T>("think_time", think_time);
  if (!(w > T(0) || z > T(0)))
    detail::fail("sojourn", sojourn, "sojourn + think_time must be > 0");
  // N / (W + Z), both halved where their sum would overflow (exactly: they are then huge).
  const T scale = w + z <= std::numeric_limits<T>::max() ? T(1) : T(0.5);
  return detail::cxm::product_ratio({n, scale}, {w * scale + z * scale});
}

/// Mean response time of a closed loop that runs at λ: W = N/λ − Z. A rate above N/Z is
/// impossible for a closed loop and is rejected (invalid_argument naming rate_per_second).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> closed_loop_response_time(
    A users, detail::same_t<T> rate_per_second, detail::seconds_arg<T> think_time) {
  const T n = detail::require_non_negative("users", static_cast<T>(users));
  const T rate = detail::require_positive("rate_per_second", rate_per_second);
  const T z = detail::require_non_negative_seconds<T>("think_time", think_time);
  T w = n / rate - z;
  if (w < T(0)) {
    // Forgive the last rounding of an input measured exactly at N/Z.
    if (-w > T(8) * std::numeric_limits<T>::epsilon() * z)
      detail::fail("rate_per_second", rate,
                   "exceeds users / think_time: no closed loop runs so fast");
    w = T(0);
  }
  return detail::seconds_t<T>(w);
}

// ============================================================================================
// M/M/1: Poisson arrivals at λ, one server, exponential service at μ
// ============================================================================================

/// true iff λ < μ: the M/M/1 queue has a steady state.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr bool mm1_is_stable(A arrival_rate, detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  return lambda < detail::require_positive("service_rate", service_rate);
}

/// Utilisation ρ = λ/μ (may exceed 1: an unstable input is not an error).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_utilisation(A arrival_rate, detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  return lambda / detail::require_positive("service_rate", service_rate);
}

/// Sojourn-time conformance P(W <= τ) = 1 − e^{−(μ−λ)τ}: the sojourn of an M/M/1 queue is
/// exponential with parameter μ−λ. 0 when unstable. threshold >= 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_sojourn_conformance(A arrival_rate, detail::same_t<T> service_rate,
                                                  detail::seconds_arg<T> threshold) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T tau = detail::require_non_negative_seconds<T>("threshold", threshold);
  if (!(lambda < mu)) return T(0);
  return -detail::cxm::expm1(-(mu - lambda) * tau);
}

/// Waiting-time conformance P(W_q <= τ) = 1 − ρe^{−(μ−λ)τ} (time in queue before service
/// starts; a request finds the server idle with probability 1 − ρ). 0 when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_wait_conformance(A arrival_rate, detail::same_t<T> service_rate,
                                               detail::seconds_arg<T> threshold) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T tau = detail::require_non_negative_seconds<T>("threshold", threshold);
  if (!(lambda < mu)) return T(0);
  return T(1) - (lambda / mu) * detail::cxm::exp(-(mu - lambda) * tau);
}

/// The sojourn time that a fraction q of requests meets: ln(1/(1−q))/(μ−λ) (the q-quantile
/// of the exponential sojourn). +infinity when unstable. quota in (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mm1_sojourn_quantile(A arrival_rate,
                                                                  detail::same_t<T> service_rate,
                                                                  detail::same_t<T> quota) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T q = detail::require_open_unit("quota", quota);
  if (!(lambda < mu)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
  return detail::seconds_t<T>(detail::cxm::quota_log(q) / (mu - lambda));
}

/// Capacity under a sojourn quota, μ* = max{λ : 1 − e^{−(μ−λ)τ} >= q} = μ − ln(1/(1−q))/τ
/// (μ − ln 10/τ for q = 0.9; SPEC §1). 0 when even an idle server misses the quota
/// (μτ < ln(1/(1−q))). service_rate > 0, threshold > 0, quota in (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_capacity(A service_rate, detail::seconds_arg<T> threshold,
                                       detail::same_t<T> quota) {
  const T mu = detail::require_positive("service_rate", static_cast<T>(service_rate));
  const T tau = detail::require_positive_seconds<T>("threshold", threshold);
  const T q = detail::require_open_unit("quota", quota);
  const T capacity = mu - detail::cxm::quota_log(q) / tau;
  return capacity > T(0) ? capacity : T(0);
}

/// The inverse of mm1_capacity: the service rate a server needs so that λ meets the sojourn
/// quota, μ = λ + ln(1/(1−q))/τ. arrival_rate >= 0, threshold > 0, quota in (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_service_rate_needed(A arrival_rate, detail::seconds_arg<T> threshold,
                                                  detail::same_t<T> quota) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T tau = detail::require_positive_seconds<T>("threshold", threshold);
  const T q = detail::require_open_unit("quota", quota);
  return lambda + detail::cxm::quota_log(q) / tau;
}

/// Capacity under a waiting-time quota: the largest λ with 1 − (λ/μ)e^{−(μ−λ)τ} >= q. No
/// closed form (λ appears twice); found by bisection to the last bit. Always >= 0 (an idle
/// server never waits). service_rate > 0, threshold >= 0, quota in (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_wait_capacity(A service_rate, detail::seconds_arg<T> threshold,
                                            detail::same_t<T> quota) {
  const T mu = detail::require_positive("service_rate", static_cast<T>(service_rate));
  const T tau = detail::require_non_negative_seconds<T>("threshold", threshold);
  const T q = detail::require_open_unit("quota", quota);
  // (λ/μ)e^{−(μ−λ)τ} rises with λ from 0 to 1: bisect for the point where it reaches 1 − q.
  T low = 0;
  T high = mu;
  for (int i = 0; i < 4 * std::numeric_limits<T>::digits; ++i) {
    const T mid = low + (high - low) / T(2);
    if (mid <= low || mid >= high) break;
    if ((mid / mu) * detail::cxm::exp(-(mu - mid) * tau) <= T(1) - q)
      low = mid;
    else
      high = mid;
  }
  return low;
}

/// Mean sojourn W = 1/(μ−λ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mm1_mean_sojourn(A arrival_rate,
                                                              detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  if (!(lambda < mu)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
  return detail::seconds_t<T>(T(1) / (mu - lambda));
}

/// Mean wait in queue W_q = ρ/(μ−λ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mm1_mean_wait(A arrival_rate,
                                                           detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  if (!(lambda < mu)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
  return detail::seconds_t<T>((lambda / mu) / (mu - lambda));
}

/// Mean number in the system L = ρ/(1−ρ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_mean_in_system(A arrival_rate, detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  if (!(lambda < mu)) return std::numeric_limits<T>::infinity();
  return lambda / (mu - lambda);
}

/// Mean queue length (waiting, not in service) L_q = ρ²/(1−ρ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mm1_mean_queue_length(A arrival_rate, detail::same_t<T> service_rate) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  if (!(lambda < mu)) return std::numeric_limits<T>::infinity();
  return (lambda / mu) * lambda / (mu - lambda);
}

// ============================================================================================
// M/M/c: Poisson arrivals at λ, c identical servers at μ each, one shared FIFO queue
// ============================================================================================

namespace detail {
// Largest offered load the M/M/c functions accept (2^53): floor(a) is exact below it.
inline constexpr double max_offered_load = 9007199254740992.0;

template <class T>
constexpr T require_offered_load(const char* name, T a) {
  require_non_negative(name, a);
  if (a > static_cast<T>(max_offered_load)) fail(name, a, "must be <= 2^53 Erlangs");
  return a;
}

/// Erlang B by the recurrence B(0) = 1, B(k) = a·B(k−1)/(k + a·B(k−1)): every step stays in
/// [0, 1], so it neither overflows nor cancels (no factorials, no powers). O(c).
template <class T>
constexpr T erlang_b_recurrence(std::int64_t servers, T a) noexcept {
  T b = 1;
  for (std::int64_t k = 1; k <= servers; ++k) b = a * b / (static_cast<T>(k) + a * b);
  return b;
}

/// Erlang C from Erlang B: C = B/(1 − ρ(1 − B)), ρ = a/c < 1.
template <class T>
constexpr T erlang_c_from_b(std::int64_t servers, T a, T b) noexcept {
  const T rho = a / static_cast<T>(servers);
  return b / (T(1) - rho * (T(1) - b));
}

// (cμ − λ)·t, the exponent of the M/M/c wait tail, as μ(c − a)·t with a = λ/μ < c: never
// ∞ × 0 (cμ overflowing while t is 0), which made the conformance NaN and could keep
// mmc_servers_needed from ever finding its answer.
template <class T>
constexpr T mmc_decay(T mu, std::int64_t servers, T a, T t) noexcept {
  return cxm::product_ratio({mu, static_cast<T>(servers) - a, t});
}
}  // namespace detail

/// Erlang B, the blocking probability of an M/M/c/c loss system with offered load a = λ/μ
/// Erlangs. servers >= 1, offered_load >= 0. O(servers), stable for any c.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T erlang_b(std::int64_t servers, A offered_load) {
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T a = detail::require_offered_load("offered_load", static_cast<T>(offered_load));
  return detail::erlang_b_recurrence(c, a);
}

/// Erlang C, the probability that an arrival to an M/M/c queue waits, with offered load
/// a = λ/μ Erlangs: C = B/(1 − ρ(1 − B)), ρ = a/c. 1 when unstable (a >= c). servers >= 1.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T erlang_c(std::int64_t servers, A offered_load) {
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T a = detail::require_offered_load("offered_load", static_cast<T>(offered_load));
  if (!(a < static_cast<T>(c))) return T(1);
  return detail::erlang_c_from_b(c, a, detail::erlang_b_recurrence(c, a));
}

/// true iff λ < cμ (equivalently the offered load λ/μ < c).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr bool mmc_is_stable(A arrival_rate, detail::same_t<T> service_rate,
                                           std::int64_t servers) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const auto c = detail::require_count_at_least("servers", servers, 1);
  return lambda / mu < static_cast<T>(c);
}

/// Probability of waiting in an M/M/c queue, Erlang C at a = λ/μ. 1 when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mmc_wait_probability(A arrival_rate, detail::same_t<T> service_rate,
                                               std::int64_t servers) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  detail::require_count_at_least("servers", servers, 1);
  return erlang_c(servers, detail::require_offered_load("arrival_rate", lambda / mu));
}

/// Waiting-time conformance of an M/M/c queue, P(W_q <= t) = 1 − C·e^{−(cμ−λ)t} (the
/// call-centre "service level"). 0 when unstable. threshold >= 0 (t = 0 gives 1 − C).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mmc_wait_conformance(A arrival_rate, detail::same_t<T> service_rate,
                                               std::int64_t servers,
                                               detail::seconds_arg<T> threshold) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T t = detail::require_non_negative_seconds<T>("threshold", threshold);
  const T a = detail::require_offered_load("arrival_rate", lambda / mu);
  if (!(a < static_cast<T>(c))) return T(0);
  const T wait = detail::erlang_c_from_b(c, a, detail::erlang_b_recurrence(c, a));
  return T(1) - wait * detail::cxm::exp(-detail::mmc_decay(mu, c, a, t));
}

/// Mean wait in queue W_q = C/(cμ − λ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mmc_mean_wait(A arrival_rate,
                                                           detail::same_t<T> service_rate,
                                                           std::int64_t servers) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T a = detail::require_offered_load("arrival_rate", lambda / mu);
  if (!(a < static_cast<T>(c))) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
  const T wait = detail::erlang_c_from_b(c, a, detail::erlang_b_recurrence(c, a));
  // wait / (cμ − λ), with cμ − λ = μ(c − a): cμ may overflow where the difference does not.
  return detail::seconds_t<T>(detail::cxm::product_ratio({wait}, {mu, static_cast<T>(c) - a}));
}

/// Mean sojourn W = W_q + 1/μ. +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mmc_mean_sojourn(A arrival_rate,
                                                              detail::same_t<T> service_rate,
                                                              std::int64_t servers) {
  const auto wait = mmc_mean_wait(static_cast<T>(arrival_rate), service_rate, servers);
  return wait + detail::seconds_t<T>(T(1) / service_rate);
}

/// Mean queue length L_q = λ·W_q = C·ρ/(1 − ρ). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mmc_mean_queue_length(A arrival_rate, detail::same_t<T> service_rate,
                                                std::int64_t servers) {
  const T lambda = static_cast<T>(arrival_rate);
  const auto wait = mmc_mean_wait(lambda, service_rate, servers);
  if (lambda == T(0)) return T(0);
  return lambda * wait.count();
}

/// The smallest number of servers c for which P(W_q <= t) >= q: how many replicas a pooled
/// fleet (one shared queue) needs. Starts at the smallest stable c = floor(λ/μ) + 1 and
/// climbs, carrying the Erlang B recurrence along, so the whole search is O(c). Returns 1
/// for λ = 0. threshold >= 0, quota in (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::int64_t mmc_servers_needed(A arrival_rate,
                                                        detail::same_t<T> service_rate,
                                                        detail::seconds_arg<T> threshold,
                                                        detail::same_t<T> quota) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T t = detail::require_non_negative_seconds<T>("threshold", threshold);
  const T q = detail::require_open_unit("quota", quota);
  const T a = detail::require_offered_load("arrival_rate", lambda / mu);
  if (a == T(0)) return 1;
  auto c = static_cast<std::int64_t>(a) + 1;  // smallest c with a < c
  T b = detail::erlang_b_recurrence(c, a);
  for (;;) {
    const T wait = detail::erlang_c_from_b(c, a, b);
    const T conformance = T(1) - wait * detail::cxm::exp(-detail::mmc_decay(mu, c, a, t));
    if (conformance >= q) return c;
    ++c;
    b = a * b / (static_cast<T>(c) + a * b);
  }
}

// ============================================================================================
// M/G/1 and M/D/1: Pollaczek–Khinchine
// ============================================================================================

/// M/G/1 mean wait in queue (Pollaczek–Khinchine): W_q = ρ(1 + c_s²)/(2μ(1 − ρ)), with c_s
/// the coefficient of variation of the service time (0 deterministic, 1 exponential).
/// +infinity when unstable. service_cv >= 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mg1_mean_wait(A arrival_rate,
                                                           detail::same_t<T> service_rate,
                                                           detail::same_t<T> service_cv) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T cv = detail::require_non_negative("service_cv", service_cv);
  if (!(lambda < mu)) return detail::seconds_t<T>(std::numeric_limits<T>::infinity());
  // ρ(1 + cv²) / (2(μ − λ)) as two products, so that a large cv cannot meet ρ = 0 (0 × ∞).
  const T gap = mu - lambda;
  return detail::seconds_t<T>(detail::cxm::product_ratio({lambda}, {mu, T(2), gap}) +
                              detail::cxm::product_ratio({lambda, cv, cv}, {mu, T(2), gap}));
}

/// M/G/1 mean sojourn W = W_q + 1/μ. +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> mg1_mean_sojourn(A arrival_rate,
                                                              detail::same_t<T> service_rate,
                                                              detail::same_t<T> service_cv) {
  const auto wait = mg1_mean_wait(static_cast<T>(arrival_rate), service_rate, service_cv);
  return wait + detail::seconds_t<T>(T(1) / service_rate);
}

/// M/D/1 mean wait in queue (deterministic service 1/μ): W_q = ρ/(2μ(1 − ρ)), half the
/// M/M/1 wait. +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> md1_mean_wait(A arrival_rate,
                                                           detail::same_t<T> service_rate) {
  return mg1_mean_wait(static_cast<T>(arrival_rate), service_rate, T(0));
}

/// M/D/1 mean sojourn W = 1/μ + ρ/(2μ(1 − ρ)). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> md1_mean_sojourn(A arrival_rate,
                                                              detail::same_t<T> service_rate) {
  return mg1_mean_sojourn(static_cast<T>(arrival_rate), service_rate, T(0));
}

/// M/D/1 mean queue length L_q = ρ²/(2(1 − ρ)). +infinity when unstable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T md1_mean_queue_length(A arrival_rate, detail::same_t<T> service_rate) {
  const T lambda = static_cast<T>(arrival_rate);
  const auto wait = md1_mean_wait(lambda, service_rate);
  if (lambda == T(0)) return T(0);
  return lambda * wait.count();
}

}  // namespace v0
}  // namespace headroom

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

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

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
/// [0, 1], so it neither overflows nor cancels (no factorials, no powers). O(c): the method
/// for c <= erlang_recurrence_max_servers, and the reference the tests hold the fast path to.
template <class T>
constexpr T erlang_b_step(std::int64_t k, T a, T b) noexcept {
  return a * b / (static_cast<T>(k) + a * b);
}
template <class T>
constexpr T erlang_b_recurrence(std::int64_t servers, T a) noexcept {
  T b = 1;
  for (std::int64_t k = 1; k <= servers; ++k) b = erlang_b_step(k, a, b);
  return b;
}

/// Erlang C from Erlang B: C = B/(1 − ρ(1 − B)) = B/((c − a)/c + ρB), ρ = a/c < 1 (c − a is
/// exact for a >= c/2, so the denominator does not cancel near saturation).
template <class T>
constexpr T erlang_c_from_b(std::int64_t servers, T a, T b) noexcept {
  const T c = static_cast<T>(servers);
  return b / ((c - a) / c + (a / c) * b);
}

// ---- Erlang B through the regularised incomplete gamma function ----------------------------
//
// With s = c + 1 and X ~ Poisson(a): B(c, a) = P(X = c)/P(X <= c), and P(X <= c) = Q(s, a),
// the regularised upper incomplete gamma function (P(s, a) = 1 − Q(s, a) = P(X > c)).
// Temme's uniform asymptotic expansion [Tem79; DM86] in λ = a/s and
// η = sign(λ − 1) sqrt(2(λ − 1 − ln λ)) (so sη²/2 = s ln(s/a) + a − s, the Poisson
// deviance D):
//   Q(s, a) = ½ erfc(η sqrt(s/2)) + R,  P(s, a) = ½ erfc(−η sqrt(s/2)) − R,
//   R = e^{−D}/sqrt(2πs) · Σ_k C_k(η) s^{−k},
// holds uniformly in η, so it costs the same at c = 50 and at c = 10^9: O(1). P(X = c) comes
// from the same D: (s/a) e^{−D}/(sqrt(2πs) Γ*(s)). Three cases:
//  - a < s: B = P(X = c)/(1 − P(s, a)); P(s, a) <= 1/2 (no cancellation) is Temme's for
//    |η| <= 0.6, the tail series P(X = c) Σ_j Π_{i<=j} a/(c + i) (ratio below 0.51) beyond,
//    and negligible once e^{−D} is below half an ulp of 1.
//  - a >= s, η <= 0.6: Q is small, and the e^{−D} of Q and of P(X = c) cancel exactly:
//    B = (s/a)/Γ*(s) / (sqrt(πs/2) erfcx(sqrt D) + Σ_k C_k(η) s^{−k}).
//  - a >= s, η > 0.6 (a > 1.75 s): 1/B = Σ_j c!/((c − j)! a^j), terms falling by c/a < 0.6.
// Nothing is formed that can overflow: every exponential is of −D or of a term of one sign.
// Accuracy (tests/unit/queueing.test.cpp, against the recurrence in long double for c up to
// 10^5): relative error at most 5e-13 in double wherever B is a normal number, growing with
// D as about 4Dε (so largest just above the underflow), 5e-14 where B >= 1e-20.

/// Largest c for which Erlang B uses the recurrence: up to about 50 it is as fast as the
/// expansion (bench/closed_form.bench.cpp, erlang_b_recurrence/c against
/// erlang_b_expansion/c), and Temme's series with the terms kept here is exact to 4e-17 from
/// s = 50 on.
inline constexpr std::int64_t erlang_recurrence_max_servers = 49;

/// Taylor coefficients d_{k,n} of Temme's C_k(η) = Σ_n d_{k,n} η^n, k < 10, n < 25. From
/// C_0(η) = 1/(λ − 1) − 1/η and C_k(η) = C_{k−1}'(η)/η + (−1)^k γ_k/(λ − 1), with γ_k the
/// Stirling coefficients Γ*(s) ~ Σ γ_k s^{−k} (1, 1/12, 1/288, −139/51840, ...), expanded
/// in exact rational arithmetic by series reversion of η²/2 = λ − 1 − ln λ; rounded to 21
/// digits. They agree with DiDonato & Morris's d_{k,n} (d_00 = −1/3, d_01 = 1/12,
/// d_02 = −2/135, d_10 = −1/540, d_20 = 25/6048). Radius of convergence 2 sqrt(π): at
/// |η| <= 0.6 the degree-24 polynomials are exact to 2e-21.
inline constexpr long double temme_coefficients_ld[10][25] = {
    {-3.33333333333333333333e-1L,  8.33333333333333333333e-2L,   -1.48148148148148148148e-2L,
     1.15740740740740740741e-3L,   3.52733686067019400353e-4L,   -1.78755144032921810700e-4L,
     3.91926317852243778170e-5L,   -2.18544851067999216147e-6L,  -1.85406221071515996070e-6L,
     8.29671134095308600502e-7L,   -1.76659527368260793044e-7L,  6.70785354340149858037e-9L,
     1.02618097842403080426e-8L,   -4.38203601845335318655e-9L,  9.14769958223679023418e-10L,
     -2.55141939949462497669e-11L, -5.83077213255042506746e-11L, 2.43619480206674162437e-11L,
     -5.02766928011417558909e-12L, 1.10043920319561347708e-13L,  3.37176326240098537883e-13L,
     -1.39238872241816206592e-13L, 2.85348938070474432040e-14L,  -5.13911183424257261899e-16L,
     -1.97522882943494428354e-15L},
    {-1.85185185185185185185e-3L,  -3.47222222222222222222e-3L,  2.64550264550264550265e-3L,
     -9.90226337448559670782e-4L,  2.05761316872427983539e-4L,   -4.01877572016460905350e-7L,
     -1.80985503344899778370e-5L,  7.64916091608111008464e-6L,   -1.61209008945634460038e-6L,
     4.64712780280743434226e-9L,   1.37863344691572095931e-7L,   -5.75254560351770496402e-8L,
     1.19516285997781473243e-8L,   -1.75432417197476476238e-11L, -1.00915437106004126275e-9L,
     4.16279299184258263623e-10L,  -8.56390702649298063807e-11L, 6.06721510160475861513e-14L,
     7.16249896481148539008e-12L,  -2.93318664377143711741e-12L, 5.99669636568368872330e-13L,
     -2.16717865273233141017e-16L, -4.97833997236926164053e-14L, 2.02916288237134247737e-14L,
     -4.13125571381061004935e-15L},
    {4.13359788359788359788e-3L,  -2.68132716049382716049e-3L,  7.71604938271604938272e-4L,
     2.00938786008230452675e-6L,  -1.07366532263651605215e-4L,  5.29234488291201254164e-5L,
     -1.27606351886187277134e-5L, 3.42357873409613807419e-8L,   1.37219573090629332056e-6L,
     -6.29899213838005502291e-7L, 1.42806142060642417916e-7L,   -2.04770984219908660149e-10L,
     -1.40925299108675210533e-8L, 6.22897408492202203356e-9L,   -1.36704883966171134993e-9L,
     9.42835615901467819548e-13L, 1.28722524000893180595e-10L,  -5.56459561343633211465e-11L,
     1.19759355463669810036e-11L, -4.16897822518386350404e-15L, -1.09406404278845944099e-12L,
     4.66223994639013574633e-13L, -9.90510576390690597844e-14L, 1.89318767683735145057e-17L,
     8.85922187259112726176e-15L},
    {6.49434156378600823045e-4L,   2.29472093621399176955e-4L,  -4.69189494395255712128e-4L,
     2.67720632062838852962e-4L,   -7.56180167188397641073e-5L, -2.39650511386729665193e-7L,
     1.10826541153473023615e-5L,   -5.67495282699159656750e-6L, 1.42309007324358839146e-6L,
     -2.78610802915281422406e-11L, -1.69584040919302772899e-7L, 8.09946490538808236335e-8L,
     -1.91111684859736540607e-8L,  2.39286204398081179686e-12L, 2.06201318154887984370e-9L,
     -9.46049666185513217375e-10L, 2.15410497757749078380e-10L, -1.38882333681390304603e-14L,
     -2.18947616819639394064e-11L, 9.79099895117168512568e-12L, -2.17821918801809621154e-12L,
     6.20881957340790142582e-17L,  2.12697836327973697697e-13L, -9.34468879151743333127e-14L,
     2.04536712267828493249e-14L},
    {-8.61888290916711698605e-4L,  7.84039221720066627474e-4L,   -2.99072480303190179733e-4L,
     -1.46384525788434181781e-6L,  6.64149821546512218666e-5L,   -3.96836504717943466443e-5L,
     1.13757269706784190981e-5L,   2.50749722623753280165e-10L,  -1.69541495365583060147e-6L,
     8.90750753220530968883e-7L,   -2.29293483400080487057e-7L,  2.95679413754404904697e-11L,
     2.88658297427087836297e-8L,   -1.41897394378032193895e-8L,  3.44635804994648970660e-9L,
     -2.30245171745280671320e-13L, -3.94092330280464052751e-10L, 1.86023389685045019134e-10L,
     -4.35632300505661804381e-11L, 1.27860010162962312661e-15L,  4.67927502665791946200e-12L,
     -2.14924647061348285411e-12L, 4.90881561480965216324e-13L,  -6.33859148489156032605e-18L,
     -5.04533206908009435734e-14L},
    {-3.36798553366358150309e-4L,  -6.97281375836585777429e-5L,  2.77275324495939207873e-4L,
     -1.99325705161888477003e-4L,  6.79778047793720783882e-5L,   1.41906292064396701483e-7L,
     -1.35940481897686932785e-5L,  8.01847025633420153972e-6L,   -2.29148117650809517038e-6L,
     -3.25247355129845395166e-10L, 3.46528464910852649559e-7L,   -1.84471871911713432765e-7L,
     4.82409670378941807564e-8L,   -1.79894667217435153026e-14L, -6.30619450001352343518e-9L,
     3.16241762877456793774e-9L,   -7.84092425369742929001e-10L, 5.19267916525404072378e-15L,
     9.35894424230678358460e-11L,  -4.51342621616327823101e-11L, 1.07991299931168270410e-11L,
     -3.66188671268525201091e-17L, -1.21090206905515498799e-12L, 5.68074358499056433289e-13L,
     -1.32496599163408290878e-13L},
    {5.31307936463992223166e-4L,  -5.92166437353693882865e-4L,  2.70878209671804482771e-4L,
     7.90235323266032787212e-7L,  -8.15396936756196875093e-5L,  5.61168275310624965004e-5L,
     -1.83291165828433755673e-5L, -3.07961345060330478256e-9L,  3.46515536880360908674e-6L,
     -2.02913273960586037270e-6L, 5.78879286314900370890e-7L,   2.33863067382665698933e-13L,
     -8.82860074633048352505e-8L, 4.74359588804081278032e-8L,   -1.25454150207103824457e-8L,
     8.64964885801029247135e-14L, 1.68460589792640627084e-9L,   -8.57549282357759472856e-10L,
     2.15982249292321251885e-10L, -7.61323052047615386835e-16L, -2.66398220085361437136e-11L,
     1.30657005366110572948e-11L, -3.17991639023679766819e-12L, 4.71097612136743147024e-18L,
     3.69028008427634670964e-13L},
    {3.44367606892377671254e-4L,   5.17179090826059219337e-5L,   -3.34931610811422363117e-4L,
     2.81269515476323702274e-4L,   -1.09765822446847310235e-4L,  -1.27410090954844853795e-7L,
     2.77444515115636441571e-5L,   -1.82634888057113326614e-5L,  5.78769494973505239894e-6L,
     4.93875893393627039982e-10L,  -1.05953670140260427338e-6L,  6.16671437611040747859e-7L,
     -1.75629733590604619379e-7L,  -1.29744732870154387070e-12L, 2.69542360628896598369e-8L,
     -1.45783529087312709769e-8L,  3.88764595938617499807e-9L,   -3.88100225101941212554e-17L,
     -5.32799417387728672094e-10L, 2.74379776433148451260e-10L,  -6.99579609207056790942e-11L,
     2.58998638748684809801e-17L,  8.85668909966963808841e-12L,  -4.40316881587131095155e-12L,
     1.08655619470916538997e-12L},
    {-6.52623918595309418922e-4L,  8.39498720672087279993e-4L,  -4.38297098541721005061e-4L,
     -6.96909145842055197137e-7L,  1.66448466420675478374e-4L,  -1.27835176797692185853e-4L,
     4.62995326369130429061e-5L,   4.55790986792270771163e-9L,  -1.05952711258051954718e-5L,
     6.78334290486516662273e-6L,   -2.10754766662588042470e-6L, -1.72137314328171449993e-11L,
     3.77358774161109793380e-7L,   -2.18675067001228665578e-7L, 6.22022880401892690577e-8L,
     6.59770382673300061341e-16L,  -9.59038649742568577134e-9L, 5.21321449228080776589e-9L,
     -1.39915895839357085553e-9L,  5.38205899906057496390e-16L, 1.94847142754677452653e-10L,
     -1.01272875563896816519e-10L, 2.60773471972549257647e-11L, -5.09041869999329921644e-18L,
     -3.37214644748545917919e-12L},
    {-5.96761290192746250124e-4L,  -7.20489541602001055909e-5L,  6.78230883766732836162e-4L,
     -6.40147526026275845100e-4L,  2.77501076343287044992e-4L,   1.81970083804651510462e-7L,
     -8.47950711706850318240e-5L,  6.10519208250153101765e-5L,   -2.10739201834048624083e-5L,
     -8.85858901412559938922e-10L, 4.52845359538053771109e-6L,   -2.84278150225044079380e-6L,
     8.70823417786464116761e-7L,   3.68861018717069654921e-12L,  -1.53446951907020610379e-7L,
     8.86246677879069497569e-8L,   -2.51848123018268173341e-8L,  -1.02259120982150924314e-14L,
     3.89694707581547767126e-9L,   -2.12673047922356347291e-9L,  5.73701355280513847345e-10L,
     -1.88774985016971154668e-19L, -8.09315386946578658308e-11L, 4.23827232834491994902e-11L,
     -1.10022245342077256540e-11L}};

template <class T>
struct temme_table {
  T d[10][25];
};
template <class T>
constexpr temme_table<T> make_temme_table() noexcept {
  temme_table<T> table{};
  for (int k = 0; k < 10; ++k)
    for (int n = 0; n < 25; ++n) table.d[k][n] = static_cast<T>(temme_coefficients_ld[k][n]);
  return table;
}
template <class T>
inline constexpr temme_table<T> temme_coefficients = make_temme_table<T>();

/// Σ_k C_k(η) s^{−k} for |η| <= 0.6 and s >= 50: 8 terms of degree 20 in double (error
/// below 4e-17), 10 of degree 24 in a wider type (below 3e-20).
template <class T>
constexpr T temme_sum(T eta, T inv_s) noexcept {
  constexpr bool wide = std::numeric_limits<T>::digits > 53;
  constexpr int terms = wide ? 10 : 8;
  constexpr int degree = wide ? 24 : 20;
  const auto& d = temme_coefficients<T>.d;
  T sum = 0;
  for (int k = terms - 1; k >= 0; --k) {
    T ck = d[k][degree];
    for (int n = degree - 1; n >= 0; --n) ck = ck * eta + d[k][n];
    sum = sum * inv_s + ck;
  }
  return sum;
}

/// Erlang B by Temme's expansion (the comment above), O(1) in c: servers >= 1, a >= 0
/// finite, T double or long double. Accurate from s = c + 1 >= 50 on; erlang_b_value
/// sends smaller c to the recurrence.
template <class T>
constexpr T erlang_b_expansion(std::int64_t servers, T a) noexcept {
  if (a == T(0)) return T(0);
  constexpr T pi = static_cast<T>(3.14159265358979323846264338327950288L);
  constexpr T eta_max = T(0.6);
  const T c = static_cast<T>(servers);
  const T s = c + T(1);
  const T inv_s = T(1) / s;
  const T deviance = cxm::poisson_deviance(s, a);  // D = sη²/2
  const T z = cxm::sqrt(deviance);                 // |η| sqrt(s/2)
  const T root_s = cxm::sqrt(s);
  const T eta = z * cxm::sqrt(T(2)) / root_s;  // |η|
  if (a < s) {
    const T ratio = s / a;
    if (!(ratio <= std::numeric_limits<T>::max())) return T(0);  // a^c/c! underflows
    const T root_2pi_s = cxm::sqrt(T(2) * pi) * root_s;
    // P(X = c) = (s/a) e^{−D}/(sqrt(2πs) Γ*(s)), in one exponential.
    const T pmf = cxm::exp(cxm::log(ratio / root_2pi_s) - deviance - cxm::log_gamma_star(s));
    // P(X > c) is below e^{−D}: negligible against 1 once D > (digits + 1) ln 2 + 1.
    const T negligible = static_cast<T>(std::numeric_limits<T>::digits + 1) *
                             static_cast<T>(0.693147180559945309417L) +
                         T(1);
    T tail = 0;
    if (deviance < negligible) {
      if (eta <= eta_max) {
        tail = T(0.5) * cxm::erfc(z) - cxm::exp(-deviance) * temme_sum(-eta, inv_s) / root_2pi_s;
      } else {
        // a < 0.51 s here: P(X > c)/P(X = c) = Σ_j Π_{i<=j} a/(c + i), ratio below 0.51.
        T term = 1;
        T sum = 0;
        for (T k = s;; k += T(1)) {
          term *= a / k;
          sum += term;
          if (term <= sum * std::numeric_limits<T>::epsilon()) break;
        }
        tail = pmf * sum;
      }
    }
    return pmf / (T(1) - tail);
  }
  if (eta <= eta_max) {
    const T bracket = cxm::sqrt(pi * s / T(2)) * cxm::erfcx(z) + temme_sum(eta, inv_s);
    return (s / a) * cxm::exp(-cxm::log_gamma_star(s)) / bracket;
  }
  // a > 1.75 s: 1/B = Σ_j c!/((c − j)! a^j), terms falling by (c − j)/a < 0.6.
  T term = 1;
  T sum = 1;
  for (T k = c; k >= T(1); k -= T(1)) {
    term *= k / a;
    sum += term;
    if (term <= sum * std::numeric_limits<T>::epsilon()) break;
  }
  return T(1) / sum;
}

/// Erlang B, B(c, a), servers >= 1, a >= 0 finite: the recurrence up to
/// erlang_recurrence_max_servers (and for a type wider than 64 digits, for which the
/// expansion's tables are not exact enough), Temme's expansion above. float is computed in
/// double.
template <class T>
constexpr T erlang_b_value(std::int64_t servers, T a) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(erlang_b_value<double>(servers, static_cast<double>(a)));
  } else {
    if (servers <= erlang_recurrence_max_servers || std::numeric_limits<T>::digits > 64)
      return erlang_b_recurrence(servers, a);
    return erlang_b_expansion(servers, a);
  }
}

/// Erlang C, C(c, a) = B/(1 − ρ(1 − B)); 1 when a >= c (unstable). servers >= 1.
template <class T>
constexpr T erlang_c_value(std::int64_t servers, T a) noexcept {
  if (!(a < static_cast<T>(servers))) return T(1);
  return erlang_c_from_b(servers, a, erlang_b_value(servers, a));
}

// (cμ − λ)·t, the exponent of the M/M/c wait tail, as μ(c − a)·t with a = λ/μ < c: never
// ∞ × 0 (cμ overflowing while t is 0), which made the conformance NaN and could keep
// mmc_servers_needed from ever finding its answer.
template <class T>
constexpr T mmc_decay(T mu, std::int64_t servers, T a, T t) noexcept {
  return cxm::product_ratio({mu, static_cast<T>(servers) - a, t});
}

/// P(W_q <= t) = 1 − C·e^{−(cμ − λ)t} from Erlang B = b, a = λ/μ < c: the one expression
/// mmc_wait_conformance and mmc_servers_needed both use.
template <class T>
constexpr T mmc_wait_conformance_from_b(T mu, std::int64_t servers, T a, T t, T b) noexcept {
  const T wait = erlang_c_from_b(servers, a, b);
  return T(1) - wait * cxm::exp(-mmc_decay(mu, servers, a, t));
}

/// P(W_q <= t) of an M/M/c queue with offered load a = λ/μ; 0 when unstable.
template <class T>
constexpr T mmc_wait_conformance_value(T mu, std::int64_t servers, T a, T t) noexcept {
  if (!(a < static_cast<T>(servers))) return T(0);
  return mmc_wait_conformance_from_b(mu, servers, a, t, erlang_b_value(servers, a));
}

/// The smallest c with mmc_wait_conformance_value >= q (λ >= 0, μ > 0, t >= 0, q in (0, 1)).
/// The conformance rises with c. Up to erlang_recurrence_max_servers, a walk from the
/// smallest stable c, floor(a) + 1, carrying the recurrence along (the values erlang_b_value
/// gives there, bit for bit); above, steps of 1, 2, 4, ... until one meets the quota, then
/// bisection between the last that failed and the first that met: about 2 log2(c − a)
/// evaluations of O(1) each.
template <class T>
constexpr std::int64_t mmc_servers_needed_value(T lambda, T mu, T t, T q) noexcept {
  const T a = lambda / mu;
  if (a == T(0)) return 1;
  std::int64_t low = static_cast<std::int64_t>(a) + 1;  // smallest c with a < c
  if (low <= erlang_recurrence_max_servers) {
    // erlang_b_value computes float in double: carry the recurrence in the same type.
    using carried = std::conditional_t<std::is_same_v<T, float>, double, T>;
    const auto wide_a = static_cast<carried>(a);
    carried b = erlang_b_recurrence(low, wide_a);
    for (;;) {
      if (mmc_wait_conformance_from_b(mu, low, a, t, static_cast<T>(b)) >= q) return low;
      if (low == erlang_recurrence_max_servers) break;
      ++low;
      b = erlang_b_step(low, wide_a, b);
    }
  } else if (mmc_wait_conformance_value(mu, low, a, t) >= q) {
    return low;
  }
  const auto meets = [&](std::int64_t c) {
    return mmc_wait_conformance_value(mu, c, a, t) >= q;
  };
  // !meets(low)
  std::int64_t step = 1;
  std::int64_t high = low + step;
  while (!meets(high)) {
    low = high;
    if (step < cxm::max_count / 4) step *= 2;
    high = low + step;
  }
  while (high - low > 1) {  // meets(high), !meets(low)
    const std::int64_t middle = low + (high - low) / 2;
    if (meets(middle))
      high = middle;
    else
      low = middle;
  }
  return high;
}

}  // namespace detail

/// Erlang B, the blocking probability of an M/M/c/c loss system with offered load a = λ/μ
/// Erlangs. servers >= 1, offered_load >= 0. O(1) in c (the recurrence up to c = 49, Temme's
/// expansion of the incomplete gamma function above), stable for any c.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T erlang_b(std::int64_t servers, A offered_load) {
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T a = detail::require_offered_load("offered_load", static_cast<T>(offered_load));
  return detail::erlang_b_value(c, a);
}

/// Erlang C, the probability that an arrival to an M/M/c queue waits, with offered load
/// a = λ/μ Erlangs: C = B/(1 − ρ(1 − B)), ρ = a/c. 1 when unstable (a >= c). servers >= 1.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T erlang_c(std::int64_t servers, A offered_load) {
  const auto c = detail::require_count_at_least("servers", servers, 1);
  const T a = detail::require_offered_load("offered_load", static_cast<T>(offered_load));
  return detail::erlang_c_value(c, a);
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
  return detail::mmc_wait_conformance_value(mu, c, a, t);
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
  const T wait = detail::erlang_c_value(c, a);
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
/// fleet (one shared queue) needs. From the smallest stable c = floor(λ/μ) + 1, doubling
/// steps then bisection: O(log(c − λ/μ)) Erlang C evaluations of O(1) each; the same c a
/// walk up from floor(λ/μ) + 1 would find. Returns 1 for λ = 0. threshold >= 0, quota in
/// (0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::int64_t mmc_servers_needed(A arrival_rate,
                                                        detail::same_t<T> service_rate,
                                                        detail::seconds_arg<T> threshold,
                                                        detail::same_t<T> quota) {
  const T lambda = detail::require_non_negative("arrival_rate", static_cast<T>(arrival_rate));
  const T mu = detail::require_positive("service_rate", service_rate);
  const T t = detail::require_non_negative_seconds<T>("threshold", threshold);
  const T q = detail::require_open_unit("quota", quota);
  detail::require_offered_load("arrival_rate", lambda / mu);
  return detail::mmc_servers_needed_value(lambda, mu, t, q);
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

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Expected values come from outside the code under test: the worked numbers of docs/, hand
// calculations shown beside each check, published Erlang B table entries, and Erlang C
// values computed in exact rational arithmetic (Python fractions, the textbook factorial
// formula) or, in the test itself, by the factorial / log-gamma formula.
#include <headroom/detail/constexpr_math.hpp>
#include <headroom/queueing.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

using headroom::test::rejected;

using headroom::test::infinity;
using headroom::test::not_a_number;

using headroom::test::near;

/// Erlang C by the textbook formula with factorials, in long double (fine for small c):
/// C = (a^c/c!)(c/(c−a)) / (Σ_{k<c} a^k/k! + (a^c/c!)(c/(c−a))). Independent of the library.
long double erlang_c_factorial(int c, long double a) {
  long double sum = 0;
  long double term = 1;  // a^k / k!
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / static_cast<long double>(k + 1);
  }
  const long double last = term * static_cast<long double>(c) / (static_cast<long double>(c) - a);
  return last / (sum + last);
}

/// Erlang C through logarithms (log-gamma and log-sum-exp), for large c: independent of the
/// library's Erlang B recurrence.
long double erlang_c_log(int c, long double a) {
  auto log_term = [&](int k) {
    return static_cast<long double>(k) * std::log(a) - std::lgamma(static_cast<long double>(k) + 1);
  };
  const long double log_last =
      log_term(c) + std::log(static_cast<long double>(c) / (static_cast<long double>(c) - a));
  long double top = log_last;
  for (int k = 0; k < c; ++k) top = std::max(top, log_term(k));
  long double sum = std::exp(log_last - top);
  for (int k = 0; k < c; ++k) sum += std::exp(log_term(k) - top);
  return std::exp(log_last - top) / sum;
}

/// Relative error |x − reference|/|reference|.
double relative_error(long double x, long double reference) {
  return static_cast<double>(std::fabs(x - reference) / std::fabs(reference));
}

/// The smallest c >= floor(λ/μ) + 1 with mmc_wait_conformance >= q, by walking up one c at a
/// time: what mmc_servers_needed must return.
std::int64_t servers_needed_by_walk(double lambda, double mu, std::chrono::duration<double> t,
                                    double q) {
  auto c = static_cast<std::int64_t>(lambda / mu) + 1;
  while (headroom::queueing::mmc_queue{
             .arrival_rate_per_second = lambda, .service_rate_per_second = mu, .servers = c}
             .wait_conformance(t) < q)
    ++c;
  return c;
}

}  // namespace

TEST_SUITE("queueing") {
  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: constexpr exp/log/sqrt/expm1/log1p agree with the standard library") {
    namespace impl = headroom::detail::cxm::impl;
    const double eps = std::numeric_limits<double>::epsilon();
    for (double x = -700.0; x <= 700.0; x += 0.37) {
      INFO("x = " << x);
      CHECK(std::fabs(impl::exp(x) - std::exp(x)) <= 4 * eps * std::exp(x));
    }
    for (double x : {-1e-300, -1e-12, 1e-12, 0.1, -0.34, 0.34, 0.5, -3.0, 1.0, 20.0}) {
      INFO("x = " << x);
      CHECK(std::fabs(impl::expm1(x) - std::expm1(x)) <= 4 * eps * std::fabs(std::expm1(x)));
    }
    for (double x = 1e-300; x < 1e300; x *= 7.3) {
      INFO("x = " << x);
      CHECK(std::fabs(impl::log(x) - std::log(x)) <= 4 * eps * std::fabs(std::log(x)) + 1e-300);
      CHECK(std::fabs(impl::sqrt(x) - std::sqrt(x)) <= 2 * eps * std::sqrt(x));
    }
    for (double x : {0.9, 1.1, 2.0, 0.999, 1.0 + 1e-9}) {
      INFO("x = " << x);
      CHECK(std::fabs(impl::log(x) - std::log(x)) <= 4 * eps * std::fabs(std::log(x)));
    }
    for (double x : {-0.9, -0.5, -1e-10, 1e-17, 1e-10, 0.5, 3.0, 1e10}) {
      INFO("x = " << x);
      CHECK(std::fabs(impl::log1p(x) - std::log1p(x)) <= 4 * eps * std::fabs(std::log1p(x)));
    }
    // Edges.
    CHECK(impl::exp(1000.0) == infinity);
    CHECK(impl::exp(-1000.0) == 0.0);
    CHECK(impl::exp(0.0) == 1.0);
    CHECK(std::isnan(impl::exp(not_a_number)));
    CHECK(impl::log(0.0) == -infinity);
    CHECK(impl::log(1.0) == 0.0);
    CHECK(std::isnan(impl::log(-1.0)));
    CHECK(impl::sqrt(0.0) == 0.0);
    CHECK(std::isnan(impl::sqrt(-1.0)));
    CHECK(impl::sqrt(infinity) == infinity);
    CHECK(std::fabs(impl::log(std::numeric_limits<double>::denorm_min()) -
                    std::log(std::numeric_limits<double>::denorm_min())) < 1e-12);
    // float and long double instantiate and agree to their own precision.
    CHECK(std::fabs(impl::exp(1.5f) - std::exp(1.5f)) <=
          4 * std::numeric_limits<float>::epsilon() * std::exp(1.5f));
    CHECK(std::fabs(impl::log(10.0L) - std::log(10.0L)) <=
          16 * std::numeric_limits<long double>::epsilon() * std::log(10.0L));
    // The constants the headers rely on, in constant evaluation: ln 10 and sqrt 2.
    static_assert(near(headroom::detail::cxm::log(10.0), 2.302585092994046, 1e-15));
    static_assert(near(headroom::detail::cxm::sqrt(2.0), 1.4142135623730951, 1e-15));
    static_assert(near(headroom::detail::cxm::exp(1.0), 2.718281828459045, 1e-15));
    static_assert(headroom::detail::cxm::ceil_count(7.5) == 8);
    static_assert(headroom::detail::cxm::ceil_count(8.0) == 8);
    static_assert(headroom::detail::cxm::ceil_count(0.0) == 0);
  }

  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: Little's law in its three forms") {
    // L = λW: 60 req/s × 8 s = 480 in flight.
    CHECK(headroom::queueing::littles_law_in_flight(60.0, std::chrono::duration<double>(8.0)) ==
          480.0);
    CHECK(headroom::queueing::littles_law_in_flight(60, 8s) ==
          480.0);  // integer rate, chrono seconds
    CHECK(headroom::queueing::littles_law_in_flight(2.0, 250ms) == doctest::Approx(0.5));
    CHECK(headroom::queueing::littles_law_rate(480.0, 8s) == 60.0);  // λ = L/W
    CHECK(headroom::queueing::littles_law_sojourn({.in_flight = 480.0, .rate_per_second = 60.0})
              .count() == 8.0);  // W = L/λ
    // L_r = λW/N_r: 60 req/s, 8 s, 8 replicas → 60 in flight each.
    CHECK(headroom::queueing::in_flight_per_replica(60.0, 8s, 8) == 60.0);
    static_assert(headroom::queueing::littles_law_in_flight(
                      60.0, std::chrono::duration<double>(8.0)) == 480.0);
    static_assert(headroom::queueing::littles_law_rate(480.0, std::chrono::duration<double>(8.0)) ==
                  60.0);
  }

  TEST_CASE("queueing: target concurrency L = ρμW̄ ≈ 51") {
    // μ* = 8 req/s, ρ* = 0.8, W̄ = 320 tokens / 40 tokens/s = 8 s: 0.8 × 8 × 8 = 51.2.
    const auto mean_sojourn = std::chrono::duration<double>(320.0 / 40.0);
    CHECK(headroom::queueing::target_concurrency({.target_utilization = 0.8,
                                                  .capacity_per_second = 8.0,
                                                  .mean_sojourn = mean_sojourn}) ==
          doctest::Approx(51.2));
    CHECK(static_cast<int>(
              headroom::queueing::target_concurrency({.target_utilization = 0.8,
                                                      .capacity_per_second = 8.0,
                                                      .mean_sojourn = mean_sojourn})) == 51);
    static_assert(near(headroom::queueing::target_concurrency(
                           {.target_utilization = 0.8,
                            .capacity_per_second = 8.0,
                            .mean_sojourn = std::chrono::duration<double>(8.0)}),
                       51.2, 1e-12));
  }

  TEST_CASE("queueing: replicas needed ceil(λ/(ρμ))") {
    // 60 req/s on replicas of capacity 8 at ρ* = 1: 60/8 = 7.5 → 8.
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                               .target_utilization = 1.0,
                                               .capacity_per_second = 8.0}) == 8);
    static_assert(headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                       .target_utilization = 1.0,
                                                       .capacity_per_second = 8.0}) == 8);
    // At ρ* = 0.8: 60/6.4 = 9.375 → 10 (the same 80 % target: ten replicas).
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 10);
    // An exact quotient does not round up: 64/(0.8·8) = 10.
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = 64.0,
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 10);
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = 0.0,
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 0);
    // The evening step of docs/simulated-day.md: 12 + 30 = 42 req/s at 80 % → ceil(42/6.4) =
    // ceil(6.5625) = 7.
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = 42.0,
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 7);
    CHECK(headroom::queueing::replicas_needed(
              {.arrival_rate_per_second = 60, .target_utilization = 1, .capacity_per_second = 8}) ==
          8);  // integers work
  }

  TEST_CASE("queueing: the standard error of a 90 % conformance at n = 200 is 0.021") {
    // sqrt(0.9 × 0.1 / 200) = sqrt(0.00045) = 0.0212132.
    CHECK(headroom::queueing::conformance_standard_error(0.9, 200) ==
          doctest::Approx(0.0212132).epsilon(1e-5));
    static_assert(
        near(headroom::queueing::conformance_standard_error(0.9, 200), 0.021213203435596, 1e-12));
    // "A few thousand requests": half a point of standard error needs 0.09/0.005² = 3600.
    CHECK(headroom::queueing::conformance_samples_needed(
              {.conformance = 0.9, .standard_error = 0.005}) == 3600);
    CHECK(headroom::queueing::conformance_standard_error(1.0, 10) == 0.0);
  }

  TEST_CASE("queueing: closed-loop response-time law λ = N/(W+Z)") {
    // 100 users, W = 2 s, Z = 8 s: 100/10 = 10 req/s; back: 100/10 − 8 = 2 s.
    CHECK(headroom::queueing::closed_loop{.users = 100.0, .think_time = 8s}.rate(2s) == 10.0);
    CHECK(headroom::queueing::closed_loop{.users = 100.0, .think_time = 8s}
              .response_time(10.0)
              .count() == doctest::Approx(2.0));
    // Never more than N in the system: L = λW = 10 × 2 = 20 ≤ 100.
    CHECK(headroom::queueing::littles_law_in_flight(
              headroom::queueing::closed_loop{.users = 100.0, .think_time = 8s}.rate(2s), 2s) <=
          100.0);
    // A rate above N/Z cannot come from a closed loop.
    CHECK(rejected([] {
            (void)headroom::queueing::closed_loop{.users = 100.0, .think_time = 8s}.response_time(
                20.0);
          }) == "rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::closed_loop{.users = 10.0, .think_time = 0s}.rate(0s);
          }) == "sojourn");
    static_assert(headroom::queueing::closed_loop{.users = 100.0,
                                                  .think_time = std::chrono::duration<double>(8.0)}
                      .rate(std::chrono::duration<double>(2.0)) == 10.0);
  }

  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: M/M/1 capacity μ − ln 10/τ at q = 0.9 and its inverse") {
    // μ = 10 req/s, τ = 1 s: μ* = 10 − 2.302585 = 7.697415.
    const double mu_star = headroom::queueing::mm1_capacity(
        {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 0.9});
    CHECK(mu_star == doctest::Approx(10.0 - 2.302585092994046));
    // At μ* the sojourn conformance is exactly the quota: 1 − e^{−ln 10} = 0.9.
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = mu_star,
                                        .service_rate_per_second = 10.0}
              .sojourn_conformance(1s) == doctest::Approx(0.9));
    // Below μ* it is above the quota, above μ* below.
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = mu_star - 0.1,
                                        .service_rate_per_second = 10.0}
              .sojourn_conformance(1s) > 0.9);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = mu_star + 0.1,
                                        .service_rate_per_second = 10.0}
              .sojourn_conformance(1s) < 0.9);
    // The inverse: the μ needed for λ = μ*, τ = 1 s, q = 0.9 is 10.
    CHECK(headroom::queueing::mm1_service_rate_needed(
              {.arrival_rate_per_second = mu_star, .threshold = 1s, .quota = 0.9}) ==
          doctest::Approx(10.0));
    // q = 0.99: ln 100 = 4.60517; μ = 10, τ = 2 s → 10 − 2.302585 = 7.697415 again.
    CHECK(headroom::queueing::mm1_capacity(
              {.service_rate_per_second = 10.0, .threshold = 2s, .quota = 0.99}) ==
          doctest::Approx(10.0 - 4.605170185988091 / 2));
    // An idle server that still misses the quota has capacity 0: μτ = 2 < ln 10.
    CHECK(headroom::queueing::mm1_capacity(
              {.service_rate_per_second = 2.0, .threshold = 1s, .quota = 0.9}) == 0.0);
    static_assert(
        near(headroom::queueing::mm1_capacity({.service_rate_per_second = 10.0,
                                               .threshold = std::chrono::duration<double>(1.0),
                                               .quota = 0.9}),
             7.697414907005954, 1e-12));
    static_assert(near(headroom::queueing::mm1_service_rate_needed(
                           {.arrival_rate_per_second = 0.0,
                            .threshold = std::chrono::duration<double>(1.0),
                            .quota = 0.9}),
                       2.302585092994046, 1e-12));
  }

  TEST_CASE("queueing: M/M/1 sojourn and waiting-time conformance are distinct") {
    constexpr headroom::queueing::mm1_queue queue{.arrival_rate_per_second = 8.0,
                                                  .service_rate_per_second = 10.0};
    // λ = 8, μ = 10, τ = 0.5 s: (μ−λ)τ = 1.
    // sojourn: 1 − e^{−1} = 0.6321206; wait: 1 − 0.8·e^{−1} = 0.7056964.
    CHECK(queue.sojourn_conformance(500ms) == doctest::Approx(0.6321205588));
    CHECK(queue.wait_conformance(500ms) == doctest::Approx(0.7056964470));
    // At τ = 0: nobody has finished, but 1 − ρ = 20 % never waited.
    CHECK(queue.sojourn_conformance(0s) == 0.0);
    CHECK(queue.wait_conformance(0s) == doctest::Approx(0.2));
    // Quantile: the 90th percentile of the sojourn is ln 10/(μ−λ) = 1.1512925 s.
    CHECK(queue.sojourn_quantile(0.9).count() == doctest::Approx(1.1512925465));
    // The wait capacity: the largest λ with 1 − (λ/μ)e^{−(μ−λ)τ} >= q.
    const double lw = headroom::queueing::mm1_wait_capacity(
        {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 0.9});
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = lw,
                                        .service_rate_per_second = 10.0}
              .wait_conformance(1s) == doctest::Approx(0.9));
    CHECK(lw > headroom::queueing::mm1_capacity({.service_rate_per_second = 10.0,
                                                 .threshold = 1s,
                                                 .quota = 0.9}));  // waiting is a weaker promise
    // τ = 0: 1 − ρ >= 0.9 ⇔ λ <= 0.1 μ = 1.
    CHECK(headroom::queueing::mm1_wait_capacity(
              {.service_rate_per_second = 10.0, .threshold = 0s, .quota = 0.9}) ==
          doctest::Approx(1.0));
    static_assert(near(queue.wait_conformance(std::chrono::duration<double>(0.5)),
                       0.7056964470628461, 1e-12));
  }

  TEST_CASE("queueing: M/M/1 means") {
    constexpr headroom::queueing::mm1_queue queue{.arrival_rate_per_second = 8.0,
                                                  .service_rate_per_second = 10.0};
    // λ = 8, μ = 10: ρ = 0.8; W = 1/2 s; W_q = 0.4 s; L = 4; L_q = 3.2. Little: L = λW = 4.
    CHECK(queue.utilization() == 0.8);
    CHECK(queue.mean_sojourn().count() == doctest::Approx(0.5));
    CHECK(queue.mean_wait().count() == doctest::Approx(0.4));
    CHECK(queue.mean_in_system() == doctest::Approx(4.0));
    CHECK(queue.mean_queue_length() == doctest::Approx(3.2));
    CHECK(headroom::queueing::littles_law_in_flight(8.0, queue.mean_sojourn()) ==
          doctest::Approx(queue.mean_in_system()));
  }

  TEST_CASE(
      "queueing: unstable inputs are a value (conformance 0 / wait probability 1 / means +inf)") {
    constexpr headroom::queueing::mmc_queue queue{
        .arrival_rate_per_second = 20.0, .service_rate_per_second = 10.0, .servers = 2};
    CHECK_FALSE(headroom::queueing::mm1_queue{.arrival_rate_per_second = 10.0,
                                              .service_rate_per_second = 10.0}
                    .is_stable());
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 9.99,
                                        .service_rate_per_second = 10.0}
              .is_stable());
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 10.0,
                                        .service_rate_per_second = 10.0}
              .sojourn_conformance(1s) == 0.0);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 12.0,
                                        .service_rate_per_second = 10.0}
              .wait_conformance(1s) == 0.0);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 10.0,
                                        .service_rate_per_second = 10.0}
              .mean_sojourn()
              .count() == infinity);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 11.0,
                                        .service_rate_per_second = 10.0}
              .mean_wait()
              .count() == infinity);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 11.0,
                                        .service_rate_per_second = 10.0}
              .mean_in_system() == infinity);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 11.0,
                                        .service_rate_per_second = 10.0}
              .mean_queue_length() == infinity);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 11.0,
                                        .service_rate_per_second = 10.0}
              .sojourn_quantile(0.9)
              .count() == infinity);
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 12.0,
                                        .service_rate_per_second = 10.0}
              .utilization() == doctest::Approx(1.2));
    CHECK_FALSE(queue.is_stable());
    CHECK(headroom::queueing::erlang_c({.servers = 2, .offered_load = 2.0}) == 1.0);
    CHECK(headroom::queueing::mmc_queue{
              .arrival_rate_per_second = 25.0, .service_rate_per_second = 10.0, .servers = 2}
              .wait_probability() == 1.0);
    CHECK(queue.wait_conformance(1s) == 0.0);
    CHECK(queue.mean_wait().count() == infinity);
    CHECK(queue.mean_sojourn().count() == infinity);
    CHECK(queue.mean_queue_length() == infinity);
    CHECK(headroom::queueing::md1_queue{.arrival_rate_per_second = 10.0,
                                        .service_rate_per_second = 10.0}
              .mean_sojourn()
              .count() == infinity);
    CHECK(headroom::queueing::md1_queue{.arrival_rate_per_second = 10.0,
                                        .service_rate_per_second = 10.0}
              .mean_queue_length() == infinity);
    // Continuity: conformance tends to 0 as λ → μ from below.
    CHECK(headroom::queueing::mm1_queue{.arrival_rate_per_second = 10.0 - 1e-9,
                                        .service_rate_per_second = 10.0}
              .sojourn_conformance(1s) < 1e-8);
  }

  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: the special functions behind Erlang B agree with mpmath") {
    namespace cxm = headroom::detail::cxm;
    const double eps = std::numeric_limits<double>::epsilon();
    // The constexpr erfc (series below ½, Laplace's continued fraction above) against std::.
    for (double x = -5.0; x <= 26.5; x += 0.0731) {
      INFO("x = " << x);
      CHECK(relative_error(cxm::impl::erfc(x), std::erfc(x)) <= 8 * eps);
    }
    static_assert(near(cxm::erfc(0.5), 0.4795001221869534623, 1e-16));
    // erfcx(x) = e^{x²} erfc(x), values from mpmath (erfc(x)·exp(x²) at 40 digits).
    CHECK(relative_error(cxm::erfcx(0.25), 0.77034654773099674392L) <= 8 * eps);
    CHECK(relative_error(cxm::erfcx(1.0), 0.42758357615580700441L) <= 8 * eps);
    CHECK(relative_error(cxm::erfcx(2.5), 0.21080636406114358065L) <= 32 * eps);
    CHECK(relative_error(cxm::erfcx(4.0), 0.13699945762506138989L) <= 8 * eps);
    CHECK(relative_error(cxm::erfcx(10.0), 0.056140992743822585858L) <= 8 * eps);
    CHECK(relative_error(cxm::erfcx(26.0), 0.021683584850562906616L) <= 8 * eps);
    // ln Γ*(x) = ln Γ(x) − (x − ½) ln x + x − ½ ln 2π (mpmath.loggamma at 40 digits).
    CHECK(relative_error(cxm::log_gamma_star(10.0), 0.0083305634333628712565L) <= 4 * eps);
    CHECK(relative_error(cxm::log_gamma_star(50.0), 0.0016666444469833655099L) <= 4 * eps);
    CHECK(relative_error(cxm::log_gamma_star(1000.0), 0.000083333330555556349206L) <= 4 * eps);
    CHECK(relative_error(cxm::log_gamma_star(1e6), 8.3333333333330555556e-8L) <= 4 * eps);
    // The deviance x ln(x/m) + m − x (mpmath at 40 digits): where x ≈ m the three terms
    // cancel to 5e-6 out of 1e5, and the series keeps every digit.
    CHECK(relative_error(cxm::poisson_deviance(100001.0, 100000.0), 4.9999833334166661667e-6L) <=
          4 * eps);
    CHECK(relative_error(cxm::poisson_deviance(10001.0, 9500.0), 12.984287168226301457L) <=
          4 * eps);
    CHECK(relative_error(cxm::poisson_deviance(51.0, 48.5), 0.06335357382530120621L) <= 4 * eps);
    CHECK(relative_error(cxm::poisson_deviance(3.0, 2.0), 0.21639532432449314593L) <= 4 * eps);
    CHECK(relative_error(cxm::poisson_deviance(100.0, 1.0), 361.5170185988091368L) <= 4 * eps);
    CHECK(relative_error(cxm::poisson_deviance(1.0, 100.0), 94.394829814011908632L) <= 4 * eps);
  }

  TEST_CASE("queueing: Temme's coefficients are those of DiDonato and Morris") {
    const auto& d = headroom::detail::temme_coefficients<long double>.d;
    const long double eps = std::numeric_limits<long double>::epsilon();
    // DiDonato & Morris (1986), the d_{k,n} of their Temme expansion: d_00 = −1/3,
    // d_01 = 1/12, d_02 = −2/135, d_03 = 1/864, d_04 = 1/2835, d_10 = −1/540,
    // d_11 = −1/288, d_20 = 25/6048, d_21 = −139/51840.
    CHECK(relative_error(d[0][0], -1.0L / 3) <= 2 * eps);
    CHECK(relative_error(d[0][1], 1.0L / 12) <= 2 * eps);
    CHECK(relative_error(d[0][2], -2.0L / 135) <= 2 * eps);
    CHECK(relative_error(d[0][3], 1.0L / 864) <= 2 * eps);
    CHECK(relative_error(d[0][4], 1.0L / 2835) <= 2 * eps);
    CHECK(relative_error(d[1][0], -1.0L / 540) <= 2 * eps);
    CHECK(relative_error(d[1][1], -1.0L / 288) <= 2 * eps);
    CHECK(relative_error(d[2][0], 25.0L / 6048) <= 2 * eps);
    CHECK(relative_error(d[2][1], -139.0L / 51840) <= 2 * eps);
    // The whole of C_0 against its closed form 1/(λ − 1) − 1/η, at η = ±½ (λ by Newton on
    // λ − 1 − ln λ = η²/2 here).
    for (long double eta : {-0.5L, 0.5L}) {
      long double lambda = 1 + eta;
      for (int i = 0; i < 50; ++i)
        lambda -= (lambda - 1 - std::log(lambda) - eta * eta / 2) / (1 - 1 / lambda);
      long double c0 = 0;
      for (int n = 24; n >= 0; --n) c0 = c0 * eta + d[0][n];
      INFO("eta = " << static_cast<double>(eta));
      CHECK(relative_error(c0, 1 / (lambda - 1) - 1 / eta) <= 1e-17);
    }
  }

  TEST_CASE("queueing: Erlang B and C agree with the recurrence in long double up to c = 10^5") {
    // The reference: B(k) = aB(k−1)/(k + aB(k−1)) in long double, one pass per load a, read at
    // every c of the grid (every c to 300, then 2 % apart, and every √a/2 within 20√a of a).
    // A step maps a relative error ε of B(k−1) to (1 − B(k))ε (d ln B(k)/d ln B(k−1) =
    // 1 − B(k)), plus its own rounding: a contraction, so errors never grow geometrically
    // and add up at most linearly where B is small. Measured over this grid: the same
    // recurrence in double stays within 1.2e-14 of long double (worst_double below), so the
    // long double one, 2^11 times finer, is exact to about 1e-17 relative.
    const double smallest = std::numeric_limits<double>::min();
    std::vector<double> loads;
    for (double a = 0.25; a < 1.1e5; a *= 1.25) loads.push_back(a);
    for (double a : {47.5, 48.5, 49.5, 50.0, 950.0, 9500.0, 9900.0, 10000.0, 99000.0, 1e5})
      loads.push_back(a);
    double worst_b = 0;
    double worst_c = 0;
    double worst_double = 0;
    double worst_not_tiny = 0;  // where B >= 1e-20
    std::int64_t worst_servers = 0;
    double worst_load = 0;
    int points = 0;
    for (const double a : loads) {
      std::vector<std::int64_t> grid;
      for (std::int64_t c = 1; c <= 100000; c = c < 300 ? c + 1 : c + c / 50) grid.push_back(c);
      for (int k = -40; k <= 40; ++k) {
        const auto c = static_cast<std::int64_t>(std::llround(a + k * std::sqrt(a) / 2));
        if (c >= 1 && c <= 100000) grid.push_back(c);
      }
      std::sort(grid.begin(), grid.end());
      const long double al = a;
      long double b = 1;
      double b_double = 1;
      std::size_t next = 0;
      for (std::int64_t k = 1; k <= 100000 && next < grid.size(); ++k) {
        b = al * b / (static_cast<long double>(k) + al * b);
        b_double = a * b_double / (static_cast<double>(k) + a * b_double);
        if (static_cast<double>(k) > a && b < 1e-330L) break;  // 0 in double from here on
        for (; next < grid.size() && grid[next] == k; ++next) {
          const double value = headroom::queueing::erlang_b({.servers = k, .offered_load = a});
          if (b < smallest) {  // subnormal in double: only absolutely close
            CHECK(value < 4 * smallest);
            continue;
          }
          ++points;
          const double error = relative_error(value, b);
          if (b >= 1e-20L) worst_not_tiny = std::max(worst_not_tiny, error);
          if (error > worst_b) {
            worst_b = error;
            worst_servers = k;
            worst_load = a;
          }
          worst_double = std::max(worst_double, relative_error(b_double, b));
          if (a < static_cast<double>(k)) {
            const long double rho = al / static_cast<long double>(k);
            const long double c_reference = b / (1 - rho * (1 - b));
            worst_c = std::max(
                worst_c,
                relative_error(headroom::queueing::erlang_c({.servers = k, .offered_load = a}),
                               c_reference));
          }
        }
      }
    }
    INFO("worst Erlang B at c = " << worst_servers << ", a = " << worst_load);
    CHECK(points > 20000);
    CHECK(worst_b <= 1e-12);  // 4.7e-13 measured (B near 1e-300)
    CHECK(worst_not_tiny <= 5e-14);
    CHECK(worst_c <= 1e-12);
    CHECK(worst_double <= 1e-13);
    // The error grows with the exponent D of e^{−D} (about 4Dε: 5e-13 near the underflow at
    // D ≈ 700, 5e-14 where B >= 1e-20, D < 46, and a few ulps near a = c).
    for (std::int64_t c : {50, 100, 1000, 10000, 100000}) {
      for (double rho : {0.8, 0.9, 0.99, 1.0, 1.01, 1.5, 3.0}) {
        const double a = rho * static_cast<double>(c);
        const long double reference =
            headroom::detail::erlang_b_recurrence(c, static_cast<long double>(a));
        if (reference < 1e-20L) continue;
        INFO("c = " << c << ", a = " << a);
        CHECK(relative_error(headroom::queueing::erlang_b({.servers = c, .offered_load = a}),
                             reference) <= 5e-14);
      }
    }
    // long double and float follow their own precision.
    CHECK(relative_error(headroom::queueing::erlang_b<long double>(
                             {.servers = 10000, .offered_load = 9500.0L}),
                         headroom::detail::erlang_b_recurrence(10000, 9500.0L)) <= 1e-17);
    CHECK(relative_error(
              headroom::queueing::erlang_c<float>({.servers = 10000, .offered_load = 9900.0f}),
              0.22277692886414824L) <= 1e-6);
    // Constant evaluation takes the same path: C(1000, 950) in exact rational arithmetic, and
    // B(10^5, 10^5) = 0.0025188934235469064 (mpmath: the Poisson pmf over gammainc).
    static_assert(near(headroom::queueing::erlang_c({.servers = 1000, .offered_load = 950.0}),
                       0.06825341537714143, 1e-15));
    static_assert(near(headroom::queueing::erlang_b({.servers = 100000, .offered_load = 1e5}),
                       0.0025188934235469064, 1e-16));
  }

  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: Erlang B matches published table entries") {
    // Erlang B tables (any telephony traffic table): 10 trunks carry 4.46 E at 1 % blocking,
    // 5.08 E at 2 %, 6.22 E at 5 %; 100 trunks carry 84.06 E at 1 %. Tables round the load
    // to 0.01 E, hence the tolerance: 1 % of the value (scale 0: relative, not absolute).
    CHECK(headroom::queueing::erlang_b({.servers = 10, .offered_load = 4.46}) ==
          doctest::Approx(0.01).epsilon(0.01).scale(0.0));
    CHECK(headroom::queueing::erlang_b({.servers = 10, .offered_load = 5.08}) ==
          doctest::Approx(0.02).epsilon(0.01).scale(0.0));
    CHECK(headroom::queueing::erlang_b({.servers = 10, .offered_load = 6.22}) ==
          doctest::Approx(0.05).epsilon(0.01).scale(0.0));
    CHECK(headroom::queueing::erlang_b({.servers = 100, .offered_load = 84.06}) ==
          doctest::Approx(0.01).epsilon(0.01).scale(0.0));
    // Hand: B(1, a) = a/(1 + a) → 0.5 at a = 1; B(2, 1) = (1·½)/(2 + ½) = 0.2.
    CHECK(headroom::queueing::erlang_b({.servers = 1, .offered_load = 1.0}) ==
          doctest::Approx(0.5));
    CHECK(headroom::queueing::erlang_b({.servers = 2, .offered_load = 1.0}) ==
          doctest::Approx(0.2));
    CHECK(headroom::queueing::erlang_b({.servers = 5, .offered_load = 0.0}) == 0.0);
    static_assert(
        near(headroom::queueing::erlang_b({.servers = 2, .offered_load = 1.0}), 0.2, 1e-15));
  }

  TEST_CASE("queueing: Erlang C against hand calculations") {
    // c = 2, a = 1: B(2, 1) = 0.2, ρ = ½: C = 0.2/(1 − ½·0.8) = 0.2/0.6 = 1/3.
    CHECK(headroom::queueing::erlang_c({.servers = 2, .offered_load = 1.0}) ==
          doctest::Approx(1.0 / 3.0));
    static_assert(
        near(headroom::queueing::erlang_c({.servers = 2, .offered_load = 1.0}), 1.0 / 3.0, 1e-15));
    // c = 1: C = ρ (M/M/1 waits with probability ρ).
    CHECK(headroom::queueing::erlang_c({.servers = 1, .offered_load = 0.8}) ==
          doctest::Approx(0.8));
    // A call centre: one call a minute, 3 minutes each (a = 3 E), 5 agents.
    // Σ_{k<5} 3^k/k! = 1 + 3 + 4.5 + 4.5 + 3.375 = 16.375; 3^5/5! · 5/2 = 2.025 · 2.5 = 5.0625;
    // C = 5.0625/21.4375 = 81/343 = 0.2361516; 76.4 % of callers never wait.
    CHECK(headroom::queueing::erlang_c({.servers = 5, .offered_load = 3.0}) ==
          doctest::Approx(81.0 / 343.0));
    CHECK(headroom::queueing::mmc_queue{.arrival_rate_per_second = 1.0 / 60.0,
                                        .service_rate_per_second = 1.0 / 180.0,
                                        .servers = 5}
              .wait_probability() == doctest::Approx(81.0 / 343.0));
    // The classic worked example: 360 calls per half hour, 4-minute calls (a = 48 E),
    // 55 agents, 15 s target. Exact rational arithmetic: C = 0.2387009364; service level
    // 1 − C·e^{−(55−48)·15/240} = 0.8458831; mean wait C·240/7 = 8.18 s.
    const double lambda = 360.0 / 1800.0;  // calls/s
    const double mu = 1.0 / 240.0;         // per s
    CHECK(headroom::queueing::erlang_c({.servers = 55, .offered_load = 48.0}) ==
          doctest::Approx(0.2387009363780092).epsilon(1e-12));
    CHECK(headroom::queueing::mmc_queue{
              .arrival_rate_per_second = lambda, .service_rate_per_second = mu, .servers = 55}
              .wait_conformance(15s) == doctest::Approx(0.8458830921705803).epsilon(1e-12));
    CHECK(headroom::queueing::mmc_queue{
              .arrival_rate_per_second = lambda, .service_rate_per_second = mu, .servers = 55}
              .mean_wait()
              .count() == doctest::Approx(8.184032104388887).epsilon(1e-12));
    // Agents for 80 % answered within 15 s: 54 give 79.3 %, 55 give 84.6 % → 55.
    CHECK(headroom::queueing::mmc_queue{
              .arrival_rate_per_second = lambda, .service_rate_per_second = mu, .servers = 54}
              .wait_conformance(15s) < 0.8);
    CHECK(headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = lambda,
                                                  .service_rate_per_second = mu,
                                                  .threshold = 15s,
                                                  .quota = 0.8}) == 55);
    // The factorial formula, independently, for a grid of small cases.
    for (int c = 1; c <= 40; ++c) {
      for (double a : {0.1, 0.5 * c, 0.9 * c, c - 0.01}) {
        INFO("c = " << c << ", a = " << a);
        CHECK(headroom::queueing::erlang_c({.servers = c, .offered_load = a}) ==
              doctest::Approx(static_cast<double>(erlang_c_factorial(c, a))).epsilon(1e-10));
      }
    }
  }

  TEST_CASE("queueing: Erlang C for c in the thousands is finite and exact and monotone") {
    // Exact rational arithmetic (Python fractions over the factorial formula):
    // C(1000, 950) = 0.06825341537714143; C(1000, 990) = 0.6590804218808545;
    // C(10000, 9900) = 0.22277692886414824.
    CHECK(headroom::queueing::erlang_c({.servers = 1000, .offered_load = 950.0}) ==
          doctest::Approx(0.06825341537714143).epsilon(1e-12));
    CHECK(headroom::queueing::erlang_c({.servers = 1000, .offered_load = 990.0}) ==
          doctest::Approx(0.6590804218808545).epsilon(1e-12));
    CHECK(headroom::queueing::erlang_c({.servers = 10000, .offered_load = 9900.0}) ==
          doctest::Approx(0.22277692886414824).epsilon(1e-12));
    // And through log-gamma, computed here.
    CHECK(headroom::queueing::erlang_c({.servers = 1000, .offered_load = 950.0}) ==
          doctest::Approx(static_cast<double>(erlang_c_log(1000, 950.0L))).epsilon(1e-9));
    CHECK(headroom::queueing::erlang_c({.servers = 3000, .offered_load = 2900.0}) ==
          doctest::Approx(static_cast<double>(erlang_c_log(3000, 2900.0L))).epsilon(1e-9));
    // Finite, in (0, 1), decreasing in c and increasing in a.
    double previous = 1.0;
    for (std::int64_t c = 951; c <= 1100; ++c) {
      const double value = headroom::queueing::erlang_c({.servers = c, .offered_load = 950.0});
      REQUIRE(std::isfinite(value));
      REQUIRE(value > 0.0);
      REQUIRE(value < 1.0);
      REQUIRE(value < previous);
      previous = value;
    }
    previous = 0.0;
    for (double a = 100.0; a < 1000.0; a += 10.0) {
      const double value = headroom::queueing::erlang_c({.servers = 1000, .offered_load = a});
      REQUIRE(value >= previous);
      previous = value;
    }
    // A million servers still works (O(c)).
    const double big = headroom::queueing::erlang_c({.servers = 1000000, .offered_load = 999000.0});
    CHECK(std::isfinite(big));
    CHECK(big > 0.0);
    CHECK(big < 1.0);
    // The smallest c for a quota at c ~ 1000: P(no wait) >= 0.9 at a = 950 E. Exact values:
    // c = 994 gives 0.89777, c = 995 gives 0.90426 → 995.
    CHECK(headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 950.0,
                                                  .service_rate_per_second = 1.0,
                                                  .threshold = 0s,
                                                  .quota = 0.9}) == 995);
    CHECK(1.0 - headroom::queueing::erlang_c({.servers = 994, .offered_load = 950.0}) < 0.9);
    CHECK(1.0 - headroom::queueing::erlang_c({.servers = 995, .offered_load = 950.0}) >= 0.9);
    // With a 0.05 (mean service times) target: 974 (by the same search in exact arithmetic).
    CHECK(headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 950.0,
                                                  .service_rate_per_second = 1.0,
                                                  .threshold = 50ms,
                                                  .quota = 0.9}) == 974);
    CHECK(headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 9900.0,
                                                  .service_rate_per_second = 1.0,
                                                  .threshold = 0s,
                                                  .quota = 0.9}) == 10042);
  }

  TEST_CASE("queueing: mmc_servers_needed is the smallest c that meets the quota") {
    for (double lambda : {0.5, 3.0, 12.5, 48.0, 200.0}) {
      for (double q : {0.5, 0.8, 0.95, 0.999}) {
        const auto c = headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = lambda,
                                                               .service_rate_per_second = 1.0,
                                                               .threshold = 100ms,
                                                               .quota = q});
        INFO("lambda = " << lambda << ", q = " << q << ", c = " << c);
        CHECK(headroom::queueing::mmc_queue{
                  .arrival_rate_per_second = lambda, .service_rate_per_second = 1.0, .servers = c}
                  .wait_conformance(100ms) >= q);
        if (c > 1)
          CHECK(headroom::queueing::mmc_queue{.arrival_rate_per_second = lambda,
                                              .service_rate_per_second = 1.0,
                                              .servers = c - 1}
                    .wait_conformance(100ms) < q);
      }
    }
    CHECK(headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 0.0,
                                                  .service_rate_per_second = 1.0,
                                                  .threshold = 0s,
                                                  .quota = 0.9}) == 1);
    static_assert(
        headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 1.0 / 60.0,
                                                .service_rate_per_second = 1.0 / 180.0,
                                                .threshold = std::chrono::duration<double>(0.0),
                                                .quota = 0.75}) == 5);
    static_assert(
        headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 950.0,
                                                .service_rate_per_second = 1.0,
                                                .threshold = std::chrono::duration<double>(0.0),
                                                .quota = 0.9}) == 995);
  }

  TEST_CASE("queueing: mmc_servers_needed returns the c a walk up from floor(a) + 1 finds") {
    // The search (a walk to c = 49, doubling steps and bisection above) against the walk over
    // headroom's own conformance, and against a walk carrying the recurrence in long double
    // (the former algorithm, exact to ~1e-17): all three agree on the whole grid.
    int cases = 0;
    for (double lambda : {0.3, 4.5, 30.0, 47.9, 48.9, 49.5, 120.0, 950.0, 9900.0, 1e4, 123456.7}) {
      for (double mu : {1.0, 0.25}) {
        const double a = lambda / mu;
        const auto first = static_cast<std::int64_t>(a) + 1;
        const long double b_first =
            headroom::detail::erlang_b_recurrence(first, static_cast<long double>(a));
        for (double seconds : {0.0, 0.05, 1.0}) {
          const std::chrono::duration<double> t(seconds);
          for (double q : {0.5, 0.8, 0.9, 0.99, 0.999999}) {
            INFO("lambda = " << lambda << ", mu = " << mu << ", t = " << seconds << ", q = " << q);
            const auto c =
                headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = lambda,
                                                        .service_rate_per_second = mu,
                                                        .threshold = t,
                                                        .quota = q});
            CHECK(c == servers_needed_by_walk(lambda, mu, t, q));
            // The long double walk.
            std::int64_t servers = first;
            long double b = b_first;
            const long double al = a;
            for (;;) {
              const long double cl = static_cast<long double>(servers);
              const long double wait = b / (1 - al / cl * (1 - b));
              const long double level =
                  1 - wait * std::exp(-(cl * static_cast<long double>(mu) - lambda) * seconds);
              if (level >= q) break;
              ++servers;
              b = al * b / (static_cast<long double>(servers) + al * b);
            }
            CHECK(c == servers);
            ++cases;
          }
        }
      }
    }
    CHECK(cases == 330);
  }

  TEST_CASE("queueing: M/M/c reduces to M/M/1 at c = 1") {
    constexpr headroom::queueing::mmc_queue queue{
        .arrival_rate_per_second = 8.0, .service_rate_per_second = 10.0, .servers = 1};
    // λ = 8, μ = 10, τ = 0.5 s.
    CHECK(queue.wait_conformance(500ms) ==
          doctest::Approx(headroom::queueing::mm1_queue{.arrival_rate_per_second = 8.0,
                                                        .service_rate_per_second = 10.0}
                              .wait_conformance(500ms)));
    CHECK(queue.mean_wait().count() ==
          doctest::Approx(headroom::queueing::mm1_queue{.arrival_rate_per_second = 8.0,
                                                        .service_rate_per_second = 10.0}
                              .mean_wait()
                              .count()));
    CHECK(queue.mean_sojourn().count() == doctest::Approx(0.5));
    CHECK(queue.mean_queue_length() == doctest::Approx(3.2));
    // Pooling helps: 2 servers at λ = 16, μ = 10 wait less than one at λ = 8.
    CHECK(headroom::queueing::mmc_queue{
              .arrival_rate_per_second = 16.0, .service_rate_per_second = 10.0, .servers = 2}
              .mean_wait()
              .count() < headroom::queueing::mm1_queue{.arrival_rate_per_second = 8.0,
                                                       .service_rate_per_second = 10.0}
                             .mean_wait()
                             .count());
  }

  TEST_CASE("queueing: M/D/1 and M/G/1 (Pollaczek–Khinchine)") {
    constexpr headroom::queueing::md1_queue queue{.arrival_rate_per_second = 8.0,
                                                  .service_rate_per_second = 10.0};
    // M/D/1, λ = 8, μ = 10, ρ = 0.8: W_q = 0.8/(2·10·0.2) = 0.2 s, half the M/M/1 wait;
    // W = 0.1 + 0.2 = 0.3 s; L_q = 0.64/(2·0.2) = 1.6.
    CHECK(queue.mean_wait().count() == doctest::Approx(0.2));
    CHECK(queue.mean_sojourn().count() == doctest::Approx(0.3));
    CHECK(queue.mean_queue_length() == doctest::Approx(1.6));
    // M/G/1 with c_s = 1 is M/M/1.
    CHECK(headroom::queueing::mg1_queue{
              .arrival_rate_per_second = 8.0, .service_rate_per_second = 10.0, .service_cv = 1.0}
              .mean_wait()
              .count() == doctest::Approx(headroom::queueing::mm1_queue{
                              .arrival_rate_per_second = 8.0, .service_rate_per_second = 10.0}
                                              .mean_wait()
                                              .count()));
    CHECK(headroom::queueing::mg1_queue{
              .arrival_rate_per_second = 8.0, .service_rate_per_second = 10.0, .service_cv = 1.0}
              .mean_sojourn()
              .count() == doctest::Approx(0.5));
    // c_s = 2 (bursty service): W_q = ρ(1 + c_s²)/(2(μ − λ)) = 0.8·5/(2·2) = 1.0 s.
    CHECK(headroom::queueing::mg1_queue{
              .arrival_rate_per_second = 8.0, .service_rate_per_second = 10.0, .service_cv = 2.0}
              .mean_wait()
              .count() == doctest::Approx(1.0));
    static_assert(near(queue.mean_sojourn().count(), 0.3, 1e-15));
  }

  TEST_CASE("queueing: M/D/1 waiting-time conformance, Erlang's formula") {
    // λ = 5, μ = 10 (D = 0.1 s), ρ = 0.5: P(W_q = 0) = 1 − ρ = 0.5; at t = D only the k = 0
    // term, (1 − ρ)e^ρ = 0.5·e^0.5 = 0.8243606353500641.
    const headroom::queueing::md1_queue half{.arrival_rate_per_second = 5.0,
                                             .service_rate_per_second = 10.0};
    CHECK(half.wait_conformance(0s) == doctest::Approx(0.5).epsilon(1e-15));
    CHECK(half.wait_conformance(100ms) == doctest::Approx(0.8243606353500641).epsilon(1e-14));
    // At t = 1.5D two terms: (1 − ρ)(e^{1.5ρ} − 0.5ρ·e^{0.5ρ}) = 0.5(e^0.75 − 0.25·e^0.25).
    CHECK(half.wait_conformance(150ms) ==
          doctest::Approx(0.5 * (std::exp(0.75) - 0.25 * std::exp(0.25))).epsilon(1e-14));
    // Unstable: 0; no arrivals: 1.
    CHECK(headroom::queueing::md1_queue{.arrival_rate_per_second = 10.0,
                                        .service_rate_per_second = 10.0}
              .wait_conformance(1s) == 0.0);
    CHECK(headroom::queueing::md1_queue{.arrival_rate_per_second = 0.0,
                                        .service_rate_per_second = 10.0}
              .wait_conformance(0s) == 1.0);

    // Independent checks at ρ = 0.8 (λ = 8, μ = 10): the mean ∫(1 − F) equals the
    // Pollaczek–Khinchine W_q = 0.2 s, and a Lindley recursion W' = max(0, W + D − A) over
    // 2·10^6 seeded Poisson arrivals gives the same F within its noise.
    const headroom::queueing::md1_queue busy{.arrival_rate_per_second = 8.0,
                                             .service_rate_per_second = 10.0};
    // ∫_0^1.8 (1 − F) dt by the midpoint rule; beyond 1.8 s (λt = 14.4, where the series
    // still keeps 8 digits) 1 − F < 4e-4 decays at about 4 per second: under 1e-4 s more.
    double mean = 0.0;
    const double step = 1e-4;
    for (double t = step / 2; t < 1.8; t += step)
      mean += (1.0 - busy.wait_conformance(std::chrono::duration<double>(t))) * step;
    CHECK(mean == doctest::Approx(0.2).epsilon(1e-3));
    CHECK(mean < 0.2);
    std::mt19937_64 engine(20261202);
    const std::vector<double> at{0.0, 0.05, 0.1, 0.25, 0.4, 0.7};
    std::vector<double> below(at.size(), 0.0);
    double w = 0.0;
    const int customers = 2'000'000;
    for (int i = 0; i < customers; ++i) {
      for (std::size_t j = 0; j < at.size(); ++j) below[j] += w <= at[j] ? 1.0 : 0.0;
      w = std::max(0.0, w + 0.1 - headroom::test::exponential_draw(engine, 8.0));
    }
    for (std::size_t j = 0; j < at.size(); ++j) {
      CAPTURE(at[j]);
      CHECK(busy.wait_conformance(std::chrono::duration<double>(at[j])) ==
            doctest::Approx(below[j] / customers).epsilon(0.01));
    }
    // A threshold whose series would lose its digits is refused, not answered.
    const headroom::queueing::md1_queue heavy{.arrival_rate_per_second = 99.0,
                                              .service_rate_per_second = 100.0};
    CHECK(rejected([&] { (void)heavy.wait_conformance(10s); }) == "threshold");
    CHECK(rejected([&] { (void)half.wait_conformance(-1s); }) == "threshold");
  }

  // ------------------------------------------------------------------------------------------
  TEST_CASE("queueing: invalid arguments name the parameter") {
    using headroom::invalid_argument;
    CHECK(rejected([] { (void)headroom::queueing::littles_law_in_flight(not_a_number, 1s); }) ==
          "rate_per_second");
    CHECK(rejected([] { (void)headroom::queueing::littles_law_in_flight(-1.0, 1s); }) ==
          "rate_per_second");
    CHECK(rejected([] { (void)headroom::queueing::littles_law_in_flight(infinity, 1s); }) ==
          "rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::littles_law_in_flight(1.0,
                                                            std::chrono::duration<double>(-1.0));
          }) == "sojourn");
    CHECK(rejected([] {
            (void)headroom::queueing::littles_law_in_flight(
                1.0, std::chrono::duration<double>(not_a_number));
          }) == "sojourn");
    CHECK(rejected([] { (void)headroom::queueing::littles_law_rate(1.0, 0s); }) == "sojourn");
    CHECK(rejected([] {
            (void)headroom::queueing::littles_law_sojourn(
                {.in_flight = 1.0, .rate_per_second = 0.0});
          }) == "rate_per_second");
    CHECK(rejected([] { (void)headroom::queueing::in_flight_per_replica(1.0, 1s, 0); }) ==
          "replicas");
    CHECK(rejected([] {
            (void)headroom::queueing::target_concurrency(
                {.target_utilization = 0.0, .capacity_per_second = 8.0, .mean_sojourn = 1s});
          }) == "target_utilization");
    CHECK(rejected([] {
            (void)headroom::queueing::target_concurrency(
                {.target_utilization = 1.1, .capacity_per_second = 8.0, .mean_sojourn = 1s});
          }) == "target_utilization");
    CHECK(rejected([] {
            (void)headroom::queueing::target_concurrency(
                {.target_utilization = 0.8, .capacity_per_second = 0.0, .mean_sojourn = 1s});
          }) == "capacity_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                       .target_utilization = not_a_number,
                                                       .capacity_per_second = 8.0});
          }) == "target_utilization");
    CHECK(rejected([] {
            (void)headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                       .target_utilization = 0.8,
                                                       .capacity_per_second = -8.0});
          }) == "capacity_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::replicas_needed({.arrival_rate_per_second = 1e300,
                                                       .target_utilization = 1.0,
                                                       .capacity_per_second = 1e-300});
          }) == "arrival_rate_per_second");
    CHECK(rejected([] { (void)headroom::queueing::conformance_standard_error(1.5, 10); }) ==
          "conformance");
    CHECK(rejected([] { (void)headroom::queueing::conformance_standard_error(0.9, 0); }) ==
          "samples");
    CHECK(rejected([] {
            (void)headroom::queueing::conformance_samples_needed(
                {.conformance = 0.9, .standard_error = 0.0});
          }) == "standard_error");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 1.0});
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 0.0});
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 10.0, .threshold = 1s, .quota = not_a_number});
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 10.0, .threshold = 0s, .quota = 0.9});
          }) == "threshold");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 0.0, .threshold = 1s, .quota = 0.9});
          }) == "service_rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_service_rate_needed(
                {.arrival_rate_per_second = -1.0, .threshold = 1s, .quota = 0.9});
          }) == "arrival_rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_queue{.arrival_rate_per_second = 1.0,
                                                .service_rate_per_second = infinity}
                .sojourn_conformance(1s);
          }) == "service_rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_queue{.arrival_rate_per_second = 1.0,
                                                .service_rate_per_second = 2.0}
                .wait_conformance(std::chrono::duration<double>(-1));
          }) == "threshold");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_queue{.arrival_rate_per_second = 1.0,
                                                .service_rate_per_second = 2.0}
                .sojourn_quantile(1.0);
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::mm1_wait_capacity(
                {.service_rate_per_second = 1.0, .threshold = 1s, .quota = -0.1});
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::erlang_b({.servers = 0, .offered_load = 1.0});
          }) == "servers");
    CHECK(rejected([] {
            (void)headroom::queueing::erlang_c({.servers = -3, .offered_load = 1.0});
          }) == "servers");
    CHECK(rejected([] {
            (void)headroom::queueing::erlang_c({.servers = 3, .offered_load = -1.0});
          }) == "offered_load");
    CHECK(rejected([] {
            (void)headroom::queueing::erlang_c({.servers = 3, .offered_load = not_a_number});
          }) == "offered_load");
    CHECK(rejected([] {
            (void)headroom::queueing::erlang_c({.servers = 3, .offered_load = 1e300});
          }) == "offered_load");
    CHECK(rejected([] {
            (void)headroom::queueing::mmc_queue{
                .arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0, .servers = 0}
                .wait_conformance(1s);
          }) == "servers");
    CHECK(rejected([] {
            (void)headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 1.0,
                                                          .service_rate_per_second = 1.0,
                                                          .threshold = 1s,
                                                          .quota = 1.0});
          }) == "quota");
    CHECK(rejected([] {
            (void)headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = 1.0,
                                                          .service_rate_per_second = 0.0,
                                                          .threshold = 1s,
                                                          .quota = 0.5});
          }) == "service_rate_per_second");
    CHECK(rejected([] {
            (void)headroom::queueing::mg1_queue{
                .arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0, .service_cv = -1.0}
                .mean_wait();
          }) == "service_cv");
    CHECK(rejected([] {
            (void)headroom::queueing::closed_loop{.users = -1.0, .think_time = 1s}.rate(1s);
          }) == "users");
    // The message carries the value.
    CHECK(headroom::test::rejection_message([] {
            (void)headroom::queueing::mm1_capacity(
                {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 1.5});
          }) == "quota = 1.5: must lie in the open interval (0, 1)");
  }

  TEST_CASE("queueing: generic over the floating type") {
    // float and long double compute in their own type.
    const float lf =
        headroom::queueing::littles_law_in_flight(60.0f, std::chrono::duration<float>(8.0f));
    CHECK(lf == 480.0f);
    const long double cl =
        headroom::queueing::erlang_c<long double>({.servers = 2, .offered_load = 1.0L});
    CHECK(static_cast<double>(cl) == doctest::Approx(1.0 / 3.0));
    const auto capacity_f =
        headroom::queueing::mm1_capacity<float>({.service_rate_per_second = 10.0f,
                                                 .threshold = std::chrono::duration<float>(1.0f),
                                                 .quota = 0.9f});
    static_assert(std::is_same_v<decltype(capacity_f), const float>);
    CHECK(capacity_f == doctest::Approx(7.6974149f));
    static_assert(
        std::is_same_v<decltype(headroom::queueing::basic_mm1_queue<long double>{
                           .arrival_rate_per_second = 8.0L, .service_rate_per_second = 10.0L}
                                    .mean_sojourn()),
                       std::chrono::duration<long double>>);
    static_assert(
        std::is_same_v<decltype(headroom::queueing::littles_law_in_flight(60, 8s)), double>);
    static_assert(near(static_cast<double>(headroom::queueing::erlang_c<float>(
                           {.servers = 2, .offered_load = 1.0f})),
                       1.0 / 3.0, 1e-6));
  }
}

// SPDX-License-Identifier: Apache-2.0
#include <headroom/arrivals.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;

struct moments {
  double mean = 0.0;
  double cv = 0.0;
};

moments gap_moments(const std::vector<seconds_d>& schedule, seconds_d start = seconds_d::zero()) {
  // Gaps of a schedule whose first arrival is one gap after `start`.
  double sum = 0.0;
  double sum_sq = 0.0;
  seconds_d previous = start;
  for (const auto& t : schedule) {
    const double gap = (t - previous).count();
    sum += gap;
    sum_sq += gap * gap;
    previous = t;
  }
  const double n = static_cast<double>(schedule.size());
  const double mean = sum / n;
  const double variance = (sum_sq - n * mean * mean) / (n - 1.0);
  return {mean, std::sqrt(variance) / mean};
}

// Five-sigma bounds for the sample mean and CV of n i.i.d. gamma gaps with mean m and
// coefficient of variation cv (shape k = 1/cv², skewness γ = 2cv, kurtosis κ = 3 + 6cv²).
// Mean: sd(x̄)/m = cv/sqrt(n). CV (delta method on ln(s/x̄), covariance term bounded by its
// absolute value): var ≈ ((κ − 1)/4 + cv² + γ·cv)/n, relative. For cv = 1, n = 1e5:
// mean ±5·1/316 = ±1.6 %, CV ±5·sqrt(5e-5) = ±3.5 %.
double mean_bound(double mean, double cv, double n) { return 5.0 * mean * cv / std::sqrt(n); }
double cv_bound(double cv, double n) {
  const double kurtosis = 3.0 + 6.0 * cv * cv;
  const double skewness = 2.0 * cv;
  return 5.0 * cv * std::sqrt(((kurtosis - 1.0) / 4.0 + cv * cv + skewness * cv) / n);
}

constexpr std::size_t kSamples = 100000;

}  // namespace

TEST_SUITE("arrivals") {
  using namespace headroom;
  using namespace headroom::arrivals;

  TEST_CASE("arrivals: the uniform is built from the engine's bits / identically everywhere") {
    // The first output of a default-seeded std::mt19937_64 is fixed by the standard
    // ([rand.predef]: the 10000th is 9981545732273789042; the first is
    // 14514284786278117030). The uniform keeps its high 52 bits: u = (2k + 1)·2^-53.
    std::mt19937_64 engine;
    const std::uint64_t first = 14514284786278117030ULL;
    const double expected = static_cast<double>(2 * (first >> 12) + 1) * 0x1p-53;
    CHECK(headroom::detail::uniform_open01(engine) == expected);
    // And the exponential is its inverse transform.
    std::mt19937_64 again;
    CHECK(exponential_gaps(4.0)(again).count() == doctest::Approx(-std::log(expected) / 4.0));
  }

  TEST_CASE("arrivals: the uniform lies in (0 / 1) with mean 1/2 for several engines") {
    // sd(U) = 1/sqrt(12) = 0.2887; sd of the mean over 1e5 draws = 0.000913; 5σ = 0.0046.
    auto check = [](auto engine) {
      double sum = 0.0;
      std::size_t outside = 0;
      for (std::size_t i = 0; i < kSamples; ++i) {
        const double u = headroom::detail::uniform_open01(engine);
        if (!(u > 0.0 && u < 1.0)) ++outside;
        sum += u;
      }
      CHECK(outside == 0);
      CHECK(sum / static_cast<double>(kSamples) == doctest::Approx(0.5).epsilon(0.0092));
    };
    check(std::mt19937_64(1));
    check(std::mt19937(2));
    check(std::minstd_rand(3));  // range 2^31 − 2: not a power of two, 30 bits a draw
    check(std::ranlux24_base(4));
  }

  TEST_CASE("arrivals: Poisson gaps have mean 1/λ and CV 1 over 1e5 gaps") {
    std::mt19937_64 engine(42);
    const double rate = 4.0;
    const auto schedule = poisson_schedule(rate, kSamples, engine);
    REQUIRE(schedule.size() == kSamples);
    const auto m = gap_moments(schedule);
    const double n = static_cast<double>(kSamples);
    CHECK(std::abs(m.mean - 0.25) < mean_bound(0.25, 1.0, n));
    CHECK(std::abs(m.cv - 1.0) < cv_bound(1.0, n));
  }

  TEST_CASE("arrivals: gamma gaps have mean 1/λ and the requested CV over 1e5 gaps") {
    for (const double cv : {0.25, 0.5, 2.0, 3.0}) {
      CAPTURE(cv);
      std::mt19937_64 engine(7);
      const double rate = 10.0;
      const auto schedule =
          gamma_schedule({.rate_per_second = rate, .cv = cv}, kSamples, engine, 5s);
      const auto m = gap_moments(schedule, 5s);
      const double n = static_cast<double>(kSamples);
      CHECK(std::abs(m.mean - 0.1) < mean_bound(0.1, cv, n));
      CHECK(std::abs(m.cv - cv) < cv_bound(cv, n));
    }
  }

  TEST_CASE("arrivals: gamma with CV 1 is Poisson / draw for draw / burstiness is 1/CV²") {
    std::mt19937_64 a(9);
    std::mt19937_64 b(9);
    CHECK(gamma_schedule({.rate_per_second = 3.0, .cv = 1.0}, 1000, a) ==
          poisson_schedule(3.0, 1000, b));
    CHECK(gamma_gaps({.rate_per_second = 1.0, .cv = 0.5}).burstiness() == doctest::Approx(4.0));
    CHECK(gamma_gaps::from_burstiness({.rate_per_second = 1.0, .burstiness = 4.0}).cv() ==
          doctest::Approx(0.5));
    CHECK(gamma_gaps({.rate_per_second = 1.0, .cv = 0.0}).burstiness() ==
          std::numeric_limits<double>::infinity());
  }

  TEST_CASE("arrivals: constant rate / and gamma with CV 0 / are evenly spaced") {
    const auto schedule = constant_schedule(4.0, 3);
    REQUIRE(schedule.size() == 3);
    CHECK(schedule[0].count() == 0.25);
    CHECK(schedule[1].count() == 0.5);
    CHECK(schedule[2].count() == 0.75);
    std::mt19937_64 engine(1);
    const auto g = gamma_schedule({.rate_per_second = 4.0, .cv = 0.0}, 3, engine);
    CHECK(g == schedule);
  }

  TEST_CASE("arrivals: schedules are deterministic for a seed") {
    std::mt19937_64 a(123);
    std::mt19937_64 b(123);
    std::mt19937_64 c(124);
    const auto x = gamma_schedule({.rate_per_second = 5.0, .cv = 2.0}, 500, a);
    CHECK(x == gamma_schedule({.rate_per_second = 5.0, .cv = 2.0}, 500, b));
    CHECK(x != gamma_schedule({.rate_per_second = 5.0, .cv = 2.0}, 500, c));
  }

  TEST_CASE("arrivals: the vLLM-rescaled schedule ends exactly at N/λ") {
    std::mt19937_64 a(5);
    std::mt19937_64 b(5);
    const exponential_gaps gaps(5.0);
    const auto plain = open_loop_schedule(gaps, 1000, a);
    const auto rescaled = vllm_rescaled_schedule(gaps, 1000, b);
    REQUIRE(rescaled.size() == 1000);
    CHECK(rescaled.back().count() == doctest::Approx(1000.0 / 5.0));  // N/λ = 200 s
    // Every time is the plain schedule's times the same factor.
    const double factor = 200.0 / plain.back().count();
    for (std::size_t i = 0; i < plain.size(); i += 97)
      CHECK(rescaled[i].count() == doctest::Approx(plain[i].count() * factor));
  }

  TEST_CASE("arrivals: a linear ramp has the counts of its cumulative rate") {
    // 0 → 20 req/s over 1000 s: Λ(T) = (0 + 20)/2·1000 = 10000 arrivals expected; in the
    // first half Λ(500) = 20/1000·500²/2 = 2500. Poisson counts: sd = sqrt(mean); 5σ bounds.
    std::mt19937_64 engine(11);
    const auto schedule = linear_ramp_schedule(
        {.rate_begin_per_second = 0.0, .rate_end_per_second = 20.0, .duration = 1000s}, engine);
    const double total = static_cast<double>(schedule.size());
    CHECK(std::abs(total - 10000.0) < 5.0 * 100.0);
    std::size_t first_half = 0;
    std::size_t out_of_order = 0;
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      if (i > 0 && schedule[i] < schedule[i - 1]) ++out_of_order;
      if (schedule[i] < 500s) ++first_half;
    }
    CHECK(out_of_order == 0);
    CHECK(schedule.back() < 1000s);
    CHECK(std::abs(static_cast<double>(first_half) - 2500.0) < 5.0 * 50.0);
    // Downward ramp 20 → 0: mirror image, 7500 expected in the first half (sd 86.6).
    const auto down = linear_ramp_schedule(
        {.rate_begin_per_second = 20.0, .rate_end_per_second = 0.0, .duration = 1000s}, engine);
    std::size_t down_first = 0;
    for (const auto& t : down)
      if (t < 500s) ++down_first;
    CHECK(std::abs(static_cast<double>(down_first) - 7500.0) < 5.0 * 86.6);
    // A flat ramp is a homogeneous Poisson process: 10 req/s over 1000 s, sd 100.
    const auto flat = linear_ramp_schedule(
        {.rate_begin_per_second = 10.0, .rate_end_per_second = 10.0, .duration = 1000s}, engine);
    CHECK(std::abs(static_cast<double>(flat.size()) - 10000.0) < 5.0 * 100.0);
  }

  TEST_CASE("arrivals: trace replay / plain and time-scaled to a target rate") {
    const std::vector<seconds_d> trace{100s, 101s, 103s, 106s};
    const auto plain = replay_schedule(trace);
    CHECK(plain == std::vector<seconds_d>{0s, 1s, 3s, 6s});
    // Trace rate (4 − 1)/6 s = 0.5 req/s; target 1 req/s halves every offset.
    const auto scaled = replay_schedule(trace, 1.0);
    CHECK(scaled == std::vector<seconds_d>{0s, 0.5s, 1.5s, 3s});
    CHECK(observed_rate_per_second(trace) == doctest::Approx(0.5));
    CHECK(observed_rate_per_second(scaled) == doctest::Approx(1.0));
    // Simultaneous arrivals are allowed.
    const std::vector<seconds_d> ties{1s, 1s, 2s};
    CHECK(replay_schedule(ties) == std::vector<seconds_d>{0s, 0s, 1s});
  }

  TEST_CASE("arrivals: closed loop offers N/(W + Z)") {
    // The response-time law λ = N_u/(W + Z). 64 users, W = 8 s, Z = 2 s → 6.4 req/s.
    const closed_loop_population population(64, 2s);
    CHECK(population.offered_rate_per_second(8s) == doctest::Approx(6.4));
    CHECK(population.users() == 64);
    // Think times: mean Z, CV as asked (exponential by default), over 1e5 draws.
    std::mt19937_64 engine(3);
    double sum = 0.0;
    double sum_sq = 0.0;
    for (std::size_t i = 0; i < kSamples; ++i) {
      const double z = population.think_time(engine).count();
      sum += z;
      sum_sq += z * z;
    }
    const double n = static_cast<double>(kSamples);
    const double mean = sum / n;
    const double cv = std::sqrt((sum_sq - n * mean * mean) / (n - 1.0)) / mean;
    CHECK(std::abs(mean - 2.0) < mean_bound(2.0, 1.0, n));
    CHECK(std::abs(cv - 1.0) < cv_bound(1.0, n));
    CHECK(population.next_send(10s, engine) >= 10s);
    CHECK(population.first_sends(engine).size() == 64);
    const closed_loop_population no_think(8, 0s);
    CHECK(no_think.think_time(engine) == 0s);
  }

  TEST_CASE("arrivals: bad input is rejected with invalid_argument") {
    const double nan = headroom::test::not_a_number;
    const double inf = std::numeric_limits<double>::infinity();
    std::mt19937_64 engine(1);
    CHECK_THROWS_AS((void)exponential_gaps(0.0), headroom::invalid_argument);
    CHECK_THROWS_AS((void)exponential_gaps(-1.0), headroom::invalid_argument);
    CHECK_THROWS_AS((void)exponential_gaps(nan), headroom::invalid_argument);
    CHECK_THROWS_AS((void)exponential_gaps(inf), headroom::invalid_argument);
    CHECK_THROWS_AS((void)gamma_gaps({.rate_per_second = 1.0, .cv = -0.5}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)gamma_gaps({.rate_per_second = 1.0, .cv = nan}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)gamma_gaps::from_burstiness({.rate_per_second = 1.0, .burstiness = 0.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)constant_schedule(0.0, 3), headroom::invalid_argument);
    CHECK_THROWS_AS((void)poisson_schedule(-2.0, 3, engine), headroom::invalid_argument);
    CHECK_THROWS_AS((void)poisson_schedule(2.0, 3, engine, seconds_d(nan)),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(
        (void)linear_ramp_schedule(
            {.rate_begin_per_second = 0.0, .rate_end_per_second = 0.0, .duration = 10s}, engine),
        headroom::invalid_argument);
    CHECK_THROWS_AS(
        (void)linear_ramp_schedule(
            {.rate_begin_per_second = -1.0, .rate_end_per_second = 1.0, .duration = 10s}, engine),
        headroom::invalid_argument);
    CHECK_THROWS_AS(
        (void)linear_ramp_schedule(
            {.rate_begin_per_second = 1.0, .rate_end_per_second = 1.0, .duration = 0s}, engine),
        headroom::invalid_argument);
    const std::vector<seconds_d> unsorted{1s, 3s, 2s};
    const std::vector<seconds_d> with_nan{1s, seconds_d(nan), 2s};
    const std::vector<seconds_d> empty;
    const std::vector<seconds_d> single{5s};
    CHECK_THROWS_AS((void)replay_schedule(unsorted), headroom::invalid_argument);
    CHECK_THROWS_AS((void)replay_schedule(with_nan), headroom::invalid_argument);
    CHECK_THROWS_AS((void)replay_schedule(empty), headroom::invalid_argument);
    CHECK_THROWS_AS((void)replay_schedule(single, 2.0), headroom::invalid_argument);
    CHECK_THROWS_AS((void)replay_schedule(unsorted, 0.0), headroom::invalid_argument);
    CHECK(replay_schedule(single) == std::vector<seconds_d>{0s});
    CHECK_THROWS_AS((void)closed_loop_population(4, 0s).offered_rate_per_second(0s),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)closed_loop_population(4, 2s).offered_rate_per_second(seconds_d(nan)),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)closed_loop_population(0, 1s), headroom::invalid_argument);
    CHECK_THROWS_AS((void)closed_loop_population(3, seconds_d(nan)), headroom::invalid_argument);
    CHECK(headroom::test::rejected([] { (void)exponential_gaps(-3.0); }) == "rate_per_second");
  }

  TEST_CASE("arrivals: the samplers satisfy GapSampler") {
    static_assert(GapSampler<exponential_gaps, std::mt19937_64>);
    static_assert(GapSampler<gamma_gaps, std::mt19937>);
    static_assert(GapSampler<constant_gaps, std::minstd_rand>);
    static_assert(!GapSampler<int, std::mt19937_64>);
    CHECK(constant_gaps(2.0).rate_per_second() == 2.0);
  }
}

// SPDX-License-Identifier: Apache-2.0
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;

// An outcome that meets TTFT 1 s and TPOT 0.1 s comfortably: TTFT 0.5 s, TPOT 0.05 s.
headroom::capacity::request_outcome good_at(double t) {
  return {.intended_arrival = seconds_d(t),
          .sent = seconds_d(t),
          .first_token = seconds_d(t + 0.5),
          .finished = seconds_d(t + 0.5 + 0.05 * 10),
          .prompt_tokens = 100,
          .output_tokens = 11,
          .error = false};
}

// The independent oracle: M/M/1 sojourn conformance 1 − exp(−(μ − λ)τ), 0 when unstable.
double mm1_conformance(double lambda, double mu, double tau_s) {
  return lambda < mu ? 1.0 - std::exp(-(mu - lambda) * tau_s) : 0.0;
}

}  // namespace

TEST_SUITE("capacity") {
  using namespace headroom;
  using namespace headroom::arrivals;
  using namespace headroom::queueing;
  using namespace headroom::capacity;

  TEST_CASE("capacity: latencies are measured from the intended arrival") {
    // Intended 10 s, sent 10.5 s (the client was late), first token 11 s, done 14 s, 31 tokens.
    const request_outcome o{.intended_arrival = 10s,
                            .sent = 10.5s,
                            .first_token = 11s,
                            .finished = 14s,
                            .prompt_tokens = 200,
                            .output_tokens = 31,
                            .error = false};
    CHECK(time_to_first_token(o) == 1s);              // 11 − 10
    CHECK(end_to_end_latency(o) == 4s);               // 14 − 10
    CHECK(client_queue_delay(o) == 0.5s);             // 10.5 − 10
    CHECK(time_to_first_token_from_send(o) == 0.5s);  // 11 − 10.5
    // vLLM: (E2E − TTFT)/(out − 1) = (4 − 1)/30 = 0.1 s.
    CHECK(tpot_vllm(o).count() == doctest::Approx(0.1));
    // guidellm: E2E/out = 4/31 s.
    CHECK(tpot_guidellm(o).count() == doctest::Approx(4.0 / 31.0));
    request_outcome one = o;
    one.output_tokens = 1;
    CHECK(tpot_vllm(one) == 0s);
    CHECK(tpot_guidellm(one) == 4s);
    one.output_tokens = 0;
    CHECK(tpot_guidellm(one) == 0s);
  }

  TEST_CASE("capacity: the standard error at n = 200 is about two points") {
    // sqrt(0.9·0.1/200) = sqrt(0.00045) = 0.0212.
    const auto e = conformance_from_counts({.successes = 180, .trials = 200});
    CHECK(e.share == doctest::Approx(0.9));
    CHECK(e.standard_error == doctest::Approx(0.0212132).epsilon(1e-5));
    CHECK(e.n == 200);
    CHECK_FALSE(e.empty());
  }

  TEST_CASE("capacity: Wilson interval against hand-computed values") {
    // 180 of 200, z = 1.96: p = 0.9, z² = 3.8416, z²/n = 0.019208, d = 1.019208.
    // centre = (0.9 + 3.8416/400)/d = 0.909604/1.019208 = 0.8924616
    // half = 1.96·sqrt(0.9·0.1/200 + 3.8416/160000)/d = 1.96·sqrt(0.00047401)/d
    //      = 1.96·0.0217718/1.019208 = 0.0418685
    // → [0.8505931, 0.9343301]
    const auto w = wilson_interval({.successes = 180, .trials = 200});
    CHECK(w.lower == doctest::Approx(0.8505931).epsilon(1e-6));
    CHECK(w.upper == doctest::Approx(0.9343301).epsilon(1e-6));
    // 0 of 10: centre = half = (0.38416/20)/1.38416 = 0.1387701 → [0, 0.2775402].
    const auto none = wilson_interval({.successes = 0, .trials = 10});
    CHECK(none.lower == doctest::Approx(0.0));
    CHECK(none.upper == doctest::Approx(0.2775402).epsilon(1e-6));
    // 10 of 10: the mirror image → [0.7224598, 1].
    const auto all = wilson_interval({.successes = 10, .trials = 10});
    CHECK(all.lower == doctest::Approx(0.7224598).epsilon(1e-6));
    CHECK(all.upper == doctest::Approx(1.0));
    // The estimate carries the same interval.
    const auto e = conformance_from_counts({.successes = 180, .trials = 200});
    CHECK(e.wilson_lower == doctest::Approx(w.lower));
    CHECK(e.wilson_upper == doctest::Approx(w.upper));
  }

  TEST_CASE("capacity: conformance over a window discards warm-up and cool-down") {
    const slo objective{.ttft = 1s, .tpot = 0.1s};
    std::vector<request_outcome> outcomes;
    for (int t = 0; t < 10; ++t) outcomes.push_back(good_at(t));
    // Arrivals 0..9 s; warm-up 2 s and cool-down 2 s keep intended ∈ [2, 7]: six outcomes.
    outcomes[3].error = true;                             // an error: non-conforming
    outcomes[4].first_token = 4s + 1.5s;                  // TTFT 1.5 s > 1 s
    outcomes[4].finished = 4s + 2s;                       // (TPOT 0.5/10 = 0.05 s, fine)
    outcomes[5].finished = outcomes[5].first_token + 2s;  // TPOT 2/10 = 0.2 s > 0.1 s
    outcomes[0].error = true;                             // inside the warm-up: ignored
    const auto e = measure_conformance(outcomes, objective,
                                       measurement_window{.warm_up = 2s, .cool_down = 2s});
    CHECK(e.n == 6);
    CHECK(e.discarded == 4);
    CHECK(e.errors == 1);
    CHECK(e.conforming == 3);  // t = 2, 6, 7
    CHECK(e.share == doctest::Approx(0.5));
    // Mean E2E of the five successful ones in the window (t = 3 failed):
    // t = 2, 6, 7: 0.5 + 0.5 = 1 s; t = 4: 2 s; t = 5: 0.5 + 2 = 2.5 s → 7.5/5 = 1.5 s.
    CHECK(e.mean_latency.count() == doctest::Approx(1.5));
    // Without a window all ten count: conforming t = 1, 2, 6, 7, 8, 9.
    const auto all = measure_conformance(outcomes, objective);
    CHECK(all.n == 10);
    CHECK(all.conforming == 6);
    // An explicit run end moves the cool-down: run_end 20 s, cool-down 12 s keeps t <= 8.
    const auto explicit_end = measure_conformance(
        outcomes, objective, measurement_window{.cool_down = 12s, .run_end = 20s});
    CHECK(explicit_end.n == 9);
  }

  TEST_CASE("capacity: an E2E threshold and the guidellm TPOT variant") {
    // E2E 1 s, TTFT 0.5 s, 11 tokens. vLLM TPOT = 0.5/10 = 0.05 s; guidellm = 1/11 = 0.0909 s.
    const std::vector<request_outcome> one{good_at(0.0)};
    slo objective{.ttft = 1s, .tpot = 0.06s};
    CHECK(measure_conformance(one, objective).conforming == 1);
    objective.tpot_kind = tpot_definition::guidellm;
    CHECK(measure_conformance(one, objective).conforming == 0);
    objective = slo{.ttft = 1s, .tpot = 0.06s, .e2e = 0.9s};
    CHECK(measure_conformance(one, objective).conforming == 0);
    objective.e2e = 1s;  // inclusive
    CHECK(measure_conformance(one, objective).conforming == 1);
  }

  TEST_CASE("capacity: an empty window after warm-up is reported / not thrown") {
    std::vector<request_outcome> outcomes;
    for (int t = 0; t < 10; ++t) outcomes.push_back(good_at(t));
    const auto e = measure_conformance(outcomes, slo{.ttft = 1s, .tpot = 0.1s},
                                       measurement_window{.warm_up = 100s});
    CHECK(e.empty());
    CHECK(e.n == 0);
    CHECK(e.discarded == 10);
    CHECK(e.wilson_lower == 0.0);
    CHECK(e.wilson_upper == 1.0);
    CHECK(conformance_from_counts({.successes = 0, .trials = 0}).empty());
    CHECK_FALSE(exact_conformance(0.5).empty());
  }

  TEST_CASE("capacity: conformance rejects bad input") {
    const double nan = headroom::test::not_a_number;
    const slo objective{.ttft = 1s, .tpot = 0.1s};
    const std::vector<request_outcome> none;
    CHECK_THROWS_AS((void)measure_conformance(none, objective), headroom::invalid_argument);
    std::vector<request_outcome> bad{good_at(0.0)};
    bad[0].first_token = seconds_d(nan);
    CHECK_THROWS_AS((void)measure_conformance(bad, objective), headroom::invalid_argument);
    bad[0].error = true;  // an errored request needs only its intended arrival
    CHECK(measure_conformance(bad, objective).errors == 1);
    bad[0].intended_arrival = seconds_d(nan);
    CHECK_THROWS_AS((void)measure_conformance(bad, objective), headroom::invalid_argument);
    const std::vector<request_outcome> fine{good_at(0.0)};
    CHECK_THROWS_AS((void)measure_conformance(fine, slo{.ttft = 0s, .tpot = 0.1s}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)measure_conformance(fine, slo{.ttft = 1s, .tpot = seconds_d(nan)}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)measure_conformance(fine, slo{.ttft = 1s, .tpot = 1s, .e2e = -1s}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)measure_conformance(fine, objective, measurement_window{.warm_up = -1s}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)measure_conformance(fine, objective, {}, 0.0),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)wilson_interval({.successes = 0, .trials = 0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)wilson_interval({.successes = 5, .trials = 4}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)conformance_from_counts({.successes = 5, .trials = 4}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)exact_conformance(1.5), headroom::invalid_argument);
    CHECK(headroom::test::rejected([&] {
            (void)measure_conformance(fine, slo{.ttft = 1s, .tpot = -2s});
          }) == "slo.tpot");
  }

  TEST_CASE("capacity: μ* on a synthetic curve whose answer is known") {
    // conformance(λ) = 1 − λ/40 on the grid 1, 3, 5, 7 req/s: 0.975, 0.925, 0.875, 0.825.
    // q = 0.9 → the largest passing grid point is 3; the line crosses 0.9 at λ = 4.
    std::vector<capacity_point> curve;
    for (const double rate : {7.0, 1.0, 5.0, 3.0})  // any order
      curve.push_back(
          {.rate_per_second = rate, .conformance = exact_conformance(1.0 - rate / 40.0)});
    const auto grid = find_capacity(curve);
    REQUIRE(grid.capacity_per_second);
    CHECK(*grid.capacity_per_second == 3.0);
    CHECK(grid.saturated);
    CHECK(grid.monotone);
    const auto interpolated = find_capacity(curve, {.quota = 0.9, .interpolate = true});
    CHECK(*interpolated.capacity_per_second == doctest::Approx(4.0));
    // q = 0.8: every point passes; μ* is only known to be >= 7.
    const auto all_pass = find_capacity(curve, {.quota = 0.8});
    CHECK(*all_pass.capacity_per_second == 7.0);
    CHECK_FALSE(all_pass.saturated);
    // q = 0.99: nothing passes.
    CHECK_FALSE(find_capacity(curve, {.quota = 0.99}).capacity_per_second);
  }

  TEST_CASE("capacity: the Wilson-lower-bound rule is the conservative μ*") {
    // 930/1000 → Wilson lower 0.9125 (passes both rules); 910/1000 → share 0.91 but lower
    // (0.91 + 0.0019208)/1.0038416 − 1.96·sqrt(0.0000819 + 0.00000096)/1.0038416
    // = 0.908431 − 0.017773 = 0.890658 < 0.9; 850/1000 fails both.
    const std::vector<capacity_point> curve{
        {.rate_per_second = 3.0,
         .conformance = conformance_from_counts({.successes = 930, .trials = 1000})},
        {.rate_per_second = 4.0,
         .conformance = conformance_from_counts({.successes = 910, .trials = 1000})},
        {.rate_per_second = 5.0,
         .conformance = conformance_from_counts({.successes = 850, .trials = 1000})}};
    CHECK(*find_capacity(curve).capacity_per_second == 4.0);
    CHECK(*find_capacity(curve, {.rule = capacity_rule::wilson_lower_bound}).capacity_per_second ==
          3.0);
  }

  TEST_CASE("capacity: a curve that rises with λ is flagged") {
    // Noise-sized rise: 0.95 → 0.97 on 100 requests each (intervals overlap).
    const std::vector<capacity_point> noisy{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 99, .trials = 100})},
        {.rate_per_second = 2.0,
         .conformance = conformance_from_counts({.successes = 95, .trials = 100})},
        {.rate_per_second = 3.0,
         .conformance = conformance_from_counts({.successes = 97, .trials = 100})},
        {.rate_per_second = 4.0,
         .conformance = conformance_from_counts({.successes = 50, .trials = 100})}};
    const auto r = find_capacity(noisy);
    CHECK_FALSE(r.monotone);
    CHECK(r.monotone_within_noise);
    CHECK(*r.first_rise_per_second == 3.0);
    CHECK(*r.capacity_per_second == 3.0);  // μ* = max{λ : conformance >= q}
    // A real rise: 0.80 → 0.95 on 10000 requests each.
    const std::vector<capacity_point> real{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 8000, .trials = 10000})},
        {.rate_per_second = 2.0,
         .conformance = conformance_from_counts({.successes = 9500, .trials = 10000})}};
    CHECK_FALSE(find_capacity(real).monotone_within_noise);
    // An empty point counts as failing and is counted.
    const std::vector<capacity_point> holes{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 99, .trials = 100})},
        {.rate_per_second = 2.0,
         .conformance = conformance_from_counts({.successes = 0, .trials = 0})}};
    const auto h = find_capacity(holes);
    CHECK(h.empty_points == 1);
    CHECK(*h.capacity_per_second == 1.0);
    CHECK(h.saturated);
  }

  TEST_CASE("capacity: the curve rejects bad input") {
    const std::vector<capacity_point> empty;
    CHECK_THROWS_AS((void)find_capacity(empty), headroom::invalid_argument);
    const std::vector<capacity_point> curve{
        {.rate_per_second = 1.0, .conformance = exact_conformance(0.95)}};
    CHECK_THROWS_AS((void)find_capacity(curve, {.quota = 1.0}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)find_capacity(curve, {.quota = 0.0}), headroom::invalid_argument);
    const std::vector<capacity_point> zero_rate{
        {.rate_per_second = 0.0, .conformance = exact_conformance(0.95)}};
    CHECK_THROWS_AS((void)find_capacity(zero_rate), headroom::invalid_argument);
    const std::vector<capacity_point> twice{
        {.rate_per_second = 1.0, .conformance = exact_conformance(0.95)},
        {.rate_per_second = 1.0, .conformance = exact_conformance(0.90)}};
    CHECK_THROWS_AS((void)find_capacity(twice), headroom::invalid_argument);
  }

  TEST_CASE("capacity: the search finds the M/M/1 μ* = μ − ln10/τ within its tolerance") {
    // μ = 10 req/s, τ = 1 s, q = 0.9: μ* = 10 − ln 10 = 7.6974149.
    const double mu = 10.0;
    const double expected = mu - std::log(10.0);
    std::size_t calls = 0;
    auto measure = [&](double lambda) {
      ++calls;
      return mm1_conformance(lambda, mu, 1.0);
    };
    const double tolerance = 1e-3;
    const auto r = search_capacity(
        measure,
        {.rate_low_per_second = 1.0, .rate_high_per_second = 2.0, .relative_tolerance = tolerance});
    CHECK(r.reason == search_stop::converged);
    REQUIRE(r.capacity_per_second);
    CHECK(r.bracket_low_per_second <= expected);
    CHECK(r.bracket_high_per_second > expected);
    CHECK(expected - *r.capacity_per_second <= tolerance * *r.capacity_per_second);
    CHECK(r.measured.size() == calls);
    // Started above μ*: it steps down, then bisects.
    const auto from_above = search_capacity(
        measure,
        {.rate_low_per_second = 9.0, .rate_high_per_second = 9.5, .relative_tolerance = tolerance});
    CHECK(from_above.reason == search_stop::converged);
    CHECK(std::abs(*from_above.capacity_per_second - expected) <= tolerance * expected);
    // The curve it measured gives the same μ* through find_capacity.
    CHECK(*find_capacity(r.measured).capacity_per_second == *r.capacity_per_second);
  }

  TEST_CASE("capacity: the search stops where its interval cannot decide") {
    // measure returns a sample with the exact M/M/1 share, n = 1e5: the Wilson half-width is
    // about 1.96·sqrt(0.09/1e5) = 0.0019, so a point passes only if its true conformance
    // > 0.9 and fails only if < 0.9: μ* stays inside the bracket whatever the stop.
    const double mu = 10.0;
    const double expected = mu - std::log(10.0);
    auto measure = [&](double lambda) {
      const std::size_t n = 100000;
      const auto k = static_cast<std::size_t>(std::llround(mm1_conformance(lambda, mu, 1.0) * 1e5));
      return conformance_from_counts({.successes = k, .trials = n});
    };
    const auto r = search_capacity(measure, {.rate_low_per_second = 1.0,
                                             .rate_high_per_second = 2.0,
                                             .relative_tolerance = 1e-6,
                                             .max_measurements = 100,
                                             .when_undecided = undecided_policy::stop});
    CHECK(r.reason == search_stop::undecided);
    CHECK(r.bracket_low_per_second < expected);
    CHECK(r.bracket_high_per_second > expected);
    // The undecided point is reported too, and lies between the bracket's ends.
    const double last = r.measured.back().rate_per_second;
    CHECK(last > r.bracket_low_per_second);
    CHECK(last < r.bracket_high_per_second);
    // Treating undecided points as failing goes on to the tolerance (conservative side).
    const auto conservative =
        search_capacity(measure, {.rate_low_per_second = 1.0,
                                  .rate_high_per_second = 2.0,
                                  .relative_tolerance = 1e-3,
                                  .when_undecided = undecided_policy::treat_as_failing});
    CHECK(conservative.reason == search_stop::converged);
    CHECK(*conservative.capacity_per_second < expected);
  }

  TEST_CASE("capacity: the search reports a curve that never saturates or never passes") {
    const auto always = search_capacity(
        [](double) { return 1.0; },
        {.rate_low_per_second = 1.0, .rate_high_per_second = 2.0, .max_measurements = 5});
    CHECK(always.reason == search_stop::never_saturated);
    CHECK(*always.capacity_per_second == 16.0);  // 1, 2, 4, 8, 16
    CHECK(always.bracket_high_per_second == std::numeric_limits<double>::infinity());
    const auto never = search_capacity(
        [](double) { return 0.0; },
        {.rate_low_per_second = 1.0, .rate_high_per_second = 2.0, .max_measurements = 4});
    CHECK(never.reason == search_stop::no_passing_rate);
    CHECK_FALSE(never.capacity_per_second);
    CHECK(never.bracket_high_per_second == 0.125);  // 1, 1/2, 1/4, 1/8 all failed
    CHECK(never.measured.size() == 4);
    auto ok = [](double) { return 1.0; };
    CHECK_THROWS_AS((void)search_capacity(ok, {.quota = 1.5}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.rate_low_per_second = 0.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(
        (void)search_capacity(ok, {.rate_low_per_second = 2.0, .rate_high_per_second = 1.0}),
        headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.growth_factor = 1.0}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.relative_tolerance = 0.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.max_measurements = 1}), headroom::invalid_argument);
  }

  TEST_CASE("capacity: from capacity to control / L* ≈ 51 for the numbers of docs/queueing.md") {
    // μ* = 8, ρ* = 0.8, W̄ = 8 s → L* = 0.8·8·8 = 51.2 in flight per replica.
    CHECK(target_concurrency(
              {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 8s}) ==
          doctest::Approx(51.2));
    // 60 req/s on replicas of capacity 8 at ρ* = 1: ceil(7.5) = 8 replicas.
    CHECK(replicas_needed({.arrival_rate_per_second = 60.0,
                           .target_utilization = 1.0,
                           .capacity_per_second = 8.0}) == 8);
  }

  TEST_CASE("capacity: an open-loop M/M/1 sweep recovers μ − ln10/τ") {
    // End to end: Poisson arrivals, exponential service (μ = 10/s), one server (Lindley's
    // recursion), sojourn as both TTFT and E2E; SLO TTFT <= 1 s. μ* = 10 − ln 10 = 7.70.
    // On the grid 6, 7, 8, 9 the true conformance is 0.982, 0.950, 0.865, 0.632: μ* = 7 with
    // margins of 0.05 and 0.035, far beyond the noise of 1e5 requests a point (even
    // autocorrelated); the interpolated crossing of the true curve is 7 + 0.05/0.085 = 7.59.
    const slo objective{.ttft = 1s, .tpot = 1s};
    std::vector<capacity_point> curve;
    for (const double rate : {6.0, 7.0, 8.0, 9.0}) {
      std::mt19937_64 engine(2024);
      const auto arrivals = poisson_schedule(rate, 100000, engine);
      const exponential_gaps service(10.0);
      std::vector<request_outcome> outcomes;
      outcomes.reserve(arrivals.size());
      seconds_d server_free = 0s;
      for (const auto& a : arrivals) {
        const seconds_d start = std::max(a, server_free);
        server_free = start + service(engine);
        outcomes.push_back({.intended_arrival = a,
                            .sent = a,
                            .first_token = server_free,
                            .finished = server_free,
                            .prompt_tokens = 1,
                            .output_tokens = 1,
                            .error = false});
      }
      const seconds_d warm_up = arrivals[arrivals.size() / 10];
      curve.push_back(
          {.rate_per_second = rate,
           .conformance = measure_conformance(outcomes, objective, {.warm_up = warm_up})});
    }
    const auto r = find_capacity(curve);
    REQUIRE(r.capacity_per_second);
    CHECK(*r.capacity_per_second == 7.0);
    CHECK(r.monotone);
    const auto interpolated = find_capacity(curve, {.interpolate = true});
    CHECK(std::abs(*interpolated.capacity_per_second - 7.59) < 0.15);
  }

  // ---- the interval for correlated requests ------------------------------------------------

  TEST_CASE("capacity: t quantiles match Student's table") {
    // z = 1.959964 is the 97.5 % normal quantile: two-sided 95 % t quantiles from any table
    // (e.g. Abramowitz & Stegun Table 26.10): 12.7062 (1), 2.7764 (4), 2.2622 (9),
    // 2.0452 (29); the 95 % one-sided quantile with 10 df (z = 1.644854) is 1.8125.
    const double z975 = 1.959963984540054;
    CHECK(headroom::detail::student_t_quantile_matching(z975, 1.0) ==
          doctest::Approx(12.7062).epsilon(1e-5));
    CHECK(headroom::detail::student_t_quantile_matching(z975, 4.0) ==
          doctest::Approx(2.7764).epsilon(1e-4));
    CHECK(headroom::detail::student_t_quantile_matching(z975, 9.0) ==
          doctest::Approx(2.2622).epsilon(1e-4));
    CHECK(headroom::detail::student_t_quantile_matching(z975, 29.0) ==
          doctest::Approx(2.0452).epsilon(1e-4));
    CHECK(headroom::detail::student_t_quantile_matching(1.6448536269514722, 10.0) ==
          doctest::Approx(1.8125).epsilon(1e-4));
    // Infinite degrees of freedom: the normal quantile itself; very many: within 1e-6 of it.
    CHECK(headroom::detail::student_t_quantile_matching(
              1.96, std::numeric_limits<double>::infinity()) == 1.96);
    CHECK(headroom::detail::student_t_quantile_matching(1.96, 1e7) ==
          doctest::Approx(1.96).epsilon(1e-6));
    // The level named by z: erf(1.96/√2) = 0.9500042.
    CHECK(conformance_from_counts({.successes = 9, .trials = 10}).confidence() ==
          doctest::Approx(0.9500042).epsilon(1e-7));
  }

  TEST_CASE("capacity: a short series in arrival order against a hand calculation") {
    // 10 requests 1,0,1,1,1,0,1,1,1,1 (8 conform). Batches of 1: design effect
    // var/(p(1−p)) = (1.6/9)/0.16 = 1.11 > 1/8, so Sokal's rule doubles the batch once:
    // five batches of 2 with means .5, 1, .5, 1, 1 (and no sixth level: 2 < 5 batches).
    // Mean .8, deviations −.3, .2, −.3, .2, .2: variance .30/4 = .075, lag-1 −.14/.30 < 0
    // (no inflation), standard error sqrt(.075/5) = .122474, 4 df; sample skewness
    // 5/(4·3)·(−.030)/.075^1.5 = −.608581, of the mean −.608581/√5 = −.272166.
    // ESS = .16/.015 = 10.67 → n = 10. t₄ at z = 1.96: 2.776527. Wilson at 10, t₄: [.374911,
    // .963883]; Willink, β = −.045361: p̂ − G(t)·se = .279501, p̂ − G(−t)·se = 1.0749 → 1.
    // (mpmath, 30 digits: 0.279500847462 and 1.)
    conformance_series series;
    for (const int hit : {1, 0, 1, 1, 1, 0, 1, 1, 1, 1}) series.add(hit == 1);
    CHECK(series.size() == 10);
    CHECK(series.conforming() == 8);
    const auto e = series.estimate();
    CHECK(e.basis == interval_basis::batch_means);
    CHECK(e.share == doctest::Approx(0.8));
    CHECK(e.batches == 5);
    CHECK(e.batch_size == 2);
    CHECK(e.degrees_of_freedom == 4.0);
    CHECK(e.standard_error == doctest::Approx(0.122474487).epsilon(1e-8));
    CHECK(e.skewness == doctest::Approx(-0.272165527).epsilon(1e-8));
    CHECK(e.effective_sample_size == doctest::Approx(10.0));
    CHECK(e.lower == doctest::Approx(0.279500847).epsilon(1e-8));
    CHECK(e.upper == 1.0);
    // Wilson for independent requests is still there, far narrower: 8 of 10 at 1.96.
    const auto w = wilson_interval({.successes = 8, .trials = 10});
    CHECK(e.wilson_lower == doctest::Approx(w.lower));
    CHECK(e.wilson_upper == doctest::Approx(w.upper));
  }

  TEST_CASE("capacity: failures in blocks widen the batches until the blocks are inside") {
    // 16384 requests, periodic: in every 1024, the first 128 fail. The series stores 128
    // batches of 128 (each all-fail or all-pass). Doubling: 128 → 256 → 512 requests a batch
    // still sees the blocks (design effects 129, 111, 75.5, each more than an eighth of the
    // batch), 1024 holds exactly one block each: 16 equal batch means, zero variance.
    // So: 16 batches of 1024, standard error 0, ESS n, interval Wilson at n with t₁₅ =
    // 2.131494: [0.869389, 0.880403] (mpmath).
    conformance_series series;
    for (std::size_t i = 0; i < 16384; ++i) series.add(i % 1024 >= 128);
    const auto e = series.estimate();
    CHECK(e.share == doctest::Approx(0.875));
    CHECK(e.batches == 16);
    CHECK(e.batch_size == 1024);
    CHECK(e.standard_error == 0.0);
    CHECK(e.effective_sample_size == 16384.0);
    CHECK(e.lower == doctest::Approx(0.869388594).epsilon(1e-8));
    CHECK(e.upper == doctest::Approx(0.880403489).epsilon(1e-8));
    // The same share scattered (every 8th fails): the 128 stored batches agree at once.
    conformance_series scattered;
    for (std::size_t i = 0; i < 16384; ++i) scattered.add(i % 8 != 0);
    const auto s = scattered.estimate();
    CHECK(s.batches == 128);
    CHECK(s.batch_size == 128);
    CHECK(s.standard_error == 0.0);
  }

  TEST_CASE("capacity: the effective sample size of a two-state Markov chain") {
    // A conforming/failing chain with P(1→0) = 0.01, P(0→1) = 0.09: stationary share
    // 0.09/0.10 = 0.9, lag-k autocorrelation (1 − 0.01 − 0.09)^k = 0.9^k, so the variance of
    // the mean is p(1−p)/n·(1 + 0.9)/(1 − 0.9): a design effect of 19 (Kemeny & Snell,
    // Finite Markov Chains, §4.6). ESS ≈ n/19; Wilson's assumes n.
    std::mt19937_64 engine(20240611);
    const auto u = [](std::mt19937_64& g) { return headroom::test::unit_draw(g); };
    conformance_series series;
    bool state = true;
    const std::size_t n = 400000;
    for (std::size_t i = 0; i < n; ++i) {
      state = state ? u(engine) >= 0.01 : u(engine) < 0.09;
      series.add(state);
    }
    const auto e = series.estimate();
    const double expected = static_cast<double>(n) / 19.0;
    CHECK(e.effective_sample_size > 0.75 * expected);
    CHECK(e.effective_sample_size < 1.35 * expected);
    CHECK(e.lower < 0.9);
    CHECK(e.upper > 0.9);
    CHECK(e.upper - e.lower > 3.0 * (e.wilson_upper - e.wilson_lower));
  }

  TEST_CASE("capacity: measure_conformance reads outcomes in arrival order") {
    // The same outcomes shuffled give the same estimate: the series is built in
    // intended-arrival order whatever the span's order.
    const slo objective{.ttft = 1s, .tpot = 0.1s};
    std::vector<request_outcome> outcomes;
    for (int t = 0; t < 600; ++t) {
      auto o = good_at(t);
      if ((t / 50) % 4 == 0) o.first_token = seconds_d(t + 3.0);  // blocks of 50 late
      outcomes.push_back(o);
    }
    const auto ordered = measure_conformance(outcomes, objective);
    auto shuffled = outcomes;
    std::mt19937_64 engine(3);
    std::shuffle(shuffled.begin(), shuffled.end(), engine);
    const auto again = measure_conformance(shuffled, objective);
    CHECK(ordered.basis == interval_basis::batch_means);
    CHECK(again.share == ordered.share);
    CHECK(again.lower == ordered.lower);
    CHECK(again.upper == ordered.upper);
    CHECK(again.batches == ordered.batches);
    // 450 of 600 conform, in blocks: far less information than 600 independent requests.
    CHECK(ordered.conforming == 450);
    CHECK(ordered.effective_sample_size < 100.0);
    CHECK(ordered.lower < ordered.wilson_lower);
  }

  TEST_CASE("capacity: independent replications against a hand calculation") {
    // Four runs of 100: 90, 85, 95, 92 conform. Shares .90 .85 .95 .92, mean .905 =
    // 362/400; variance .0053/3 = .00176667, standard error sqrt(.00176667/4) = .0210159,
    // 3 df (t₃ = 3.182556 at z = 1.96), skewness of the shares 4/(3·2)·Σd³/s³ = −.646412,
    // of the mean −.323206; ESS .905·.095/.0210159² = 194.66. Hull of Wilson and Willink:
    // [0.640020, 0.956161] (mpmath) — four skewed runs say little.
    std::vector<conformance_estimate> runs;
    for (const std::size_t k : {90u, 85u, 95u, 92u})
      runs.push_back(conformance_from_counts({.successes = k, .trials = 100}));
    runs.push_back(
        conformance_from_counts({.successes = 0, .trials = 0}));  // an empty run is skipped
    const auto e = replicated_conformance(runs);
    CHECK(e.basis == interval_basis::replications);
    CHECK(e.n == 400);
    CHECK(e.conforming == 362);
    CHECK(e.batches == 4);
    CHECK(e.degrees_of_freedom == 3.0);
    CHECK(e.share == doctest::Approx(0.905));
    CHECK(e.standard_error == doctest::Approx(0.0210158670).epsilon(1e-8));
    CHECK(e.effective_sample_size == doctest::Approx(194.660377).epsilon(1e-7));
    CHECK(e.lower == doctest::Approx(0.640020387).epsilon(1e-8));
    CHECK(e.upper == doctest::Approx(0.956161009).epsilon(1e-8));
    // One run is returned as it is; none is empty.
    const std::vector<conformance_estimate> one{runs[0]};
    CHECK(replicated_conformance(one).lower == runs[0].lower);
    CHECK(replicated_conformance(std::span<const conformance_estimate>{}).empty());
  }

  TEST_CASE("capacity: pooled runs against a hand calculation") {
    // Run A: 900 of 1000, se .02 on 9 df, skewness −.5; run B: 2790 of 3000, se .01 on 19 df.
    // Pooled share 3690/4000 = .9225; weights .25, .75: variance .0625·4e-4 + .5625·1e-4 =
    // 8.125e-5 (se .00901388); Satterthwaite df (8.125e-5)²/((2.5e-5)²/9 + (5.625e-5)²/19)
    // = 27.9758; skewness .25³·(−.5)·.02³/se³ = −.0853385. Interval [0.901964, 0.939868]
    // (mpmath, t at 27.98 df = 2.048527).
    auto a = conformance_from_counts({.successes = 900, .trials = 1000});
    a.standard_error = 0.02;
    a.degrees_of_freedom = 9.0;
    a.skewness = -0.5;
    a.basis = interval_basis::batch_means;
    auto b = conformance_from_counts({.successes = 2790, .trials = 3000});
    b.standard_error = 0.01;
    b.degrees_of_freedom = 19.0;
    b.basis = interval_basis::batch_means;
    const std::vector<conformance_estimate> runs{a, b};
    const auto e = pooled_conformance(runs);
    CHECK(e.basis == interval_basis::pooled_runs);
    CHECK(e.n == 4000);
    CHECK(e.share == doctest::Approx(0.9225));
    CHECK(e.standard_error == doctest::Approx(0.00901387819).epsilon(1e-9));
    CHECK(e.degrees_of_freedom == doctest::Approx(27.9757986).epsilon(1e-7));
    CHECK(e.skewness == doctest::Approx(-0.0853384917).epsilon(1e-8));
    CHECK(e.lower == doctest::Approx(0.901964472).epsilon(1e-8));
    CHECK(e.upper == doctest::Approx(0.939867671).epsilon(1e-8));
    // Runs that carry no variance (Wilson estimates: infinite df) pool to infinite df.
    const std::vector<conformance_estimate> counted{
        conformance_from_counts({.successes = 90, .trials = 100}),
        conformance_from_counts({.successes = 80, .trials = 100})};
    CHECK(pooled_conformance(counted).degrees_of_freedom ==
          std::numeric_limits<double>::infinity());
    // A model value is not a run.
    const std::vector<conformance_estimate> model{a, exact_conformance(0.9)};
    CHECK(headroom::test::rejected([&] { (void)pooled_conformance(model); }) == "runs[i].exact");
    CHECK(headroom::test::rejected([&] { (void)replicated_conformance(model); }) ==
          "runs[i].exact");
  }

  TEST_CASE("capacity: the interval covers the truth for an M/M/1 replica") {
    // The regression guard of docs/capacity.md's coverage table: 100 independent runs of
    // an M/M/1 queue (μ = 1, Poisson λ = 0.8) of 2·10⁴ requests, 10 % warm-up, SLO sojourn
    // <= τ = ln 10/(μ − λ): the true conformance is 1 − e^{−(μ−λ)τ} = 0.9 exactly (queueing.hpp
    // mm1_sojourn_conformance). A 95 % interval must hold 0.9 in about 95 runs of 100; >= 88
    // leaves room for chance (binomial sd 2.2). Wilson, which takes the requests for
    // independent, holds it in about 20 (the queue correlates neighbours): <= 50.
    const double lambda = 0.8;
    const double tau_s = std::log(10.0) / (1.0 - lambda);
    REQUIRE(mm1_queue{.arrival_rate_per_second = lambda, .service_rate_per_second = 1.0}
                .sojourn_conformance(seconds_d(tau_s)) == doctest::Approx(0.9));
    int covered = 0;
    int wilson_covered = 0;
    for (std::uint64_t r = 0; r < 100; ++r) {
      std::mt19937_64 engine(1000 + r);
      const exponential_gaps arrivals(lambda);
      const exponential_gaps service(1.0);
      conformance_series series;
      double arrival = 0.0;
      double free_at = 0.0;  // Lindley: the server is free from free_at
      const std::size_t n = 20000;
      for (std::size_t i = 0; i < n; ++i) {
        arrival += arrivals(engine).count();
        free_at = std::max(free_at, arrival) + service(engine).count();
        if (i >= n / 10) series.add(free_at - arrival <= tau_s);
      }
      const auto e = series.estimate();
      if (e.lower <= 0.9 && 0.9 <= e.upper) ++covered;
      if (e.wilson_lower <= 0.9 && 0.9 <= e.wilson_upper) ++wilson_covered;
    }
    CHECK(covered >= 88);
    CHECK(wilson_covered <= 50);
  }

  TEST_CASE("capacity: find_capacity by the lower bound / and the bracket it reads") {
    // Three points with hand-set intervals (q = 0.9): 3 req/s [.91, .95], 4 req/s [.88, .93],
    // 5 req/s [.80, .89]. The lower-bound rule passes only 3; the point estimate passes 4
    // (.905); every interval above 4 lies below q, so μ* ∈ [3, 5).
    auto at = [](double share, double lower, double upper) {
      auto e = conformance_from_counts(
          {.successes = static_cast<std::size_t>(share * 1000.0), .trials = 1000});
      e.lower = lower;
      e.upper = upper;
      e.basis = interval_basis::batch_means;
      return e;
    };
    const std::vector<capacity_point> curve{
        {.rate_per_second = 3.0, .conformance = at(0.93, 0.91, 0.95)},
        {.rate_per_second = 4.0, .conformance = at(0.905, 0.88, 0.93)},
        {.rate_per_second = 5.0, .conformance = at(0.85, 0.80, 0.89)}};
    CHECK(*find_capacity(curve).capacity_per_second == 4.0);
    const auto r = find_capacity(curve, {.rule = capacity_rule::lower_bound});
    CHECK(*r.capacity_per_second == 3.0);
    CHECK(*r.confident_per_second == 3.0);
    CHECK(*r.plausible_per_second == 4.0);
    // A rise whose intervals overlap is noise; one whose intervals are disjoint is real.
    const std::vector<capacity_point> noisy{
        {.rate_per_second = 1.0, .conformance = at(0.90, 0.85, 0.95)},
        {.rate_per_second = 2.0, .conformance = at(0.92, 0.87, 0.97)}};
    CHECK(find_capacity(noisy).monotone_within_noise);
    const std::vector<capacity_point> real{
        {.rate_per_second = 1.0, .conformance = at(0.80, 0.78, 0.82)},
        {.rate_per_second = 2.0, .conformance = at(0.92, 0.90, 0.94)}};
    CHECK_FALSE(find_capacity(real).monotone_within_noise);
  }

  TEST_CASE("capacity: the search narrows around points it cannot decide") {
    // Same measure as the test above (exact M/M/1 shares as 1e5 counts, Wilson's ±0.0019):
    // with the default policy the search keeps undecided rates inside the bracket and
    // bisects on both sides of them, so the bracket ends within tolerance of the undecided
    // zone, around μ* = 10 − ln 10 = 7.6974.
    const double mu = 10.0;
    const double expected = mu - std::log(10.0);
    auto measure = [&](double lambda) {
      const auto k = static_cast<std::size_t>(std::llround(mm1_conformance(lambda, mu, 1.0) * 1e5));
      return conformance_from_counts({.successes = k, .trials = 100000});
    };
    const auto r = search_capacity(measure, {.rate_low_per_second = 1.0,
                                             .rate_high_per_second = 2.0,
                                             .relative_tolerance = 1e-3,
                                             .max_measurements = 100});
    CHECK(r.bracket_low_per_second < expected);
    CHECK(r.bracket_high_per_second > expected);
    // Near μ* conformance falls by τ·e^{−(μ−λ)τ} = 0.1 per req/s, so the undecided zone is
    // about ±0.0019/0.1 = ±0.02 req/s: the bracket is that zone plus a tolerance each side.
    CHECK(r.bracket_high_per_second - r.bracket_low_per_second < 0.06);
    CHECK(r.reason == search_stop::undecided);
    CHECK(r.confidence == doctest::Approx(0.95).epsilon(1e-4));
    CHECK(r.runs == r.measured.size());  // measure(double): one run per rate
    CHECK(r.requests == 100000 * r.runs);
    // The reported μ* passed: its lower bound reaches q.
    for (const auto& p : r.measured)
      if (p.rate_per_second == *r.capacity_per_second) CHECK(p.conformance.lower >= 0.9);
  }

  TEST_CASE("capacity: the search measures an undecided rate again and pools the runs") {
    // A measure taking capacity_probe: each run is 1000 independent requests whose count
    // follows the exact M/M/1 share (μ = 10, τ = 1 s) plus a seeded binomial draw. At
    // λ = 7.6 (true 0.9075) one run's Wilson half-width is ~0.018: undecided; the search
    // runs it again, up to max_runs_per_rate, and pools.
    const double mu = 10.0;
    std::mt19937_64 engine(17);
    std::vector<std::size_t> runs_seen;
    auto measure = [&](capacity_probe p) {
      runs_seen.push_back(p.run);
      // 1000 Bernoulli draws from the engine's raw bits (the same on every standard library).
      const double share = mm1_conformance(p.rate_per_second, mu, 1.0);
      std::size_t met = 0;
      for (int i = 0; i < 1000; ++i)
        if (static_cast<double>(engine() >> 11) * 0x1.0p-53 < share) ++met;
      auto e = conformance_from_counts({.successes = met, .trials = 1000});
      e.discarded = 100;
      return e;
    };
    const auto r = search_capacity(measure, {.rate_low_per_second = 7.6,
                                             .rate_high_per_second = 9.0,
                                             .relative_tolerance = 0.01,
                                             .max_measurements = 40,
                                             .max_runs_per_rate = 5});
    REQUIRE_FALSE(r.measured.empty());
    CHECK(r.measured.front().rate_per_second == 7.6);
    // The first rate took several runs (run indices 0, 1, … in order), pooled into one point.
    std::size_t first_runs = 0;
    while (first_runs < runs_seen.size() && runs_seen[first_runs] == first_runs) ++first_runs;
    CHECK(first_runs >= 2);
    CHECK(first_runs <= 5);
    CHECK(r.measured.front().conformance.n == 1000 * first_runs);
    CHECK(r.runs == runs_seen.size());
    CHECK(r.requests == 1100 * r.runs);
    // A request budget stops the measuring: 2500 requests = three runs of 1100 at most.
    runs_seen.clear();
    const auto short_of_budget = search_capacity(measure, {.rate_low_per_second = 7.6,
                                                           .rate_high_per_second = 9.0,
                                                           .max_runs_per_rate = 5,
                                                           .request_budget = 2500});
    CHECK(short_of_budget.runs <= 3);
    CHECK(short_of_budget.requests <= 3300);
  }
}

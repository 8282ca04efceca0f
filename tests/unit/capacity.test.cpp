// SPDX-License-Identifier: Apache-2.0
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;

// An outcome that meets TTFT 1 s and TPOT 0.1 s comfortably: TTFT 0.5 s, TPOT 0.05 s.
headroom::request_outcome good_at(double t) {
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

  TEST_CASE("capacity: SPEC's standard error at n = 200 is about two points") {
    // SPEC §1: sqrt(0.9·0.1/200) = sqrt(0.00045) = 0.0212.
    const auto e = conformance_from_counts(180, 200);
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
    const auto w = wilson_interval(180, 200);
    CHECK(w.lower == doctest::Approx(0.8505931).epsilon(1e-6));
    CHECK(w.upper == doctest::Approx(0.9343301).epsilon(1e-6));
    // 0 of 10: centre = half = (0.38416/20)/1.38416 = 0.1387701 → [0, 0.2775402].
    const auto none = wilson_interval(0, 10);
    CHECK(none.lower == doctest::Approx(0.0));
    CHECK(none.upper == doctest::Approx(0.2775402).epsilon(1e-6));
    // 10 of 10: the mirror image → [0.7224598, 1].
    const auto all = wilson_interval(10, 10);
    CHECK(all.lower == doctest::Approx(0.7224598).epsilon(1e-6));
    CHECK(all.upper == doctest::Approx(1.0));
    // The estimate carries the same interval.
    const auto e = conformance_from_counts(180, 200);
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
    CHECK(conformance_from_counts(0, 0).empty());
    CHECK_FALSE(exact_conformance(0.5).empty());
  }

  TEST_CASE("capacity: conformance rejects bad input") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
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
    CHECK_THROWS_AS((void)wilson_interval(0, 0), headroom::invalid_argument);
    CHECK_THROWS_AS((void)wilson_interval(5, 4), headroom::invalid_argument);
    CHECK_THROWS_AS((void)conformance_from_counts(5, 4), headroom::invalid_argument);
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
      curve.push_back({rate, exact_conformance(1.0 - rate / 40.0)});
    const auto grid = find_capacity(curve);
    REQUIRE(grid.capacity_per_s);
    CHECK(*grid.capacity_per_s == 3.0);
    CHECK(grid.saturated);
    CHECK(grid.monotone);
    const auto interpolated = find_capacity(curve, {.quota = 0.9, .interpolate = true});
    CHECK(*interpolated.capacity_per_s == doctest::Approx(4.0));
    // q = 0.8: every point passes; μ* is only known to be >= 7.
    const auto all_pass = find_capacity(curve, {.quota = 0.8});
    CHECK(*all_pass.capacity_per_s == 7.0);
    CHECK_FALSE(all_pass.saturated);
    // q = 0.99: nothing passes.
    CHECK_FALSE(find_capacity(curve, {.quota = 0.99}).capacity_per_s);
  }

  TEST_CASE("capacity: the Wilson-lower-bound rule is the conservative μ*") {
    // 930/1000 → Wilson lower 0.9125 (passes both rules); 910/1000 → share 0.91 but lower
    // (0.91 + 0.0019208)/1.0038416 − 1.96·sqrt(0.0000819 + 0.00000096)/1.0038416
    // = 0.908431 − 0.017773 = 0.890658 < 0.9; 850/1000 fails both.
    const std::vector<capacity_point> curve{{3.0, conformance_from_counts(930, 1000)},
                                            {4.0, conformance_from_counts(910, 1000)},
                                            {5.0, conformance_from_counts(850, 1000)}};
    CHECK(*find_capacity(curve).capacity_per_s == 4.0);
    CHECK(*find_capacity(curve, {.rule = capacity_rule::wilson_lower_bound}).capacity_per_s == 3.0);
  }

  TEST_CASE("capacity: a curve that rises with λ is flagged") {
    // Noise-sized rise: 0.95 → 0.97 on 100 requests each (intervals overlap).
    const std::vector<capacity_point> noisy{{1.0, conformance_from_counts(99, 100)},
                                            {2.0, conformance_from_counts(95, 100)},
                                            {3.0, conformance_from_counts(97, 100)},
                                            {4.0, conformance_from_counts(50, 100)}};
    const auto r = find_capacity(noisy);
    CHECK_FALSE(r.monotone);
    CHECK(r.monotone_within_noise);
    CHECK(*r.first_rise_per_s == 3.0);
    CHECK(*r.capacity_per_s == 3.0);  // SPEC's max{λ : conformance >= q}
    // A real rise: 0.80 → 0.95 on 10000 requests each.
    const std::vector<capacity_point> real{{1.0, conformance_from_counts(8000, 10000)},
                                           {2.0, conformance_from_counts(9500, 10000)}};
    CHECK_FALSE(find_capacity(real).monotone_within_noise);
    // An empty point counts as failing and is counted.
    const std::vector<capacity_point> holes{{1.0, conformance_from_counts(99, 100)},
                                            {2.0, conformance_from_counts(0, 0)}};
    const auto h = find_capacity(holes);
    CHECK(h.empty_points == 1);
    CHECK(*h.capacity_per_s == 1.0);
    CHECK(h.saturated);
  }

  TEST_CASE("capacity: the curve rejects bad input") {
    const std::vector<capacity_point> empty;
    CHECK_THROWS_AS((void)find_capacity(empty), headroom::invalid_argument);
    const std::vector<capacity_point> curve{{1.0, exact_conformance(0.95)}};
    CHECK_THROWS_AS((void)find_capacity(curve, {.quota = 1.0}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)find_capacity(curve, {.quota = 0.0}), headroom::invalid_argument);
    const std::vector<capacity_point> zero_rate{{0.0, exact_conformance(0.95)}};
    CHECK_THROWS_AS((void)find_capacity(zero_rate), headroom::invalid_argument);
    const std::vector<capacity_point> twice{{1.0, exact_conformance(0.95)},
                                            {1.0, exact_conformance(0.90)}};
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
        measure, {.rate_low_per_s = 1.0, .rate_high_per_s = 2.0, .relative_tolerance = tolerance});
    CHECK(r.reason == search_stop::converged);
    REQUIRE(r.capacity_per_s);
    CHECK(r.bracket_low_per_s <= expected);
    CHECK(r.bracket_high_per_s > expected);
    CHECK(expected - *r.capacity_per_s <= tolerance * *r.capacity_per_s);
    CHECK(r.measured.size() == calls);
    // Started above μ*: it steps down, then bisects.
    const auto from_above = search_capacity(
        measure, {.rate_low_per_s = 9.0, .rate_high_per_s = 9.5, .relative_tolerance = tolerance});
    CHECK(from_above.reason == search_stop::converged);
    CHECK(std::abs(*from_above.capacity_per_s - expected) <= tolerance * expected);
    // The curve it measured gives the same μ* through find_capacity.
    CHECK(*find_capacity(r.measured).capacity_per_s == *r.capacity_per_s);
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
      return conformance_from_counts(k, n);
    };
    const auto r = search_capacity(measure, {.rate_low_per_s = 1.0,
                                             .rate_high_per_s = 2.0,
                                             .relative_tolerance = 1e-6,
                                             .max_measurements = 100});
    CHECK(r.reason == search_stop::undecided);
    CHECK(r.bracket_low_per_s < expected);
    CHECK(r.bracket_high_per_s > expected);
    // The undecided point is reported too, and lies between the bracket's ends.
    const double last = r.measured.back().rate_per_s;
    CHECK(last > r.bracket_low_per_s);
    CHECK(last < r.bracket_high_per_s);
    // Treating undecided points as failing goes on to the tolerance (conservative side).
    const auto conservative =
        search_capacity(measure, {.rate_low_per_s = 1.0,
                                  .rate_high_per_s = 2.0,
                                  .relative_tolerance = 1e-3,
                                  .when_undecided = undecided_policy::treat_as_failing});
    CHECK(conservative.reason == search_stop::converged);
    CHECK(*conservative.capacity_per_s < expected);
  }

  TEST_CASE("capacity: the search reports a curve that never saturates or never passes") {
    const auto always =
        search_capacity([](double) { return 1.0; },
                        {.rate_low_per_s = 1.0, .rate_high_per_s = 2.0, .max_measurements = 5});
    CHECK(always.reason == search_stop::never_saturated);
    CHECK(*always.capacity_per_s == 16.0);  // 1, 2, 4, 8, 16
    CHECK(always.bracket_high_per_s == std::numeric_limits<double>::infinity());
    const auto never =
        search_capacity([](double) { return 0.0; },
                        {.rate_low_per_s = 1.0, .rate_high_per_s = 2.0, .max_measurements = 4});
    CHECK(never.reason == search_stop::no_passing_rate);
    CHECK_FALSE(never.capacity_per_s);
    CHECK(never.bracket_high_per_s == 0.125);  // 1, 1/2, 1/4, 1/8 all failed
    CHECK(never.measured.size() == 4);
    auto ok = [](double) { return 1.0; };
    CHECK_THROWS_AS((void)search_capacity(ok, {.quota = 1.5}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.rate_low_per_s = 0.0}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.rate_low_per_s = 2.0, .rate_high_per_s = 1.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.growth_factor = 1.0}), headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.relative_tolerance = 0.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS((void)search_capacity(ok, {.max_measurements = 1}), headroom::invalid_argument);
  }

  TEST_CASE("capacity: from capacity to control / L* ≈ 51 for SPEC's numbers") {
    // SPEC §2: μ* = 8, ρ* = 0.8, W̄ = 8 s → L* = 0.8·8·8 = 51.2 in flight per replica.
    CHECK(target_concurrency(0.8, 8.0, 8s) == doctest::Approx(51.2));
    // SPEC §2: 60 req/s on replicas of capacity 8 at ρ* = 1: ceil(7.5) = 8 replicas.
    CHECK(replicas_needed(60.0, 1.0, 8.0) == 8);
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
      curve.push_back({rate, measure_conformance(outcomes, objective, {.warm_up = warm_up})});
    }
    const auto r = find_capacity(curve);
    REQUIRE(r.capacity_per_s);
    CHECK(*r.capacity_per_s == 7.0);
    CHECK(r.monotone);
    const auto interpolated = find_capacity(curve, {.interpolate = true});
    CHECK(std::abs(*interpolated.capacity_per_s - 7.59) < 0.15);
  }
}

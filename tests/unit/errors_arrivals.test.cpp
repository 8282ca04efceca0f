// SPDX-License-Identifier: Apache-2.0
// The error policy of arrivals.hpp (docs/errors.md): one TEST_CASE per row of its table.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <headroom/arrivals.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::arrivals;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: arrivals constant-rate samplers and schedules") {
    std::mt19937_64 engine(1);
    CHECK_REJECTS(exponential_gaps(not_a_number), "rate_per_second");
    CHECK_REJECTS(exponential_gaps(0.0), "rate_per_second");
    CHECK_REJECTS(constant_gaps(-1.0), "rate_per_second");
    CHECK_REJECTS(poisson_schedule(inf, 3, engine), "rate_per_second");
    CHECK_REJECTS(constant_schedule(0.0, 3), "rate_per_second");
    CHECK_REJECTS(poisson_schedule(1.0, 3, engine, nan_s), "start");
    CHECK_REJECTS(constant_schedule(1.0, 3, inf_s), "start");
    CHECK_REJECTS(constant_schedule(1.0, static_cast<std::size_t>(-1)), "count");
    CHECK(constant_schedule(1.0, 0).empty());  // zero arrivals asked, zero given
  }

  TEST_CASE("errors: arrivals gamma_gaps") {
    std::mt19937_64 engine(1);
    CHECK_REJECTS((gamma_gaps({.rate_per_second = not_a_number, .cv = 1.0})), "rate_per_second");
    CHECK_REJECTS((gamma_gaps({.rate_per_second = 1.0, .cv = -1.0})), "cv");
    CHECK_REJECTS((gamma_gaps({.rate_per_second = 1.0, .cv = inf})), "cv");
    CHECK_REJECTS((gamma_gaps({.rate_per_second = 1.0, .cv = 1e200})),
                  "cv");  // shape 1/cv^2 underflows to 0
    CHECK_REJECTS((gamma_gaps({.rate_per_second = 1.0, .cv = 1e-170})),
                  "cv");  // shape 1/cv^2 overflows
    CHECK_REJECTS((gamma_gaps::from_burstiness({.rate_per_second = 1.0, .burstiness = 0.0})),
                  "burstiness");
    CHECK_REJECTS((gamma_gaps::from_burstiness({.rate_per_second = 1.0, .burstiness = 1e-320})),
                  "burstiness");
    CHECK_REJECTS((gamma_schedule({.rate_per_second = 1.0, .cv = not_a_number}, 3, engine)), "cv");
    CHECK(std::isfinite(gamma_gaps({.rate_per_second = 1.0, .cv = 1e150})(engine).count()));
    CHECK(std::isfinite(gamma_gaps({.rate_per_second = 1.0, .cv = 1e-150})(engine).count()));
  }

  TEST_CASE("errors: arrivals open_loop_schedule and vllm_rescaled_schedule") {
    std::mt19937_64 engine(1);
    const exponential_gaps gaps(1.0);
    CHECK_REJECTS(open_loop_schedule(gaps, 3, engine, nan_s), "start");
    CHECK_REJECTS(open_loop_schedule(gaps, static_cast<std::size_t>(-1), engine), "count");
    CHECK(open_loop_schedule(gaps, 0, engine).empty());
    CHECK(vllm_rescaled_schedule(gaps, 0, engine).empty());
  }

  TEST_CASE("errors: arrivals linear_ramp_schedule") {
    std::mt19937_64 engine(1);
    CHECK_REJECTS(
        (linear_ramp_schedule(
            {.rate_begin_per_second = not_a_number, .rate_end_per_second = 1.0, .duration = 60s},
            engine)),
        "rate_begin_per_second");
    CHECK_REJECTS(
        (linear_ramp_schedule(
            {.rate_begin_per_second = 1.0, .rate_end_per_second = -1.0, .duration = 60s}, engine)),
        "rate_end_per_second");
    CHECK_REJECTS(
        (linear_ramp_schedule(
            {.rate_begin_per_second = 1.0, .rate_end_per_second = 1.0, .duration = 0s}, engine)),
        "duration");
    CHECK_REJECTS(
        (linear_ramp_schedule(
            {.rate_begin_per_second = 1.0, .rate_end_per_second = 1.0, .duration = inf_s}, engine)),
        "duration");
    CHECK_REJECTS(
        (linear_ramp_schedule(
            {.rate_begin_per_second = 0.0, .rate_end_per_second = 0.0, .duration = 60s}, engine)),
        "rate_end_per_second");
    CHECK_REJECTS((linear_ramp_schedule({.rate_begin_per_second = 1e300,
                                         .rate_end_per_second = 1e300,
                                         .duration = seconds_d(1e300)},
                                        engine)),
                  "duration");
  }

  TEST_CASE("errors: arrivals replay_schedule and observed_rate_per_second") {
    const std::vector<seconds_d> empty{};
    const std::vector<seconds_d> with_nan{0s, nan_s};
    const std::vector<seconds_d> unsorted{2s, 1s};
    const std::vector<seconds_d> single{5s};
    CHECK_REJECTS(replay_schedule(empty), "trace.size()");
    CHECK_REJECTS(replay_schedule(with_nan), "trace[i]");
    CHECK_REJECTS(replay_schedule(unsorted), "trace[i]");
    CHECK_REJECTS(replay_schedule(single, 0.0), "target_rate_per_second");
    CHECK_REJECTS(replay_schedule(single, 1.0), "trace.size()");
    CHECK_REJECTS(observed_rate_per_second(single), "schedule.size()");
    CHECK_REJECTS(observed_rate_per_second(empty), "trace.size()");
  }

  TEST_CASE("errors: arrivals closed_loop_population") {
    CHECK_REJECTS(closed_loop_population(0, 1s), "users");
    CHECK_REJECTS(closed_loop_population(3, nan_s), "mean_think_time");
    CHECK_REJECTS(closed_loop_population(3, -1s), "mean_think_time");
    CHECK_REJECTS(closed_loop_population(3, 1s, -1.0), "think_cv");
    CHECK_REJECTS(closed_loop_population(3, 1s, 1e200), "think_cv");
    const closed_loop_population idle(3, 0s);
    CHECK_REJECTS(idle.offered_rate_per_second(seconds_d(not_a_number)), "mean_sojourn");
    CHECK_REJECTS(idle.offered_rate_per_second(-1s), "mean_sojourn");
    CHECK_REJECTS(idle.offered_rate_per_second(0s), "mean_sojourn");  // W + Z = 0
  }
}

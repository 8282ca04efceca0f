// SPDX-License-Identifier: Apache-2.0
// The error policy of queueing.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/queueing.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::queueing;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: queueing littles_law_in_flight") {
    CHECK_REJECTS(littles_law_in_flight(not_a_number, 1s), "rate_per_second");
    CHECK_REJECTS(littles_law_in_flight(inf, 1s), "rate_per_second");
    CHECK_REJECTS(littles_law_in_flight(-1.0, 1s), "rate_per_second");
    CHECK_REJECTS(littles_law_in_flight(1.0, nan_s), "sojourn");
    CHECK_REJECTS(littles_law_in_flight(1.0, -1s), "sojourn");
    CHECK(littles_law_in_flight(0.0, 0s) == 0.0);
  }

  TEST_CASE("errors: queueing littles_law_rate") {
    CHECK_REJECTS(littles_law_rate(not_a_number, 1s), "in_flight");
    CHECK_REJECTS(littles_law_rate(-inf, 1s), "in_flight");
    CHECK_REJECTS(littles_law_rate(-1.0, 1s), "in_flight");
    CHECK_REJECTS(littles_law_rate(1.0, inf_s), "sojourn");
    CHECK_REJECTS(littles_law_rate(1.0, 0s), "sojourn");
    CHECK_REJECTS(littles_law_rate(1.0, -1s), "sojourn");
  }

  TEST_CASE("errors: queueing littles_law_sojourn") {
    CHECK_REJECTS((littles_law_sojourn({.in_flight = not_a_number, .rate_per_second = 1.0})),
                  "in_flight");
    CHECK_REJECTS((littles_law_sojourn({.in_flight = -1.0, .rate_per_second = 1.0})), "in_flight");
    CHECK_REJECTS((littles_law_sojourn({.in_flight = 1.0, .rate_per_second = inf})),
                  "rate_per_second");
    CHECK_REJECTS((littles_law_sojourn({.in_flight = 1.0, .rate_per_second = 0.0})),
                  "rate_per_second");
    CHECK_REJECTS((littles_law_sojourn({.in_flight = 1.0, .rate_per_second = -2.0})),
                  "rate_per_second");
  }

  TEST_CASE("errors: queueing in_flight_per_replica") {
    CHECK_REJECTS(in_flight_per_replica(not_a_number, 1s, 1), "rate_per_second");
    CHECK_REJECTS(in_flight_per_replica(-1.0, 1s, 1), "rate_per_second");
    CHECK_REJECTS(in_flight_per_replica(1.0, nan_s, 1), "sojourn");
    CHECK_REJECTS(in_flight_per_replica(1.0, 1s, 0), "replicas");
    CHECK_REJECTS(in_flight_per_replica(1.0, 1s, -3), "replicas");
  }

  TEST_CASE("errors: queueing target_concurrency") {
    CHECK_REJECTS(
        (target_concurrency(
            {.target_utilization = not_a_number, .capacity_per_second = 8.0, .mean_sojourn = 1s})),
        "target_utilization");
    CHECK_REJECTS((target_concurrency(
                      {.target_utilization = 0.0, .capacity_per_second = 8.0, .mean_sojourn = 1s})),
                  "target_utilization");
    CHECK_REJECTS((target_concurrency(
                      {.target_utilization = 1.2, .capacity_per_second = 8.0, .mean_sojourn = 1s})),
                  "target_utilization");
    CHECK_REJECTS((target_concurrency(
                      {.target_utilization = 0.8, .capacity_per_second = inf, .mean_sojourn = 1s})),
                  "capacity_per_second");
    CHECK_REJECTS((target_concurrency(
                      {.target_utilization = 0.8, .capacity_per_second = 0.0, .mean_sojourn = 1s})),
                  "capacity_per_second");
    CHECK_REJECTS(
        (target_concurrency(
            {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = -1s})),
        "mean_sojourn");
  }

  TEST_CASE("errors: queueing replicas_needed") {
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = not_a_number,
                                    .target_utilization = 0.8,
                                    .capacity_per_second = 8.0})),
                  "arrival_rate_per_second");
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = -1.0,
                                    .target_utilization = 0.8,
                                    .capacity_per_second = 8.0})),
                  "arrival_rate_per_second");
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = 1.0,
                                    .target_utilization = 0.0,
                                    .capacity_per_second = 8.0})),
                  "target_utilization");
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = 1.0,
                                    .target_utilization = 1.5,
                                    .capacity_per_second = 8.0})),
                  "target_utilization");
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = 1.0,
                                    .target_utilization = 0.8,
                                    .capacity_per_second = 0.0})),
                  "capacity_per_second");
    CHECK_REJECTS((replicas_needed({.arrival_rate_per_second = 1e300,
                                    .target_utilization = 0.8,
                                    .capacity_per_second = 1e-10})),
                  "arrival_rate_per_second");  // count > 2^62
    CHECK(replicas_needed({.arrival_rate_per_second = 0.0,
                           .target_utilization = 0.8,
                           .capacity_per_second = 8.0}) == 0);
    // No traffic needs no replica, even where rho x capacity underflows (0/0 was NaN).
    CHECK(replicas_needed({.arrival_rate_per_second = 0.0,
                           .target_utilization = 1e-300,
                           .capacity_per_second = 1e-300}) == 0);
  }

  TEST_CASE("errors: queueing conformance_standard_error") {
    CHECK_REJECTS(conformance_standard_error(not_a_number, 10), "conformance");
    CHECK_REJECTS(conformance_standard_error(1.1, 10), "conformance");
    CHECK_REJECTS(conformance_standard_error(-0.1, 10), "conformance");
    CHECK_REJECTS(conformance_standard_error(0.9, 0), "samples");
  }

  TEST_CASE("errors: queueing conformance_samples_needed") {
    CHECK_REJECTS(
        (conformance_samples_needed({.conformance = not_a_number, .standard_error = 0.01})),
        "conformance");
    CHECK_REJECTS((conformance_samples_needed({.conformance = 2.0, .standard_error = 0.01})),
                  "conformance");
    CHECK_REJECTS((conformance_samples_needed({.conformance = 0.9, .standard_error = 0.0})),
                  "standard_error");
    CHECK_REJECTS((conformance_samples_needed({.conformance = 0.9, .standard_error = -0.1})),
                  "standard_error");
    CHECK_REJECTS((conformance_samples_needed({.conformance = 0.5, .standard_error = 1e-200})),
                  "standard_error");  // count > 2^62
    CHECK(conformance_samples_needed({.conformance = 0.0, .standard_error = 1e-200}) ==
          0);  // q(1 - q) = 0: 0/0 was NaN
  }

  TEST_CASE("errors: queueing closed_loop rate") {
    CHECK_REJECTS((closed_loop{.users = not_a_number, .think_time = 1s}.rate(1s)), "users");
    CHECK_REJECTS((closed_loop{.users = -1.0, .think_time = 1s}.rate(1s)), "users");
    CHECK_REJECTS((closed_loop{.users = 1.0, .think_time = 1s}.rate(nan_s)), "sojourn");
    CHECK_REJECTS((closed_loop{.users = 1.0, .think_time = -1s}.rate(1s)), "think_time");
    CHECK_REJECTS((closed_loop{.users = 1.0, .think_time = 0s}.rate(0s)), "sojourn");
    // W + Z past the double range: N/(W + Z) = 1e300 / (2 x 1e308) = 5e-9, not 0.
    CHECK(closed_loop{.users = 1e300, .think_time = seconds_d(1e308)}.rate(seconds_d(1e308)) ==
          doctest::Approx(5e-9).epsilon(1e-12));
  }

  TEST_CASE("errors: queueing closed_loop response_time") {
    CHECK_REJECTS((closed_loop{.users = not_a_number, .think_time = 1s}.response_time(1.0)),
                  "users");
    CHECK_REJECTS((closed_loop{.users = 1.0, .think_time = 1s}.response_time(0.0)),
                  "rate_per_second");
    CHECK_REJECTS((closed_loop{.users = 1.0, .think_time = inf_s}.response_time(1.0)),
                  "think_time");
    CHECK_REJECTS((closed_loop{.users = 10.0, .think_time = 1s}.response_time(100.0)),
                  "rate_per_second");  // > N/Z
  }

  TEST_CASE("errors: queueing mm1_queue stability and means") {
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = not_a_number, .service_rate_per_second = 1.0}
             .is_stable()),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = -1.0, .service_rate_per_second = 1.0}.utilization()),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0}.mean_sojourn()),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = inf}.mean_wait()),
        "service_rate_per_second");
    CHECK_REJECTS((mm1_queue{.arrival_rate_per_second = inf, .service_rate_per_second = 1.0}
                       .mean_in_system()),
                  "arrival_rate_per_second");
    CHECK_REJECTS((mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = -1.0}
                       .mean_queue_length()),
                  "service_rate_per_second");
    // Unstable (λ >= μ): a value, never an exception.
    CHECK_FALSE(
        mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}.is_stable());
    CHECK(mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}.utilization() ==
          2.0);
    CHECK(std::isinf(mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0}
                         .mean_sojourn()
                         .count()));
    CHECK(std::isinf(mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}
                         .mean_wait()
                         .count()));
    CHECK(std::isinf(mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}
                         .mean_in_system()));
    CHECK(std::isinf(mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}
                         .mean_queue_length()));
  }

  TEST_CASE("errors: queueing mm1_queue conformances") {
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = not_a_number, .service_rate_per_second = 1.0}
             .sojourn_conformance(1s)),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0}.wait_conformance(
            1s)),
        "service_rate_per_second");
    CHECK_REJECTS((mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0}
                       .sojourn_conformance(-1s)),
                  "threshold");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0}.wait_conformance(
            nan_s)),
        "threshold");
    CHECK(mm1_queue{.arrival_rate_per_second = 3.0, .service_rate_per_second = 2.0}
              .sojourn_conformance(1s) == 0.0);
    CHECK(
        mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 2.0}.wait_conformance(
            1s) == 0.0);
  }

  TEST_CASE("errors: queueing mm1_queue sojourn_quantile") {
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = not_a_number, .service_rate_per_second = 2.0}
             .sojourn_quantile(0.9)),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0}.sojourn_quantile(
            0.9)),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0}.sojourn_quantile(
            1.0)),
        "quota");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0}.sojourn_quantile(
            0.0)),
        "quota");
    CHECK_REJECTS(
        (mm1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0}.sojourn_quantile(
            not_a_number)),
        "quota");
    CHECK(std::isinf(mm1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 2.0}
                         .sojourn_quantile(0.9)
                         .count()));
  }

  TEST_CASE("errors: queueing mm1_capacity") {
    CHECK_REJECTS(
        (mm1_capacity({.service_rate_per_second = not_a_number, .threshold = 1s, .quota = 0.9})),
        "service_rate_per_second");
    CHECK_REJECTS((mm1_capacity({.service_rate_per_second = 0.0, .threshold = 1s, .quota = 0.9})),
                  "service_rate_per_second");
    CHECK_REJECTS((mm1_capacity({.service_rate_per_second = 10.0, .threshold = 0s, .quota = 0.9})),
                  "threshold");
    CHECK_REJECTS((mm1_capacity({.service_rate_per_second = 10.0, .threshold = 1s, .quota = 1.2})),
                  "quota");
    CHECK(mm1_capacity({.service_rate_per_second = 1.0, .threshold = 1s, .quota = 0.9}) ==
          0.0);  // even an idle server misses the quota
  }

  TEST_CASE("errors: queueing mm1_service_rate_needed") {
    CHECK_REJECTS((mm1_service_rate_needed(
                      {.arrival_rate_per_second = not_a_number, .threshold = 1s, .quota = 0.9})),
                  "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_service_rate_needed({.arrival_rate_per_second = -1.0, .threshold = 1s, .quota = 0.9})),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mm1_service_rate_needed({.arrival_rate_per_second = 1.0, .threshold = 0s, .quota = 0.9})),
        "threshold");
    CHECK_REJECTS(
        (mm1_service_rate_needed({.arrival_rate_per_second = 1.0, .threshold = 1s, .quota = -0.5})),
        "quota");
  }

  TEST_CASE("errors: queueing mm1_wait_capacity") {
    CHECK_REJECTS(
        (mm1_wait_capacity({.service_rate_per_second = inf, .threshold = 1s, .quota = 0.9})),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mm1_wait_capacity({.service_rate_per_second = 0.0, .threshold = 1s, .quota = 0.9})),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mm1_wait_capacity({.service_rate_per_second = 1.0, .threshold = -1s, .quota = 0.9})),
        "threshold");
    CHECK_REJECTS(
        (mm1_wait_capacity({.service_rate_per_second = 1.0, .threshold = 1s, .quota = 1.0})),
        "quota");
  }

  TEST_CASE("errors: queueing erlang_b and erlang_c") {
    CHECK_REJECTS((erlang_b({.servers = 0, .offered_load = 1.0})), "servers");
    CHECK_REJECTS((erlang_c({.servers = -1, .offered_load = 1.0})), "servers");
    CHECK_REJECTS((erlang_b({.servers = 1, .offered_load = not_a_number})), "offered_load");
    CHECK_REJECTS((erlang_c({.servers = 1, .offered_load = -1.0})), "offered_load");
    CHECK_REJECTS((erlang_b({.servers = 1, .offered_load = 1e300})),
                  "offered_load");                                // > 2^53 Erlangs
    CHECK(erlang_c({.servers = 2, .offered_load = 5.0}) == 1.0);  // unstable: always waits
  }

  TEST_CASE("errors: queueing mmc_queue stability and means") {
    CHECK_REJECTS(
        (mmc_queue{
            .arrival_rate_per_second = not_a_number, .service_rate_per_second = 1.0, .servers = 1}
             .is_stable()),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0, .servers = 1}
             .wait_probability()),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0, .servers = 0}
             .mean_wait()),
        "servers");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = -1.0, .service_rate_per_second = 1.0, .servers = 1}
             .mean_sojourn()),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = inf, .servers = 1}
             .mean_queue_length()),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1e300, .service_rate_per_second = 1e-10, .servers = 1}
             .wait_probability()),
        "arrival_rate_per_second");  // load > 2^53
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1e300, .service_rate_per_second = 1e-10, .servers = 1}
             .mean_wait()),
        "arrival_rate_per_second");
    CHECK_FALSE(
        mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
            .is_stable());
    CHECK(mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
              .wait_probability() == 1.0);
    CHECK(std::isinf(
        mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
            .mean_wait()
            .count()));
    CHECK(std::isinf(
        mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
            .mean_sojourn()
            .count()));
    CHECK(std::isinf(
        mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
            .mean_queue_length()));
  }

  TEST_CASE("errors: queueing mmc_queue wait_conformance") {
    CHECK_REJECTS(
        (mmc_queue{
            .arrival_rate_per_second = not_a_number, .service_rate_per_second = 1.0, .servers = 1}
             .wait_conformance(1s)),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0, .servers = 1}
             .wait_conformance(1s)),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0, .servers = 0}
             .wait_conformance(1s)),
        "servers");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0, .servers = 2}
             .wait_conformance(-1s)),
        "threshold");
    CHECK_REJECTS(
        (mmc_queue{.arrival_rate_per_second = 1e300, .service_rate_per_second = 1e-10, .servers = 2}
             .wait_conformance(1s)),
        "arrival_rate_per_second");
    CHECK(mmc_queue{.arrival_rate_per_second = 4.0, .service_rate_per_second = 1.0, .servers = 2}
              .wait_conformance(1s) == 0.0);
    // c x mu past the double range with a zero threshold (inf x 0 was NaN): lambda = max,
    // mu = max/1.5, a = 1.5 Erlangs, c = 2: B = (a^2/2)/(1 + a + a^2/2) = 9/29, C =
    // B/(1 - (a/c)(1 - B)) = 9/14, conformance 1 - C = 5/14.
    const double big = std::numeric_limits<double>::max();
    CHECK(mmc_queue{
              .arrival_rate_per_second = big, .service_rate_per_second = big / 1.5, .servers = 2}
              .wait_conformance(0s) == doctest::Approx(5.0 / 14.0));
    CHECK(mmc_queue{
              .arrival_rate_per_second = big, .service_rate_per_second = big / 1.5, .servers = 2}
              .mean_wait()
              .count() > 0.0);
  }

  TEST_CASE("errors: queueing mmc_servers_needed") {
    CHECK_REJECTS((mmc_servers_needed({.arrival_rate_per_second = not_a_number,
                                       .service_rate_per_second = 1.0,
                                       .threshold = 1s,
                                       .quota = 0.9})),
                  "arrival_rate_per_second");
    CHECK_REJECTS((mmc_servers_needed({.arrival_rate_per_second = 1.0,
                                       .service_rate_per_second = -1.0,
                                       .threshold = 1s,
                                       .quota = 0.9})),
                  "service_rate_per_second");
    CHECK_REJECTS((mmc_servers_needed({.arrival_rate_per_second = 1.0,
                                       .service_rate_per_second = 1.0,
                                       .threshold = nan_s,
                                       .quota = 0.9})),
                  "threshold");
    CHECK_REJECTS((mmc_servers_needed({.arrival_rate_per_second = 1.0,
                                       .service_rate_per_second = 1.0,
                                       .threshold = 1s,
                                       .quota = 1.0})),
                  "quota");
    CHECK_REJECTS((mmc_servers_needed({.arrival_rate_per_second = 1e300,
                                       .service_rate_per_second = 1e-10,
                                       .threshold = 1s,
                                       .quota = 0.9})),
                  "arrival_rate_per_second");
    CHECK(mmc_servers_needed({.arrival_rate_per_second = 0.0,
                              .service_rate_per_second = 1.0,
                              .threshold = 1s,
                              .quota = 0.9}) == 1);
    // The same overflow made every conformance NaN, so the search never ended. a = 1.5:
    // c = 2 conforms 5/14 < 0.5; c = 3: B = 9/67, C = 9/38, 1 - C = 29/38 >= 0.5.
    const double big = std::numeric_limits<double>::max();
    CHECK(mmc_servers_needed({.arrival_rate_per_second = big,
                              .service_rate_per_second = big / 1.5,
                              .threshold = 0s,
                              .quota = 0.5}) == 3);
  }

  TEST_CASE("errors: queueing mg1_queue means") {
    CHECK_REJECTS((mg1_queue{.arrival_rate_per_second = not_a_number,
                             .service_rate_per_second = 1.0,
                             .service_cv = 1.0}
                       .mean_wait()),
                  "arrival_rate_per_second");
    CHECK_REJECTS(
        (mg1_queue{
            .arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0, .service_cv = 1.0}
             .mean_sojourn()),
        "service_rate_per_second");
    CHECK_REJECTS(
        (mg1_queue{
            .arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0, .service_cv = -1.0}
             .mean_wait()),
        "service_cv");
    CHECK_REJECTS(
        (mg1_queue{
            .arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0, .service_cv = inf}
             .mean_sojourn()),
        "service_cv");
    CHECK(std::isinf(
        mg1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 2.0, .service_cv = 1.0}
            .mean_wait()
            .count()));
    CHECK(std::isinf(
        mg1_queue{.arrival_rate_per_second = 3.0, .service_rate_per_second = 2.0, .service_cv = 1.0}
            .mean_sojourn()
            .count()));
    CHECK(mg1_queue{.arrival_rate_per_second = 0.0,
                    .service_rate_per_second = 1e-300,
                    .service_cv = 1e300}
              .mean_wait()
              .count() == 0.0);  // no arrivals: rho 0 x cv^2 inf
    // rho (1 + cv^2) / (2 (mu - lambda)) = 0.5 x (1 + 1e200) / (2 x 1) = 2.5e199
    CHECK(mg1_queue{
              .arrival_rate_per_second = 1.0, .service_rate_per_second = 2.0, .service_cv = 1e100}
              .mean_wait()
              .count() == doctest::Approx(2.5e199));
  }

  TEST_CASE("errors: queueing md1_queue means") {
    CHECK_REJECTS(
        (md1_queue{.arrival_rate_per_second = -1.0, .service_rate_per_second = 1.0}.mean_wait()),
        "arrival_rate_per_second");
    CHECK_REJECTS(
        (md1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = not_a_number}
             .mean_sojourn()),
        "service_rate_per_second");
    CHECK_REJECTS((md1_queue{.arrival_rate_per_second = inf, .service_rate_per_second = 1.0}
                       .mean_queue_length()),
                  "arrival_rate_per_second");
    CHECK(std::isinf(md1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 1.0}
                         .mean_wait()
                         .count()));
    CHECK(std::isinf(md1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}
                         .mean_sojourn()
                         .count()));
    CHECK(std::isinf(md1_queue{.arrival_rate_per_second = 2.0, .service_rate_per_second = 1.0}
                         .mean_queue_length()));
  }

  TEST_CASE("errors: queueing md1_queue wait_conformance") {
    const md1_queue q{.arrival_rate_per_second = 5.0, .service_rate_per_second = 10.0};
    CHECK_REJECTS(q.wait_conformance(nan_s), "threshold");
    CHECK_REJECTS(q.wait_conformance(-1s), "threshold");
    CHECK_REJECTS(q.wait_conformance(inf_s), "threshold");
    CHECK_REJECTS((md1_queue{.arrival_rate_per_second = -1.0, .service_rate_per_second = 10.0}
                       .wait_conformance(1s)),
                  "arrival_rate_per_second");
    CHECK_REJECTS(
        (md1_queue{.arrival_rate_per_second = 1.0, .service_rate_per_second = 0.0}.wait_conformance(
            1s)),
        "service_rate_per_second");
    // A threshold whose series would keep fewer than 8 digits: refused, not answered.
    CHECK_REJECTS((md1_queue{.arrival_rate_per_second = 99.0, .service_rate_per_second = 100.0}
                       .wait_conformance(10s)),
                  "threshold");
    // Domain outcomes: unstable 0, no arrivals 1, t = 0 is 1 − ρ.
    CHECK(md1_queue{.arrival_rate_per_second = 20.0, .service_rate_per_second = 10.0}
              .wait_conformance(1s) == 0.0);
    CHECK(
        md1_queue{.arrival_rate_per_second = 0.0, .service_rate_per_second = 10.0}.wait_conformance(
            0s) == 1.0);
    CHECK(q.wait_conformance(0s) == doctest::Approx(0.5));
  }
}

// SPDX-License-Identifier: Apache-2.0
// The error policy (docs/errors.md), one TEST_CASE per row of its table: every public entry
// point fed each kind of bad input it can receive. A caller's mistake throws
// headroom::invalid_argument whose what() names the parameter ("name = value: rule"); a
// domain outcome is a value with a reason. Rows for autoscaler.hpp, scheduler*.hpp and
// sim/fleet_day.hpp pin today's behaviour; their known gaps are listed under the table.
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

#include <headroom/detail/checks.hpp>
#include <headroom/error.hpp>
#include <headroom/headroom.hpp>

#include <headroom/scheduler/archetypes.hpp>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using seconds_d = std::chrono::duration<double>;

using headroom::test::not_a_number;
constexpr double inf = headroom::test::infinity;
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
const seconds_d nan_s{not_a_number};
const seconds_d inf_s{inf};

}  // namespace

// Rejects the call with headroom::invalid_argument naming the parameter `name` (exactly: the
// field as the caller wrote it), with a what() that starts with "name = ". In both build
// modes (tests/support.hpp runs the call in a child process without exceptions).
#define CHECK_REJECTS(expr, name)                                                          \
  do {                                                                                     \
    const auto rejection = headroom::test::rejection_of([&] { static_cast<void>(expr); }); \
    CHECK(rejection.parameter == (name));                                                  \
    CHECK(std::string_view(rejection.message).starts_with(name " = "));                    \
  } while (false)

// The checks are usable in constant expressions when they pass.
static_assert(headroom::detail::require_positive("x", 3.0) == 3.0);
static_assert(headroom::detail::require_open_unit("q", 0.5) == 0.5);
static_assert(!headroom::detail::is_finite(std::numeric_limits<double>::infinity()));
static_assert(headroom::detail::is_nan(std::numeric_limits<double>::quiet_NaN()));

TEST_SUITE("errors") {
  // ---- error.hpp and detail/checks.hpp: the message and the checks -------------------------

  TEST_CASE("errors: invalid_argument names the parameter and the value") {
    const auto r = headroom::test::rejection_of(
        [] { headroom::detail::fail("quota", 1.5, "must lie in the open interval (0, 1)"); });
    CHECK(r.parameter == "quota");
    CHECK(r.message == "quota = 1.5: must lie in the open interval (0, 1)");
  }

  TEST_CASE("errors: invalid_argument is a std::invalid_argument") {
    CHECK_THROWS_AS(headroom::detail::fail("n", 3, "x"), std::invalid_argument);
  }

  TEST_CASE("errors: values render: NaN / infinities / integers / durations / strings / booleans") {
    auto message_of = [](auto value) {
      return headroom::test::rejection_message([&] { headroom::detail::fail("p", value, "r"); });
    };
    CHECK(message_of(std::numeric_limits<double>::quiet_NaN()) == "p = nan: r");
    CHECK(message_of(std::numeric_limits<double>::infinity()) == "p = inf: r");
    CHECK(message_of(-std::numeric_limits<double>::infinity()) == "p = -inf: r");
    CHECK(message_of(-7) == "p = -7: r");
    CHECK(message_of(std::chrono::milliseconds(1500)) == "p = 1.5 s: r");
    CHECK(message_of("abc") == "p = \"abc\": r");
    CHECK(message_of(true) == "p = true: r");
  }

  TEST_CASE(
      "errors: checks accept good values and reject NaN / infinities and out-of-range values") {
    using namespace headroom::detail;
    CHECK(require_positive("x", 2.0) == 2.0);
    CHECK_THROWS_AS(require_positive("x", 0.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_positive("x", not_a_number), headroom::invalid_argument);
    CHECK_THROWS_AS(require_positive("x", inf), headroom::invalid_argument);
    CHECK(require_non_negative("x", 0.0) == 0.0);
    CHECK_THROWS_AS(require_non_negative("x", -1e-300), headroom::invalid_argument);
    CHECK_THROWS_AS(require_finite("x", -inf), headroom::invalid_argument);
    CHECK(require_open_unit("q", 0.9) == 0.9);
    CHECK_THROWS_AS(require_open_unit("q", 1.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_open_unit("q", 0.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_open_unit("q", not_a_number), headroom::invalid_argument);
    CHECK(require_unit_positive("rho", 1.0) == 1.0);
    CHECK_THROWS_AS(require_unit_positive("rho", 0.0), headroom::invalid_argument);
    CHECK(require_unit("s", 0.0) == 0.0);
    CHECK_THROWS_AS(require_unit("s", 1.0000001), headroom::invalid_argument);
    CHECK(require_unit_below_one("d", 0.0) == 0.0);
    CHECK_THROWS_AS(require_unit_below_one("d", 1.0), headroom::invalid_argument);
  }

  // ---- queueing.hpp ------------------------------------------------------------------------

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

  // ---- coldstart.hpp -----------------------------------------------------------------------

  TEST_CASE("errors: coldstart slowest_channel") {
    const std::vector<double> with_nan{1e9, not_a_number};
    const std::vector<double> with_zero{1e9, 0.0};
    const std::vector<double> none{};
    CHECK_REJECTS(slowest_channel(with_nan), "bandwidths");
    CHECK_REJECTS(slowest_channel(with_zero), "bandwidths");
    CHECK_REJECTS((slowest_channel({1e9, -1.0})), "bandwidths");
    CHECK_REJECTS((slowest_channel({1e9, inf})), "bandwidths");
    CHECK_REJECTS(slowest_channel(none), "bandwidths");
    CHECK_REJECTS((slowest_channel(std::initializer_list<double>{})), "bandwidths");
  }

  TEST_CASE("errors: coldstart weight_load_time") {
    CHECK_REJECTS(
        (weight_load_time({.weight_bytes = not_a_number, .channel_bytes_per_second = 1e9})),
        "weight_bytes");
    CHECK_REJECTS((weight_load_time({.weight_bytes = -1.0, .channel_bytes_per_second = 1e9})),
                  "weight_bytes");
    CHECK_REJECTS((weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = 0.0})),
                  "channel_bytes_per_second");
    CHECK_REJECTS((weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = inf})),
                  "channel_bytes_per_second");
    CHECK_REJECTS(
        (weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = 1e9, .gpus = 0})),
        "gpus");
  }

  TEST_CASE("errors: coldstart tier_channel_bandwidth and tier_weight_load_time") {
    storage_bandwidths b = typical_storage_bandwidths();
    b.local_nvme = not_a_number;
    CHECK_REJECTS(tier_channel_bandwidth(b, storage_tier::local_nvme), "bandwidths.local_nvme");
    CHECK_REJECTS((tier_weight_load_time(
                      {.weight_bytes = 1e9, .bandwidths = b, .source = storage_tier::local_nvme})),
                  "bandwidths.local_nvme");
    b = typical_storage_bandwidths();
    b.host_memory = 0.0;  // every tier but peer_gpu crosses the host link
    CHECK_REJECTS(tier_channel_bandwidth(b, storage_tier::object_store), "bandwidths.host_memory");
    CHECK(tier_channel_bandwidth(b, storage_tier::peer_gpu) == 450e9);
    CHECK_REJECTS((tier_weight_load_time({.weight_bytes = -1.0,
                                          .bandwidths = typical_storage_bandwidths(),
                                          .source = storage_tier::peer_gpu})),
                  "weight_bytes");
  }

  TEST_CASE("errors: coldstart startup_breakdown") {
    startup_breakdown b{.machine = 1s, .image = 1s, .weights = 1s, .warmup = 1s};
    b.image = nan_s;
    CHECK_REJECTS(b.start_time(), "image");
    CHECK_REJECTS(b.largest_phase(), "image");
    b.image = -1s;
    CHECK_REJECTS(b.start_time(), "image");
    b.image = 1s;
    b.warmup = inf_s;
    CHECK_REJECTS(b.start_time(), "warmup");
  }

  TEST_CASE("errors: coldstart ramp_reserve") {
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = not_a_number,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "max_ramp_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = -1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "max_ramp_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = -1s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "start_time");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.0,
                                 .capacity_per_second = 8.0})),
                  "target_utilization");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 0.0})),
                  "capacity_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1e300,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 1e-10})),
                  "max_ramp_per_second");  // > 2^62
    CHECK(ramp_reserve({.max_ramp_per_second = 0.0,
                        .start_time = 60s,
                        .target_utilization = 1e-300,
                        .capacity_per_second = 1e-300}) == 0);  // rho x capacity underflow: 0/0
    // ramp x start past the double range, capacity as large: 1e160 x 1e160 / 1e308 = 1e12.
    CHECK(ramp_reserve({.max_ramp_per_second = 1e160,
                        .start_time = seconds_d(1e160),
                        .target_utilization = 1.0,
                        .capacity_per_second = 1e308}) == 1'000'000'000'000);
  }

  TEST_CASE("errors: coldstart step_reserve and reserve_covers_step") {
    CHECK_REJECTS((step_reserve({.step_rate_per_second = not_a_number,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "step_rate_per_second");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = -1.0, .target_utilization = 0.8, .capacity_per_second = 8.0})),
        "step_rate_per_second");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = 1.0, .target_utilization = 1.5, .capacity_per_second = 8.0})),
        "target_utilization");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = 1.0, .target_utilization = 0.8, .capacity_per_second = -8.0})),
        "capacity_per_second");
    CHECK_REJECTS((step_reserve({.step_rate_per_second = 1e300,
                                 .target_utilization = 0.5,
                                 .capacity_per_second = 1e-10})),
                  "step_rate_per_second");  // > 2^62
    CHECK_REJECTS((reserve_covers_step({.step_rate_per_second = 1e300,
                                        .target_utilization = 0.5,
                                        .capacity_per_second = 1e-10},
                                       1)),
                  "step_rate_per_second");
    CHECK_REJECTS(
        (reserve_covers_step(
            {.step_rate_per_second = 1.0, .target_utilization = 0.8, .capacity_per_second = 8.0},
            -1)),
        "spare_replicas");
    CHECK(step_reserve({.step_rate_per_second = 0.0,
                        .target_utilization = 1e-300,
                        .capacity_per_second = 1e-300}) == 0);
  }

  TEST_CASE("errors: coldstart step_uncovered_time") {
    CHECK_REJECTS((step_uncovered_time({.start_time = nan_s})), "start_time");
    CHECK_REJECTS((step_uncovered_time({.start_time = -1s})), "start_time");
    CHECK_REJECTS((step_uncovered_time({.start_time = 60s, .look_ahead = inf_s})), "look_ahead");
    CHECK_REJECTS((step_uncovered_time({.start_time = 60s, .look_ahead = -1s})), "look_ahead");
  }

  TEST_CASE("errors: coldstart decide_scale_to_zero") {
    const scale_to_zero_inputs good{
        .idle_period = 3600s, .start_time = 120s, .ttft_promise = 500ms, .warm_ttft = 100ms};
    auto in = good;
    in.idle_period = nan_s;
    CHECK_REJECTS(decide_scale_to_zero(in), "idle_period");
    in = good;
    in.start_time = -1s;
    CHECK_REJECTS(decide_scale_to_zero(in), "start_time");
    in = good;
    in.ttft_promise = 0s;
    CHECK_REJECTS(decide_scale_to_zero(in), "ttft_promise");
    in = good;
    in.warm_ttft = inf_s;
    CHECK_REJECTS(decide_scale_to_zero(in), "warm_ttft");
    in = good;
    in.min_idle_to_start_ratio = 0.0;
    CHECK_REJECTS(decide_scale_to_zero(in), "min_idle_to_start_ratio");
    in = good;
    in.cold_request_share = 1.5;
    CHECK_REJECTS(decide_scale_to_zero(in), "cold_request_share");
    in = good;
    in.ttft_miss_budget = 1.0;
    CHECK_REJECTS(decide_scale_to_zero(in), "ttft_miss_budget");
    // A domain outcome: keep one warm, with the reason.
    const auto d = decide_scale_to_zero(good);
    CHECK_FALSE(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::ttft_promise_broken);
  }

  // ---- cost.hpp ----------------------------------------------------------------------------

  TEST_CASE("errors: cost replica_token_rate") {
    CHECK_REJECTS(
        (replica_token_rate({.capacity_per_second = not_a_number, .mean_output_tokens = 320.0})),
        "capacity_per_second");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 0.0, .mean_output_tokens = 320.0})),
                  "capacity_per_second");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 8.0, .mean_output_tokens = -1.0})),
                  "mean_output_tokens");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 8.0, .mean_output_tokens = inf})),
                  "mean_output_tokens");
  }

  TEST_CASE("errors: cost tokens_per_hour") {
    CHECK_REJECTS(tokens_per_hour(not_a_number), "tokens_per_second");
    CHECK_REJECTS(tokens_per_hour(-1.0), "tokens_per_second");
    CHECK_REJECTS(tokens_per_hour(inf), "tokens_per_second");
  }

  TEST_CASE("errors: cost mean_utilization") {
    CHECK_REJECTS((mean_utilization({.served = not_a_number, .servable = 1.0})), "served");
    CHECK_REJECTS((mean_utilization({.served = -1.0, .servable = 1.0})), "served");
    CHECK_REJECTS((mean_utilization({.served = 1.0, .servable = 0.0})), "servable");
    CHECK_REJECTS((mean_utilization({.served = 2.0, .servable = 1.0})),
                  "served");  // served > servable
  }

  TEST_CASE("errors: cost cost_per_token and cost_per_million_tokens") {
    CHECK_REJECTS((cost_per_token({.hourly_cost = not_a_number, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    CHECK_REJECTS((cost_per_token({.hourly_cost = -2.0, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    CHECK_REJECTS((cost_per_token({.hourly_cost = 2.0, .tokens_per_second = 0.0})),
                  "tokens_per_second");
    CHECK_REJECTS((cost_per_million_tokens(
                      {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.0})),
                  "mean_utilization");
    CHECK_REJECTS((cost_per_million_tokens(
                      {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.5})),
                  "mean_utilization");
    CHECK_REJECTS((cost_per_million_tokens({.hourly_cost = inf, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    // A free replica costs nothing per token, whatever the rate (0 / 0 was NaN).
    CHECK(cost_per_token(
              {.hourly_cost = 0.0, .tokens_per_second = 5e-324, .mean_utilization = 5e-324}) ==
          0.0);
    CHECK(cost_per_million_tokens(
              {.hourly_cost = 0.0, .tokens_per_second = 1e-300, .mean_utilization = 1e-300}) ==
          0.0);
  }

  TEST_CASE("errors: cost replica_hours") {
    const std::vector<double> bad{1.0, not_a_number};
    const std::vector<double> negative{1.0, -1.0};
    const std::vector<int> ok{1, 2};
    CHECK_REJECTS(replica_hours(bad, 60s), "replicas_per_step");
    CHECK_REJECTS(replica_hours(negative, 60s), "replicas_per_step");
    CHECK_REJECTS(replica_hours(ok, 0s), "step");
    CHECK_REJECTS(replica_hours(ok, nan_s), "step");
    CHECK(replica_hours(std::vector<int>{}, 60s) == 0.0);  // an empty fleet costs nothing
  }

  TEST_CASE("errors: cost fleet_hourly_cost and fleet_cost") {
    CHECK_REJECTS((fleet_hourly_cost({.replicas = not_a_number, .price_per_replica_hour = 2.0})),
                  "replicas");
    CHECK_REJECTS((fleet_hourly_cost({.replicas = -1, .price_per_replica_hour = 2.0})), "replicas");
    CHECK_REJECTS((fleet_hourly_cost({.replicas = 1, .price_per_replica_hour = -2.0})),
                  "price_per_replica_hour");
    CHECK_REJECTS((fleet_cost({.replica_hours = inf, .price_per_replica_hour = 2.0})),
                  "replica_hours");
    CHECK_REJECTS((fleet_cost({.replica_hours = 1.0, .price_per_replica_hour = not_a_number})),
                  "price_per_replica_hour");
  }

  TEST_CASE("errors: cost spot functions") {
    CHECK_REJECTS((spot_factor({.discount = not_a_number, .lost_work = 0.1})), "discount");
    CHECK_REJECTS((spot_factor({.discount = 1.0, .lost_work = 0.1})), "discount");
    CHECK_REJECTS((spot_pays({.discount = 0.5, .lost_work = -0.1})), "lost_work");
    CHECK_REJECTS(spot_break_even_discount(1.0), "lost_work");
    CHECK_REJECTS((spot_cost({.on_demand_cost = -1.0, .discount = 0.5, .lost_work = 0.1})),
                  "on_demand_cost");
    CHECK_REJECTS((spot_cost({.on_demand_cost = 1.0, .discount = 0.5, .lost_work = inf})),
                  "lost_work");
  }

  TEST_CASE("errors: cost two_tier_split") {
    two_tier_inputs good;
    good.replicas = 10;
    good.minimum_replicas = 2;
    good.non_interruptible_share = 0.3;
    good.on_demand_price_per_hour = 2.0;
    good.spot_discount = 0.6;
    good.lost_work = 0.1;
    auto in = good;
    in.replicas = -1;
    CHECK_REJECTS(two_tier_split(in), "replicas");
    in = good;
    in.replicas = i64_max;  // share x replicas would not convert back to a count
    CHECK_REJECTS(two_tier_split(in), "replicas");
    in = good;
    in.minimum_replicas = -1;
    CHECK_REJECTS(two_tier_split(in), "minimum_replicas");
    in = good;
    in.non_interruptible_share = not_a_number;
    CHECK_REJECTS(two_tier_split(in), "non_interruptible_share");
    in = good;
    in.on_demand_price_per_hour = -1.0;
    CHECK_REJECTS(two_tier_split(in), "on_demand_price_per_hour");
    in = good;
    in.spot_discount = 1.0;
    CHECK_REJECTS(two_tier_split(in), "spot_discount");
    in = good;
    in.lost_work = inf;
    CHECK_REJECTS(two_tier_split(in), "lost_work");
    in = good;
    in.replicas = std::int64_t{1} << 62;  // the largest accepted count
    in.non_interruptible_share = 1.0;
    CHECK(two_tier_split(in).on_demand_replicas == in.replicas);
    // Costs past the double range: the blended factor (on + spot x f)/(on + spot) is still
    // f = (1 - 0.5)/(1 - 0) = 0.5 with every replica on spot (inf / inf was NaN).
    in = good;
    in.replicas = std::int64_t{1} << 62;
    in.minimum_replicas = 0;
    in.non_interruptible_share = 0.0;
    in.on_demand_price_per_hour = std::numeric_limits<double>::max();
    in.spot_discount = 0.5;
    in.lost_work = 0.0;
    const two_tier_plan plan = two_tier_split(in);
    CHECK(plan.spot_replicas == in.replicas);
    CHECK(std::isinf(plan.hourly_cost));
    CHECK(plan.blended_factor == 0.5);
  }

  TEST_CASE("errors: cost split_cost_by_gpu_time") {
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = not_a_number,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "hourly_cost");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 0.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "prefill_tokens");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = -1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "prefill_gpu_time");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = -1.0,
                                           .decode_gpu_time = 1s})),
                  "decode_tokens");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = inf_s})),
                  "decode_gpu_time");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 0s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 0s})),
                  "decode_gpu_time");
    // GPU times whose sum overflows still split half and half (they were both 0).
    const seconds_d longest{std::numeric_limits<double>::max()};
    const phase_costs halves = split_cost_by_gpu_time({.hourly_cost = 1.0,
                                                       .prefill_tokens = 1.0,
                                                       .prefill_gpu_time = longest,
                                                       .decode_tokens = 1.0,
                                                       .decode_gpu_time = longest});
    CHECK(halves.prefill_share == 0.5);
    CHECK(halves.decode_share == 0.5);
  }

  // ---- roofline.hpp ------------------------------------------------------------------------

  TEST_CASE("errors: roofline find_accelerator") {
    CHECK_FALSE(find_accelerator("").has_value());
    CHECK_FALSE(find_accelerator("H100").has_value());
  }

  TEST_CASE("errors: roofline weight_bytes") {
    CHECK_REJECTS((weight_bytes({.parameters = not_a_number, .bytes_per_parameter = 2.0})),
                  "parameters");
    CHECK_REJECTS((weight_bytes({.parameters = -1.0, .bytes_per_parameter = 2.0})), "parameters");
    CHECK_REJECTS((weight_bytes({.parameters = 8e9, .bytes_per_parameter = 0.0})),
                  "bytes_per_parameter");
    CHECK_REJECTS((weight_bytes({.parameters = 8e9, .bytes_per_parameter = inf})),
                  "bytes_per_parameter");
  }

  TEST_CASE("errors: roofline kv_bytes_per_token") {
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 0, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})),
        "layers");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = -1, .head_dim = 128, .dtype_bytes = 2.0})),
        "kv_heads");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = 8, .head_dim = 0, .dtype_bytes = 2.0})),
        "head_dim");
    CHECK_REJECTS((kv_bytes_per_token(
                      {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = not_a_number})),
                  "dtype_bytes");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 0.0})),
        "dtype_bytes");
  }

  TEST_CASE("errors: roofline kv_cache_bytes") {
    CHECK_REJECTS(
        (kv_cache_bytes(
            {.batch = not_a_number, .context_tokens = 2000.0, .kv_bytes_per_token = 131072.0})),
        "batch");
    CHECK_REJECTS(
        (kv_cache_bytes({.batch = 64.0, .context_tokens = -1.0, .kv_bytes_per_token = 131072.0})),
        "context_tokens");
    CHECK_REJECTS(
        (kv_cache_bytes({.batch = 64.0, .context_tokens = 2000.0, .kv_bytes_per_token = inf})),
        "kv_bytes_per_token");
    CHECK(kv_cache_bytes({.batch = 1e300, .context_tokens = 1e300, .kv_bytes_per_token = 0.0}) ==
          0.0);  // no bytes per token: 0, not inf x 0
    CHECK(std::isinf(kv_cache_bytes({.batch = 1e300,
                                     .context_tokens = 1e300,
                                     .kv_bytes_per_token = 1.0})));  // 1e600 B: beyond a double
  }

  TEST_CASE("errors: roofline min_gpus_for_weights") {
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = not_a_number, .gpu_memory_bytes = 80e9})),
                  "weight_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = -1.0, .gpu_memory_bytes = 80e9})),
                  "weight_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = 140e9, .gpu_memory_bytes = 0.0})),
                  "gpu_memory_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = 1e300, .gpu_memory_bytes = 1e-10})),
                  "weight_bytes");  // count > 2^62
  }

  TEST_CASE("errors: roofline mfu") {
    CHECK_REJECTS((mfu({.parameters = not_a_number,
                        .tokens_per_second = 2560.0,
                        .peak_flops_per_second = 1e15})),
                  "parameters");
    CHECK_REJECTS(
        (mfu({.parameters = 8e9, .tokens_per_second = -1.0, .peak_flops_per_second = 1e15})),
        "tokens_per_second");
    CHECK_REJECTS(
        (mfu({.parameters = 8e9, .tokens_per_second = 2560.0, .peak_flops_per_second = 0.0})),
        "peak_flops_per_second");
    const double big = std::numeric_limits<double>::max();
    CHECK(mfu({.parameters = big, .tokens_per_second = 0.0, .peak_flops_per_second = 1e15}) ==
          0.0);  // no tokens: 0, not (2 x max = inf) x 0
    CHECK(mfu({.parameters = big, .tokens_per_second = 1.0, .peak_flops_per_second = 1e15}) ==
          doctest::Approx(2.0 * (big / 1e15)));  // 2 N_p overflowed
  }

  TEST_CASE("errors: roofline decode_bandwidth and mbu") {
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = not_a_number, .kv_bytes = 0.0, .tpot = 25ms})),
                  "weight_bytes");
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = 16e9, .kv_bytes = -1.0, .tpot = 25ms})),
                  "kv_bytes");
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = 0s})), "tpot");
    CHECK_REJECTS(
        (mbu({.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = 25ms, .peak_bytes_per_second = 0.0})),
        "peak_bytes_per_second");
    CHECK_REJECTS(
        (mbu(
            {.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = -25ms, .peak_bytes_per_second = 3e12})),
        "tpot");
    const double big = std::numeric_limits<double>::max();
    // (max + max) / 10 s = max / 5 B/s: the sum overflowed where the quotient does not.
    CHECK(decode_bandwidth({.weight_bytes = big, .kv_bytes = big, .tpot = 10s}) ==
          doctest::Approx(big / 5.0));
    CHECK(mbu({.weight_bytes = big, .kv_bytes = big, .tpot = 10s, .peak_bytes_per_second = big}) ==
          doctest::Approx(0.2));
  }

  TEST_CASE("errors: roofline ridge_point") {
    CHECK_REJECTS(
        (ridge_point({.peak_flops_per_second = not_a_number, .peak_bytes_per_second = 3e12})),
        "peak_flops_per_second");
    CHECK_REJECTS((ridge_point({.peak_flops_per_second = 1e15, .peak_bytes_per_second = 0.0})),
                  "peak_bytes_per_second");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS(ridge_point(s), "peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = not_a_number;
    CHECK_REJECTS(ridge_point(s), "peak_bytes_per_second");
  }

  TEST_CASE("errors: roofline decode_intensity") {
    CHECK_REJECTS((decode_intensity({.parameters = not_a_number,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "parameters");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = -1.0,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "weight_bytes");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = -1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "batch");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = inf,
                                     .kv_bytes_per_token = 131072.0})),
                  "context_tokens");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = -1.0})),
                  "kv_bytes_per_token");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 0.0,
                                     .batch = 0.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "weight_bytes");  // 0 bytes
    // 2 N_p b / (M_w + b n_ctx m_kv) with both products past the double range (inf/inf):
    // 2 x 1 x max / (0 + max x 1e-300 x max) = 2 / (1e-300 x max) = 1.1126e-8.
    const double big = std::numeric_limits<double>::max();
    CHECK(decode_intensity({.parameters = 1.0,
                            .weight_bytes = 0.0,
                            .batch = big,
                            .context_tokens = 1e-300,
                            .kv_bytes_per_token = big}) == doctest::Approx(2.0 / (1e-300 * big)));
  }

  TEST_CASE("errors: roofline decode_intensity_limit") {
    CHECK_REJECTS((decode_intensity_limit({.parameters = not_a_number,
                                           .context_tokens = 2000.0,
                                           .kv_bytes_per_token = 131072.0})),
                  "parameters");
    CHECK_REJECTS((decode_intensity_limit(
                      {.parameters = 8e9, .context_tokens = 0.0, .kv_bytes_per_token = 131072.0})),
                  "context_tokens");
    CHECK_REJECTS((decode_intensity_limit(
                      {.parameters = 8e9, .context_tokens = 2000.0, .kv_bytes_per_token = 0.0})),
                  "kv_bytes_per_token");
    CHECK(decode_intensity_limit(
              {.parameters = 0.0, .context_tokens = 5e-324, .kv_bytes_per_token = 5e-324}) ==
          0.0);  // n_ctx m_kv underflowed: 0/0
  }

  TEST_CASE("errors: roofline is_compute_bound and mfu_ceiling") {
    CHECK_REJECTS((is_compute_bound({.intensity = not_a_number, .ridge = 333.0})), "intensity");
    CHECK_REJECTS((is_compute_bound({.intensity = -1.0, .ridge = 333.0})), "intensity");
    CHECK_REJECTS((mfu_ceiling({.intensity = 61.0, .ridge = 0.0})), "ridge");
    CHECK_REJECTS((mfu_ceiling({.intensity = 61.0, .ridge = inf})), "ridge");
  }

  TEST_CASE("errors: roofline attainable_flops_per_second") {
    CHECK_REJECTS(attainable_flops_per_second(not_a_number, accelerators::h100_sxm), "intensity");
    CHECK_REJECTS(attainable_flops_per_second(-1.0, accelerators::h100_sxm), "intensity");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = -1.0;
    CHECK_REJECTS(attainable_flops_per_second(10.0, s), "spec.peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = 0.0;
    CHECK_REJECTS(attainable_flops_per_second(10.0, s), "spec.peak_bytes_per_second");
  }

  TEST_CASE("errors: roofline max_compute_bound_context and max_compute_bound_context_at_batch") {
    CHECK_REJECTS(
        (max_compute_bound_context(
            {.parameters = not_a_number, .kv_bytes_per_token = 131072.0, .ridge = 333.0})),
        "parameters");
    CHECK_REJECTS(
        (max_compute_bound_context({.parameters = 8e9, .kv_bytes_per_token = 0.0, .ridge = 333.0})),
        "kv_bytes_per_token");
    CHECK_REJECTS((max_compute_bound_context(
                      {.parameters = 8e9, .kv_bytes_per_token = 131072.0, .ridge = -1.0})),
                  "ridge");
    CHECK_REJECTS((max_compute_bound_context_at_batch({.parameters = 8e9,
                                                       .weight_bytes = 16e9,
                                                       .batch = 0.0,
                                                       .kv_bytes_per_token = 131072.0,
                                                       .ridge = 333.0})),
                  "batch");
    CHECK_REJECTS((max_compute_bound_context_at_batch({.parameters = 8e9,
                                                       .weight_bytes = not_a_number,
                                                       .batch = 1.0,
                                                       .kv_bytes_per_token = 131072.0,
                                                       .ridge = 333.0})),
                  "weight_bytes");
    // Bandwidth-bound even with an empty context: a domain outcome.
    CHECK_FALSE(max_compute_bound_context_at_batch({.parameters = 8e9,
                                                    .weight_bytes = 16e9,
                                                    .batch = 1.0,
                                                    .kv_bytes_per_token = 131072.0,
                                                    .ridge = 333.0})
                    .has_value());
    // Both terms 2 N_p/(ridge m_kv) and M_w/(b m_kv) past the double range (inf - inf was
    // NaN): 2 / (2^-1074)^2 = 2^2149 < max / (2^-1074)^2, so bandwidth-bound at any context.
    const double tiny = 5e-324;
    CHECK_FALSE(
        max_compute_bound_context_at_batch({.parameters = 1.0,
                                            .weight_bytes = std::numeric_limits<double>::max(),
                                            .batch = tiny,
                                            .kv_bytes_per_token = tiny,
                                            .ridge = tiny})
            .has_value());
    CHECK(max_compute_bound_context_at_batch({.parameters = 0.0,
                                              .weight_bytes = 0.0,
                                              .batch = tiny,
                                              .kv_bytes_per_token = tiny,
                                              .ridge = tiny}) == 0.0);
  }

  TEST_CASE("errors: roofline roofline_time") {
    CHECK_REJECTS((roofline_time({.flops = not_a_number, .bytes = 1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = 3e12})),
                  "step.flops");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = -1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = 3e12})),
                  "step.bytes");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0},
                                 {.peak_flops_per_second = 0.0, .peak_bytes_per_second = 3e12})),
                  "spec.peak_flops_per_second");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = inf})),
                  "spec.peak_bytes_per_second");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0}, s)), "spec.peak_flops_per_second");
    CHECK_REJECTS((roofline_time({.flops = -1.0, .bytes = 1.0}, accelerators::h100_sxm)),
                  "step.flops");
  }

  // ---- arrivals.hpp ------------------------------------------------------------------------

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

  // ---- capacity.hpp ------------------------------------------------------------------------

  TEST_CASE("errors: capacity outcome accessors and meets_slo") {
    // No validation by design (noexcept, per outcome): NaN times compare false and fail.
    const slo objective{.ttft = 1s, .tpot = 100ms};
    request_outcome o{.intended_arrival = 0s,
                      .sent = 0s,
                      .first_token = nan_s,
                      .finished = 1s,
                      .prompt_tokens = 10,
                      .output_tokens = 10};
    CHECK(std::isnan(time_to_first_token(o).count()));
    CHECK_FALSE(meets_slo(objective, o));
    o.first_token = 100ms;
    o.error = true;
    CHECK_FALSE(meets_slo(objective, o));
  }

  TEST_CASE("errors: capacity validate slo") {
    CHECK_REJECTS((validate(slo{.ttft = nan_s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((validate(slo{.ttft = 0s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((validate(slo{.ttft = 1s, .tpot = -1s})), "slo.tpot");
    CHECK_REJECTS((validate(slo{.ttft = 1s, .tpot = 1s, .e2e = inf_s})), "slo.e2e");
  }

  TEST_CASE("errors: capacity wilson_interval") {
    CHECK_REJECTS((wilson_interval({.successes = 0, .trials = 0})), "trials");
    CHECK_REJECTS((wilson_interval({.successes = 5, .trials = 4})), "successes");
    CHECK_REJECTS((wilson_interval({.successes = 1, .trials = 4}, not_a_number)), "z");
    CHECK_REJECTS((wilson_interval({.successes = 1, .trials = 4}, 0.0)), "z");
  }

  TEST_CASE("errors: capacity conformance_from_counts and exact_conformance") {
    CHECK_REJECTS((conformance_from_counts({.successes = 5, .trials = 4})), "successes");
    CHECK_REJECTS((conformance_from_counts({.successes = 1, .trials = 4}, -1.0)), "z");
    CHECK_REJECTS(exact_conformance(not_a_number), "share");
    CHECK_REJECTS(exact_conformance(1.5), "share");
    CHECK(
        conformance_from_counts({.successes = 0, .trials = 0}).empty());  // no information: a value
  }

  TEST_CASE("errors: capacity conformance_series") {
    conformance_series series;
    CHECK_REJECTS(series.estimate(not_a_number), "z");
    CHECK_REJECTS(series.estimate(0.0), "z");
    // No request yet: an empty estimate; fewer than five: Wilson for independent requests.
    CHECK(series.estimate().empty());
    series.add(true);
    CHECK(series.estimate().basis == interval_basis::independent_requests);
  }

  TEST_CASE("errors: capacity replicated_conformance and pooled_conformance") {
    const auto run = conformance_from_counts({.successes = 90, .trials = 100});
    auto bad = run;
    const std::vector<conformance_estimate> exact{run, exact_conformance(0.9)};
    CHECK_REJECTS(replicated_conformance(exact), "runs[i].exact");
    CHECK_REJECTS(pooled_conformance(exact), "runs[i].exact");
    bad.conforming = 101;
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].conforming");
    bad = run;
    bad.standard_error = not_a_number;
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].standard_error");
    bad = run;
    bad.degrees_of_freedom = 0.5;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].degrees_of_freedom");
    bad = run;
    bad.skewness = inf;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].skewness");
    bad = run;
    bad.share = 1.5;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].share");
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, run}, 0.0)), "z");
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, run}, not_a_number)),
                  "z");
    // Nothing to combine: an empty estimate, not an error.
    CHECK(pooled_conformance(std::vector<conformance_estimate>{}).empty());
    CHECK(replicated_conformance(std::vector<conformance_estimate>{
                                     conformance_from_counts({.successes = 0, .trials = 0})})
              .empty());
  }

  TEST_CASE("errors: capacity measure_conformance") {
    const slo objective{.ttft = 1s, .tpot = 100ms};
    const std::vector<request_outcome> one{{.intended_arrival = 0s,
                                            .sent = 0s,
                                            .first_token = 100ms,
                                            .finished = 200ms,
                                            .prompt_tokens = 10,
                                            .output_tokens = 2}};
    const std::vector<request_outcome> none{};
    CHECK_REJECTS(measure_conformance(none, objective), "outcomes.size()");
    CHECK_REJECTS((measure_conformance(one, slo{.ttft = 0s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((measure_conformance(one, objective, {}, not_a_number)), "z");
    CHECK_REJECTS((measure_conformance(one, objective, {.warm_up = -1s})), "window.warm_up");
    CHECK_REJECTS((measure_conformance(one, objective, {.cool_down = nan_s})), "window.cool_down");
    CHECK_REJECTS((measure_conformance(one, objective, {.run_end = inf_s})), "window.run_end");
    std::vector<request_outcome> bad = one;
    bad[0].intended_arrival = nan_s;
    CHECK_REJECTS(measure_conformance(bad, objective), "outcome.intended_arrival");
    bad = one;
    bad[0].finished = inf_s;
    CHECK_REJECTS(measure_conformance(bad, objective), "outcome.finished");
    // Everything discarded by the window: an empty estimate, not an error.
    CHECK(measure_conformance(one, objective, {.warm_up = 10s}).empty());
  }

  TEST_CASE("errors: capacity find_capacity") {
    const std::vector<capacity_point> none{};
    std::vector<capacity_point> curve{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 95, .trials = 100})},
        {.rate_per_second = 2.0,
         .conformance = conformance_from_counts({.successes = 50, .trials = 100})}};
    CHECK_REJECTS(find_capacity(none), "curve.size()");
    CHECK_REJECTS((find_capacity(curve, {.quota = not_a_number})), "options.quota");
    CHECK_REJECTS((find_capacity(curve, {.quota = 1.0})), "options.quota");
    auto bad = curve;
    bad[1].rate_per_second = 0.0;
    CHECK_REJECTS(find_capacity(bad), "curve[i].rate_per_second");
    bad = curve;
    bad[1].rate_per_second = 1.0;
    CHECK_REJECTS(find_capacity(bad), "curve[i].rate_per_second");  // duplicate rate
    bad = curve;
    bad[1].conformance.share = not_a_number;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.share");
    bad = curve;
    bad[0].conformance.wilson_upper = 1.5;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.wilson_upper");
    bad = curve;
    bad[0].conformance.lower = not_a_number;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.lower");
    bad = curve;
    bad[1].conformance.upper = -0.5;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.upper");
    // No point reaches the quota: nullopt, saturated.
    const std::vector<capacity_point> failing{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 10, .trials = 100})}};
    const auto r = find_capacity(failing);
    CHECK_FALSE(r.capacity_per_second.has_value());
    CHECK(r.saturated);
  }

  TEST_CASE("errors: capacity search_capacity") {
    const auto model = [](double rate) { return rate < 10.0 ? 0.95 : 0.5; };
    capacity_search_options good;
    auto o = good;
    o.quota = 0.0;
    CHECK_REJECTS(search_capacity(model, o), "options.quota");
    o = good;
    o.rate_low_per_second = not_a_number;
    CHECK_REJECTS(search_capacity(model, o), "options.rate_low_per_second");
    o = good;
    o.rate_high_per_second = 0.5;
    CHECK_REJECTS(search_capacity(model, o), "options.rate_high_per_second");
    o = good;
    o.relative_tolerance = 0.0;
    CHECK_REJECTS(search_capacity(model, o), "options.relative_tolerance");
    o = good;
    o.growth_factor = 1.0;
    CHECK_REJECTS(search_capacity(model, o), "options.growth_factor");
    o = good;
    o.max_measurements = 1;
    CHECK_REJECTS(search_capacity(model, o), "options.max_measurements");
    o = good;
    o.max_runs_per_rate = 0;
    CHECK_REJECTS(search_capacity(model, o), "options.max_runs_per_rate");
    o = good;
    o.request_budget = 0;
    CHECK_REJECTS(search_capacity(model, o), "options.request_budget");
    CHECK_REJECTS((search_capacity(
                      [](double) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.lower = not_a_number;
                        return e;
                      },
                      good)),
                  "measure(rate).lower");
    CHECK_REJECTS((search_capacity(
                      [](capacity_probe) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.z = 0.0;
                        return e;
                      },
                      good)),
                  "measure(rate).z");
    CHECK_REJECTS((search_capacity([](double) { return not_a_number; }, good)), "measure(rate)");
    CHECK_REJECTS((search_capacity([](double) { return 1.5; }, good)), "measure(rate)");
    CHECK_REJECTS((search_capacity(
                      [](double) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.share = not_a_number;
                        return e;
                      },
                      good)),
                  "measure(rate).share");
    // Nothing passes within the budget: a reason, not an exception.
    o = good;
    o.max_measurements = 3;
    const auto r = search_capacity([](double) { return 0.0; }, o);
    CHECK(r.reason == search_stop::no_passing_rate);
    CHECK_FALSE(r.capacity_per_second.has_value());
  }

  // ---- prometheus.hpp ----------------------------------------------------------------------

  TEST_CASE("errors: prometheus parse") {
    // Never throws: a malformed page is a value with a reason.
    const auto p = prometheus::parse("metric{ 1\n");
    CHECK_FALSE(p.ok());
    REQUIRE(p.error().has_value());
    CHECK_FALSE(p.error()->reason().empty());
    CHECK(prometheus::parse("").ok());
    const auto lenient =
        prometheus::parse("bad{ 1\ngood 2\n", {.mode = prometheus::parse_mode::lenient});
    CHECK(lenient.ok());
    CHECK(lenient.skipped().size() == 1);
    // Past a limit: a value with its own code, strict and lenient alike.
    prometheus::parse_options limited;
    limited.max_series_per_page = 1;
    const auto over = prometheus::parse("a 1\nb 2\n", limited);
    REQUIRE_FALSE(over.ok());
    CHECK(over.error()->code == prometheus::parse_errc::too_many_series);
  }

  TEST_CASE("errors: prometheus aggregate") {
    const auto p = prometheus::parse("a{m=\"x\"} 1\nb NaN\n");
    CHECK_REJECTS(prometheus::aggregate(p, ""), "metric");
    CHECK_REJECTS(prometheus::aggregate(p, "a", "", "x"), "label_name");
    CHECK(prometheus::aggregate(p, "zzz").missing == prometheus::missing_reason::metric_absent);
    CHECK(prometheus::aggregate(p, "a", "m", "y").missing ==
          prometheus::missing_reason::no_matching_series);
    CHECK(prometheus::aggregate(p, "b").missing == prometheus::missing_reason::not_finite);
    CHECK(prometheus::aggregate(prometheus::parse("a{ 1\n"), "a").missing ==
          prometheus::missing_reason::page_invalid);
  }

  TEST_CASE("errors: prometheus bucket_quantile") {
    std::vector<prometheus::histogram_bucket> b{{.upper_bound = 1.0, .cumulative_count = 5.0},
                                                {.upper_bound = inf, .cumulative_count = 10.0}};
    CHECK_REJECTS(prometheus::bucket_quantile(not_a_number, b), "q");
    CHECK_REJECTS(prometheus::bucket_quantile(1.5, b), "q");
    CHECK_REJECTS(prometheus::bucket_quantile(-0.1, b), "q");
    std::vector<prometheus::histogram_bucket> empty{};
    CHECK(std::isnan(prometheus::bucket_quantile(0.5, empty)));
    std::vector<prometheus::histogram_bucket> no_inf{
        {.upper_bound = 1.0, .cumulative_count = 5.0},
        {.upper_bound = 2.0, .cumulative_count = 10.0}};
    CHECK(std::isnan(prometheus::bucket_quantile(0.5, no_inf)));
  }

  TEST_CASE("errors: prometheus histogram_quantile") {
    const auto p = prometheus::parse("h_bucket{le=\"1\"} 5\nh_bucket{le=\"+Inf\"} 10\n");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "", 0.5), "histogram");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "h", not_a_number), "q");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "h", 0.5, "", "x"), "label_name");
    CHECK_FALSE(prometheus::histogram_quantile(p, "absent", 0.5).has_value());
    CHECK_FALSE(prometheus::histogram_quantile(prometheus::parse("h{ 1\n"), "h", 0.5));
  }

  TEST_CASE("errors: prometheus read_replica_load") {
    const auto p = prometheus::parse("vllm:num_requests_running 3\n");
    auto preset = prometheus::vllm_preset;
    preset.waiting = {};
    CHECK_REJECTS(prometheus::read_replica_load(p, preset), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(prometheus::read_replica_load(p, preset, "m"), "preset");
    const auto load = prometheus::read_replica_load(p, prometheus::vllm_preset);
    CHECK(load.running.value == 3.0);
    CHECK(load.waiting.missing == prometheus::missing_reason::metric_absent);
    CHECK_FALSE(load.in_flight().has_value());
  }

  TEST_CASE("errors: prometheus ttft_quantile") {
    const auto p = prometheus::parse("x 1\n");
    auto preset = prometheus::vllm_preset;
    preset.ttft = {};
    CHECK_REJECTS(prometheus::ttft_quantile(p, preset, 0.5), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(prometheus::ttft_quantile(p, preset, 0.5, "m"), "preset");
    CHECK_REJECTS(prometheus::ttft_quantile(p, prometheus::vllm_preset, 2.0), "q");
    CHECK_FALSE(prometheus::ttft_quantile(p, prometheus::vllm_preset, 0.5).has_value());
  }

  // ---- kubernetes.hpp ----------------------------------------------------------------------

  TEST_CASE("errors: kubernetes in_flight_target") {
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = not_a_number, .capacity_per_second = 8.0, .mean_sojourn = 8s}),
        "target_utilization");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.8, .capacity_per_second = 0.0, .mean_sojourn = 8s}),
                  "capacity_per_second");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 0s}),
                  "mean_sojourn");
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = nan_s}),
        "mean_sojourn");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.1, .capacity_per_second = 1.0, .mean_sojourn = 1s}),
                  "rounding");  // 0.1 -> 0
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = 1.0, .capacity_per_second = 1e300, .mean_sojourn = 1s}),
        "capacity_per_second");
  }

  TEST_CASE("errors: kubernetes in_flight_query") {
    CHECK_REJECTS(kubernetes::in_flight_query("", "w", "m", "x"), "running_metric");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "1w", "m", "x"), "waiting_metric");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "w", "bad:label", "x"), "label_name");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "w", "m", "\xc3("), "label_value");  // not UTF-8
    auto preset = prometheus::vllm_preset;
    preset.running = {};
    CHECK_REJECTS(kubernetes::in_flight_query(preset, "m"), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(kubernetes::in_flight_query(preset, "m"), "preset");
    CHECK(kubernetes::in_flight_query(preset, "") ==
          "sum(vllm:num_requests_running) + sum(vllm:num_requests_waiting)");
  }

  TEST_CASE("errors: kubernetes horizontal_pod_autoscaler_yaml") {
    const kubernetes::scaled_workload good{"llm", "serving", "llm", "Deployment", "apps/v1"};
    autoscaler_config config;
    config.metrics = {metric_spec{.name = "vllm_in_flight",
                                  .source = metric_source::pods,
                                  .target_type = metric_target_type::average_value,
                                  .target = 51.0}};
    auto w = good;
    w.name = "Bad_Name";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.name");
    w = good;
    w.namespace_name = "a.b";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.namespace_name");
    w = good;
    w.target_kind = "a/b";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.target_kind");
    auto c = config;
    c.max_replicas = 0;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.max_replicas");
    c = config;
    c.metrics[0].target = 51.0001;  // not a whole number of milli-units
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.metrics.target");
    c = config;
    c.metrics[0].source = metric_source::object;
    c.metrics[0].target_type = metric_target_type::value;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.metrics.source");
    c = config;
    c.behavior = scaling_behavior{};
    c.behavior->scale_down.stabilization_window = std::chrono::seconds{3601};
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c),
                  "config.behavior.scale_down.stabilization_window");
    c = config;
    c.scale_up_tolerance = 1e7;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.scale_up_tolerance");
  }

  TEST_CASE("errors: kubernetes scaled_object_yaml") {
    const kubernetes::scaled_workload workload{
        .name = "llm", .target_name = "llm", .target_kind = "Deployment"};
    const autoscaler_config config{.min_replicas = 0,
                                   .metrics = {{.name = "in_flight",
                                                .source = metric_source::external,
                                                .target_type = metric_target_type::average_value,
                                                .target = 51.0}}};
    const kubernetes::keda_prometheus_options good{
        .server_address = "http://prometheus:9090",
        .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}};
    auto k = good;
    k.server_address = "prometheus:9090";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.server_address");
    k = good;
    k.triggers = {};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers");
    k = good;
    k.triggers[0].metric_name = "other";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers");
    k = good;
    k.triggers[0].query = " ";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers.query");
    k = good;
    k.triggers[0].activation_threshold = not_a_number;
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k),
                  "keda.triggers.activation_threshold");
    k = good;
    k.cooldown_period = std::chrono::seconds{-1};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.cooldown_period");
    auto c = config;
    c.sync_period = std::chrono::milliseconds{1500};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, c, good), "config.sync_period");
    c = config;
    c.metrics[0].target = -1.0;
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, c, good), "config.metrics.target");
  }

  // ---- autoscaler.hpp (pinned; see the known gaps) -----------------------------------------

  TEST_CASE("errors: autoscaler constructor") {
    autoscaler_config good;
    good.metrics = {metric_spec{.name = "in_flight",
                                .source = metric_source::external,
                                .target_type = metric_target_type::average_value,
                                .target = 51.0}};
    auto c = good;
    c.min_replicas = -1;
    CHECK_REJECTS(autoscaler(c), "config.min_replicas");
    c = good;
    c.min_replicas = 5;
    c.max_replicas = 4;
    CHECK_REJECTS(autoscaler(c), "config.min_replicas");  // min > max
    c = good;
    c.max_replicas = 0;
    CHECK_REJECTS(autoscaler(c), "config.max_replicas");
    c = good;
    c.metrics = {};
    CHECK_REJECTS(autoscaler(c), "config.metrics");
    c = good;
    c.metrics[0].target = not_a_number;
    CHECK_REJECTS(autoscaler(c), "config.metrics.target");
    c = good;
    c.metrics[0].target = 0.0;
    CHECK_REJECTS(autoscaler(c), "config.metrics.target");
    c = good;
    c.scale_up_tolerance = -0.1;
    CHECK_REJECTS(autoscaler(c), "config.scale_up_tolerance");
    c = good;
    c.scale_down_tolerance = inf;
    CHECK_REJECTS(autoscaler(c), "config.scale_down_tolerance");
    c = good;
    c.sync_period = std::chrono::milliseconds{0};
    CHECK_REJECTS(autoscaler(c), "config.sync_period");
    c = good;
    c.downscale_stabilization = std::chrono::seconds{-1};
    CHECK_REJECTS(autoscaler(c), "config.downscale_stabilization");
    c = good;
    c.reserve_replicas = -1;
    CHECK_REJECTS(autoscaler(c), "config.reserve_replicas");
    c = good;
    c.behavior = scaling_behavior{};
    c.behavior->scale_up.policies[0].period = std::chrono::seconds{0};
    CHECK_REJECTS(autoscaler(c), "config.behavior.scale_up.policies.period");
    c = good;
    kpa_config k;
    k.panic_threshold = not_a_number;
    CHECK_REJECTS(autoscaler(k), "kpa.panic_threshold");
    k = kpa_config{};
    k.max_scale_down_rate = 1.0;
    CHECK_REJECTS(autoscaler(k), "kpa.max_scale_down_rate");
  }

  TEST_CASE("errors: autoscaler initial_state and step") {
    autoscaler_config config;
    config.metrics = {metric_spec{.name = "in_flight",
                                  .source = metric_source::external,
                                  .target_type = metric_target_type::average_value,
                                  .target = 10.0}};
    const autoscaler controller(config);
    CHECK_REJECTS(controller.initial_state(0ms, -1), "replicas");
    auto state = controller.initial_state();
    autoscaler_input in;
    in.replicas.spec = -1;
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.spec");
    in.replicas = {.spec = 2, .status = -1, .ready = 2};
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.status");
    in.replicas = {.spec = 2, .status = 2, .ready = -1};
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.ready");
    in.replicas = {.spec = 2, .status = 2, .ready = 2};
    CHECK_REJECTS(controller.step(state, std::chrono::milliseconds::min(), in), "now");
    // A NaN or missing observation: hold, with the reason.
    const metric_observation missing[1] = {observe_value(not_a_number)};
    in.metrics = missing;
    const auto d = controller.step(state, 0ms, in);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.desired_replicas == 2);
    CHECK(d.first_failed_metric == 0);
  }

  // ---- scheduler.hpp and scheduler/ (pinned; see the known gaps) ---------------------------

  TEST_CASE("errors: scheduler estimators") {
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 0.0, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 1.5, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, not_a_number, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 0.9, 0), "attention_heads");
    CHECK_REJECTS(layered_estimator({.total_layers = 0,
                                     .layer_vram_bytes = 1,
                                     .fixed_vram_bytes = 1,
                                     .layer_ram_bytes = 1,
                                     .fixed_ram_bytes = 1}),
                  "total_layers");
    CHECK_REJECTS((vllm_estimator(vllm_options{.gpu_memory_utilization = 0.0})),
                  "options.gpu_memory_utilization");
    CHECK_REJECTS((vllm_estimator(vllm_options{.attention_heads = 32, .tensor_parallel_size = 3})),
                  "options.tensor_parallel_size");
    vllm_options bad_ratio;
    bad_ratio.kv_cache.ram_ratio = not_a_number;
    CHECK_REJECTS(vllm_estimator(bad_ratio), "options.kv_cache.ram_ratio");
  }

  TEST_CASE("errors: scheduler scorer chain weights") {
    dynamic_scorer_chain<candidate> chain;
    CHECK_REJECTS((chain.add("x", -1.0, placement_scorer{})), "weight");
    CHECK_REJECTS((chain.add("x", not_a_number, placement_scorer{})), "weight");
    chain.add("x", 1.0, placement_scorer{});
    CHECK_REJECTS(chain.set_weight("x", inf), "weight");
    CHECK_FALSE(chain.set_weight("absent", 1.0));
  }

  TEST_CASE("errors: scheduler place") {
    // No feasible worker is a value with a reason, never an exception.
    const std::vector<archetypes::worker> none{};
    const std::vector<archetypes::instance> no_instances{};
    const archetypes::model m(1);
    auto up = gpustack_scheduler(vllm_estimator(16 * gib_bytes, 0.9, 32));
    headroom::workspace up_ws;
    const auto empty = up.place(up_ws, none, no_instances, m);
    CHECK_FALSE(empty);
    CHECK(empty.reason == no_placement_reason::no_workers);
    const std::vector<archetypes::worker> small{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    const auto r = up.place(up_ws, small, no_instances, m);
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::insufficient_resources);
    // A decision on a kept index is for the indexed model, over the indexed workers.
    CHECK_REJECTS(up.place(up_ws, small, archetypes::model(2)), "model");
    CHECK_REJECTS(up.place(up_ws, none, m), "workers");
  }

  TEST_CASE("errors: scheduler index") {
    // Ids name one worker, an index one GPU of a worker, an id one recorded instance.
    const std::vector<archetypes::instance> no_instances{};
    const archetypes::model m(1);
    workspace ws;
    const std::vector<archetypes::worker> twins{
        archetypes::worker(5, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)}),
        archetypes::worker(5, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    CHECK_REJECTS(ws.index(twins, no_instances, m), "workers");
    const std::vector<archetypes::worker> same_gpu{archetypes::worker(
        1, 64 * gib_bytes, {archetypes::gpu(2, 8 * gib_bytes), archetypes::gpu(2, 8 * gib_bytes)})};
    CHECK_REJECTS(ws.index(same_gpu, no_instances, m), "workers");
    const std::vector<archetypes::worker> one{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    const std::vector<archetypes::instance> same_id{archetypes::instance(3, 1, 1, {}),
                                                    archetypes::instance(3, 1, 1, {})};
    CHECK_REJECTS(ws.index(one, same_id, m, index_for::scale_down), "instances");
    ws.index(one, std::vector<archetypes::instance>{same_id[0]}, m, index_for::scale_down);
    CHECK_REJECTS(ws.add_instance(same_id[1]), "instances");
  }

  TEST_CASE("errors: scheduler decisions on workers changed without update_worker") {
    std::vector<archetypes::worker> workers{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 80 * gib_bytes)})};
    const archetypes::model m(1);
    auto up = gpustack_scheduler(vllm_estimator(16 * gib_bytes, 0.9, 32), basic_filters(),
                                 stale_check::refuse);
    headroom::workspace up_ws;
    up.index(up_ws, workers, std::vector<archetypes::instance>{}, m);
    workers[0] = archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)});
    CHECK_REJECTS(up.place(up_ws, workers, m), "workers");
    workers[0] = archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(7, 8 * gib_bytes)});
    up.options().stale = stale_check::refresh;  // another GPU index: not updatable in place
    CHECK_REJECTS(up.place(up_ws, workers, m), "workers");
    auto down = gpustack_scale_down_ranker(stale_check::refuse);
    headroom::workspace down_ws;
    down.index(down_ws, workers, std::vector<archetypes::instance>{}, m);
    workers[0] = archetypes::worker(1, 32 * gib_bytes, {archetypes::gpu(7, 8 * gib_bytes)});
    CHECK_REJECTS(down.rank(down_ws, workers), "workers");
  }

  // ---- plan.hpp ----------------------------------------------------------------------------

  TEST_CASE("errors: plan validate") {
    const plan::problem good{.name = "g",
                             .model = {.name = "m",
                                       .parameters = 8e9,
                                       .layers = 32,
                                       .hidden_size = 4096,
                                       .kv_bytes_per_token = 131072.0},
                             .axes = {.accelerators = {{.spec = accelerators::h100_sxm,
                                                        .price_per_gpu_hour = 1.0,
                                                        .interconnect_bytes_per_second = 450e9}}},
                             .target = {.ttft = 1s},
                             .traffic = {.rates_per_second = {1.0, 0.0}}};
    CHECK_NOTHROW(plan::validate(good));
    auto p = good;
    p.model.parameters = not_a_number;
    CHECK_REJECTS(plan::validate(p), "model.parameters");
    p = good;
    p.model.layers = 0;
    CHECK_REJECTS(plan::validate(p), "model.layers");
    p = good;
    p.model.kv_bytes_per_token = -1.0;
    CHECK_REJECTS(plan::validate(p), "model.kv_bytes_per_token");
    p = good;
    p.model.name = "a,b";
    CHECK_REJECTS(plan::validate(p), "model.name");
    p = good;
    p.name = "";
    CHECK_REJECTS(plan::validate(p), "problem.name");
    p = good;
    p.axes.max_batch.clear();
    CHECK_REJECTS(plan::validate(p), "axes.max_batch.size()");
    p = good;
    p.axes.accelerators[0].price_per_gpu_hour = inf;
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].price_per_gpu_hour");
    p = good;
    p.axes.accelerators[0].step_time = plan::step_time_parameters{.bandwidth_efficiency = 1.5};
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].step_time.bandwidth_efficiency");
    p = good;
    p.axes.tensor_parallel = {2};
    p.axes.accelerators[0].interconnect_bytes_per_second = 0.0;
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].interconnect_bytes_per_second");
    p = good;
    p.axes.memory_fraction = 0.0;
    CHECK_REJECTS(plan::validate(p), "axes.memory_fraction");
    p = good;
    p.target.ttft = 0s;
    CHECK_REJECTS(plan::validate(p), "target.ttft");
    p = good;
    p.target.tpot = nan_s;
    CHECK_REJECTS(plan::validate(p), "target.tpot");
    p = good;
    p.target.quota = 0.0;
    CHECK_REJECTS(plan::validate(p), "target.quota");
    p = good;
    p.traffic.rates_per_second = {1.0, -1.0};
    CHECK_REJECTS(plan::validate(p), "traffic.rates_per_second[i]");
    p = good;
    p.traffic.rates_per_second.clear();
    CHECK_REJECTS(plan::validate(p), "traffic.rates_per_second.size()");
    p = good;
    p.traffic.step = 0s;
    CHECK_REJECTS(plan::validate(p), "traffic.step");
    p = good;
    p.fleet.target_utilization = 1.5;
    CHECK_REJECTS(plan::validate(p), "fleet.target_utilization");
    p = good;
    p.fleet.policy.start_time = inf_s;
    CHECK_REJECTS(plan::validate(p), "fleet.policy.start_time");
    p = good;
    p.search.max_measurements = 1;
    CHECK_REJECTS(plan::validate(p), "search.max_measurements");
    p = good;
    p.search.warm_up_fraction = 0.6;
    p.search.cool_down_fraction = 0.6;
    CHECK_REJECTS(plan::validate(p), "search.cool_down_fraction");
    p = good;
    p.search.zero_load_requests = 0;
    CHECK_REJECTS(plan::validate(p), "search.zero_load_requests");
    const sim::fixed_lengths lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}};
    CHECK_REJECTS((plan::evaluate_grid(good, lengths, {.part = {.index = 0, .count = 3}})),
                  "run.part.index");
    CHECK_REJECTS((plan::evaluate_grid(good, lengths, {.part = {.index = 1, .count = 0}})),
                  "run.part.count");
    p = good;
    p.search.z = -1.0;
    CHECK_REJECTS(plan::search(p, lengths), "search.z");
  }

  TEST_CASE("errors: plan read_model_card and to_model_shape") {
    // The reader never throws: a bad file is its error, naming the byte and the field.
    const auto not_json = plan::read_model_card("{\"num_hidden_layers\": NaN}");
    CHECK_FALSE(not_json.ok());
    CHECK(not_json.error.field.empty());
    const auto negative = plan::read_model_card(
        R"({"num_hidden_layers": -1, "hidden_size": 8, "num_attention_heads": 1,
            "vocab_size": 8, "intermediate_size": 8})");
    CHECK_FALSE(negative.ok());
    CHECK(negative.error.field == "num_hidden_layers");
    CHECK(plan::read_model_card("").error.reason == "not a model card: the text is empty");
    const auto card = plan::read_model_card(
        R"({"num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2,
            "vocab_size": 16, "intermediate_size": 16, "torch_dtype": "bfloat16"})");
    REQUIRE(card.ok());
    CHECK_REJECTS(plan::to_model_shape(*card.card, {.precision = numeric_format::int4}),
                  "precision");
    CHECK_REJECTS(plan::to_model_shape(*card.card, {.kv_cache = numeric_format::fp4}), "kv_cache");
  }

  TEST_CASE("errors: plan make_step_time") {
    const plan::model_shape m{.name = "m",
                              .parameters = 8e9,
                              .layers = 32,
                              .hidden_size = 4096,
                              .kv_bytes_per_token = 131072.0};
    plan::accelerator_option gpu{.spec = accelerators::h100_sxm};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 0), "tensor_parallel");
    gpu.step_time = plan::step_time_parameters{.flops_efficiency = 0.0};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 1), "flops_efficiency");
    gpu = {};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 1), "spec.peak_flops_per_second");
    // Weights that leave no room: an outcome, not an error.
    gpu.spec = accelerators::l40s;
    const plan::model_shape big{.name = "m",
                                .parameters = 70e9,
                                .layers = 80,
                                .hidden_size = 8192,
                                .kv_bytes_per_token = 327680.0};
    CHECK_FALSE(plan::replica_kv_budget(big, gpu, 1, 0.9));
  }

  TEST_CASE("errors: plan sample_lengths") {
    CHECK_REJECTS(
        (plan::sample_lengths(
            sim::fixed_lengths{.lengths = {.prompt_tokens = 1, .output_tokens = 1}}, 0, 1)),
        "draws");
    CHECK_REJECTS(
        (plan::sample_lengths(
            sim::fixed_lengths{.lengths = {.prompt_tokens = 0, .output_tokens = 1}}, 1, 1)),
        "lengths().prompt_tokens");
  }

  TEST_CASE("errors: plan write_csv") {
    const plan::problem p{.name = "g",
                          .model = {.name = "m",
                                    .parameters = 8e9,
                                    .layers = 32,
                                    .hidden_size = 4096,
                                    .kv_bytes_per_token = 131072.0}};
    std::vector<plan::row> rows(2);
    plan::decision d;  // decides no row
    CHECK_REJECTS((plan::write_csv(p, {}, {}, rows, &d)), "decided->verdicts.size()");
  }

  TEST_CASE("errors: plan decide") {
    // Never throws: no rows, or none feasible, decide on no winner.
    CHECK_FALSE(plan::decide({}).winner);
    std::vector<plan::row> none(1);
    none[0].status = plan::feasibility::slo_unmet_at_zero_load;
    CHECK_FALSE(plan::decide(none).winner);
    CHECK(plan::decide(none).counts[3] == 1);
  }

  TEST_CASE("errors: plan read_csv merge parse_shard") {
    // Never throw. Bad text: the line and why.
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 12 configurations 1 "
                         "shard 1/1\n")
              .error == "the fingerprint needs 16 hex digits");
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 0123456789abcdef "
                         "configurations 1 shard 2/1\n")
              .error_line == 1);
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 0123456789abcdef "
                         "configurations 1 shard 1/1\n")
              .error == "a header without column names");
    CHECK(plan::read_csv("").ok());
    CHECK(plan::merge({}).ok());
    CHECK_FALSE(plan::parse_shard("0/1"));
    CHECK_FALSE(plan::parse_shard("1234567890/1234567890"));
  }

  // ---- traces.hpp ----------------------------------------------------------------------------

  // Throws headroom::invalid_argument naming `source` whose what() starts with "file:line: ".
#define CHECK_REJECTS_LINE(expr, prefix)                                   \
  CHECK_THROWS_WITH_AS(static_cast<void>(expr), doctest::Contains(prefix), \
                       headroom::invalid_argument)

  TEST_CASE("errors: traces trace_file") {
    CHECK_REJECTS(trace_file("/nonexistent/headroom/trace.csv"), "path");
  }

  TEST_CASE("errors: traces options") {
    const auto read = [](const trace_options& options, trace_format format = trace_format::azure) {
      return summarize_trace(format, trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"),
                             options);
    };
    CHECK_REJECTS(read({.speed = not_a_number}), "options.speed");
    CHECK_REJECTS(read({.speed = inf}), "options.speed");
    CHECK_REJECTS(read({.speed = -1.0}), "options.speed");
    CHECK_REJECTS(read({.speed = 0.0}), "options.speed");
    CHECK_REJECTS(read({.from = nan_s}), "options.from");
    CHECK_REJECTS(read({.from = -1s}), "options.from");
    CHECK_REJECTS(read({.from = 5e9s}), "options.from");
    CHECK_REJECTS(read({.to = inf_s}), "options.to");
    CHECK_REJECTS(read({.from = 2s, .to = 1s}), "options.to");
    CHECK_REJECTS(read({.to = 0s}), "options.to");
    CHECK_REJECTS(read({.buffer_bytes = 63}), "options.buffer_bytes");
    CHECK_REJECTS(read({.model = "GPT-4"}), "options.model");
    CHECK_REJECTS(read({.log_type = "API log"}, trace_format::mooncake), "options.log_type");
    CHECK(read({}).requests == 0);  // a header alone: no request, no error
  }

  TEST_CASE("errors: traces rows") {
    const auto azure = [](const char* rows) {
      return summarize_trace(
          trace_format::azure,
          trace_text(std::string("TIMESTAMP,ContextTokens,GeneratedTokens\n") + rows),
          {.name = "a.csv"});
    };
    const auto burst = [](const char* rows) {
      return summarize_trace(
          trace_format::burstgpt,
          trace_text(std::string("Timestamp,Request tokens,Response tokens\n") + rows),
          {.name = "b.csv"});
    };
    const auto moon = [](const char* rows) {
      return summarize_trace(trace_format::mooncake, trace_text(rows), {.name = "m.jsonl"});
    };
    // NaN, ±Inf, negative, out of range.
    CHECK_REJECTS_LINE(burst("nan,1,1\n"), "b.csv:2: Timestamp is not finite");
    CHECK_REJECTS_LINE(burst("inf,1,1\n"), "b.csv:2: Timestamp is not finite");
    CHECK_REJECTS_LINE(burst("-1,1,1\n"), "b.csv:2: Timestamp is negative");
    CHECK_REJECTS_LINE(burst("5e9,1,1\n"), "b.csv:2: Timestamp is out of range");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": -5, \"input_length\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: timestamp is negative");
    CHECK_REJECTS_LINE(burst("1,-1,1\n"), "b.csv:2: Request tokens is not a token count");
    CHECK_REJECTS_LINE(burst("1,1,4294967296\n"), "b.csv:2: Response tokens is not a token count");
    CHECK_REJECTS_LINE(azure("1969-12-31 23:59:59,1,1\n"), "a.csv:2: TIMESTAMP has a year outside");
    CHECK_REJECTS_LINE(azure("2023-13-01 00:00:00,1,1\n"), "a.csv:2: TIMESTAMP has a month");
    CHECK_REJECTS_LINE(azure("2023-01-01 24:00:00,1,1\n"), "a.csv:2: TIMESTAMP has a time of day");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00.1234567890,1,1\n"),
                       "a.csv:2: TIMESTAMP has more than 9 fractional digits");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00+24:00,1,1\n"),
                       "a.csv:2: TIMESTAMP has an offset");
    // Shape: field counts, order, JSON.
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00,1,1,1\n"), "a.csv:2: expected 3 comma-separated");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:01,1,1\n2023-01-01 00:00:00,1,1\n"),
                       "a.csv:3: the time is earlier than the previous row's");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1, \"input_length\": 1}"),
                       "m.jsonl:1: the object has no \"output_length\"");
    CHECK_REJECTS_LINE(moon("{\"input_length\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: the object has no \"timestamp\"");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: the object has no \"input_length\"");
    CHECK_REJECTS_LINE(moon("{\"timestamp\" 1}"), "m.jsonl:1: expected ':' after a key");
    CHECK_REJECTS_LINE(moon("{timestamp: 1}"), "m.jsonl:1: expected a quoted key");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1 \"input_length\": 1}"),
                       "m.jsonl:1: expected ',' or '}'");
    CHECK_REJECTS_LINE(moon("{\"a\\\"b\": 1}"),
                       "m.jsonl:1: a key in the JSON object is not a plain");
    // Empty: a CSV needs its header; blank lines are skipped; empty JSON lines are no request.
    CHECK_REJECTS_LINE(summarize_trace(trace_format::burstgpt, trace_text(""), {.name = "b.csv"}),
                       "b.csv:1: empty: expected a header");
    CHECK_REJECTS_LINE(
        summarize_trace(trace_format::burstgpt, trace_text("Timestamp,Model\n"), {.name = "b.csv"}),
        "b.csv:1: expected a header naming");
    CHECK_REJECTS_LINE(
        summarize_trace(trace_format::burstgpt, trace_text("Timestamp,Timestamp,Request tokens\n"),
                        {.name = "b.csv"}),
        "b.csv:1: a column is named twice");
    CHECK(azure("\n\n2023-01-01 00:00:00,1,1\n\n").requests == 1);
    CHECK(moon("").requests == 0);
    CHECK(moon("\n  \n").requests == 0);
    // Zero token counts are valid; BurstGPT's zero responses are failures.
    CHECK(azure("2023-01-01 00:00:00,0,0\n").requests == 1);
    const auto failed = burst("1,5,0\n2,5,1\n");
    CHECK(failed.requests == 1);
    CHECK(failed.failed == 1);
  }

  TEST_CASE("errors: traces read_trace_rates") {
    const char* header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, nan_s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, -1s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, 0s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {.to = 1000h}, 1ms),
                  "step");
    CHECK(read_trace_rates(trace_format::azure, trace_text(header)).empty());
    CHECK(read_trace_rates(trace_format::azure, trace_text(header), {.to = 3min}).size() == 3);
  }

  TEST_CASE("errors: traces read_trace_requests and read_trace_lengths") {
    const char* text = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:00,0,0\n";
    const auto requests = read_trace_requests<sim::request>(trace_format::azure, trace_text(text));
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].prompt_tokens == 1);
    CHECK(requests[0].output_tokens == 1);
    const auto lengths =
        read_trace_lengths<sim::request_lengths>(trace_format::azure, trace_text(text));
    CHECK(lengths[0].prompt_tokens == 1);
    CHECK(read_trace_requests<sim::request>(trace_format::azure,
                                            trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"))
              .empty());
    CHECK_REJECTS_LINE(
        read_trace_lengths<sim::request_lengths>(
            trace_format::azure, trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\nx"),
            {.name = "a.csv"}),
        "a.csv:2: expected 3 comma-separated fields, found 1");
  }

  // ---- sim/fleet_day.hpp (pinned; see the known gaps) --------------------------------------

  TEST_CASE("errors: fleet_day reference_day_rate") {
    CHECK_REJECTS(sim::reference_day_rate(-1), "minute");
    CHECK_REJECTS(sim::reference_day_rate(1440), "minute");
  }

  TEST_CASE("errors: fleet_day parse_traffic_csv") {
    // Never throws: the first bad line and why.
    const auto nan_row = sim::parse_traffic_csv("rate\n1\nnan\n");
    CHECK_FALSE(nan_row.ok());
    CHECK(nan_row.error_line == 3);
    CHECK_FALSE(sim::parse_traffic_csv("rate\n-1\n").ok());
    CHECK_FALSE(sim::parse_traffic_csv("").ok());
    CHECK(sim::parse_traffic_csv("").error == "no data row");
  }

  TEST_CASE("errors: fleet_day fleet_day_simulator") {
    const sim::fleet_day_config good{};
    auto c = good;
    c.capacity_per_replica = not_a_number;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.capacity_per_replica");
    c = good;
    c.target_utilization = 0.0;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.target_utilization");
    c = good;
    c.step = 0s;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.step");
    c = good;
    c.step = 100us;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.step");
    c = good;
    c.scale_down_window_steps = 0;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.scale_down_window_steps");
    c = good;
    c.max_replicas = 0;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.max_replicas");
    c = good;
    c.price_per_replica_hour = -1.0;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.price_per_replica_hour");
    c = good;
    c.tokens_per_request = inf;
    CHECK_REJECTS(sim::fleet_day_simulator(c), "config.tokens_per_request");
  }

  TEST_CASE("errors: fleet_day run and start_delay_steps") {
    sim::fleet_day_simulator day(sim::fleet_day_config{});
    const std::vector<double> traffic{10.0, 20.0};
    const std::vector<double> empty{};
    const std::vector<double> with_nan{10.0, not_a_number};
    const std::vector<double> negative{10.0, -1.0};
    CHECK_REJECTS(day.run(empty, sim::chase(0s)), "traffic_per_second.size()");
    CHECK_REJECTS(day.run(with_nan, sim::chase(0s)), "traffic_per_second[i]");
    CHECK_REJECTS(day.run(negative, sim::chase(0s)), "traffic_per_second[i]");
    CHECK_REJECTS(day.run(traffic, sim::fixed_fleet(-1)), "policy.fixed_replicas");
    CHECK_REJECTS(day.run(traffic, sim::chase(0s, -1)), "policy.spare_replicas");
    CHECK_REJECTS(day.run(traffic, sim::chase(seconds_d(not_a_number))), "policy.start_time");
    CHECK_REJECTS(day.start_delay_steps(sim::chase(-1s)), "policy.start_time");
  }

  // ---- sim/replica.hpp ---------------------------------------------------------------------

  TEST_CASE("errors: replica validate config") {
    sim::replica_config c;
    c.max_batch = 0;
    CHECK_REJECTS(sim::validate(c), "config.max_batch");
    c = {};
    c.kv_budget_tokens = 0;
    CHECK_REJECTS(sim::validate(c), "config.kv_budget_tokens");
    c = {};
    c.max_batched_tokens = c.max_batch - 1;
    CHECK_REJECTS(sim::validate(c), "config.max_batched_tokens");
    c = {};
    c.max_batch = std::size_t{1} << 40;
    c.max_batched_tokens = c.max_batch;
    CHECK_REJECTS(sim::validate(c), "config.max_batch");
  }

  TEST_CASE("errors: replica kv_budget_tokens") {
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = not_a_number,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 0.0,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 1.5,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_fraction");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = -1.0,
                                         .kv_bytes_per_token = 131072.0}),
                  "weight_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 0.0}),
                  "kv_bytes_per_token");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 80e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "weight_bytes");  // no room
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 1e300,
                                         .memory_fraction = 1.0,
                                         .weight_bytes = 0.0,
                                         .kv_bytes_per_token = 1e-300}),
                  "kv_bytes_per_token");
  }

  TEST_CASE("errors: replica lognormal_lengths") {
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = not_a_number,
                                          .prompt_sigma = 1.0,
                                          .output_median = 150.0,
                                          .output_sigma = 0.9}),
                  "prompt_median");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = -1.0,
                                          .output_median = 150.0,
                                          .output_sigma = 0.9}),
                  "prompt_sigma");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = 1.0,
                                          .output_median = 0.0,
                                          .output_sigma = 0.9}),
                  "output_median");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = 1.0,
                                          .output_median = 150.0,
                                          .output_sigma = inf}),
                  "output_sigma");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {0, 1}})),
                  "min.prompt_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {1, 0}})),
                  "min.output_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {10, 1},
                                           .max = {5, 10}})),
                  "max.prompt_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {1, 10},
                                           .max = {10, 5}})),
                  "max.output_tokens");
  }

  TEST_CASE("errors: replica replayed_lengths") {
    const std::vector<sim::request_lengths> empty{};
    const std::vector<sim::request_lengths> zero_prompt{{.prompt_tokens = 0, .output_tokens = 1}};
    const std::vector<sim::request_lengths> zero_output{{.prompt_tokens = 1, .output_tokens = 0}};
    CHECK_REJECTS(sim::replayed_lengths(empty), "list.size()");
    CHECK_REJECTS(sim::replayed_lengths(zero_prompt), "list[i].prompt_tokens");
    CHECK_REJECTS(sim::replayed_lengths(zero_output), "list[i].output_tokens");
  }

  TEST_CASE("errors: replica make_roofline_step_time") {
    const auto& h = accelerators::h100_sxm;
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 0.0,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "parameters");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = not_a_number,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "bytes_per_parameter");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = -1.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "kv_bytes_per_token");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.0,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "flops_efficiency");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 1.5,
                                                   .overhead = 1ms}),
                  "bandwidth_efficiency");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = -1ms}),
                  "overhead");
    accelerator_spec s = h;
    s.peak_bytes_per_second = 0.0;
    CHECK_REJECTS(sim::make_roofline_step_time(s, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "spec.peak_bytes_per_second");
  }

  TEST_CASE("errors: replica exponential_step_time") {
    CHECK_REJECTS(sim::exponential_step_time(0s, 1), "mean");
    CHECK_REJECTS(sim::exponential_step_time(nan_s, 1), "mean");
    CHECK_REJECTS(sim::exponential_step_time(-1s, 1), "mean");
  }

  TEST_CASE("errors: replica simulate") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    std::vector<sim::request> r{{.arrival = 0s, .prompt_tokens = 10, .output_tokens = 10},
                                {.arrival = 1s, .prompt_tokens = 10, .output_tokens = 10}};
    auto bad = r;
    bad[1].arrival = nan_s;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].arrival");
    bad = r;
    bad[0].arrival = 2s;  // unsorted
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].arrival");
    bad = r;
    bad[0].prompt_tokens = 0;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].prompt_tokens");
    bad = r;
    bad[1].output_tokens = 0;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].output_tokens");
    CHECK_REJECTS((sim::simulate(config, r, model, {inf_s})), "options.horizon");
    CHECK_REJECTS((sim::simulate(config, r, sim::constant_step_time{seconds_d(not_a_number)})),
                  "step_time");
    auto c = config;
    c.max_batch = 0;
    CHECK_REJECTS(sim::simulate(c, r, model), "config.max_batch");
    // Domain outcomes: a request that can never fit is rejected, even when its token counts
    // would overflow a sum; an empty request list is an empty run.
    const std::vector<sim::request> huge{
        {.arrival = 0s, .prompt_tokens = static_cast<std::size_t>(-1), .output_tokens = 2}};
    const auto run = sim::simulate(config, huge, model);
    CHECK(run.stats.rejected == 1);
    REQUIRE(run.outcomes.size() == 1);
    CHECK(run.outcomes[0].error);
    CHECK(sim::simulate(config, std::vector<sim::request>{}, model).outcomes.empty());
  }

  TEST_CASE("errors: replica simulate_closed_loop") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    const closed_loop_population users(2, 100ms);
    std::mt19937_64 engine(1);
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 0,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}},
                      engine, model)),
                  "request_count");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 0, .output_tokens = 10}},
                      engine, model)),
                  "lengths().prompt_tokens");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 0}},
                      engine, model)),
                  "lengths().output_tokens");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}},
                      engine, model, {nan_s})),
                  "options.horizon");
    const auto run = sim::simulate_closed_loop(
        config, users, 3,
        sim::fixed_lengths{
            .lengths = {.prompt_tokens = static_cast<std::size_t>(-1), .output_tokens = 2}},
        engine, model);
    CHECK(run.stats.rejected == 3);
  }

  TEST_CASE("errors: replica utilization_of") {
    sim::replica_stats stats;
    const auto model =
        sim::make_roofline_step_time(accelerators::h100_sxm, {.parameters = 8e9,
                                                              .bytes_per_parameter = 2.0,
                                                              .kv_bytes_per_token = 131072.0,
                                                              .flops_efficiency = 0.5,
                                                              .bandwidth_efficiency = 0.8,
                                                              .overhead = 1ms});
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS(sim::utilization_of(stats, model, s), "spec.peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = not_a_number;
    CHECK_REJECTS(sim::utilization_of(stats, model, s), "spec.peak_bytes_per_second");
    // A run without a step: all zero.
    CHECK(sim::utilization_of(stats, model, accelerators::h100_sxm).mfu == 0.0);
  }

  TEST_CASE("errors: replica sweep_capacity") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    const slo objective{.ttft = 1s, .tpot = 100ms};
    const sim::fixed_lengths lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}};
    const std::vector<double> rates{1.0};
    sim::sweep_options good;
    good.requests_per_point = 20;
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, std::vector<double>{}, lengths, objective, good),
        "rates_per_second.size()");
    CHECK_REJECTS(sim::sweep_capacity(config, model, std::vector<double>{1.0, not_a_number},
                                      lengths, objective, good),
                  "rates_per_second[i]");
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, std::vector<double>{0.0}, lengths, objective, good),
        "rates_per_second[i]");
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, rates, lengths, slo{.ttft = 0s, .tpot = 1s}, good),
        "slo.ttft");
    auto o = good;
    o.requests_per_point = 0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.requests_per_point");
    o = good;
    o.arrival_cv = -1.0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.arrival_cv");
    o = good;
    o.replications = 0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.replications");
    o = good;
    o.warm_up_fraction = 1.5;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.warm_up_fraction");
    o = good;
    o.warm_up_fraction = 0.6;
    o.cool_down_fraction = 0.6;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.cool_down_fraction");
    o = good;
    o.z = not_a_number;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o), "options.z");
  }
}

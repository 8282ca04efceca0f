// SPDX-License-Identifier: Apache-2.0
// The error policy of sim/fleet_day.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/sim/fleet_day.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
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
}

// SPDX-License-Identifier: Apache-2.0
#include <headroom/sim/fleet_day.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {
namespace sim = headroom::sim;
using namespace std::chrono_literals;

// Rounds as the reference table is printed ({:7.1f}, {:8.2%}), to compare at the printed digits.
std::string printed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}
}  // namespace

TEST_SUITE("fleet_day") {
  TEST_CASE("fleet_day: the reference traffic is docs/background.md's formula") {
    // 14:00 is the top of the hump: x = 0 → 12 + 48 = 60 req/s.
    CHECK(sim::reference_day_rate(840) == 60.0);
    // 09:00: x = (540 − 840)/300 = −1 → 12 req/s; 00:00: x = −2.8 → clipped → 12.
    CHECK(sim::reference_day_rate(540) == 12.0);
    CHECK(sim::reference_day_rate(0) == 12.0);
    // 11:30: x = −0.5 → 12 + 48·0.75² = 39 req/s.
    CHECK(sim::reference_day_rate(690) == doctest::Approx(39.0).epsilon(1e-15));
    // 21:00–21:19 add 30 to the base of 12; 20:59 and 21:20 do not.
    CHECK(sim::reference_day_rate(1260) == 42.0);
    CHECK(sim::reference_day_rate(1279) == 42.0);
    CHECK(sim::reference_day_rate(1259) == 12.0);
    CHECK(sim::reference_day_rate(1280) == 12.0);
    CHECK(sim::reference_day_traffic().size() == 1440);
    CHECK_THROWS_AS((void)sim::reference_day_rate(1440), headroom::invalid_argument);
  }

  TEST_CASE("fleet_day: the five policies reproduce the reference table") {
    // docs/simulated-day.md's reference table, for μ* = 8, target 80 %, window 5, starts of
    // 1 and 8 minutes, 3 spare replicas, computed by an independent NumPy implementation of the
    // rules of docs/background.md §8 (row 1 by hand there: ceil(60/8) = 8 replicas × 24 h =
    // 192.0; mean rate 23.08 req/s / 64 = 36.1 %):
    //   policy                       hours  short  queued    over    use
    //   always at peak               192.0      0       0   0.00%  36.1%
    //   chase, 1-min start            94.4      1       2   0.08%  73.5%
    //   chase, 8-min start            94.4      8      20   0.63%  74.3%
    //   8 min, 3 spare replicas      166.4      8       8   0.05%  42.0%
    //   8 min, with the calendar      96.1      0       0   0.00%  73.4%
    struct expected {
      sim::fleet_policy policy;
      const char* hours;
      long long short_minutes, queued_minutes;
      const char* over_percent;
      const char* use_percent;
    };
    const expected table[] = {
        {sim::fixed_fleet(8), "192.0", 0, 0, "0.00", "36.1"},
        {sim::chase(1min), "94.4", 1, 2, "0.08", "73.5"},
        {sim::chase(8min), "94.4", 8, 20, "0.63", "74.3"},
        {sim::chase(8min, 3), "166.4", 8, 8, "0.05", "42.0"},
        {sim::chase_with_calendar(8min), "96.1", 0, 0, "0.00", "73.4"},
    };
    const auto traffic = sim::reference_day_traffic();
    sim::fleet_day_simulator simulator({});
    for (const auto& row : table) {
      const auto s = simulator.run(traffic, row.policy);
      CHECK(printed(s.replica_hours, 1) == row.hours);
      CHECK(s.short_steps == row.short_minutes);
      CHECK(s.backlog_steps == row.queued_minutes);
      CHECK(printed(100.0 * s.over_share, 2) == row.over_percent);
      CHECK(printed(100.0 * s.mean_use, 1) == row.use_percent);
    }
    // "always at peak" is 8 replicas: ceil(60/8) with no margin; 8 × 24 h = 192 replica-hours.
    CHECK(static_cast<int>(std::ceil(60.0 / 8.0)) == 8);
  }

  TEST_CASE("fleet_day: the 21:00 event asks for 2 then 7 replicas") {
    // The seed: "repliche chieste: 2 alle 20:59, 7 alle 21:00": ceil(12/6.4) = 2,
    // ceil(42/6.4) = ceil(6.5625) = 7.
    const auto traffic = sim::reference_day_traffic();
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = traffic[1259],
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 2);
    CHECK(headroom::queueing::replicas_needed({.arrival_rate_per_second = traffic[1260],
                                               .target_utilization = 0.8,
                                               .capacity_per_second = 8.0}) == 7);
    // The chasing controller asks for exactly that at 21:00 (7 requested, 5 of them new).
    sim::fleet_day_simulator simulator({});
    std::vector<sim::fleet_step_record> trace;
    (void)simulator.run(traffic, sim::chase(8min), &trace);
    CHECK(trace[1259].requested == 2);
    CHECK(trace[1260].requested == 7);
    CHECK(trace[1260].ready == 2);
    CHECK(trace[1260].paid == 7);
    // Ready eight minutes later, at 21:08.
    CHECK(trace[1267].ready == 2);
    CHECK(trace[1268].ready == 7);
  }

  TEST_CASE("fleet_day: a hand-traced small day") {
    // μ* = 8, ρ* = 0.5 → 4 req/s per replica; window 2 steps; start 2 minutes.
    // traffic 4, 4, 12, 12, 12, 4, 4, 4, 4 req/s:
    //   m0–1: ceil(4/4) = 1 replica, held.
    //   m2: ceil(12/4) = 3 > 1 → 2 requested, ready at m4; ready 1, paid 3; 8 < 12: short.
    //   m3: 3 = 1 ready + 2 starting → hold; short again.
    //   m4: the 2 arrive: ready 3.
    //   m5: desired 1, window {3 (m4), 1 (m5)} → max 3: held (stabilised).
    //   m6: window {1, 1} → down to 1.
    // paid = 1+1+3+3+3+3+1+1+1 = 17 replica-minutes = 17/60 h.
    // short steps: m2, m3. backlog: m2 (12−8)·60 = 240, m3 480, m4 480 + (12−24)·60 < 0 → 0.
    // over share: (4 + 4)/60. served 4+4+8+8+12+4+4+4+4 = 52 over capacity 8·13 = 104 → 0.5.
    sim::fleet_day_simulator simulator(
        {.capacity_per_replica = 8.0, .target_utilization = 0.5, .scale_down_window_steps = 2});
    const std::vector<double> traffic = {4, 4, 12, 12, 12, 4, 4, 4, 4};
    std::vector<sim::fleet_step_record> trace;
    const auto s = simulator.run(traffic, sim::chase(2min), &trace);
    const int ready[] = {1, 1, 1, 1, 3, 3, 1, 1, 1};
    const int paid[] = {1, 1, 3, 3, 3, 3, 1, 1, 1};
    REQUIRE(trace.size() == 9);
    for (std::size_t m = 0; m < 9; ++m) {
      CAPTURE(m);
      CHECK(trace[m].ready == ready[m]);
      CHECK(trace[m].paid == paid[m]);
    }
    CHECK(trace[5].reason == headroom::autoscaling::scale_reason::scale_down_stabilized);
    CHECK(s.replica_hours == doctest::Approx(17.0 / 60.0));
    CHECK(s.short_steps == 2);
    CHECK(s.backlog_steps == 2);
    CHECK(trace[3].backlog_requests == doctest::Approx(480.0));
    CHECK(s.over_share == doctest::Approx(8.0 / 60.0));
    CHECK(s.mean_use == doctest::Approx(0.5));
    CHECK(s.peak_paid == 3);
  }

  TEST_CASE("fleet_day: no scale-down while replicas are on their way") {
    // Start 3 steps, window 1. m0: 1 replica (4/4). m1: 12 → 3, two starting until m4.
    // m2: traffic drops to 0 → desired 0, but two are starting: hold at 3 paid, 1 ready.
    // m4: they arrive; desired 0 → scale to 0 at once (window 1).
    sim::fleet_day_simulator simulator({.target_utilization = 0.5, .scale_down_window_steps = 1});
    const std::vector<double> traffic = {4, 12, 0, 0, 0, 0};
    std::vector<sim::fleet_step_record> trace;
    (void)simulator.run(traffic, sim::chase(3min), &trace);
    CHECK(trace[2].paid == 3);
    CHECK(trace[2].ready == 1);
    CHECK(trace[2].reason == headroom::autoscaling::scale_reason::waiting_for_starting);
    CHECK(trace[3].paid == 3);
    CHECK(trace[4].paid == 0);
    CHECK(trace[5].paid == 0);
  }

  TEST_CASE("fleet_day: cost per million tokens follows cost.hpp's worked number") {
    // One replica, μ* = 8 req/s, 320 tokens per request → ν* = 2560 tokens/s; fully used for
    // an hour at 2 per hour: 2 / 9.216e6 tokens = 0.217 per million (docs/background.md §6).
    sim::fleet_day_simulator simulator(
        {.capacity_per_replica = 8.0, .price_per_replica_hour = 2.0, .tokens_per_request = 320.0});
    const std::vector<double> traffic(60, 8.0);
    const auto full = simulator.run(traffic, sim::fixed_fleet(1));
    REQUIRE(full.cost_per_million_tokens.has_value());
    CHECK(*full.cost_per_million_tokens == doctest::Approx(2.0 / 9.216).epsilon(1e-12));
    CHECK(full.cost == doctest::Approx(2.0));
    // Three replicas for the same traffic: use 1/3, three times the price per token.
    const auto idle = simulator.run(traffic, sim::fixed_fleet(3));
    CHECK(*idle.cost_per_million_tokens == doctest::Approx(3 * 2.0 / 9.216).epsilon(1e-12));
    // Without a price there is no token cost.
    sim::fleet_day_simulator free_fleet({});
    CHECK_FALSE(free_fleet.run(traffic, sim::fixed_fleet(1)).cost_per_million_tokens);
  }

  TEST_CASE("fleet_day: the traffic CSV reader") {
    auto ok = sim::parse_traffic_csv("minute,rate\n0,1.5\n1, 2\r\n\n2,3e1\n");
    REQUIRE(ok.ok());
    CHECK(ok.rates_per_second == std::vector<double>{1.5, 2.0, 30.0});
    // A single column without a header.
    CHECK(sim::parse_traffic_csv("4\n5\n").rates_per_second == std::vector<double>{4, 5});
    // Errors carry the 1-based line.
    auto bad = sim::parse_traffic_csv("minute,rate\n0,1\n1,abc\n");
    CHECK_FALSE(bad.ok());
    CHECK(bad.error_line == 3);
    CHECK(bad.rates_per_second.empty());
    auto negative = sim::parse_traffic_csv("0,1\n1,-2\n");
    CHECK(negative.error_line == 2);
    CHECK(negative.error.find("negative") != std::string::npos);
    CHECK(sim::parse_traffic_csv("0,nan\n").error_line == 1);
    CHECK(sim::parse_traffic_csv("0,inf\n").error_line == 1);
    // A header alone, or nothing, is no traffic.
    CHECK_FALSE(sim::parse_traffic_csv("minute,rate\n").ok());
    CHECK_FALSE(sim::parse_traffic_csv("").ok());
    // Only the first line may be a header.
    CHECK(sim::parse_traffic_csv("a,b\nc,d\n").error_line == 2);
  }

  TEST_CASE("fleet_day: bad configuration and traffic are rejected by name") {
    sim::fleet_day_config config;
    config.capacity_per_replica = 0.0;
    CHECK_THROWS_WITH_AS(sim::fleet_day_simulator{config},
                         doctest::Contains("config.capacity_per_replica"),
                         headroom::invalid_argument);
    config = {};
    config.target_utilization = 1.5;
    CHECK_THROWS_AS(sim::fleet_day_simulator{config}, headroom::invalid_argument);
    config = {};
    config.scale_down_window_steps = 0;
    CHECK_THROWS_AS(sim::fleet_day_simulator{config}, headroom::invalid_argument);
    config = {};
    config.step = std::chrono::duration<double>(std::numeric_limits<double>::quiet_NaN());
    CHECK_THROWS_AS(sim::fleet_day_simulator{config}, headroom::invalid_argument);

    sim::fleet_day_simulator simulator({});
    const std::vector<double> empty;
    CHECK_THROWS_AS((void)simulator.run(empty, sim::chase(1min)), headroom::invalid_argument);
    const std::vector<double> negative = {1.0, -1.0};
    CHECK_THROWS_WITH_AS((void)simulator.run(negative, sim::chase(1min)),
                         doctest::Contains("traffic_per_second"), headroom::invalid_argument);
    const std::vector<double> fine = {1.0};
    CHECK_THROWS_AS((void)simulator.run(fine, sim::chase(-1min)), headroom::invalid_argument);
    CHECK_THROWS_AS((void)simulator.run(fine, sim::fixed_fleet(-1)), headroom::invalid_argument);
  }

  TEST_CASE("fleet_day: a target or a rate the controller's quantities would change is refused") {
    using headroom::test::rejected;
    // ρ*μ* = 0.5 × 0.001 = 0.0005 req/s: read in whole milli-units it would be 0.001, and the
    // fleet half the size ρ* asks for (as with ρ* = 1).
    CHECK(rejected([] {
            sim::fleet_day_simulator s({.capacity_per_replica = 0.001, .target_utilization = 0.5});
          }) == "config.target_utilization * config.capacity_per_replica");
    CHECK(rejected([] {
            sim::fleet_day_simulator s({.capacity_per_replica = 0.002, .target_utilization = 0.5});
          }).empty());  // 0.001: one milli-unit exactly
    // Against a target of 0.002 req/s, a rate of 0.0034 reads as 0.004: the count it asks
    // for moves from 1.7 to 2 replicas, more than 0.01. 0.004 and 0 read as they are; with a
    // target of 0.1 req/s or more every rate passes (1 milli-unit is 0.01 of it at most).
    sim::fleet_day_simulator tiny({.capacity_per_replica = 0.002, .target_utilization = 1.0});
    const std::vector<double> off = {0.004, 0.0034};
    const std::vector<double> exact = {0.004, 0.0};
    CHECK(rejected([&] { (void)tiny.run(off, sim::chase(1min)); }) == "traffic_per_second[i]");
    CHECK(rejected([&] { (void)tiny.run(exact, sim::chase(1min)); }).empty());
    CHECK(rejected([&] { (void)tiny.run(off, sim::fixed_fleet(3)); }).empty());  // no controller
    sim::fleet_day_simulator slow({.capacity_per_replica = 0.125, .target_utilization = 0.8});
    const std::vector<double> sixtieths = {1.0 / 60, 7.0 / 60, 0.0123456};
    CHECK(rejected([&] { (void)slow.run(sixtieths, sim::chase(1min)); }).empty());
  }

  TEST_CASE("fleet_day: the fleet for the peak is a checked count") {
    // The reference day peaks at 60 req/s (14:00): ceil(60 / 8) = 8 replicas (192 h a day).
    sim::fleet_day_config config;
    const auto day = sim::reference_day_traffic();
    const sim::fleet_policy peak = sim::peak_fleet(day, config);
    CHECK(peak.kind == sim::fleet_policy_kind::fixed);
    CHECK(peak.fixed_replicas == 8);
    const std::vector<double> quiet = {0.0, 0.0};
    CHECK(sim::peak_fleet(quiet, config).fixed_replicas == 0);
    // max_replicas (10^6) replicas of 8 req/s hold 8e6 req/s exactly; one more req/s needs
    // one more replica than allowed.
    const std::vector<double> at_limit = {8e6};
    CHECK(sim::peak_fleet(at_limit, config).fixed_replicas == 1'000'000);
    const std::vector<double> past_limit = {8e6 + 1.0};
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(past_limit, config); }) ==
          "traffic_per_second");
    // A rate of 1e11 req/s at 4 req/s per replica is 2.5e10 replicas: past std::int32_t, where
    // a cast would be undefined behaviour; named instead.
    config.capacity_per_replica = 4.0;
    const std::vector<double> huge = {1e11, 5.0};
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(huge, config); }) ==
          "traffic_per_second");
    config.capacity_per_replica = 1e-300;  // 60 req/s / 1e-300: far past any count
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(day, config); }) ==
          "traffic_per_second");
    config = {};
    const std::vector<double> empty;
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(empty, config); }) ==
          "traffic_per_second.size()");
    const std::vector<double> negative = {1.0, -1.0};
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(negative, config); }) ==
          "traffic_per_second[i]");
    config.capacity_per_replica = 0.0;
    CHECK(headroom::test::rejected([&] { (void)sim::peak_fleet(day, config); }) ==
          "config.capacity_per_replica");
  }

  TEST_CASE("fleet_day: a zero start delay makes requested replicas ready in the same step") {
    sim::fleet_day_simulator simulator({});
    const std::vector<double> traffic = {6.4, 64.0, 64.0};
    std::vector<sim::fleet_step_record> trace;
    const auto s = simulator.run(traffic, sim::chase(0min), &trace);
    // ceil(64/6.4) = 10 ready at once; capacity 80 ≥ 64: never short.
    CHECK(trace[1].ready == 10);
    CHECK(s.short_steps == 0);
  }

  TEST_CASE("fleet_day: a start time far beyond the day never makes a replica ready") {
    // Found by tests/fuzz/traffic_csv.fuzz.cpp: 1e300 s / 60 s did not fit an int64
    // (undefined behaviour), and a large finite delay sized a buffer by the delay.
    sim::fleet_day_simulator simulator({});
    const std::vector<double> traffic = {6.4, 64.0, 64.0};
    const auto never = sim::chase(std::chrono::duration<double>(1e300));
    CHECK(simulator.start_delay_steps(never) == (std::int64_t{1} << 62));
    std::vector<sim::fleet_step_record> trace;
    const auto s = simulator.run(traffic, never, &trace);
    CHECK(trace[1].ready == 1);
    CHECK(trace[1].paid == 10);
    CHECK(trace[2].ready == 1);
    CHECK(s.short_steps == 2);
    const auto late = simulator.run(traffic, sim::chase(std::chrono::hours{24 * 365}), &trace);
    CHECK(late.short_steps == 2);
    CHECK(trace[2].paid == 10);
  }

  TEST_CASE("fleet_day: rates near the double range keep the shares finite") {
    // Found by tests/fuzz/traffic_csv.fuzz.cpp: the sum of the arrivals overflowed and
    // over_share was inf / inf = NaN.
    sim::fleet_day_simulator simulator(
        {.price_per_replica_hour = 2.0, .tokens_per_request = 100.0});
    const std::vector<double> traffic = {1e308, std::numeric_limits<double>::max(), 8.0};
    const auto s = simulator.run(traffic, sim::fixed_fleet(1));
    CHECK(s.over_share >= 0.0);
    CHECK(s.over_share <= 1.0);
    CHECK(s.over_share == doctest::Approx(1.0));
    CHECK(s.mean_use == doctest::Approx(1.0));
    CHECK(s.short_steps == 2);
    REQUIRE(s.cost_per_million_tokens.has_value());
    CHECK(std::isfinite(*s.cost_per_million_tokens));
    // Everyday traffic is summed unscaled, so the reference table is unchanged (tested above).
  }

  TEST_CASE("fleet_day: extreme steps and a first rate beyond max_replicas") {
    // A step longer than 366 days, or a window of steps longer than that, is refused by name.
    sim::fleet_day_config config;
    config.step = std::chrono::hours{24 * 367};
    CHECK_THROWS_WITH_AS(sim::fleet_day_simulator{config}, doctest::Contains("config.step"),
                         headroom::invalid_argument);
    config = {};
    config.step = std::chrono::hours{24 * 100};
    config.scale_down_window_steps = 4;  // 400 days
    CHECK_THROWS_WITH_AS(sim::fleet_day_simulator{config},
                         doctest::Contains("config.scale_down_window_steps"),
                         headroom::invalid_argument);
    // A first rate of 1e300 req/s asks for max_replicas (10), not an overflowing count.
    config = {};
    config.max_replicas = 10;
    sim::fleet_day_simulator simulator(config);
    const std::vector<double> traffic = {1e300, 1.0};
    std::vector<sim::fleet_step_record> trace;
    (void)simulator.run(traffic, sim::chase(1min), &trace);
    CHECK(trace[0].ready == 10);
  }
}

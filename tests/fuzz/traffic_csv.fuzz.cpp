// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom::sim::parse_traffic_csv and fleet_day_simulator
// (headroom/sim/fleet_day.hpp). Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/traffic_csv.fuzz.cpp -o /tmp/fz_traffic_csv
//   /tmp/fz_traffic_csv -max_total_time=120 tests/fuzz/corpus/traffic_csv
// The whole input is the CSV text. Invariants of the parser: it never throws or crashes;
// ok() <=> error_line == 0 (and a failure says why); on success there is at least one rate,
// every rate is finite and >= 0, and there are no more rates than lines; on failure the
// rates are empty and error_line lies in [1, max(1, lines)]; a leading blank line gives the
// same rates and moves the error one line down; a missing final newline changes nothing.
// When it succeeds with <= 2000 rows, a simulator configured from the first bytes runs the
// day (a fixed, peak (sim::peak_fleet: a count that holds the peak within max_replicas, or
// rejected by name), chasing or calendar policy) and its summary must satisfy: 0 <= over_share
// <= 1, 0 <= mean_use <= 1 (+1e-12), short_steps and backlog_steps <= steps, replica_hours
// >= 0 and equal to the trace's sum of paid x step / 3600, 0 <= ready <= paid at every step,
// peak_paid = max paid, and the cost per million tokens, when present, finite and >= 0.
#include <headroom/sim/fleet_day.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace hr = headroom;
namespace sim = headroom::sim;

[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "traffic_csv fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INV(cond)                   \
  do {                                      \
    if (!(cond)) violated(#cond, __LINE__); \
  } while (false)

std::size_t count_lines(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n + ((!s.empty() && s.back() != '\n') ? 1 : 0);
}

bool same_rates(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

std::uint8_t at(std::string_view text, std::size_t i) {
  return i < text.size() ? static_cast<std::uint8_t>(text[i]) : std::uint8_t{0};
}

void run_day(std::string_view text, const std::vector<double>& rates) {
  using seconds = std::chrono::duration<double>;
  static constexpr std::array<double, 8> capacities{8.0, 1.0, 0.5, 100.0, 1e-3, 1e6, 3.7, 1e300};
  static constexpr std::array<double, 6> targets{0.8, 1.0, 0.5, 0.01, 0.999, 0.7};
  static constexpr std::array<double, 8> steps{60.0, 1.0, 15.0, 0.001, 0.5, 3600.0, 0.0004, 7.5};
  static constexpr std::array<std::int32_t, 5> maxima{1'000'000, 1, 10, 100, 2147483647};
  static constexpr std::array<double, 8> starts{0.0,  60.0,    480.0, 30.0,
                                                1e-3, 86400.0, 1e300, 59.99};
  static constexpr std::array<std::int32_t, 6> spares{0, 1, 3, 0, 10, 1000};

  // Decoded from the first bytes of the text (whatever they are).
  const std::uint8_t b0 = at(text, 0), b1 = at(text, 1), b2 = at(text, 2), b3 = at(text, 3);
  const sim::fleet_day_config config{.capacity_per_replica = capacities[b0 % capacities.size()],
                                     .target_utilization = targets[(b0 >> 3) % targets.size()],
                                     .step = seconds{steps[b1 % steps.size()]},
                                     .scale_down_window_steps = 1 + (b1 >> 3) % 8,
                                     .max_replicas = maxima[b2 % maxima.size()],
                                     .price_per_replica_hour = (b2 & 0x40) ? 2.5 : 0.0,
                                     .tokens_per_request = (b2 & 0x80) ? 200.0 : 0.0};
  sim::fleet_policy policy;
  switch (b3 % 4) {
    case 0:
      policy = sim::fixed_fleet(static_cast<std::int32_t>(b3 >> 2));
      break;
    case 3: {
      // The fleet for the peak: a count that holds the peak with no replica to spare, within
      // max_replicas, or rejected by name (never a cast past std::int32_t).
      const double peak = *std::max_element(rates.begin(), rates.end());
      try {
        policy = sim::peak_fleet(rates, config);
      } catch (const hr::invalid_argument& e) {
        REQUIRE_INV(std::string_view(e.parameter()) == "traffic_per_second");
        REQUIRE_INV(peak / config.capacity_per_replica > static_cast<double>(config.max_replicas));
        return;
      }
      REQUIRE_INV(policy.fixed_replicas >= 0 && policy.fixed_replicas <= config.max_replicas);
      REQUIRE_INV(static_cast<double>(policy.fixed_replicas) >=
                  peak / config.capacity_per_replica * (1 - 1e-12));
      REQUIRE_INV(policy.fixed_replicas == 0 ||
                  static_cast<double>(policy.fixed_replicas - 1) <
                      peak / config.capacity_per_replica * (1 + 1e-12));
      break;
    }
    case 1:
      policy =
          sim::chase(seconds{starts[(b3 >> 2) % starts.size()]}, spares[(b3 >> 5) % spares.size()]);
      break;
    default:
      policy = sim::chase_with_calendar(seconds{starts[(b3 >> 2) % starts.size()]},
                                        spares[(b3 >> 5) % spares.size()]);
  }

  std::optional<sim::fleet_day_simulator> simulator;
  try {
    simulator.emplace(config);
  } catch (const hr::invalid_argument&) {
    return;  // e.g. a step under 1 ms
  }
  std::vector<sim::fleet_step_record> trace;
  sim::fleet_day_summary s;
  try {
    s = simulator->run(rates, policy, &trace);
  } catch (const hr::invalid_argument& e) {
    const std::string_view parameter = e.parameter();
    if (parameter == "traffic_per_second[i]") {
      // Documented: a reactive policy refuses a rate that the controller's milli-unit
      // quantities would move by more than 0.01 replica, which only a target under 0.1 req/s
      // allows.
      REQUIRE_INV(policy.kind == sim::fleet_policy_kind::reactive);
      REQUIRE_INV(config.capacity_per_replica * config.target_utilization < 0.1);
      return;
    }
    // Documented: replicas_needed rejects a rate whose replica count exceeds 2^62.
    REQUIRE_INV(parameter == "rate_per_second");
    return;
  }
  const auto n = static_cast<std::int64_t>(rates.size());
  REQUIRE_INV(trace.size() == rates.size());
  REQUIRE_INV(s.over_share >= 0.0 && s.over_share <= 1.0);
  REQUIRE_INV(s.mean_use >= 0.0 && s.mean_use <= 1.0 + 1e-12);
  REQUIRE_INV(s.short_steps >= 0 && s.short_steps <= n);
  REQUIRE_INV(s.backlog_steps >= 0 && s.backlog_steps <= n);
  REQUIRE_INV(s.replica_hours >= 0.0);
  REQUIRE_INV(s.requests_served >= 0.0);
  REQUIRE_INV(s.cost >= 0.0);
  if (s.cost_per_million_tokens)
    REQUIRE_INV(std::isfinite(*s.cost_per_million_tokens) && *s.cost_per_million_tokens >= 0.0);
  double paid = 0.0;
  std::int32_t peak = 0;
  for (std::size_t m = 0; m < trace.size(); ++m) {
    const auto& t = trace[m];
    REQUIRE_INV(t.ready >= 0 && t.ready <= t.paid);
    REQUIRE_INV(t.arrivals_per_second == rates[m]);
    REQUIRE_INV(t.excess_per_second >= 0.0 && t.backlog_requests >= 0.0);
    paid += static_cast<double>(t.paid);
    peak = std::max(peak, t.paid);
  }
  const double hours = paid * config.step.count() / 3600.0;
  REQUIRE_INV(std::abs(s.replica_hours - hours) <= 1e-12 * std::max(1.0, hours));
  REQUIRE_INV(s.peak_paid == peak);
  if (policy.kind == sim::fleet_policy_kind::fixed) {
    for (const auto& t : trace) REQUIRE_INV(t.ready == policy.fixed_replicas);
  } else {
    for (const auto& t : trace) REQUIRE_INV(t.paid <= config.max_replicas);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t lines = count_lines(text);
  const sim::traffic_csv_result result = sim::parse_traffic_csv(text);

  REQUIRE_INV(result.ok() == (result.error_line == 0));
  if (result.ok()) {
    REQUIRE_INV(result.error.empty());
    REQUIRE_INV(!result.rates_per_second.empty() && result.rates_per_second.size() <= lines);
    for (double r : result.rates_per_second) REQUIRE_INV(std::isfinite(r) && r >= 0.0);
  } else {
    REQUIRE_INV(!result.error.empty());
    REQUIRE_INV(result.rates_per_second.empty());
    REQUIRE_INV(result.error_line >= 1 && result.error_line <= std::max<std::size_t>(lines, 1));
  }

  // A leading blank line shifts the error down by one and changes nothing else.
  if (!text.empty()) {
    const std::string shifted = "\n" + std::string(text);
    const sim::traffic_csv_result r2 = sim::parse_traffic_csv(shifted);
    REQUIRE_INV(r2.ok() == result.ok() && same_rates(r2.rates_per_second, result.rates_per_second));
    REQUIRE_INV(r2.error_line == (result.ok() ? 0 : result.error_line + 1));
  }
  // A final newline changes nothing.
  if (!text.empty() && text.back() != '\n') {
    const std::string closed = std::string(text) + "\n";
    const sim::traffic_csv_result r3 = sim::parse_traffic_csv(closed);
    REQUIRE_INV(r3.ok() == result.ok() && same_rates(r3.rates_per_second, result.rates_per_second));
    REQUIRE_INV(r3.error_line == result.error_line && r3.error == result.error);
  }

  if (result.ok() && result.rates_per_second.size() <= 2000) run_day(text, result.rates_per_second);
  return 0;
}

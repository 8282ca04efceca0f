// SPDX-License-Identifier: Apache-2.0
// The simulated day: the reference day's five policies over 1440 minutes, as the example runs
// them (docs/simulated-day.md quotes the median and a NumPy implementation's time beside it).
#include <headroom/sim/fleet_day.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

namespace {
namespace sim = headroom::sim;
using namespace std::chrono_literals;

void fleet_day_five_policies(benchmark::State& state) {
  const std::vector<double> traffic = sim::reference_day_traffic();
  const sim::fleet_policy policies[] = {sim::fixed_fleet(8), sim::chase(1min), sim::chase(8min),
                                        sim::chase(8min, 3), sim::chase_with_calendar(8min)};
  sim::fleet_day_simulator simulator({});
  for (auto _ : state) {
    for (const auto& policy : policies) {
      auto summary = simulator.run(traffic, policy);
      benchmark::DoNotOptimize(summary);
    }
  }
  state.SetItemsProcessed(state.iterations() * 5 * 1440);  // policy-minutes simulated
}
BENCHMARK(fleet_day_five_policies)->Unit(benchmark::kMicrosecond);

void fleet_day_one_reactive_policy(benchmark::State& state) {
  const std::vector<double> traffic = sim::reference_day_traffic();
  sim::fleet_day_simulator simulator({});
  for (auto _ : state) {
    auto summary = simulator.run(traffic, sim::chase(8min));
    benchmark::DoNotOptimize(summary);
  }
  state.SetItemsProcessed(state.iterations() * 1440);
}
BENCHMARK(fleet_day_one_reactive_policy)->Unit(benchmark::kMicrosecond);

}  // namespace

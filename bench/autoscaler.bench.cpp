// SPDX-License-Identifier: Apache-2.0
// Cost of one autoscaler recommendation, and proof that a warm step does not allocate.
//
// Allocation check: the executable's global operator new counts (bench/allocation_counter.hpp).
// Each benchmark below reports "allocs/step" and fails (SkipWithError) if any step in the
// timed loop allocated.
#include <headroom/autoscaler.hpp>

#include <benchmark/benchmark.h>

#include "allocation_counter.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

using namespace std::chrono_literals;

// The bench's metric and the replicas that report it: 16 replicas, a Pods AverageValue target
// of 51.2 in flight (docs/autoscaler.md), a 1 s sync.
constexpr std::int32_t bench_replicas = 16;
constexpr double bench_target = 51.2;
constexpr std::chrono::seconds bench_period{1};
// Syncs before timing: longer than the 3000 s window so every buffer is at its steady size.
constexpr int warm_up_steps = 4000;

headroom::autoscaling::autoscaler_config bench_config(bool with_behavior,
                                                      std::chrono::seconds down_window) {
  headroom::autoscaling::autoscaler_config c;
  c.min_replicas = 1;
  c.max_replicas = 1000;
  c.metrics = {{.name = "vllm:num_requests_running",
                .source = headroom::autoscaling::metric_source::pods,
                .target_type = headroom::autoscaling::metric_target_type::average_value,
                .target = bench_target}};
  if (with_behavior) {
    c.behavior = headroom::autoscaling::scaling_behavior{};  // the Kubernetes defaults
    c.behavior->scale_down.stabilization_window = down_window;
  } else {
    c.downscale_stabilization = down_window;
  }
  c.sync_period = bench_period;
  return c;
}

// One sync per iteration at a 1 s period, 16 pods reporting a load that wanders around the
// target so that the windows, the rate limits and the scale events all see work. The replica
// count stays at 16, so every step reads the same pods.
void run_steps(benchmark::State& bench, bool with_behavior, std::chrono::seconds down_window) {
  const headroom::autoscaling::autoscaler controller(bench_config(with_behavior, down_window));
  auto state = controller.initial_state();
  std::vector<headroom::autoscaling::pod_sample> pods(bench_replicas,
                                                      headroom::autoscaling::pod_sample{});
  const headroom::autoscaling::metric_observation obs = headroom::autoscaling::observe_pods(pods);
  const headroom::autoscaling::autoscaler_input input{
      .replicas = {.spec = bench_replicas, .status = bench_replicas, .ready = bench_replicas},
      .metrics = {&obs, 1}};
  std::int64_t t = 0;
  const auto one_step = [&] {
    const auto load_milli = static_cast<std::int64_t>(
        bench_target * 1000.0 * (0.6 + 0.8 * static_cast<double>((t * 37) % 101) / 100.0));
    for (auto& p : pods) p.value = headroom::autoscaling::quantity{.milli = load_milli};
    const auto d = controller.step(state, std::chrono::seconds{t}, input);
    benchmark::DoNotOptimize(d);
    ++t;
    return d.desired_replicas;
  };
  for (int i = 0; i < warm_up_steps; ++i) (void)one_step();
  const std::uint64_t before = headroom_bench::allocations();
  for (auto _ : bench) benchmark::DoNotOptimize(one_step());
  const std::uint64_t allocations = headroom_bench::allocations() - before;
  bench.counters["allocs/step"] = benchmark::Counter(static_cast<double>(allocations) /
                                                     static_cast<double>(bench.iterations()));
  bench.counters["window_entries"] = static_cast<double>(state.window_entries());
  if (allocations != 0) bench.SkipWithError("a warm autoscaler step allocated");
}

// The HPA defaults: the default behavior (its down window from the 300 s flag default).
void BM_autoscaler_step_default_behavior(benchmark::State& bench) {
  run_steps(bench, true, headroom::autoscaling::default_downscale_stabilization);
}
void BM_autoscaler_step_no_behavior(benchmark::State& bench) {
  run_steps(bench, false, headroom::autoscaling::default_downscale_stabilization);
}
// The default behavior with a scale-down window of range(0) seconds at a 1 s period: the cost
// must not grow with the window (the bound: 3000 s at most 1.5x the 30 s step).
void BM_autoscaler_step_window(benchmark::State& bench) {
  run_steps(bench, true, std::chrono::seconds{bench.range(0)});
}

}  // namespace

BENCHMARK(BM_autoscaler_step_default_behavior);
BENCHMARK(BM_autoscaler_step_no_behavior);
BENCHMARK(BM_autoscaler_step_window)->Arg(30)->Arg(3000);

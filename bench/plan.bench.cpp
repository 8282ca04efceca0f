// SPDX-License-Identifier: Apache-2.0
// The deployment planner over the grid of examples/plan_deployment.cpp: a 70B-class and an
// 8B-class model × 4 accelerators × TP {1, 2, 4, 8} × 3 batch limits × 2 chunk sizes = 192
// configurations, each a zero-load screen, a μ* search of simulated load tests of 4000
// requests, an operating-point run and a simulated day. Whole-grid wall time, process CPU
// time and configurations per second on one thread and on every core, side by side
// (docs/planner.md quotes them). plan_small_grid is the cheap case CI's smoke run keeps.
#include <headroom/plan.hpp>
#include <headroom/plan/calibrate.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "../tests/planner_rows.hpp"

namespace {
namespace plan = headroom::plan;
namespace sim = headroom::sim;
using namespace std::chrono_literals;

const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                  .prompt_sigma = 1.0,
                                  .output_median = 150.0,
                                  .output_sigma = 0.9,
                                  .min = {4, 1},
                                  .max = {4096, 2048}});

// The example's two problems (its prices, links, SLOs and day; the shipped calibrations).
std::vector<plan::problem> example_grid(std::size_t requests_per_run) {
  const auto option = [](const headroom::roofline::accelerator_spec& spec, double price,
                         double link) {
    return plan::accelerator_option{
        .spec = spec, .price_per_gpu_hour = price, .interconnect_bytes_per_second = link};
  };
  namespace gpus = headroom::roofline::accelerators;
  const plan::problem base{.axes = {.accelerators = {option(gpus::h100_sxm, 3.00, 450e9),
                                                     option(gpus::h200_sxm, 3.80, 450e9),
                                                     option(gpus::a100_80gb_sxm, 1.80, 300e9),
                                                     option(gpus::l40s, 1.00, 32e9)},
                                    .tensor_parallel = {1, 2, 4, 8},
                                    .max_batch = {64, 128, 256},
                                    .max_batched_tokens = {512, 2048}},
                           .target = {.ttft = 2s, .quota = 0.99},
                           .traffic = {.rates_per_second = sim::reference_day_traffic()},
                           .search = {.requests_per_run = requests_per_run}};
  plan::problem big = base;
  big.name = "demo-day-70b";
  big.model = {.name = "Llama-3.1-70B",
               .parameters = 70.553706496e9,
               .layers = 80,
               .hidden_size = 8192,
               .kv_bytes_per_token = headroom::roofline::kv_bytes_per_token(
                   {.layers = 80, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})};
  big.target.tpot = 200ms;
  plan::problem small = base;
  small.name = "demo-day-8b";
  small.model = {.name = "Llama-3.1-8B",
                 .parameters = 8.030261248e9,
                 .layers = 32,
                 .hidden_size = 4096,
                 .kv_bytes_per_token = headroom::roofline::kv_bytes_per_token(
                     {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})};
  small.target.tpot = 100ms;
  return {big, small};
}

void run_grid(benchmark::State& state, const std::vector<plan::problem>& problems,
              std::size_t threads) {
  std::size_t configurations = 0;
  for (auto _ : state) {
    configurations = 0;
    for (const auto& p : problems) {
      auto rows = plan::evaluate_grid(p, mix, {.threads = threads});
      configurations += rows.size();
      benchmark::DoNotOptimize(rows.data());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(configurations));
  state.counters["configurations"] = static_cast<double>(configurations);
  state.counters["threads"] = static_cast<double>(threads);
}

// The whole example grid on one thread and on every core: items_per_second is
// configurations per second of wall time; CPU time is the process's, all threads.
void plan_whole_grid(benchmark::State& state) {
  run_grid(state, example_grid(4000), static_cast<std::size_t>(state.range(0)));
}
BENCHMARK(plan_whole_grid)
    ->ArgName("threads")
    ->Apply([](benchmark::internal::Benchmark* b) {
      b->Arg(1);
      const auto cores =
          static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
      if (cores > 1) b->Arg(cores);
    })
    ->Iterations(1)
    ->Repetitions(2)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kSecond);

// A cheap grid for CI's smoke run: the 8B model on the four accelerators at TP 1 and 2,
// one batch limit and chunk size, load tests of 500 requests (8 configurations).
void plan_small_grid(benchmark::State& state) {
  auto problems = example_grid(500);
  plan::problem p = problems[1];
  p.axes.tensor_parallel = {1, 2};
  p.axes.max_batch = {128};
  p.axes.max_batched_tokens = {2048};
  run_grid(state, {p}, static_cast<std::size_t>(state.range(0)));
}
BENCHMARK(plan_small_grid)
    ->ArgName("threads")
    ->Arg(1)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// ---- calibration ---------------------------------------------------------------------------
// plan::calibrate on the 40 TensorRT-LLM rows of tests/data/planner/fidelity.csv (every row,
// whatever its role), with the 40 leave-one-out refits: the goal is one second on one core for
// 40 rows. Each iteration includes replaying every row once to record its steps.
void calibrate_fidelity_rows(benchmark::State& state) {
  std::vector<plan::calibration_row> rows;
  for (const auto& m : headroom::test::measurements())
    if (m.engine == "TensorRT-LLM") rows.push_back(headroom::test::calibration_row_of(m));
  const bool leave_one_out = state.range(0) != 0;
  for (auto _ : state) {
    const auto fit = plan::calibrate(rows, {.leave_one_out = leave_one_out});
    benchmark::DoNotOptimize(fit.fitted.bandwidth_efficiency);
    state.counters["rows_evaluated"] = static_cast<double>(fit.evaluations);
  }
  state.counters["rows"] = static_cast<double>(rows.size());
}
BENCHMARK(calibrate_fidelity_rows)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// plan::calibrate on ten runs at their own arrival times (the calibration test's: 150 requests
// each, simulated with known parameters), without leave-one-out: every evaluation simulates
// every run.
void calibrate_timed_runs(benchmark::State& state) {
  const plan::step_time_parameters truth{.flops_efficiency = 0.42,
                                         .bandwidth_efficiency = 0.61,
                                         .step_overhead = 2.3ms,
                                         .all_reduce_latency = 40us};
  auto runs = headroom::test::simulated_timed_runs(truth, 150);
  runs.resize(10);
  for (auto _ : state) {
    const auto fit =
        plan::calibrate(std::span<const plan::timed_run>(runs), {.leave_one_out = false});
    benchmark::DoNotOptimize(fit.fitted.bandwidth_efficiency);
    state.counters["figures_evaluated"] = static_cast<double>(fit.evaluations);
  }
}
BENCHMARK(calibrate_timed_runs)->Unit(benchmark::kMillisecond);

}  // namespace

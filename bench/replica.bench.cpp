// SPDX-License-Identifier: Apache-2.0
// The replica simulator (sim/replica.hpp): simulated steps and requests per second of wall
// time on one core, and a full capacity sweep (20 rates × 10^4 requests).
// Targets: >= 5e6 simulated steps/s or >= 1e6 simulated requests/s for a realistic mix;
// the 20-point sweep in under one second.
#include <headroom/arrivals.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/replica.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace std::chrono_literals;
namespace sim = headroom::sim;

// 8e9 parameters bf16 on an H100 SXM (50 % / 80 % of peak), 1 ms per step; ShareGPT-like
// log-normal lengths; 256 sequences, 8192 tokens per step, chunked prefill.
struct setup {
  sim::roofline_step_time model;
  sim::replica_config config;
  sim::lognormal_lengths mix{{.prompt_median = 200.0,
                              .prompt_sigma = 1.0,
                              .output_median = 150.0,
                              .output_sigma = 0.9,
                              .min = {4, 1},
                              .max = {4096, 2048}}};
};

setup make_setup(sim::kv_policy policy) {
  const auto& gpu = headroom::roofline::accelerators::h100_sxm;
  const double kv = headroom::roofline::kv_bytes_per_token(
      {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0});
  setup s{sim::make_roofline_step_time(gpu, {.parameters = 8e9,
                                             .bytes_per_parameter = 2.0,
                                             .kv_bytes_per_token = kv,
                                             .flops_efficiency = 0.5,
                                             .bandwidth_efficiency = 0.8,
                                             .overhead = 1ms}),
          {}};
  s.config.max_batch = 256;
  s.config.kv_budget_tokens = sim::kv_budget_tokens({.memory_bytes = gpu.memory_bytes,
                                                     .memory_fraction = 0.9,
                                                     .weight_bytes = s.model.weight_bytes,
                                                     .kv_bytes_per_token = kv});
  s.config.max_batched_tokens = 8192;
  s.config.kv = policy;
  return s;
}

std::vector<sim::request> workload(const setup& s, double rate, std::size_t n) {
  std::mt19937_64 engine(1);
  const auto schedule = headroom::arrivals::poisson_schedule(rate, n, engine);
  return sim::make_requests(schedule, s.mix, engine);
}

// Open loop at λ = state.range(0) req/s (about 0.8 μ* at 40), 10^5 requests; the requests
// are generated once, outside the timed loop.
void run_mix(benchmark::State& state, sim::kv_policy policy, std::size_t kv_budget = 0) {
  auto s = make_setup(policy);
  if (kv_budget != 0) s.config.kv_budget_tokens = kv_budget;
  const auto requests = workload(s, static_cast<double>(state.range(0)), 100000);
  std::uint64_t steps = 0;
  std::uint64_t preemptions = 0;
  sim::replica_workspace workspace;
  for (auto _ : state) {
    const auto& run = sim::simulate(s.config, requests, s.model, workspace);
    steps += run.stats.steps;
    preemptions += run.stats.preemptions;
    benchmark::DoNotOptimize(run.outcomes.data());
  }
  state.counters["steps_per_second"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["requests_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 1e5, benchmark::Counter::kIsRate);
  state.counters["preemptions"] =
      benchmark::Counter(static_cast<double>(preemptions), benchmark::Counter::kAvgIterations);
}

void BM_replica_mix_reserve(benchmark::State& state) {
  run_mix(state, sim::kv_policy::reserve_full);
}
BENCHMARK(BM_replica_mix_reserve)->Arg(10)->Arg(40)->Arg(80)->Unit(benchmark::kMillisecond);

void BM_replica_mix_preempt(benchmark::State& state) {
  run_mix(state, sim::kv_policy::preempt_youngest);
}
BENCHMARK(BM_replica_mix_preempt)->Arg(40)->Unit(benchmark::kMillisecond);

// A cache of 60,000 tokens (a small GPU): preemption on the hot path.
void BM_replica_mix_preempt_tight(benchmark::State& state) {
  run_mix(state, sim::kv_policy::preempt_youngest, 60000);
}
BENCHMARK(BM_replica_mix_preempt_tight)->Arg(40)->Unit(benchmark::kMillisecond);

// Batch 1, one token: one step per request (the M/M/1 reduction, ρ = 0.8), 10^6 requests;
// runs reuse one workspace (items_per_second: simulated requests per second of CPU time).
constexpr sim::replica_config single_server{.max_batch = 1,
                                            .kv_budget_tokens = 16,
                                            .max_batched_tokens = 16,
                                            .prefill = sim::prefill_mode::whole};

std::vector<sim::request> single_server_requests(double rate, std::size_t n) {
  std::mt19937_64 engine(1);
  const auto schedule = headroom::arrivals::poisson_schedule(rate, n, engine);
  return sim::make_requests(
      schedule, sim::fixed_lengths{.lengths = {.prompt_tokens = 1, .output_tokens = 1}}, engine);
}

void BM_replica_single_server(benchmark::State& state) {
  const auto requests = single_server_requests(8.0, 1000000);
  sim::replica_workspace workspace;
  for (auto _ : state) {
    const auto& run =
        sim::simulate(single_server, requests, sim::exponential_step_time(0.1s, 2), workspace);
    benchmark::DoNotOptimize(run.outcomes.data());
  }
  state.SetItemsProcessed(state.iterations() * 1000000);
}
BENCHMARK(BM_replica_single_server)->Unit(benchmark::kMillisecond);

// The same runs through the overload without a workspace: every run allocates its result
// and the engine's per-request state afresh (page faults included).
void BM_replica_single_server_fresh(benchmark::State& state) {
  const auto requests = single_server_requests(8.0, 1000000);
  for (auto _ : state) {
    const auto run = sim::simulate(single_server, requests, sim::exponential_step_time(0.1s, 2));
    benchmark::DoNotOptimize(run.outcomes.data());
  }
  state.SetItemsProcessed(state.iterations() * 1000000);
}
BENCHMARK(BM_replica_single_server_fresh)->Unit(benchmark::kMillisecond);

// M/M/1 with λ = 0.8, μ = 1 and 200 000 requests, everything a run does timed: the Poisson
// schedule, the requests, the simulation and the mean time in system. The peer is
// bench/simpy_mm1.py (SimPy, same queue, same count): compare its requests/s with
// items_per_second here.
void BM_replica_mm1_200k(benchmark::State& state) {
  constexpr std::size_t n = 200000;
  sim::replica_workspace workspace;
  std::uint64_t seed = 1;
  double mean_s = 0.0;
  for (auto _ : state) {
    std::mt19937_64 engine(seed);
    const auto schedule = headroom::arrivals::poisson_schedule(0.8, n, engine);
    const auto requests = sim::make_requests(schedule, sim::fixed_lengths{{1, 1}}, engine);
    const auto& run =
        sim::simulate(single_server, requests, sim::exponential_step_time(1s, ~seed), workspace);
    double total_s = 0.0;
    for (const auto& o : run.outcomes) total_s += (o.finished - o.intended_arrival).count();
    mean_s = total_s / static_cast<double>(n);
    benchmark::DoNotOptimize(mean_s);
    ++seed;
  }
  state.counters["mean_time_in_system_s"] = mean_s;  // 1/(μ − λ) = 5 s
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_replica_mm1_200k)->Unit(benchmark::kMillisecond);

// The full sweep: 20 rates from 5 to 100 req/s, 10^4 requests each, schedule generation,
// simulation and conformance (capacity.hpp) included.
void BM_replica_sweep_20x10k(benchmark::State& state) {
  const auto s = make_setup(sim::kv_policy::preempt_youngest);
  std::vector<double> rates;
  for (int i = 1; i <= 20; ++i) rates.push_back(5.0 * i);
  const headroom::capacity::slo objective{.ttft = 1s, .tpot = 50ms};
  sim::sweep_options options;
  options.requests_per_point = 10000;
  std::uint64_t steps = 0;
  for (auto _ : state) {
    const auto sweep = sim::sweep_capacity(s.config, s.model, rates, s.mix, objective, options);
    for (const auto& st : sweep.stats) steps += st.steps;
    benchmark::DoNotOptimize(sweep.curve.data());
  }
  state.counters["steps_per_second"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["requests_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2e5, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_replica_sweep_20x10k)->Unit(benchmark::kMillisecond);

}  // namespace

// SPDX-License-Identifier: Apache-2.0
// Scheduler benchmarks: one placement among N workers × 8 GPUs (full decision: index +
// filters + fit + scores, and the decision alone on an indexed workspace), static vs
// dynamic chain, and ranking 10 000 instances for scale down. The workspace is reused, so
// nothing is allocated per decision once warm.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>

namespace {
using namespace headroom;
constexpr std::uint64_t GiB = gib_bytes;

struct bgpu {
  std::uint32_t index;
  std::uint64_t vram_total_bytes;
};
struct bworker {
  std::uint64_t id;
  int cluster;
  std::vector<std::pair<int, int>> labels;
  worker_state state;
  std::uint64_t ram_total_bytes;
  std::vector<bgpu> gpus;
  std::vector<std::uint64_t> ready_files;
};
struct binstance {
  std::uint64_t id, model_id, worker_id;
  instance_state state;
  std::uint64_t ram_bytes;
  std::vector<gpu_claim> gpus;
};
struct bmodel {
  std::uint64_t id;
  int cluster;
  placement_policy placement;
  std::uint64_t files;
};

struct cluster {
  std::vector<bworker> workers;
  std::vector<binstance> instances;
};

// n workers × 8 GPUs (24, 48 or 80 GiB), one instance on GPU 0 of every worker with a
// random claim; a quarter of them are instances of the benchmarked model (id 7).
cluster make_cluster(std::size_t n) {
  std::mt19937_64 rng(42);
  const std::uint64_t sizes[] = {24, 48, 80};
  cluster c;
  c.workers.reserve(n);
  c.instances.reserve(n);
  for (std::size_t w = 0; w < n; ++w) {
    bworker wk{w + 1, 1, {{1, 2}}, worker_state::ready, 512 * GiB, {}, {}};
    const std::uint64_t size = sizes[rng() % 3] * GiB;
    for (std::uint32_t g = 0; g < 8; ++g) wk.gpus.push_back({g, size});
    if (rng() % 4 == 0) wk.ready_files.push_back(99);
    c.instances.push_back({w + 1,
                           rng() % 4 == 0 ? 7u : 9u,
                           w + 1,
                           instance_state::running,
                           (rng() % 16) * GiB,
                           {{0, size * (1 + rng() % 9) / 10}}});
    c.workers.push_back(std::move(wk));
  }
  return c;
}

const bmodel model{7, 1, placement_policy::binpack, 99};
const vllm_estimator estimator(14 * GiB, 0.9, 32, 8 * GiB);

template <class Chain>
void run_place(benchmark::State& state, Chain chain) {
  const cluster c = make_cluster(static_cast<std::size_t>(state.range(0)));
  const auto filters = basic_filters();
  workspace ws;
  for (auto _ : state) {
    placement_result r = place(c.workers, c.instances, model, filters, estimator, chain, ws);
    benchmark::DoNotOptimize(r);
  }
  state.SetComplexityN(state.range(0));
  state.counters["workers"] = static_cast<double>(state.range(0));
}

void place_default(benchmark::State& s) { run_place(s, default_scale_up_chain()); }
void place_gpustack_static(benchmark::State& s) { run_place(s, gpustack_scale_up_chain()); }
void place_gpustack_dynamic(benchmark::State& s) {
  dynamic_scale_up_chain d(normalization::none);
  d.add("placement", 1, placement_scorer{100}).add("model_file_locality", 1, locality_scorer{5});
  run_place(s, std::move(d));
}
void place_default_dynamic(benchmark::State& s) {
  dynamic_scale_up_chain d(normalization::min_max);
  d.add("best_fit", 1, gated<best_fit_scorer>{placement_policy::binpack, {}})
      .add("anti_affinity", 1, gated<anti_affinity_scorer>{placement_policy::spread, {}})
      .add("least_allocated", 0.5, gated<least_allocated_scorer>{placement_policy::spread, {}})
      .add("model_file_locality", 0.1, locality_scorer{100});
  run_place(s, std::move(d));
}

// The decision alone on an already indexed workspace (filters + fit + scores).
void place_default_indexed(benchmark::State& state) {
  const cluster c = make_cluster(static_cast<std::size_t>(state.range(0)));
  const auto filters = basic_filters();
  auto chain = default_scale_up_chain();
  workspace ws;
  ws.index(c.workers, c.instances, model);
  for (auto _ : state) {
    placement_result r = place_indexed(c.workers, model, filters, estimator, chain, ws);
    benchmark::DoNotOptimize(r);
  }
  state.SetComplexityN(state.range(0));
}

void index_only(benchmark::State& state) {
  const cluster c = make_cluster(static_cast<std::size_t>(state.range(0)));
  workspace ws;
  for (auto _ : state) {
    ws.index(c.workers, c.instances, model);
    benchmark::DoNotOptimize(ws.gpus().data());
  }
}

void rank_scale_down(benchmark::State& state) {
  // 10 000 instances, all of model 7, on 10 000 workers × 8 GPUs.
  cluster c = make_cluster(static_cast<std::size_t>(state.range(0)));
  for (auto& i : c.instances) i.model_id = 7;
  auto chain = gpustack_scale_down_chain();
  workspace ws;
  for (auto _ : state) {
    auto ranked = rank_for_removal(c.workers, c.instances, model, chain, ws);
    benchmark::DoNotOptimize(ranked.data());
  }
  state.SetComplexityN(state.range(0));
}
}  // namespace

BENCHMARK(place_default)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);
BENCHMARK(place_default_dynamic)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default_indexed)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_gpustack_static)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_gpustack_dynamic)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(index_only)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(rank_scale_down)->Arg(10000)->Unit(benchmark::kMicrosecond);

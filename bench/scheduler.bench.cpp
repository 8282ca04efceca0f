// SPDX-License-Identifier: Apache-2.0
// Scheduler benchmarks, N workers × 8 GPUs, default chain:
//  - place_default_indexed/N: THE DECISION WITH A WARM INDEX (filters + fit + scores on a
//    scheduler's workspace indexed once and kept current with commit/add_instance/...): the
//    ≤ 0.3 ms at 10 000 workers target (docs/scheduler.md §6), linear to 100 000;
//  - place_default_indexed_checked/N: the same with scheduler_options::stale = refuse (every
//    worker re-read against its record and its cached filter verdict first: what a forgotten
//    update_worker costs to detect);
//  - place_gpustack_preset_indexed/N: the gpustack preset (GPUStack's candidate listing,
//    one candidate per fitting GPU, its chain and first-maximum pick) on the same index;
//  - place_default/N: index + decision (place with the instances), for a caller that
//    re-reads the cluster each time;
//  - index_only/N: index() alone (reading every worker, GPU and instance through the traits);
//  - update_instance: keeping the index current (add_instance + remove_instance);
//  - *_dynamic*: the same with type-erased chains (static vs dynamic overhead);
//  - rank_scale_down*: ranking 10 000 instances, full (index + rank), indexed, and indexed
//    ordering only the first 1 000 (`instances − replicas`);
//  - memory_floor/N: no decision, only its memory traffic: the bytes place_default_indexed/N
//    reads and writes on the same cluster, in the same passes: the ratio 100 000 ÷ 10 000
//    that the caches and memory alone give to that traffic, beside the decision's;
//  - place_default_indexed_scaling/S/L and memory_floor_scaling/S/L: the ratio L ÷ S of
//    those two measured in pairs (S, then L, alternating in one run): the `ratio` counter.
// Counters: items_per_second (workers or instances per second), candidates scored. Every
// loop reuses its workspace, warmed before timing: no allocation per decision.
// Run: cmake --workflow --preset bench && build/bench/bench/headroom_bench
//        --benchmark_filter='place|index|rank|update' --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>

namespace {
using namespace headroom;
using namespace headroom::scheduling;
constexpr std::uint64_t GiB = gib_bytes;

struct bgpu {
  std::uint32_t index = 0;
  std::uint64_t vram_total_bytes = 0;
};
struct bworker {
  std::uint64_t id = 0;
  int cluster = 0;
  std::vector<std::pair<int, int>> labels{};
  worker_state state = worker_state::ready;
  std::uint64_t ram_total_bytes = 0;
  std::vector<bgpu> gpus{};
  std::vector<std::uint64_t> ready_files{};
};
struct binstance {
  std::uint64_t id = 0, model_id = 0, worker_id = 0;
  instance_state state = instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<gpu_claim> gpus{};
};
struct bmodel {
  std::uint64_t id = 0;
  int cluster = 0;
  placement_policy placement = placement_policy::binpack;
  std::uint64_t files = 0;
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
    bworker wk{.id = w + 1, .cluster = 1, .labels = {{1, 2}}, .ram_total_bytes = 512 * GiB};
    const std::uint64_t size = sizes[rng() % 3] * GiB;
    for (std::uint32_t g = 0; g < 8; ++g) wk.gpus.push_back({.index = g, .vram_total_bytes = size});
    if (rng() % 4 == 0) wk.ready_files.push_back(99);
    const std::uint64_t model = rng() % 4 == 0 ? 7u : 9u;
    const std::uint64_t ram = (rng() % 16) * GiB;
    c.instances.push_back({.id = w + 1,
                           .model_id = model,
                           .worker_id = w + 1,
                           .ram_bytes = ram,
                           .gpus = {{.index = 0, .vram_bytes = size * (1 + rng() % 9) / 10}}});
    c.workers.push_back(std::move(wk));
  }
  return c;
}

const bmodel model{.id = 7, .cluster = 1, .placement = placement_policy::binpack, .files = 99};
const vllm_estimator estimator(14 * GiB, 0.9, 32, 8 * GiB);

// The options of the plain benchmarks: the kept index is trusted (the release default).
scheduler_options trusted(fit_options fit = {}) { return {.fit = fit, .stale = stale_check::none}; }

// indexed: decide on the scheduler's kept index (warm); else index + decide every time.
template <class Chain>
void run_place(benchmark::State& state, Chain chain, bool indexed,
               const scheduler_options& options = trusted()) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const cluster c = make_cluster(n);
  auto up = scheduler(basic_filters(), estimator, std::move(chain), options);
  headroom::scheduling::workspace up_ws;
  placement_result r = up.place(up_ws, c.workers, c.instances, model);  // indexed and warm
  for (auto _ : state) {
    r = indexed ? up.place(up_ws, c.workers, model)
                : up.place(up_ws, c.workers, c.instances, model);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
  state.counters["candidates"] = static_cast<double>(r.candidates);
}

auto default_dynamic() {
  dynamic_scale_up_chain d(normalization::min_max);
  d.add("best_fit", 1, gated<best_fit_scorer>{.when = placement_policy::binpack})
      .add("anti_affinity", 1, gated<anti_affinity_scorer>{.when = placement_policy::spread})
      .add("least_allocated", 0.5, gated<least_allocated_scorer>{.when = placement_policy::spread})
      .add("model_file_locality", 0.1, locality_scorer{.max_score = 100});
  return d;
}
auto gpustack_dynamic() {
  dynamic_scale_up_chain d(normalization::none);
  d.add("placement", 1, placement_scorer{.max_score = 100})
      .add("model_file_locality", 1, locality_scorer{.max_score = 5});
  return d;
}

void place_default_indexed(benchmark::State& s) { run_place(s, default_scale_up_chain(), true); }
void place_default_dynamic_indexed(benchmark::State& s) { run_place(s, default_dynamic(), true); }
void place_gpustack_indexed(benchmark::State& s) { run_place(s, gpustack_scale_up_chain(), true); }
void place_gpustack_dynamic_indexed(benchmark::State& s) { run_place(s, gpustack_dynamic(), true); }
void place_default_indexed_checked(benchmark::State& s) {
  run_place(s, default_scale_up_chain(), true, {.stale = stale_check::refuse});
}
void place_gpustack_preset_indexed(benchmark::State& s) {
  run_place(s, gpustack_scale_up_chain(), true, trusted(gpustack_fit_options()));
}
void place_default(benchmark::State& s) { run_place(s, default_scale_up_chain(), false); }
void place_default_dynamic(benchmark::State& s) { run_place(s, default_dynamic(), false); }

void index_only(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const cluster c = make_cluster(n);
  workspace ws;
  ws.index(c.workers, c.instances, model);
  for (auto _ : state) {
    ws.index(c.workers, c.instances, model);
    benchmark::DoNotOptimize(ws.gpus().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Keeping a warm index current: one instance added and removed again.
void update_instance(benchmark::State& state) {
  const cluster c = make_cluster(static_cast<std::size_t>(state.range(0)));
  workspace ws;
  ws.index(c.workers, c.instances, model);
  const binstance extra{.id = 0,
                        .model_id = 7,
                        .worker_id = 5000,
                        .ram_bytes = 4 * GiB,
                        .gpus = {{.index = 3, .vram_bytes = 10 * GiB}}};
  for (auto _ : state) {
    ws.add_instance(extra);
    ws.remove_instance(extra);
    benchmark::DoNotOptimize(ws.gpus().data());
  }
}

// The memory traffic of a warm decision on make_cluster(n), computing nothing: the same
// bytes read and written in the same sequential passes (a xor of what a pass reads is what
// it writes): what the caches and memory alone charge for that traffic at n workers.
//  1. the fit's one-GPU stage: per worker, its filter verdict (1 B), allocatable RAM (8 B),
//     the span of its distinct GPUs (12 B) and those GPUs (24 B each; two per worker here:
//     GPU 0 holds an instance, the other seven are alike) read; per candidate its records
//     (candidate, part, claim) and dense copies (worker 4 B, VRAM left 8 B) written;
//  2. the two scorers that apply: per candidate the dense copies and the worker's files
//     flag (1 B) read, two columns (8 B each) written;
//  3. normalisation: the columns read, the totals (8 B) written;
//  4. the pick: the totals read.
class traffic {
 public:
  traffic(std::size_t n, std::size_t candidates)
      : inputs_(words(n * (1 + 8 + 12 + 2 * 24)), 1),
        records_(words(candidates *
                       (sizeof(candidate) + sizeof(placement_part) + sizeof(claim_record)))),
        dense_(words(candidates * (4 + 8))),
        files_(words(n), 1),
        columns_(words(candidates * 2 * 8)),
        totals_(words(candidates * 8)) {}
  // The four passes; what they read, folded into a word.
  std::uint64_t run() {
    std::uint64_t acc = pass(inputs_, {}, records_, dense_);
    acc ^= pass(dense_, files_, columns_, {});
    acc ^= pass(columns_, {}, totals_, {});
    acc ^= pass(totals_, {}, {}, {});
    return acc;
  }
  // Bytes moved by run(): read or written once: inputs, records, files; written, then read:
  // the rest.
  [[nodiscard]] std::size_t bytes() const {
    return 8 * (inputs_.size() + records_.size() + files_.size() +
                2 * (dense_.size() + columns_.size() + totals_.size()));
  }

 private:
  static std::size_t words(std::size_t bytes) { return (bytes + 7) / 8; }
  // One pass: reads a and b in step, writes x and y in step (any of them may be empty).
  static std::uint64_t pass(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                            std::span<std::uint64_t> x, std::span<std::uint64_t> y) {
    constexpr std::size_t block = 512;  // words of a read before the matching share of the rest
    std::uint64_t acc = 0;
    std::size_t jb = 0, jx = 0, jy = 0;
    const std::size_t na = a.size();
    for (std::size_t i = 0; i < na; i += block) {
      const std::size_t ie = std::min(na, i + block);
      for (std::size_t k = i; k < ie; ++k) acc ^= a[k];
      for (const std::size_t eb = ie * b.size() / na; jb < eb; ++jb) acc ^= b[jb];
      for (const std::size_t ex = ie * x.size() / na; jx < ex; ++jx) x[jx] = acc + jx;
      for (const std::size_t ey = ie * y.size() / na; jy < ey; ++jy) y[jy] = acc + jy;
    }
    return acc;
  }
  std::vector<std::uint64_t> inputs_, records_, dense_, files_, columns_, totals_;
};

std::size_t default_candidates(const cluster& c) {
  auto up = scheduler(basic_filters(), estimator, default_scale_up_chain(), trusted());
  headroom::scheduling::workspace up_ws;
  return up.place(up_ws, c.workers, c.instances, model).candidates;
}

void memory_floor(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const cluster c = make_cluster(n);
  traffic t(n, default_candidates(c));
  for (auto _ : state) {
    benchmark::DoNotOptimize(t.run());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(t.bytes()));
}

// This thread's CPU time in seconds (POSIX), as Google Benchmark's own CPU times.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// How a cost grows from range(0) to range(1) workers, measured in pairs: each iteration
// times `reps` calls of small() (after one untimed call that brings its data back into the
// caches the large one evicted), then one warm large() (after one untimed call too); the
// pair's ratio is large ÷ one small. The counters are the medians over the iterations: the
// ratio and each side's time. Paired so that a machine that slows down or speeds up during
// the run moves the ratio less than the times (as in compile_time.sh).
template <class Small, class Large>
void paired_scaling(benchmark::State& state, Small small, Large large) {
  constexpr int reps = 10;
  std::vector<double> ratios, small_us, large_us;
  for (auto _ : state) {
    small();
    const double s0 = thread_seconds();
    for (int i = 0; i < reps; ++i) small();
    const double s1 = thread_seconds();
    large();
    const double l0 = thread_seconds();
    large();
    const double l1 = thread_seconds();
    const double one_small = (s1 - s0) / reps, one_large = l1 - l0;
    state.SetIterationTime(s1 - s0 + l1 - l0);
    small_us.push_back(1e6 * one_small);
    large_us.push_back(1e6 * one_large);
    ratios.push_back(one_large / one_small);
  }
  const auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  state.counters["ratio"] = median(ratios);
  state.counters["small_us"] = median(small_us);
  state.counters["large_us"] = median(large_us);
}

// place_default_indexed at range(0) and range(1) workers, paired.
void place_default_indexed_scaling(benchmark::State& state) {
  const cluster cs = make_cluster(static_cast<std::size_t>(state.range(0)));
  const cluster cl = make_cluster(static_cast<std::size_t>(state.range(1)));
  auto small = scheduler(basic_filters(), estimator, default_scale_up_chain(), trusted());
  headroom::scheduling::workspace small_ws;
  auto large = scheduler(basic_filters(), estimator, default_scale_up_chain(), trusted());
  headroom::scheduling::workspace large_ws;
  (void)small.place(small_ws, cs.workers, cs.instances, model);  // indexed
  (void)large.place(large_ws, cl.workers, cl.instances, model);
  paired_scaling(
      state, [&] { benchmark::DoNotOptimize(small.place(small_ws, cs.workers, model)); },
      [&] { benchmark::DoNotOptimize(large.place(large_ws, cl.workers, model)); });
}

// memory_floor at range(0) and range(1) workers, paired the same way.
void memory_floor_scaling(benchmark::State& state) {
  const cluster cs = make_cluster(static_cast<std::size_t>(state.range(0)));
  const cluster cl = make_cluster(static_cast<std::size_t>(state.range(1)));
  traffic small(cs.workers.size(), default_candidates(cs));
  traffic large(cl.workers.size(), default_candidates(cl));
  paired_scaling(
      state,
      [&] {
        benchmark::DoNotOptimize(small.run());
        benchmark::ClobberMemory();
      },
      [&] {
        benchmark::DoNotOptimize(large.run());
        benchmark::ClobberMemory();
      });
}

// 10 000 instances, all of model 7, on 10 000 workers × 8 GPUs. range(1): 0 = full
// (index + rank), 1 = indexed full order, 2 = indexed, first 1 000 only.
void rank_scale_down(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  cluster c = make_cluster(n);
  for (auto& i : c.instances) i.model_id = 7;
  auto down = gpustack_scale_down_ranker(stale_check::none);
  headroom::scheduling::workspace down_ws;
  (void)down.rank(down_ws, c.workers, c.instances, model);  // indexed and warm
  const std::size_t count = state.range(1) == 2 ? n / 10 : every_instance;
  for (auto _ : state) {
    auto ranked = state.range(1) == 0 ? down.rank(down_ws, c.workers, c.instances, model)
                                      : down.rank(down_ws, c.workers, count);
    benchmark::DoNotOptimize(ranked.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
}  // namespace

BENCHMARK(place_default_indexed)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);
BENCHMARK(memory_floor)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default_indexed_scaling)
    ->Args({1000, 10000})
    ->Args({10000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(memory_floor_scaling)
    ->Args({1000, 10000})
    ->Args({10000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default_dynamic_indexed)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default_indexed_checked)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_gpustack_indexed)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_gpustack_dynamic_indexed)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_gpustack_preset_indexed)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(place_default_dynamic)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(index_only)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(update_instance)->Arg(10000)->Unit(benchmark::kNanosecond);
BENCHMARK(rank_scale_down)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->Unit(benchmark::kMicrosecond);

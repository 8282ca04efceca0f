// SPDX-License-Identifier: Apache-2.0
// Cost of one autoscaler recommendation, and proof that a warm step does not allocate.
//
// Allocation check: this translation unit replaces the global operator new/delete with a
// counting pass-through to malloc/free. A replaced operator new applies to the whole
// headroom_bench executable; it only adds a relaxed atomic increment, so the other
// benchmarks are unaffected in practice. Each benchmark below reports "allocs/step" and
// fails (SkipWithError) if any step in the timed loop allocated.
#include <headroom/autoscaler.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
std::atomic<std::uint64_t> allocation_count{0};
// Out of line so that GCC does not pair an inlined free() with a visible operator new
// (-Wmismatched-new-delete).
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void release(void* p) noexcept {
  std::free(p);
}
}  // namespace

void* operator new(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }

namespace {

using namespace std::chrono_literals;

headroom::autoscaler_config bench_config(bool with_behavior) {
  headroom::autoscaler_config c;
  c.min_replicas = 1;
  c.max_replicas = 1000;
  c.metrics = {{"vllm:num_requests_running", headroom::metric_source::pods,
                headroom::metric_target_type::average_value, 51.2}};
  if (with_behavior) c.behavior = headroom::scaling_behavior{};  // 300 s down window
  c.sync_period = 1s;
  return c;
}

// One recommendation per iteration, a 1 s period, a 300 s down window (about 300 live
// history entries scanned per step), 16 replicas reporting per-replica samples.
void run_steps(benchmark::State& bench, bool with_behavior) {
  const headroom::autoscaler controller(bench_config(with_behavior));
  auto state = controller.initial_state();
  std::vector<headroom::replica_sample> samples(16, headroom::replica_sample{50.0, true});
  const headroom::metric_observation obs = headroom::observe_replicas(samples);
  std::int64_t t = 0;
  std::int32_t current = 16;
  const auto one_step = [&] {
    // A load that wanders around the target so the windows and limits all see work.
    const double load = 51.2 * (0.6 + 0.8 * static_cast<double>((t * 37) % 101) / 100.0);
    for (auto& s : samples) s.value = load;
    const auto d = controller.step(state, std::chrono::seconds{t},
                                   headroom::autoscaler_input{current, 0, {&obs, 1}, {}, {}});
    benchmark::DoNotOptimize(d);
    ++t;
    // Keep the replica count fixed so every step reads the same 16 samples.
    return d.desired_replicas;
  };
  for (int i = 0; i < 2000; ++i) (void)one_step();  // warm: the window fills, buffers settle
  const std::uint64_t before = allocation_count.load(std::memory_order_relaxed);
  for (auto _ : bench) benchmark::DoNotOptimize(one_step());
  const std::uint64_t allocations = allocation_count.load(std::memory_order_relaxed) - before;
  bench.counters["allocs/step"] = benchmark::Counter(static_cast<double>(allocations) /
                                                     static_cast<double>(bench.iterations()));
  bench.counters["history"] = static_cast<double>(state.recommendations.size());
  if (allocations != 0) bench.SkipWithError("a warm autoscaler step allocated");
}

void BM_autoscaler_step_default_behavior(benchmark::State& bench) { run_steps(bench, true); }
void BM_autoscaler_step_no_behavior(benchmark::State& bench) { run_steps(bench, false); }

}  // namespace

BENCHMARK(BM_autoscaler_step_default_behavior);
BENCHMARK(BM_autoscaler_step_no_behavior);

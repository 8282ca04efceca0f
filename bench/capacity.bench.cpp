// SPDX-License-Identifier: Apache-2.0
// Arrival generation and conformance measurement at load-test scale (10⁶ items).
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;

constexpr std::size_t kItems = 1000000;

void BM_poisson_schedule(benchmark::State& state) {
  std::mt19937_64 engine(1);
  for (auto _ : state) {
    auto schedule = headroom::arrivals::poisson_schedule(100.0, kItems, engine);
    benchmark::DoNotOptimize(schedule.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kItems));
}
BENCHMARK(BM_poisson_schedule)->Unit(benchmark::kMillisecond);

void BM_gamma_schedule_cv2(benchmark::State& state) {
  std::mt19937_64 engine(1);
  for (auto _ : state) {
    auto schedule =
        headroom::arrivals::gamma_schedule({.rate_per_second = 100.0, .cv = 2.0}, kItems, engine);
    benchmark::DoNotOptimize(schedule.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kItems));
}
BENCHMARK(BM_gamma_schedule_cv2)->Unit(benchmark::kMillisecond);

void BM_gamma_schedule_cv05(benchmark::State& state) {
  std::mt19937_64 engine(1);
  for (auto _ : state) {
    auto schedule =
        headroom::arrivals::gamma_schedule({.rate_per_second = 100.0, .cv = 0.5}, kItems, engine);
    benchmark::DoNotOptimize(schedule.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kItems));
}
BENCHMARK(BM_gamma_schedule_cv05)->Unit(benchmark::kMillisecond);

std::vector<headroom::capacity::request_outcome> synthetic_outcomes() {
  std::mt19937_64 engine(7);
  const auto arrivals = headroom::arrivals::poisson_schedule(100.0, kItems, engine);
  const headroom::arrivals::exponential_gaps latency(2.0);  // mean 0.5 s
  std::vector<headroom::capacity::request_outcome> outcomes;
  outcomes.reserve(kItems);
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    const seconds_d ttft = latency(engine);
    outcomes.push_back({.intended_arrival = arrivals[i],
                        .sent = arrivals[i],
                        .first_token = arrivals[i] + ttft,
                        .finished = arrivals[i] + ttft + 0.04s * 99.0,
                        .prompt_tokens = 512,
                        .output_tokens = 100,
                        .error = i % 1000 == 0});
  }
  return outcomes;
}

void BM_measure_conformance(benchmark::State& state) {
  const auto outcomes = synthetic_outcomes();
  const headroom::capacity::slo objective{.ttft = 1s, .tpot = 0.05s};
  const headroom::capacity::measurement_window window{.warm_up = 60s, .cool_down = 10s};
  for (auto _ : state) {
    auto estimate = headroom::capacity::measure_conformance(outcomes, objective, window);
    benchmark::DoNotOptimize(estimate);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kItems));
}
BENCHMARK(BM_measure_conformance)->Unit(benchmark::kMillisecond);

}  // namespace

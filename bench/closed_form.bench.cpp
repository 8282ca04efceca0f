// SPDX-License-Identifier: Apache-2.0
// The closed-form layer's one costly path: Erlang C is O(c) by the Erlang B recurrence, and
// the smallest c for a quota carries the recurrence along, so it is O(c) too.
#include <headroom/queueing.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

namespace {

void erlang_c(benchmark::State& state) {
  const std::int64_t servers = state.range(0);
  const double load = 0.95 * static_cast<double>(servers);  // 95 % utilisation
  for (auto _ : state) {
    benchmark::DoNotOptimize(headroom::erlang_c(servers, load));
  }
  state.SetComplexityN(servers);
}
BENCHMARK(erlang_c)->Arg(10)->Arg(1000)->Arg(10000)->Complexity(benchmark::oN);

void mmc_servers_needed(benchmark::State& state) {
  // Offered load a = λ/μ Erlangs; 90 % of requests must wait at most a tenth of a service.
  const double load = static_cast<double>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        headroom::mmc_servers_needed(load, 1.0, std::chrono::milliseconds(100), 0.9));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(mmc_servers_needed)->Arg(10)->Arg(1000)->Arg(10000)->Complexity(benchmark::oN);

void mm1_capacity(benchmark::State& state) {
  double mu = 10.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mu);
    benchmark::DoNotOptimize(headroom::mm1_capacity(mu, std::chrono::seconds(1), 0.9));
  }
}
BENCHMARK(mm1_capacity);

}  // namespace

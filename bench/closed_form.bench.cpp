// SPDX-License-Identifier: Apache-2.0
// The closed-form layer's costly paths, old and new side by side in one run:
//  - erlang_c_recurrence/c: Erlang C from the O(c) Erlang B recurrence (the method until
//    Temme's expansion replaced it for c >= 50; kept as detail::erlang_b_recurrence).
//  - erlang_c/c: headroom::queueing::erlang_c, O(1) in c. Both at 95 % utilization, a = 0.95 c.
//  - erlang_b_recurrence/c and erlang_b_expansion/c: the two methods at small c, where the
//    crossover detail::erlang_recurrence_max_servers is chosen (a = 0.95 c).
//  - mmc_servers_needed_walk/a: the former search, a walk up from floor(a) + 1 carrying the
//    recurrence along (O(c)); mmc_servers_needed/a: doubling steps then bisection over the
//    O(1) Erlang C. Offered load a Erlangs; 90 % must wait at most a tenth of a service.
#include <headroom/queueing.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>

namespace {

namespace detail = headroom::detail;

// Each loop reads its load through memory after a compiler barrier (the load escapes by
// address, ClobberMemory every iteration), so no call can be hoisted out of the loop.
// DoNotOptimize on a double lvalue is avoided: with GCC 12, Google Benchmark 1.7's "+m,r"
// constraint read an uninitialised stack slot instead of the load.

void erlang_c_recurrence(benchmark::State& state) {
  const std::int64_t servers = state.range(0);
  double load = 0.95 * static_cast<double>(servers);
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(
        detail::erlang_c_from_b(servers, load, detail::erlang_b_recurrence(servers, load)));
  }
}
BENCHMARK(erlang_c_recurrence)->Arg(10)->Arg(1000)->Arg(10000)->Arg(100000);

void erlang_c(benchmark::State& state) {
  const std::int64_t servers = state.range(0);
  double load = 0.95 * static_cast<double>(servers);
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(
        headroom::queueing::erlang_c({.servers = servers, .offered_load = load}));
  }
}
BENCHMARK(erlang_c)->Arg(10)->Arg(1000)->Arg(10000)->Arg(100000);

void erlang_b_recurrence(benchmark::State& state) {
  const std::int64_t servers = state.range(0);
  double load = 0.95 * static_cast<double>(servers);
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(detail::erlang_b_recurrence(servers, load));
  }
}
BENCHMARK(erlang_b_recurrence)->Arg(20)->Arg(30)->Arg(40)->Arg(50)->Arg(64)->Arg(100);

void erlang_b_expansion(benchmark::State& state) {
  const std::int64_t servers = state.range(0);
  double load = 0.95 * static_cast<double>(servers);
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(detail::erlang_b_expansion(servers, load));
  }
}
BENCHMARK(erlang_b_expansion)->Arg(20)->Arg(30)->Arg(40)->Arg(50)->Arg(64)->Arg(100);

/// The former mmc_servers_needed: from the smallest stable c, one recurrence step per
/// candidate until the quota is met.
std::int64_t servers_needed_walk(double lambda, double mu, double t, double q) {
  const double a = lambda / mu;
  auto c = static_cast<std::int64_t>(a) + 1;
  double b = detail::erlang_b_recurrence(c, a);
  for (;;) {
    const double wait = detail::erlang_c_from_b(c, a, b);
    if (1.0 - wait * std::exp(-(static_cast<double>(c) * mu - lambda) * t) >= q) return c;
    ++c;
    b = a * b / (static_cast<double>(c) + a * b);
  }
}

void mmc_servers_needed_walk(benchmark::State& state) {
  double load = static_cast<double>(state.range(0));
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(servers_needed_walk(load, 1.0, 0.1, 0.9));
  }
}
BENCHMARK(mmc_servers_needed_walk)->Arg(10)->Arg(1000)->Arg(10000);

void mmc_servers_needed(benchmark::State& state) {
  double load = static_cast<double>(state.range(0));
  benchmark::DoNotOptimize(&load);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(
        headroom::queueing::mmc_servers_needed({.arrival_rate_per_second = load,
                                                .service_rate_per_second = 1.0,
                                                .threshold = std::chrono::milliseconds(100),
                                                .quota = 0.9}));
  }
}
BENCHMARK(mmc_servers_needed)->Arg(10)->Arg(1000)->Arg(10000);

void mm1_capacity(benchmark::State& state) {
  double mu = 10.0;
  benchmark::DoNotOptimize(&mu);
  for (auto _ : state) {
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(headroom::queueing::mm1_capacity(
        {.service_rate_per_second = mu, .threshold = std::chrono::seconds(1), .quota = 0.9}));
  }
}
BENCHMARK(mm1_capacity);

}  // namespace

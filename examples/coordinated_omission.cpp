// SPDX-License-Identifier: Apache-2.0
// Coordinated omission, shown on a simulated replica (sim/replica.hpp): a closed-loop load
// generator (N users, each waiting for its answer and thinking Z before the next request)
// and an open-loop one (Poisson) offered the SAME rate. The closed loop slows down with
// the server and never holds more than N requests, so the requests that would have met the
// long queue are never sent: its tail looks small. The open loop keeps the schedule and
// measures the queue. Capacity must be measured open loop (docs/arrivals.md).
//
// Same replica as capacity_sweep.cpp: 8e9 parameters bf16 on an H100 SXM at 50 % / 80 %
// of peak FLOP/s / bandwidth, 1 ms per step, 256 sequences, chunked prefill; log-normal
// lengths (prompt median 200, σ 1.0; output median 150, σ 0.9); SLO TTFT <= 1 s, TPOT
// <= 50 ms, q = 0.9. Exponential think times. Usage: coordinated_omission [--full]
// (default 2000 requests per point, --full 20000; --help lists the flags).
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/replica.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "flags.hpp"

namespace {

using namespace std::chrono_literals;
namespace sim = headroom::sim;

struct tail {
  double achieved_rate_per_second = 0.0;  // sends per second between the 10th and 90th percent
  double p50_ttft_s = 0.0;
  double p99_ttft_s = 0.0;
  headroom::capacity::conformance_estimate conformance{};
};

// Over the requests from the 10th to the 90th percent (in send order: warm-up and drain
// discarded): the achieved rate, TTFT percentiles and SLO conformance.
tail summarise(const sim::replica_result& run, const headroom::capacity::slo& objective) {
  const std::size_t first = run.outcomes.size() / 10;
  const std::size_t last = run.outcomes.size() - run.outcomes.size() / 10 - 1;
  std::vector<double> ttft;
  std::size_t conforming = 0;
  for (std::size_t i = first; i <= last; ++i) {
    ttft.push_back(headroom::capacity::time_to_first_token(run.outcomes[i]).count());
    if (headroom::capacity::meets_slo(objective, run.outcomes[i])) ++conforming;
  }
  std::sort(ttft.begin(), ttft.end());
  const auto at = [&](double q) {
    return ttft[static_cast<std::size_t>(q * static_cast<double>(ttft.size() - 1))];
  };
  tail t;
  t.achieved_rate_per_second =
      static_cast<double>(last - first) /
      (run.outcomes[last].intended_arrival - run.outcomes[first].intended_arrival).count();
  t.p50_ttft_s = at(0.5);
  t.p99_ttft_s = at(0.99);
  t.conformance =
      headroom::capacity::conformance_from_counts({.successes = conforming, .trials = ttft.size()});
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  bool full = false;
  example::flags f("coordinated_omission",
                   "A closed-loop and an open-loop load generator offered the same rates on a "
                   "simulated replica:\nthe closed loop hides the queue. Measure capacity open "
                   "loop.");
  f.toggle("--full", full, "20000 requests per rate instead of 2000");
  f.parse(argc, argv);
  example::output_buffer out;
  const std::size_t requests = full ? 20000 : 2000;

  const auto& gpu = headroom::roofline::accelerators::h100_sxm;
  const double kv_per_token = headroom::roofline::kv_bytes_per_token(
      {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0});
  const auto model = sim::make_roofline_step_time(gpu, {.parameters = 8e9,
                                                        .bytes_per_parameter = 2.0,
                                                        .kv_bytes_per_token = kv_per_token,
                                                        .flops_efficiency = 0.5,
                                                        .bandwidth_efficiency = 0.8,
                                                        .overhead = 1ms});
  const sim::replica_config replica{
      .max_batch = 256,
      .kv_budget_tokens = sim::kv_budget_tokens({.memory_bytes = gpu.memory_bytes,
                                                 .memory_fraction = 0.9,
                                                 .weight_bytes = model.weight_bytes,
                                                 .kv_bytes_per_token = kv_per_token}),
      .max_batched_tokens = 8192,
      .prefill = sim::prefill_mode::chunked,
      .kv = sim::kv_policy::preempt_youngest};
  const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                    .prompt_sigma = 1.0,
                                    .output_median = 150.0,
                                    .output_sigma = 0.9,
                                    .min = {.prompt_tokens = 4, .output_tokens = 1},
                                    .max = {.prompt_tokens = 4096, .output_tokens = 2048}});
  const headroom::capacity::slo objective{.ttft = 1s, .tpot = 50ms};

  // Each rate λ is offered twice: by N = 200 users thinking Z = N/λ on average (what a
  // closed-loop tool configured "for λ" does) and by a Poisson schedule at λ.
  constexpr std::size_t users = 200;
  out.printf(
      "offered rate lambda: closed loop of %zu users with mean think time Z = N/lambda, "
      "vs open-loop Poisson at lambda; %zu requests each\n\n",
      users, requests);
  out.printf("%8s | %-37s | %-28s\n", "", "closed loop", "open loop");
  out.printf("%8s | %8s %8s %8s %10s | %8s %8s %10s\n", "lambda/s", "achieved", "p50 TTFT",
             "p99 TTFT", "conform", "p50 TTFT", "p99 TTFT", "conform");
  std::vector<headroom::capacity::capacity_point> closed_curve;
  std::vector<headroom::capacity::capacity_point> open_curve;
  for (const double rate : {10.0, 20.0, 30.0, 40.0, 45.0, 50.0, 55.0, 60.0, 70.0}) {
    const headroom::arrivals::closed_loop_population population(
        users, std::chrono::duration<double>(static_cast<double>(users) / rate));
    std::mt19937_64 engine(7);
    const auto closed =
        sim::simulate_closed_loop(replica, population, requests, mix, engine, model);
    std::mt19937_64 open_engine(7);
    const auto schedule = headroom::arrivals::poisson_schedule(rate, requests, open_engine);
    const auto offered = sim::make_requests(schedule, mix, open_engine);
    const auto open = sim::simulate(replica, offered, model);
    const auto c = summarise(closed, objective);
    const auto o = summarise(open, objective);
    out.printf("%8.1f | %8.1f %7.3fs %7.3fs %10.3f | %7.3fs %7.3fs %10.3f\n", rate,
               c.achieved_rate_per_second, c.p50_ttft_s, c.p99_ttft_s, c.conformance.share,
               o.p50_ttft_s, o.p99_ttft_s, o.conformance.share);
    closed_curve.push_back({.rate_per_second = rate, .conformance = c.conformance});
    open_curve.push_back({.rate_per_second = rate, .conformance = o.conformance});
  }
  const auto closed_mu = headroom::capacity::find_capacity(closed_curve);
  const auto open_mu = headroom::capacity::find_capacity(open_curve);
  out.printf(
      "\nmu* read off the closed-loop curve: %.0f req/s%s; off the open-loop curve: %.0f "
      "req/s.\nThe closed loop slows down with the server (achieved < offered) and never "
      "holds more than N requests: the requests that would have met the queue are never "
      "sent, so its tail and its mu* are too optimistic. Measure capacity open loop.\n",
      closed_mu.capacity_per_second.value_or(0.0),
      closed_mu.saturated ? "" : " (or more: every rate passed)",
      open_mu.capacity_per_second.value_or(0.0));
  out.print(f.program());
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Measuring a replica's capacity μ*, end to end, against a stub server.
//
// Replace `run_load_test` with a client that sends real requests at the schedule's times
// (docs/capacity.md has the loop) and keep everything else: the open-loop schedule, the
// outcome per request, conformance with its interval after the warm-up (one that holds for
// requests correlated by the queue, with the effective sample size it rests on), the curve,
// μ*, the search, and L* / replicas for the autoscaler.
//
// The stub is an M/M/1 queue (one request at a time, exponential prefill of mean 0.1 s, so
// μ = 10 req/s) followed by a decode at 40 tokens/s, so its μ* has a closed form to compare
// with: μ − ln(1/(1−q))/τ for a TTFT threshold τ (docs/queueing.md).
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>
#include <headroom/queueing.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "flags.hpp"

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;

constexpr double service_rate_per_second = 10.0;  // μ of the stub
constexpr std::size_t output_tokens = 64;
constexpr seconds_d decode_step = 0.025s;  // 40 tokens/s

// One open-loop load test at `rate` req/s: `count` Poisson arrivals, the stub serves them.
std::vector<headroom::capacity::request_outcome> run_load_test(double rate, std::size_t count,
                                                               std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const auto schedule = headroom::arrivals::poisson_schedule(rate, count, engine);
  const headroom::arrivals::exponential_gaps prefill(service_rate_per_second);
  std::vector<headroom::capacity::request_outcome> outcomes;
  outcomes.reserve(schedule.size());
  seconds_d server_free = 0s;
  for (const auto& intended : schedule) {
    // A real client sends at `intended` (or late, if it falls behind: record when).
    const seconds_d sent = intended;
    const seconds_d start = std::max(sent, server_free);
    server_free = start + prefill(engine);
    outcomes.push_back({.intended_arrival = intended,
                        .sent = sent,
                        .first_token = server_free,
                        .finished = server_free + decode_step * double(output_tokens - 1),
                        .prompt_tokens = 256,
                        .output_tokens = output_tokens,
                        .error = false});
  }
  return outcomes;
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("measure_capacity",
                   "Measures a replica's capacity mu* end to end against a stub M/M/1 server: "
                   "the curve, the\nsearch, and the target for the autoscaler. No flags.");
  f.parse(argc, argv);
  example::output_buffer out;
  const headroom::capacity::slo objective{.ttft = 1s, .tpot = 0.05s};
  const double quota = 0.9;
  const std::size_t requests_per_point = 20000;

  // 1. A sweep over a grid: conformance after a warm-up, with its 95 % interval (batch means
  // in arrival order) and the effective sample size; Wilson's, which assumes independent
  // requests, for comparison.
  out.printf("rate req/s   n      conformance  [95 %% interval]   ESS     [Wilson 95 %%]\n");
  std::vector<headroom::capacity::capacity_point> curve;
  for (const double rate : {5.0, 6.0, 7.0, 7.5, 8.0, 8.5, 9.0}) {
    const auto outcomes = run_load_test(rate, requests_per_point, 42);
    const auto estimate = headroom::capacity::measure_conformance(
        outcomes, objective, {.warm_up = 60s, .cool_down = 10s});
    curve.push_back({.rate_per_second = rate, .conformance = estimate});
    out.printf("%9.2f  %6zu   %8.4f    [%.4f, %.4f] %6.0f   [%.4f, %.4f]\n", rate, estimate.n,
               estimate.share, estimate.lower, estimate.upper, estimate.effective_sample_size,
               estimate.wilson_lower, estimate.wilson_upper);
  }
  const auto grid = headroom::capacity::find_capacity(curve, {.quota = quota});
  const auto careful = headroom::capacity::find_capacity(
      curve, {.quota = quota, .rule = headroom::capacity::capacity_rule::lower_bound});
  const auto interpolated =
      headroom::capacity::find_capacity(curve, {.quota = quota, .interpolate = true});
  const double closed_form =
      headroom::queueing::mm1_capacity({.service_rate_per_second = service_rate_per_second,
                                        .threshold = objective.ttft,
                                        .quota = quota});
  out.printf("\nmu* on the grid %.2f, by the lower bound %.2f, interpolated %.2f req/s\n",
             grid.capacity_per_second.value_or(0.0), careful.capacity_per_second.value_or(0.0),
             interpolated.capacity_per_second.value_or(0.0));
  out.printf("M/M/1 closed form mu - ln10/tau = %.3f req/s%s\n", closed_form,
             grid.monotone ? "" : "  (warning: the curve is not monotone)");

  // 2. The search: bracket, then bisect. Each call is a new load test (its own seed); a rate
  // whose interval holds q is tested again, up to 3 times, and the runs are pooled.
  std::uint64_t seed = 7;
  auto measure = [&](headroom::capacity::capacity_probe probe) {
    return headroom::capacity::measure_conformance(
        run_load_test(probe.rate_per_second, requests_per_point, seed++), objective,
        {.warm_up = 60s, .cool_down = 10s});
  };
  const auto found = headroom::capacity::search_capacity(measure, {.quota = quota,
                                                                   .rate_low_per_second = 4.0,
                                                                   .rate_high_per_second = 8.0,
                                                                   .relative_tolerance = 0.01,
                                                                   .max_measurements = 24,
                                                                   .max_runs_per_rate = 3});
  out.printf(
      "\nsearch: %zu rates, %zu runs, %zu requests: mu* in [%.3f, %.3f) req/s at %.0f %% (%s)\n",
      found.measured.size(), found.runs, found.requests, found.bracket_low_per_second,
      found.bracket_high_per_second, 100.0 * found.confidence,
      found.reason == headroom::capacity::search_stop::converged ? "converged"
      : found.reason == headroom::capacity::search_stop::undecided
          ? "undecided rates inside: measure longer"
          : "budget or range");

  // 3. From capacity to control: operate at ρ* = 0.8 of μ*.
  const double mu_star = careful.capacity_per_second.value_or(0.0);
  if (mu_star > 0.0) {
    const double rho = 0.8;
    // W̄ at the operating point: measure there.
    const auto at_target = headroom::capacity::measure_conformance(
        run_load_test(rho * mu_star, requests_per_point, 9), objective, {.warm_up = 60s});
    out.printf(
        "\noperating at rho* = %.1f: L* = rho* mu* W = %.2f in flight per replica; "
        "60 req/s needs %lld replicas\n",
        rho,
        headroom::queueing::target_concurrency({.target_utilization = rho,
                                                .capacity_per_second = mu_star,
                                                .mean_sojourn = at_target.mean_latency}),
        static_cast<long long>(
            headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                 .target_utilization = rho,
                                                 .capacity_per_second = mu_star})));
  }
  out.print(f.program());
  return 0;
}

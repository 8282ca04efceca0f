// SPDX-License-Identifier: Apache-2.0
// The capacity curve of one replica before renting a GPU: a simulated continuous-batching
// replica (sim/replica.hpp) swept over open-loop Poisson rates, read by capacity.hpp.
//
// Stated model: 8e9 parameters in bf16 (16 GB of weights), KV cache of 128 KiB per token
// (32 layers, 8 KV heads of dimension 128, bf16), on an H100 SXM (roofline.hpp specs) at
// 50 % of peak FLOP/s and 80 % of peak bandwidth, 1 ms of fixed overhead per step; 90 % of
// the 80 GB for weights + cache; at most 256 sequences, 8192 tokens per step, chunked
// prefill, preemption of the youngest sequence when the cache is full (vLLM-like).
// Traffic: ShareGPT-like lengths, log-normal prompt (median 200 tokens, σ 1.0, in [4,
// 4096]) and output (median 150 tokens, σ 0.9, in [1, 2048]): our stated parameters, not a
// fit. SLO: TTFT <= 1 s and TPOT <= 50 ms (vLLM definition), quota q = 0.9.
//
// Usage: capacity_sweep [--quick] [--csv PATH]
//   default: 20 rates × 10^4 requests; --quick: 12 rates × 1500 requests (a second or less,
//   even in a sanitized Debug build), too short for the queue to build near μ* (it reads μ*
//   high); --csv PATH: also write the curve (before anything is printed). --help: the flags.
#include <headroom/capacity.hpp>
#include <headroom/queueing.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/replica.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "flags.hpp"

namespace {

using namespace std::chrono_literals;
namespace sim = headroom::sim;

constexpr double parameters = 8e9;
constexpr double quota = 0.9;
constexpr double rho_target = 0.8;  // operate at 80 % of μ*

// Writes the curve to path (nothing when path is empty); a failure is f's one-line failure.
void write_csv(const example::flags& f, const std::string& path,
               const std::vector<headroom::capacity_point>& curve) {
  if (path.empty()) return;
  example::output_buffer csv;
  csv.printf(
      "rate_per_s,conformance,lower,upper,effective_sample_size,wilson_lower,wilson_upper,n,"
      "mean_latency_s\n");
  for (const auto& p : curve)
    csv.printf("%.6g,%.6f,%.6f,%.6f,%.1f,%.6f,%.6f,%zu,%.6f\n", p.rate_per_s, p.conformance.share,
               p.conformance.lower, p.conformance.upper, p.conformance.effective_sample_size,
               p.conformance.wilson_lower, p.conformance.wilson_upper, p.conformance.n,
               p.conformance.mean_latency.count());
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) f.fail("cannot write '" + path + "'");
  const bool written =
      std::fwrite(csv.text().data(), 1, csv.text().size(), file) == csv.text().size();
  if (std::fclose(file) != 0 || !written) f.fail("cannot write '" + path + "'");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool full_flag = false;
  std::string csv_path;
  example::flags f("capacity_sweep",
                   "The capacity curve of one simulated continuous-batching replica (8e9 "
                   "parameters, H100 SXM),\nswept over open-loop Poisson rates: mu*, its "
                   "interval, L* and MFU/MBU at the operating point.");
  f.toggle("--full", full_flag, "20 rates x 10000 requests (the default)")
      .toggle("--quick", quick, "12 rates x 1500 requests: fast, but reads mu* high")
      .text("--csv", csv_path, "PATH", "also write the curve as CSV (rate in requests/s)");
  f.parse(argc, argv);
  if (quick && full_flag) f.fail("--full and --quick exclude each other");
  const bool full = !quick;
  example::output_buffer out;

  const auto& gpu = headroom::accelerators::h100_sxm;
  const double kv_per_token = headroom::kv_bytes_per_token(32, 8, 128, 2.0);
  const auto model =
      sim::make_roofline_step_time(gpu, parameters, 2.0, kv_per_token, 0.5, 0.8, 1ms);
  const sim::replica_config replica{.max_batch = 256,
                                    .kv_budget_tokens = sim::kv_budget_tokens(
                                        gpu.memory_bytes, 0.9, model.weight_bytes, kv_per_token),
                                    .max_batched_tokens = 8192,
                                    .prefill = sim::prefill_mode::chunked,
                                    .kv = sim::kv_policy::preempt_youngest};
  const sim::lognormal_lengths mix(200.0, 1.0, 150.0, 0.9, {.prompt_tokens = 4, .output_tokens = 1},
                                   {.prompt_tokens = 4096, .output_tokens = 2048});
  const headroom::slo objective{.ttft = 1s, .tpot = 50ms};

  std::vector<double> rates;
  const std::size_t points = full ? 20 : 12;
  const double low = 5.0;
  const double high = full ? 81.5 : 71.0;
  for (std::size_t i = 0; i < points; ++i)
    rates.push_back(low + (high - low) * static_cast<double>(i) / static_cast<double>(points - 1));
  const sim::sweep_options options{.requests_per_point = full ? 10000u : 1500u, .seed = 2024};

  out.printf("%s, %.0e parameters bf16, KV %.0f KiB/token, budget %zu tokens\n", gpu.name.data(),
             parameters, kv_per_token / 1024.0, replica.kv_budget_tokens);
  out.printf("SLO: TTFT <= 1 s, TPOT <= 50 ms, q = %.2f; %zu requests per rate\n\n", quota,
             options.requests_per_point);
  const auto sweep = sim::sweep_capacity(replica, model, rates, mix, objective, options);

  out.printf("%8s %9s %19s %7s %9s %9s %9s %6s\n", "rate/s", "conform", "95% interval", "ESS",
             "W mean s", "max batch", "preempt", "MFU %");
  for (std::size_t i = 0; i < sweep.curve.size(); ++i) {
    const auto& p = sweep.curve[i];
    const auto& s = sweep.stats[i];
    const auto u = sim::utilisation_of(s, model, gpu);
    out.printf("%8.1f %9.3f   [%6.3f, %6.3f] %7.0f %9.3f %9zu %9llu %6.1f\n", p.rate_per_s,
               p.conformance.share, p.conformance.lower, p.conformance.upper,
               p.conformance.effective_sample_size, p.conformance.mean_latency.count(),
               s.max_batch_seen, static_cast<unsigned long long>(s.preemptions), 100.0 * u.mfu);
  }

  // μ*: the point estimate, and the bracket the intervals allow: the largest rate whose
  // interval lies above q (conforming with confidence) up to the largest whose interval
  // still reaches q (every rate beyond fails with confidence). The intervals account for
  // the correlation of requests in a queue (docs/capacity.md).
  const auto point = headroom::find_capacity(sweep.curve, {.quota = quota});
  std::optional<std::size_t> at;
  for (std::size_t i = 0; i < sweep.curve.size(); ++i)
    if (point.capacity_per_s && sweep.curve[i].rate_per_s == *point.capacity_per_s) at = i;
  if (!point.capacity_per_s || !at) {
    out.printf("\nno rate of the grid meets the SLO at q = %.2f\n", quota);
    write_csv(f, csv_path, sweep.curve);
    out.print(f.program());
    return 0;
  }
  const double mu_star = *point.capacity_per_s;
  out.printf("\nmu* = %.1f req/s on the grid (by the intervals: at least %.1f, at most %.1f)%s\n",
             mu_star, point.confident_per_second.value_or(0.0),
             point.plausible_per_second.value_or(0.0),
             point.saturated ? "" : "  -- every rate passed: extend the grid");
  if (!point.monotone_within_noise) out.printf("warning: the curve rises beyond its noise\n");

  // The curve is steeper than the grid: bisect between μ* and the next rate with
  // capacity.hpp's search, each probe a simulated run with its own seed. A rate whose
  // interval holds q is run again (up to 3 runs, pooled); if it still holds q, the search
  // keeps it inside the bracket and narrows the bracket from both sides.
  auto measure = [&](headroom::capacity_probe probe) {
    sim::sweep_options run = options;
    run.seed = sim::replication_seed(options.seed, probe.run + 1);
    const std::vector<double> one{probe.rate_per_second};
    return sim::sweep_capacity(replica, model, one, mix, objective, run).curve[0].conformance;
  };
  if (point.saturated && *at + 1 < sweep.curve.size()) {
    headroom::capacity_search_options search;
    search.quota = quota;
    search.rate_low_per_s = mu_star;
    search.rate_high_per_s = sweep.curve[*at + 1].rate_per_s;
    search.relative_tolerance = 0.01;
    search.max_runs_per_rate = 3;
    search.max_measurements = 24;
    const auto found = headroom::search_capacity(measure, search);
    out.printf(
        "bisected: mu* in [%.2f, %.2f) req/s at %.0f %% confidence, %zu runs, %zu requests%s\n",
        found.bracket_low_per_s, found.bracket_high_per_s, 100.0 * found.confidence, found.runs,
        found.requests,
        found.reason == headroom::search_stop::undecided
            ? " (rates inside it stay undecided: measure longer there)"
            : "");
  }

  // MFU and MBU at the operating point ρ*·μ* (docs/roofline.md), and the target concurrency there:
  // L* = ρ*·μ*·W̄ (queueing.hpp) with W̄ the mean sojourn measured at the operating point.
  const double operating = rho_target * mu_star;
  const std::vector<double> operating_rate{operating};
  const auto op = sim::sweep_capacity(replica, model, operating_rate, mix, objective, options);
  const auto u = sim::utilisation_of(op.stats[0], model, gpu);
  const auto mean_w = op.curve[0].conformance.mean_latency;
  out.printf("L* = %.1f in flight per replica at rho* = %.2f (W = %.3f s at rho*.mu*)\n",
             headroom::target_concurrency(rho_target, mu_star, mean_w), rho_target, mean_w.count());
  out.printf(
      "at rho*.mu* = %.1f req/s: conformance %.3f, %.0f tokens/s, MFU %.1f %%, "
      "MBU %.1f %%, busy %.0f %%\n",
      operating, op.curve[0].conformance.share, u.tokens_per_second, 100.0 * u.mfu, 100.0 * u.mbu,
      100.0 * u.busy_fraction);

  write_csv(f, csv_path, sweep.curve);
  if (!csv_path.empty()) out.printf("curve written to %s\n", csv_path.c_str());
  out.print(f.program());
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// The capacity curve of one replica before renting a GPU: a simulated continuous-batching
// replica (sim/replica.hpp) swept over open-loop Poisson rates, read by capacity.hpp.
//
// Stated model: 8e9 parameters in bf16 (16 GB of weights), KV cache of 128 KiB per token
// (32 layers, 8 KV heads of dimension 128, bf16), on an H100 SXM (roofline.hpp specs) at
// 50 % of peak FLOP/s and 80 % of peak bandwidth, 1 ms of fixed overhead per step; 90 % of
// its memory (81,559 MiB as nvidia-smi reports it) for weights + cache; at most 256
// sequences, 8192 tokens per step, chunked prefill, preemption of the youngest sequence when
// the cache is full (vLLM-like).
// Traffic: ShareGPT-like lengths, log-normal prompt (median 200 tokens, σ 1.0, in [4,
// 4096]) and output (median 150 tokens, σ 0.9, in [1, 2048]): our stated parameters, not a
// fit. SLO: TTFT <= 1 s and TPOT <= 50 ms (vLLM definition), quota q = 0.9.
//
// Usage: capacity_sweep [--quick] [--csv PATH] [--trace FORMAT FILE] [--low RATE] [--high RATE]
//                       [--rates R,...] [--model FILE] [--accelerator NAME] [--tensor-parallel N]
//                       [--precision F] [--kv-cache F] [--ttft S] [--tpot S] [--quantile Q]
//   --trace FORMAT FILE: the prompt and output lengths of a public trace (docs/traces.md;
//   FORMAT azure-conv, azure-code, burstgpt or mooncake), replayed in order at every rate,
//   instead of the log-normal mix (the spelling simulated_day and plan_deployment take too);
//   default: 20 rates × 10^4 requests; --quick: 12 rates × 1500 requests (a second or less,
//   even in a sanitized Debug build), too short for the queue to build near μ* (it reads μ*
//   high); --low/--high: the grid's first and last rate, or --rates the grid itself; when no
//   rate of the grid meets the SLO, the search brackets downward (or says that requests miss
//   it even alone), and when every rate meets it, upward;
//   --model FILE: a Hugging Face config.json instead of the stated model, on --accelerator
//   (a catalog name) at --tensor-parallel N, with its shipped calibration where there is one
//   (plan_deployment's model, accelerator and SLO flags, one value each);
//   --csv PATH: also write the curve (before anything is printed). --help: the flags.
#include <headroom/capacity.hpp>
#include <headroom/plan/calibrations.hpp>
#include <headroom/plan/replica_model.hpp>
#include <headroom/queueing.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/replica.hpp>
#include <headroom/traces.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "flags.hpp"
#include "inputs.hpp"

namespace {

using namespace std::chrono_literals;
namespace sim = headroom::sim;

namespace plan = headroom::plan;

constexpr double rho_target = 0.8;  // operate at 80 % of μ*

// Writes the curve to path (nothing when path is empty); a failure is f's one-line failure.
void write_csv(const example::flags& f, const std::string& path,
               const std::vector<headroom::capacity::capacity_point>& curve) {
  if (path.empty()) return;
  example::output_buffer csv;
  csv.printf(
      "rate_per_second,conformance,lower,upper,effective_sample_size,wilson_lower,wilson_upper,n,"
      "mean_latency_s\n");
  for (const auto& p : curve)
    csv.printf("%.6g,%.6f,%.6f,%.6f,%.1f,%.6f,%.6f,%zu,%.6f\n", p.rate_per_second,
               p.conformance.share, p.conformance.lower, p.conformance.upper,
               p.conformance.effective_sample_size, p.conformance.wilson_lower,
               p.conformance.wilson_upper, p.conformance.n, p.conformance.mean_latency.count());
  example::write_file(f.program(), path, csv.text());
}

// The lengths of each request: the stated log-normal mix, or a trace's lengths in order.
struct lengths_source {
  sim::lognormal_lengths mix;
  std::optional<sim::replayed_lengths> trace{};
  template <class G>
  sim::request_lengths operator()(G& engine) {
    return trace ? (*trace)(engine) : mix(engine);
  }
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool full_flag = false;
  std::string csv_path;
  std::string trace_format;  // empty: no trace
  std::string trace_path;    // the FILE after --trace FORMAT
  double low = 5.0;          // the grid's first rate, req/s
  double high = 0;           // its last (0: 81.5, or 71 with --quick)
  std::vector<double> grid;  // --rates: the grid itself
  std::string model_file;    // empty: the stated 8e9-parameter model
  std::string accelerator = "H100 SXM";
  std::int32_t tensor_parallel = 1;
  std::string precision = "auto", kv_cache = "auto";
  double ttft_seconds = 1.0, tpot_seconds = 0.05, quota = 0.9;
  example::flags f("capacity_sweep",
                   "The capacity curve of one simulated continuous-batching replica (by default "
                   "8e9 parameters\non an H100 SXM), swept over open-loop Poisson rates: mu*, its "
                   "interval, L* and MFU/MBU at\nthe operating point.");
  f.toggle("--full", full_flag, "20 rates x 10000 requests (the default)")
      .toggle("--quick", quick, "12 rates x 1500 requests: fast, but reads mu* high")
      .text("--csv", csv_path, "PATH", "also write the curve as CSV (rate in requests/s)")
      .choice_and_file("--trace", trace_format, example::trace_formats, trace_path,
                       "draw the request lengths from a public trace FILE in FORMAT "
                       "(docs/traces.md), in order, instead of the log-normal mix")
      .number("--low", low, {0, 1e6, true, false}, "requests/s", "the grid's first rate")
      .number("--high", high, {0, 1e6}, "requests/s",
              "the grid's last rate (0: 81.5, or 71 with --quick)")
      .numbers("--rates", grid, {0, 1e6, true, false}, "requests/s",
               "the grid's rates, increasing (instead of --low and --high)")
      .text("--model", model_file, "FILE", "a Hugging Face config.json to measure",
            "8e9 parameters in bf16, 32 layers, KV 128 KiB/token, at stated efficiencies")
      .text("--accelerator", accelerator, "NAME",
            "the replica's GPU, by its catalog name (H100 SXM, H100 PCIe, H200 SXM, A100 80GB "
            "SXM, A100 40GB SXM, L40S, L4, B200, MI300X, MI325X)")
      .whole("--tensor-parallel", tensor_parallel, {1, 64}, "GPUs", "GPUs of the replica")
      .choice("--precision", precision, {"auto", "bf16", "fp16", "fp8"},
              "with --model: the weights' format (auto: the card's; fp8 quantizes on load)")
      .choice("--kv-cache", kv_cache, {"auto", "bf16", "fp16", "fp8"},
              "with --model: the KV cache's format (auto: the card's dtype)")
      .number("--ttft", ttft_seconds, {0, 3600, true, false}, "seconds",
              "the SLO's time-to-first-token bound")
      .number("--tpot", tpot_seconds, {0, 3600, true, false}, "seconds",
              "the SLO's TPOT bound (each request's mean inter-token latency, ITL)")
      .number("--quantile", quota, {0, 1, true, true}, "share",
              "the share of requests that must meet both bounds");
  f.parse(argc, argv);
  if (quick && full_flag) f.fail("--full and --quick exclude each other");
  if (high == 0) high = quick ? 71.0 : 81.5;
  if (!(high > low)) f.fail("--high must be above --low");
  for (std::size_t i = 1; i < grid.size(); ++i)
    if (!(grid[i] > grid[i - 1])) f.fail("--rates must increase");
  if (model_file.empty() && (precision != "auto" || kv_cache != "auto"))
    f.fail("--precision and --kv-cache need --model FILE");
  const auto spec = headroom::roofline::find_accelerator(accelerator);
  if (!spec)
    f.fail("--accelerator must be one of " + example::catalog_names() + ", got '" + accelerator +
           "'");
  const bool full = !quick;
  example::output_buffer out;

  // The replica: the stated model at stated efficiencies (50 % of peak FLOP/s, 80 % of peak
  // bandwidth, 1 ms a step), or a model card's with the accelerator's resolved step time.
  plan::accelerator_option gpu{.spec = *spec};
  plan::model_shape shape{.name = "stated",
                          .parameters = 8e9,
                          .layers = 32,
                          .hidden_size = 4096,
                          .kv_bytes_per_token = headroom::roofline::kv_bytes_per_token(
                              {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}),
                          .bytes_per_parameter = 2.0};
  if (model_file.empty()) {
    gpu.step_time = plan::step_time_parameters{
        .flops_efficiency = 0.5, .bandwidth_efficiency = 0.8, .step_overhead = 1ms};
  } else {
    shape = example::read_model(f, model_file, precision, kv_cache).shape;
  }
  plan::tensor_parallel_step_time model;
  std::optional<std::size_t> budget;
  try {
    model = plan::make_step_time(shape, gpu, tensor_parallel);
    budget = plan::replica_kv_budget(shape, gpu, tensor_parallel, 0.9);
  } catch (const std::exception& e) {
    f.fail(e.what());
  }
  if (!budget)
    f.fail(shape.name + "'s weights do not fit " + std::to_string(tensor_parallel) + " x " +
           accelerator + " (90 % of its memory)");
  const auto replica_gpu = plan::replica_spec(*spec, tensor_parallel, shape.compute_format);
  const sim::replica_config replica{.max_batch = 256,
                                    .kv_budget_tokens = *budget,
                                    .max_batched_tokens = 8192,
                                    .prefill = sim::prefill_mode::chunked,
                                    .kv = sim::kv_policy::preempt_youngest};
  const std::vector<sim::request_lengths> replay =
      trace_format.empty() ? std::vector<sim::request_lengths>{}
                           : example::read_trace_lengths(f, trace_format, trace_path);
  lengths_source mix{
      .mix = sim::lognormal_lengths({.prompt_median = 200.0,
                                     .prompt_sigma = 1.0,
                                     .output_median = 150.0,
                                     .output_sigma = 0.9,
                                     .min = {.prompt_tokens = 4, .output_tokens = 1},
                                     .max = {.prompt_tokens = 4096, .output_tokens = 2048}})};
  if (!replay.empty()) mix.trace.emplace(replay);
  const headroom::capacity::slo objective{.ttft = std::chrono::duration<double>(ttft_seconds),
                                          .tpot = std::chrono::duration<double>(tpot_seconds)};

  std::vector<double> rates = grid;
  const std::size_t points = full ? 20 : 12;
  for (std::size_t i = 0; grid.empty() && i < points; ++i)
    rates.push_back(low + (high - low) * static_cast<double>(i) / static_cast<double>(points - 1));
  const sim::sweep_options options{.requests_per_point = full ? 10000u : 1500u, .seed = 2024};

  if (model_file.empty()) {
    out.printf("%s, %.0e parameters bf16, KV %.0f KiB/token, budget %zu tokens\n",
               spec->name.data(), shape.parameters, shape.kv_bytes_per_token / 1024.0,
               replica.kv_budget_tokens);
  } else {
    const auto step = plan::resolve_step_time(gpu, shape);
    out.printf(
        "%s on %d x %s: %.3ge9 parameters, %.3g bytes each, %s products, KV %.0f "
        "KiB/token, budget %zu tokens\nstep time: %s\n",
        shape.name.c_str(), tensor_parallel, spec->name.data(), shape.parameters / 1e9,
        shape.bytes_per_parameter,
        std::string(headroom::roofline::to_string(shape.compute_format)).c_str(),
        shape.kv_bytes_per_token / 1024.0, replica.kv_budget_tokens,
        step.source == plan::calibration_source::shipped
            ? "the accelerator's shipped calibration (plan/calibrations.hpp)"
            : "UNCALIBRATED: 50 % of peak FLOP/s, 80 % of bandwidth, 1 ms a step (no "
              "published measurement of this part)");
  }
  if (!replay.empty())
    out.printf("lengths: %zu requests of %s, replayed in order\n", replay.size(),
               trace_path.c_str());
  out.printf("SLO: TTFT <= %g s, TPOT <= %g ms, q = %.2f; %zu requests per rate\n\n", ttft_seconds,
             1000.0 * tpot_seconds, quota, options.requests_per_point);
  const auto sweep = sim::sweep_capacity(replica, model, rates, mix, objective, options);

  out.printf("%8s %9s %19s %7s %9s %9s %9s %6s\n", "rate/s", "conform", "95% interval", "ESS",
             "W mean s", "max batch", "preempt", "MFU %");
  for (std::size_t i = 0; i < sweep.curve.size(); ++i) {
    const auto& p = sweep.curve[i];
    const auto& s = sweep.stats[i];
    const auto u = sim::utilization_of(s, model.roofline, replica_gpu);
    out.printf("%8.1f %9.3f   [%6.3f, %6.3f] %7.0f %9.3f %9zu %9llu %6.1f\n", p.rate_per_second,
               p.conformance.share, p.conformance.lower, p.conformance.upper,
               p.conformance.effective_sample_size, p.conformance.mean_latency.count(),
               s.max_batch_seen, static_cast<unsigned long long>(s.preemptions), 100.0 * u.mfu);
  }

  // μ*: the point estimate, and the bracket the intervals allow: the largest rate whose
  // interval lies above q (conforming with confidence) up to the largest whose interval
  // still reaches q (every rate beyond fails with confidence). The intervals account for
  // the correlation of requests in a queue (docs/capacity.md).
  // The curve is steeper than the grid: capacity.hpp's search, each probe a simulated run
  // with its own seed. A rate whose interval holds q is run again (up to 3 runs, pooled); if
  // it still holds q, the search keeps it inside the bracket and narrows it from both sides.
  auto measure = [&](headroom::capacity::capacity_probe probe) {
    sim::sweep_options run = options;
    run.seed = sim::replication_seed(options.seed, probe.run + 1);
    const std::vector<double> one{probe.rate_per_second};
    return sim::sweep_capacity(replica, model, one, mix, objective, run).curve[0].conformance;
  };
  headroom::capacity::capacity_search_options search;
  search.quota = quota;
  search.relative_tolerance = 0.01;
  search.max_runs_per_rate = 3;
  search.max_measurements = 24;
  const auto report = [&](const char* what,
                          const headroom::capacity::capacity_search_result& found) {
    out.printf("%s: mu* in [%.2f, %.2f) req/s at %.0f %% confidence, %zu runs, %zu requests%s\n",
               what, found.bracket_low_per_second, found.bracket_high_per_second,
               100.0 * found.confidence, found.runs, found.requests,
               found.reason == headroom::capacity::search_stop::undecided
                   ? " (rates inside it stay undecided: measure longer there)"
                   : "");
  };

  const auto point = headroom::capacity::find_capacity(sweep.curve, {.quota = quota});
  std::optional<std::size_t> at;
  for (std::size_t i = 0; i < sweep.curve.size(); ++i)
    if (point.capacity_per_second && sweep.curve[i].rate_per_second == *point.capacity_per_second)
      at = i;
  double mu_star = 0.0;
  if (!point.capacity_per_second || !at) {
    // No rate of the grid passes. First the requests alone: at a millionth of the grid's
    // lowest rate each is served on an idle replica. If they do not meet the SLO there with
    // confidence, no rate does. If they do, bracket downward from the grid's lowest rate (the
    // search halves its low rate until one passes), then bisect.
    out.printf("\nno rate of the grid meets the SLO at q = %.2f\n", quota);
    const double idle_rate = rates.front() * 1e-6;
    const auto alone = measure({.rate_per_second = idle_rate});
    out.printf("requests alone on the replica (%.3g req/s): %.1f %% meet the SLO [%.1f, %.1f]\n",
               idle_rate, 100.0 * alone.share, 100.0 * alone.lower, 100.0 * alone.upper);
    if (!(alone.lower >= quota)) {
      if (alone.upper < quota)
        out.printf("so no rate meets it: relax the SLO or serve faster\n");
      else
        out.printf(
            "q = %.2f lies inside that interval: no rate meets the SLO with confidence "
            "(measure longer, --full)\n",
            quota);
      write_csv(f, csv_path, sweep.curve);
      out.print(f.program());
      return 0;
    }
    search.rate_high_per_second = rates.front();
    search.rate_low_per_second = rates.front() / 2.0;
    search.max_measurements = 48;
    const auto found = headroom::capacity::search_capacity(measure, search);
    if (!found.capacity_per_second) {
      out.printf("no rate between %.3g and %.3g req/s decided to meet the SLO in %zu runs\n",
                 idle_rate, rates.front(), found.runs);
      write_csv(f, csv_path, sweep.curve);
      out.print(f.program());
      return 0;
    }
    report("below the grid", found);
    mu_star = *found.capacity_per_second;
  } else {
    mu_star = *point.capacity_per_second;
    out.printf("\nmu* = %.1f req/s on the grid (by the intervals: at least %.1f, at most %.1f)%s\n",
               mu_star, point.confident_per_second.value_or(0.0),
               point.plausible_per_second.value_or(0.0),
               point.saturated ? "" : "  -- every rate passed: searching above the grid");
    if (!point.monotone_within_noise) out.printf("warning: the curve rises beyond its noise\n");
    if (!point.saturated) {
      // Every rate of the grid passed: bracket upward from its highest rate (the search
      // doubles its high rate while it passes), then bisect.
      search.rate_low_per_second = rates.back();
      search.rate_high_per_second = 2.0 * rates.back();
      search.max_measurements = 48;
      const auto found = headroom::capacity::search_capacity(measure, search);
      report("above the grid", found);
      if (found.capacity_per_second) mu_star = *found.capacity_per_second;
    } else if (*at + 1 < sweep.curve.size()) {
      search.rate_low_per_second = mu_star;
      search.rate_high_per_second = sweep.curve[*at + 1].rate_per_second;
      report("bisected", headroom::capacity::search_capacity(measure, search));
    }
  }

  // MFU and MBU at the operating point ρ*·μ* (docs/roofline.md), and the target concurrency there:
  // L* = ρ*·μ*·W̄ (queueing.hpp) with W̄ the mean sojourn measured at the operating point.
  const double operating = rho_target * mu_star;
  const std::vector<double> operating_rate{operating};
  const auto op = sim::sweep_capacity(replica, model, operating_rate, mix, objective, options);
  const auto u = sim::utilization_of(op.stats[0], model.roofline, replica_gpu);
  const auto mean_w = op.curve[0].conformance.mean_latency;
  out.printf("L* = %.1f in flight per replica at rho* = %.2f (W = %.3f s at rho*.mu*)\n",
             headroom::queueing::target_concurrency({.target_utilization = rho_target,
                                                     .capacity_per_second = mu_star,
                                                     .mean_sojourn = mean_w}),
             rho_target, mean_w.count());
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

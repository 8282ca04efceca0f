// SPDX-License-Identifier: Apache-2.0
// The deployment planner: which accelerator, tensor-parallel size and batch limits serve a day
// of traffic under an SLO at the lowest cost, for the models you name by their Hugging Face
// config.json (plan.hpp, plan/model_card.hpp). Each configuration's capacity μ* comes from the
// simulated replica, its replica-hours from the simulated day, its price per million tokens
// from cost.hpp. Without flags: the demo, Llama 3.1 70B and 8B on four accelerators.
//
//   plan_deployment --model config.json --accelerators prices.csv --tpot 0.05
//                                         your model, your prices, your SLO
//   plan_deployment --format csv          every configuration's row, with why it lost
//   plan_deployment --svg plan.svg        the frontiers, cost against latency margin
//   plan_deployment --shard 2/3           one third of the grid, as CSV rows for a merge
//   plan_deployment --merge a.csv b.csv c.csv   the shards, decided
//
// Run `plan_deployment --help` for every flag. See docs/planner.md.
#include <headroom/plan.hpp>
#include <headroom/plan/calibrate.hpp>
#include <headroom/plan/csv_read.hpp>
#include <headroom/plan/csv_write.hpp>
#include <headroom/plan/fingerprint.hpp>
#include <headroom/plan/merge.hpp>
#include <headroom/plan/model_card.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "flags.hpp"
#include "inputs.hpp"

namespace {

namespace plan = headroom::plan;
namespace sim = headroom::sim;
using namespace std::chrono_literals;

// ---- the flags ------------------------------------------------------------------------------

struct options {
  std::string format = "table";
  std::string svg_file;
  std::string shard_text;
  std::optional<plan::shard> part;
  std::size_t threads = 0;
  bool merge = false;
  std::vector<std::string> merge_files;
  std::size_t requests = 4000;
  std::vector<std::string> model_files;
  std::string prices_file;
  std::string currency = "USD";
  std::vector<std::int32_t> tensor_parallel{1, 2, 4, 8};
  std::vector<std::size_t> max_batch{64, 128, 256};
  std::vector<std::size_t> max_batched_tokens{512, 2048};
  std::string precision = "auto";
  std::string kv_cache = "auto";
  double ttft_seconds = 2.0;
  double tpot_seconds = 0.0;  // 0: each demo model's own, 0.1 s for a --model card
  double quantile = 0.99;
  example::traffic_input traffic;
  bool csv_comments = false;
};

// Every flag through the examples' shared parser (examples/flags.hpp): an unknown flag or a
// bad value is one line on stderr and exit status 2, with nothing on stdout.
options parse_flags(example::flags& f, int argc, char** argv) {
  options o;
  f.texts("--model", o.model_files, "FILE", "a Hugging Face config.json to plan for, one grid each",
          "the demo's Llama 3.1 70B and 8B")
      .text("--accelerators", o.prices_file, "PRICES.csv",
            "the accelerators to consider and their prices: a CSV "
            "'accelerator,price_per_gpu_hour' naming catalog parts (sample: examples/prices.csv)",
            "the sample's four: H100 SXM 3.00, H200 SXM 3.80, A100 80GB SXM 1.80, L40S 1.00")
      .text("--currency", o.currency, "NAME", "the prices' currency, for the headers and axes")
      .wholes("--tensor-parallel", o.tensor_parallel, {.low = 1, .high = 64}, "GPUs",
              "tensor-parallel sizes to try")
      .wholes("--max-batch", o.max_batch, {.low = 1, .high = 65536}, "sequences",
              "max running sequences to try")
      .wholes("--max-batched-tokens", o.max_batched_tokens, {.low = 16, .high = 1048576}, "tokens",
              "step token budgets (chunked-prefill sizes) to try")
      .choice("--precision", o.precision, {"auto", "bf16", "fp16", "fp8"},
              "the weights' format: auto keeps the card's; fp8 quantizes a 16-bit card on load "
              "and multiplies in FP8 where the part can")
      .choice("--kv-cache", o.kv_cache, {"auto", "bf16", "fp16", "fp8"},
              "the KV cache's format (auto: the card's dtype)")
      .number("--ttft", o.ttft_seconds, {.low = 0, .high = 3600, .low_open = true}, "seconds",
              "the SLO's time-to-first-token bound")
      .number("--tpot", o.tpot_seconds, {.low = 0, .high = 3600}, "seconds",
              "the SLO's TPOT bound (each request's mean inter-token latency, ITL); 0: the "
              "demo models' own (0.2 s for the 70B, 0.1 s for the 8B), 0.1 s for a --model")
      .number("--quantile", o.quantile, {.low = 0, .high = 1, .low_open = true, .high_open = true},
              "share", "the share of requests that must meet both bounds")
      .whole("--requests", o.requests, {.low = 100, .high = 10000000}, "requests",
             "requests per simulated load test");
  example::traffic_flags(f, o.traffic);
  f.choice("--format", o.format, {"table", "csv"},
           "table: the frontiers and the winners; csv: every configuration's row with its "
           "verdict and what dominates it")
      .toggle("--csv-comments", o.csv_comments,
              "write each CSV block after a '# headroom' line naming its grid, instead of "
              "plain CSV whose first columns name it")
      .text("--svg", o.svg_file, "FILE",
            "also write the frontiers (cost per million tokens against latency margin, the "
            "winner marked) as a self-contained SVG")
      .whole("--threads", o.threads, {.low = 0, .high = 4096}, "threads",
             "worker threads (0: every core)")
      .text("--shard", o.shard_text, "K/N",
            "evaluate only configurations i with i mod N = K - 1 and write their rows as CSV "
            "(for --merge); 1 <= K <= N")
      .toggle("--merge", o.merge,
              "read the shard CSV files named after the flags and decide the whole grid, as an "
              "unsharded run would (give the same flags as the shards); nothing is simulated")
      .positionals(o.merge_files, "FILE", "a shard's CSV, written by --shard (with --merge)");
  f.parse(argc, argv);
  if (!o.shard_text.empty()) {
    o.part = plan::parse_shard(o.shard_text);
    if (!o.part) f.fail("--shard must be K/N with 1 <= K <= N, got '" + o.shard_text + "'");
  }
  if (o.merge && o.merge_files.empty()) f.fail("--merge needs the shard files (see --help)");
  if (!o.merge && !o.merge_files.empty())
    f.fail("unexpected argument '" + o.merge_files.front() + "' (see --help)");
  if (o.part && o.merge) f.fail("--shard and --merge exclude each other");
  if (o.part && !o.svg_file.empty()) f.fail("--svg needs the whole grid: use it with --merge");
  if (o.currency.empty() || o.currency.size() > 16 ||
      o.currency.find_first_of("<>&\"'\n") != std::string::npos)
    f.fail("--currency must be 1 to 16 characters without <>&\"' or a newline, got '" + o.currency +
           "'");
  if (o.traffic.trace_format.empty() &&
      (o.traffic.speed != 1.0 || o.traffic.from_minutes != 0 || o.traffic.to_minutes != 0))
    f.fail("--speed, --from and --to need --trace FORMAT FILE");
  return o;
}

// ---- the problems -----------------------------------------------------------------------------

// Hourly prices per GPU when no --accelerators file is given (examples/prices.csv holds the
// same): our stated assumptions, within 2026 on-demand list ranges (H100 SXM 2.49-3.99, A100
// 80GB SXM 1.49-2.49 per hour). Each part's link is its datasheet's
// (headroom::roofline::accelerators). Step times: no parameters are stated here, so each
// accelerator takes its shipped calibration (plan/calibrations.hpp: fitted on published
// TensorRT-LLM rows, FP8 on the H100, H200 and L40S, FP16 on the A100) or, for a part with none,
// the uncalibrated fallback; the tables and the winner line say which.
std::vector<plan::accelerator_option> accelerators(const example::flags& f, const options& o) {
  if (!o.prices_file.empty()) return example::read_prices(f, o.prices_file);
  namespace gpus = headroom::roofline::accelerators;
  return {{.spec = gpus::h100_sxm, .price_per_gpu_hour = 3.00},
          {.spec = gpus::h200_sxm, .price_per_gpu_hour = 3.80},
          {.spec = gpus::a100_80gb_sxm, .price_per_gpu_hour = 1.80},
          {.spec = gpus::l40s, .price_per_gpu_hour = 1.00}};
}

// The demo's two models, stated as the model-card fields their shapes need (the Llama 3.1
// config.json values), read by the same reader as a --model file. SLOs: MLPerf Inference's
// server-scenario bounds for these models (mlcommons/inference mlperf.conf: llama2-70b TTFT
// 2 s, TPOT 200 ms; llama3_1-8b TTFT 2 s, TPOT 100 ms).
struct demo_model {
  const char* plan_name;
  const char* model_name;
  const char* card;
  std::chrono::milliseconds tpot;
};
constexpr demo_model demo_models[] = {
    {"demo-day-70b", "Llama-3.1-70B",
     R"({"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80,
         "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 28672,
         "vocab_size": 128256, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})",
     200ms},
    {"demo-day-8b", "Llama-3.1-8B",
     R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
         "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
         "vocab_size": 128256, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})",
     100ms}};

// What a grid is planned for, besides the grid itself.
struct model_entry {
  std::string plan_name;
  plan::model_shape shape;
  std::vector<std::string> notes;  // the card reader's assumptions
  std::chrono::duration<double> tpot;
};

std::vector<model_entry> models(const example::flags& f, const options& o) {
  std::vector<model_entry> out;
  const std::chrono::duration<double> stated(o.tpot_seconds);
  if (o.model_files.empty()) {
    for (const demo_model& d : demo_models) {
      const auto read = plan::read_model_card(d.card);
      try {
        out.push_back(
            {d.plan_name,
             plan::to_model_shape(*read.card, {.name = d.model_name,
                                               .precision = example::format_flag(o.precision),
                                               .kv_cache = example::format_flag(o.kv_cache)}),
             {},
             o.tpot_seconds > 0 ? stated : std::chrono::duration<double>(d.tpot)});
      } catch (const std::exception& e) {
        f.fail(e.what());
      }
    }
    return out;
  }
  for (const std::string& file : o.model_files) {
    example::model_input m = example::read_model(f, file, o.precision, o.kv_cache);
    for (const auto& other : out)
      if (other.shape.name == m.shape.name)
        f.fail("two --model files are named '" + m.shape.name + "': rename one");
    out.push_back({m.shape.name, std::move(m.shape), std::move(m.card.notes),
                   o.tpot_seconds > 0 ? stated : std::chrono::duration<double>(0.1)});
  }
  return out;
}

// The demo's length mix: ShareGPT-like log-normal prompts and outputs (our stated
// parameters, as in examples/capacity_sweep.cpp), or a trace's lengths replayed in order.
const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                  .prompt_sigma = 1.0,
                                  .output_median = 150.0,
                                  .output_sigma = 0.9,
                                  .min = {4, 1},
                                  .max = {4096, 2048}});
constexpr const char* mix_description =
    "lognormal prompt 200 sigma 1.0 [4,4096] output 150 sigma 0.9 [1,2048]";

struct lengths_source {
  sim::lognormal_lengths lognormal = mix;
  std::optional<sim::replayed_lengths> trace{};
  template <class G>
  sim::request_lengths operator()(G& engine) {
    return trace ? (*trace)(engine) : lognormal(engine);
  }
};

// The grids: one per model, over the same accelerators, limits, SLO quantile and day.
struct inputs {
  std::vector<model_entry> entries;
  std::vector<plan::problem> problems;
  std::vector<sim::request_lengths> trace_lengths;  // replayed (empty: the log-normal mix)
  lengths_source lengths;
  std::string traffic_description;
};

void build(inputs& in, const example::flags& f, const options& o) {
  in.entries = models(f, o);
  const plan::grid axes{.accelerators = accelerators(f, o),
                        .tensor_parallel = o.tensor_parallel,
                        .max_batch = o.max_batch,
                        .max_batched_tokens = o.max_batched_tokens,
                        .prefill = {sim::prefill_mode::chunked},
                        .kv = {sim::kv_policy::preempt_youngest},
                        .memory_fraction = 0.9};
  plan::traffic_profile day{.rates_per_second = example::read_traffic(f, o.traffic),
                            .step = 1min,
                            .lengths_description = mix_description};
  in.traffic_description = "the reference day";
  if (!o.traffic.traffic_file.empty()) in.traffic_description = o.traffic.traffic_file;
  if (!o.traffic.trace_format.empty()) {
    in.trace_lengths = example::read_trace_lengths(f, o.traffic.trace_format, o.traffic.trace_file,
                                                   example::trace_window(o.traffic));
    in.traffic_description = "trace " + o.traffic.trace_file;
    // The fingerprint cannot hash a sampler: the description names the replayed lengths.
    day.lengths_description = "trace " + o.traffic.trace_format + " " +
                              example::model_name_of(o.traffic.trace_file) + " " +
                              std::to_string(in.trace_lengths.size()) + " requests replayed";
  }
  const plan::fleet_options fleet{
      .policy = sim::chase(8min), .target_utilization = 0.8, .scale_down_window_steps = 5};
  for (const model_entry& m : in.entries)
    in.problems.push_back({.name = m.plan_name,
                           .model = m.shape,
                           .axes = axes,
                           .target = {.ttft = std::chrono::duration<double>(o.ttft_seconds),
                                      .tpot = m.tpot,
                                      .quota = o.quantile},
                           .traffic = day,
                           .fleet = fleet,
                           .search = {.requests_per_run = o.requests}});
  if (!in.trace_lengths.empty()) in.lengths.trace.emplace(in.trace_lengths);
}

// ---- output ---------------------------------------------------------------------------------

struct planned {
  const plan::problem* problem;
  plan::length_statistics lengths;
  std::vector<plan::row> rows;
  plan::decision outcome;
};

std::string label(const plan::problem& p, const plan::row& r) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "%s TP%d, %zu seqs, %zu-token chunks",
                std::string(p.axes.accelerators[r.config.accelerator].spec.name).c_str(),
                r.config.tensor_parallel, r.config.max_batch, r.config.max_batched_tokens);
  return buffer;
}

void print_frontier(example::output_buffer& out, const planned& g,
                    const std::vector<std::size_t>& frontier, const char* title) {
  out.printf("  frontier, %s:\n", title);
  out.printf("    %-46s %9s %17s %5s %8s %8s %7s %6s %5s %5s  %s\n", "configuration", "mu* req/s",
             "interval", "peak", "GPU-h", "per day", "per Mtok", "margin", "MFU", "MBU",
             "step time");
  for (const std::size_t i : frontier) {
    const plan::row& r = g.rows[i];
    char interval[40];
    std::snprintf(interval, sizeof interval, "[%.2f, %.2f)", r.capacity_per_second,
                  r.capacity_high_per_second);
    out.printf("  %s %-46s %9.2f %17s %5lld %8.1f %8.2f %7.3f %6.3f %4.0f%% %4.0f%%  %s\n",
               g.outcome.winner && *g.outcome.winner == i ? "*" : " ", label(*g.problem, r).c_str(),
               r.capacity_per_second, interval, static_cast<long long>(r.replicas_for_peak),
               r.gpu_hours, r.cost, r.cost_per_million_tokens, r.latency_margin, 100.0 * r.mfu,
               100.0 * r.mbu,
               r.calibration == plan::calibration_source::uncalibrated
                   ? "UNCALIBRATED"
                   : std::string(plan::to_string(r.calibration)).c_str());
  }
}

void print_table(example::output_buffer& out, const planned& g, const inputs& in,
                 const options& o) {
  const plan::problem& p = *g.problem;
  const plan::decision& d = g.outcome;
  out.printf("\n%s (%.2fe9 parameters", p.model.name.c_str(), p.model.parameters / 1e9);
  if (p.model.moe.experts > 0)
    out.printf(", %.2fe9 active: %lld of %lld experts a token",
               headroom::roofline::active_parameters(p.model.parameters, p.model.moe) / 1e9,
               static_cast<long long>(p.model.moe.experts_per_token),
               static_cast<long long>(p.model.moe.experts));
  out.printf(", %.3g bytes each, %s products, %d layers, KV %.0f KiB/token)\n",
             p.model.bytes_per_parameter,
             std::string(headroom::roofline::to_string(p.model.compute_format)).c_str(),
             p.model.layers, p.model.kv_bytes_per_token / 1024.0);
  for (const model_entry& m : in.entries)
    if (m.plan_name == p.name)
      for (const std::string& note : m.notes) out.printf("  note: %s\n", note.c_str());
  out.printf(
      "  SLO: TTFT <= %g s, TPOT <= %g ms for %g %% of requests; traffic: %s, chased\n"
      "  with an 8-minute start at rho* = %.1f; mean lengths %.0f in, %.0f out; prices in %s\n",
      p.target.ttft->count(), 1000.0 * p.target.tpot->count(), 100.0 * p.target.quota,
      in.traffic_description.c_str(), p.fleet.target_utilization, g.lengths.mean_prompt_tokens,
      g.lengths.mean_output_tokens, o.currency.c_str());
  out.printf(
      "  mu*: the highest rate (req/s) one replica serves within the SLO, [its 95 %% interval)\n"
      "  margin: 1 - (quantile latency at rho*.mu*) / bound, the tighter of TTFT and TPOT; 0 is "
      "at the bound\n");
  std::string uncalibrated;
  for (const auto& a : p.axes.accelerators)
    if (plan::resolve_step_time(a, p.model).source == plan::calibration_source::uncalibrated) {
      if (!uncalibrated.empty()) uncalibrated += ", ";
      uncalibrated += a.spec.name;
    }
  if (!uncalibrated.empty())
    out.printf(
        "  UNCALIBRATED for this model's architecture: %s (no published measurement; stated\n"
        "       constants: 50 %% of peak FLOP/s, 80 %% of bandwidth, 1 ms a step)\n",
        uncalibrated.c_str());
  std::size_t winners = 0, frontier = 0, dominated = 0;
  for (const auto v : d.verdicts) {
    winners += v == plan::verdict::winner;
    frontier += v == plan::verdict::frontier;
    dominated += v == plan::verdict::dominated;
  }
  out.printf(
      "  %zu configurations: %zu feasible (%zu winner, %zu more on the frontier, %zu "
      "dominated);\n  infeasible: %zu weights do not fit, %zu requests do not fit the KV cache, "
      "%zu miss the SLO alone, %zu at every rate tried\n",
      g.rows.size(), d.counts[0], winners, frontier, dominated, d.counts[1], d.counts[2],
      d.counts[3], d.counts[4]);
  if (!d.winner) {
    out.printf("  no configuration meets the SLO\n");
    return;
  }
  print_frontier(out, g, d.margin_frontier, "cost per million tokens against latency margin");
  print_frontier(out, g, d.replicas_frontier,
                 "cost per million tokens against replicas at the peak");
  {
    const plan::row& w = g.rows[*d.winner];
    out.printf(
        "  winner: %s: %.3f per million tokens, %.1f GPU-hours (%.2f) over the day,\n"
        "          mu* %.2f req/s, %lld replicas at the peak, margin %.3f\n",
        label(p, w).c_str(), w.cost_per_million_tokens, w.gpu_hours, w.cost, w.capacity_per_second,
        static_cast<long long>(w.replicas_for_peak), w.latency_margin);
    const auto& gpu = p.axes.accelerators[w.config.accelerator];
    if (w.calibration == plan::calibration_source::uncalibrated)
      out.printf(
          "          UNCALIBRATED: no published measurement calibrates the %s; its figures rest\n"
          "          on stated constants (50 %% of peak FLOP/s, 80 %% of bandwidth, 1 ms a step):\n"
          "          measure it, or calibrate it on your own runs (plan::calibrate)\n",
          gpu.spec.name.data());
    else if (w.calibration == plan::calibration_source::shipped) {
      const plan::shipped_calibration& c =
          *plan::find_shipped_calibration(gpu.spec.name, plan::architecture_of(p.model));
      out.printf(
          "          step time: the shipped calibration of the %s (%s);\n"
          "          on published rows it was not fitted on, |ln(predicted/published)| median "
          "%.3f, worst %.3f\n",
          gpu.spec.name.data(), c.fitted_on.data(), c.validation_median_abs_log_error,
          c.validation_max_abs_log_error);
    }
  }
}

// The frontiers, one panel per model: every feasible configuration as a grey dot at (latency
// margin, cost per million tokens, log scale), the frontier joined, the winner ringed. Every
// text lies outside the plot's box (class "plot"): titles above it, ticks beside and below,
// the legend and the winner's name under the axis title, so no label overprints a point.
std::string render_svg(const std::vector<planned>& grids, const std::string& currency) {
  std::ostringstream svg;
  const double width = 900, panel_height = 400, top = 30;
  const double height = top + panel_height * static_cast<double>(grids.size()) + 20;
  char b[1024];
  std::snprintf(b, sizeof b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n",
                width, height, width, height);
  svg << b;
  for (std::size_t k = 0; k < grids.size(); ++k) {
    const planned& g = grids[k];
    const double x0 = 90, w = width - 130, y0 = top + panel_height * static_cast<double>(k) + 30,
                 h = panel_height - 115;
    double lo = INFINITY, hi = 0, mlo = 0, mhi = 1;
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
      if (g.rows[i].status != plan::feasibility::feasible) continue;
      lo = std::min(lo, g.rows[i].cost_per_million_tokens);
      hi = std::max(hi, g.rows[i].cost_per_million_tokens);
      mlo = std::min(mlo, g.rows[i].latency_margin);
    }
    if (!(hi > 0)) lo = 0.1, hi = 1;
    const double ylo = std::floor(std::log10(lo)),
                 yhi = std::max(ylo + 1, std::ceil(std::log10(hi)));
    mlo = std::floor(mlo * 10) / 10;
    const auto px = [&](double m) { return x0 + (m - mlo) / (mhi - mlo) * w; };
    const auto py = [&](double c) { return y0 + h - (std::log10(c) - ylo) / (yhi - ylo) * h; };
    std::snprintf(b, sizeof b,
                  "<text x=\"%.0f\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">%s: cost per "
                  "million tokens against latency margin</text>\n<rect class=\"plot\" "
                  "x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
                  "stroke=\"#444\"/>\n",
                  x0, y0 - 10, g.problem->model.name.c_str(), x0, y0, w, h);
    svg << b;
    for (double e = ylo; e <= yhi + 1e-9; e += 1) {
      std::snprintf(b, sizeof b,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text "
                    "x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n",
                    x0, py(std::pow(10, e)), x0 + w, py(std::pow(10, e)), x0 - 5,
                    py(std::pow(10, e)) + 4, std::pow(10, e));
      svg << b;
    }
    for (double m = mlo; m <= mhi + 1e-9; m += 0.1) {
      std::snprintf(b, sizeof b,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text "
                    "x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>\n",
                    px(m), y0, px(m), y0 + h, px(m), y0 + h + 15, m);
      svg << b;
    }
    std::snprintf(b, sizeof b,
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">latency "
                  "margin at rho*.mu* (1 - q-quantile / bound, the tightest bound)</text>\n<text "
                  "transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"12\" "
                  "text-anchor=\"middle\">cost per million tokens (%s, log scale)</text>\n",
                  x0 + w / 2, y0 + h + 32, x0 - 55, y0 + h / 2, currency.c_str());
    svg << b;
    for (const auto& r : g.rows) {
      if (r.status != plan::feasibility::feasible) continue;
      std::snprintf(b, sizeof b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#bbb\"/>\n",
                    px(r.latency_margin), py(r.cost_per_million_tokens));
      svg << b;
    }
    svg << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
    for (const std::size_t i : g.outcome.margin_frontier) {
      std::snprintf(b, sizeof b, "%.1f,%.1f ", px(g.rows[i].latency_margin),
                    py(g.rows[i].cost_per_million_tokens));
      svg << b;
    }
    svg << "\"/>\n";
    for (const std::size_t i : g.outcome.margin_frontier) {
      std::snprintf(b, sizeof b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/>\n",
                    px(g.rows[i].latency_margin), py(g.rows[i].cost_per_million_tokens));
      svg << b;
    }
    // The winner ringed; its name on the legend's second line, under the axis.
    const double ly = y0 + h + 50;
    if (g.outcome.winner) {
      const plan::row& r = g.rows[*g.outcome.winner];
      std::snprintf(b, sizeof b,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#d62728\" "
                    "stroke-width=\"2.5\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" "
                    "fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"%.1f\" "
                    "y=\"%.1f\" font-size=\"11\" fill=\"#d62728\">the winner (cheapest per "
                    "million tokens): %s, %.3f %s per million tokens</text>\n",
                    px(r.latency_margin), py(r.cost_per_million_tokens), x0 + 5, ly + 14, x0 + 14,
                    ly + 18, label(*g.problem, r).c_str(), r.cost_per_million_tokens,
                    currency.c_str());
      svg << b;
    }
    std::snprintf(b, sizeof b,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#bbb\"/><text x=\"%.1f\" "
                  "y=\"%.1f\" font-size=\"11\">meets the SLO</text><circle cx=\"%.1f\" "
                  "cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "font-size=\"11\">the frontier (no cheaper configuration has more margin)"
                  "</text>\n",
                  x0 + 5, ly - 4, x0 + 14, ly, x0 + 130, ly - 4, x0 + 140, ly);
    svg << b;
  }
  svg << "</svg>\n";
  return svg.str();
}

[[noreturn]] void die(const std::string& message) { example::fail("plan_deployment", message); }

// The grids from shard files: read, merged, matched to this run's problems by fingerprint,
// decided.
std::vector<planned> merged(const inputs& in, const example::flags& f,
                            const std::vector<std::string>& files) {
  std::vector<plan::csv_block> blocks;
  for (const auto& file : files) {
    auto read = plan::read_csv(example::read_whole_file(f, file));
    if (!read.ok()) die(file + ":" + std::to_string(read.error_line) + ": " + read.error);
    for (auto& b : read.blocks) blocks.push_back(std::move(b));
  }
  auto merge = plan::merge(blocks);
  if (!merge.ok()) die(merge.error);
  std::vector<planned> grids;
  for (const auto& p : in.problems) {
    const auto lengths = plan::sample_lengths(in.lengths, p.search.length_draws, p.search.seed);
    const std::uint64_t print = plan::fingerprint(p, lengths);
    const auto it = std::find_if(merge.grids.begin(), merge.grids.end(),
                                 [&](const auto& m) { return m.fingerprint == print; });
    if (it == merge.grids.end())
      die("no shard of grid '" + p.name +
          "' with this run's fingerprint (another version, model, grid, SLO, traffic or "
          "--requests?)");
    grids.push_back({&p, lengths, it->rows, plan::decide(it->rows)});
  }
  return grids;
}

// The grids (or this process's shard of them) searched on --threads threads, decided.
std::vector<planned> searched(const inputs& in, const options& o) {
  const plan::execution run{.threads = o.threads, .part = o.part.value_or(plan::shard{})};
  std::vector<planned> grids;
  for (const auto& p : in.problems) {
    auto rows = plan::evaluate_grid(p, in.lengths, run);
    const auto lengths = plan::sample_lengths(in.lengths, p.search.length_draws, p.search.seed);
    const plan::decision d = plan::decide(rows);
    grids.push_back({&p, lengths, std::move(rows), d});
  }
  return grids;
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("plan_deployment",
                   "Which accelerator, tensor-parallel size and batch limits serve a day of "
                   "traffic under an SLO\nat the lowest cost, for the models named by their "
                   "config.json (without --model: the demo's\nLlama 3.1 70B and 8B); "
                   "docs/planner.md.");
  const options o = parse_flags(f, argc, argv);
  inputs in;
  build(in, f, o);

  std::vector<planned> grids;
  const auto started = std::chrono::steady_clock::now();
  try {
    grids = o.merge ? merged(in, f, o.merge_files) : searched(in, o);
  } catch (const std::exception& e) {
    die(e.what());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Everything is computed (and the figure written) before stdout sees a byte.
  example::output_buffer out;
  std::string csv;
  const plan::csv_layout layout =
      o.csv_comments ? plan::csv_layout::commented : plan::csv_layout::plain;
  if (o.part || o.format == "csv") {  // a shard's rows (to be merged), or every row decided
    for (std::size_t k = 0; k < grids.size(); ++k) {
      const planned& g = grids[k];
      plan::append_csv(csv, *g.problem, g.lengths, o.part.value_or(plan::shard{}), g.rows,
                       o.part ? nullptr : &g.outcome, {.layout = layout, .column_names = k == 0});
    }
    out.append(csv);
  } else {
    std::size_t configurations = 0;
    for (const auto& g : grids) configurations += g.rows.size();
    if (o.merge)
      out.printf("merged %zu configurations from %zu files\n", configurations,
                 o.merge_files.size());
    else
      out.printf("searched %zu configurations in %.1f s on %u threads\n", configurations, seconds,
                 o.threads ? static_cast<unsigned>(o.threads)
                           : std::max(1u, std::thread::hardware_concurrency()));
    for (const auto& g : grids) print_table(out, g, in, o);
  }
  if (!o.svg_file.empty())
    example::write_file(f.program(), o.svg_file, render_svg(grids, o.currency));
  out.print(f.program());
  // A grid without a winner: the run itself succeeded, but it answers "nothing fits".
  int status = 0;
  for (const auto& g : grids) {
    if (g.outcome.winner) continue;
    const auto& c = g.outcome.counts;
    std::fprintf(stderr,
                 "plan_deployment: no configuration of %s meets the SLO: %zu weights do not fit, "
                 "%zu requests do not fit the KV cache, %zu miss it even alone, %zu at every rate "
                 "tried\n",
                 g.problem->model.name.c_str(), c[1], c[2], c[3], c[4]);
    status = 1;
  }
  return status;
}

// SPDX-License-Identifier: Apache-2.0
// The deployment planner: which accelerator, tensor-parallel size and batch limits serve the
// demo's day of traffic under an SLO at the lowest cost, for a 70B-class and an 8B-class
// model (plan.hpp). Each configuration's capacity μ* comes from the simulated replica, its
// replica-hours from the simulated day, its price per million tokens from cost.hpp.
//
//   plan_deployment                      both grids, the frontiers and the winners
//   plan_deployment --format csv         every configuration's row, with why it lost
//   plan_deployment --svg plan.svg       the frontiers, cost against latency margin
//   plan_deployment --shard 2/3          one third of the grid, as CSV rows for a merge
//   plan_deployment --merge a.csv b.csv c.csv   the shards, decided
//
// Run `plan_deployment --help` for every flag. See docs/planner.md.
#include <headroom/plan.hpp>

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
  double ttft_seconds = 2.0;
};

// Every flag through the examples' shared parser (examples/flags.hpp): an unknown flag or a
// bad value is one line on stderr and exit status 2, with nothing on stdout.
options parse_flags(example::flags& f, int argc, char** argv) {
  options o;
  f.choice("--format", o.format, {"table", "csv"},
           "table: the frontiers and the winners; csv: every configuration's row with its "
           "verdict and what dominates it")
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
              "unsharded run would; nothing is simulated")
      .positionals(o.merge_files, "FILE", "a shard's CSV, written by --shard (with --merge)")
      .whole("--requests", o.requests, {.low = 100, .high = 10000000}, "requests",
             "requests per simulated load test")
      .number("--ttft", o.ttft_seconds, {.low = 0, .high = 3600, .low_open = true}, "seconds",
              "the TTFT bound of both SLOs");
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
  return o;
}

// ---- the two problems -------------------------------------------------------------------------

// Hourly prices per GPU: our stated assumptions, within 2026 on-demand list ranges (H100 SXM
// 2.49-3.99, A100 80GB SXM 1.49-2.49 per hour); put yours here.
// Step times: no parameters are stated here, so each accelerator takes its shipped calibration
// (plan/calibrations.hpp: fitted on published TensorRT-LLM rows, FP8 on the H100, H200 and
// L40S, FP16 on the A100) or, for a part with none, the uncalibrated fallback; the tables and
// the winner line say which.
// Links: NVLink 4 900 GB/s and NVLink 3 600 GB/s both ways (one direction: half), PCIe Gen4
// x16 64 GB/s both ways.
std::vector<plan::accelerator_option> accelerators() {
  const auto option = [](const headroom::accelerator_spec& spec, double price, double link) {
    return plan::accelerator_option{
        .spec = spec, .price_per_gpu_hour = price, .interconnect_bytes_per_second = link};
  };
  namespace gpus = headroom::accelerators;
  return {option(gpus::h100_sxm, 3.00, 450e9), option(gpus::h200_sxm, 3.80, 450e9),
          option(gpus::a100_80gb_sxm, 1.80, 300e9), option(gpus::l40s, 1.00, 32e9)};
}

// Llama 3.1 70B and 8B shapes (their config.json: layers, hidden size, 8 KV heads of 128),
// bf16 weights and KV cache. SLOs: MLPerf Inference's server-scenario bounds for these
// models (mlcommons/inference mlperf.conf: llama2-70b TTFT 2 s, TPOT 200 ms; llama3_1-8b
// TTFT 2 s, TPOT 100 ms), met by 99 % of requests.
std::vector<plan::problem> problems(const options& o) {
  const plan::grid axes{.accelerators = accelerators(),
                        .tensor_parallel = {1, 2, 4, 8},
                        .max_batch = {64, 128, 256},
                        .max_batched_tokens = {512, 2048},
                        .prefill = {sim::prefill_mode::chunked},
                        .kv = {sim::kv_policy::preempt_youngest},
                        .memory_fraction = 0.9};
  const plan::traffic_profile day{
      .rates_per_second = sim::reference_day_traffic(),
      .step = 1min,
      .lengths_description =
          "lognormal prompt 200 sigma 1.0 [4,4096] output 150 sigma 0.9 "
          "[1,2048]"};
  const plan::fleet_options fleet{
      .policy = sim::chase(8min), .target_utilization = 0.8, .scale_down_window_steps = 5};
  const auto make = [&](std::string name, plan::model_shape model, std::chrono::milliseconds tpot) {
    return plan::problem{.name = std::move(name),
                         .model = std::move(model),
                         .axes = axes,
                         .target = {.ttft = std::chrono::duration<double>(o.ttft_seconds),
                                    .tpot = tpot,
                                    .quota = 0.99},
                         .traffic = day,
                         .fleet = fleet,
                         .search = {.requests_per_run = o.requests}};
  };
  return {make("demo-day-70b",
               {.name = "Llama-3.1-70B",
                .parameters = 70.553706496e9,
                .layers = 80,
                .hidden_size = 8192,
                .kv_bytes_per_token = headroom::kv_bytes_per_token(
                    {.layers = 80, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})},
               200ms),
          make("demo-day-8b",
               {.name = "Llama-3.1-8B",
                .parameters = 8.030261248e9,
                .layers = 32,
                .hidden_size = 4096,
                .kv_bytes_per_token = headroom::kv_bytes_per_token(
                    {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})},
               100ms)};
}

// The demo's length mix: ShareGPT-like log-normal prompts and outputs (our stated
// parameters, as in examples/capacity_sweep.cpp).
const sim::lognormal_lengths mix(200.0, 1.0, 150.0, 0.9, {4, 1}, {4096, 2048});

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
               100.0 * r.mbu, std::string(plan::to_string(r.calibration)).c_str());
  }
}

void print_table(example::output_buffer& out, const planned& g) {
  const plan::problem& p = *g.problem;
  const plan::decision& d = g.outcome;
  out.printf("\n%s (%.1fe9 parameters, %g bytes each, %d layers, KV %.0f KiB/token)\n",
             p.model.name.c_str(), p.model.parameters / 1e9, p.model.bytes_per_parameter,
             p.model.layers, p.model.kv_bytes_per_token / 1024.0);
  out.printf(
      "  SLO: TTFT <= %g s, TPOT <= %g ms for %g %% of requests; the demo's day, chased\n"
      "  with an 8-minute start at rho* = %.1f; mean lengths %.0f in, %.0f out\n",
      p.target.ttft->count(), 1000.0 * p.target.tpot->count(), 100.0 * p.target.quota,
      p.fleet.target_utilization, g.lengths.mean_prompt_tokens, g.lengths.mean_output_tokens);
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
// margin, cost per million tokens, log scale), the frontier joined, the winner ringed.
std::string render_svg(const std::vector<planned>& grids) {
  std::ostringstream svg;
  const double width = 900, panel_height = 380, top = 30;
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
                 h = panel_height - 90;
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
                  "million tokens against latency margin</text>\n<rect x=\"%.0f\" y=\"%.0f\" "
                  "width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>\n",
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
                  "text-anchor=\"middle\">cost per million tokens</text>\n",
                  x0 + w / 2, y0 + h + 32, x0 - 55, y0 + h / 2);
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
    if (g.outcome.winner) {
      const plan::row& r = g.rows[*g.outcome.winner];
      const double x = px(r.latency_margin), y = py(r.cost_per_million_tokens);
      const bool right = x > x0 + 0.6 * w;  // keep the label inside the panel
      std::snprintf(b, sizeof b,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#d62728\" "
                    "stroke-width=\"2.5\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
                    "fill=\"#d62728\" text-anchor=\"%s\">winner: %s</text>\n",
                    x, y, right ? x - 12 : x + 12, y - 10, right ? "end" : "start",
                    label(*g.problem, r).c_str());
      svg << b;
    }
    // The legend, under the axis title.
    const double ly = y0 + h + 50;
    std::snprintf(b, sizeof b,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#bbb\"/><text x=\"%.1f\" "
                  "y=\"%.1f\" font-size=\"11\">meets the SLO</text><circle cx=\"%.1f\" "
                  "cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "font-size=\"11\">the frontier (no cheaper configuration has more margin)"
                  "</text><circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"none\" "
                  "stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "font-size=\"11\">the winner (cheapest per million tokens)</text>\n",
                  x0 + 5, ly - 4, x0 + 14, ly, x0 + 130, ly - 4, x0 + 140, ly, x0 + 500, ly - 4,
                  x0 + 512, ly);
    svg << b;
  }
  svg << "</svg>\n";
  return svg.str();
}

[[noreturn]] void die(const std::string& message) { example::fail("plan_deployment", message); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The grids from shard files: read, merged, matched to this build's problems by
// fingerprint, decided.
std::vector<planned> merged(const std::vector<plan::problem>& all,
                            const std::vector<std::string>& files) {
  std::vector<plan::csv_block> blocks;
  for (const auto& file : files) {
    auto read = plan::read_csv(read_file(file));
    if (!read.ok()) die(file + ":" + std::to_string(read.error_line) + ": " + read.error);
    for (auto& b : read.blocks) blocks.push_back(std::move(b));
  }
  auto merge = plan::merge(blocks);
  if (!merge.ok()) die(merge.error);
  std::vector<planned> grids;
  for (const auto& p : all) {
    const auto lengths = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    const std::uint64_t print = plan::fingerprint(p, lengths);
    const auto it = std::find_if(merge.grids.begin(), merge.grids.end(),
                                 [&](const auto& m) { return m.fingerprint == print; });
    if (it == merge.grids.end())
      die("no shard of grid '" + p.name +
          "' with this build's fingerprint (another version, grid or --requests?)");
    grids.push_back({&p, lengths, it->rows, plan::decide(it->rows)});
  }
  return grids;
}

// The grids (or this process's shard of them) searched on --threads threads, decided.
std::vector<planned> searched(const std::vector<plan::problem>& all, const options& o) {
  const plan::execution run{.threads = o.threads, .part = o.part.value_or(plan::shard{})};
  std::vector<planned> grids;
  for (const auto& p : all) {
    auto rows = plan::evaluate_grid(p, mix, run);
    const auto lengths = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    const plan::decision d = plan::decide(rows);
    grids.push_back({&p, lengths, std::move(rows), d});
  }
  return grids;
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("plan_deployment",
                   "Which accelerator, tensor-parallel size and batch limits serve the demo's day "
                   "of traffic\nunder an SLO at the lowest cost, for Llama 3.1 70B and 8B "
                   "(docs/planner.md).");
  const options o = parse_flags(f, argc, argv);
  const std::vector<plan::problem> all = problems(o);

  std::vector<planned> grids;
  const auto started = std::chrono::steady_clock::now();
  try {
    grids = o.merge ? merged(all, o.merge_files) : searched(all, o);
  } catch (const std::exception& e) {
    die(e.what());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Everything is computed (and the figure written) before stdout sees a byte.
  example::output_buffer out;
  std::string csv;
  if (o.part) {  // a shard: its rows only, to be merged
    for (const auto& g : grids) plan::append_csv(csv, *g.problem, g.lengths, *o.part, g.rows);
    out.append(csv);
  } else if (o.format == "csv") {
    for (const auto& g : grids)
      plan::append_csv(csv, *g.problem, g.lengths, {}, g.rows, &g.outcome);
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
    for (const auto& g : grids) print_table(out, g);
  }
  if (!o.svg_file.empty()) example::write_file(f.program(), o.svg_file, render_svg(grids));
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

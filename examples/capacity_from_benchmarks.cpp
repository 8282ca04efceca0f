// SPDX-License-Identifier: Apache-2.0
// μ* of your own engine from the benchmark files you already have: vLLM's
// `vllm bench serve --save-result --save-detailed` results, one per request rate (or one
// JSON Lines file of --append-result), guidellm's reports (one run per benchmark) and
// genai-perf's profile exports (one run per experiment), read by headroom/measurements.hpp,
// which tells them apart. Each run's requests are judged
// against your SLO, with the interval that holds for requests correlated by the queue
// (docs/capacity.md); the open-loop runs make a capacity curve, and μ* is read off it.
//
//   capacity_from_benchmarks --ttft 1 --tpot 0.05 results/*.json
//
// A run without per-request data has only the tool's own summaries: it is listed with its p99
// TTFT, but conformance to a joint SLO cannot be computed from those. A run with no rate
// (every request at once, a closed loop of N streams, a trace) is listed but not put on the
// curve: a closed loop's load follows the server (coordinated omission). A file that keeps
// the sends but not the schedule (genai-perf) is marked: its latencies run from the send.
#include <headroom/capacity.hpp>
#include <headroom/measurements.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "flags.hpp"

namespace {

namespace m = headroom::measurements;

struct options {
  std::vector<std::string> files;
  double ttft_s = 1.0;
  double tpot_s = 0.05;
  double quota = 0.9;
  double warm_up = 0.1;
  double cool_down = 0.1;
};

// One run as the table shows it.
struct line {
  std::string file{};
  std::optional<double> rate{};
  m::offered_load load{};
  bool sampled = false;    // the tool kept a sample of the requests
  bool from_send = false;  // no schedule in the file: latencies from the send
  std::optional<headroom::capacity::conformance_estimate> conformance{};
  std::optional<double> p99_ttft_s{};  // the tool's own, for a summary-only run
};

std::string read_file(const example::flags& f, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) f.fail("cannot read '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  example::flags f("capacity_from_benchmarks",
                   "mu* of your engine from vLLM benchmark results saved with --save-detailed "
                   "(one file per request rate), guidellm reports and genai-perf profile "
                   "exports.");
  f.number("--ttft", o.ttft_s, {0, 3600, true, false}, "seconds", "the SLO's time to first token")
      .number("--tpot", o.tpot_s, {0, 3600, true, false}, "seconds",
              "the SLO's time per output token (vLLM's definition)")
      .number("--quota", o.quota, {0, 1, true, true}, "fraction",
              "the share of requests that must meet the SLO")
      .number("--warm-up", o.warm_up, {0, 0.5}, "fraction",
              "share of each run's span discarded at its start (with send times)")
      .number("--cool-down", o.cool_down, {0, 0.5}, "fraction",
              "share of each run's span discarded at its end (with send times)")
      .positionals(o.files, "FILE",
                   "a vLLM result file (JSON, or JSON Lines), a guidellm report or a "
                   "genai-perf profile_export.json");
  f.parse(argc, argv);
  if (o.files.empty()) f.fail("needs at least one FILE (see --help)");

  const headroom::capacity::slo objective{.ttft = std::chrono::duration<double>(o.ttft_s),
                                          .tpot = std::chrono::duration<double>(o.tpot_s)};
  std::vector<line> lines;
  std::vector<headroom::capacity::capacity_point> curve;
  for (const std::string& path : o.files) {
    const m::benchmark_file file = m::read_benchmark_file(read_file(f, path));
    if (!file.ok()) f.fail(path + ": " + file.error->message());
    for (const m::benchmark_run& run : file.runs) {
      line l;
      l.file = path;
      l.rate = run.load.request_rate_per_second;
      l.load = run.load;
      l.sampled = run.requests_sampled;
      l.from_send = !run.requests.empty() && !run.intended_times_known;
      if (run.requests.empty()) {
        l.p99_ttft_s = run.ttft.p99;
      } else {
        // The window: the span of intended sends, less warm-up and cool-down (none without
        // send times: every request then reads as sent at 0).
        headroom::capacity::measurement_window window;
        if (run.send_times_known) {
          double span = 0.0;
          for (const auto& r : run.requests) span = std::max(span, r.intended_arrival.count());
          window.warm_up = std::chrono::duration<double>(o.warm_up * span);
          window.cool_down = std::chrono::duration<double>(o.cool_down * span);
        }
        l.conformance = headroom::capacity::measure_conformance(run.requests, objective, window);
        if (l.rate && l.conformance->n > 0)
          curve.push_back({.rate_per_second = *l.rate, .conformance = *l.conformance});
      }
      lines.push_back(l);
    }
  }

  example::output_buffer out;
  out.printf("SLO: TTFT <= %g s, TPOT <= %g s, q = %.2f\n\n", o.ttft_s, o.tpot_s, o.quota);
  out.printf("%-10s %9s %19s %7s %6s  %s\n", "rate/s", "conform", "95% interval", "ESS", "n",
             "file");
  for (const line& l : lines) {
    // The rate, or what the run did instead: "inf" (all at once), "c=4" (a closed loop of
    // four streams), "trace".
    char rate[32] = "inf";
    if (l.rate)
      std::snprintf(rate, sizeof rate, "%g", *l.rate);
    else if (l.load.pattern == m::load_pattern::closed_loop && l.load.max_concurrency)
      std::snprintf(rate, sizeof rate, "c=%zu", *l.load.max_concurrency);
    else if (l.load.pattern == m::load_pattern::trace)
      std::snprintf(rate, sizeof rate, "trace");
    if (l.conformance) {
      const auto& c = *l.conformance;
      out.printf("%-10s %9.3f   [%6.3f, %6.3f] %7.0f %6zu  %s%s%s%s\n", rate, c.share, c.lower,
                 c.upper, c.effective_sample_size, c.n, l.file.c_str(),
                 l.load.pattern == m::load_pattern::closed_loop
                     ? " (closed loop: not on the open-loop curve)"
                     : "",
                 l.sampled ? " (a sample of the run's requests)" : "",
                 l.from_send ? " (latencies from the send: the file keeps no schedule)" : "");
    } else if (l.p99_ttft_s) {
      out.printf(
          "%-10s %9s %19s %7s %6s  %s (summaries only, p99 TTFT %.3f s: save with "
          "--save-detailed)\n",
          rate, "-", "-", "-", "-", l.file.c_str(), *l.p99_ttft_s);
    } else {
      out.printf("%-10s %9s %19s %7s %6s  %s (no per-request data)\n", rate, "-", "-", "-", "-",
                 l.file.c_str());
    }
  }
  if (curve.empty()) {
    out.printf("\nno run with a finite rate and per-request data: no capacity curve\n");
  } else {
    headroom::capacity::capacity_result found;
    try {  // two runs at one rate are refused by name
      found = headroom::capacity::find_capacity(curve, {.quota = o.quota});
    } catch (const std::exception& e) {
      f.fail(e.what());
    }
    if (!found.capacity_per_second) {
      out.printf("\nno rate measured meets the SLO at q = %.2f: measure lower rates\n", o.quota);
    } else {
      const auto shown = [](const std::optional<double>& v) {
        char text[32] = "none";
        if (v) std::snprintf(text, sizeof text, "%g", *v);
        return std::string(text);
      };
      out.printf(
          "\nmu* = %g req/s on these runs (the intervals: confidently passing up to %s, "
          "plausibly up to %s)%s\n",
          *found.capacity_per_second, shown(found.confident_per_second).c_str(),
          shown(found.plausible_per_second).c_str(),
          found.saturated ? "" : "; every rate passed: measure higher rates");
    }
  }
  out.print(f.program());
  return 0;
}

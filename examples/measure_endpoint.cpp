// SPDX-License-Identifier: Apache-2.0
// μ* of a real endpoint: open-loop load against any OpenAI-compatible streaming server (vLLM,
// SGLang, TGI, …), latencies from each request's INTENDED send (no coordinated omission),
// conformance with its interval at one rate, or the library's bracket-and-bisect search for
// the largest rate at which the SLO's quantile holds (capacity.hpp). One thread drives every
// stream (examples/stream_client.hpp); a run whose client fell behind its own schedule is
// reported invalid instead of producing a capacity.
//
//   measure_endpoint --url http://127.0.0.1:8000/v1/completions --model M --rate 4
//   measure_endpoint --url … --model M --search --ttft 1 --tpot 0.05 --quantile 0.9
//   measure_endpoint … --save-result run.json   vLLM's --save-result --save-detailed layout
//   measure_endpoint … --search --csv curve.csv --svg curve.svg
//
// Run `measure_endpoint --help` for every flag. See docs/capacity.md, "Measuring a real
// endpoint".
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>
#include <headroom/traces.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "flags.hpp"
#include "inputs.hpp"
#include "stream_client.hpp"

namespace {

struct options {
  std::string url = "http://127.0.0.1:8000/v1/completions";
  std::string model;
  double rate = 0.0;  // > 0: one run at this rate
  bool search = false;
  double low = 1.0, high = 2.0, tolerance = 0.05;
  std::size_t max_runs = 16;
  std::size_t requests = 1000;
  std::string arrivals = "poisson";
  double cv = 1.0;
  std::string trace_format, trace_file;
  std::size_t prompt_tokens = 128, output_tokens = 128;
  std::string prompt_file;
  double ttft = 1.0, tpot = 0.05, quantile = 0.9;
  double warm_up = 0.1, cool_down = 0.1;
  double timeout = 60.0;
  double max_lag_ms = 5.0;
  std::string confidence = "0.95";
  std::string ignore_eos = "yes";
  std::size_t max_in_flight = 20000;
  std::size_t seed = 2024;
  std::string save_result, csv_file, svg_file;
};

options parse_flags(example::flags& f, int argc, char** argv) {
  options o;
  f.text("--url", o.url, "URL",
         "the endpoint: http://host:port/v1/completions or /v1/chat/completions")
      .text("--model", o.model, "NAME", "the served model's name, as the server lists it")
      .number("--rate", o.rate, {0, 1e6}, "requests/s",
              "one run at this rate: its conformance and interval (0: use --search)")
      .toggle("--search", o.search,
              "search for mu*, the largest rate meeting the SLO: bracket from --low and --high, "
              "then bisect, each probe one run")
      .number("--low", o.low, {0, 1e6, true, false}, "requests/s", "with --search: the first rate")
      .number("--high", o.high, {0, 1e6, true, false}, "requests/s",
              "with --search: the second rate, above --low")
      .number("--tolerance", o.tolerance, {0, 1, true, false}, "fraction",
              "with --search: stop when the bracket is this narrow, relative to its low end")
      .whole("--max-runs", o.max_runs, {2, 1000}, "runs", "with --search: runs at most")
      .whole("--requests", o.requests, {1, 10000000}, "requests", "requests per run")
      .choice("--arrivals", o.arrivals, {"poisson", "gamma", "constant"},
              "the schedule's gaps: exponential, gamma with --cv, or constant")
      .number("--cv", o.cv, {0, 100}, "",
              "with --arrivals gamma: the gaps' coefficient of variation")
      .choice_and_file("--trace", o.trace_format, example::trace_formats, o.trace_file,
                       "send at a public trace's times, scaled to each run's rate, with its "
                       "prompt and output lengths")
      .whole("--prompt-tokens", o.prompt_tokens, {1, 1000000}, "tokens",
             "prompt length: this many filler words (one token each in common tokenizers)")
      .text("--prompt-file", o.prompt_file, "FILE",
            "every request's prompt, read from FILE (UTF-8 text) instead of the filler; its "
            "length as the server's usage counts it")
      .whole("--output-tokens", o.output_tokens, {1, 1000000}, "tokens",
             "max_tokens of each request (with ignore_eos, the output length)")
      .number("--ttft", o.ttft, {0, 3600, true, false}, "seconds", "the SLO's TTFT bound")
      .number("--tpot", o.tpot, {0, 3600, true, false}, "seconds",
              "the SLO's TPOT bound (each request's mean inter-token latency)")
      .number("--quantile", o.quantile, {0, 1, true, true}, "share",
              "the share of requests that must meet both bounds")
      .number("--warm-up", o.warm_up, {0, 1, false, true}, "fraction",
              "share of a run's schedule discarded at its start")
      .number("--cool-down", o.cool_down, {0, 1, false, true}, "fraction",
              "share of a run's schedule discarded at its end")
      .number("--timeout", o.timeout, {0, 86400, true, false}, "seconds",
              "a request with no end by then fails (timeout)")
      .number("--max-lag-ms", o.max_lag_ms, {0, 60000, true, false}, "milliseconds",
              "a run whose sends lag their schedule more than this at the 99th percentile is "
              "invalid")
      .choice("--confidence", o.confidence, {"0.95", "0.99", "0.999"},
              "the two-sided level of the conformance intervals")
      .choice("--ignore-eos", o.ignore_eos, {"yes", "no"},
              "ask the server to generate max_tokens whatever the model says (vLLM, SGLang)")
      .whole("--max-in-flight", o.max_in_flight, {1, 1000000}, "connections",
             "connections open at once, at most (beyond it sends wait, and lag)")
      .whole("--seed", o.seed, {0, 1e15}, "", "the schedule's seed")
      .text("--save-result", o.save_result, "FILE",
            "write each run as vLLM's --save-result --save-detailed JSON (one object per line "
            "with --search, as --append-result)")
      .text("--csv", o.csv_file, "FILE", "write the measured curve as CSV")
      .text("--svg", o.svg_file, "FILE", "write the measured curve as a self-contained SVG");
  f.parse(argc, argv);
  if (o.model.empty()) f.fail("--model is needed: the served model's name");
  if ((o.rate > 0) == o.search) f.fail("give one of --rate R and --search");
  if (o.search && !(o.high > o.low)) f.fail("--high must be above --low");
  if (o.warm_up + o.cool_down >= 1) f.fail("--warm-up and --cool-down leave no window");
  if (o.arrivals != "gamma" && o.cv != 1.0) f.fail("--cv needs --arrivals gamma");
  return o;
}

double z_of(const std::string& level) {
  return level == "0.999"  ? 3.2905267314919255
         : level == "0.99" ? 2.5758293035489004
                           : 1.959963984540054;
}

// One run's plan: a trace's times and lengths (scaled to the rate), or the arrivals' schedule
// with the stated lengths.
struct trace_input {
  std::vector<std::pair<double, std::pair<std::size_t, std::size_t>>> requests;  // t, lengths
};

std::vector<example::planned_request> plan_at(const options& o, const trace_input& trace,
                                              double rate, std::uint64_t seed) {
  std::vector<example::planned_request> plan;
  if (!trace.requests.empty()) {
    // The trace's first `requests` arrivals, their times scaled so that the mean rate is
    // `rate` (all at once when they all share one time).
    const std::size_t n = std::min(o.requests, trace.requests.size());
    const double last = trace.requests[n - 1].first;
    const double scale = last > 0 ? (static_cast<double>(n) / rate) / last : 1.0;
    for (std::size_t i = 0; i < n; ++i)
      plan.push_back({.intended_seconds = trace.requests[i].first * scale,
                      .prompt_tokens = trace.requests[i].second.first,
                      .max_tokens = trace.requests[i].second.second});
    return plan;
  }
  std::mt19937_64 engine(seed);
  std::vector<std::chrono::duration<double>> times;
  if (o.arrivals == "constant")
    times = headroom::arrivals::constant_schedule(rate, o.requests);
  else if (o.arrivals == "gamma")
    times = headroom::arrivals::gamma_schedule({.rate_per_second = rate, .cv = o.cv}, o.requests,
                                               engine);
  else
    times = headroom::arrivals::poisson_schedule(rate, o.requests, engine);
  for (const auto t : times)
    plan.push_back({.intended_seconds = t.count(),
                    .prompt_tokens = o.prompt_tokens,
                    .max_tokens = o.output_tokens});
  return plan;
}

// What one run measured, read by capacity.hpp.
struct measured_run {
  double rate = 0.0;
  example::run_record record;
  std::vector<headroom::capacity::request_outcome> outcomes;
  headroom::capacity::conformance_estimate conformance{};
  double lag_p50 = 0, lag_p99 = 0, lag_max = 0;  // seconds
  std::size_t failures[example::failure_kinds] = {};
  bool valid = true;
};

double quantile_of(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(at);
  return i + 1 < v.size() ? v[i] + (at - static_cast<double>(i)) * (v[i + 1] - v[i]) : v[i];
}

measured_run measure(const options& o, example::stream_client& client, const trace_input& trace,
                     double rate, std::uint64_t seed, const example::flags& f) {
  measured_run m;
  m.rate = rate;
  const auto plan = plan_at(o, trace, rate, seed);
  std::string error;
  auto record = client.run(plan, error);
  if (!record) f.fail(error);
  m.record = std::move(*record);
  std::vector<double> lags;
  // Times from the first intended send, as a reader of the saved run counts them.
  const double origin = plan.empty() ? 0.0 : plan.front().intended_seconds;
  const auto at = [origin](double t) { return std::chrono::duration<double>(t - origin); };
  for (const auto& r : m.record.requests) {
    lags.push_back(r.sent - r.intended);
    ++m.failures[static_cast<std::size_t>(r.error)];
    headroom::capacity::request_outcome out{
        .intended_arrival = at(r.intended),
        .sent = at(r.sent),
        .first_token = at(r.first_token > 0 ? r.first_token : r.finished),
        .finished = at(r.finished),
        .prompt_tokens = r.prompt_tokens,
        .output_tokens = r.output_tokens,
        .error = r.error != example::failure::none};
    m.outcomes.push_back(out);
  }
  m.lag_p50 = quantile_of(lags, 0.5);
  m.lag_p99 = quantile_of(lags, 0.99);
  m.lag_max = lags.empty() ? 0.0 : *std::max_element(lags.begin(), lags.end());
  m.valid = m.lag_p99 * 1000.0 <= o.max_lag_ms;
  const double span = plan.empty() ? 0.0 : plan.back().intended_seconds - origin;
  headroom::capacity::measurement_window window{
      .warm_up = std::chrono::duration<double>(o.warm_up * span),
      .cool_down = std::chrono::duration<double>(o.cool_down * span)};
  const headroom::capacity::slo objective{.ttft = std::chrono::duration<double>(o.ttft),
                                          .tpot = std::chrono::duration<double>(o.tpot)};
  m.conformance =
      headroom::capacity::measure_conformance(m.outcomes, objective, window, z_of(o.confidence));
  return m;
}

void print_run(example::output_buffer& out, const measured_run& m) {
  const auto& c = m.conformance;
  std::vector<double> ttfts;
  for (const auto& x : m.outcomes)
    if (!x.error) ttfts.push_back(headroom::capacity::time_to_first_token(x).count());
  out.printf(
      "rate %8.3f req/s: %zu requests, conformance %.3f [%.3f, %.3f] over %zu in the window; "
      "TTFT p50 %.1f ms p99 %.1f ms\n",
      m.rate, m.outcomes.size(), c.share, c.lower, c.upper, c.n, 1000.0 * quantile_of(ttfts, 0.5),
      1000.0 * quantile_of(ttfts, 0.99));
  std::string failures;
  for (std::size_t k = 1; k < example::failure_kinds; ++k)
    if (m.failures[k] > 0) {
      if (!failures.empty()) failures += ", ";
      failures += std::to_string(m.failures[k]);
      failures += ' ';
      failures += example::to_string(static_cast<example::failure>(k));
    }
  out.printf(
      "    failures: %s; client lag p50 %.2f ms p99 %.2f ms max %.2f ms; client CPU %.0f %% of "
      "%.1f s, %zu connections at most\n",
      failures.empty() ? "none" : failures.c_str(), 1000.0 * m.lag_p50, 1000.0 * m.lag_p99,
      1000.0 * m.lag_max,
      m.record.wall_seconds > 0 ? 100.0 * m.record.cpu_seconds / m.record.wall_seconds : 0.0,
      m.record.wall_seconds, m.record.peak_in_flight);
  if (!m.valid)
    out.printf(
        "    INVALID: the client fell behind its schedule (p99 lag %.2f ms): this run "
        "measures the client, not the server\n",
        1000.0 * m.lag_p99);
}

// vLLM's --save-result --save-detailed object for one run (vllm/benchmarks/serve.py,
// benchmark(): ttfts and itls from the send, start_times, latencies, queue_times).
std::string vllm_json(const options& o, const measured_run& m) {
  std::ostringstream j;
  j.precision(17);
  const auto& rs = m.record.requests;
  std::size_t completed = 0, input = 0, output = 0;
  for (const auto& r : rs)
    if (r.error == example::failure::none) {
      ++completed;
      input += r.prompt_tokens;
      output += r.output_tokens;
    }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y%m%d-%H%M%S", std::gmtime(&now));
  j << "{\"date\": \"" << date << "\", \"backend\": \""
    << (o.url.find("chat") != std::string::npos ? "openai-chat" : "openai") << "\", \"model_id\": ";
  std::string model;
  example::detail::append_json_string(model, o.model);
  j << model << ", \"tool\": \"headroom measure_endpoint\", \"num_prompts\": " << rs.size()
    << ", \"request_rate\": " << m.rate
    << ", \"burstiness\": " << (o.arrivals == "gamma" ? 1.0 / (o.cv * o.cv) : 1.0)
    << ", \"max_concurrency\": null, \"duration\": " << m.record.wall_seconds
    << ", \"completed\": " << completed << ", \"failed\": " << rs.size() - completed
    << ", \"total_input_tokens\": " << input << ", \"total_output_tokens\": " << output
    << ", \"request_throughput\": " << static_cast<double>(completed) / m.record.wall_seconds
    << ", \"output_throughput\": " << static_cast<double>(output) / m.record.wall_seconds;
  const auto array = [&](const char* name, auto value) {
    j << ", \"" << name << "\": [";
    for (std::size_t i = 0; i < rs.size(); ++i) j << (i ? ", " : "") << value(rs[i]);
    j << "]";
  };
  const auto ok = [](const example::request_record& r) {
    return r.error == example::failure::none;
  };
  array("input_lens", [](const auto& r) { return r.prompt_tokens; });
  array("output_lens", [&](const auto& r) { return ok(r) ? r.output_tokens : std::size_t{0}; });
  array("ttfts",
        [&](const auto& r) { return ok(r) && r.first_token > 0 ? r.first_token - r.sent : 0.0; });
  j << ", \"itls\": [";
  for (std::size_t i = 0; i < rs.size(); ++i) {
    j << (i ? ", [" : "[");
    if (ok(rs[i]))
      for (std::size_t k = 0; k < rs[i].token_gaps.size(); ++k)
        j << (k ? ", " : "") << rs[i].token_gaps[k];
    j << "]";
  }
  j << "]";
  array("start_times", [](const auto& r) { return r.sent; });
  array("latencies", [&](const auto& r) { return ok(r) ? r.finished - r.sent : 0.0; });
  array("queue_times", [](const auto& r) { return r.sent - r.intended; });
  j << ", \"errors\": [";
  for (std::size_t i = 0; i < rs.size(); ++i) {
    j << (i ? ", " : "");
    if (ok(rs[i])) {
      j << "\"\"";
    } else {
      std::string text = example::to_string(rs[i].error);
      if (rs[i].status != 0 && rs[i].status != 200) text += " " + std::to_string(rs[i].status);
      j << "\"" << text << "\"";
    }
  }
  j << "]}";
  return j.str();
}

std::string curve_csv(const std::vector<measured_run>& runs) {
  example::output_buffer csv;
  csv.printf("rate_per_second,conformance,lower,upper,n,requests,failed,lag_p99_ms,valid\n");
  for (const auto& m : runs) {
    std::size_t failed = 0;
    for (std::size_t k = 1; k < example::failure_kinds; ++k) failed += m.failures[k];
    csv.printf("%.6g,%.6f,%.6f,%.6f,%zu,%zu,%zu,%.3f,%s\n", m.rate, m.conformance.share,
               m.conformance.lower, m.conformance.upper, m.conformance.n, m.outcomes.size(), failed,
               1000.0 * m.lag_p99, m.valid ? "true" : "false");
  }
  return csv.text();
}

// Conformance against rate, each run's interval as a bar, the quota as a line.
std::string curve_svg(const std::vector<measured_run>& runs, const options& o,
                      std::optional<std::pair<double, double>> bracket) {
  std::vector<const measured_run*> sorted;
  for (const auto& m : runs) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->rate < b->rate; });
  const double w = 760, h = 360, x0 = 70, y0 = 30, pw = 640, ph = 260;
  double hi = 0;
  for (const auto* m : sorted) hi = std::max(hi, m->rate);
  hi = hi > 0 ? hi * 1.1 : 1.0;
  const auto px = [&](double r) { return x0 + r / hi * pw; };
  const auto py = [&](double c) { return y0 + (1.0 - c) * ph; };
  std::ostringstream s;
  char b[512];
  std::snprintf(b, sizeof b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                "height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>\n",
                w, h, x0, y0, pw, ph);
  s << b;
  for (int k = 0; k <= 5; ++k) {
    const double c = k / 5.0;
    std::snprintf(b, sizeof b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
                  x0 - 6, py(c) + 4, c);
    s << b;
    const double r = hi * k / 5.0;
    std::snprintf(b, sizeof b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.3g</text>\n",
                  px(r), y0 + ph + 16, r);
    s << b;
  }
  std::snprintf(b, sizeof b,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                "offered rate (req/s); dashed: the quota q = %g</text>\n<text "
                "transform=\"translate(20,%.1f) rotate(-90)\" text-anchor=\"middle\">conformance "
                "(share meeting the SLO)</text>\n",
                x0, py(o.quantile), x0 + pw, py(o.quantile), x0 + pw / 2, y0 + ph + 34, o.quantile,
                y0 + ph / 2);
  s << b;
  if (bracket) {
    std::snprintf(b, sizeof b,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f77b4\" "
                  "fill-opacity=\"0.12\"/>\n<text x=\"%.1f\" y=\"%.1f\">mu* in [%.3g, %.3g) "
                  "req/s</text>\n",
                  px(bracket->first), y0,
                  std::max(1.0, px(std::min(bracket->second, hi)) - px(bracket->first)), ph, x0,
                  y0 - 10, bracket->first, bracket->second);
    s << b;
  }
  for (const auto* m : sorted) {
    const char* colour = m->valid ? "#1f77b4" : "#999";
    std::snprintf(b, sizeof b,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/><circle "
                  "cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                  px(m->rate), py(m->conformance.lower), px(m->rate), py(m->conformance.upper),
                  colour, px(m->rate), py(m->conformance.share), colour);
    s << b;
  }
  s << "</svg>\n";
  return s.str();
}

struct invalid_run : std::exception {};

}  // namespace

int main(int argc, char** argv) {
  example::flags f("measure_endpoint",
                   "mu* of an OpenAI-compatible streaming endpoint: open-loop load, latencies "
                   "from each request's\nintended send, conformance with its interval, and the "
                   "search for the largest rate meeting the SLO.");
  const options o = parse_flags(f, argc, argv);
  std::string error;
  const auto target = example::parse_url(o.url, error);
  if (!target) f.fail("--url: " + error);
  // One descriptor a connection: raise the soft limit to the hard one, and keep the
  // connections in flight below it.
  std::size_t max_in_flight = o.max_in_flight;
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    getrlimit(RLIMIT_NOFILE, &files);
    if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur > 64)
      max_in_flight = std::min<std::size_t>(max_in_flight, files.rlim_cur - 32);
  }
  std::string prompt_text;
  if (!o.prompt_file.empty()) {
    prompt_text = example::read_whole_file(f, o.prompt_file);
    if (prompt_text.empty()) f.fail("--prompt-file '" + o.prompt_file + "' is empty");
  }
  example::stream_client client(*target, {.model = o.model,
                                          .ignore_eos = o.ignore_eos == "yes",
                                          .request_timeout_seconds = o.timeout,
                                          .max_in_flight = max_in_flight,
                                          .prompt_text = prompt_text});
  trace_input trace;
  if (!o.trace_format.empty()) {
    try {
      headroom::traces::read_trace(
          example::trace_format_of(o.trace_format), headroom::traces::trace_file(o.trace_file), {},
          [&](const headroom::traces::trace_request& r) {
            trace.requests.push_back({r.arrival.count(),
                                      {std::max<std::size_t>(1, r.prompt_tokens),
                                       std::max<std::size_t>(1, r.output_tokens)}});
          });
    } catch (const std::exception& e) {
      f.fail(e.what());
    }
    if (trace.requests.empty()) f.fail("'" + o.trace_file + "' holds no request");
  }

  example::output_buffer out;
  std::vector<measured_run> runs;
  std::optional<std::pair<double, double>> bracket;
  int status = 0;
  out.printf(
      "endpoint %s, model %s; SLO: TTFT <= %g s, TPOT <= %g ms for %g %% of requests; "
      "%zu requests a run\n",
      o.url.c_str(), o.model.c_str(), o.ttft, 1000.0 * o.tpot, 100.0 * o.quantile, o.requests);
  if (!o.search) {
    runs.push_back(measure(o, client, trace, o.rate, o.seed, f));
    print_run(out, runs.back());
    if (!runs.back().valid) status = 3;
  } else {
    headroom::capacity::capacity_search_options search{.quota = o.quantile,
                                                       .rate_low_per_second = o.low,
                                                       .rate_high_per_second = o.high,
                                                       .relative_tolerance = o.tolerance,
                                                       .max_measurements = o.max_runs,
                                                       .max_runs_per_rate = 2};
    const auto probe = [&](headroom::capacity::capacity_probe p) {
      runs.push_back(measure(o, client, trace, p.rate_per_second,
                             o.seed + 1000003ull * (p.run + 1) +
                                 static_cast<std::uint64_t>(p.rate_per_second * 1000.0),
                             f));
      print_run(out, runs.back());
      if (!runs.back().valid) throw invalid_run{};
      return runs.back().conformance;
    };
    try {
      const auto found = headroom::capacity::search_capacity(probe, search);
      out.printf("mu* in [%.3f, %.3f) req/s at %.1f %% confidence, %zu runs, %zu requests%s\n",
                 found.bracket_low_per_second, found.bracket_high_per_second,
                 100.0 * found.confidence, found.runs, found.requests,
                 found.reason == headroom::capacity::search_stop::converged ? ""
                 : found.reason == headroom::capacity::search_stop::undecided
                     ? " (rates inside it stay undecided: measure longer there)"
                     : " (the run budget ran out: raise --max-runs)");
      if (found.capacity_per_second)
        bracket = {found.bracket_low_per_second, found.bracket_high_per_second};
      else
        out.printf("no rate met the SLO: relax it, or start lower (--low)\n");
    } catch (const invalid_run&) {
      out.printf(
          "search stopped: a run was invalid, so no capacity is reported; lower the rates "
          "or give the client more CPU\n");
      status = 3;
    }
  }
  if (!o.save_result.empty()) {
    std::string text;
    for (const auto& m : runs) {
      text += vllm_json(o, m);
      text += '\n';
    }
    example::write_file(f.program(), o.save_result, text);
  }
  if (!o.csv_file.empty()) example::write_file(f.program(), o.csv_file, curve_csv(runs));
  if (!o.svg_file.empty())
    example::write_file(f.program(), o.svg_file, curve_svg(runs, o, bracket));
  out.print(f.program());
  return status;
}

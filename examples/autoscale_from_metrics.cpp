// SPDX-License-Identifier: Apache-2.0
// One autoscaling decision from real /metrics pages: reads the Prometheus text of N replicas
// (files, or "-" for stdin), takes each replica's in-flight requests (running + waiting) with
// the vLLM or SGLang preset, feeds them to the autoscaler as a per-pod metric with target
// L* = ρ*·μ*·W̄, and prints the recommendation and its reason.
//
//   curl -s http://replica-0:8000/metrics > r0.txt   # ... one file per replica
//   autoscale_from_metrics r0.txt r1.txt r2.txt
//   autoscale_from_metrics --engine sglang --model qwen - < one_replica.txt
//
// With no arguments it reads three embedded vLLM pages (70, 64 and 78 requests in flight).
// A real operator keeps the autoscaler_state between syncs (stabilization windows, rate
// limits); this one-shot run starts from a fresh state, so a scale-down is held for the down
// window (ScaleDownStabilized), as a freshly started HPA would hold it.
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>
#include <headroom/prometheus.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flags.hpp"

namespace {

constexpr std::string_view default_model = "meta-llama/Llama-3.1-8B-Instruct";

// A vLLM /metrics page for one replica (the lines the preset reads, plus a histogram).
std::string vllm_page(int running, int waiting, double kv_usage) {
  char buffer[1600];
  std::snprintf(
      buffer, sizeof buffer,
      "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{engine=\"0\",model_name=\"%s\"} %d.0\n"
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
      "# TYPE vllm:num_requests_waiting gauge\n"
      "vllm:num_requests_waiting{engine=\"0\",model_name=\"%s\"} %d.0\n"
      "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
      "# TYPE vllm:kv_cache_usage_perc gauge\n"
      "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"%s\"} %.2f\n"
      "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n"
      "# TYPE vllm:time_to_first_token_seconds histogram\n"
      "vllm:time_to_first_token_seconds_bucket{le=\"0.5\",model_name=\"%s\"} 120.0\n"
      "vllm:time_to_first_token_seconds_bucket{le=\"1.0\",model_name=\"%s\"} 180.0\n"
      "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"%s\"} 200.0\n"
      "vllm:time_to_first_token_seconds_sum{model_name=\"%s\"} 95.0\n"
      "vllm:time_to_first_token_seconds_count{model_name=\"%s\"} 200.0\n",
      default_model.data(), running, default_model.data(), waiting, default_model.data(), kv_usage,
      default_model.data(), default_model.data(), default_model.data(), default_model.data(),
      default_model.data());
  return buffer;
}

bool read_all(std::FILE* f, std::string& out) {
  char chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) out.append(chunk, n);
  return std::ferror(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace prom = headroom::prometheus;
  using namespace std::chrono_literals;

  std::string engine = "vllm", model(default_model);
  double capacity = 8.0, rho = 0.8, sojourn_s = 8.0;
  std::int32_t min_replicas = 1, max_replicas = 20;
  std::vector<std::string> sources;
  example::flags f("autoscale_from_metrics",
                   "One autoscaling decision from the /metrics pages of N replicas: each "
                   "replica's in-flight\nrequests (running + waiting) against the target "
                   "L* = rho* mu* W. No file: three embedded vLLM pages.");
  f.positionals(sources, "FILE|-", "a replica's /metrics text; '-' reads stdin")
      .choice("--engine", engine, {"vllm", "sglang"}, "the metric names to read")
      .text("--model", model, "NAME", "model_name label to keep ('' keeps every series)")
      .number("--capacity", capacity, {0, 1e9, true, false}, "requests/s",
              "mu*, what one replica serves within the SLO")
      .number("--rho", rho, {0, 1, true, false}, "fraction", "rho*, the target fraction of mu*")
      .number("--sojourn", sojourn_s, {0, 1e6, true, false}, "seconds",
              "W, the mean time a request spends in the system")
      .whole("--min", min_replicas, {0, 2147483647}, "replicas", "fewest replicas")
      .whole("--max", max_replicas, {1, 2147483647}, "replicas", "most replicas");
  f.parse(argc, argv);
  // The pages' text must outlive the parsed pages (they are views into it).
  std::vector<std::string> texts;
  std::vector<std::string> names;
  if (sources.empty()) {
    texts = {vllm_page(48, 22, 0.83), vllm_page(50, 14, 0.79), vllm_page(51, 27, 0.91)};
    names = {"demo-0", "demo-1", "demo-2"};
    engine = "vllm";  // the embedded pages are vLLM's, for the default model
    model = default_model;
  }
  const prom::engine_preset& preset = engine == "vllm" ? prom::vllm_preset : prom::sglang_preset;
  for (const auto& source : sources) {
    std::string text;
    const bool from_stdin = source == "-";
    std::FILE* file = from_stdin ? stdin : std::fopen(source.c_str(), "rb");
    const bool read = file != nullptr && read_all(file, text);
    if (file != nullptr && !from_stdin) std::fclose(file);
    if (!read) f.fail("cannot read '" + source + "'");
    texts.push_back(std::move(text));
    names.push_back(from_stdin ? "stdin" : source);
  }

  example::output_buffer out;
  try {
    // Target from capacity: L* = 0.8 x 8 req/s x 8 s = 51.2 -> 51 per replica.
    const double target = headroom::kubernetes::in_flight_target(
        {.target_utilization = rho,
         .capacity_per_second = capacity,
         .mean_sojourn = std::chrono::duration<double>(sojourn_s)});
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = min_replicas,
        .max_replicas = max_replicas,
        .metrics = {{.name = "in-flight per replica",
                     .source = headroom::autoscaling::metric_source::pods,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = target}},
        .behavior = headroom::autoscaling::scaling_behavior{},  // the Kubernetes defaults
    };
    const headroom::autoscaling::autoscaler controller(config);

    out.printf("engine %s, model \"%s\", target L* = %g in flight per replica\n\n",
               preset.engine.data(), model.c_str(), target);
    out.printf("%-14s %8s %8s %10s %6s  %s\n", "replica", "running", "waiting", "in-flight", "kv",
               "status");
    std::vector<headroom::autoscaling::pod_sample> samples;
    prom::page page;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      prom::parse_into(texts[i], page);
      const prom::replica_load load = prom::read_replica_load(page, preset, model);
      const auto in_flight = load.in_flight();
      // A replica whose page or metric is missing reports no value: the HPA's "missing pod".
      samples.push_back(
          {.value = in_flight ? headroom::autoscaling::to_quantity(*in_flight) : std::nullopt});
      const auto show = [](const prom::metric_reading& r) {
        return r.value ? *r.value : std::numeric_limits<double>::quiet_NaN();
      };
      std::string status = "ok";
      if (!page.ok()) {
        status = "page rejected: line " + std::to_string(page.error()->line) + ": " +
                 std::string(page.error()->reason());
      } else if (!in_flight) {
        const auto& bad = load.running.value ? load.waiting : load.running;
        status = std::string(bad.metric) + ": " + std::string(prom::describe(bad.missing));
      }
      out.printf("%-14s %8.0f %8.0f %10.0f %6.2f  %s\n", names[i].c_str(), show(load.running),
                 show(load.waiting), in_flight ? *in_flight : std::nan(""), show(load.kv_usage),
                 status.c_str());
    }

    const auto replicas = static_cast<std::int32_t>(samples.size());
    auto state = controller.initial_state();
    const auto observation = headroom::autoscaling::observe_pods(samples);
    const auto decision =
        controller.step(state, 0s,
                        {.replicas = {.spec = replicas, .status = replicas, .ready = replicas},
                         .metrics = {&observation, 1}});

    out.printf("\nreplicas %d -> %d  (%s", decision.current_replicas, decision.desired_replicas,
               headroom::autoscaling::to_string(decision.reason).data());
    if (decision.raw_recommendation >= 0)
      out.printf(", metrics alone ask for %d", decision.raw_recommendation);
    out.printf(")\n");
    if (decision.failed_metrics > 0)
      out.printf("no replica reported %s: holding\n", config.metrics[0].name.c_str());
  } catch (const headroom::invalid_argument& e) {
    f.fail(e.what());
  }
  out.print(f.program());
  return 0;
}

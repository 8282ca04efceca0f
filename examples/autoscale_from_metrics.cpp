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

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

// strtod, not std::from_chars: libc++ before LLVM 20 has no from_chars for double. This
// program never calls setlocale, so strtod reads '.' as the decimal point (the "C" locale).
bool parse_number(std::string_view text, double& out) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return false;
  out = value;
  return true;
}
bool parse_count(std::string_view text, std::int32_t& out) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

void usage(std::FILE* to) {
  std::fputs(
      "usage: autoscale_from_metrics [options] [FILE|- ...]\n"
      "  FILE              a replica's /metrics text; '-' reads stdin; none: embedded demo\n"
      "  --engine E        vllm | sglang (default vllm)\n"
      "  --model NAME      model_name to keep ('' = every series; default "
      "meta-llama/Llama-3.1-8B-Instruct)\n"
      "  --capacity R      mu*, req/s per replica within the SLO (default 8)\n"
      "  --rho F           rho*, target fraction of mu* (default 0.8)\n"
      "  --sojourn S       mean time in the system W, seconds (default 8)\n"
      "  --min N, --max N  replica bounds (default 1, 20)\n",
      to);
}

}  // namespace

int main(int argc, char** argv) {
  namespace prom = headroom::prometheus;
  using namespace std::chrono_literals;

  std::string engine = "vllm", model(default_model);
  double capacity = 8.0, rho = 0.8, sojourn_s = 8.0;
  std::int32_t min_replicas = 1, max_replicas = 20;
  std::vector<std::string> sources;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return 0;
    }
    if (arg == "-" || !arg.starts_with("--")) {
      sources.emplace_back(arg);
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "autoscale_from_metrics: %s needs a value\n", argv[i]);
      return 2;
    }
    const std::string_view value = argv[++i];
    bool ok = true;
    if (arg == "--engine")
      engine = value;
    else if (arg == "--model")
      model = value;
    else if (arg == "--capacity")
      ok = parse_number(value, capacity);
    else if (arg == "--rho")
      ok = parse_number(value, rho);
    else if (arg == "--sojourn")
      ok = parse_number(value, sojourn_s);
    else if (arg == "--min")
      ok = parse_count(value, min_replicas);
    else if (arg == "--max")
      ok = parse_count(value, max_replicas);
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "autoscale_from_metrics: bad option %s %s\n", argv[i - 1], argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (engine != "vllm" && engine != "sglang") {
    std::fprintf(stderr, "autoscale_from_metrics: --engine must be vllm or sglang\n");
    return 2;
  }
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
    std::FILE* f = from_stdin ? stdin : std::fopen(source.c_str(), "rb");
    if (f == nullptr || !read_all(f, text)) {
      std::fprintf(stderr, "autoscale_from_metrics: cannot read %s\n", source.c_str());
      if (f != nullptr && !from_stdin) std::fclose(f);
      return 1;
    }
    if (!from_stdin) std::fclose(f);
    texts.push_back(std::move(text));
    names.push_back(from_stdin ? "stdin" : source);
  }

  try {
    // Target from capacity, SPEC §2: L* = 0.8 x 8 req/s x 8 s = 51.2 -> 51 per replica.
    const double target = headroom::kubernetes::in_flight_target(
        rho, capacity, std::chrono::duration<double>(sojourn_s));
    headroom::autoscaler_config config;
    config.min_replicas = min_replicas;
    config.max_replicas = max_replicas;
    config.metrics = {{"in-flight per replica", headroom::metric_source::pods,
                       headroom::metric_target_type::average_value, target}};
    config.behavior = headroom::scaling_behavior{};  // the Kubernetes defaults
    const headroom::autoscaler controller(config);

    std::printf("engine %s, model \"%s\", target L* = %g in flight per replica\n\n",
                preset.engine.data(), model.c_str(), target);
    std::printf("%-14s %8s %8s %10s %6s  %s\n", "replica", "running", "waiting", "in-flight", "kv",
                "status");
    std::vector<headroom::pod_sample> samples;
    prom::page page;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      prom::parse_into(texts[i], page);
      const prom::replica_load load = prom::read_replica_load(page, preset, model);
      const auto in_flight = load.in_flight();
      // A replica whose page or metric is missing reports no value: the HPA's "missing pod".
      samples.push_back({.value = in_flight ? headroom::to_quantity(*in_flight) : std::nullopt});
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
      std::printf("%-14s %8.0f %8.0f %10.0f %6.2f  %s\n", names[i].c_str(), show(load.running),
                  show(load.waiting), in_flight ? *in_flight : std::nan(""), show(load.kv_usage),
                  status.c_str());
    }

    const auto replicas = static_cast<std::int32_t>(samples.size());
    auto state = controller.initial_state();
    const auto observation = headroom::observe_pods(samples);
    const auto decision =
        controller.step(state, 0s,
                        {.replicas = {.spec = replicas, .status = replicas, .ready = replicas},
                         .metrics = {&observation, 1}});

    std::printf("\nreplicas %d -> %d  (%s", decision.current_replicas, decision.desired_replicas,
                headroom::to_string(decision.reason).data());
    if (decision.raw_recommendation >= 0)
      std::printf(", metrics alone ask for %d", decision.raw_recommendation);
    std::printf(")\n");
    if (decision.failed_metrics > 0)
      std::printf("no replica reported %s: holding\n", config.metrics[0].name.c_str());
  } catch (const headroom::invalid_argument& e) {
    std::fprintf(stderr, "autoscale_from_metrics: %s\n", e.what());
    return 1;
  }
  return 0;
}

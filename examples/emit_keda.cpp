// SPDX-License-Identifier: Apache-2.0
// From a measured capacity to Kubernetes manifests: computes the per-replica in-flight target
// L* = ρ*·μ*·W̄ and prints a KEDA ScaledObject (Prometheus trigger on running + waiting
// requests) and, as the alternative, an autoscaling/v2 HorizontalPodAutoscaler. Apply ONE
// of the two to a Deployment (KEDA creates its own HPA):
//
//   emit_keda --only keda | kubectl apply -f -
//
// Defaults are SPEC §2's example: μ* = 8 req/s, ρ* = 0.8, W̄ = 8 s -> 51 per replica, for
// meta-llama/Llama-3.1-8B-Instruct served by the Deployment llama-8b in namespace serving.
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>
#include <headroom/prometheus.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

namespace {

void usage(std::FILE* to) {
  std::fputs(
      "usage: emit_keda [options]\n"
      "  --capacity R      mu*, requests/s one replica serves within the SLO (default 8)\n"
      "  --rho F           rho*, target fraction of mu*, in (0, 1] (default 0.8)\n"
      "  --sojourn S       mean time in the system W, seconds (default 8)\n"
      "  --milli           keep L* to milli-units (51.2) instead of rounding down to 51\n"
      "  --model NAME      model_name label value (default meta-llama/Llama-3.1-8B-Instruct)\n"
      "  --engine E        vllm | sglang: metric names for the query (default vllm)\n"
      "  --deployment D    Deployment to scale (default llama-8b)\n"
      "  --namespace NS    namespace (default serving; '' to omit)\n"
      "  --name N          name of the ScaledObject / HPA (default: the deployment's)\n"
      "  --min N, --max N  replica bounds (default 1, 20; --min 0 scales to zero, KEDA only)\n"
      "  --prometheus URL  Prometheus server (default http://prometheus.monitoring.svc:9090)\n"
      "  --hpa-metric M    Pods metric the HPA reads from your adapter "
      "(default vllm_requests_in_flight)\n"
      "  --only keda|hpa   print one manifest (default: both, ScaledObject first)\n",
      to);
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

}  // namespace

int main(int argc, char** argv) {
  namespace k8s = headroom::kubernetes;
  using namespace std::chrono_literals;

  double capacity = 8.0, rho = 0.8, sojourn_s = 8.0;
  bool milli = false;
  std::string model = "meta-llama/Llama-3.1-8B-Instruct", engine = "vllm";
  std::string deployment = "llama-8b", ns = "serving", name, only;
  std::string prometheus_url = "http://prometheus.monitoring.svc:9090";
  std::string hpa_metric = "vllm_requests_in_flight";
  std::int32_t min_replicas = 1, max_replicas = 20;

  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      usage(stdout);
      return 0;
    }
    if (flag == "--milli") {
      milli = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "emit_keda: %s needs a value\n", argv[i]);
      usage(stderr);
      return 2;
    }
    const std::string_view value = argv[++i];
    bool ok = true;
    if (flag == "--capacity")
      ok = parse_number(value, capacity);
    else if (flag == "--rho")
      ok = parse_number(value, rho);
    else if (flag == "--sojourn")
      ok = parse_number(value, sojourn_s);
    else if (flag == "--min")
      ok = parse_count(value, min_replicas);
    else if (flag == "--max")
      ok = parse_count(value, max_replicas);
    else if (flag == "--model")
      model = value;
    else if (flag == "--engine")
      engine = value;
    else if (flag == "--deployment")
      deployment = value;
    else if (flag == "--namespace")
      ns = value;
    else if (flag == "--name")
      name = value;
    else if (flag == "--prometheus")
      prometheus_url = value;
    else if (flag == "--hpa-metric")
      hpa_metric = value;
    else if (flag == "--only")
      only = value;
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "emit_keda: bad option %s %s\n", argv[i - 1], argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (engine != "vllm" && engine != "sglang") {
    std::fprintf(stderr, "emit_keda: --engine must be vllm or sglang\n");
    return 2;
  }
  if (!only.empty() && only != "keda" && only != "hpa") {
    std::fprintf(stderr, "emit_keda: --only must be keda or hpa\n");
    return 2;
  }
  const auto& preset =
      engine == "vllm" ? headroom::prometheus::vllm_preset : headroom::prometheus::sglang_preset;

  try {
    const auto rounding = milli ? k8s::target_rounding::milli : k8s::target_rounding::whole;
    const double target =
        k8s::in_flight_target(rho, capacity, std::chrono::duration<double>(sojourn_s), rounding);

    // One configuration drives the library's controller and both manifests. With --min 0 the
    // metric is an External total (what KEDA feeds the HPA); otherwise a per-pod average.
    headroom::autoscaler_config config;
    config.min_replicas = min_replicas;
    config.max_replicas = max_replicas;
    config.metrics = {
        {hpa_metric,
         min_replicas == 0 ? headroom::metric_source::external : headroom::metric_source::pods,
         headroom::metric_target_type::average_value, target}};
    config.behavior = headroom::scaling_behavior{};  // Kubernetes defaults, written explicitly
    config.sync_period = 15s;                        // HPA sync period and KEDA pollingInterval

    const k8s::scaled_workload workload{name.empty() ? deployment : name, ns, deployment};
    k8s::keda_prometheus_options keda;
    keda.server_address = prometheus_url;
    keda.queries = {k8s::in_flight_query(preset, model)};

    std::string out;
    char line[256];
    std::snprintf(line, sizeof line,
                  "# L* = rho* x mu* x W = %g x %g req/s x %g s = %g -> %g in flight per "
                  "replica (%s)\n",
                  rho, capacity, sojourn_s, rho * capacity * sojourn_s, target,
                  milli ? "milli-units" : "rounded down");
    out += line;
    const bool want_keda = only.empty() || only == "keda";
    const bool want_hpa = only == "hpa" || (only.empty() && min_replicas != 0);
    if (want_keda && want_hpa)
      out += "# Two alternatives for one Deployment: apply only ONE of them (--only keda|hpa).\n";
    if (want_keda) k8s::append_scaled_object(out, workload, config, keda);
    if (want_keda && want_hpa) out += "---\n";
    if (want_hpa) k8s::append_horizontal_pod_autoscaler(out, workload, config);
    std::fputs(out.c_str(), stdout);
  } catch (const headroom::invalid_argument& e) {
    std::fprintf(stderr, "emit_keda: %s\n", e.what());
    return 1;
  }
  return 0;
}

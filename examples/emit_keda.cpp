// SPDX-License-Identifier: Apache-2.0
// From a measured capacity to Kubernetes manifests: computes the per-replica in-flight target
// L* = ρ*·μ*·W̄ and prints a KEDA ScaledObject (Prometheus trigger on running + waiting
// requests) and, as the alternative, an autoscaling/v2 HorizontalPodAutoscaler. Apply ONE
// of the two to a Deployment (KEDA creates its own HPA):
//
//   emit_keda --only keda | kubectl apply -f -
//
// Defaults: μ* = 8 req/s, ρ* = 0.8, W̄ = 8 s -> 51 per replica, for
// meta-llama/Llama-3.1-8B-Instruct served by the Deployment llama-8b in namespace serving.
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>
#include <headroom/prometheus.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "flags.hpp"

int main(int argc, char** argv) {
  namespace k8s = headroom::kubernetes;
  using namespace std::chrono_literals;

  double capacity = 8.0, rho = 0.8, sojourn_s = 8.0;
  bool milli = false;
  std::string model = "meta-llama/Llama-3.1-8B-Instruct", engine = "vllm";
  std::string deployment = "llama-8b", ns = "serving", name, only = "both";
  std::string prometheus_url = "http://prometheus.monitoring.svc:9090";
  std::string hpa_metric = "vllm_requests_in_flight";
  std::int32_t min_replicas = 1, max_replicas = 20;

  example::flags f("emit_keda",
                   "Kubernetes manifests from a measured capacity: a KEDA ScaledObject "
                   "(Prometheus trigger on\nrunning + waiting requests) and, as the "
                   "alternative, an autoscaling/v2 HorizontalPodAutoscaler.");
  f.number("--capacity", capacity, {0, 1e9, true, false}, "requests/s",
           "mu*, what one replica serves within the SLO")
      .number("--rho", rho, {0, 1, true, false}, "fraction", "rho*, the target fraction of mu*")
      .number("--sojourn", sojourn_s, {0, 1e6, true, false}, "seconds",
              "W, the mean time a request spends in the system")
      .toggle("--milli", milli, "keep L* to milli-units (51.2) instead of rounding down (51)")
      .text("--model", model, "NAME", "model_name label value")
      .choice("--engine", engine, {"vllm", "sglang"}, "metric names for the query")
      .text("--deployment", deployment, "NAME", "the Deployment to scale")
      .text("--namespace", ns, "NS", "namespace ('' omits it)")
      .text("--name", name, "NAME", "name of the ScaledObject / HPA ('': the deployment's)")
      .whole("--min", min_replicas, {0, 2147483647}, "replicas",
             "fewest replicas (0 scales to zero, KEDA only)")
      .whole("--max", max_replicas, {1, 2147483647}, "replicas", "most replicas")
      .text("--prometheus", prometheus_url, "URL", "the Prometheus server")
      .text("--hpa-metric", hpa_metric, "NAME", "the Pods metric the HPA reads from your adapter")
      .choice("--only", only, {"both", "keda", "hpa"}, "which manifest to print");
  f.parse(argc, argv);
  std::string out;
  const auto& preset =
      engine == "vllm" ? headroom::prometheus::vllm_preset : headroom::prometheus::sglang_preset;

  try {
    const auto rounding = milli ? k8s::target_rounding::milli : k8s::target_rounding::whole;
    const double target =
        k8s::in_flight_target({.target_utilization = rho,
                               .capacity_per_second = capacity,
                               .mean_sojourn = std::chrono::duration<double>(sojourn_s),
                               .rounding = rounding});

    // One configuration drives the library's controller and both manifests. With --min 0 the
    // metric is an External total (what KEDA feeds the HPA); otherwise a per-pod average.
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = min_replicas,
        .max_replicas = max_replicas,
        .metrics = {{.name = hpa_metric,
                     .source = min_replicas == 0 ? headroom::autoscaling::metric_source::external
                                                 : headroom::autoscaling::metric_source::pods,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = target}},
        .behavior =
            headroom::autoscaling::scaling_behavior{},  // Kubernetes defaults, written explicitly
        .sync_period = 15s,                             // HPA sync period and KEDA pollingInterval
    };

    const k8s::scaled_workload workload{
        .name = name.empty() ? deployment : name, .namespace_name = ns, .target_name = deployment};
    const k8s::keda_prometheus_options keda{
        .server_address = prometheus_url,
        .triggers = {{.metric_name = hpa_metric, .query = k8s::in_flight_query(preset, model)}},
    };

    char line[256];
    std::snprintf(line, sizeof line,
                  "# L* = rho* x mu* x W = %g x %g req/s x %g s = %g -> %g in flight per "
                  "replica (%s)\n",
                  rho, capacity, sojourn_s, rho * capacity * sojourn_s, target,
                  milli ? "milli-units" : "rounded down");
    out += line;
    const bool want_keda = only == "both" || only == "keda";
    const bool want_hpa = only == "hpa" || (only == "both" && min_replicas != 0);
    if (want_keda && want_hpa)
      out += "# Two alternatives for one Deployment: apply only ONE of them (--only keda|hpa).\n";
    if (want_keda) k8s::append_scaled_object(out, workload, config, keda);
    if (want_keda && want_hpa) out += "---\n";
    if (want_hpa) k8s::append_horizontal_pod_autoscaler(out, workload, config);
  } catch (const headroom::invalid_argument& e) {
    f.fail(e.what());
  }
  example::output_buffer buffer;
  buffer.append(out);
  buffer.print(f.program());
  return 0;
}

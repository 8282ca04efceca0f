// SPDX-License-Identifier: Apache-2.0
// Writes, as one YAML stream, the manifests of the configurations the Kubernetes tests and
// the examples use: each metric source and target type the writers accept, behaviors with
// Pods/Percent policies, Min/Disabled select policies, unset and explicit windows, several
// triggers, KEDA scale-to-zero, milli-unit targets, a namespace and none.
//   headroom_manifest_emit valid      every manifest; validate.py must accept all
//   headroom_manifest_emit invalid    an HPA with minReplicas 0 (valid only with the
//                                     HPAScaleToZero gate): validate.py without
//                                     --hpa-scale-to-zero must reject it
// tests/schema_check.cmake pipes both into tests/data/k8s-schemas/validate.py.
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {
namespace k8s = headroom::kubernetes;
namespace prom = headroom::prometheus;
using namespace std::chrono_literals;
using headroom::autoscaling::metric_source;
using headroom::autoscaling::metric_target_type;

headroom::autoscaling::metric_spec metric(std::string name, metric_source source,
                                          metric_target_type type, double target) {
  return {.name = std::move(name), .source = source, .target_type = type, .target = target};
}
}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  std::string out;
  const auto document = [&out] {
    if (!out.empty()) out += "---\n";
  };
  if (mode == "invalid") {
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = 0,
        .max_replicas = 4,
        .metrics = {
            metric("in_flight", metric_source::external, metric_target_type::average_value, 51.0)}};
    k8s::append_horizontal_pod_autoscaler(out, {.name = "zero", .target_name = "llm"}, config);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  // Per-direction tolerances written for a cluster of unknown version: Kubernetes 1.31's
  // schema (the one in tests/data/k8s-schemas) has no such field.
  const headroom::autoscaling::autoscaler_config tolerant{
      .min_replicas = 1,
      .max_replicas = 4,
      .metrics = {metric("in_flight", metric_source::external, metric_target_type::average_value,
                         51.0)},
      .scale_up_tolerance = 0.05,
      .scale_down_tolerance = 0.2,
      .behavior = headroom::autoscaling::scaling_behavior{}};
  if (mode == "tolerance") {
    k8s::append_horizontal_pod_autoscaler(out, {.name = "tolerant", .target_name = "llm"},
                                          tolerant);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  if (mode != "valid") {
    std::fputs("usage: headroom_manifest_emit valid|invalid|tolerance\n", stderr);
    return 2;
  }
  const double l_star = k8s::in_flight_target(
      {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 8s});  // 51
  const double l_milli = k8s::in_flight_target({.target_utilization = 0.8,
                                                .capacity_per_second = 8.0,
                                                .mean_sojourn = 8s,
                                                .rounding = k8s::target_rounding::milli});
  headroom::autoscaling::scaling_behavior custom;
  custom.scale_up = {
      .stabilization_window = 30s,
      .select = headroom::autoscaling::select_policy::min,
      .policies = {
          {.type = headroom::autoscaling::scaling_policy_type::pods, .value = 2, .period = 60s},
          {.type = headroom::autoscaling::scaling_policy_type::percent,
           .value = 50,
           .period = 30s}}};
  custom.scale_down = {.stabilization_window = std::nullopt,
                       .select = headroom::autoscaling::select_policy::disabled,
                       .policies = {}};
  headroom::autoscaling::scaling_behavior unlimited;
  unlimited.scale_up.policies.clear();
  unlimited.scale_down = {.stabilization_window = 3600s, .policies = {}};

  const std::vector<headroom::autoscaling::autoscaler_config> hpa_configs = {
      {.min_replicas = 1,
       .max_replicas = 20,
       .metrics = {metric("vllm_requests_in_flight", metric_source::pods,
                          metric_target_type::average_value, l_star)},
       .behavior = headroom::autoscaling::scaling_behavior{},
       .sync_period = 15s},
      {.min_replicas = 2,
       .max_replicas = 10,
       .metrics = {metric("cpu", metric_source::resource, metric_target_type::utilization, 80),
                   metric("memory", metric_source::resource, metric_target_type::average_value,
                          2.5),
                   metric("in_flight", metric_source::external, metric_target_type::value, l_milli),
                   metric("queue", metric_source::external, metric_target_type::average_value,
                          0.25)},
       .behavior = custom},
      {.min_replicas = 3,
       .max_replicas = 3,
       .metrics = {metric("kv_usage", metric_source::pods, metric_target_type::average_value, 0.8)},
       .behavior = unlimited},
      {.min_replicas = 1,
       .max_replicas = 2147483647,
       .metrics = {metric("m", metric_source::external, metric_target_type::average_value, 1)}},
  };
  const std::vector<k8s::scaled_workload> workloads = {
      {.name = "llama-8b", .namespace_name = "serving", .target_name = "llama-8b"},
      {.name = "a.b-c", .target_name = "x", .target_kind = "StatefulSet"},
      {.name = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') +
               "." + std::string(61, 'd'),  // 253 .namespace_name = std::string(63, 'n'),
       .target_name = "t",
       .target_kind = "Rollout",
       .target_api_version = "argoproj.io/v1alpha1"},
  };
  for (const auto& w : workloads)
    for (const auto& c : hpa_configs) {
      document();
      k8s::append_horizontal_pod_autoscaler(out, w, c);
    }

  // ScaledObjects: the KEDA-expressible configurations (no Resource or Utilization metric).
  for (const auto& w : workloads) {
    for (const std::int32_t min : {0, 1}) {
      const headroom::autoscaling::autoscaler_config c{
          .min_replicas = min,
          .max_replicas = 20,
          .metrics = {metric("in_flight", metric_source::external,
                             metric_target_type::average_value, l_star),
                      metric("kv", metric_source::external, metric_target_type::value, l_milli)},
          .behavior = min == 0 ? std::optional<headroom::autoscaling::scaling_behavior>{} : custom,
          .sync_period = 30s};
      document();
      k8s::append_scaled_object(
          out, w, c,
          {.server_address = "http://prometheus.monitoring.svc:9090",
           .triggers = {{.metric_name = "kv",
                         .query = "max(sglang:token_usage{model_name=\"m\"})",
                         .activation_threshold = 0.5},
                        {.metric_name = "in_flight",
                         .query = k8s::in_flight_query(prom::vllm_preset, "meta-llama/x \"q\"")}},
           .cooldown_period = min == 0 ? 0s : 600s});
    }
  }
  // Written for Kubernetes 1.31 (the schema's): the tolerances and minReplicas 0 left out.
  auto tolerant_131 = tolerant;
  tolerant_131.kubernetes = {.minor = 31};
  document();
  static_cast<void>(k8s::append_horizontal_pod_autoscaler(
      out, {.name = "tolerant-131", .target_name = "llm"}, tolerant_131, {}));
  auto zero = tolerant_131;
  zero.min_replicas = 0;
  document();
  static_cast<void>(k8s::append_horizontal_pod_autoscaler(
      out, {.name = "zero-131", .target_name = "llm"}, zero, {}));
  document();
  k8s::append_scaled_object(out, {.name = "tolerant-131", .target_name = "llm"}, tolerant_131,
                            {.server_address = "http://prometheus:9090",
                             .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}});
  // An Object metric with its described object.
  document();
  static_cast<void>(k8s::append_horizontal_pod_autoscaler(
      out, {.name = "object", .namespace_name = "serving", .target_name = "llm"},
      {.min_replicas = 1,
       .max_replicas = 8,
       .metrics = {metric("requests_per_second", metric_source::object, metric_target_type::value,
                          120),
                   metric("queue_per_replica", metric_source::object,
                          metric_target_type::average_value, 4)}},
      {.objects = {{.metric_name = "requests_per_second", .kind = "Service", .name = "gateway"},
                   {.metric_name = "queue_per_replica",
                    .kind = "Ingress",
                    .name = "llm.example.com",
                    .api_version = "networking.k8s.io/v1"}}}));
  // KEDA with authenticationRef, fallback and idleReplicaCount.
  document();
  auto keda_config = tolerant;
  keda_config.min_replicas = 2;
  k8s::append_scaled_object(
      out, {.name = "keda-extras", .namespace_name = "serving", .target_name = "llm"}, keda_config,
      {.server_address = "https://prometheus:9090",
       .triggers = {{.metric_name = "in_flight", .query = "sum(x)", .activation_threshold = 3}},
       .cooldown_period = 60s,
       .authentication = k8s::keda_authentication{.name = "prom-creds"},
       .fallback = k8s::keda_fallback{.failure_threshold = 3, .replicas = 6},
       .idle_replica_count = 1});
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

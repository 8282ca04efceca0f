// SPDX-License-Identifier: Apache-2.0
// YAML for a KEDA (keda.sh/v1alpha1) ScaledObject with one prometheus trigger per metric of a
// headroom::autoscaling::autoscaler_config: pollingInterval, cooldownPeriod, min/max replica
// counts, the behavior under advanced.horizontalPodAutoscalerConfig, fallback and authentication.
// Source: kedacore/keda apis/keda/v1alpha1 (ScaledObject) and pkg/scalers/prometheus_scaler.go.
// docs/integrations.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../autoscaler.hpp"
#include "../detail/append_guard.hpp"
#include "../detail/checks.hpp"
#include "../error.hpp"
#include "manifest.hpp"
#include "yaml.hpp"

namespace headroom {
inline namespace v0 {
namespace kubernetes {

/// KEDA's spec.fallback: after failure_threshold failed reads of a trigger, KEDA sets the
/// replicas to `replicas`. headroom's controller instead holds the current count while a
/// metric is missing (scale_reason::metric_missing).
struct keda_fallback {
  std::int32_t failure_threshold = 3;  ///< fallback.failureThreshold, >= 1
  std::int32_t replicas = 1;           ///< fallback.replicas, >= 0
};

/// KEDA's triggers[].authenticationRef: the TriggerAuthentication (or its cluster-wide kind)
/// holding the Prometheus credentials.
struct keda_authentication {
  std::string name{};                          ///< authenticationRef.name; DNS-1123 subdomain
  std::string kind = "TriggerAuthentication";  ///< or "ClusterTriggerAuthentication"
};

/// KEDA's default spec.cooldownPeriod.
inline constexpr std::chrono::seconds keda_default_cooldown_period{300};

/// One KEDA Prometheus trigger: the query that returns the fleet total of one of the
/// config's metrics (whose target is the per-replica threshold), paired with it by name.
struct keda_prometheus_trigger {
  std::string metric_name{};  ///< the autoscaler_config::metrics entry it serves, by its name
  std::string query{};        ///< triggers[].metadata.query: PromQL, the fleet total
  /// triggers[].metadata.activationThreshold: KEDA scales 0 -> 1 once a trigger's query
  /// exceeds its own; >= 0.
  double activation_threshold = 0.0;
};

/// KEDA's Prometheus triggers and the ScaledObject's cooldown.
struct keda_prometheus_options {
  std::string server_address{};  ///< triggers[].metadata.serverAddress, http(s)://...
  /// One trigger per config.metrics entry, matched by metric name (in any order); written in
  /// the order of config.metrics.
  std::vector<keda_prometheus_trigger> triggers{};
  /// spec.cooldownPeriod: KEDA waits this long after the last activity before 1 -> 0; >= 0.
  /// (headroom's controller: scale-to-zero after its down stabilization window.)
  std::chrono::seconds cooldown_period = keda_default_cooldown_period;
  /// triggers[].authenticationRef on every trigger; unset = none.
  std::optional<keda_authentication> authentication{};
  /// spec.fallback; unset = none (KEDA keeps the count on failures, as headroom holds).
  std::optional<keda_fallback> fallback{};
  /// spec.idleReplicaCount: KEDA's count while every trigger is inactive (below its
  /// activationThreshold); must be < config.min_replicas. headroom's equivalent: min_replicas
  /// 0 with the activation threshold. Unset = none.
  std::optional<std::int32_t> idle_replica_count{};
};
namespace detail {

/// True for an http:// or https:// URL with something after the scheme.
[[nodiscard]] constexpr bool is_http_url(std::string_view s) noexcept {
  for (const std::string_view scheme : {std::string_view("http://"), std::string_view("https://")})
    if (s.starts_with(scheme) && s.size() > scheme.size()) return true;
  return false;
}

/// The trigger that serves metric m, or throws: each config metric has exactly one trigger,
/// found by name, and a trigger that names no config metric is a caller's mix-up.
[[nodiscard]] HEADROOM_DECL const keda_prometheus_trigger& trigger_for(
    const keda_prometheus_options& keda, const autoscaling::metric_spec& m);

/// Checks what KEDA's ScaledObject needs beyond an HPA: the server, one trigger per metric
/// (and none for a metric the config lacks), queries, thresholds, the cooldown, whole-second
/// polling and no Resource or Utilization metric.
HEADROOM_DECL void check_keda(const autoscaling::autoscaler_config& config,
                              const keda_prometheus_options& keda);

}  // namespace detail

/// Appends a KEDA ScaledObject (keda.sh/v1alpha1) for `workload`: pollingInterval from
/// config.sync_period (whole seconds), cooldownPeriod, min/maxReplicaCount, the behavior under
/// advanced.horizontalPodAutoscalerConfig, and one prometheus trigger per config metric (in
/// config order, with the query of keda's trigger of that name) with metricType
/// AverageValue/Value and threshold = the metric's target. Throws for a Resource/Utilization
/// metric (no Prometheus trigger here), and for a metric without its trigger or a trigger
/// without its metric.
HEADROOM_DECL void append_scaled_object(std::string& out, const scaled_workload& workload,
                                        const autoscaling::autoscaler_config& config,
                                        const keda_prometheus_options& keda);

/// What a ScaledObject for `config` leaves out on the cluster config.kubernetes names, and why
/// (the behavior's tolerances, written only for 1.33+ with HPAConfigurableTolerance).
[[nodiscard]] HEADROOM_DECL std::vector<omission> scaled_object_omissions(
    const autoscaling::autoscaler_config& config);
/// The ScaledObject as a new string (see append_scaled_object()).
[[nodiscard]] HEADROOM_DECL std::string scaled_object_yaml(
    const scaled_workload& workload, const autoscaling::autoscaler_config& config,
    const keda_prometheus_options& keda);

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/kubernetes/keda.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

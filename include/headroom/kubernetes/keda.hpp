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
[[nodiscard]] inline const keda_prometheus_trigger& trigger_for(const keda_prometheus_options& keda,
                                                                const autoscaling::metric_spec& m) {
  const keda_prometheus_trigger* found = nullptr;
  for (const auto& t : keda.triggers) {
    if (t.metric_name != m.name) continue;
    if (found != nullptr)
      headroom::detail::fail("keda.triggers.metric_name", t.metric_name,
                             "names one metric in two triggers");
    found = &t;
  }
  if (found == nullptr)
    headroom::detail::fail("keda.triggers", m.name,
                           "must hold a trigger for every config.metrics entry (by name)");
  return *found;
}

/// Checks what KEDA's ScaledObject needs beyond an HPA: the server, one trigger per metric
/// (and none for a metric the config lacks), queries, thresholds, the cooldown, whole-second
/// polling and no Resource or Utilization metric.
inline void check_keda(const autoscaling::autoscaler_config& config,
                       const keda_prometheus_options& keda) {
  const auto& address = keda.server_address;
  if (!is_http_url(address) || !headroom::detail::valid_utf8(address))
    headroom::detail::fail("keda.server_address", address, "must be an http:// or https:// URL");
  for (const auto& m : config.metrics) {
    if (m.source == autoscaling::metric_source::resource ||
        m.source == autoscaling::metric_source::container_resource ||
        m.target_type == autoscaling::metric_target_type::utilization)
      headroom::detail::fail("config.metrics.source", m.name,
                             "a Resource/Utilization metric has no prometheus trigger");
    static_cast<void>(trigger_for(keda, m));
  }
  for (const auto& t : keda.triggers) {
    const bool known =
        std::any_of(config.metrics.begin(), config.metrics.end(),
                    [&](const autoscaling::metric_spec& m) { return m.name == t.metric_name; });
    if (!known)
      headroom::detail::fail("keda.triggers.metric_name", t.metric_name,
                             "must name a config.metrics entry");
    if (t.query.find_first_not_of(" \t\n") == std::string::npos)
      headroom::detail::fail("keda.triggers.query", t.query, "must not be empty");
    if (!headroom::detail::valid_utf8(t.query))
      headroom::detail::fail("keda.triggers.query", t.query, "must be valid UTF-8");
    const double threshold = t.activation_threshold;
    if (!(headroom::detail::is_finite(threshold) && threshold >= 0.0 &&
          threshold <= largest_quantity))
      headroom::detail::fail("keda.triggers.activation_threshold", threshold,
                             "must be finite and >= 0");
  }
  constexpr auto int32_max = std::numeric_limits<std::int32_t>::max();  // KEDA's int32 fields
  if (keda.cooldown_period.count() < 0 || keda.cooldown_period.count() > int32_max)
    headroom::detail::fail("keda.cooldown_period", keda.cooldown_period, "must be >= 0");
  const auto polling = std::chrono::duration_cast<std::chrono::seconds>(config.sync_period);
  if (polling != config.sync_period || polling.count() > int32_max)
    headroom::detail::fail("config.sync_period", config.sync_period,
                           "must be whole seconds (KEDA pollingInterval)");
  if (keda.authentication) {
    if (!is_dns1123_subdomain(keda.authentication->name))
      headroom::detail::fail("keda.authentication.name", keda.authentication->name,
                             "must be a DNS-1123 subdomain");
    if (keda.authentication->kind != "TriggerAuthentication" &&
        keda.authentication->kind != "ClusterTriggerAuthentication")
      headroom::detail::fail("keda.authentication.kind", keda.authentication->kind,
                             "must be TriggerAuthentication or ClusterTriggerAuthentication");
  }
  if (keda.fallback) {
    if (keda.fallback->failure_threshold < 1)
      headroom::detail::fail("keda.fallback.failure_threshold", keda.fallback->failure_threshold,
                             "must be >= 1");
    if (keda.fallback->replicas < 0)
      headroom::detail::fail("keda.fallback.replicas", keda.fallback->replicas, "must be >= 0");
  }
  if (keda.idle_replica_count &&
      (*keda.idle_replica_count < 0 || *keda.idle_replica_count >= config.min_replicas))
    headroom::detail::fail("keda.idle_replica_count", *keda.idle_replica_count,
                           "must be >= 0 and < config.min_replicas (KEDA's rule)");
}

}  // namespace detail

/// Appends a KEDA ScaledObject (keda.sh/v1alpha1) for `workload`: pollingInterval from
/// config.sync_period (whole seconds), cooldownPeriod, min/maxReplicaCount, the behavior under
/// advanced.horizontalPodAutoscalerConfig, and one prometheus trigger per config metric (in
/// config order, with the query of keda's trigger of that name) with metricType
/// AverageValue/Value and threshold = the metric's target. Throws for a Resource/Utilization
/// metric (no Prometheus trigger here), and for a metric without its trigger or a trigger
/// without its metric.
inline void append_scaled_object(std::string& out, const scaled_workload& workload,
                                 const autoscaling::autoscaler_config& config,
                                 const keda_prometheus_options& keda) {
  detail::check_workload(workload);
  detail::check_config(config);
  detail::check_keda(config, keda);
  headroom::detail::append_guard guard(out);  // a refusal while writing takes it all back
  detail::yaml_writer y(out);
  detail::write_omissions(
      y, detail::left_out(config, config.kubernetes, detail::manifest_kind::scaled_object));
  detail::write_notes(y, config, detail::manifest_kind::scaled_object, config.kubernetes);
  detail::write_metadata(y, "keda.sh/v1alpha1", "ScaledObject", workload);
  y.open(0, "spec");
  detail::write_target_ref(y, workload);
  y.integer(2, "pollingInterval",
            std::chrono::duration_cast<std::chrono::seconds>(config.sync_period).count());
  y.integer(2, "cooldownPeriod", keda.cooldown_period.count());
  if (keda.idle_replica_count) y.integer(2, "idleReplicaCount", *keda.idle_replica_count);
  y.integer(2, "minReplicaCount", config.min_replicas);
  y.integer(2, "maxReplicaCount", config.max_replicas);
  if (config.behavior) {
    y.open(2, "advanced");
    y.open(4, "horizontalPodAutoscalerConfig");
    detail::write_behavior(
        y, 6, config,
        detail::tolerance_field(config.kubernetes, detail::manifest_kind::scaled_object));
  }
  if (keda.fallback) {
    y.open(2, "fallback");
    y.integer(4, "failureThreshold", keda.fallback->failure_threshold);
    y.integer(4, "replicas", keda.fallback->replicas);
  }
  y.open(2, "triggers");
  for (const auto& m : config.metrics) {
    const keda_prometheus_trigger& trigger = detail::trigger_for(keda, m);
    y.item(4);
    y.string(6, "type", "prometheus");
    y.string(6, "metricType", to_string(m.target_type));
    y.open(6, "metadata");
    y.string(8, "serverAddress", keda.server_address);
    y.string(8, "query", trigger.query);
    y.string(8, "threshold", detail::target_quantity("config.metrics.target", m.target));
    y.string(8, "activationThreshold", detail::decimal_milli(trigger.activation_threshold));
    if (keda.authentication) {
      y.open(6, "authenticationRef");
      y.string(8, "name", keda.authentication->name);
      y.string(8, "kind", keda.authentication->kind);
    }
  }
  guard.commit();
}

/// What a ScaledObject for `config` leaves out on the cluster config.kubernetes names, and why
/// (the behavior's tolerances, written only for 1.33+ with HPAConfigurableTolerance).
[[nodiscard]] inline std::vector<omission> scaled_object_omissions(
    const autoscaling::autoscaler_config& config) {
  return detail::left_out(config, config.kubernetes, detail::manifest_kind::scaled_object);
}
/// The ScaledObject as a new string (see append_scaled_object()).
[[nodiscard]] inline std::string scaled_object_yaml(const scaled_workload& workload,
                                                    const autoscaling::autoscaler_config& config,
                                                    const keda_prometheus_options& keda) {
  std::string out;
  append_scaled_object(out, workload, config, keda);
  return out;
}

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

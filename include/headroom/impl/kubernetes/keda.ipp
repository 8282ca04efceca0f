// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/kubernetes/keda.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../kubernetes/keda.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL const keda_prometheus_trigger& trigger_for(const keda_prometheus_options& keda,
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

HEADROOM_DECL void check_keda(const autoscaling::autoscaler_config& config,
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
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace kubernetes {

HEADROOM_DECL void append_scaled_object(std::string& out, const scaled_workload& workload,
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

HEADROOM_DECL std::vector<omission> scaled_object_omissions(
    const autoscaling::autoscaler_config& config) {
  return detail::left_out(config, config.kubernetes, detail::manifest_kind::scaled_object);
}

HEADROOM_DECL std::string scaled_object_yaml(const scaled_workload& workload,
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

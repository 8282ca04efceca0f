// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/kubernetes/manifest.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../kubernetes/manifest.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL std::string target_quantity(const char* name, double value) {
  if (!(headroom::detail::is_finite(value) && value > 0.0 && value <= largest_quantity))
    headroom::detail::fail(name, value, "must be finite and > 0");
  const double milli = value * static_cast<double>(autoscaling::milli_per_unit);
  if (std::abs(milli - std::round(milli)) >
          whole_milli_tolerance * std::max(1.0, std::abs(milli)) ||
      std::round(milli) < 1.0)
    headroom::detail::fail(name, value,
                           "must be a whole number of milli-units (round it with "
                           "in_flight_target)");
  return decimal_milli(value);
}

HEADROOM_DECL void check_workload(const scaled_workload& w) {
  if (!is_dns1123_subdomain(w.name))
    headroom::detail::fail("workload.name", w.name,
                           "must be a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')");
  if (!w.namespace_name.empty() && !is_dns1123_label(w.namespace_name))
    headroom::detail::fail("workload.namespace_name", w.namespace_name,
                           "must be empty or a DNS-1123 label (lowercase a-z, 0-9, '-')");
  if (!is_dns1123_subdomain(w.target_name))
    headroom::detail::fail("workload.target_name", w.target_name,
                           "must be a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')");
  if (!is_path_segment_name(w.target_kind) || !headroom::detail::valid_utf8(w.target_kind))
    headroom::detail::fail("workload.target_kind", w.target_kind, "must be a Kubernetes kind");
  if (w.target_api_version.empty() ||
      w.target_api_version.find_first_of(" \t\n:") != std::string::npos ||
      !headroom::detail::valid_utf8(w.target_api_version))
    headroom::detail::fail("workload.target_api_version", w.target_api_version,
                           "must be an apiVersion such as apps/v1");
}

HEADROOM_DECL void check_rules(const autoscaling::scaling_rules& r, const char* window_name) {
  if (r.stabilization_window && r.stabilization_window->count() > max_stabilization_window_s)
    headroom::detail::fail(window_name, *r.stabilization_window,
                           "must be <= 3600 s (HPA stabilizationWindowSeconds)");
  for (const auto& p : r.policies)
    if (p.period.count() > max_policy_period_s)
      headroom::detail::fail("config.behavior.policies.period", p.period,
                             "must be <= 1800 s (HPA periodSeconds)");
}

HEADROOM_DECL void check_config(const autoscaling::autoscaler_config& config) {
  static_cast<void>(autoscaling::autoscaler(config));  // throws invalid_argument naming config.*
  if (!(config.scale_up_tolerance <= largest_tolerance))
    headroom::detail::fail("config.scale_up_tolerance", config.scale_up_tolerance,
                           "must be <= 1e6");
  if (!(config.scale_down_tolerance <= largest_tolerance))
    headroom::detail::fail("config.scale_down_tolerance", config.scale_down_tolerance,
                           "must be <= 1e6");
  if (config.behavior) {
    check_rules(config.behavior->scale_up, "config.behavior.scale_up.stabilization_window");
    check_rules(config.behavior->scale_down, "config.behavior.scale_down.stabilization_window");
  }
}

HEADROOM_DECL void write_metadata(yaml_writer& y, std::string_view api_version,
                                  std::string_view kind, const scaled_workload& w) {
  y.string(0, "apiVersion", api_version);
  y.string(0, "kind", kind);
  y.open(0, "metadata");
  y.string(2, "name", w.name);
  if (!w.namespace_name.empty()) y.string(2, "namespace", w.namespace_name);
}

HEADROOM_DECL void write_target_ref(yaml_writer& y, const scaled_workload& w) {
  y.open(2, "scaleTargetRef");
  y.string(4, "apiVersion", w.target_api_version);
  y.string(4, "kind", w.target_kind);
  y.string(4, "name", w.target_name);
}

HEADROOM_DECL void write_notes(yaml_writer& y, const autoscaling::autoscaler_config& c,
                               manifest_kind kind, const autoscaling::kubernetes_version& cluster) {
  const bool hpa = kind == manifest_kind::horizontal_pod_autoscaler;
  if (hpa && c.min_replicas == 0)
    y.comment("minReplicas 0 needs the HPAScaleToZero feature gate (KEDA does it natively).");
  const bool tolerances = c.scale_up_tolerance != autoscaling::default_tolerance ||
                          c.scale_down_tolerance != autoscaling::default_tolerance;
  if (!hpa && c.behavior && tolerances && !tolerance_field(cluster, kind))
    y.comment(
        "headroom: the tolerances differ from 0.1; KEDA's behavior has no tolerance field in "
        "every release: set it by hand if yours accepts it.");
  if (!c.behavior) {
    if (tolerances)
      y.comment(
          "headroom: the tolerances differ from 0.1; without a behavior Kubernetes takes them "
          "from --horizontal-pod-autoscaler-tolerance.");
    if (c.downscale_stabilization != autoscaling::default_downscale_stabilization)
      y.comment(
          "headroom: downscale_stabilization differs from 300 s; without a behavior Kubernetes "
          "takes it from --horizontal-pod-autoscaler-downscale-stabilization.");
  }
  if (c.reserve_replicas > 0)
    y.comment(
        "headroom: reserve_replicas is not expressible; raise minReplicas or lower the target.");
  if (!c.count_starting_replicas || c.hold_scale_down_while_starting)
    y.comment(
        "headroom: count_starting_replicas / hold_scale_down_while_starting are library-only.");
  if (c.behavior && !c.behavior->scale_down.stabilization_window &&
      c.downscale_stabilization != autoscaling::default_downscale_stabilization)
    y.comment(
        "headroom: behavior.scaleDown.stabilizationWindowSeconds is unset, so Kubernetes takes "
        "it from --horizontal-pod-autoscaler-downscale-stabilization; set the flag to match "
        "downscale_stabilization.");
}

HEADROOM_DECL void write_rules(yaml_writer& y, int indent, const autoscaling::scaling_rules& r,
                               headroom::autoscaling::detail::scale_direction direction,
                               double tolerance, bool tolerance_field, std::int32_t max_replicas) {
  const bool up = direction == headroom::autoscaling::detail::scale_direction::up;
  y.open(indent, up ? "scaleUp" : "scaleDown");
  // An unset window stays unset: the API server and the controller default it (0 s up, the
  // --horizontal-pod-autoscaler-downscale-stabilization flag down).
  if (r.stabilization_window)
    y.integer(indent + 2, "stabilizationWindowSeconds", r.stabilization_window->count());
  y.string(indent + 2, "selectPolicy", to_string(r.select));
  y.open(indent + 2, "policies");
  if (r.policies.empty()) {
    // The library's "unlimited" (the API rejects an empty list), exactly: up, Pods maxReplicas
    // per 1 s allows start + max >= maxReplicas, so only the max clamp binds; down, Percent 100
    // per 1 s allows trunc(start * 0) = 0 <= minReplicas, so only the min clamp binds.
    y.item(indent + 4);
    y.string(indent + 6, "type", up ? "Pods" : "Percent");
    y.integer(indent + 6, "value", up ? max_replicas : whole_fleet_percent);
    y.integer(indent + 6, "periodSeconds", unlimited_policy_period_s);
  }
  for (const auto& p : r.policies) {
    y.item(indent + 4);
    y.string(indent + 6, "type", to_string(p.type));
    y.integer(indent + 6, "value", p.value);
    y.integer(indent + 6, "periodSeconds", p.period.count());
  }
  // spec.behavior.*.tolerance (Kubernetes 1.33+, feature gate HPAConfigurableTolerance).
  if (tolerance_field && tolerance != autoscaling::default_tolerance)
    y.string(indent + 2, "tolerance", decimal_milli(tolerance));
}

HEADROOM_DECL void write_behavior(yaml_writer& y, int indent,
                                  const autoscaling::autoscaler_config& c, bool tolerance_field) {
  if (!c.behavior) return;
  y.open(indent, "behavior");
  write_rules(y, indent + 2, c.behavior->scale_up,
              headroom::autoscaling::detail::scale_direction::up, c.scale_up_tolerance,
              tolerance_field, c.max_replicas);
  write_rules(y, indent + 2, c.behavior->scale_down,
              headroom::autoscaling::detail::scale_direction::down, c.scale_down_tolerance,
              tolerance_field, c.max_replicas);
}

HEADROOM_DECL void check_metric_name(const autoscaling::metric_spec& m) {
  if (!is_path_segment_name(m.name) || !headroom::detail::valid_utf8(m.name))
    headroom::detail::fail("config.metrics.name", m.name,
                           "must be valid UTF-8, non-empty, not '.' or '..', without '/' or '%'");
}

HEADROOM_DECL void write_hpa_target(yaml_writer& y, int indent, const autoscaling::metric_spec& m) {
  y.open(indent, "target");
  y.string(indent + 2, "type", to_string(m.target_type));
  switch (m.target_type) {
    case autoscaling::metric_target_type::utilization:  // a whole int32 percent (the autoscaler
                                                        // checked)
      y.integer(indent + 2, "averageUtilization", static_cast<std::int64_t>(m.target));
      break;
    case autoscaling::metric_target_type::value:
      y.string(indent + 2, "value", target_quantity("config.metrics.target", m.target));
      break;
    case autoscaling::metric_target_type::average_value:
      y.string(indent + 2, "averageValue", target_quantity("config.metrics.target", m.target));
      break;
  }
}

HEADROOM_DECL std::vector<omission> left_out(const autoscaling::autoscaler_config& c,
                                             const autoscaling::kubernetes_version& cluster,
                                             manifest_kind kind) {
  std::vector<omission> out;
  if (cluster.minor == 0) return out;
  const bool hpa = kind == manifest_kind::horizontal_pod_autoscaler;
  if (hpa && c.min_replicas == 0 && !cluster.hpa_scale_to_zero)
    out.push_back({.field = "spec.minReplicas",
                   .reason = "0 needs the HPAScaleToZero feature gate; written as 1 (use KEDA's "
                             "ScaledObject to scale to zero)"});
  const bool tolerance_accepted = cluster.minor >= autoscaling::first_minor_with_tolerance &&
                                  cluster.hpa_configurable_tolerance;
  if (c.behavior && !tolerance_accepted) {
    const std::string prefix =
        hpa ? "spec.behavior." : "spec.advanced.horizontalPodAutoscalerConfig.behavior.";
    const std::string why =
        cluster.minor < autoscaling::first_minor_with_tolerance
            ? "needs Kubernetes 1.33+ (the target is 1." + std::to_string(cluster.minor) + ")"
            : "needs the HPAConfigurableTolerance feature gate";
    if (c.scale_up_tolerance != autoscaling::default_tolerance)
      out.push_back(
          {.field = prefix + "scaleUp.tolerance",
           .reason = why + "; the cluster's --horizontal-pod-autoscaler-tolerance applies"});
    if (c.scale_down_tolerance != autoscaling::default_tolerance)
      out.push_back(
          {.field = prefix + "scaleDown.tolerance",
           .reason = why + "; the cluster's --horizontal-pod-autoscaler-tolerance applies"});
  }
  return out;
}

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/validation.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/validation.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {
namespace detail {

HEADROOM_DECL void validate_rules(const scaling_rules& rules, const char* window_name,
                                  const char* value_name, const char* period_name) {
  if (rules.stabilization_window &&
      (rules.stabilization_window->count() < 0 || *rules.stabilization_window > longest_duration))
    fail(window_name, *rules.stabilization_window, "must lie in [0 s, 366 days]");
  for (const auto& policy : rules.policies) {
    if (policy.value <= 0) fail(value_name, policy.value, "must be > 0");
    if (policy.period.count() <= 0 || policy.period > longest_duration)
      fail(period_name, policy.period, "must lie in (0 s, 366 days]");
  }
}

HEADROOM_DECL void check_quantity_target(const char* name, double target) {
  require_positive(name, target);
  if (quantity_rounding(target) <= quantity_target_tolerance * target) return;
  std::string requirement = "a quantity (whole milli-units, as the HPA reads it) would hold it as ";
  append_value(requirement, to_quantity(target)->value());
  requirement += ", a change of more than 1 %; express the metric in a smaller unit";
  fail(name, target, requirement);
}

HEADROOM_DECL void validate_hpa_config(const autoscaler_config& c) {
  if (c.min_replicas < 0) fail("config.min_replicas", c.min_replicas, "must be >= 0");
  if (c.max_replicas < 1) fail("config.max_replicas", c.max_replicas, "must be >= 1");
  if (c.min_replicas > c.max_replicas)
    fail("config.min_replicas", c.min_replicas, "must be <= config.max_replicas");
  if (c.metrics.empty()) fail("config.metrics", c.metrics.size(), "must name at least one metric");
  bool has_total = false;
  for (const auto& m : c.metrics) {
    require_positive("config.metrics.target", m.target);
    const bool total = m.source == metric_source::object || m.source == metric_source::external;
    const bool resource =
        m.source == metric_source::resource || m.source == metric_source::container_resource;
    has_total = has_total || total;
    if (m.target_type == metric_target_type::utilization) {
      if (!resource)
        fail("config.metrics.target_type", m.name,
             "Utilization is only valid for a Resource or ContainerResource metric");
      if (m.target != std::floor(m.target) || m.target > replicas_max)
        fail("config.metrics.target", m.target,
             "must be a whole percent (averageUtilization is an int32)");
    } else {
      check_quantity_target("config.metrics.target", m.target);
    }
    if (m.target_type == metric_target_type::value && !total)
      fail("config.metrics.target_type", m.name,
           "Value is only valid for an Object or External metric");
  }
  if (c.min_replicas == 0 && !has_total)
    fail("config.min_replicas", c.min_replicas,
         "0 (scale to zero) needs an Object or External metric");
  require_non_negative("config.scale_up_tolerance", c.scale_up_tolerance);
  require_non_negative("config.scale_down_tolerance", c.scale_down_tolerance);
  if (c.downscale_stabilization.count() < 0 || c.downscale_stabilization > longest_duration)
    fail("config.downscale_stabilization", c.downscale_stabilization,
         "must lie in [0 s, 366 days]");
  if (c.sync_period.count() <= 0 || c.sync_period > longest_duration)
    fail("config.sync_period", c.sync_period, "must lie in (0 s, 366 days]");
  if (c.reserve_replicas < 0) fail("config.reserve_replicas", c.reserve_replicas, "must be >= 0");
  if (c.kubernetes.minor < 0 || c.kubernetes.minor > 1000)
    fail("config.kubernetes.minor", c.kubernetes.minor, "must lie in [0, 1000] (0: none named)");
  if (c.behavior) {
    validate_rules(c.behavior->scale_up, "config.behavior.scale_up.stabilization_window",
                   "config.behavior.scale_up.policies.value",
                   "config.behavior.scale_up.policies.period");
    validate_rules(c.behavior->scale_down, "config.behavior.scale_down.stabilization_window",
                   "config.behavior.scale_down.policies.value",
                   "config.behavior.scale_down.policies.period");
  }
}

HEADROOM_DECL void validate_kpa_config(const kpa_config& k) {
  if (k.total_per_replica) require_positive("kpa.total_per_replica", *k.total_per_replica);
  require_unit_positive("kpa.target_utilization", k.target_utilization);
  if (!(is_finite(k.max_scale_up_rate) && k.max_scale_up_rate > 1.0))
    fail("kpa.max_scale_up_rate", k.max_scale_up_rate, "must be finite and > 1");
  if (!(is_finite(k.max_scale_down_rate) && k.max_scale_down_rate > 1.0))
    fail("kpa.max_scale_down_rate", k.max_scale_down_rate, "must be finite and > 1");
  require_positive("kpa.panic_threshold", k.panic_threshold);
  if (k.stable_window < knative_window_min || k.stable_window > knative_window_max)
    fail("kpa.stable_window", k.stable_window, "must lie in [6 s, 1 h]");
  if (k.scale_down_delay.count() < 0 || k.scale_down_delay > knative_window_max)
    fail("kpa.scale_down_delay", k.scale_down_delay, "must lie in [0 s, 1 h]");
  if (k.activation_scale < 0) fail("kpa.activation_scale", k.activation_scale, "must be >= 0");
  if (!(is_finite(k.target_burst_capacity) &&
        (k.target_burst_capacity >= 0.0 ||
         k.target_burst_capacity == knative_unlimited_burst_capacity)))
    fail("kpa.target_burst_capacity", k.target_burst_capacity, "must be >= 0, or -1 for unlimited");
  if (k.min_scale < 0) fail("kpa.min_scale", k.min_scale, "must be >= 0");
  if (k.max_scale < 0) fail("kpa.max_scale", k.max_scale, "must be >= 0 (0 = unbounded)");
  if (k.max_scale > 0 && k.min_scale > k.max_scale)
    fail("kpa.min_scale", k.min_scale, "must be <= kpa.max_scale");
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

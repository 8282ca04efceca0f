// SPDX-License-Identifier: Apache-2.0
// What the HPA and KEDA writers (kubernetes/hpa.hpp, kubernetes/keda.hpp) share: the workload a
// manifest scales, the cluster it is written for (Kubernetes minor version and feature gates)
// and the fields that cluster would reject (omission), the checks of a configuration, and the
// YAML of metadata, scaleTargetRef, behavior and the library-only notes. docs/integrations.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../autoscaler.hpp"
#include "../detail/checks.hpp"
#include "../detail/utf8.hpp"
#include "../error.hpp"
#include "target.hpp"
#include "yaml.hpp"

namespace headroom {
inline namespace v0 {
namespace kubernetes {

// ---- manifests ------------------------------------------------------------------------------

/// What a manifest scales and what it is called (metadata and scaleTargetRef).
struct scaled_workload {
  std::string name{};            ///< metadata.name of the HPA / ScaledObject; DNS-1123 subdomain
  std::string namespace_name{};  ///< metadata.namespace; DNS-1123 label; empty = omitted
  std::string target_name{};     ///< scaleTargetRef.name (the Deployment); DNS-1123 subdomain
  std::string target_kind = "Deployment";      ///< scaleTargetRef.kind
  std::string target_api_version = "apps/v1";  ///< scaleTargetRef.apiVersion
};

/// The cluster a manifest is written for is the configuration's own: autoscaler_config::
/// kubernetes (autoscaler/config.hpp's kubernetes_version), the release and feature gates the
/// controller follows too. minor 0 (the default): no release named, every field is written
/// (tolerance, minReplicas 0) and nothing is left out.

/// A setting a writer left out because the target cluster would reject it, and why.
struct omission {
  std::string field{};   ///< the manifest field ("spec.minReplicas", ...)
  std::string reason{};  ///< why, and what was written instead
  friend bool operator==(const omission&, const omission&) = default;
};
namespace detail {

/// The HPA API's caps (pkg/apis/autoscaling/validation): stabilizationWindowSeconds and
/// periodSeconds.
inline constexpr std::int64_t max_stabilization_window_s = 3600;
inline constexpr std::int64_t max_policy_period_s = 1800;

/// A target or threshold as a quantity string: finite, > 0 and a whole number of milli-units
/// (the HPA compares milli-units; KEDA truncates its threshold to them).
[[nodiscard]] HEADROOM_DECL std::string target_quantity(const char* name, double value);

HEADROOM_DECL void check_workload(const scaled_workload& w);

HEADROOM_DECL void check_rules(const autoscaling::scaling_rules& r, const char* window_name);

/// Validates config as the autoscaler does, plus the API's caps on windows and periods.
HEADROOM_DECL void check_config(const autoscaling::autoscaler_config& config);

HEADROOM_DECL void write_metadata(yaml_writer& y, std::string_view api_version,
                                  std::string_view kind, const scaled_workload& w);

HEADROOM_DECL void write_target_ref(yaml_writer& y, const scaled_workload& w);

/// Which manifest a writer writes: the behavior's tolerance field and some notes differ.
enum class manifest_kind : std::uint8_t { horizontal_pod_autoscaler, scaled_object };

/// Whether the behavior carries its tolerance fields.
[[nodiscard]] constexpr bool tolerance_field(const autoscaling::kubernetes_version& cluster,
                                             manifest_kind kind) noexcept {
  if (cluster.minor == 0) return kind == manifest_kind::horizontal_pod_autoscaler;
  return cluster.minor >= autoscaling::first_minor_with_tolerance &&
         cluster.hpa_configurable_tolerance;
}

/// Comments for library settings that no manifest field carries (on `cluster`, which decides
/// whether the behavior's tolerance fields are written).
HEADROOM_DECL void write_notes(yaml_writer& y, const autoscaling::autoscaler_config& c,
                               manifest_kind kind, const autoscaling::kubernetes_version& cluster);

/// The "unlimited" policy written for an empty policy list: each period is the shortest the
/// API accepts; down, a Percent policy of the whole fleet.
inline constexpr std::int64_t unlimited_policy_period_s = 1;
inline constexpr std::int64_t whole_fleet_percent = 100;

/// One direction's HPAScalingRules; its tolerance only in an HPA, and only when it is not
/// the default.
HEADROOM_DECL void write_rules(yaml_writer& y, int indent, const autoscaling::scaling_rules& r,
                               headroom::autoscaling::detail::scale_direction direction,
                               double tolerance, bool tolerance_field, std::int32_t max_replicas);

/// spec.behavior (an HPA) or advanced.horizontalPodAutoscalerConfig.behavior (KEDA).
HEADROOM_DECL void write_behavior(yaml_writer& y, int indent,
                                  const autoscaling::autoscaler_config& c, bool tolerance_field);

HEADROOM_DECL void check_metric_name(const autoscaling::metric_spec& m);

HEADROOM_DECL void write_hpa_target(yaml_writer& y, int indent, const autoscaling::metric_spec& m);

}  // namespace detail

namespace detail {

/// What `cluster` would reject of config in a manifest of this kind: the fields left out
/// and why. Nothing when cluster.minor is 0 (no version given).
[[nodiscard]] HEADROOM_DECL std::vector<omission> left_out(
    const autoscaling::autoscaler_config& c, const autoscaling::kubernetes_version& cluster,
    manifest_kind kind);

inline void write_omissions(yaml_writer& y, const std::vector<omission>& left) {
  for (const omission& o : left) y.comment("headroom: left out " + o.field + ": " + o.reason + ".");
}
}  // namespace detail

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/kubernetes/manifest.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

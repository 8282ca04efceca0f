// SPDX-License-Identifier: Apache-2.0
// YAML for an autoscaling/v2 HorizontalPodAutoscaler whose min/max replicas, metrics and
// behavior are those of a headroom::autoscaling::autoscaler_config, written for the cluster its
// `kubernetes` names (what it would reject is left out and reported), with the described object of
// each Object metric. Source: kubernetes/kubernetes pkg/apis/autoscaling (types and validation).
// docs/integrations.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <string>
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

/// What an HPA Object metric describes: the object (spec.metrics[].object.describedObject)
/// whose metric config.metrics' entry of that name reads.
struct described_object {
  std::string metric_name{};       ///< the config.metrics entry (source object), by name
  std::string kind{};              ///< describedObject.kind, e.g. "Service"
  std::string name{};              ///< describedObject.name; DNS-1123 subdomain
  std::string api_version = "v1";  ///< describedObject.apiVersion
};

/// HPA options beyond the configuration (whose `kubernetes` names the target cluster): the
/// described object of each Object metric.
struct hpa_options {
  std::vector<described_object> objects{};  ///< one per Object metric, by metric name
};
namespace detail {

/// The described object of Object metric m, or throws.
[[nodiscard]] HEADROOM_DECL const described_object& object_for(const hpa_options& options,
                                                               const autoscaling::metric_spec& m);

}  // namespace detail

/// What an HPA for `config` leaves out on the cluster config.kubernetes names, and why (see
/// append_horizontal_pod_autoscaler).
[[nodiscard]] HEADROOM_DECL std::vector<omission> hpa_omissions(
    const autoscaling::autoscaler_config& config);

/// Appends an autoscaling/v2 HorizontalPodAutoscaler for `workload` with `config`'s
/// minReplicas, maxReplicas, metrics (Resource, Pods, External, and Object with its
/// described object from options.objects) and behavior (omitted when config.behavior is
/// nullopt), writing only what config.kubernetes accepts: the fields left out are returned and
/// written as comments (minReplicas 0 without HPAScaleToZero is written as 1; the tolerances
/// need 1.33+ and HPAConfigurableTolerance). Pods/External/Object metric names must be served
/// by a metrics adapter (docs/integrations.md).
HEADROOM_DECL std::vector<omission> append_horizontal_pod_autoscaler(
    std::string& out, const scaled_workload& workload, const autoscaling::autoscaler_config& config,
    const hpa_options& options);

/// Appends an HPA as append_horizontal_pod_autoscaler(out, workload, config, options) with
/// no Object metric (one throws); what config.kubernetes rejects is left out, as there.
HEADROOM_DECL void append_horizontal_pod_autoscaler(std::string& out,
                                                    const scaled_workload& workload,
                                                    const autoscaling::autoscaler_config& config);

/// The HorizontalPodAutoscaler as a new string (see append_horizontal_pod_autoscaler()).
[[nodiscard]] HEADROOM_DECL std::string horizontal_pod_autoscaler_yaml(
    const scaled_workload& workload, const autoscaling::autoscaler_config& config);

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/kubernetes/hpa.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

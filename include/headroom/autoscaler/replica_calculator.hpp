// SPDX-License-Identifier: Apache-2.0
// One metric's observation to a replica count (internal), as the Kubernetes HPA's replica
// calculator computes it (pkg/controller/podautoscaler/replica_calculator.go, with
// metrics/utilization.go): the usage ratio to the target, the tolerance band, groupPods'
// missing and unready pods on a scale-up or a scale-down, and the library's reserve.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>

#include "arithmetic.hpp"
#include "config.hpp"
#include "decision.hpp"
#include "inputs.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail
namespace detail {

/// What one metric asks for: a replica count, or nothing (a failed metric).
struct proposal {
  std::int32_t replicas = 0;  // the count it asks for, when valid
  bool valid = false;         // false: the metric failed (missing, no pods, no samples)
  bool in_band = false;       // held at the current count (tolerance or direction flip)
};

/// The tolerance band around a usage ratio of 1.
struct tolerances {
  double up = 0.0;
  double down = 0.0;
  // replica_calculator.go Tolerances.isWithin: 1 - down <= ratio <= 1 + up (inclusive).
  [[nodiscard]] constexpr bool within(double ratio) const noexcept {
    return (1.0 - down) <= ratio && ratio <= (1.0 + up);
  }
};

/// One metric of the configuration, resolved once by the controller's constructor.
struct resolved_metric {
  metric_source source = metric_source::external;
  metric_target_type target_type = metric_target_type::average_value;
  std::int64_t target_milli = 0;    // Value / AverageValue: target.*.MilliValue()
  std::int32_t target_percent = 0;  // Utilization: averageUtilization
  bool cpu = false;                 // Resource/ContainerResource "cpu": groupPods' CPU rule
  hpa_reason failure = hpa_reason::failed_get_external_metric;
};

/// True for the sources read as one value (Object, External) rather than per pod.
[[nodiscard]] constexpr bool is_total_source(metric_source source) noexcept {
  return source == metric_source::object || source == metric_source::external;
}

/// The condition reason upstream writes when a metric of this source fails.
[[nodiscard]] constexpr hpa_reason failure_reason(metric_source source) noexcept {
  switch (source) {
    case metric_source::resource:
      return hpa_reason::failed_get_resource_metric;
    case metric_source::container_resource:
      return hpa_reason::failed_get_container_resource_metric;
    case metric_source::pods:
      return hpa_reason::failed_get_pods_metric;
    case metric_source::object:
      return hpa_reason::failed_get_object_metric;
    case metric_source::external:
      break;
  }
  return hpa_reason::failed_get_external_metric;
}

/// A validated metric_spec, resolved: its target as milli-units or a whole percent.
[[nodiscard]] HEADROOM_DECL resolved_metric resolve_metric(const metric_spec& m);

/// A proposal held at `replicas` by the tolerance band (or a direction flip).
[[nodiscard]] constexpr proposal hold_at(std::int32_t replicas) noexcept {
  return {.replicas = replicas, .valid = true, .in_band = true};
}

/// A proposal of `replicas` outside the band.
[[nodiscard]] constexpr proposal ask_for(std::int32_t replicas) noexcept {
  return {.replicas = replicas, .valid = true, .in_band = false};
}

/// replicas + reserve, saturating at the int32 range.
[[nodiscard]] constexpr std::int32_t plus_reserve(std::int32_t replicas,
                                                  std::int32_t reserve) noexcept {
  return saturate(std::int64_t{replicas} + reserve);
}

// Object/External. Value (GetObjectMetricReplicas, GetExternalMetricReplicas ->
// getUsageRatioReplicaCount): r = usage / target; from a non-zero count, the band keeps it,
// else ceil(r x ready pods); from zero, ceil(r) with no band. AverageValue
// (GetObjectPerPodMetricReplicas, GetExternalPerPodMetricReplicas): the band is tested on
// usage / (target x status.replicas) and keeps status.replicas, else ceil(usage / target).
// With a reserve k, the counts are taken net of k and k is added back.
[[nodiscard]] HEADROOM_IMPL_INLINE proposal propose_total(const resolved_metric& m,
                                                          const std::optional<quantity>& value,
                                                          const replica_counts& n,
                                                          std::int32_t current, tolerances tol,
                                                          std::int32_t reserve) noexcept;

// Resource/ContainerResource/Pods: groupPods sorts the pods; the ratio is over the ready
// pods with a sample (Utilization: int32(sum usage x 100 / sum request) / target, in
// metrics/utilization.go GetResourceUtilizationRatio; plain: (sum / count) / target, in
// GetMetricUsageRatio). Missing pods count as the fallback on a scale-down (Utilization:
// request x max(100, target) / 100; plain: the target) and 0 on a scale-up, and nothing at a
// ratio of exactly 1 (calcPlainMetricReplicas / GetResourceReplicas); unready pods count as
// 0 on a scale-up only.
[[nodiscard]] HEADROOM_IMPL_INLINE proposal propose_per_pod(const resolved_metric& m,
                                                            std::span<const pod_sample> pods,
                                                            std::int32_t current, tolerances tol,
                                                            std::int32_t reserve) noexcept;

/// One metric's proposal from its observation: per pod, or one value (Object/External).
[[nodiscard]] HEADROOM_IMPL_INLINE proposal propose(const resolved_metric& m,
                                                    const metric_observation& o,
                                                    const replica_counts& n, std::int32_t current,
                                                    tolerances tol, std::int32_t reserve) noexcept;

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/replica_calculator.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

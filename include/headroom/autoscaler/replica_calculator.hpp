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
[[nodiscard]] inline resolved_metric resolve_metric(const metric_spec& m) {
  const bool resource =
      m.source == metric_source::resource || m.source == metric_source::container_resource;
  resolved_metric r{.source = m.source,
                    .target_type = m.target_type,
                    .cpu = resource && m.name == "cpu",
                    .failure = failure_reason(m.source)};
  if (m.target_type == metric_target_type::utilization)
    r.target_percent = static_cast<std::int32_t>(m.target);
  else
    r.target_milli = to_quantity(m.target)->milli;
  return r;
}

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
[[nodiscard]] inline proposal propose_total(const resolved_metric& m,
                                            const std::optional<quantity>& value,
                                            const replica_counts& n, std::int32_t current,
                                            tolerances tol, std::int32_t reserve) noexcept {
  if (!value) return {};
  const std::int32_t k = reserve;
  const double usage = static_cast<double>(value->milli);
  const double target = static_cast<double>(m.target_milli);
  if (m.target_type == metric_target_type::value) {
    const double ratio = usage / target;
    if (current - k > 0) {
      if (tol.within(ratio)) return hold_at(current);
      if (n.status == 0) return {};  // getReadyPodsCount: "no pods returned by selector"
      const double replicas = ratio * static_cast<double>(std::max(0, n.ready - k));
      if (replicas > static_cast<double>(replicas_max))
        return ask_for(plus_reserve(replicas_max, reserve));
      return ask_for(plus_reserve(to_int32(std::ceil(replicas)), reserve));
    }
    return ask_for(plus_reserve(to_int32(std::ceil(ratio)), reserve));
  }
  const std::int32_t status_net = std::max(0, n.status - k);
  const double ratio = usage / (target * static_cast<double>(status_net));
  if (tol.within(ratio)) return hold_at(plus_reserve(status_net, reserve));
  const double replicas = std::ceil(usage / target);
  if (replicas > static_cast<double>(replicas_max))
    return ask_for(plus_reserve(replicas_max, reserve));
  return ask_for(plus_reserve(to_int32(replicas), reserve));
}

// Resource/ContainerResource/Pods: groupPods sorts the pods; the ratio is over the ready
// pods with a sample (Utilization: int32(sum usage x 100 / sum request) / target, in
// metrics/utilization.go GetResourceUtilizationRatio; plain: (sum / count) / target, in
// GetMetricUsageRatio). Missing pods count as the fallback on a scale-down (Utilization:
// request x max(100, target) / 100; plain: the target) and 0 on a scale-up, and nothing at a
// ratio of exactly 1 (calcPlainMetricReplicas / GetResourceReplicas); unready pods count as
// 0 on a scale-up only.
[[nodiscard]] inline proposal propose_per_pod(const resolved_metric& m,
                                              std::span<const pod_sample> pods,
                                              std::int32_t current, tolerances tol,
                                              std::int32_t reserve) noexcept {
  if (pods.empty()) return {};  // "no pods returned by selector"
  const bool utilization = m.target_type == metric_target_type::utilization;
  const std::int64_t fallback_percent = std::max<std::int64_t>(percent, m.target_percent);
  std::int64_t sum = 0, requests = 0, ready = 0;
  std::int64_t missing = 0, missing_requests = 0, missing_fallback = 0;
  std::int64_t unready = 0, unready_requests = 0;
  for (const auto& p : pods) {
    const std::int64_t request = p.request.milli;
    if (p.status == pod_status::terminated) continue;  // ignoredPods
    if (p.status == pod_status::pending) {             // unreadyPods
      ++unready;
      unready_requests = add_saturated(unready_requests, request);
      continue;
    }
    if (!p.value) {  // missingPods
      ++missing;
      missing_requests = add_saturated(missing_requests, request);
      missing_fallback =
          add_saturated(missing_fallback, mul_saturated(request, fallback_percent) / percent);
      continue;
    }
    if (m.cpu && p.status == pod_status::cpu_unready) {
      ++unready;
      unready_requests = add_saturated(unready_requests, request);
      continue;
    }
    ++ready;
    sum = add_saturated(sum, p.value->milli);
    requests = add_saturated(requests, request);
  }
  if (ready == 0) return {};                    // "did not receive metrics for targeted pods"
  if (utilization && requests == 0) return {};  // "no metrics returned matched known pods"
  const auto ratio_of = [&](std::int64_t s, std::int64_t r, std::int64_t count) noexcept {
    if (utilization) {
      const std::int64_t used = saturate(mul_saturated(s, percent) / r);
      return static_cast<double>(used) / static_cast<double>(m.target_percent);
    }
    return static_cast<double>(s / count) / static_cast<double>(m.target_milli);
  };
  const double ratio = ratio_of(sum, requests, ready);
  const bool up_with_unready = unready > 0 && ratio > 1.0;
  if (!up_with_unready && missing == 0) {
    if (tol.within(ratio)) return hold_at(current);
    return ask_for(plus_reserve(to_int32(std::ceil(ratio * static_cast<double>(ready))), reserve));
  }
  std::int64_t sum2 = sum, requests2 = requests, count2 = ready;
  if (missing > 0 && ratio != 1.0) {
    if (ratio < 1.0)
      sum2 = add_saturated(sum2,
                           utilization ? missing_fallback : mul_saturated(missing, m.target_milli));
    requests2 = add_saturated(requests2, missing_requests);
    count2 += missing;
  }
  if (up_with_unready) {
    requests2 = add_saturated(requests2, unready_requests);
    count2 += unready;
  }
  const double new_ratio = ratio_of(sum2, requests2, count2);
  if (tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0))
    return hold_at(current);
  const std::int32_t replicas = to_int32(std::ceil(new_ratio * static_cast<double>(count2)));
  if ((new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current))
    return hold_at(current);
  return ask_for(plus_reserve(replicas, reserve));
}

/// One metric's proposal from its observation: per pod, or one value (Object/External).
[[nodiscard]] inline proposal propose(const resolved_metric& m, const metric_observation& o,
                                      const replica_counts& n, std::int32_t current, tolerances tol,
                                      std::int32_t reserve) noexcept {
  switch (m.source) {
    case metric_source::object:
    case metric_source::external:
      return propose_total(m, o.value, n, current, tol, reserve);
    case metric_source::resource:
    case metric_source::container_resource:
    case metric_source::pods:
      break;
  }
  return propose_per_pod(m, o.pods, current, tol, reserve);
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

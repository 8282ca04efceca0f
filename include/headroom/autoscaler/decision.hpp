// SPDX-License-Identifier: Apache-2.0
// What one autoscaler step decides and why: the replica count, the library's one-word reason,
// and the HPA's status conditions with upstream's reasons (pkg/controller/podautoscaler
// horizontal.go), as `kubectl describe hpa` shows them. docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

/// Why the controller decided what it decided (one summary; the HPA's own condition reasons
/// are in autoscaler_decision::conditions).
enum class scale_reason : std::uint8_t {
  desired_within_range,   ///< the metric recommendation applied as is
  within_tolerance,       ///< metrics inside the tolerance band: current kept
  scale_up_stabilized,    ///< held below the recommendation by the up window
  scale_down_stabilized,  ///< held above the recommendation by the down window (or KPA delay)
  scale_up_limited,       ///< capped by the scale-up rate (policies or max(2n, 4))
  scale_down_limited,     ///< capped by the scale-down rate policies
  too_many_replicas,      ///< capped at max_replicas
  too_few_replicas,       ///< raised to min_replicas
  above_max_replicas,     ///< current > max: set to max without reading metrics
  below_min_replicas,     ///< current < min: set to min without reading metrics
  scaling_disabled,       ///< current == 0 and not scaled to zero by the HPA: nothing happens
  metric_missing,         ///< a metric failed and the rest ask for less (or all failed): hold
  panic,                  ///< KPA panic mode: never scale down, keep the panic maximum
  forecast,               ///< the forecast set the recommendation
  waiting_for_starting,   ///< scale-down held while replicas are on their way
};

/// A stable, log-friendly name for the reason ("ScaleUpLimit", "WithinTolerance", ...).
[[nodiscard]] constexpr std::string_view to_string(scale_reason reason) noexcept {
  switch (reason) {
    case scale_reason::desired_within_range:
      return "DesiredWithinRange";
    case scale_reason::within_tolerance:
      return "WithinTolerance";
    case scale_reason::scale_up_stabilized:
      return "ScaleUpStabilized";
    case scale_reason::scale_down_stabilized:
      return "ScaleDownStabilized";
    case scale_reason::scale_up_limited:
      return "ScaleUpLimit";
    case scale_reason::scale_down_limited:
      return "ScaleDownLimit";
    case scale_reason::too_many_replicas:
      return "TooManyReplicas";
    case scale_reason::too_few_replicas:
      return "TooFewReplicas";
    case scale_reason::above_max_replicas:
      return "AboveMaxReplicas";
    case scale_reason::below_min_replicas:
      return "BelowMinReplicas";
    case scale_reason::scaling_disabled:
      return "ScalingDisabled";
    case scale_reason::metric_missing:
      return "MetricMissing";
    case scale_reason::panic:
      return "Panic";
    case scale_reason::forecast:
      return "Forecast";
    case scale_reason::waiting_for_starting:
      return "WaitingForStartingReplicas";
  }
  return "Unknown";
}

/// Every scale_reason in declaration order, for code (and tests) that iterate the reasons.
inline constexpr std::array all_scale_reasons{
    scale_reason::desired_within_range,
    scale_reason::within_tolerance,
    scale_reason::scale_up_stabilized,
    scale_reason::scale_down_stabilized,
    scale_reason::scale_up_limited,
    scale_reason::scale_down_limited,
    scale_reason::too_many_replicas,
    scale_reason::too_few_replicas,
    scale_reason::above_max_replicas,
    scale_reason::below_min_replicas,
    scale_reason::scaling_disabled,
    scale_reason::metric_missing,
    scale_reason::panic,
    scale_reason::forecast,
    scale_reason::waiting_for_starting,
};

namespace detail {
/// True when `all` holds the enumerators 0, 1, ..., N − 1 in order, each named, and the value
/// N has no name (`unknown`). to_string's switch has no default, so -Wswitch makes every new
/// enumerator a case there, and this check then fails until the list holds it too.
template <class Enum, std::size_t N>
constexpr bool lists_every_enumerator(const std::array<Enum, N>& all, std::string_view unknown) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(all[i]) != i || to_string(all[i]) == unknown) return false;
  return to_string(static_cast<Enum>(N)) == unknown;
}
}  // namespace detail

static_assert(detail::lists_every_enumerator(all_scale_reasons, "Unknown"),
              "all_scale_reasons must list every scale_reason, in declaration order");

/// The status of one HPA condition after a sync; `unset` = this sync did not set it (the
/// HPA keeps the previous value).
enum class condition_status : std::uint8_t { unset, is_true, is_false };

/// The Kubernetes spelling: "True", "False" ("" when unset).
[[nodiscard]] constexpr std::string_view to_string(condition_status status) noexcept {
  switch (status) {
    case condition_status::is_true:
      return "True";
    case condition_status::is_false:
      return "False";
    case condition_status::unset:
      return "";
  }
  return "";
}

/// The reasons the HPA controller writes on its status conditions (horizontal.go), as
/// `kubectl describe hpa` shows them.
enum class hpa_reason : std::uint8_t {
  none,                                  ///< not set this sync
  succeeded_get_scale,                   ///< AbleToScale: SucceededGetScale
  succeeded_rescale,                     ///< AbleToScale: SucceededRescale
  ready_for_new_scale,                   ///< AbleToScale: ReadyForNewScale
  scale_up_stabilized,                   ///< AbleToScale: ScaleUpStabilized
  scale_down_stabilized,                 ///< AbleToScale: ScaleDownStabilized
  valid_metric_found,                    ///< ScalingActive: ValidMetricFound
  scaling_disabled,                      ///< ScalingActive: ScalingDisabled
  failed_get_resource_metric,            ///< ScalingActive: FailedGetResourceMetric
  failed_get_container_resource_metric,  ///< ScalingActive: FailedGetContainerResourceMetric
  failed_get_pods_metric,                ///< ScalingActive: FailedGetPodsMetric
  failed_get_object_metric,              ///< ScalingActive: FailedGetObjectMetric
  failed_get_external_metric,            ///< ScalingActive: FailedGetExternalMetric
  desired_within_range,                  ///< ScalingLimited: DesiredWithinRange
  scale_up_limit,                        ///< ScalingLimited: ScaleUpLimit
  scale_down_limit,                      ///< ScalingLimited: ScaleDownLimit
  too_many_replicas,                     ///< ScalingLimited: TooManyReplicas
  too_few_replicas,                      ///< ScalingLimited: TooFewReplicas
  scaled_to_zero,                        ///< ScaledToZero: ScaledToZero
  not_scaled_to_zero,                    ///< ScaledToZero: NotScaledToZero
};

/// Upstream's spelling ("DesiredWithinRange", "FailedGetPodsMetric", ...; "" for none;
/// "Unknown" for a value that is no enumerator).
[[nodiscard]] constexpr std::string_view to_string(hpa_reason reason) noexcept {
  switch (reason) {
    case hpa_reason::none:
      return "";
    case hpa_reason::succeeded_get_scale:
      return "SucceededGetScale";
    case hpa_reason::succeeded_rescale:
      return "SucceededRescale";
    case hpa_reason::ready_for_new_scale:
      return "ReadyForNewScale";
    case hpa_reason::scale_up_stabilized:
      return "ScaleUpStabilized";
    case hpa_reason::scale_down_stabilized:
      return "ScaleDownStabilized";
    case hpa_reason::valid_metric_found:
      return "ValidMetricFound";
    case hpa_reason::scaling_disabled:
      return "ScalingDisabled";
    case hpa_reason::failed_get_resource_metric:
      return "FailedGetResourceMetric";
    case hpa_reason::failed_get_container_resource_metric:
      return "FailedGetContainerResourceMetric";
    case hpa_reason::failed_get_pods_metric:
      return "FailedGetPodsMetric";
    case hpa_reason::failed_get_object_metric:
      return "FailedGetObjectMetric";
    case hpa_reason::failed_get_external_metric:
      return "FailedGetExternalMetric";
    case hpa_reason::desired_within_range:
      return "DesiredWithinRange";
    case hpa_reason::scale_up_limit:
      return "ScaleUpLimit";
    case hpa_reason::scale_down_limit:
      return "ScaleDownLimit";
    case hpa_reason::too_many_replicas:
      return "TooManyReplicas";
    case hpa_reason::too_few_replicas:
      return "TooFewReplicas";
    case hpa_reason::scaled_to_zero:
      return "ScaledToZero";
    case hpa_reason::not_scaled_to_zero:
      return "NotScaledToZero";
  }
  return "Unknown";
}

/// Every hpa_reason in declaration order (none first), for code that iterates the reasons.
inline constexpr std::array all_hpa_reasons{
    hpa_reason::none,
    hpa_reason::succeeded_get_scale,
    hpa_reason::succeeded_rescale,
    hpa_reason::ready_for_new_scale,
    hpa_reason::scale_up_stabilized,
    hpa_reason::scale_down_stabilized,
    hpa_reason::valid_metric_found,
    hpa_reason::scaling_disabled,
    hpa_reason::failed_get_resource_metric,
    hpa_reason::failed_get_container_resource_metric,
    hpa_reason::failed_get_pods_metric,
    hpa_reason::failed_get_object_metric,
    hpa_reason::failed_get_external_metric,
    hpa_reason::desired_within_range,
    hpa_reason::scale_up_limit,
    hpa_reason::scale_down_limit,
    hpa_reason::too_many_replicas,
    hpa_reason::too_few_replicas,
    hpa_reason::scaled_to_zero,
    hpa_reason::not_scaled_to_zero,
};
static_assert(detail::lists_every_enumerator(all_hpa_reasons, "Unknown"),
              "all_hpa_reasons must list every hpa_reason, in declaration order");

/// One HPA status condition as a sync leaves it.
struct hpa_condition {
  condition_status status = condition_status::unset;  ///< True / False / not set this sync
  hpa_reason reason = hpa_reason::none;               ///< upstream's reason
  friend constexpr bool operator==(const hpa_condition&, const hpa_condition&) = default;
};

/// The HPA's status conditions after a sync (horizontal.go setCondition calls), to compare
/// with `kubectl describe hpa`. All unset for the KPA.
struct hpa_conditions {
  hpa_condition able_to_scale{};    ///< AbleToScale
  hpa_condition scaling_active{};   ///< ScalingActive
  hpa_condition scaling_limited{};  ///< ScalingLimited
  hpa_condition scaled_to_zero{};   ///< ScaledToZero (set on every rescale)
  friend constexpr bool operator==(const hpa_conditions&, const hpa_conditions&) = default;
};

/// One step's outcome. desired_replicas is the count to set (HPA spec.replicas);
/// delta() is what a hand-written controller starts (> 0) or stops (< 0).
struct autoscaler_decision {
  std::int32_t desired_replicas = 0;  ///< the replica count to set
  std::int32_t current_replicas = 0;  ///< the current count as the controller counted it
  /// Metric-based recommendation (max over metrics and forecast, plus reserve; the KPA's
  /// desired count before the delay window and bounds); -1 when metrics were not used.
  std::int32_t raw_recommendation = -1;
  /// After the stabilization windows (KPA: the delay window), before the rate limits and
  /// bounds; -1 when not computed.
  std::int32_t stabilized_recommendation = -1;
  scale_reason reason = scale_reason::desired_within_range;  ///< why (library summary)
  hpa_conditions conditions{};            ///< the HPA's status conditions after this sync
  std::int32_t metric_index = -1;         ///< metric that set the raw recommendation, or -1
  std::int32_t failed_metrics = 0;        ///< metrics missing or failed this step
  std::int32_t first_failed_metric = -1;  ///< index of the first of them, or -1
  bool panicking = false;                 ///< KPA panic mode active after this step
  /// KPA: excess burst capacity, floor(ready x total - target burst capacity - panic value)
  /// (0 with a target burst capacity of 0, -1 when unlimited); 0 for the HPA.
  std::int32_t excess_burst_capacity = 0;
  /// desired - current: replicas to start (> 0) or to stop (< 0).
  [[nodiscard]] constexpr std::int32_t delta() const noexcept {
    return desired_replicas - current_replicas;
  }
  /// true when the count changes.
  [[nodiscard]] constexpr bool rescale() const noexcept {
    return desired_replicas != current_replicas;
  }
};

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The autoscaler's configuration: the Kubernetes HorizontalPodAutoscaler's (autoscaling/v2
// spec.minReplicas, spec.maxReplicas, spec.metrics[], spec.behavior, the controller-manager
// flags it reads, and the library's extensions) and the Knative KPA's (knative/serving
// pkg/autoscaler/config), each with upstream's defaults, and the Kubernetes spellings of
// the configuration's enums. docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/checks.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// The autoscaler: Kubernetes' HPA and Knative's KPA as a const controller over a state the
/// caller owns (docs/autoscaler.md).
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

// ---- the Kubernetes HPA (autoscaling/v2 and the controller-manager flags) ---------------

/// Where a metric comes from, as in HPA autoscaling/v2 `metrics[].type`. Resource,
/// ContainerResource and Pods read one sample per pod; Object and External one value.
enum class metric_source : std::uint8_t { resource, container_resource, pods, object, external };

/// The Kubernetes spelling: "Resource", "ContainerResource", "Pods", "Object", "External".
[[nodiscard]] constexpr std::string_view to_string(metric_source source) noexcept {
  switch (source) {
    case metric_source::resource:
      return "Resource";
    case metric_source::container_resource:
      return "ContainerResource";
    case metric_source::pods:
      return "Pods";
    case metric_source::object:
      return "Object";
    case metric_source::external:
      return "External";
  }
  return "Unknown";
}

/// The kind of target, as in HPA `target.type`: Utilization (percent of the request,
/// Resource/ContainerResource only), Value (Object/External only) or AverageValue (per pod).
enum class metric_target_type : std::uint8_t { utilization, value, average_value };

/// The Kubernetes spelling: "Utilization", "Value", "AverageValue".
[[nodiscard]] constexpr std::string_view to_string(metric_target_type type) noexcept {
  switch (type) {
    case metric_target_type::utilization:
      return "Utilization";
    case metric_target_type::value:
      return "Value";
    case metric_target_type::average_value:
      return "AverageValue";
  }
  return "Unknown";
}

/// One metric the controller watches and its target. `name` is the resource name for
/// Resource/ContainerResource ("cpu" turns on the HPA's CPU readiness rule). `target` is a
/// whole percent for Utilization (averageUtilization), else the quantity in the metric's
/// units (read as to_quantity(target)); > 0.
struct metric_spec {
  std::string name{};  ///< "cpu", "memory", or the metric name, e.g. "vllm:num_requests_running"
  metric_source source = metric_source::external;                      ///< HPA metrics[].type
  metric_target_type target_type = metric_target_type::average_value;  ///< HPA target.type
  double target = 1.0;  ///< averageUtilization (%), averageValue or value (see above)
};

/// HPA scaling policy type: a number of pods or a percent of the replicas at period start.
enum class scaling_policy_type : std::uint8_t { pods, percent };

/// The Kubernetes spelling: "Pods", "Percent".
[[nodiscard]] constexpr std::string_view to_string(scaling_policy_type type) noexcept {
  return type == scaling_policy_type::pods ? "Pods" : "Percent";
}

/// Kubernetes' defaults (pkg/apis/autoscaling/v2/defaults.go): Pods 4 and Percent 100 up,
/// Percent 100 down, each per 15 s.
inline constexpr std::int32_t default_scale_up_pods = 4;
inline constexpr std::int32_t default_scale_percent = 100;
inline constexpr std::chrono::seconds default_policy_period{15};

/// One HPA rate policy: change by at most `value` (pods or percent) per `period`.
struct scaling_policy {
  scaling_policy_type type = scaling_policy_type::pods;  ///< Pods or Percent
  std::int32_t value = default_scale_up_pods;            ///< > 0
  std::chrono::seconds period = default_policy_period;   ///< periodSeconds, > 0
};

/// HPA selectPolicy: Max picks the policy allowing the largest change, Min the smallest,
/// Disabled forbids scaling in that direction.
enum class select_policy : std::uint8_t { max, min, disabled };

/// The Kubernetes spelling: "Max", "Min", "Disabled".
[[nodiscard]] constexpr std::string_view to_string(select_policy policy) noexcept {
  switch (policy) {
    case select_policy::max:
      return "Max";
    case select_policy::min:
      return "Min";
    case select_policy::disabled:
      return "Disabled";
  }
  return "Unknown";
}

/// HPA HPAScalingRules for one direction. An unset window is defaulted as the API server
/// and the controller do: 0 s up, the --horizontal-pod-autoscaler-downscale-stabilization
/// flag (autoscaler_config::downscale_stabilization) down. An EMPTY `policies` list means
/// "no rate limit" (a library extension: the Kubernetes API rejects an empty list).
struct scaling_rules {
  std::optional<std::chrono::seconds> stabilization_window{};  ///< stabilizationWindowSeconds
  select_policy select = select_policy::max;                   ///< selectPolicy
  std::vector<scaling_policy> policies{};                      ///< policies; empty = unlimited
};

/// The HPA's default scale-up rules: window 0 s, Max of {Pods 4 / 15 s, Percent 100 / 15 s}.
[[nodiscard]] HEADROOM_DECL scaling_rules default_scale_up_rules();

/// The HPA's default scale-down rules: window UNSET (defaulted from the controller's
/// --horizontal-pod-autoscaler-downscale-stabilization flag), Max of {Percent 100 / 15 s}.
[[nodiscard]] HEADROOM_DECL scaling_rules default_scale_down_rules();

/// HPA spec.behavior. Default-constructed, it holds the Kubernetes defaults.
struct scaling_behavior {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  scaling_rules scale_up = default_scale_up_rules();      ///< behavior.scaleUp
  scaling_rules scale_down = default_scale_down_rules();  ///< behavior.scaleDown
};

/// kube-controller-manager's defaults (pkg/controller/podautoscaler/config/v1alpha1).
inline constexpr double default_tolerance = 0.1;  ///< --horizontal-pod-autoscaler-tolerance
/// --horizontal-pod-autoscaler-downscale-stabilization.
inline constexpr std::chrono::seconds default_downscale_stabilization{300};
/// --horizontal-pod-autoscaler-sync-period.
inline constexpr std::chrono::seconds default_sync_period{15};

/// The Kubernetes release an HPA runs on and the feature gates that change what it does or
/// accepts: one setting for the controller (which zero-replica rule it follows) and for the
/// manifest writers (which fields they write). docs/autoscaler.md, "Kubernetes versions".
/// minor 0, the default, names no release: the newest rules the library reproduces (1.36)
/// with every gate on, and manifests with every field.
struct kubernetes_version {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int32_t minor = 0;  ///< Kubernetes 1.<minor> (e.g. 35); 0 = none named; in [0, 1000]
  /// Feature gate HPAScaleToZero (alpha since 1.16, off by default): the API server accepts
  /// minReplicas 0; from 1.36 the controller also reads it (the ScaledToZero condition).
  bool hpa_scale_to_zero = false;
  /// Feature gate HPAConfigurableTolerance (alpha in 1.33, off by default): the
  /// per-direction behavior.scaleUp/scaleDown.tolerance fields; never accepted before 1.33.
  bool hpa_configurable_tolerance = false;
};

/// The first Kubernetes minor version with behavior.*.tolerance.
inline constexpr std::int32_t first_minor_with_tolerance = 33;
/// The first Kubernetes minor version whose HPA scales up from zero replicas only under its
/// ScaledToZero condition (kubernetes#135118); before it, minReplicas 0 alone lets it.
inline constexpr std::int32_t first_minor_with_scaled_to_zero = 36;

/// The HPA controller's configuration: the HPA spec, the controller-manager flags it reads,
/// the Kubernetes release, and library extensions. Validated once by the autoscaler
/// constructor.
struct autoscaler_config {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int32_t min_replicas = 1;       ///< spec.minReplicas; >= 0 (0 needs Object/External)
  std::int32_t max_replicas = 10;      ///< spec.maxReplicas; >= max(1, min_replicas)
  std::vector<metric_spec> metrics{};  ///< spec.metrics; at least one; combined by max
  /// Hold while ratio <= 1 + this (--horizontal-pod-autoscaler-tolerance, or
  /// behavior.scaleUp.tolerance); >= 0.
  double scale_up_tolerance = default_tolerance;
  /// Hold while ratio >= 1 - this (the flag, or behavior.scaleDown.tolerance); >= 0.
  double scale_down_tolerance = default_tolerance;
  std::optional<scaling_behavior> behavior{};  ///< spec.behavior; nullopt = HPA without behavior
  /// --horizontal-pod-autoscaler-downscale-stabilization: the down window without a
  /// behavior, and the default of an unset behavior.scaleDown window; >= 0.
  std::chrono::seconds downscale_stabilization = default_downscale_stabilization;
  /// Expected period between steps; only sizes the state's buffers up front. > 0.
  std::chrono::milliseconds sync_period = default_sync_period;
  /// Count requested-but-not-ready replicas in the current count (the HPA reads
  /// spec.replicas). false models a naive controller that compares with ready replicas.
  bool count_starting_replicas = true;
  /// Library extension: never scale down while some replicas are still starting.
  bool hold_scale_down_while_starting = false;
  /// Library extension: spare replicas added to every metric-based recommendation (also to
  /// forecasts); >= 0. Total metrics test the band against the replicas net of the reserve.
  std::int32_t reserve_replicas = 0;
  /// The release and gates the HPA runs with (the zero-replica rule; what manifests write).
  kubernetes_version kubernetes{};
};

// ---- the Knative KPA (knative/serving pkg/autoscaler/config defaults) -------------------

/// The KPA's scaling metric (autoscaling.knative.dev/metric).
enum class kpa_metric : std::uint8_t { concurrency, requests_per_second };

/// Knative's config-autoscaler defaults (pkg/autoscaler/config/config.go defaultConfig) and
/// limits (pkg/apis/autoscaling/register.go).
inline constexpr double knative_container_concurrency_target_default = 100.0;
inline constexpr double knative_requests_per_second_target_default = 200.0;
inline constexpr double knative_target_utilization = 0.7;
inline constexpr double knative_max_scale_up_rate = 1000.0;
inline constexpr double knative_max_scale_down_rate = 2.0;
inline constexpr double knative_panic_threshold = 2.0;  ///< panic-threshold-percentage 200
inline constexpr std::chrono::seconds knative_stable_window{60};
inline constexpr double knative_target_burst_capacity = 211.0;
inline constexpr double knative_target_min = 0.01;  ///< autoscaling.TargetMin
inline constexpr std::chrono::seconds knative_window_min{6};
inline constexpr std::chrono::seconds knative_window_max{3600};
/// Knative's autoscaler ticks every 2 s; the scale-down delay window has one bucket per tick
/// (pkg/autoscaler/scaling/multiscaler.go tickInterval).
inline constexpr std::chrono::seconds knative_tick_interval{2};
/// target-burst-capacity -1: the activator always stays in the request path.
inline constexpr double knative_unlimited_burst_capacity = -1.0;

/// The Knative Pod Autoscaler's decider (DeciderSpec) plus the min/max-scale bounds its
/// reconciler applies. Default-constructed, every field holds Knative's default.
struct kpa_config {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  kpa_metric metric = kpa_metric::concurrency;  ///< autoscaling.knative.dev/metric
  /// TotalValue per replica: containerConcurrency (or container-concurrency-target-default
  /// 100) for concurrency, requests-per-second-target-default 200 for RPS; nullopt =
  /// Knative's default for `metric`. > 0.
  std::optional<double> total_per_replica{};
  /// target-utilization-percentage / container-concurrency-target-percentage as a fraction;
  /// the per-replica target is max(0.01, total x this). In (0, 1].
  double target_utilization = knative_target_utilization;
  double max_scale_up_rate = knative_max_scale_up_rate;      ///< max-scale-up-rate; > 1
  double max_scale_down_rate = knative_max_scale_down_rate;  ///< max-scale-down-rate; > 1
  double panic_threshold = knative_panic_threshold;  ///< panic-threshold-percentage / 100; > 0
  std::chrono::seconds stable_window = knative_stable_window;  ///< stable-window; [6 s, 1 h]
  std::chrono::seconds scale_down_delay{0};                    ///< scale-down-delay; [0, 1 h]
  /// autoscaling.knative.dev/activation-scale: a non-zero count is raised to this when > 1.
  std::int32_t activation_scale = 0;
  /// target-burst-capacity (-1 = unlimited); only sizes excess_burst_capacity.
  double target_burst_capacity = knative_target_burst_capacity;
  std::int32_t min_scale = 0;  ///< min-scale (ignored while unreachable); >= 0
  std::int32_t max_scale = 0;  ///< max-scale; 0 = unbounded; >= min_scale when set

  /// TotalValue per replica (total_per_replica or Knative's default for the metric).
  [[nodiscard]] constexpr double total_value() const noexcept {
    if (total_per_replica) return *total_per_replica;
    return metric == kpa_metric::concurrency ? knative_container_concurrency_target_default
                                             : knative_requests_per_second_target_default;
  }
  /// TargetValue per replica: max(TargetMin, total x utilization)
  /// (pkg/reconciler/autoscaling/resources/target.go ResolveMetricTarget).
  [[nodiscard]] constexpr double target_value() const noexcept {
    return std::max(knative_target_min, total_value() * target_utilization);
  }
};

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/config.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

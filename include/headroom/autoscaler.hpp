// SPDX-License-Identifier: Apache-2.0
// The autoscaler: the Kubernetes HorizontalPodAutoscaler's decision, input for input
// (pkg/controller/podautoscaler: horizontal.go reconcileAutoscaler and its normalisation,
// replica_calculator.go, metrics/utilization.go; pkg/apis/autoscaling/v2/defaults.go), and
// the Knative KPA's (knative/serving pkg/autoscaler/scaling/autoscaler.go Scale, with the
// defaults of pkg/autoscaler/config), plus what serving models needs: replicas on their way,
// a spare-replica reserve and a feed-forward forecast.
//
// The core is pure and clock-injected: the caller passes the time, the replica counts and the
// metric observations; the controller's memory (stabilization windows, scale events, panic
// state) is a value, autoscaler_state, that the caller owns, can copy, store and restore. No
// threads, no clock reads, no allocation per step once the state is warm, and a step costs
// the same whatever the windows' length (monotone queues). docs/autoscaler.md maps every
// upstream input to ours.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detail/checks.hpp"
#include "error.hpp"

namespace headroom {
inline namespace v0 {

// ---------------------------------------------------------------------------------------
// Quantities: Kubernetes reads every metric and target as a whole number of milli-units.
// ---------------------------------------------------------------------------------------

/// Milli-units per unit ("1000m" = "1").
inline constexpr std::int64_t milli_per_unit = 1000;

/// A Kubernetes resource.Quantity as the HPA reads it: a whole number of milli-units
/// (Quantity.MilliValue()). Ratios are taken between these integers, so 90m against a target
/// of 100m is exactly 0.9 (0.09 / 0.1 in doubles is 0.8999999999999999).
struct quantity {
  std::int64_t milli = 0;  ///< the value in milli-units (1000 = one unit, "1000m" = "1")
  /// The value in units, for display.
  [[nodiscard]] constexpr double value() const noexcept {
    return static_cast<double>(milli) / static_cast<double>(milli_per_unit);
  }
  friend constexpr bool operator==(quantity, quantity) noexcept = default;
  friend constexpr auto operator<=>(quantity, quantity) noexcept = default;
};

namespace detail {
/// A double carries ~16 significant digits: rounding it to micro-units first recovers the
/// decimal the caller meant (0.09, not 0.0899999999999999967) for any |value| < 9e12.
inline constexpr double micro_per_unit = 1e6;
/// Micro-units per milli-unit.
inline constexpr std::int64_t micro_per_milli = 1000;
/// Beyond this many micro-units int64 is close to overflowing; convert milli-units directly.
inline constexpr double largest_exact_micro = 9.0e18;
/// The largest magnitude a double converts to int64 without overflowing (2^63 is 9.22e18).
inline constexpr double largest_int64_double = 9.2e18;
/// Percent per unit fraction (policies and utilization are whole percents).
inline constexpr std::int64_t percent = 100;
inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();

/// ceil(a / b) for b > 0 (C++ division truncates toward zero, which is already the ceiling
/// of a negative quotient).
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b + ((a % b) > 0 ? 1 : 0);
}
}  // namespace detail

/// `value` as a quantity: rounded to the nearest micro-unit (the decimal the double stands
/// for), then up to a whole milli-unit as Quantity.MilliValue() rounds (ceil). Saturates at
/// the int64 range; a non-finite value is no value (nullopt: a missing sample).
[[nodiscard]] inline std::optional<quantity> to_quantity(double value) noexcept {
  if (!detail::is_finite(value)) return std::nullopt;
  const double micro = value * detail::micro_per_unit;
  if (std::abs(micro) < detail::largest_exact_micro) {
    std::int64_t m = std::llround(micro);
    if (m == 0 && value > 0.0) m = 1;  // MilliValue rounds any positive value up to 1m
    return quantity{detail::ceil_div(m, detail::micro_per_milli)};
  }
  const double milli = std::ceil(value * static_cast<double>(milli_per_unit));
  if (milli >= detail::largest_int64_double) return quantity{detail::int64_max};
  if (milli <= -detail::largest_int64_double) return quantity{detail::int64_min};
  return quantity{static_cast<std::int64_t>(milli)};
}

// ---------------------------------------------------------------------------------------
// HPA configuration: a plain aggregate mirroring autoscaling/v2 (spec.minReplicas,
// spec.maxReplicas, spec.metrics[], spec.behavior), the controller-manager flags, and the
// library's extensions.
// ---------------------------------------------------------------------------------------

/// Where a metric comes from, as in HPA autoscaling/v2 `metrics[].type`. Resource,
/// ContainerResource and Pods read one sample per pod; Object and External one value.
enum class metric_source : std::uint8_t { resource, container_resource, pods, object, external };

/// The kind of target, as in HPA `target.type`: Utilization (percent of the request,
/// Resource/ContainerResource only), Value (Object/External only) or AverageValue (per pod).
enum class metric_target_type : std::uint8_t { utilization, value, average_value };

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

/// One HPA rate policy: change by at most `value` (pods or percent) per `period`.
struct scaling_policy {
  scaling_policy_type type = scaling_policy_type::pods;  ///< Pods or Percent
  std::int32_t value = 4;                                ///< > 0
  std::chrono::seconds period{15};                       ///< periodSeconds, > 0
};

/// HPA selectPolicy: Max picks the policy allowing the largest change, Min the smallest,
/// Disabled forbids scaling in that direction.
enum class select_policy : std::uint8_t { max, min, disabled };

/// HPA HPAScalingRules for one direction. An unset window is defaulted as the API server
/// and the controller do: 0 s up, the --horizontal-pod-autoscaler-downscale-stabilization
/// flag (autoscaler_config::downscale_stabilization) down. An EMPTY `policies` list means
/// "no rate limit" (a library extension: the Kubernetes API rejects an empty list).
struct scaling_rules {
  std::optional<std::chrono::seconds> stabilization_window{};  ///< stabilizationWindowSeconds
  select_policy select = select_policy::max;                   ///< selectPolicy
  std::vector<scaling_policy> policies{};                      ///< policies; empty = unlimited
};

/// Kubernetes' defaults (pkg/apis/autoscaling/v2/defaults.go): Pods 4 and Percent 100 up,
/// Percent 100 down, each per 15 s.
inline constexpr std::int32_t default_scale_up_pods = 4;
inline constexpr std::int32_t default_scale_percent = 100;
inline constexpr std::chrono::seconds default_policy_period{15};

/// The HPA's default scale-up rules: window 0 s, Max of {Pods 4 / 15 s, Percent 100 / 15 s}.
[[nodiscard]] inline scaling_rules default_scale_up_rules() {
  return {
      .stabilization_window = std::chrono::seconds{0},
      .select = select_policy::max,
      .policies = {{scaling_policy_type::pods, default_scale_up_pods, default_policy_period},
                   {scaling_policy_type::percent, default_scale_percent, default_policy_period}}};
}

/// The HPA's default scale-down rules: window UNSET (defaulted from the controller's
/// --horizontal-pod-autoscaler-downscale-stabilization flag), Max of {Percent 100 / 15 s}.
[[nodiscard]] inline scaling_rules default_scale_down_rules() {
  return {
      .stabilization_window = std::nullopt,
      .select = select_policy::max,
      .policies = {{scaling_policy_type::percent, default_scale_percent, default_policy_period}}};
}

/// HPA spec.behavior. Default-constructed, it holds the Kubernetes defaults.
struct scaling_behavior {
  scaling_rules scale_up = default_scale_up_rules();      ///< behavior.scaleUp
  scaling_rules scale_down = default_scale_down_rules();  ///< behavior.scaleDown
};

/// kube-controller-manager's defaults (pkg/controller/podautoscaler/config/v1alpha1).
inline constexpr double default_tolerance = 0.1;  ///< --horizontal-pod-autoscaler-tolerance
/// --horizontal-pod-autoscaler-downscale-stabilization.
inline constexpr std::chrono::seconds default_downscale_stabilization{300};
/// --horizontal-pod-autoscaler-sync-period.
inline constexpr std::chrono::seconds default_sync_period{15};

/// The HPA controller's configuration: the HPA spec, the controller-manager flags it reads,
/// and library extensions. Validated once by the autoscaler constructor.
struct autoscaler_config {
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
};

// ---------------------------------------------------------------------------------------
// Knative KPA configuration (knative/serving pkg/autoscaler/config defaults).
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Observations.
// ---------------------------------------------------------------------------------------

/// The counts the HPA reads from the scale subresource and the pod list. During a scale-down
/// `ready` may exceed `spec` (pods still terminating).
struct replica_counts {
  std::int32_t spec = 0;    ///< scale.spec.replicas: the count last set (currentReplicas); >= 0
  std::int32_t status = 0;  ///< scale.status.replicas: pods that exist (AverageValue); >= 0
  std::int32_t ready = 0;   ///< Running and Ready pods (Value targets, the KPA); >= 0
};

/// How the HPA's groupPods() sorts a pod (replica_calculator.go).
enum class pod_status : std::uint8_t {
  running,      ///< Running: its sample counts
  cpu_unready,  ///< Running, but groupPods' CPU rule rejects its sample (see cpu_pod_status);
                ///< treated as `running` by every metric except the Resource "cpu"
  pending,      ///< phase Pending: unready (0 on a scale-up, left out on a scale-down)
  terminated,   ///< DeletionTimestamp set or phase Succeeded/Failed: left out entirely
};

/// One pod's sample of a per-pod metric, in milli-units.
struct pod_sample {
  std::optional<quantity> value{};  ///< usage (Resource) or metric value; nullopt = missing
  quantity request{};               ///< Resource/ContainerResource: the pod's request for it; >= 0
  pod_status status = pod_status::running;  ///< how groupPods sorts the pod
};

/// The PodReady condition's status, as groupPods reads it.
enum class ready_condition : std::uint8_t { absent, is_true, is_false, unknown };

/// kube-controller-manager's --horizontal-pod-autoscaler-cpu-initialization-period and
/// --horizontal-pod-autoscaler-initial-readiness-delay defaults.
inline constexpr std::chrono::milliseconds default_cpu_initialization_period{300'000};
inline constexpr std::chrono::milliseconds default_initial_readiness_delay{30'000};

/// What groupPods' CPU rule reads about one Running pod (times on the caller's clock).
struct cpu_readiness_facts {
  std::optional<std::chrono::milliseconds> start_time{};  ///< status.startTime; nullopt = unset
  ready_condition ready = ready_condition::is_true;       ///< the PodReady condition's status
  std::chrono::milliseconds ready_transition{0};          ///< its lastTransitionTime
  std::chrono::milliseconds sample_time{0};               ///< the metric sample's timestamp
  std::chrono::milliseconds sample_window{60'000};        ///< the metric sample's window
  std::chrono::milliseconds now{0};                       ///< the sync's time
  /// --horizontal-pod-autoscaler-cpu-initialization-period.
  std::chrono::milliseconds cpu_initialization_period = default_cpu_initialization_period;
  /// --horizontal-pod-autoscaler-initial-readiness-delay.
  std::chrono::milliseconds initial_readiness_delay = default_initial_readiness_delay;
};

/// groupPods' CPU readiness rule (replica_calculator.go): unready without a Ready condition
/// or start time; within the initialization period, unready if not Ready or if the sample's
/// window began before the last readiness transition; after it, unready only if not Ready
/// and never ready since start (+ the initial readiness delay).
[[nodiscard]] constexpr pod_status cpu_pod_status(const cpu_readiness_facts& f) noexcept {
  if (f.ready == ready_condition::absent || !f.start_time) return pod_status::cpu_unready;
  bool unready = false;
  if (*f.start_time + f.cpu_initialization_period > f.now)
    unready = f.ready == ready_condition::is_false ||
              f.sample_time < f.ready_transition + f.sample_window;
  else
    unready = f.ready == ready_condition::is_false &&
              *f.start_time + f.initial_readiness_delay > f.ready_transition;
  return unready ? pod_status::cpu_unready : pod_status::running;
}

/// One observation of one metric. Object/External read `value` (External: the sum of the
/// series the external metrics API returned); Resource/ContainerResource/Pods read `pods`,
/// one entry per pod the selector returns (an empty list fails the metric, as upstream's
/// "no pods returned by selector").
struct metric_observation {
  std::optional<quantity> value{};     ///< Object/External value; nullopt = failed to get
  std::span<const pod_sample> pods{};  ///< Resource/ContainerResource/Pods samples
  /// Library extension, Object/External only: the value forecast for t + T_start (a calendar,
  /// a seasonal profile). Its recommendation is combined with the reactive one by max.
  std::optional<quantity> forecast{};
};

/// Shorthand for an Object/External observation (`value` read with to_quantity).
[[nodiscard]] inline metric_observation observe_value(double value) noexcept {
  return {.value = to_quantity(value)};
}
/// Shorthand for a per-pod observation (the span must outlive the step call).
[[nodiscard]] constexpr metric_observation observe_pods(std::span<const pod_sample> pods) noexcept {
  return {.pods = pods};
}

/// Whether a Knative revision is routed to (PodAutoscaler spec.reachability).
enum class revision_reachability : std::uint8_t { reachable, unreachable };

/// What the KPA's Scale() reads besides the ready count: the metric averaged over the stable
/// and the panic window (Knative's metric collector), in the metric's units, and whether the
/// revision is reachable. A non-finite average = no data (the KPA holds).
struct kpa_observation {
  double stable_value = std::numeric_limits<double>::quiet_NaN();         ///< stable-window average
  double panic_value = std::numeric_limits<double>::quiet_NaN();          ///< panic-window average
  revision_reachability reachability = revision_reachability::reachable;  ///< spec.reachability
};

/// What one step sees. `metrics` is index-aligned with autoscaler_config::metrics (one entry
/// per metric; a shorter span leaves the remaining metrics missing). The KPA reads `kpa`.
struct autoscaler_input {
  replica_counts replicas{};                      ///< spec/status/ready counts
  std::span<const metric_observation> metrics{};  ///< HPA: the observation of each metric
  kpa_observation kpa{};                          ///< KPA: stable/panic averages, reachability
};

// ---------------------------------------------------------------------------------------
// Decisions.
// ---------------------------------------------------------------------------------------

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

/// Upstream's spelling ("DesiredWithinRange", "FailedGetPodsMetric", ...; "" for none).
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
  return "";
}

/// One HPA status condition as a sync leaves it.
struct hpa_condition {
  condition_status status = condition_status::unset;  ///< True / False / not set this sync
  hpa_reason reason = hpa_reason::none;               ///< upstream's reason
  friend constexpr bool operator==(const hpa_condition&, const hpa_condition&) = default;
};

/// The HPA's status conditions after a sync (horizontal.go setCondition calls), to compare
/// with `kubectl describe hpa`. All unset for the KPA.
struct hpa_conditions {
  hpa_condition able_to_scale;    ///< AbleToScale
  hpa_condition scaling_active;   ///< ScalingActive
  hpa_condition scaling_limited;  ///< ScalingLimited
  hpa_condition scaled_to_zero;   ///< ScaledToZero (set on every rescale)
  friend constexpr bool operator==(const hpa_conditions&, const hpa_conditions&) = default;
};

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
/// The Kubernetes spelling: "Pods", "Percent".
[[nodiscard]] constexpr std::string_view to_string(scaling_policy_type type) noexcept {
  return type == scaling_policy_type::pods ? "Pods" : "Percent";
}
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
  hpa_conditions conditions;              ///< the HPA's status conditions after this sync
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

// ---------------------------------------------------------------------------------------
// State.
// ---------------------------------------------------------------------------------------

/// A raw recommendation and when it was made (time since the caller's epoch).
struct timestamped_recommendation {
  std::chrono::milliseconds at{0};  ///< when
  std::int32_t replicas = 0;        ///< the raw (unstabilized) recommendation; >= 0
  friend constexpr bool operator==(const timestamped_recommendation&,
                                   const timestamped_recommendation&) = default;
};

/// Upstream's timestampedScaleEvent.outdated: an event older than its direction's longest
/// policy period, marked when an event of that direction is stored, free for reuse.
enum class scale_event_state : std::uint8_t { live, outdated };

/// A real scale change of `change` replicas (>= 0), recorded for the rate policies.
struct scale_event {
  std::chrono::milliseconds at{0};                    ///< when
  std::int32_t change = 0;                            ///< replicas added or removed; >= 0
  scale_event_state state = scale_event_state::live;  ///< upstream's `outdated` mark
  friend constexpr bool operator==(const scale_event&, const scale_event&) = default;
};

namespace detail {

/// A growable circular buffer (capacity a power of two); equality compares the contents.
template <class T>
class ring {
 public:
  /// Makes room for n entries without reallocating later.
  void reserve(std::size_t n) {
    if (n > buffer_.size()) regrow(std::bit_ceil(n));
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.size(); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept {
    return buffer_[(head_ + i) & (buffer_.size() - 1)];
  }
  [[nodiscard]] T& operator[](std::size_t i) noexcept {
    return buffer_[(head_ + i) & (buffer_.size() - 1)];
  }
  [[nodiscard]] const T& front() const noexcept { return buffer_[head_]; }
  [[nodiscard]] const T& back() const noexcept { return (*this)[size_ - 1]; }
  [[nodiscard]] T& back() noexcept { return (*this)[size_ - 1]; }
  /// The storage's address: unchanged while no push reallocates.
  [[nodiscard]] const T* data() const noexcept { return buffer_.data(); }
  void push_back(const T& value) {
    if (size_ == buffer_.size()) regrow(std::max<std::size_t>(4, 2 * buffer_.size()));
    buffer_[(head_ + size_) & (buffer_.size() - 1)] = value;
    ++size_;
  }
  void pop_front() noexcept {
    head_ = (head_ + 1) & (buffer_.size() - 1);
    --size_;
  }
  void pop_back() noexcept { --size_; }
  void clear() noexcept { head_ = size_ = 0; }
  friend bool operator==(const ring& a, const ring& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  void regrow(std::size_t capacity) {
    std::vector<T> next(capacity);
    for (std::size_t i = 0; i < size_; ++i) next[i] = (*this)[i];
    buffer_.swap(next);
    head_ = 0;
  }
  std::vector<T> buffer_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

/// One bucket of Knative's scale-down delay window (aggregation/max window.go entry).
struct kpa_bucket {
  std::int64_t index = 0;  ///< tick index (Unix seconds / 2)
  std::int32_t value = 0;  ///< the largest desired count recorded in it
  friend constexpr bool operator==(const kpa_bucket&, const kpa_bucket&) = default;
};

/// What the latest HPA sync changed, so that a retry at the same instant can take it back
/// (a retry re-runs that sync on the state as it was before).
struct sync_undo {
  std::chrono::milliseconds at{std::chrono::milliseconds::min()};  ///< the sync's time
  bool was_seeded = true;  ///< seeded before the sync (else it seeded the windows)
  condition_status scaled_to_zero = condition_status::unset;  ///< before the sync
  std::int8_t event_direction = 0;  ///< +1 / -1: it stored a scale-up / scale-down event
  bool event_appended = false;      ///< the event was appended (else it reused a slot)
  std::uint32_t event_index = 0;    ///< the slot it reused
  scale_event replaced{};           ///< the slot's previous content
  friend constexpr bool operator==(const sync_undo&, const sync_undo&) = default;
};

}  // namespace detail

/// The controller's whole memory, a value: copy it to checkpoint, assign it to restore.
/// Build it with autoscaler::initial_state() or autoscaler::state_from_history().
/// The windows are monotone queues holding only what a window can still see, so their size
/// is bounded by the window, and a step costs O(1) amortized whatever the window's length.
struct autoscaler_state {
  /// Recommendations the up window may still use; replicas increasing from the front, so the
  /// front is the window's minimum.
  detail::ring<timestamped_recommendation> up_window;
  /// Recommendations the down window may still use; replicas decreasing from the front, so
  /// the front is the window's maximum.
  detail::ring<timestamped_recommendation> down_window;
  /// The latest sync's raw recommendation, entered into the windows at the next, later sync
  /// (a retry at the same `now` replaces it instead).
  std::optional<timestamped_recommendation> latest;
  bool seeded = false;  ///< false until the first sync (or the history) seeds the windows
  std::vector<scale_event> scale_up_events;    ///< with a behavior only
  std::vector<scale_event> scale_down_events;  ///< with a behavior only
  /// The ScaledToZero condition (True once the HPA itself scaled to 0; only then may it
  /// scale up from zero).
  condition_status scaled_to_zero = condition_status::unset;
  bool panicking = false;                         ///< KPA panic mode
  std::chrono::milliseconds panic_time{0};        ///< KPA: last step over the panic threshold
  std::int32_t max_panic_replicas = 0;            ///< KPA: largest desired count in this panic
  detail::ring<detail::kpa_bucket> delay_window;  ///< KPA scale-down delay (descending maxima)
  detail::sync_undo last_sync;  ///< HPA: what the latest sync changed (for a retry)
  /// The time of the latest step (or of the history); an earlier step is refused.
  std::chrono::milliseconds last_time{std::chrono::milliseconds::min()};

  /// The number of recommendations the stabilization windows hold (a bound on memory).
  [[nodiscard]] std::size_t window_entries() const noexcept {
    return up_window.size() + down_window.size() + (latest ? 1 : 0);
  }
  friend bool operator==(const autoscaler_state&, const autoscaler_state&) = default;
};

/// A running HPA's memory, for a controller that takes over from it: its recommendation
/// history and its scale events (with their `outdated` marks), in upstream's order.
struct hpa_history {
  std::span<const timestamped_recommendation> recommendations{};  ///< a.recommendations[key]
  std::span<const scale_event> scale_up_events{};                 ///< a.scaleUpEvents[key]
  std::span<const scale_event> scale_down_events{};               ///< a.scaleDownEvents[key]
  /// The HPA's ScaledToZero condition (True lets it scale up from zero).
  condition_status scaled_to_zero = condition_status::unset;
};

namespace detail {

inline constexpr std::int32_t replicas_max = std::numeric_limits<std::int32_t>::max();
/// The latest and earliest `now` accepted: any two accepted times differ by less than 2^63 ms
/// and a window (<= 366 days) subtracted from one stays in range (about ±127 million years).
inline constexpr std::int64_t time_limit_ms = 4'000'000'000'000'000'000;

/// A double replica count to int32, saturating; NaN and negatives give 0.
[[nodiscard]] inline std::int32_t to_replicas(double x) noexcept {
  if (!(x > 0.0)) return 0;
  if (x >= static_cast<double>(replicas_max)) return replicas_max;
  return static_cast<std::int32_t>(x);
}
/// A double to int32 as Go's int32(x) for in-range values, saturating outside; NaN gives 0.
[[nodiscard]] inline std::int32_t to_int32(double x) noexcept {
  if (!(x == x)) return 0;
  if (x >= static_cast<double>(replicas_max)) return replicas_max;
  if (x <= static_cast<double>(std::numeric_limits<std::int32_t>::min()))
    return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}
/// A 64-bit count to int32, saturating at both ends.
[[nodiscard]] constexpr std::int32_t saturate(std::int64_t x) noexcept {
  if (x > replicas_max) return replicas_max;
  if (x < std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}
/// A double to int64, clamped to a range where the conversion is defined; NaN gives 0.
[[nodiscard]] inline std::int64_t to_int64(double x) noexcept {
  constexpr double limit = 4.0e18;  // well inside int64: sums of two stay in range
  if (!(x == x)) return 0;
  return static_cast<std::int64_t>(std::clamp(x, -limit, limit));
}
/// a + b, saturating at both ends of int64.
[[nodiscard]] constexpr std::int64_t add_saturated(std::int64_t a, std::int64_t b) noexcept {
  if (b > 0 && a > int64_max - b) return int64_max;
  if (b < 0 && a < int64_min - b) return int64_min;
  return a + b;
}
/// a * b, saturating at both ends of int64.
[[nodiscard]] constexpr std::int64_t mul_saturated(std::int64_t a, std::int64_t b) noexcept {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  if (a == int64_min || b == int64_min) return negative ? int64_min : int64_max;
  const std::int64_t ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
  if (ua > int64_max / ub) return negative ? int64_min : int64_max;
  return a * b;
}
/// floor(a / b) for b > 0.
[[nodiscard]] constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b - ((a % b) < 0 ? 1 : 0);
}

struct proposal {
  std::int32_t replicas = 0;
  bool valid = false;
  bool in_band = false;  // held at the current count (tolerance or direction flip)
};

struct tolerances {
  double up = 0.0;
  double down = 0.0;
  // replica_calculator.go Tolerances.isWithin: 1 - down <= ratio <= 1 + up (inclusive).
  [[nodiscard]] constexpr bool within(double ratio) const noexcept {
    return (1.0 - down) <= ratio && ratio <= (1.0 + up);
  }
};

// One metric, resolved once by the constructor.
struct resolved_metric {
  metric_source source = metric_source::external;
  metric_target_type target_type = metric_target_type::average_value;
  std::int64_t target_milli = 0;    // Value / AverageValue: target.*.MilliValue()
  std::int32_t target_percent = 0;  // Utilization: averageUtilization
  bool cpu = false;                 // Resource/ContainerResource "cpu": groupPods' CPU rule
  hpa_reason failure = hpa_reason::failed_get_external_metric;
};

}  // namespace detail

/// The controller. Holds only the validated configuration; every call takes the state.
/// Built from an autoscaler_config it decides as the Kubernetes HPA; built from a kpa_config,
/// as the Knative KPA.
class autoscaler {
 public:
  /// An HPA. Validates `config` (throws headroom::invalid_argument naming field and value).
  explicit autoscaler(autoscaler_config config) : config_(std::move(config)) {
    validate();
    resolve();
  }

  /// A Knative KPA. Validates `config` as Knative's config validation does.
  explicit autoscaler(kpa_config config) : kpa_(config) {
    validate_kpa();
    // The bounds and the metric, as the HPA-shaped view config() returns.
    config_.min_replicas = kpa_->min_scale;
    config_.max_replicas = kpa_->max_scale > 0 ? kpa_->max_scale : detail::replicas_max;
    config_.metrics = {{kpa_->metric == kpa_metric::concurrency ? "concurrency" : "rps",
                        metric_source::external, metric_target_type::average_value,
                        kpa_->target_value()}};
    config_.scale_up_tolerance = config_.scale_down_tolerance = 0.0;
    config_.sync_period = knative_tick_interval;
    const auto delay_ms = std::chrono::milliseconds{kpa_->scale_down_delay}.count();
    const auto tick_ms = std::chrono::milliseconds{knative_tick_interval}.count();
    delay_buckets_ = detail::ceil_div(delay_ms, tick_ms);  // NewTimeWindow: ceil(d / tick)
  }

  /// The validated HPA configuration (for a KPA: its bounds and metric in HPA shape).
  [[nodiscard]] const autoscaler_config& config() const noexcept { return config_; }
  /// The KPA configuration, or nullopt for an HPA.
  [[nodiscard]] const std::optional<kpa_config>& kpa() const noexcept { return kpa_; }
  /// The scale-up window after defaulting (0 s when unset); 0 s without a behavior.
  [[nodiscard]] std::chrono::seconds scale_up_window() const noexcept { return up_window_; }
  /// The scale-down window after defaulting (the flag when unset, and without a behavior).
  [[nodiscard]] std::chrono::seconds scale_down_window() const noexcept { return down_window_; }

  /// An empty state with its buffers reserved from the windows and sync_period (at most 4096
  /// entries each; a longer window grows during warm-up, then stays). The HPA
  /// seeds the windows with {current at t0} on the first step (recordInitialRecommendation).
  [[nodiscard]] autoscaler_state initial_state() const {
    autoscaler_state state;
    const auto period = std::max<std::int64_t>(1, config_.sync_period.count());
    const auto entries = [&](std::chrono::seconds span) {
      const auto per_sync =
          static_cast<std::size_t>(std::chrono::milliseconds{span}.count() / period);
      return std::min(per_sync + reserve_slack, reserve_cap);
    };
    if (!kpa_) {
      if (config_.behavior && up_window_.count() > 0) state.up_window.reserve(entries(up_window_));
      state.down_window.reserve(entries(down_window_));
      if (config_.behavior) {
        state.scale_up_events.reserve(entries(longest_up_period_));
        state.scale_down_events.reserve(entries(longest_down_period_));
      }
    } else if (delay_buckets_ > 0) {
      state.delay_window.reserve(static_cast<std::size_t>(delay_buckets_) + 1);
    }
    return state;
  }

  /// A state as the controller would hold it had it set `replicas` itself at `at`: the HPA's
  /// windows hold {replicas at `at`} (and a count of 0 carries ScaledToZero when the HPA may
  /// scale to zero); the KPA starts as newAutoscaler does (panicking when replicas > 1). Seeding
  /// at t0 - period makes the first steps' down window cover exactly that entry plus the steps
  /// since.
  [[nodiscard]] autoscaler_state initial_state(std::chrono::milliseconds at,
                                               std::int32_t replicas) const {
    if (replicas < 0) detail::fail("replicas", replicas, "must be >= 0");
    check_time("at", at);
    autoscaler_state state = initial_state();
    state.last_time = at;
    if (kpa_) {
      // pkg/autoscaler/scaling/autoscaler.go newAutoscaler: in panic when more than 1 pod.
      state.max_panic_replicas = replicas;
      if (replicas > 1) {
        state.panicking = true;
        state.panic_time = at;
      }
      return state;
    }
    push_window_entry(state, {at, replicas});
    state.seeded = true;
    if (replicas == 0 && config_.min_replicas == 0 && has_total_metric_)
      state.scaled_to_zero = condition_status::is_true;
    return state;
  }

  /// A state taken over from a running HPA: its recommendations (any order), its scale
  /// events in upstream's order with their outdated marks, and its ScaledToZero condition.
  /// Steps before the latest time in the history are refused.
  [[nodiscard]] autoscaler_state state_from_history(const hpa_history& history) const {
    if (kpa_) detail::fail("history", std::string_view("hpa_history"), "is for an HPA, not a KPA");
    autoscaler_state state = initial_state();
    std::vector<timestamped_recommendation> sorted(history.recommendations.begin(),
                                                   history.recommendations.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.at < b.at; });
    for (const auto& r : sorted) {
      check_time("history.recommendations.at", r.at);
      if (r.replicas < 0)
        detail::fail("history.recommendations.replicas", r.replicas, "must be >= 0");
      push_window_entry(state, r);
      state.last_time = std::max(state.last_time, r.at);
    }
    state.seeded = !sorted.empty();
    const auto copy_events = [&](std::span<const scale_event> from, std::vector<scale_event>& to,
                                 const char* at_name, const char* change_name) {
      for (const auto& e : from) {
        check_time(at_name, e.at);
        if (e.change < 0) detail::fail(change_name, e.change, "must be >= 0");
        to.push_back(e);
        state.last_time = std::max(state.last_time, e.at);
      }
    };
    copy_events(history.scale_up_events, state.scale_up_events, "history.scale_up_events.at",
                "history.scale_up_events.change");
    copy_events(history.scale_down_events, state.scale_down_events, "history.scale_down_events.at",
                "history.scale_down_events.change");
    state.scaled_to_zero = history.scaled_to_zero;
    return state;
  }

  /// One sync: decides the replica count at time `now` (any epoch, never earlier than the
  /// previous step; |now| <= 4e18 ms) and updates `state`. A second step at the same `now` is
  /// a retry of that sync: it decides on the state as it was before the first attempt and
  /// replaces that attempt's recommendation and scale event. Throws
  /// invalid_argument for negative counts, a misaligned metrics span, a negative request or an
  /// out-of-range `now`; missing or failed observations make it hold and say why.
  [[nodiscard]] autoscaler_decision step(autoscaler_state& state, std::chrono::milliseconds now,
                                         const autoscaler_input& in) const {
    if (in.replicas.spec < 0) detail::fail("input.replicas.spec", in.replicas.spec, "must be >= 0");
    if (in.replicas.status < 0)
      detail::fail("input.replicas.status", in.replicas.status, "must be >= 0");
    if (in.replicas.ready < 0)
      detail::fail("input.replicas.ready", in.replicas.ready, "must be >= 0");
    // One observation per configured metric: a longer span is a caller's mix-up.
    if (in.metrics.size() > config_.metrics.size())
      detail::fail("input.metrics.size()", in.metrics.size(), "must be <= config.metrics.size()");
    for (const auto& o : in.metrics)
      for (const auto& p : o.pods)
        if (p.request.milli < 0)
          detail::fail("input.metrics.pods.request", p.request.milli, "must be >= 0");
    check_time("now", now);
    if (now < state.last_time)
      detail::fail("now", now, "must not be earlier than the previous step's time");
    state.last_time = now;
    return kpa_ ? step_kpa(state, now, in) : step_hpa(state, now, in);
  }

 private:
  using ms = std::chrono::milliseconds;

  /// The longest window or period accepted: a year and a day keeps every sum of times in
  /// milliseconds far from overflowing (Kubernetes itself caps windows at 3600 s and periods
  /// at 1800 s; kubernetes.hpp enforces those for manifests).
  static constexpr std::chrono::seconds longest_duration{366 * 24 * 3600};
  /// Buffers hold one entry per sync within the span, plus this many for jitter.
  static constexpr std::size_t reserve_slack = 4;
  /// Up-front reservations stop here (64 KiB of entries): a monotone window rarely holds more
  /// than a few distinct counts, and a longer one grows during warm-up, then stays.
  static constexpr std::size_t reserve_cap = 4096;

  autoscaler_config config_;
  std::optional<kpa_config> kpa_;
  std::vector<detail::resolved_metric> resolved_;
  bool has_total_metric_ = false;
  std::chrono::seconds up_window_{0};
  std::chrono::seconds down_window_{0};
  std::chrono::seconds longest_up_period_{0};
  std::chrono::seconds longest_down_period_{0};
  std::int64_t delay_buckets_ = 0;

  static void check_time(const char* name, ms t) {
    if (t.count() > detail::time_limit_ms || t.count() < -detail::time_limit_ms)
      detail::fail(name, t, "must lie within ±4e18 ms of the epoch");
  }

  // ----- validation -----------------------------------------------------------------
  static void validate_rules(const scaling_rules& rules, const char* window_name,
                             const char* value_name, const char* period_name) {
    if (rules.stabilization_window &&
        (rules.stabilization_window->count() < 0 || *rules.stabilization_window > longest_duration))
      detail::fail(window_name, *rules.stabilization_window, "must lie in [0 s, 366 days]");
    for (const auto& policy : rules.policies) {
      if (policy.value <= 0) detail::fail(value_name, policy.value, "must be > 0");
      if (policy.period.count() <= 0 || policy.period > longest_duration)
        detail::fail(period_name, policy.period, "must lie in (0 s, 366 days]");
    }
  }

  void validate() const {
    const auto& c = config_;
    if (c.min_replicas < 0) detail::fail("config.min_replicas", c.min_replicas, "must be >= 0");
    if (c.max_replicas < 1) detail::fail("config.max_replicas", c.max_replicas, "must be >= 1");
    if (c.min_replicas > c.max_replicas)
      detail::fail("config.min_replicas", c.min_replicas, "must be <= config.max_replicas");
    if (c.metrics.empty())
      detail::fail("config.metrics", c.metrics.size(), "must name at least one metric");
    bool has_total = false;
    for (const auto& m : c.metrics) {
      detail::require_positive("config.metrics.target", m.target);
      const bool total = m.source == metric_source::object || m.source == metric_source::external;
      const bool resource =
          m.source == metric_source::resource || m.source == metric_source::container_resource;
      has_total = has_total || total;
      if (m.target_type == metric_target_type::utilization) {
        if (!resource)
          detail::fail("config.metrics.target_type", m.name,
                       "Utilization is only valid for a Resource or ContainerResource metric");
        if (m.target != std::floor(m.target) || m.target > detail::replicas_max)
          detail::fail("config.metrics.target", m.target,
                       "must be a whole percent (averageUtilization is an int32)");
      } else if (const auto q = to_quantity(m.target); !q || q->milli <= 0) {
        detail::fail("config.metrics.target", m.target, "must be at least one milli-unit");
      }
      if (m.target_type == metric_target_type::value && !total)
        detail::fail("config.metrics.target_type", m.name,
                     "Value is only valid for an Object or External metric");
    }
    if (c.min_replicas == 0 && !has_total)
      detail::fail("config.min_replicas", c.min_replicas,
                   "0 (scale to zero) needs an Object or External metric");
    detail::require_non_negative("config.scale_up_tolerance", c.scale_up_tolerance);
    detail::require_non_negative("config.scale_down_tolerance", c.scale_down_tolerance);
    if (c.downscale_stabilization.count() < 0 || c.downscale_stabilization > longest_duration)
      detail::fail("config.downscale_stabilization", c.downscale_stabilization,
                   "must lie in [0 s, 366 days]");
    if (c.sync_period.count() <= 0 || c.sync_period > longest_duration)
      detail::fail("config.sync_period", c.sync_period, "must lie in (0 s, 366 days]");
    if (c.reserve_replicas < 0)
      detail::fail("config.reserve_replicas", c.reserve_replicas, "must be >= 0");
    if (c.behavior) {
      validate_rules(c.behavior->scale_up, "config.behavior.scale_up.stabilization_window",
                     "config.behavior.scale_up.policies.value",
                     "config.behavior.scale_up.policies.period");
      validate_rules(c.behavior->scale_down, "config.behavior.scale_down.stabilization_window",
                     "config.behavior.scale_down.policies.value",
                     "config.behavior.scale_down.policies.period");
    }
  }

  // Knative's config validation (pkg/autoscaler/config/config.go validate).
  void validate_kpa() const {
    const auto& k = *kpa_;
    if (k.total_per_replica)
      detail::require_positive("kpa.total_per_replica", *k.total_per_replica);
    detail::require_unit_positive("kpa.target_utilization", k.target_utilization);
    if (!(detail::is_finite(k.max_scale_up_rate) && k.max_scale_up_rate > 1.0))
      detail::fail("kpa.max_scale_up_rate", k.max_scale_up_rate, "must be finite and > 1");
    if (!(detail::is_finite(k.max_scale_down_rate) && k.max_scale_down_rate > 1.0))
      detail::fail("kpa.max_scale_down_rate", k.max_scale_down_rate, "must be finite and > 1");
    detail::require_positive("kpa.panic_threshold", k.panic_threshold);
    if (k.stable_window < knative_window_min || k.stable_window > knative_window_max)
      detail::fail("kpa.stable_window", k.stable_window, "must lie in [6 s, 1 h]");
    if (k.scale_down_delay.count() < 0 || k.scale_down_delay > knative_window_max)
      detail::fail("kpa.scale_down_delay", k.scale_down_delay, "must lie in [0 s, 1 h]");
    if (k.activation_scale < 0)
      detail::fail("kpa.activation_scale", k.activation_scale, "must be >= 0");
    if (!(detail::is_finite(k.target_burst_capacity) &&
          (k.target_burst_capacity >= 0.0 ||
           k.target_burst_capacity == knative_unlimited_burst_capacity)))
      detail::fail("kpa.target_burst_capacity", k.target_burst_capacity,
                   "must be >= 0, or -1 for unlimited");
    if (k.min_scale < 0) detail::fail("kpa.min_scale", k.min_scale, "must be >= 0");
    if (k.max_scale < 0) detail::fail("kpa.max_scale", k.max_scale, "must be >= 0 (0 = unbounded)");
    if (k.max_scale > 0 && k.min_scale > k.max_scale)
      detail::fail("kpa.min_scale", k.min_scale, "must be <= kpa.max_scale");
  }

  void resolve() {
    for (const auto& m : config_.metrics) {
      detail::resolved_metric r;
      r.source = m.source;
      r.target_type = m.target_type;
      if (m.target_type == metric_target_type::utilization)
        r.target_percent = static_cast<std::int32_t>(m.target);
      else
        r.target_milli = to_quantity(m.target)->milli;
      r.cpu =
          (m.source == metric_source::resource || m.source == metric_source::container_resource) &&
          m.name == "cpu";
      switch (m.source) {
        case metric_source::resource:
          r.failure = hpa_reason::failed_get_resource_metric;
          break;
        case metric_source::container_resource:
          r.failure = hpa_reason::failed_get_container_resource_metric;
          break;
        case metric_source::pods:
          r.failure = hpa_reason::failed_get_pods_metric;
          break;
        case metric_source::object:
          r.failure = hpa_reason::failed_get_object_metric;
          break;
        case metric_source::external:
          r.failure = hpa_reason::failed_get_external_metric;
          break;
      }
      has_total_metric_ = has_total_metric_ || m.source == metric_source::object ||
                          m.source == metric_source::external;
      resolved_.push_back(r);
    }
    if (config_.behavior) {
      // GenerateHPAScaleUpRules defaults an unset up window to 0 s; the controller's
      // maybeInitScaleDownStabilizationWindow fills an unset down window from the flag.
      up_window_ =
          config_.behavior->scale_up.stabilization_window.value_or(std::chrono::seconds{0});
      down_window_ = config_.behavior->scale_down.stabilization_window.value_or(
          config_.downscale_stabilization);
      longest_up_period_ = longest_period(config_.behavior->scale_up);
      longest_down_period_ = longest_period(config_.behavior->scale_down);
    } else {
      down_window_ = config_.downscale_stabilization;
    }
  }

  // horizontal.go getLongestPolicyPeriod.
  [[nodiscard]] static std::chrono::seconds longest_period(const scaling_rules& rules) noexcept {
    std::chrono::seconds longest{0};
    for (const auto& p : rules.policies) longest = std::max(longest, p.period);
    return longest;
  }

  [[nodiscard]] std::int32_t plus_reserve(std::int32_t replicas) const noexcept {
    return detail::saturate(std::int64_t{replicas} + config_.reserve_replicas);
  }

  // ----- one metric -> a replica proposal (replica_calculator.go) -----------------------
  [[nodiscard]] detail::proposal propose(const detail::resolved_metric& m,
                                         const metric_observation& o, const replica_counts& n,
                                         std::int32_t current,
                                         detail::tolerances tol) const noexcept {
    switch (m.source) {
      case metric_source::object:
      case metric_source::external:
        return propose_total(m, o.value, n, current, tol);
      case metric_source::resource:
      case metric_source::container_resource:
      case metric_source::pods:
        break;
    }
    return propose_per_pod(m, o.pods, current, tol);
  }

  // Object/External. Value (GetObjectMetricReplicas, GetExternalMetricReplicas ->
  // getUsageRatioReplicaCount): r = usage / target; from a non-zero count, the band keeps it,
  // else ceil(r x ready pods); from zero, ceil(r) with no band. AverageValue
  // (GetObjectPerPodMetricReplicas, GetExternalPerPodMetricReplicas): the band is tested on
  // usage / (target x status.replicas) and keeps status.replicas, else ceil(usage / target).
  // With a reserve k, the counts are taken net of k and k is added back.
  [[nodiscard]] detail::proposal propose_total(const detail::resolved_metric& m,
                                               const std::optional<quantity>& value,
                                               const replica_counts& n, std::int32_t current,
                                               detail::tolerances tol) const noexcept {
    if (!value) return {};
    const std::int32_t k = config_.reserve_replicas;
    const double usage = static_cast<double>(value->milli);
    const double target = static_cast<double>(m.target_milli);
    if (m.target_type == metric_target_type::value) {
      const double ratio = usage / target;
      if (current - k > 0) {
        if (tol.within(ratio)) return {current, true, true};
        if (n.status == 0) return {};  // getReadyPodsCount: "no pods returned by selector"
        const double replicas = ratio * static_cast<double>(std::max(0, n.ready - k));
        if (replicas > static_cast<double>(detail::replicas_max))
          return {plus_reserve(detail::replicas_max), true, false};
        return {plus_reserve(detail::to_int32(std::ceil(replicas))), true, false};
      }
      return {plus_reserve(detail::to_int32(std::ceil(ratio))), true, false};
    }
    const std::int32_t status_net = std::max(0, n.status - k);
    const double ratio = usage / (target * static_cast<double>(status_net));
    if (tol.within(ratio)) return {plus_reserve(status_net), true, true};
    const double replicas = std::ceil(usage / target);
    if (replicas > static_cast<double>(detail::replicas_max))
      return {plus_reserve(detail::replicas_max), true, false};
    return {plus_reserve(detail::to_int32(replicas)), true, false};
  }

  // Resource/ContainerResource/Pods: groupPods sorts the pods; the ratio is over the ready
  // pods with a sample (Utilization: int32(sum usage x 100 / sum request) / target, in
  // metrics/utilization.go GetResourceUtilizationRatio; plain: (sum / count) / target, in
  // GetMetricUsageRatio). Missing pods count as the fallback on a scale-down (Utilization:
  // request x max(100, target) / 100; plain: the target) and 0 on a scale-up, and nothing at a
  // ratio of exactly 1 (calcPlainMetricReplicas / GetResourceReplicas); unready pods count as
  // 0 on a scale-up only.
  [[nodiscard]] detail::proposal propose_per_pod(const detail::resolved_metric& m,
                                                 std::span<const pod_sample> pods,
                                                 std::int32_t current,
                                                 detail::tolerances tol) const noexcept {
    if (pods.empty()) return {};  // "no pods returned by selector"
    const bool utilization = m.target_type == metric_target_type::utilization;
    const std::int64_t fallback_percent = std::max<std::int64_t>(detail::percent, m.target_percent);
    std::int64_t sum = 0, requests = 0, ready = 0;
    std::int64_t missing = 0, missing_requests = 0, missing_fallback = 0;
    std::int64_t unready = 0, unready_requests = 0;
    for (const auto& p : pods) {
      const std::int64_t request = p.request.milli;
      if (p.status == pod_status::terminated) continue;  // ignoredPods
      if (p.status == pod_status::pending) {             // unreadyPods
        ++unready;
        unready_requests = detail::add_saturated(unready_requests, request);
        continue;
      }
      if (!p.value) {  // missingPods
        ++missing;
        missing_requests = detail::add_saturated(missing_requests, request);
        missing_fallback = detail::add_saturated(
            missing_fallback, detail::mul_saturated(request, fallback_percent) / detail::percent);
        continue;
      }
      if (m.cpu && p.status == pod_status::cpu_unready) {
        ++unready;
        unready_requests = detail::add_saturated(unready_requests, request);
        continue;
      }
      ++ready;
      sum = detail::add_saturated(sum, p.value->milli);
      requests = detail::add_saturated(requests, request);
    }
    if (ready == 0) return {};                    // "did not receive metrics for targeted pods"
    if (utilization && requests == 0) return {};  // "no metrics returned matched known pods"
    const auto ratio_of = [&](std::int64_t s, std::int64_t r, std::int64_t count) noexcept {
      if (utilization) {
        const std::int64_t used = detail::saturate(detail::mul_saturated(s, detail::percent) / r);
        return static_cast<double>(used) / static_cast<double>(m.target_percent);
      }
      return static_cast<double>(s / count) / static_cast<double>(m.target_milli);
    };
    const double ratio = ratio_of(sum, requests, ready);
    const bool up_with_unready = unready > 0 && ratio > 1.0;
    if (!up_with_unready && missing == 0) {
      if (tol.within(ratio)) return {current, true, true};
      return {plus_reserve(detail::to_int32(std::ceil(ratio * static_cast<double>(ready)))), true,
              false};
    }
    std::int64_t sum2 = sum, requests2 = requests, count2 = ready;
    if (missing > 0 && ratio != 1.0) {
      if (ratio < 1.0)
        sum2 = detail::add_saturated(
            sum2, utilization ? missing_fallback : detail::mul_saturated(missing, m.target_milli));
      requests2 = detail::add_saturated(requests2, missing_requests);
      count2 += missing;
    }
    if (up_with_unready) {
      requests2 = detail::add_saturated(requests2, unready_requests);
      count2 += unready;
    }
    const double new_ratio = ratio_of(sum2, requests2, count2);
    if (tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) ||
        (ratio > 1.0 && new_ratio < 1.0))
      return {current, true, true};
    const std::int32_t replicas =
        detail::to_int32(std::ceil(new_ratio * static_cast<double>(count2)));
    if ((new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current))
      return {current, true, true};
    return {plus_reserve(replicas), true, false};
  }

  // ----- rate policies (horizontal.go calculateScale{Up,Down}Limit...) -------------------
  // getReplicasChangePerPeriod: the changes of the events younger than the period.
  [[nodiscard]] static std::int64_t changes_within(const std::vector<scale_event>& events,
                                                   ms cutoff) noexcept {
    std::int64_t sum = 0;
    for (const auto& e : events) sum += e.at > cutoff ? e.change : 0;
    return sum;
  }

  [[nodiscard]] static std::int64_t rate_limit(const scaling_rules& rules, bool up,
                                               const autoscaler_state& state, ms now,
                                               std::int32_t current) noexcept {
    if (rules.select == select_policy::disabled) return current;
    if (rules.policies.empty())
      return up ? std::int64_t{detail::replicas_max} : std::int64_t{0};  // unlimited
    // Max selects the largest change: the highest count up, the lowest count down.
    const bool pick_high = (rules.select == select_policy::max) == up;
    std::int64_t result = pick_high ? std::numeric_limits<std::int64_t>::min()
                                    : std::numeric_limits<std::int64_t>::max();
    std::chrono::seconds summed_period{-1};
    std::int64_t start = 0;
    for (const auto& p : rules.policies) {
      if (p.period != summed_period) {  // policies sharing a period share the sums
        const ms cutoff = now - ms{p.period};
        start = std::int64_t{current} - changes_within(state.scale_up_events, cutoff) +
                changes_within(state.scale_down_events, cutoff);
        summed_period = p.period;
      }
      const double start_d = static_cast<double>(start);
      const double fraction = static_cast<double>(p.value) / static_cast<double>(detail::percent);
      std::int64_t proposed = 0;
      if (p.type == scaling_policy_type::pods)
        proposed = up ? start + p.value : start - p.value;
      else
        proposed = up ? detail::to_int64(std::ceil(start_d * (1.0 + fraction)))
                      : detail::to_int64(std::trunc(start_d * (1.0 - fraction)));
      result = pick_high ? std::max(result, proposed) : std::min(result, proposed);
    }
    return result;
  }

  // horizontal.go storeScaleEvent + markScaleEventsOutdated: mark the events older than the
  // direction's longest policy period outdated, reuse the last outdated slot or append, and
  // remember what was overwritten for a retry at the same instant.
  void record_event(autoscaler_state& state, ms now, std::int32_t from, std::int32_t to) const {
    if (!config_.behavior || from == to) return;
    const bool up = to > from;
    auto& events = up ? state.scale_up_events : state.scale_down_events;
    const std::int32_t change = up ? to - from : from - to;
    const ms cutoff = now - ms{up ? longest_up_period_ : longest_down_period_};
    std::size_t reuse = events.size();
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i].at < cutoff) events[i].state = scale_event_state::outdated;
      if (events[i].state == scale_event_state::outdated) reuse = i;
    }
    const scale_event event{now, change, scale_event_state::live};
    auto& undo = state.last_sync;
    undo.event_direction = up ? 1 : -1;
    undo.event_appended = reuse == events.size();
    if (reuse < events.size()) {
      undo.event_index = static_cast<std::uint32_t>(reuse);
      undo.replaced = events[reuse];
      events[reuse] = event;
    } else {
      events.push_back(event);
    }
  }

  // A retry at the instant of the latest sync: take back what that sync changed (its scale
  // event, its ScaledToZero, its recommendation, the initial entry it planted), so the retry
  // decides on the state as it was before. Outdated marks stay: they are what the next store marks.
  static void undo_last_sync(autoscaler_state& state) {
    const auto& undo = state.last_sync;
    if (undo.event_direction != 0) {
      auto& events = undo.event_direction > 0 ? state.scale_up_events : state.scale_down_events;
      if (undo.event_appended)
        events.pop_back();
      else
        events[undo.event_index] = undo.replaced;
    }
    state.scaled_to_zero = undo.scaled_to_zero;
    if (state.latest && state.latest->at == undo.at) state.latest.reset();
    if (!undo.was_seeded) {  // the windows hold only that sync's seed
      state.up_window.clear();
      state.down_window.clear();
      state.seeded = false;
    }
  }

  // ----- the stabilization windows as monotone queues -----------------------------------
  // The down queue keeps replicas strictly decreasing from the front (its front is the max of
  // what the window sees), the up queue strictly increasing (front = min). An entry that is
  // both older and no larger (smaller) than a newer one can never be the extreme again.
  static void push_max(detail::ring<timestamped_recommendation>& q,
                       const timestamped_recommendation& e) {
    while (!q.empty() && q.back().replicas <= e.replicas) q.pop_back();
    if (!q.empty() && q.back().at == e.at) return;  // same instant, a larger one: dominated
    q.push_back(e);
  }
  static void push_min(detail::ring<timestamped_recommendation>& q,
                       const timestamped_recommendation& e) {
    while (!q.empty() && q.back().replicas >= e.replicas) q.pop_back();
    if (!q.empty() && q.back().at == e.at) return;
    q.push_back(e);
  }
  // Drops the entries the window no longer sees: with a behavior an entry counts iff
  // at > now - window (timestamp.After(cutoff)); without, iff at >= now - window
  // (!timestamp.Before(cutoff)).
  static void expire(detail::ring<timestamped_recommendation>& q, ms cutoff, bool strict) {
    if (strict) {
      while (!q.empty() && q.front().at <= cutoff) q.pop_front();
    } else {
      while (!q.empty() && q.front().at < cutoff) q.pop_front();
    }
  }

  void push_window_entry(autoscaler_state& state, const timestamped_recommendation& e) const {
    if (config_.behavior && up_window_.count() > 0) push_min(state.up_window, e);
    push_max(state.down_window, e);
  }

  // horizontal.go stabilizeRecommendation (no behavior: max over age <= window) and
  // stabilizeRecommendationWithBehaviors (min over age < up window, max over age < down
  // window, clamp current). The raw recommendation is then stored.
  [[nodiscard]] std::int32_t stabilize(autoscaler_state& state, ms now, std::int32_t current,
                                       std::int32_t raw) const {
    if (state.latest) {
      if (state.latest->at < now) push_window_entry(state, *state.latest);
      state.latest.reset();  // at == now: a retry replaces the earlier attempt
    }
    std::int32_t result = raw;
    if (config_.behavior) {
      std::int32_t up = raw, down = raw;
      if (up_window_.count() > 0) {
        expire(state.up_window, now - ms{up_window_}, true);
        if (!state.up_window.empty()) up = std::min(up, state.up_window.front().replicas);
      }
      expire(state.down_window, now - ms{down_window_}, true);
      if (!state.down_window.empty()) down = std::max(down, state.down_window.front().replicas);
      result = current;
      if (result < up) result = up;
      if (result > down) result = down;
    } else {
      expire(state.down_window, now - ms{down_window_}, false);
      if (!state.down_window.empty()) result = std::max(result, state.down_window.front().replicas);
    }
    state.latest = timestamped_recommendation{now, raw};
    return result;
  }

  struct limited {
    std::int32_t replicas = 0;
    hpa_reason reason = hpa_reason::desired_within_range;
  };

  // horizontal.go convertDesiredReplicasWithRules (no behavior) and
  // convertDesiredReplicasWithBehaviorRate.
  [[nodiscard]] limited limit(const autoscaler_state& state, ms now, std::int32_t current,
                              std::int32_t desired) const noexcept {
    const auto& c = config_;
    if (!c.behavior) {
      // calculateScaleUpLimit: int32(max(2 x current, 4)).
      const std::int64_t up_limit = std::max(2 * std::int64_t{current}, std::int64_t{4});
      const bool rate_binds = c.max_replicas > up_limit;
      const std::int32_t max_allowed = rate_binds ? detail::saturate(up_limit) : c.max_replicas;
      if (desired < c.min_replicas) return {c.min_replicas, hpa_reason::too_few_replicas};
      if (desired > max_allowed)
        return {max_allowed,
                rate_binds ? hpa_reason::scale_up_limit : hpa_reason::too_many_replicas};
      return {desired, hpa_reason::desired_within_range};
    }
    if (desired > current) {
      const std::int64_t up_limit = std::max(
          rate_limit(c.behavior->scale_up, true, state, now, current), std::int64_t{current});
      const bool rate_binds = c.max_replicas > up_limit;
      const std::int32_t max_allowed = rate_binds ? detail::saturate(up_limit) : c.max_replicas;
      if (desired > max_allowed)
        return {max_allowed,
                rate_binds ? hpa_reason::scale_up_limit : hpa_reason::too_many_replicas};
    } else if (desired < current) {
      const std::int64_t down_limit = std::min(
          rate_limit(c.behavior->scale_down, false, state, now, current), std::int64_t{current});
      const bool rate_binds = c.min_replicas < down_limit;
      const std::int32_t min_allowed = rate_binds ? detail::saturate(down_limit) : c.min_replicas;
      if (desired < min_allowed)
        return {min_allowed,
                rate_binds ? hpa_reason::scale_down_limit : hpa_reason::too_few_replicas};
    }
    return {desired, hpa_reason::desired_within_range};
  }

  [[nodiscard]] static scale_reason library_reason(hpa_reason r) noexcept {
    switch (r) {
      case hpa_reason::scale_up_limit:
        return scale_reason::scale_up_limited;
      case hpa_reason::scale_down_limit:
        return scale_reason::scale_down_limited;
      case hpa_reason::too_many_replicas:
        return scale_reason::too_many_replicas;
      case hpa_reason::too_few_replicas:
        return scale_reason::too_few_replicas;
      default:
        return scale_reason::desired_within_range;
    }
  }

  // ----- the HPA sync (horizontal.go reconcileAutoscaler) --------------------------------
  [[nodiscard]] autoscaler_decision step_hpa(autoscaler_state& state, ms now,
                                             const autoscaler_input& in) const {
    const auto& c = config_;
    if (state.last_sync.at == now) undo_last_sync(state);
    state.last_sync = {
        .at = now, .was_seeded = state.seeded, .scaled_to_zero = state.scaled_to_zero};
    const std::int32_t current = c.count_starting_replicas ? in.replicas.spec : in.replicas.ready;
    autoscaler_decision d;
    d.current_replicas = current;
    d.desired_replicas = current;
    d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::succeeded_get_scale};
    if (!state.seeded) {  // recordInitialRecommendation
      push_window_entry(state, {now, current});
      state.seeded = true;
    }
    const bool scaled_to_zero = state.scaled_to_zero == condition_status::is_true;

    // Clamping rules applied before the metrics are read.
    if (current == 0) {
      // shouldComputeMetricsForZeroReplicas: only a workload the HPA itself scaled to zero.
      const bool compute =
          (c.min_replicas != 0 && scaled_to_zero) || (scaled_to_zero && has_total_metric_);
      if (!compute) {
        d.reason = scale_reason::scaling_disabled;
        d.conditions.scaling_active = {condition_status::is_false, hpa_reason::scaling_disabled};
        return d;
      }
    } else if (current > c.max_replicas || current < c.min_replicas) {
      const bool above = current > c.max_replicas;
      d.desired_replicas = above ? c.max_replicas : c.min_replicas;
      d.reason = above ? scale_reason::above_max_replicas : scale_reason::below_min_replicas;
      rescaled(state, now, d);
      return d;
    }

    // Metrics (computeReplicasForMetrics): the largest proposal; a failed metric holds.
    const detail::tolerances tol{c.scale_up_tolerance, c.scale_down_tolerance};
    std::int32_t raw = 0;
    bool any_valid = false, raw_in_band = false, from_forecast = false;
    hpa_reason first_failure = hpa_reason::none;
    const auto metric_count = resolved_.size();
    static constexpr metric_observation missing{};
    for (std::size_t i = 0; i < metric_count; ++i) {
      const metric_observation& o = i < in.metrics.size() ? in.metrics[i] : missing;
      const auto p = propose(resolved_[i], o, in.replicas, current, tol);
      if (!p.valid) {
        if (d.first_failed_metric < 0) {
          d.first_failed_metric = static_cast<std::int32_t>(i);
          first_failure = resolved_[i].failure;
        }
        ++d.failed_metrics;
        continue;
      }
      if (raw == 0 || p.replicas > raw) {
        raw = p.replicas;
        raw_in_band = p.in_band;
        d.metric_index = static_cast<std::int32_t>(i);
      }
      any_valid = true;
    }
    if (!any_valid || (d.failed_metrics > 0 && raw < current)) {
      d.reason = scale_reason::metric_missing;  // hold; store nothing
      d.metric_index = d.first_failed_metric;
      d.conditions.scaling_active = {condition_status::is_false, first_failure};
      return d;
    }
    d.conditions.scaling_active = {condition_status::is_true, hpa_reason::valid_metric_found};
    raw = std::max(raw, 0);  // desiredReplicas starts at 0 and takes a larger proposal
    // Feed-forward (library extension): a forecast for t + T_start, combined by max.
    for (std::size_t i = 0; i < metric_count && i < in.metrics.size(); ++i) {
      if (!in.metrics[i].forecast) continue;
      const auto p = propose_total(resolved_[i], in.metrics[i].forecast, in.replicas, current, tol);
      if (p.valid && p.replicas > raw) {
        raw = p.replicas;
        raw_in_band = false;
        from_forecast = true;
        d.metric_index = static_cast<std::int32_t>(i);
      }
    }
    scale_reason reason = from_forecast ? scale_reason::forecast
                          : raw_in_band ? scale_reason::within_tolerance
                                        : scale_reason::desired_within_range;
    d.raw_recommendation = raw;

    // normalizeDesiredReplicas[WithBehaviors]: stabilization, then rate limits and min/max.
    const std::int32_t stabilized = stabilize(state, now, current, raw);
    d.stabilized_recommendation = stabilized;
    if (stabilized != raw) {
      const bool up = c.behavior && raw >= current;
      d.conditions.able_to_scale = {
          condition_status::is_true,
          up ? hpa_reason::scale_up_stabilized : hpa_reason::scale_down_stabilized};
      reason = up ? scale_reason::scale_up_stabilized : scale_reason::scale_down_stabilized;
    } else {
      d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::ready_for_new_scale};
    }
    const limited l = limit(state, now, current, stabilized);
    d.conditions.scaling_limited = {
        l.replicas == stabilized ? condition_status::is_false : condition_status::is_true,
        l.reason};
    if (l.replicas != stabilized) reason = library_reason(l.reason);
    std::int32_t desired = l.replicas;
    // Scaling up from zero with a raised minReplicas: at least minReplicas.
    if (current == 0 && c.min_replicas != 0 && scaled_to_zero && desired < c.min_replicas) {
      desired = c.min_replicas;
      reason = scale_reason::too_few_replicas;
    }
    // Library extension: no scale-down while replicas are on their way.
    if (c.hold_scale_down_while_starting && desired < current &&
        in.replicas.spec > in.replicas.ready) {
      desired = current;
      reason = scale_reason::waiting_for_starting;
    }
    d.desired_replicas = desired;
    d.reason = reason;
    if (desired != current) rescaled(state, now, d);
    return d;
  }

  // A successful rescale: AbleToScale, the scale event, and the ScaledToZero condition.
  void rescaled(autoscaler_state& state, ms now, autoscaler_decision& d) const {
    d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::succeeded_rescale};
    record_event(state, now, d.current_replicas, d.desired_replicas);
    if (d.current_replicas > 0 && d.desired_replicas == 0 && config_.min_replicas == 0 &&
        has_total_metric_) {
      state.scaled_to_zero = condition_status::is_true;
      d.conditions.scaled_to_zero = {condition_status::is_true, hpa_reason::scaled_to_zero};
    } else {
      state.scaled_to_zero = condition_status::is_false;
      d.conditions.scaled_to_zero = {condition_status::is_false, hpa_reason::not_scaled_to_zero};
    }
  }

  // ----- the KPA (knative/serving pkg/autoscaler/scaling/autoscaler.go Scale) ------------
  // Knative's max.window.Record: descending maxima over the last `delay_buckets_` ticks.
  void record_delay(autoscaler_state& state, ms now, std::int32_t value) const {
    auto& w = state.delay_window;
    const std::int64_t tick_s = knative_tick_interval.count();
    const std::int64_t index =
        detail::floor_div(now.count(), 1000) / tick_s;  // int(now.Unix()) / 2
    while (!w.empty() && !(value < w.back().value)) w.pop_back();
    while (!w.empty() && index - w.front().index >= delay_buckets_) w.pop_front();
    if (!w.empty() && w.back().index == index) {
      value = std::max(value, w.back().value);
      w.pop_back();
    }
    w.push_back({index, value});
  }

  [[nodiscard]] autoscaler_decision step_kpa(autoscaler_state& state, ms now,
                                             const autoscaler_input& in) const {
    const auto& k = *kpa_;
    autoscaler_decision d;
    d.current_replicas = in.replicas.spec;
    d.desired_replicas = in.replicas.spec;
    d.panicking = state.panicking;
    const double stable = in.kpa.stable_value, panic = in.kpa.panic_value;
    if (!detail::is_finite(stable) || !detail::is_finite(panic)) {
      d.reason = scale_reason::metric_missing;  // invalidSR: no data, no scale
      d.failed_metrics = 1;
      d.first_failed_metric = 0;
      d.metric_index = 0;
      return d;
    }
    const bool reachable = in.kpa.reachability == revision_reachability::reachable;
    const double target = k.target_value();
    const double ready = std::max(1.0, static_cast<double>(in.replicas.ready));
    const double max_up = std::ceil(k.max_scale_up_rate * ready);
    const double max_down = reachable ? std::floor(ready / k.max_scale_down_rate) : 0.0;
    const double dspc = std::ceil(stable / target);
    const double dppc = std::ceil(panic / target);
    std::int32_t desired_stable = detail::to_int32(std::min(std::max(dspc, max_down), max_up));
    std::int32_t desired_panic = detail::to_int32(std::min(std::max(dppc, max_down), max_up));
    if (k.activation_scale > 1) {
      if (dspc > 0 && k.activation_scale > desired_stable) desired_stable = k.activation_scale;
      if (dppc > 0 && k.activation_scale > desired_panic) desired_panic = k.activation_scale;
    }
    const bool over = dppc / ready >= k.panic_threshold;
    if (over) {
      state.panicking = true;  // begin, or extend, the panic
      state.panic_time = now;
    } else if (state.panicking && state.panic_time + ms{k.stable_window} < now) {
      state.panicking = false;  // the surge has reached the stable metric
      state.max_panic_replicas = 0;
    }
    std::int32_t desired = desired_stable;
    scale_reason reason = scale_reason::desired_within_range;
    if (state.panicking) {
      desired = std::max(desired, desired_panic);
      if (desired > state.max_panic_replicas) state.max_panic_replicas = desired;
      desired = state.max_panic_replicas;
      reason = scale_reason::panic;
    }
    d.raw_recommendation = desired;
    if (reachable && delay_buckets_ > 0) {
      record_delay(state, now, desired);
      const std::int32_t delayed = state.delay_window.front().value;
      if (delayed != desired) {
        desired = delayed;
        reason = scale_reason::scale_down_stabilized;
      }
    }
    d.stabilized_recommendation = desired;
    // Excess burst capacity: floor(ready x total - TBC - panic value).
    if (k.target_burst_capacity == 0.0) {
      d.excess_burst_capacity = 0;
    } else if (k.target_burst_capacity > 0.0) {
      d.excess_burst_capacity =
          detail::to_int32(std::floor(static_cast<double>(in.replicas.ready) * k.total_value() -
                                      k.target_burst_capacity - panic));
    } else {
      d.excess_burst_capacity = -1;
    }
    // pkg/reconciler/autoscaling/kpa/scaler.go applyBounds with ScaleBounds (min ignored while
    // unreachable; max 0 = unbounded).
    const std::int32_t low = reachable ? k.min_scale : 0;
    if (desired < low) {
      desired = low;
      reason = scale_reason::too_few_replicas;
    } else if (k.max_scale != 0 && desired > k.max_scale) {
      desired = k.max_scale;
      reason = scale_reason::too_many_replicas;
    }
    d.desired_replicas = desired;
    d.reason = reason;
    d.panicking = state.panicking;
    d.metric_index = 0;
    return d;
  }
};

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

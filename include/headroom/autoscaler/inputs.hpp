// SPDX-License-Identifier: Apache-2.0
// What one autoscaler step observes: quantities as Kubernetes reads them (whole milli-units),
// the replica counts, per-pod samples with groupPods' readiness rules, one observation per
// configured metric, and the KPA's window averages. docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "../detail/checks.hpp"
#include "arithmetic.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

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
}  // namespace detail

/// `value` as a quantity: rounded to the nearest micro-unit (the decimal the double stands
/// for), then up to a whole milli-unit as Quantity.MilliValue() rounds (ceil). Saturates at
/// the int64 range; a non-finite value is no value (nullopt: a missing sample). Defined here,
/// inline in both modes: the simulated day and the callers' steps convert every sample with it.
[[nodiscard]] inline std::optional<quantity> to_quantity(double value) noexcept {
  if (!detail::is_finite(value)) return std::nullopt;
  const double micro = value * detail::micro_per_unit;
  if (std::abs(micro) < detail::largest_exact_micro) {
    std::int64_t m = std::llround(micro);
    if (m == 0 && value > 0.0) m = 1;  // MilliValue rounds any positive value up to 1m
    return quantity{.milli = detail::ceil_div(m, detail::micro_per_milli)};
  }
  const double milli = std::ceil(value * static_cast<double>(milli_per_unit));
  if (milli >= detail::largest_int64_double) return quantity{.milli = detail::int64_max};
  if (milli <= -detail::largest_int64_double) return quantity{.milli = detail::int64_min};
  return quantity{.milli = static_cast<std::int64_t>(milli)};
}

/// How much the quantity conversion may move a metric's target, as a share of the target
/// (1 %, a tenth of the HPA's default tolerance band): the HPA divides by the target, so this
/// bounds the relative change of every count. A target is refused beyond it (0.0005 would read
/// as 0.001, twice as much); one >= 0.1, or a whole number of milli-units, always passes.
inline constexpr double quantity_target_tolerance = 1e-2;
/// How much the quantity conversion may move a metric value the library converts for the
/// caller (the simulated day's rates), as a share of its metric's target (1 %): the count it
/// asks for, value / target, then moves by at most 0.01 replica. With a target >= 0.1 every
/// value passes. The controller's own observations are read as Kubernetes reads them, in
/// whole milli-units, without this check.
inline constexpr double quantity_value_tolerance = 1e-2;

/// |to_quantity(value) − value| in units: how far reading `value` as a quantity moves it
/// (infinite for a value with no quantity, a non-finite one).
[[nodiscard]] HEADROOM_IMPL_INLINE double quantity_rounding(double value) noexcept;

/// The counts the HPA reads from the scale subresource and the pod list. During a scale-down
/// `ready` may exceed `spec` (pods still terminating).
struct replica_counts {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
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
/// The window of a resource sample by default: metrics-server's --metric-resolution, 1 min.
inline constexpr std::chrono::milliseconds default_metric_window{60'000};

/// What groupPods' CPU rule reads about one Running pod (times on the caller's clock).
struct cpu_readiness_facts {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::optional<std::chrono::milliseconds> start_time{};  ///< status.startTime; nullopt = unset
  ready_condition ready = ready_condition::is_true;       ///< the PodReady condition's status
  std::chrono::milliseconds ready_transition{0};          ///< its lastTransitionTime
  std::chrono::milliseconds sample_time{0};               ///< the metric sample's timestamp
  std::chrono::milliseconds sample_window = default_metric_window;  ///< the sample's window
  std::chrono::milliseconds now{0};                                 ///< the sync's time
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
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
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
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
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

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/inputs.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The autoscaler: a proportional controller with the Kubernetes HPA's semantics
// (pkg/controller/podautoscaler, v1.33-1.35), extended for model serving: replicas on
// their way, a spare-replica reserve, a feed-forward forecast and a Knative-KPA panic mode.
//
// The core is pure and clock-injected: the caller passes the time, the replica counts and
// the metric observations; the controller's memory (recommendation history, scale events,
// panic state) is a value, autoscaler_state, that the caller owns, can copy, store and
// restore. No threads, no clock reads, no allocation per step once the state is warm.
// The maths and the HPA/KEDA field mapping are in docs/autoscaler.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
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
// Configuration: a plain aggregate mirroring HPA autoscaling/v2 (spec.minReplicas,
// spec.maxReplicas, spec.metrics[], spec.behavior) plus the library's extensions.
// ---------------------------------------------------------------------------------------

/// Where a metric comes from, as in HPA autoscaling/v2 `metrics[].type`.
/// resource/pods are per-replica samples; object/external are one total value.
enum class metric_source : std::uint8_t { resource, pods, object, external };

/// The kind of target, as in HPA `target.type`: Utilization (percent of the request, resource
/// only), Value (a total, object/external only) or AverageValue (per replica, any source).
enum class metric_target_type : std::uint8_t { utilization, value, average_value };

/// One metric the controller watches and its target. `target` is in the metric's units:
/// percent for utilization (HPA: averageUtilization), per replica for average_value, the
/// whole total for value. Must be finite and > 0.
struct metric_spec {
  std::string name;  ///< for logs and manifests, e.g. "vllm:num_requests_running" or "cpu"
  metric_source source = metric_source::external;                      ///< HPA metrics[].type
  metric_target_type target_type = metric_target_type::average_value;  ///< HPA target.type
  double target = 1.0;  ///< target value in the metric's units (see above)
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

/// HPA HPAScalingRules for one direction. An EMPTY `policies` list means "no rate limit"
/// (a library extension: the Kubernetes API rejects an empty list).
struct scaling_rules {
  std::chrono::seconds stabilization_window{0};  ///< stabilizationWindowSeconds, >= 0
  select_policy select = select_policy::max;     ///< selectPolicy
  std::vector<scaling_policy> policies;          ///< policies; empty = unlimited
};

/// The HPA's default scale-up rules: window 0 s, Max of {Pods 4 / 15 s, Percent 100 / 15 s}.
[[nodiscard]] inline scaling_rules default_scale_up_rules() {
  return {std::chrono::seconds{0},
          select_policy::max,
          {{scaling_policy_type::pods, 4, std::chrono::seconds{15}},
           {scaling_policy_type::percent, 100, std::chrono::seconds{15}}}};
}

/// The HPA's default scale-down rules: window 300 s, Max of {Percent 100 / 15 s}.
[[nodiscard]] inline scaling_rules default_scale_down_rules() {
  return {std::chrono::seconds{300},
          select_policy::max,
          {{scaling_policy_type::percent, 100, std::chrono::seconds{15}}}};
}

/// HPA spec.behavior. Default-constructed, it holds the Kubernetes defaults.
struct scaling_behavior {
  scaling_rules scale_up = default_scale_up_rules();      ///< behavior.scaleUp
  scaling_rules scale_down = default_scale_down_rules();  ///< behavior.scaleDown
};

/// Knative-KPA panic mode. The caller feeds stable-window averages as the ordinary
/// observations and panic-window averages in autoscaler_input::panic.
struct panic_config {
  std::chrono::seconds stable_window{60};  ///< panic ends one stable window after the last
                                           ///< over-threshold step; > 0
  std::chrono::seconds panic_window{6};    ///< the caller's short averaging window; (0, stable]
  double threshold = 2.0;                  ///< panic while panic desired / ready >= threshold; >= 1
  double max_scale_up_rate = 1000.0;       ///< desired <= ceil(rate * ready); >= 1
  double max_scale_down_rate = 2.0;        ///< desired >= floor(ready / rate); >= 1
};

/// The controller's configuration. Defaults are the HPA's (no `behavior`, tolerance 0.1,
/// 300 s downscale stabilization). Validated once by the autoscaler constructor.
struct autoscaler_config {
  std::int32_t min_replicas = 1;             ///< spec.minReplicas; >= 0 (0 needs object/external)
  std::int32_t max_replicas = 10;            ///< spec.maxReplicas; >= max(1, min_replicas)
  std::vector<metric_spec> metrics;          ///< spec.metrics; at least one; combined by max
  double scale_up_tolerance = 0.1;           ///< hold while ratio <= 1 + this; >= 0
  double scale_down_tolerance = 0.1;         ///< hold while ratio >= 1 - this; >= 0
  std::optional<scaling_behavior> behavior;  ///< spec.behavior; nullopt = HPA without behavior
  /// Down window used without a `behavior` (kube-controller-manager
  /// --horizontal-pod-autoscaler-downscale-stabilization); >= 0.
  std::chrono::seconds downscale_stabilization{300};
  /// Expected period between steps; only sizes the state's buffers up front. > 0.
  std::chrono::milliseconds sync_period{15'000};
  /// Count requested-but-not-ready replicas in the current count (HPA: spec.replicas).
  /// false models a naive controller that compares with ready replicas only.
  bool count_starting_replicas = true;
  /// Never scale down while some replicas are still starting.
  bool hold_scale_down_while_starting = false;
  /// Spare replicas added to every metric-based recommendation (also to forecasts); >= 0.
  /// Total metrics test the tolerance band against the replicas net of the reserve.
  std::int32_t reserve_replicas = 0;
  /// Knative-KPA panic mode and its rate bounds; nullopt = off.
  std::optional<panic_config> panic;
};

// ---------------------------------------------------------------------------------------
// Observations, decisions, state.
// ---------------------------------------------------------------------------------------

/// One replica's sample of a per-replica metric. NaN (or any non-finite) value = the replica
/// reported nothing (a "missing" pod); ready = false = the replica is not ready (pending).
struct replica_sample {
  double value = std::numeric_limits<double>::quiet_NaN();  ///< metric units (percent for
                                                            ///< utilization)
  bool ready = true;                                        ///< counted as ready by the HPA
};

/// One observation of one metric, index-aligned with autoscaler_config::metrics.
/// Object/external metrics read `total`; resource/pods metrics read `replicas`.
/// A non-finite total or no ready replica with a sample = the metric is missing.
struct metric_observation {
  double total = std::numeric_limits<double>::quiet_NaN();  ///< the metric's total value
  std::span<const replica_sample> replicas{};               ///< one per existing replica
};

/// Shorthand for an object/external observation.
[[nodiscard]] constexpr metric_observation observe_total(double total) noexcept {
  return metric_observation{total, {}};
}
/// Shorthand for a resource/pods observation (the span must outlive the step call).
[[nodiscard]] constexpr metric_observation observe_replicas(
    std::span<const replica_sample> replicas) noexcept {
  return metric_observation{std::numeric_limits<double>::quiet_NaN(), replicas};
}

/// What one step sees. Spans are index-aligned with autoscaler_config::metrics; a shorter
/// span leaves the remaining metrics missing (forecast/panic: absent).
struct autoscaler_input {
  std::int32_t ready_replicas = 0;                ///< ready and serving; >= 0
  std::int32_t starting_replicas = 0;             ///< requested, not ready yet (on their way); >= 0
  std::span<const metric_observation> metrics{};  ///< observations now
  /// Feed-forward: observations forecast for t + T_start (a calendar, a seasonal profile).
  /// Their recommendation is combined with the reactive one by max. Non-finite = no forecast.
  std::span<const metric_observation> forecast{};
  /// Panic-window observations (only with autoscaler_config::panic).
  std::span<const metric_observation> panic{};
};

/// Why the controller decided what it decided (HPA condition reasons where they exist).
enum class scale_reason : std::uint8_t {
  desired_within_range,   ///< the metric recommendation applied as is
  within_tolerance,       ///< metrics inside the tolerance band: current kept
  scale_up_stabilized,    ///< held below the recommendation by the up window
  scale_down_stabilized,  ///< held above the recommendation by the down window
  scale_up_limited,       ///< capped by the scale-up rate (policies or max(2n, 4))
  scale_down_limited,     ///< capped by the scale-down rate policies
  too_many_replicas,      ///< capped at max_replicas
  too_few_replicas,       ///< raised to min_replicas
  above_max_replicas,     ///< current > max: set to max without reading metrics
  below_min_replicas,     ///< current < min: set to min without reading metrics
  scaling_disabled,       ///< current == 0 and min_replicas > 0: the HPA does nothing
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
/// The Kubernetes spelling: "Resource", "Pods", "Object", "External".
[[nodiscard]] constexpr std::string_view to_string(metric_source source) noexcept {
  switch (source) {
    case metric_source::resource:
      return "Resource";
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
  /// Metric-based recommendation (max over metrics and forecast, plus reserve, panic
  /// applied) before stabilization and limits; -1 when metrics were not used.
  std::int32_t raw_recommendation = -1;
  /// After the stabilization windows, before the rate limits; -1 when not computed.
  std::int32_t stabilized_recommendation = -1;
  scale_reason reason = scale_reason::desired_within_range;  ///< why
  std::int32_t metric_index = -1;         ///< metric that set the raw recommendation, or -1
  std::int32_t failed_metrics = 0;        ///< metrics missing or non-finite this step
  std::int32_t first_failed_metric = -1;  ///< index of the first of them, or -1
  bool panicking = false;                 ///< KPA panic mode active after this step
  /// desired - current: replicas to start (> 0) or to stop (< 0).
  [[nodiscard]] constexpr std::int32_t delta() const noexcept {
    return desired_replicas - current_replicas;
  }
  /// true when the count changes.
  [[nodiscard]] constexpr bool rescale() const noexcept {
    return desired_replicas != current_replicas;
  }
};

/// A raw recommendation and when it was made (time since the caller's epoch).
struct timestamped_recommendation {
  std::chrono::milliseconds at{0};  ///< when
  std::int32_t replicas = 0;        ///< the raw recommendation
  friend constexpr bool operator==(const timestamped_recommendation&,
                                   const timestamped_recommendation&) = default;
};

/// A real scale change of |change| replicas, recorded for the rate policies.
struct scale_event {
  std::chrono::milliseconds at{0};  ///< when
  std::int32_t change = 0;          ///< replicas added or removed (> 0)
  friend constexpr bool operator==(const scale_event&, const scale_event&) = default;
};

/// The controller's whole memory, a value: copy it to checkpoint, assign it to restore.
/// Entries are recycled in place, so the vectors stop growing once warm.
struct autoscaler_state {
  bool started = false;  ///< false until the first step (or initial_state(at, n)) seeds history
  std::vector<timestamped_recommendation> recommendations;  ///< raw recommendation history
  std::vector<scale_event> scale_up_events;                 ///< with a behavior only
  std::vector<scale_event> scale_down_events;               ///< with a behavior only
  bool panicking = false;                                   ///< KPA panic mode
  std::chrono::milliseconds panic_time{0};                  ///< last step over the panic threshold
  std::int32_t max_panic_replicas = 0;                      ///< largest desired count in this panic
  /// The time of the latest step (or of the seed); a step at an earlier time is refused.
  std::chrono::milliseconds last_time{std::chrono::milliseconds::min()};
  friend bool operator==(const autoscaler_state&, const autoscaler_state&) = default;
};

namespace detail {

inline constexpr std::int32_t replicas_max = std::numeric_limits<std::int32_t>::max();

/// A double replica count to int32, saturating; NaN and negatives give 0.
[[nodiscard]] inline std::int32_t to_replicas(double x) noexcept {
  if (!(x > 0.0)) return 0;
  if (x >= static_cast<double>(replicas_max)) return replicas_max;
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
  constexpr double limit = 4.0e18;
  if (!(x == x)) return 0;
  return static_cast<std::int64_t>(std::clamp(x, -limit, limit));
}
/// A sample in milli-units (Kubernetes quantities are integers of milli-units).
[[nodiscard]] inline std::int64_t to_milli(double value) noexcept {
  return std::llround(std::clamp(value, -1.0e15, 1.0e15) * 1000.0);
}
/// a + b, saturating at both ends of int64 (sums of milli-unit samples must not overflow).
[[nodiscard]] constexpr std::int64_t add_saturated(std::int64_t a, std::int64_t b) noexcept {
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  if (b > 0 && a > hi - b) return hi;
  if (b < 0 && a < lo - b) return lo;
  return a + b;
}
/// count * value for count >= 0, saturating at both ends of int64.
[[nodiscard]] constexpr std::int64_t mul_saturated(std::int64_t count,
                                                   std::int64_t value) noexcept {
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  if (count == 0 || value == 0) return 0;
  if (value > 0 && count > hi / value) return hi;
  if (value < 0 && count > lo / value) return lo;
  return count * value;
}

struct proposal {
  std::int32_t replicas = 0;
  bool valid = false;
  bool in_band = false;  // held at the current count (tolerance or direction flip)
};

struct replica_counts {
  std::int32_t current = 0;  // spec.replicas as counted
  std::int32_t status = 0;   // replicas that exist (ready + starting)
  std::int32_t ready = 0;    // ready replicas
};

}  // namespace detail

/// The controller. Holds only the validated configuration; every call takes the state.
class autoscaler {
 public:
  /// Validates `config` (throws headroom::invalid_argument naming the field and value).
  explicit autoscaler(autoscaler_config config) : config_(std::move(config)) {
    validate();
    longest_up_period_ = longest_period(true);
    longest_down_period_ = longest_period(false);
  }

  /// The validated configuration.
  [[nodiscard]] const autoscaler_config& config() const noexcept { return config_; }

  /// An empty state with its buffers reserved from the windows and sync_period. The history
  /// is seeded with {current at t0} on the first step, as the HPA does.
  [[nodiscard]] autoscaler_state initial_state() const {
    autoscaler_state state;
    const auto period = config_.sync_period.count();
    const auto window = std::chrono::milliseconds{longest_window()}.count();
    state.recommendations.reserve(static_cast<std::size_t>(window / period + 4));
    state.scale_up_events.reserve(static_cast<std::size_t>(
        std::chrono::milliseconds{longest_up_period_}.count() / period + 4));
    state.scale_down_events.reserve(static_cast<std::size_t>(
        std::chrono::milliseconds{longest_down_period_}.count() / period + 4));
    return state;
  }

  /// A state whose history is seeded with {replicas at `at`}. Seeding at t0 - period makes
  /// the first steps' down window cover exactly the seed plus the steps since (the
  /// simulated day's "last five recommendations" start as five copies of the initial count).
  [[nodiscard]] autoscaler_state initial_state(std::chrono::milliseconds at,
                                               std::int32_t replicas) const {
    if (replicas < 0) detail::fail("replicas", replicas, "must be >= 0");
    autoscaler_state state = initial_state();
    state.recommendations.push_back({at, replicas});
    state.started = true;
    state.last_time = at;
    return state;
  }

  /// One sync: decides the replica count at time `now` (any epoch, monotone across calls)
  /// and updates `state`. Throws invalid_argument only for negative replica counts;
  /// missing or NaN observations make it hold and say why.
  [[nodiscard]] autoscaler_decision step(autoscaler_state& state, std::chrono::milliseconds now,
                                         const autoscaler_input& in) const {
    if (in.ready_replicas < 0)
      detail::fail("input.ready_replicas", in.ready_replicas, "must be >= 0");
    if (in.starting_replicas < 0)
      detail::fail("input.starting_replicas", in.starting_replicas, "must be >= 0");
    // The spans are index-aligned with config.metrics: a longer one is a caller's mix-up.
    const std::size_t metric_count = config_.metrics.size();
    if (in.metrics.size() > metric_count)
      detail::fail("input.metrics.size()", in.metrics.size(), "must be <= config.metrics.size()");
    if (in.forecast.size() > metric_count)
      detail::fail("input.forecast.size()", in.forecast.size(), "must be <= config.metrics.size()");
    if (in.panic.size() > metric_count)
      detail::fail("input.panic.size()", in.panic.size(), "must be <= config.metrics.size()");
    if (now < state.last_time)
      detail::fail("now", now, "must not be earlier than the previous step's time");
    state.last_time = now;
    return step_unchecked(state, now, in);
  }

 private:
  using ms = std::chrono::milliseconds;

  /// The longest window or period accepted: a year and a day keeps every sum of times in
  /// milliseconds far from overflowing (Kubernetes itself caps windows at 3600 s and periods
  /// at 1800 s; kubernetes.hpp enforces those for manifests).
  static constexpr std::chrono::seconds longest_duration{366 * 24 * 3600};

  autoscaler_config config_;
  std::chrono::seconds longest_up_period_{0};
  std::chrono::seconds longest_down_period_{0};

  // ----- validation -----------------------------------------------------------------
  static void validate_rules(const scaling_rules& rules, const char* window_name,
                             const char* value_name, const char* period_name) {
    if (rules.stabilization_window.count() < 0 || rules.stabilization_window > longest_duration)
      detail::fail(window_name, rules.stabilization_window, "must lie in [0 s, 366 days]");
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
      has_total = has_total || total;
      if (m.target_type == metric_target_type::utilization && m.source != metric_source::resource)
        detail::fail("config.metrics.target_type", m.name,
                     "Utilization is only valid for a Resource metric");
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
    if (c.panic) {
      const auto& p = *c.panic;
      if (p.stable_window.count() <= 0 || p.stable_window > longest_duration)
        detail::fail("config.panic.stable_window", p.stable_window, "must lie in (0 s, 366 days]");
      if (p.panic_window.count() <= 0 || p.panic_window > p.stable_window)
        detail::fail("config.panic.panic_window", p.panic_window,
                     "must be > 0 and <= config.panic.stable_window");
      if (!(detail::is_finite(p.threshold) && p.threshold >= 1.0))
        detail::fail("config.panic.threshold", p.threshold, "must be finite and >= 1");
      if (!(detail::is_finite(p.max_scale_up_rate) && p.max_scale_up_rate >= 1.0))
        detail::fail("config.panic.max_scale_up_rate", p.max_scale_up_rate,
                     "must be finite and >= 1");
      if (!(detail::is_finite(p.max_scale_down_rate) && p.max_scale_down_rate >= 1.0))
        detail::fail("config.panic.max_scale_down_rate", p.max_scale_down_rate,
                     "must be finite and >= 1");
    }
  }

  [[nodiscard]] std::chrono::seconds longest_period(bool up) const noexcept {
    std::chrono::seconds longest{0};
    if (!config_.behavior) return longest;
    const auto& rules = up ? config_.behavior->scale_up : config_.behavior->scale_down;
    for (const auto& p : rules.policies) longest = std::max(longest, p.period);
    return longest;
  }

  [[nodiscard]] std::chrono::seconds longest_window() const noexcept {
    if (!config_.behavior) return config_.downscale_stabilization;
    return std::max(config_.behavior->scale_up.stabilization_window,
                    config_.behavior->scale_down.stabilization_window);
  }

  // ----- one metric -> a replica proposal (replica_calculator.go) -----------------------
  [[nodiscard]] static bool in_band(double ratio, double tol_up, double tol_down) noexcept {
    return ratio >= 1.0 - tol_down && ratio <= 1.0 + tol_up;
  }

  [[nodiscard]] std::int32_t plus_reserve(std::int32_t replicas) const noexcept {
    return detail::saturate(std::int64_t{replicas} + config_.reserve_replicas);
  }

  [[nodiscard]] detail::proposal propose(const metric_spec& m, const metric_observation& o,
                                         const detail::replica_counts& n, double tol_up,
                                         double tol_down) const noexcept {
    if (m.source == metric_source::object || m.source == metric_source::external)
      return propose_total(m, o, n, tol_up, tol_down);
    return propose_per_replica(m, o, n, tol_up, tol_down);
  }

  // Object/External. Value: r = total/target, band -> current, else ceil(r * ready), and
  // ceil(r) from zero. AverageValue: band on total/(target * status), else ceil(total/target).
  // With a reserve k, the counts are taken net of k and k is added back.
  [[nodiscard]] detail::proposal propose_total(const metric_spec& m, const metric_observation& o,
                                               const detail::replica_counts& n, double tol_up,
                                               double tol_down) const noexcept {
    if (!detail::is_finite(o.total)) return {};
    const std::int32_t k = config_.reserve_replicas;
    if (m.target_type == metric_target_type::value) {
      const double ratio = o.total / m.target;
      if (n.current - k > 0) {
        if (in_band(ratio, tol_up, tol_down)) return {n.current, true, true};
        const double ready_net = static_cast<double>(std::max(0, n.ready - k));
        return {plus_reserve(detail::to_replicas(std::ceil(ratio * ready_net))), true, false};
      }
      return {plus_reserve(detail::to_replicas(std::ceil(ratio))), true, false};
    }
    const std::int32_t status_net = std::max(0, n.status - k);
    const double ratio = o.total / (m.target * static_cast<double>(status_net));
    if (in_band(ratio, tol_up, tol_down)) return {plus_reserve(status_net), true, true};
    return {plus_reserve(detail::to_replicas(std::ceil(o.total / m.target))), true, false};
  }

  // Resource/Pods: average over ready replicas with a sample, truncated (integer percent
  // for utilization, milli-units for averages); missing replicas count as the fallback on
  // scale down and 0 on scale up; not-ready replicas count as 0 on scale up only.
  [[nodiscard]] detail::proposal propose_per_replica(const metric_spec& m,
                                                     const metric_observation& o,
                                                     const detail::replica_counts& n, double tol_up,
                                                     double tol_down) const noexcept {
    const bool utilization = m.target_type == metric_target_type::utilization;
    std::int64_t sum_milli = 0;
    std::int64_t reported = 0, missing = 0, unready = 0;
    for (const auto& s : o.replicas) {
      if (!s.ready) {
        ++unready;
      } else if (!detail::is_finite(s.value)) {
        ++missing;
      } else {
        sum_milli = detail::add_saturated(sum_milli, detail::to_milli(s.value));
        ++reported;
      }
    }
    if (reported == 0) return {};
    const auto ratio_of = [&](std::int64_t sum, std::int64_t count) noexcept {
      if (utilization) {
        const std::int64_t percent = sum / (count * 1000);  // truncated, as the HPA
        return static_cast<double>(percent) / m.target;
      }
      const std::int64_t average_milli = sum / count;  // truncated milli-units
      return static_cast<double>(average_milli) / (m.target * 1000.0);
    };
    const double ratio = ratio_of(sum_milli, reported);
    const bool up_with_unready = unready > 0 && ratio > 1.0;
    if (!up_with_unready && missing == 0) {
      if (in_band(ratio, tol_up, tol_down)) return {n.current, true, true};
      return {plus_reserve(detail::to_replicas(std::ceil(ratio * static_cast<double>(reported)))),
              true, false};
    }
    std::int64_t sum2 = sum_milli, count2 = reported;
    if (missing > 0) {
      if (ratio < 1.0) {
        const double fallback = utilization ? std::max(100.0, m.target) : m.target;
        sum2 =
            detail::add_saturated(sum2, detail::mul_saturated(missing, detail::to_milli(fallback)));
        count2 += missing;
      } else if (ratio > 1.0 || !utilization) {
        count2 += missing;  // counted as using 0
      }
    }
    if (up_with_unready) count2 += unready;  // counted as using 0
    const double new_ratio = ratio_of(sum2, count2);
    if (in_band(new_ratio, tol_up, tol_down) || (ratio < 1.0 && new_ratio > 1.0) ||
        (ratio > 1.0 && new_ratio < 1.0))
      return {n.current, true, true};
    const std::int32_t replicas =
        detail::to_replicas(std::ceil(new_ratio * static_cast<double>(count2)));
    if ((new_ratio < 1.0 && replicas > n.current) || (new_ratio > 1.0 && replicas < n.current))
      return {n.current, true, true};
    return {plus_reserve(replicas), true, false};
  }

  // ----- rate policies (horizontal.go, calculateScale{Up,Down}Limit...) ------------------
  [[nodiscard]] static std::int64_t changes_within(const std::vector<scale_event>& events, ms now,
                                                   std::chrono::seconds period) noexcept {
    std::int64_t sum = 0;
    for (const auto& e : events)
      if (now - e.at < period) sum += e.change;
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
    for (const auto& p : rules.policies) {
      const std::int64_t start = std::int64_t{current} -
                                 changes_within(state.scale_up_events, now, p.period) +
                                 changes_within(state.scale_down_events, now, p.period);
      const double start_d = static_cast<double>(start);
      const double fraction = static_cast<double>(p.value) / 100.0;
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

  // Records |to - from| in place of an event older than the direction's longest period.
  void record_event(autoscaler_state& state, ms now, std::int32_t from, std::int32_t to) const {
    if (!config_.behavior || from == to) return;
    const bool up = to > from;
    auto& events = up ? state.scale_up_events : state.scale_down_events;
    const auto longest = up ? longest_up_period_ : longest_down_period_;
    const scale_event event{now, up ? to - from : from - to};
    for (auto& e : events) {
      if (now - e.at > longest) {
        e = event;
        return;
      }
    }
    events.push_back(event);
  }

  // ----- the step -----------------------------------------------------------------------
  [[nodiscard]] autoscaler_decision step_unchecked(autoscaler_state& state, ms now,
                                                   const autoscaler_input& in) const {
    const auto& c = config_;
    const std::int32_t status =
        detail::saturate(std::int64_t{in.ready_replicas} + in.starting_replicas);
    const std::int32_t current = c.count_starting_replicas ? status : in.ready_replicas;
    autoscaler_decision d;
    d.current_replicas = current;
    d.desired_replicas = current;
    d.panicking = state.panicking;
    if (!state.started) {
      state.recommendations.push_back({now, current});
      state.started = true;
    }

    // Clamping rules applied before the metrics are read.
    if (current == 0 && c.min_replicas != 0) {
      d.reason = scale_reason::scaling_disabled;
      return d;
    }
    if (current > c.max_replicas || current < c.min_replicas) {
      const bool above = current > c.max_replicas;
      d.desired_replicas = above ? c.max_replicas : c.min_replicas;
      d.reason = above ? scale_reason::above_max_replicas : scale_reason::below_min_replicas;
      record_event(state, now, current, d.desired_replicas);
      return d;
    }

    // Metrics, combined by max; HPA rules for failed metrics.
    const detail::replica_counts counts{current, status, in.ready_replicas};
    std::int32_t raw = 0;
    bool any_valid = false, raw_in_band = false, from_forecast = false;
    const auto metric_count = c.metrics.size();
    for (std::size_t i = 0; i < metric_count; ++i) {
      const metric_observation o = i < in.metrics.size() ? in.metrics[i] : metric_observation{};
      const auto p = propose(c.metrics[i], o, counts, c.scale_up_tolerance, c.scale_down_tolerance);
      if (!p.valid) {
        if (d.first_failed_metric < 0) d.first_failed_metric = static_cast<std::int32_t>(i);
        ++d.failed_metrics;
        continue;
      }
      if (!any_valid || p.replicas > raw) {
        raw = p.replicas;
        raw_in_band = p.in_band;
        d.metric_index = static_cast<std::int32_t>(i);
        any_valid = true;
      }
    }
    if (!any_valid || (d.failed_metrics > 0 && raw < current)) {
      d.reason = scale_reason::metric_missing;  // hold; store nothing
      d.metric_index = d.first_failed_metric;
      return d;
    }
    // Feed-forward: a forecast for t + T_start, combined by max.
    for (std::size_t i = 0; i < metric_count && i < in.forecast.size(); ++i) {
      const auto p = propose(c.metrics[i], in.forecast[i], counts, c.scale_up_tolerance,
                             c.scale_down_tolerance);
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

    if (c.panic) raw = apply_panic(state, now, in, counts, raw, reason);
    d.panicking = state.panicking;
    d.raw_recommendation = raw;

    // Stabilization windows, then rate limits and min/max.
    const std::int32_t stabilized = stabilize(state, now, current, raw);
    d.stabilized_recommendation = stabilized;
    if (stabilized > raw) reason = scale_reason::scale_down_stabilized;
    if (stabilized < raw) reason = scale_reason::scale_up_stabilized;
    std::int32_t desired = limit(state, now, current, stabilized, reason);

    if (c.hold_scale_down_while_starting && desired < current && in.starting_replicas > 0) {
      desired = current;
      reason = scale_reason::waiting_for_starting;
    }
    d.desired_replicas = desired;
    d.reason = reason;
    record_event(state, now, current, desired);
    return d;
  }

  // KPA: bound to [floor(ready/down_rate), ceil(up_rate*ready)]; panic while the panic-window
  // count over ready replicas >= threshold; no decrease in panic; exit after one stable
  // window without crossing the threshold.
  [[nodiscard]] std::int32_t apply_panic(autoscaler_state& state, ms now,
                                         const autoscaler_input& in,
                                         const detail::replica_counts& counts, std::int32_t raw,
                                         scale_reason& reason) const noexcept {
    const auto& p = *config_.panic;
    const double ready = std::max(1.0, static_cast<double>(in.ready_replicas));
    const std::int32_t low = detail::to_replicas(std::floor(ready / p.max_scale_down_rate));
    const std::int32_t high = detail::to_replicas(std::ceil(p.max_scale_up_rate * ready));
    std::int32_t panic_count = raw;
    bool any = false;
    for (std::size_t i = 0; i < config_.metrics.size() && i < in.panic.size(); ++i) {
      const auto q = propose(config_.metrics[i], in.panic[i], counts, 0.0, 0.0);
      if (q.valid && (!any || q.replicas > panic_count)) {
        panic_count = q.replicas;
        any = true;
      }
    }
    const bool over = static_cast<double>(panic_count) / ready >= p.threshold;
    if (over) {
      state.panicking = true;
      state.panic_time = now;
    } else if (state.panicking && state.panic_time + p.stable_window < now) {
      state.panicking = false;
      state.max_panic_replicas = 0;
    }
    const std::int32_t stable = std::clamp(raw, low, high);
    if (!state.panicking) return stable;
    const std::int32_t wanted = std::max(stable, std::clamp(panic_count, low, high));
    state.max_panic_replicas = std::max(state.max_panic_replicas, wanted);
    reason = scale_reason::panic;
    return state.max_panic_replicas;
  }

  // HPA stabilizeRecommendation[WithBehaviors]: min over the up window, max over the down
  // window (age < window with a behavior, age <= window without), clamp current; then store
  // the raw recommendation in place of one no window can see any more.
  [[nodiscard]] std::int32_t stabilize(autoscaler_state& state, ms now, std::int32_t current,
                                       std::int32_t raw) const {
    auto& history = state.recommendations;
    std::size_t stale = history.size();
    std::int32_t result = raw;
    if (config_.behavior) {
      // age < window  <=>  at > now - window (cutoffs hoisted; the loop is branch-free).
      const ms up_cutoff = now - ms{config_.behavior->scale_up.stabilization_window};
      const ms down_cutoff = now - ms{config_.behavior->scale_down.stabilization_window};
      std::int32_t up = raw, down = raw;
      for (std::size_t i = 0; i < history.size(); ++i) {
        const bool in_up = history[i].at > up_cutoff, in_down = history[i].at > down_cutoff;
        const std::int32_t r = history[i].replicas;
        up = in_up && r < up ? r : up;
        down = in_down && r > down ? r : down;
        stale = !in_up && !in_down ? i : stale;
      }
      result = std::clamp(current, up, down);  // up <= raw <= down
    } else {
      // age <= window  <=>  at >= now - window.
      const ms cutoff = now - ms{config_.downscale_stabilization};
      for (std::size_t i = 0; i < history.size(); ++i) {
        const bool seen = history[i].at >= cutoff;
        const std::int32_t r = history[i].replicas;
        result = seen && r > result ? r : result;
        stale = seen ? stale : i;
      }
    }
    if (stale < history.size())
      history[stale] = {now, raw};
    else
      history.push_back({now, raw});
    return result;
  }

  // HPA convertDesiredReplicasWithBehaviorRate / convertDesiredReplicasWithRules.
  [[nodiscard]] std::int32_t limit(const autoscaler_state& state, ms now, std::int32_t current,
                                   std::int32_t desired, scale_reason& reason) const noexcept {
    const auto& c = config_;
    if (!c.behavior) {
      const std::int64_t up_limit = std::max(2 * std::int64_t{current}, std::int64_t{4});
      const bool rate_binds = c.max_replicas > up_limit;
      const std::int32_t max_allowed =
          rate_binds ? static_cast<std::int32_t>(up_limit) : c.max_replicas;
      if (desired < c.min_replicas) {
        reason = scale_reason::too_few_replicas;
        return c.min_replicas;
      }
      if (desired > max_allowed) {
        reason = rate_binds ? scale_reason::scale_up_limited : scale_reason::too_many_replicas;
        return max_allowed;
      }
      return desired;
    }
    if (desired > current) {
      const std::int64_t up_limit = std::max(
          rate_limit(c.behavior->scale_up, true, state, now, current), std::int64_t{current});
      const bool rate_binds = c.max_replicas > up_limit;
      const std::int32_t max_allowed = rate_binds ? detail::saturate(up_limit) : c.max_replicas;
      if (desired > max_allowed) {
        reason = rate_binds ? scale_reason::scale_up_limited : scale_reason::too_many_replicas;
        return max_allowed;
      }
    } else if (desired < current) {
      const std::int64_t down_limit = std::min(
          rate_limit(c.behavior->scale_down, false, state, now, current), std::int64_t{current});
      const bool rate_binds = c.min_replicas < down_limit;
      const std::int32_t min_allowed = rate_binds ? detail::saturate(down_limit) : c.min_replicas;
      if (desired < min_allowed) {
        reason = rate_binds ? scale_reason::scale_down_limited : scale_reason::too_few_replicas;
        return min_allowed;
      }
    }
    return desired;
  }
};

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

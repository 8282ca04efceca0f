// SPDX-License-Identifier: Apache-2.0
// The autoscaler controller: the Kubernetes HorizontalPodAutoscaler's decision and the Knative
// KPA's, as a const configuration and a state the caller owns (autoscaler_state): step(state,
// now, input). Part of autoscaler.hpp, which says where each upstream input goes;
// docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "arithmetic.hpp"
#include "config.hpp"
#include "decision.hpp"
#include "inputs.hpp"
#include "rate_limits.hpp"
#include "replica_calculator.hpp"
#include "state.hpp"
#include "validation.hpp"
#include "windows.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

namespace detail {
/// The latest and earliest `now` accepted: any two accepted times differ by less than 2^63 ms
/// and a window (<= 366 days) subtracted from one stays in range (about ±127 million years).
inline constexpr std::int64_t time_limit_ms = 4'000'000'000'000'000'000;
}  // namespace detail

/// The controller. Holds only the validated configuration; every call takes the state.
/// Built from an autoscaler_config it decides as the Kubernetes HPA; built from a kpa_config,
/// as the Knative KPA.
class autoscaler {
 public:
  /// An HPA. Validates `config` (throws headroom::invalid_argument naming field and value).
  HEADROOM_DECL explicit autoscaler(autoscaler_config config);

  /// A Knative KPA. Validates `config` as Knative's config validation does.
  HEADROOM_DECL explicit autoscaler(kpa_config config);

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
  [[nodiscard]] HEADROOM_DECL autoscaler_state initial_state() const;

  /// A state as the controller would hold it had it set `replicas` itself at `at`: the HPA's
  /// windows hold {replicas at `at`} (and a count of 0 carries ScaledToZero when the HPA may
  /// scale to zero); the KPA starts as newAutoscaler does (panicking when replicas > 1). Seeding
  /// at t0 - period makes the first steps' down window cover exactly that entry plus the steps
  /// since.
  [[nodiscard]] HEADROOM_DECL autoscaler_state initial_state(std::chrono::milliseconds at,
                                                             std::int32_t replicas) const;

  /// A state taken over from a running HPA: its recommendations (any order), its scale
  /// events in upstream's order with their outdated marks, and its ScaledToZero condition.
  /// Steps before the latest time in the history are refused.
  [[nodiscard]] HEADROOM_DECL autoscaler_state state_from_history(const hpa_history& history) const;

  /// One sync: decides the replica count at time `now` (any epoch, never earlier than the
  /// previous step; |now| <= 4e18 ms) and updates `state`. A second step at the same `now` is
  /// a retry of that sync: it decides on the state as it was before the first attempt and
  /// replaces that attempt's recommendation and scale event. Throws
  /// invalid_argument for negative counts, a misaligned metrics span, a negative request or an
  /// out-of-range `now`; missing or failed observations make it hold and say why.
  [[nodiscard]] HEADROOM_DECL autoscaler_decision step(autoscaler_state& state,
                                                       std::chrono::milliseconds now,
                                                       const autoscaler_input& in) const;

 private:
  using ms = std::chrono::milliseconds;

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

  // Whether the release follows 1.36's zero-replica rule (kubernetes#135118): scale up from
  // zero only under ScaledToZero. Before 1.36: minReplicas 0 alone lets the HPA compute.
  [[nodiscard]] HEADROOM_IMPL_INLINE bool scaled_to_zero_rule() const noexcept;
  // Whether the HPA keeps a ScaledToZero condition: 1.36+ with HPAScaleToZero on (every
  // gate is on when no release is named).
  [[nodiscard]] HEADROOM_IMPL_INLINE bool scaled_to_zero_condition_kept() const noexcept;

  HEADROOM_IMPL_INLINE static void check_time(const char* name, ms t);

  HEADROOM_IMPL_INLINE void resolve();

  // horizontal.go getLongestPolicyPeriod.
  [[nodiscard]] HEADROOM_IMPL_INLINE static std::chrono::seconds longest_period(
      const scaling_rules& rules) noexcept;

  // horizontal.go storeScaleEvent + markScaleEventsOutdated: mark the events older than the
  // direction's longest policy period outdated, reuse the last outdated slot or append, and
  // remember what was overwritten for a retry at the same instant.
  HEADROOM_IMPL_INLINE void record_event(autoscaler_state& state, ms now, std::int32_t from,
                                         std::int32_t to) const;

  // A retry at the instant of the latest sync: take back what that sync changed (its scale
  // event, its ScaledToZero, its recommendation, the initial entry it planted), so the retry
  // decides on the state as it was before. Outdated marks stay: they are what the next store marks.
  HEADROOM_IMPL_INLINE static void undo_last_sync(autoscaler_state& state);

  // ----- the stabilization windows (autoscaler/windows.hpp) -----------------------------
  HEADROOM_IMPL_INLINE void push_window_entry(autoscaler_state& state,
                                              const timestamped_recommendation& e) const;

  // horizontal.go stabilizeRecommendation (no behavior: max over age <= window) and
  // stabilizeRecommendationWithBehaviors (min over age < up window, max over age < down
  // window, clamp current). The raw recommendation is then stored.
  [[nodiscard]] HEADROOM_IMPL_INLINE std::int32_t stabilize(autoscaler_state& state, ms now,
                                                            std::int32_t current,
                                                            std::int32_t raw) const;

  [[nodiscard]] HEADROOM_IMPL_INLINE static scale_reason library_reason(hpa_reason r) noexcept;

  // ----- the HPA sync (horizontal.go reconcileAutoscaler) --------------------------------
  [[nodiscard]] HEADROOM_IMPL_INLINE autoscaler_decision step_hpa(autoscaler_state& state, ms now,
                                                                  const autoscaler_input& in) const;

  // The start of a sync: a retry at the same instant first takes back the latest sync; the
  // current count (spec, or ready for a naive controller); the windows seeded on the first
  // sync (recordInitialRecommendation).
  [[nodiscard]] HEADROOM_IMPL_INLINE autoscaler_decision
  begin_sync(autoscaler_state& state, ms now, const autoscaler_input& in) const;

  // The clamping rules applied before the metrics are read: a workload at zero stays unless
  // the release's rule lets the HPA compute (1.36+: shouldComputeMetricsForZeroReplicas, the
  // HPA scaled it to zero itself; before: minReplicas is 0); one outside [min, max] is set to
  // the bound. True when they decided.
  HEADROOM_IMPL_INLINE bool decided_before_metrics(autoscaler_state& state, ms now,
                                                   bool scaled_to_zero,
                                                   autoscaler_decision& d) const;

  // What computeReplicasForMetrics found: the largest proposal, and the first failure.
  struct metric_readings {
    std::int32_t raw = 0;    // the largest proposal (0 when none is valid)
    bool any_valid = false;  // some metric gave a proposal
    bool in_band = false;    // the largest proposal is held by the tolerance band
    hpa_reason first_failure = hpa_reason::none;
  };

  // computeReplicasForMetrics: every metric's proposal (a missing observation fails its
  // metric); counts the failures into d and names the metric that set the largest.
  [[nodiscard]] HEADROOM_IMPL_INLINE metric_readings read_metrics(const autoscaler_input& in,
                                                                  std::int32_t current,
                                                                  detail::tolerances tol,
                                                                  autoscaler_decision& d) const;

  // Feed-forward (library extension): each forecast's proposal for t + T_start, combined
  // with `raw` by max. True when a forecast set it.
  HEADROOM_IMPL_INLINE bool apply_forecasts(const autoscaler_input& in, std::int32_t current,
                                            detail::tolerances tol, std::int32_t& raw,
                                            autoscaler_decision& d) const;

  // normalizeDesiredReplicas[WithBehaviors]: stabilization, then the rate limits and
  // min/max; then the raised minimum from zero and the library's hold while starting.
  HEADROOM_IMPL_INLINE void normalize(autoscaler_state& state, ms now, const replica_counts& counts,
                                      bool scaled_to_zero, scale_reason reason,
                                      autoscaler_decision& d) const;

  // A successful rescale: AbleToScale, the scale event, and the ScaledToZero condition.
  HEADROOM_IMPL_INLINE void rescaled(autoscaler_state& state, ms now, autoscaler_decision& d) const;

  // ----- the KPA (knative/serving pkg/autoscaler/scaling/autoscaler.go Scale) ------------
  [[nodiscard]] HEADROOM_IMPL_INLINE autoscaler_decision step_kpa(autoscaler_state& state, ms now,
                                                                  const autoscaler_input& in) const;

  struct kpa_desired {
    std::int32_t replicas = 0;
    scale_reason reason = scale_reason::desired_within_range;
  };

  // Scale's desired count before the delay window: the stable and panic counts within the
  // rate limits (and the activation scale), the panic mode entered, extended or left, and
  // in panic never less than the panic's maximum so far.
  [[nodiscard]] HEADROOM_IMPL_INLINE kpa_desired kpa_recommendation(autoscaler_state& state, ms now,
                                                                    const autoscaler_input& in,
                                                                    bool reachable) const;

  // Excess burst capacity: floor(ready x total - target burst capacity - panic value); 0 with
  // a target burst capacity of 0, -1 when it is unlimited.
  [[nodiscard]] HEADROOM_IMPL_INLINE std::int32_t excess_burst_capacity(
      std::int32_t ready, double panic_value) const noexcept;
};

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/controller.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The HPA's rate limits and bounds (internal), as pkg/controller/podautoscaler/horizontal.go
// applies them to a stabilized recommendation: without a behavior, convertDesiredReplicasWith
// Rules (at most max(2 x current, 4) up, then min/max); with one, convertDesiredReplicasWith
// BehaviorRate (each direction's policies over the scale events of their period, chosen by
// selectPolicy, then min/max).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "arithmetic.hpp"
#include "config.hpp"
#include "decision.hpp"
#include "state.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail
namespace detail {

/// horizontal.go scaleUpLimitFactor and scaleUpLimitMinimum: without a behavior, one sync
/// scales up to at most max(2 x current, 4) replicas.
inline constexpr std::int64_t scale_up_limit_factor = 2;
inline constexpr std::int64_t scale_up_limit_minimum = 4;

/// Which way a rate limit applies.
enum class scale_direction : std::uint8_t { up, down };

/// getReplicasChangePerPeriod: the changes of the events younger than the period (after
/// `cutoff`).
[[nodiscard]] inline std::int64_t changes_within(const std::vector<scale_event>& events,
                                                 std::chrono::milliseconds cutoff) noexcept {
  std::int64_t sum = 0;
  for (const auto& e : events) sum += e.at > cutoff ? e.change : 0;
  return sum;
}

/// calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors: the most
/// (up) or fewest (down) replicas the policies of `rules` allow from `current` at `now`.
[[nodiscard]] inline std::int64_t rate_limit(const scaling_rules& rules, scale_direction direction,
                                             const autoscaler_state& state,
                                             std::chrono::milliseconds now,
                                             std::int32_t current) noexcept {
  const bool up = direction == scale_direction::up;
  if (rules.select == select_policy::disabled) return current;
  if (rules.policies.empty())
    return up ? std::int64_t{replicas_max} : std::int64_t{0};  // unlimited
  // Max selects the largest change: the highest count up, the lowest count down.
  const bool pick_high = (rules.select == select_policy::max) == up;
  std::int64_t result = pick_high ? int64_min : int64_max;
  std::chrono::seconds summed_period{-1};
  std::int64_t start = 0;
  for (const auto& p : rules.policies) {
    if (p.period != summed_period) {  // policies sharing a period share the sums
      const std::chrono::milliseconds cutoff = now - std::chrono::milliseconds{p.period};
      start = std::int64_t{current} - changes_within(state.scale_up_events, cutoff) +
              changes_within(state.scale_down_events, cutoff);
      summed_period = p.period;
    }
    const double start_d = static_cast<double>(start);
    const double fraction = static_cast<double>(p.value) / static_cast<double>(percent);
    std::int64_t proposed = 0;
    if (p.type == scaling_policy_type::pods)
      proposed = up ? start + p.value : start - p.value;
    else
      proposed = up ? to_int64(std::ceil(start_d * (1.0 + fraction)))
                    : to_int64(std::trunc(start_d * (1.0 - fraction)));
    result = pick_high ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

/// A count after the rate limits and bounds, and the ScalingLimited reason.
struct limited {
  std::int32_t replicas = 0;
  hpa_reason reason = hpa_reason::desired_within_range;
};

/// horizontal.go convertDesiredReplicasWithRules (no behavior) and
/// convertDesiredReplicasWithBehaviorRate: `desired` limited from `current`.
[[nodiscard]] inline limited limit_rate(const autoscaler_config& c, const autoscaler_state& state,
                                        std::chrono::milliseconds now, std::int32_t current,
                                        std::int32_t desired) noexcept {
  if (!c.behavior) {
    const std::int64_t up_limit =
        std::max(scale_up_limit_factor * std::int64_t{current}, scale_up_limit_minimum);
    const bool rate_binds = c.max_replicas > up_limit;
    const std::int32_t max_allowed = rate_binds ? saturate(up_limit) : c.max_replicas;
    if (desired < c.min_replicas) return {c.min_replicas, hpa_reason::too_few_replicas};
    if (desired > max_allowed)
      return {max_allowed, rate_binds ? hpa_reason::scale_up_limit : hpa_reason::too_many_replicas};
    return {desired, hpa_reason::desired_within_range};
  }
  if (desired > current) {
    const std::int64_t up_limit =
        std::max(rate_limit(c.behavior->scale_up, scale_direction::up, state, now, current),
                 std::int64_t{current});
    const bool rate_binds = c.max_replicas > up_limit;
    const std::int32_t max_allowed = rate_binds ? saturate(up_limit) : c.max_replicas;
    if (desired > max_allowed)
      return {max_allowed, rate_binds ? hpa_reason::scale_up_limit : hpa_reason::too_many_replicas};
  } else if (desired < current) {
    const std::int64_t down_limit =
        std::min(rate_limit(c.behavior->scale_down, scale_direction::down, state, now, current),
                 std::int64_t{current});
    const bool rate_binds = c.min_replicas < down_limit;
    const std::int32_t min_allowed = rate_binds ? saturate(down_limit) : c.min_replicas;
    if (desired < min_allowed)
      return {min_allowed,
              rate_binds ? hpa_reason::scale_down_limit : hpa_reason::too_few_replicas};
  }
  return {desired, hpa_reason::desired_within_range};
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

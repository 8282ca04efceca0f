// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/rate_limits.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/rate_limits.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {
namespace detail {

HEADROOM_DECL std::int64_t changes_within(const std::vector<scale_event>& events,
                                          std::chrono::milliseconds cutoff) noexcept {
  std::int64_t sum = 0;
  for (const auto& e : events) sum += e.at > cutoff ? e.change : 0;
  return sum;
}

HEADROOM_IMPL_INLINE std::int64_t rate_limit(const scaling_rules& rules, scale_direction direction,
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

HEADROOM_IMPL_INLINE limited limit_rate(const autoscaler_config& c, const autoscaler_state& state,
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

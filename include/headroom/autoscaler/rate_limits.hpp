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
[[nodiscard]] HEADROOM_DECL std::int64_t changes_within(const std::vector<scale_event>& events,
                                                        std::chrono::milliseconds cutoff) noexcept;

/// calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors: the most
/// (up) or fewest (down) replicas the policies of `rules` allow from `current` at `now`.
[[nodiscard]] HEADROOM_IMPL_INLINE std::int64_t rate_limit(const scaling_rules& rules,
                                                           scale_direction direction,
                                                           const autoscaler_state& state,
                                                           std::chrono::milliseconds now,
                                                           std::int32_t current) noexcept;

/// A count after the rate limits and bounds, and the ScalingLimited reason.
struct limited {
  std::int32_t replicas = 0;
  hpa_reason reason = hpa_reason::desired_within_range;
};

/// horizontal.go convertDesiredReplicasWithRules (no behavior) and
/// convertDesiredReplicasWithBehaviorRate: `desired` limited from `current`.
[[nodiscard]] HEADROOM_IMPL_INLINE limited limit_rate(const autoscaler_config& c,
                                                      const autoscaler_state& state,
                                                      std::chrono::milliseconds now,
                                                      std::int32_t current,
                                                      std::int32_t desired) noexcept;

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/rate_limits.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

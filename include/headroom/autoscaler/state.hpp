// SPDX-License-Identifier: Apache-2.0
// The autoscaler's memory, a value the caller owns: the stabilization windows, the scale
// events the rate policies count, the ScaledToZero condition, the KPA's panic state and
// delay window, and what the latest sync changed (for a retry at the same instant); and the
// history of a running HPA to take over from. docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "decision.hpp"
#include "windows.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

/// A raw recommendation and when it was made (time since the caller's epoch).
struct timestamped_recommendation {
  std::chrono::milliseconds at{0};  ///< when it was made, on the caller's clock
  std::int32_t replicas = 0;        ///< the raw (unstabilized) recommendation; >= 0
  friend constexpr bool operator==(const timestamped_recommendation&,
                                   const timestamped_recommendation&) = default;
};

/// Upstream's timestampedScaleEvent.outdated: an event older than its direction's longest
/// policy period, marked when an event of that direction is stored, free for reuse.
enum class scale_event_state : std::uint8_t { live, outdated };

/// A real scale change of `change` replicas (>= 0), recorded for the rate policies.
struct scale_event {
  std::chrono::milliseconds at{0};                    ///< when the count changed
  std::int32_t change = 0;                            ///< replicas added or removed; >= 0
  scale_event_state state = scale_event_state::live;  ///< upstream's `outdated` mark
  friend constexpr bool operator==(const scale_event&, const scale_event&) = default;
};

namespace detail {

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
  detail::ring<timestamped_recommendation> up_window{};
  /// Recommendations the down window may still use; replicas decreasing from the front, so
  /// the front is the window's maximum.
  detail::ring<timestamped_recommendation> down_window{};
  /// The latest sync's raw recommendation, entered into the windows at the next, later sync
  /// (a retry at the same `now` replaces it instead).
  std::optional<timestamped_recommendation> latest{};
  bool seeded = false;  ///< false until the first sync (or the history) seeds the windows
  std::vector<scale_event> scale_up_events{};    ///< with a behavior only
  std::vector<scale_event> scale_down_events{};  ///< with a behavior only
  /// The ScaledToZero condition (True once the HPA itself scaled to 0; only then may it
  /// scale up from zero).
  condition_status scaled_to_zero = condition_status::unset;
  bool panicking = false;                           ///< KPA panic mode
  std::chrono::milliseconds panic_time{0};          ///< KPA: last step over the panic threshold
  std::int32_t max_panic_replicas = 0;              ///< KPA: largest desired count in this panic
  detail::ring<detail::kpa_bucket> delay_window{};  ///< KPA scale-down delay (descending maxima)
  detail::sync_undo last_sync{};  ///< HPA: what the latest sync changed (for a retry)
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
  /// a.recommendations[key]: nullopt when none is recorded (upstream's nil: the first sync
  /// plants {current, now}); a list, even an empty one, as recorded (nothing is planted).
  std::optional<std::span<const timestamped_recommendation>> recommendations{};
  std::span<const scale_event> scale_up_events{};    ///< a.scaleUpEvents[key]
  std::span<const scale_event> scale_down_events{};  ///< a.scaleDownEvents[key]
  /// The HPA's ScaledToZero condition (1.36+: True lets it scale up from zero; ignored before).
  condition_status scaled_to_zero = condition_status::unset;
};

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

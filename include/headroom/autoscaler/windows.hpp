// SPDX-License-Identifier: Apache-2.0
// The autoscaler's sliding windows as monotone queues (internal). A stabilization window
// keeps only the entries it can still see that may yet be its extreme: the down window's
// replicas strictly decrease from the front (its front is the maximum), the up window's
// strictly increase (front = minimum), since an entry both older and no larger (smaller)
// than a newer one can never be the extreme again. A step then costs O(1) amortized,
// whatever the window's length. The KPA's scale-down delay window keeps descending maxima
// per tick (knative/serving pkg/autoscaler/aggregation/max window.go).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "../detail/ring.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail
namespace detail {

/// Which entries a window still sees at `cutoff` = now − window: with a behavior, those
/// after the cutoff (Go's timestamp.After(cutoff)); without, those not before it
/// (!timestamp.Before(cutoff)).
enum class window_cutoff : std::uint8_t { after, not_before };

/// Appends e to a monotone queue of entries with `at` and `replicas`, first dropping the
/// entries at the back that e dominates (`dominated(back, e)`); an entry at e's instant that
/// survives dominates e, which is then dropped.
template <class Entry, class Dominated>
void push_monotone(ring<Entry>& queue, const Entry& e, Dominated dominated) {
  while (!queue.empty() && dominated(queue.back().replicas, e.replicas)) queue.pop_back();
  if (!queue.empty() && queue.back().at == e.at) return;
  queue.push_back(e);
}

/// Appends e to a window whose front is its maximum.
template <class Entry>
void push_max(ring<Entry>& queue, const Entry& e) {
  push_monotone(queue, e, [](auto a, auto b) { return a <= b; });
}

/// Appends e to a window whose front is its minimum.
template <class Entry>
void push_min(ring<Entry>& queue, const Entry& e) {
  push_monotone(queue, e, [](auto a, auto b) { return a >= b; });
}

/// Drops from the front the entries the window no longer sees at `cutoff`.
template <class Entry>
void expire(ring<Entry>& queue, std::chrono::milliseconds cutoff, window_cutoff rule) {
  if (rule == window_cutoff::after) {
    while (!queue.empty() && queue.front().at <= cutoff) queue.pop_front();
  } else {
    while (!queue.empty() && queue.front().at < cutoff) queue.pop_front();
  }
}

/// One bucket of Knative's scale-down delay window (aggregation/max window.go entry).
struct kpa_bucket {
  std::int64_t index = 0;  ///< tick index (Unix seconds / 2)
  std::int32_t value = 0;  ///< the largest desired count recorded in it
  friend constexpr bool operator==(const kpa_bucket&, const kpa_bucket&) = default;
};

/// Knative's max.window.Record: records `value` at the tick of `now` in a window of `buckets`
/// ticks of `tick` each, keeping descending maxima (the front is the window's maximum).
HEADROOM_IMPL_INLINE void record_delay(ring<kpa_bucket>& window, std::chrono::milliseconds now,
                                       std::int32_t value, std::int64_t buckets,
                                       std::chrono::seconds tick);

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/windows.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

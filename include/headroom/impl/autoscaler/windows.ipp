// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/windows.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/windows.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {
namespace detail {

HEADROOM_IMPL_INLINE void record_delay(ring<kpa_bucket>& window, std::chrono::milliseconds now,
                                       std::int32_t value, std::int64_t buckets,
                                       std::chrono::seconds tick) {
  const std::int64_t index =
      std::chrono::floor<std::chrono::seconds>(now).count() / tick.count();  // int(now.Unix()) / 2
  while (!window.empty() && !(value < window.back().value)) window.pop_back();
  while (!window.empty() && index - window.front().index >= buckets) window.pop_front();
  if (!window.empty() && window.back().index == index) {
    value = std::max(value, window.back().value);
    window.pop_back();
  }
  window.push_back({.index = index, .value = value});
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

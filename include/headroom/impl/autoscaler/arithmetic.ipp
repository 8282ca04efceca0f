// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/arithmetic.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/arithmetic.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {
namespace detail {

HEADROOM_IMPL_INLINE std::int32_t to_int32(double x) noexcept {
  if (!(x == x)) return 0;
  if (x >= static_cast<double>(replicas_max)) return replicas_max;
  if (x <= static_cast<double>(int32_min)) return int32_min;
  return static_cast<std::int32_t>(x);
}

HEADROOM_IMPL_INLINE std::int64_t to_int64(double x) noexcept {
  if (!(x == x)) return 0;
  return static_cast<std::int64_t>(std::clamp(x, -int64_clamp, int64_clamp));
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

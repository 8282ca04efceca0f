// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/inputs.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/inputs.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {

HEADROOM_IMPL_INLINE double quantity_rounding(double value) noexcept {
  const auto q = to_quantity(value);
  if (!q) return std::numeric_limits<double>::infinity();
  return std::abs(static_cast<double>(q->milli) / static_cast<double>(milli_per_unit) - value);
}

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

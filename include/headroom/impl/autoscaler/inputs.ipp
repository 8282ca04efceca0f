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

HEADROOM_DECL std::optional<quantity> to_quantity(double value) noexcept {
  if (!detail::is_finite(value)) return std::nullopt;
  const double micro = value * detail::micro_per_unit;
  if (std::abs(micro) < detail::largest_exact_micro) {
    std::int64_t m = std::llround(micro);
    if (m == 0 && value > 0.0) m = 1;  // MilliValue rounds any positive value up to 1m
    return quantity{.milli = detail::ceil_div(m, detail::micro_per_milli)};
  }
  const double milli = std::ceil(value * static_cast<double>(milli_per_unit));
  if (milli >= detail::largest_int64_double) return quantity{.milli = detail::int64_max};
  if (milli <= -detail::largest_int64_double) return quantity{.milli = detail::int64_min};
  return quantity{.milli = static_cast<std::int64_t>(milli)};
}

HEADROOM_IMPL_INLINE double quantity_rounding(double value) noexcept {
  const auto q = to_quantity(value);
  if (!q) return std::numeric_limits<double>::infinity();
  return std::abs(static_cast<double>(q->milli) / static_cast<double>(milli_per_unit) - value);
}

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

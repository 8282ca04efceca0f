// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/chain.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/chain.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

HEADROOM_DECL void extend_extremes(std::span<const double> column, double& lo_all,
                                   double& hi_all) noexcept {
  const std::size_t n = column.size();
  double lo[4] = {lo_all, lo_all, lo_all, lo_all};
  double hi[4] = {hi_all, hi_all, hi_all, hi_all};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t k = 0; k < 4; ++k) {
      lo[k] = std::min(lo[k], column[i + k]);
      hi[k] = std::max(hi[k], column[i + k]);
    }
  for (; i < n; ++i) {
    lo[0] = std::min(lo[0], column[i]);
    hi[0] = std::max(hi[0], column[i]);
  }
  for (std::size_t k = 1; k < 4; ++k) {
    lo[0] = std::min(lo[0], lo[k]);
    hi[0] = std::max(hi[0], hi[k]);
  }
  lo_all = lo[0];
  hi_all = hi[0];
}

HEADROOM_DECL void accumulate(std::span<double> totals, std::span<const double> column,
                              double weight, normalization mode) noexcept {
  const std::size_t n = totals.size();
  if (mode == normalization::none) {
    for (std::size_t i = 0; i < n; ++i) totals[i] += weight * column[i];
    return;
  }
  if (n == 0) return;
  double lo_all = column[0], hi_all = column[0];
  extend_extremes(column.subspan(1), lo_all, hi_all);
  if (!(hi_all > lo_all)) return;
  const double span = hi_all - lo_all;
  for (std::size_t j = 0; j < n; ++j)
    totals[j] += weight * ((column[j] - lo_all) / span * max_normalized_score);
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

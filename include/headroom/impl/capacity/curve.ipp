// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/capacity/curve.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../capacity/curve.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace capacity {
namespace detail {

HEADROOM_DECL double rule_value(const conformance_estimate& e, capacity_rule rule) noexcept {
  switch (rule) {
    case capacity_rule::lower_bound:
      return e.lower;
    case capacity_rule::wilson_lower_bound:
      return e.wilson_lower;
    case capacity_rule::point_estimate:
      break;
  }
  return e.share;
}

HEADROOM_DECL std::vector<capacity_point> sorted_curve(std::span<const capacity_point> curve) {
  if (curve.empty()) fail("curve.size()", 0, "the curve has no points");
  for (const auto& p : curve) {
    require_positive("curve[i].rate_per_second", p.rate_per_second);
    require_unit("curve[i].conformance.share", p.conformance.share);
    require_unit("curve[i].conformance.lower", p.conformance.lower);
    require_unit("curve[i].conformance.upper", p.conformance.upper);
    require_unit("curve[i].conformance.wilson_lower", p.conformance.wilson_lower);
    require_unit("curve[i].conformance.wilson_upper", p.conformance.wilson_upper);
  }
  std::vector<capacity_point> sorted(curve.begin(), curve.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const capacity_point& a, const capacity_point& b) {
                     return a.rate_per_second < b.rate_per_second;
                   });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].rate_per_second == sorted[i - 1].rate_per_second)
      fail("curve[i].rate_per_second", sorted[i].rate_per_second, "rates must be distinct");
  return sorted;
}

}  // namespace detail
}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {

HEADROOM_DECL capacity_result find_capacity(std::span<const capacity_point> curve,
                                            const capacity_options& options) {
  detail::require_open_unit("options.quota", options.quota);
  const auto points = detail::sorted_curve(curve);
  const double q = options.quota;
  capacity_result result;
  std::optional<std::size_t> last_pass;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& e = points[i].conformance;
    if (e.empty()) {
      ++result.empty_points;
      continue;
    }
    if (detail::rule_value(e, options.rule) >= q) last_pass = i;
    if (e.lower >= q) result.confident_per_second = points[i].rate_per_second;
    if (e.upper >= q) result.plausible_per_second = points[i].rate_per_second;
    // Monotonicity against every earlier non-empty point.
    for (std::size_t j = 0; j < i; ++j) {
      const auto& earlier = points[j].conformance;
      if (earlier.empty()) continue;
      if (e.share > earlier.share) {
        if (result.monotone) result.first_rise_per_second = points[i].rate_per_second;
        result.monotone = false;
        if (e.lower > earlier.upper) result.monotone_within_noise = false;
      }
    }
  }
  if (!last_pass) {
    result.saturated = true;
    return result;
  }
  const std::size_t i = *last_pass;
  result.capacity_per_second = points[i].rate_per_second;
  result.saturated = i + 1 < points.size();
  if (options.interpolate && result.saturated && !points[i + 1].conformance.empty()) {
    const double m0 = detail::rule_value(points[i].conformance, options.rule);
    const double m1 = detail::rule_value(points[i + 1].conformance, options.rule);
    const double r0 = points[i].rate_per_second;
    const double r1 = points[i + 1].rate_per_second;
    if (m0 > m1) result.capacity_per_second = r0 + (m0 - q) * (r1 - r0) / (m0 - m1);
  }
  return result;
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The capacity curve: conformance measured at a grid of open-loop rates, and μ* = max{λ :
// conformance(λ) >= q} read off it by a chosen rule (point estimate, interval bound, Wilson),
// with monotonicity checked against the noise. Part of capacity.hpp; docs/capacity.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "conformance.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace capacity {
namespace detail {
using namespace ::headroom::detail;  // capacity's internals call the shared ones too
}  // namespace detail

// ---- the capacity curve -------------------------------------------------------------------

/// One point of the capacity curve: the offered open-loop rate λ (req/s) and the
/// conformance measured there.
struct capacity_point {
  double rate_per_second = 0.0;        ///< λ offered, req/s
  conformance_estimate conformance{};  ///< measured at λ
};

/// Which number is compared with the quota.
enum class capacity_rule {
  point_estimate,      ///< share >= q: the definition of μ*
  lower_bound,         ///< lower >= q: "conforming with confidence", correlation accounted for
  wilson_lower_bound,  ///< wilson_lower >= q: the same assuming independent requests, which
                       ///< a queue's are not (too optimistic: docs/capacity.md)
};

/// Options for find_capacity.
struct capacity_options {
  double quota = 0.9;                                  ///< q, in (0, 1)
  capacity_rule rule = capacity_rule::point_estimate;  ///< what must reach q
  bool interpolate = false;  ///< interpolate linearly between the last pass and the next point
};

/// μ* read off a curve, with what the caller should know about the curve.
struct capacity_result {
  std::optional<double> capacity_per_second;  ///< μ*, req/s; nullopt when no point reaches q
  bool saturated = false;  ///< a point above μ* fails: μ* is bracketed by the grid
                           ///< (false: every point passed, μ* >= the highest rate measured)
  bool monotone = true;    ///< conformance never rises with λ (point estimates)
  bool monotone_within_noise = true;            ///< no rise with disjoint intervals (a real rise)
  std::optional<double> first_rise_per_second;  ///< the lowest λ where conformance rose, if any
  std::size_t empty_points = 0;                 ///< points with n = 0, counted as failing
  /// The largest λ whose interval lies at or above q (lower >= q): μ* is at least this
  /// with confidence. nullopt when no point's does.
  std::optional<double> confident_per_second;
  /// The largest λ whose interval reaches q (upper >= q): every higher point fails with
  /// confidence, so μ* lies below the next rate of the grid. nullopt when none reaches q.
  std::optional<double> plausible_per_second;
};

namespace detail {
[[nodiscard]] inline double rule_value(const conformance_estimate& e, capacity_rule rule) noexcept {
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
[[nodiscard]] inline std::vector<capacity_point> sorted_curve(
    std::span<const capacity_point> curve) {
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

/// μ* = max{λ : conformance(λ) >= q} over the curve's points (any order, distinct λ > 0)
/// with the chosen rule; with interpolate, the crossing between that point and the next
/// (failing) one. Empty points count as failing. Flags a non-monotone curve, and reads
/// the bracket the intervals allow (confident_per_second, plausible_per_second).
[[nodiscard]] inline capacity_result find_capacity(std::span<const capacity_point> curve,
                                                   const capacity_options& options = {}) {
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

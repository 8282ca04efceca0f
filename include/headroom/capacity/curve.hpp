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
[[nodiscard]] HEADROOM_DECL double rule_value(const conformance_estimate& e,
                                              capacity_rule rule) noexcept;
[[nodiscard]] HEADROOM_DECL std::vector<capacity_point> sorted_curve(
    std::span<const capacity_point> curve);
}  // namespace detail

/// μ* = max{λ : conformance(λ) >= q} over the curve's points (any order, distinct λ > 0)
/// with the chosen rule; with interpolate, the crossing between that point and the next
/// (failing) one. Empty points count as failing. Flags a non-monotone curve, and reads
/// the bracket the intervals allow (confident_per_second, plausible_per_second).
[[nodiscard]] HEADROOM_DECL capacity_result find_capacity(std::span<const capacity_point> curve,
                                                          const capacity_options& options = {});

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/capacity/curve.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

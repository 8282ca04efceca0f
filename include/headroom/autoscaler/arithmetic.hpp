// SPDX-License-Identifier: Apache-2.0
// Integer arithmetic of the autoscaler (internal): Go's int32 and int64 conversions, which the
// Kubernetes controller relies on, saturating where Go's would overflow, and a division
// rounded up.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstdint>
#include <limits>

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail
namespace detail {

/// Percent per unit fraction (policies and utilization are whole percents).
inline constexpr std::int64_t percent = 100;
inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
/// The largest replica count: replicas are int32 in the Kubernetes API.
inline constexpr std::int32_t replicas_max = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int32_t int32_min = std::numeric_limits<std::int32_t>::min();
/// to_int64's clamp: half of int64's range, so that the sum of two clamped values still fits.
inline constexpr double int64_clamp = 4.0e18;

/// ceil(a / b) for b > 0 (C++ division truncates toward zero, which is already the ceiling
/// of a negative quotient).
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b + ((a % b) > 0 ? 1 : 0);
}

/// A double to int32 as Go's int32(x) for in-range values, saturating outside; NaN gives 0.
[[nodiscard]] HEADROOM_IMPL_INLINE std::int32_t to_int32(double x) noexcept;

/// A 64-bit count to int32, saturating at both ends.
[[nodiscard]] constexpr std::int32_t saturate(std::int64_t x) noexcept {
  if (x > replicas_max) return replicas_max;
  if (x < int32_min) return int32_min;
  return static_cast<std::int32_t>(x);
}

/// A double to int64, clamped to ±int64_clamp; NaN gives 0.
[[nodiscard]] HEADROOM_IMPL_INLINE std::int64_t to_int64(double x) noexcept;

/// a + b, saturating at both ends of int64.
[[nodiscard]] constexpr std::int64_t add_saturated(std::int64_t a, std::int64_t b) noexcept {
  if (b > 0 && a > int64_max - b) return int64_max;
  if (b < 0 && a < int64_min - b) return int64_min;
  return a + b;
}

/// a * b, saturating at both ends of int64.
[[nodiscard]] constexpr std::int64_t mul_saturated(std::int64_t a, std::int64_t b) noexcept {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  if (a == int64_min || b == int64_min) return negative ? int64_min : int64_max;
  const std::int64_t ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
  if (ua > int64_max / ub) return negative ? int64_min : int64_max;
  return a * b;
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/arithmetic.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

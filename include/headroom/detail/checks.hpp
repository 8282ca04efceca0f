// SPDX-License-Identifier: Apache-2.0
// Argument checks shared by every header. Each is constexpr (usable in constant
// expressions when the check passes) and throws headroom::invalid_argument naming
// the parameter and value when it fails. NaN fails every check. Also the marker that makes
// a parameter aggregate accept designated initializers only.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <limits>

#include "error.hpp"

namespace headroom {
inline namespace v0 {
namespace detail {

/// The first member of every parameter aggregate, declared
/// `HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only
/// designated_initializers_only{};` (no size where the attribute is honoured; see
/// detail/config.hpp): a positional brace list such as replicas_needed({60.0, 0.8, 8.0}) would
/// initialise it from 60.0, which does not compile, so every field must be named
/// (`{.arrival_rate_per_second = 60.0, ...}`) and two quantities of one type cannot be
/// swapped silently. Leave it out of the braces; it takes its default.
struct designated_initializers_only {
  constexpr designated_initializers_only() noexcept = default;
  /// Markers are all alike, so an aggregate's defaulted == compares its fields alone.
  friend constexpr bool operator==(designated_initializers_only,
                                   designated_initializers_only) noexcept {
    return true;
  }
};

template <class T>
[[nodiscard]] constexpr bool is_nan(T v) noexcept {
  return v != v;
}
template <class T>
[[nodiscard]] constexpr bool is_finite(T v) noexcept {
  return v == v && v <= std::numeric_limits<T>::max() && v >= std::numeric_limits<T>::lowest();
}

/// value must be a finite number.
template <class T>
constexpr T require_finite(const char* name, T value) {
  if (!is_finite(value)) fail(name, value, "must be a finite number");
  return value;
}
/// value must be finite and > 0.
template <class T>
constexpr T require_positive(const char* name, T value) {
  if (!(is_finite(value) && value > T(0))) fail(name, value, "must be finite and > 0");
  return value;
}
/// value must be finite and >= 0.
template <class T>
constexpr T require_non_negative(const char* name, T value) {
  if (!(is_finite(value) && value >= T(0))) fail(name, value, "must be finite and >= 0");
  return value;
}
/// value must lie in the open interval (0, 1) (a quota or a probability that cannot be 0 or 1).
template <class T>
constexpr T require_open_unit(const char* name, T value) {
  if (!(value > T(0) && value < T(1))) fail(name, value, "must lie in the open interval (0, 1)");
  return value;
}
/// value must lie in the half-open interval (0, 1] (a utilization or a target fraction).
template <class T>
constexpr T require_unit_positive(const char* name, T value) {
  if (!(value > T(0) && value <= T(1))) fail(name, value, "must lie in (0, 1]");
  return value;
}
/// value must lie in the closed interval [0, 1] (a share, a fraction, a probability).
template <class T>
constexpr T require_unit(const char* name, T value) {
  if (!(value >= T(0) && value <= T(1))) fail(name, value, "must lie in [0, 1]");
  return value;
}
/// value must lie in [0, 1) (a discount or a lost-work fraction that cannot reach 1).
template <class T>
constexpr T require_unit_below_one(const char* name, T value) {
  if (!(value >= T(0) && value < T(1))) fail(name, value, "must lie in [0, 1)");
  return value;
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Byte quantities that never wrap: saturating sums and products of unsigned counts, a
// double rounded down to bytes, and allocatable amounts kept exactly but read as their
// std::int64_t saturation (the scheduler's index). Private helpers.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace headroom {
inline namespace v0 {
namespace detail {

/// 2^64 as a double: the first value a double-to-std::uint64_t conversion cannot hold.
inline constexpr double two_to_the_64 = 18446744073709551616.0;

/// a + b and a × b saturated at the largest std::uint64_t.
[[nodiscard]] constexpr std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}
[[nodiscard]] constexpr std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) noexcept {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b
             ? std::numeric_limits<std::uint64_t>::max()
             : a * b;
}
/// ⌊x⌋ bytes for x >= 0 (Python's int() of a float), saturated at the largest std::uint64_t.
[[nodiscard]] constexpr std::uint64_t floor_bytes(double x) noexcept {
  return x >= two_to_the_64 ? std::numeric_limits<std::uint64_t>::max()
                            : static_cast<std::uint64_t>(x);
}

/// The largest byte quantity the scheduler's index counts (2^53 B = 8 PiB, exact in a
/// double): larger totals, reservations and claims count as this much. A clamped quantity
/// can only make a GPU or worker look less allocatable: a positive allocatable amount never
/// exceeds the true one.
inline constexpr std::uint64_t max_counted_bytes = std::uint64_t{1} << 53;
/// v clamped to max_counted_bytes, as a signed amount.
[[nodiscard]] constexpr std::int64_t counted_bytes(std::uint64_t v) noexcept {
  return static_cast<std::int64_t>(std::min(v, max_counted_bytes));
}
/// true iff an allocatable amount (possibly negative) holds need bytes.
[[nodiscard]] constexpr bool holds_bytes(std::int64_t alloc, std::uint64_t need) noexcept {
  return alloc >= 0 && static_cast<std::uint64_t>(alloc) >= need;
}

/// An amount kept exactly: a signed 128-bit integer in two words (any number of additions
/// of at most 2^63 each, in any order), read saturated to std::int64_t.
class byte_balance {
 public:
  constexpr byte_balance() noexcept = default;
  /// The amount v.
  constexpr explicit byte_balance(std::int64_t v) noexcept
      : low_(static_cast<std::uint64_t>(v)), high_(v < 0 ? ~std::uint64_t{0} : 0) {}
  /// Adds v (negative: subtracts).
  constexpr void add(std::int64_t v) noexcept {
    const std::uint64_t low = low_ + static_cast<std::uint64_t>(v);
    high_ += (v < 0 ? ~std::uint64_t{0} : 0) + (low < low_ ? 1u : 0u);
    low_ = low;
  }
  /// Adds another balance.
  constexpr void add(const byte_balance& b) noexcept {
    const std::uint64_t low = low_ + b.low_;
    high_ += b.high_ + (low < low_ ? 1u : 0u);
    low_ = low;
  }
  /// The amount, saturated to [INT64_MIN, INT64_MAX].
  [[nodiscard]] constexpr std::int64_t saturated() const noexcept {
    constexpr std::uint64_t sign = std::uint64_t{1} << 63;
    if (high_ == 0 && low_ < sign) return static_cast<std::int64_t>(low_);
    if (high_ == ~std::uint64_t{0} && low_ >= sign)
      return -static_cast<std::int64_t>(~low_) - 1;  // two's complement, without a narrowing cast
    return (high_ & sign) != 0 ? std::numeric_limits<std::int64_t>::min()
                               : std::numeric_limits<std::int64_t>::max();
  }

 private:
  std::uint64_t low_ = 0, high_ = 0;
};

/// Allocatable amounts kept exactly but stored as their std::int64_t saturation: each in a
/// slot the caller owns (a record's field), plus, for the rare amount beyond the int64 range
/// (1 023 claims of 8 PiB on one GPU), its exact value in a side table. Adding and removing
/// the same claims is then exact in any order (a kept index equals a fresh one bit for bit),
/// and many huge claims leave a GPU or worker full, never wrap it back to free. The fast
/// path is one overflow test.
class saturating_amounts {
 public:
  /// slot += amount for the amount of key (slot: its saturated value).
  HEADROOM_DECL void add(std::int64_t& slot, std::uint32_t key, std::int64_t amount);
  /// The exact amount of key, whose saturated value is slot.
  [[nodiscard]] HEADROOM_DECL byte_balance exact_value(std::int64_t slot,
                                                       std::uint32_t key) const noexcept;
  /// Forgets every exact value (the slots are set anew).
  void clear() noexcept { side_.clear(); }

 private:
  using entry = std::pair<std::uint32_t, byte_balance>;
  std::vector<entry>::iterator find(std::uint32_t key) {
    return std::find_if(side_.begin(), side_.end(), [&](const entry& e) { return e.first == key; });
  }
  std::vector<entry> side_;
};

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/detail/byte_counts.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

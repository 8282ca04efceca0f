// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/detail/byte_counts.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../detail/byte_counts.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL auto saturating_amounts::add(std::int64_t& slot, std::uint32_t key,
                                           std::int64_t amount) -> void {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  const bool overflows = amount > 0 ? slot > hi - amount : slot < lo - amount;
  if (slot != lo && slot != hi && !overflows) {
    slot += amount;
    return;
  }
  byte_balance exact = exact_value(slot, key);
  exact.add(amount);
  slot = exact.saturated();
  const auto it = find(key);
  if (slot == lo || slot == hi) {
    if (it == side_.end())
      side_.push_back({key, exact});
    else
      it->second = exact;
  } else if (it != side_.end()) {
    side_.erase(it);
  }
}

HEADROOM_DECL auto saturating_amounts::exact_value(std::int64_t slot,
                                                   std::uint32_t key) const noexcept
    -> byte_balance {
  if (slot != std::numeric_limits<std::int64_t>::min() &&
      slot != std::numeric_limits<std::int64_t>::max())
    return byte_balance(slot);
  const auto it =
      std::find_if(side_.begin(), side_.end(), [&](const auto& e) { return e.first == key; });
  return it == side_.end() ? byte_balance(slot) : it->second;
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/detail/keyed_hash.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../detail/keyed_hash.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL std::uint64_t fresh_hash_key(std::uint64_t salt, const void* owner) noexcept {
  const auto ticks =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return mix64(salt ^ mix64(reinterpret_cast<std::uintptr_t>(&hash_anchor) ^
                            mix64(reinterpret_cast<std::uintptr_t>(owner) ^ mix64(ticks))));
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

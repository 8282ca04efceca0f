// SPDX-License-Identifier: Apache-2.0
// A 64-bit mixing function: splitmix64's output function, shared by the keyed hash and the
// seeding of per-replica random streams. Kept apart from the random variates so that the
// hash does not pull in <random>.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstdint>

namespace headroom {
inline namespace v0 {
namespace detail {

/// splitmix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijection of the 64-bit integers that spreads every input bit
/// over every output bit.
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

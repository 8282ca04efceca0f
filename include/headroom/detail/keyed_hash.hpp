// SPDX-License-Identifier: Apache-2.0
// A keyed hash for tables whose keys come from outside the process (names on a scraped
// page): SipHash under a key that no one outside the process can predict, so that no input
// can be built to make the names collide (hash flooding).
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bit_mix.hpp"

namespace headroom {
inline namespace v0 {
namespace detail {

/// The 8 bytes at p as a little-endian integer, whatever the platform's byte order.
[[nodiscard]] constexpr std::uint64_t read_le64(const char* p) noexcept {
  std::uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | static_cast<unsigned char>(p[i]);
  return word;
}

/// SipHash-c-d of s under the 128-bit key (k0, k1): the keyed hash of Aumasson and
/// Bernstein, "SipHash: a fast short-input PRF" (INDOCRYPT 2012), with c compression and d
/// finalization rounds. Without the key, an attacker cannot choose names that collide.
template <int C, int D>
[[nodiscard]] constexpr std::uint64_t siphash(std::uint64_t k0, std::uint64_t k1,
                                              std::string_view s) noexcept {
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  std::uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  const auto round = [&] {
    v0 += v1;
    v1 = std::rotl(v1, 13) ^ v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = std::rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = std::rotl(v1, 17) ^ v2;
    v2 = std::rotl(v2, 32);
  };
  const std::size_t whole = s.size() & ~std::size_t{7};
  for (std::size_t i = 0; i < whole; i += 8) {
    const std::uint64_t m = read_le64(s.data() + i);
    v3 ^= m;
    for (int r = 0; r < C; ++r) round();
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(s.size() & 0xff) << 56;
  for (std::size_t i = s.size(); i-- > whole;)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * (i - whole));
  v3 ^= last;
  for (int r = 0; r < C; ++r) round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < D; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/// SipHash-1-3, the variant Rust's standard HashMap uses against hash flooding.
[[nodiscard]] constexpr std::uint64_t siphash13(std::uint64_t k0, std::uint64_t k1,
                                                std::string_view s) noexcept {
  return siphash<1, 3>(k0, k1, s);
}

/// A static whose address ASLR moves from run to run (fresh_hash_key reads it).
inline constexpr char hash_anchor = 0;

/// A hash key no one outside the process can predict: the address of a static (randomised
/// per run by ASLR, as abseil's absl::Hash seeds itself), the address of `owner` (stack or
/// heap, also randomised), `salt` and the steady clock's nanoseconds. Not cryptographic
/// randomness: enough that a remote page cannot be built to collide.
[[nodiscard]] HEADROOM_DECL std::uint64_t fresh_hash_key(std::uint64_t salt,
                                                         const void* owner) noexcept;

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/detail/keyed_hash.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

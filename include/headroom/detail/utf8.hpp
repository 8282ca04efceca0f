// SPDX-License-Identifier: Apache-2.0
// UTF-8 decoding and validation, shared by the Prometheus parser (label values) and the
// Kubernetes writers (names, queries and YAML scalars). Well-formed means the byte
// sequences of the Unicode Standard, chapter 3, Table 3-7: no overlong forms, no
// surrogates (U+D800..U+DFFF), nothing past U+10FFFF, no sequence cut short.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <string_view>

namespace headroom {
inline namespace v0 {
namespace detail {

/// One decoded character: its code point and its length in bytes (0: not well-formed).
struct utf8_char {
  char32_t code = 0;
  std::size_t length = 0;
};

/// The code point of the UTF-8 sequence at s[i] (i < s.size()) and its length in bytes;
/// length 0 when the bytes there are not well-formed UTF-8.
[[nodiscard]] constexpr utf8_char decode_utf8(std::string_view s, std::size_t i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  std::size_t n = 0;
  char32_t code = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    code = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    code = b0 & 0x0Fu;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    code = b0 & 0x07u;
  } else {
    return {};
  }
  if (s.size() - i < n) return {};
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0u) != 0x80u) return {};
    code = (code << 6) | (b & 0x3Fu);
  }
  const bool overlong = (n == 3 && code < 0x800) || (n == 4 && code < 0x10000);
  if (overlong || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, n};
}

/// True when s is well-formed UTF-8 from end to end.
[[nodiscard]] constexpr bool valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const utf8_char c = decode_utf8(s, i);
    if (c.length == 0) return false;
    i += c.length;
  }
  return true;
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

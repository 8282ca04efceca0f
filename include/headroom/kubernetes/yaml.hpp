// SPDX-License-Identifier: Apache-2.0
// Writing YAML (internal to kubernetes.hpp): string scalars that a YAML 1.1 parser (PyYAML,
// kubectl's sigs.k8s.io/yaml) reads back as the very string, plain, single-quoted or
// double-quoted with escapes (the double-quoted form is also a PromQL string literal),
// decimal quantities, and an indentation-aware line writer over a std::string.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../autoscaler/inputs.hpp"
#include "../detail/utf8.hpp"

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

/// True for a character a YAML scalar may hold raw, as a YAML 1.1 parser (PyYAML, kubectl's
/// sigs.k8s.io/yaml) reads it too: YAML 1.2's c-printable (x09, x0A, x0D, x20-x7E, x85,
/// xA0-xD7FF, xE000-xFFFD, x10000-x10FFFF) less the tab and line breaks, and less NEL
/// (U+0085), LS (U+2028) and PS (U+2029), which YAML 1.1 reads as line breaks (U+0085 comes
/// back as a space), and the byte order mark U+FEFF.
[[nodiscard]] constexpr bool yaml_raw_safe(char32_t c) noexcept {
  if (c < 0x80) return c >= 0x20 && c != 0x7F;
  if (c < 0xA0) return false;  // C1 controls, NEL among them
  if (c == 0x2028 || c == 0x2029 || c == 0xFEFF) return false;
  if (c >= 0xD800 && c <= 0xDFFF) return false;  // surrogates (not in valid UTF-8 anyway)
  return c != 0xFFFE && c != 0xFFFF;
}

/// Appends `value` double-quoted with escapes that PromQL (Go string literals) and YAML
/// double-quoted scalars read alike: \\ and \", \n \t \r, other ASCII controls and DEL
/// as \xhh, every other character yaml_raw_safe() refuses as \uhhhh (C1 controls, NEL, LS,
/// PS, U+FEFF, U+FFFE, U+FFFF). Other characters are copied as they are. A byte that is not
/// part of valid UTF-8 is written \xhh, which Go reads as that byte (YAML would read U+00hh:
/// the manifests' strings are checked to be UTF-8 before they get here).
HEADROOM_DECL void append_double_quoted(std::string& out, std::string_view value);

/// True for a word that YAML 1.1 reads as a boolean or null in any case ("yes", "Off", ...).
[[nodiscard]] constexpr bool yaml_keyword(std::string_view s) noexcept {
  constexpr std::string_view words[] = {"y",   "n",    "yes",   "no",  "on",
                                        "off", "true", "false", "null"};
  for (const auto w : words) {
    if (w.size() != s.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = same && c == w[i];
    }
    if (same) return true;
  }
  return false;
}

/// True when s can be written as a plain YAML scalar and read back as the same string: a
/// letter, then letters, digits and . _ / -, and not a YAML 1.1 boolean or null.
[[nodiscard]] constexpr bool yaml_plain_safe(std::string_view s) noexcept {
  if (s.empty()) return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(s.front())) return false;
  for (const char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '/' && c != '-')
      return false;
  return !yaml_keyword(s);
}

/// Appends s as a YAML string scalar: plain when safe, single-quoted ('' for ') when every
/// character may stand raw (yaml_raw_safe()), else double-quoted with escapes. s must be
/// valid UTF-8 (the writers check every string they are given).
HEADROOM_DECL void append_yaml_scalar(std::string& out, std::string_view s);

/// A non-negative value to the nearest milli-unit, as a decimal string ("51", "51.2", "0.05").
[[nodiscard]] HEADROOM_DECL std::string decimal_milli(double value);

/// Indentation-aware YAML line writer over a std::string.
class yaml_writer {
 public:
  /// Appends to `out`.
  explicit yaml_writer(std::string& out) noexcept : out_(out) {}
  /// "# text" on a line of its own.
  HEADROOM_DECL void comment(std::string_view text);
  /// "key:" opening a nested block.
  HEADROOM_DECL void open(int indent, std::string_view key);
  /// "key: value" with value written as a YAML string.
  HEADROOM_DECL void string(int indent, std::string_view key, std::string_view value);
  /// "key: 15" (an integer field).
  HEADROOM_DECL void integer(int indent, std::string_view key, std::int64_t value);
  /// The next key starts a sequence item ("- key: ..."); the item's keys use indent + 2.
  HEADROOM_DECL void item(int indent);

 private:
  HEADROOM_DECL void start(int indent);
  std::string& out_;
  bool item_ = false;
};

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/kubernetes/yaml.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The label-name rule shared by the text-format parser (text.hpp) and the HTTP API reader
// (http_api.hpp): the classic Prometheus name [a-zA-Z_][a-zA-Z0-9_]* (prometheus/common
// model.LabelName.IsValidLegacy), or, for a Prometheus 3 that stores UTF-8 names, any
// non-empty valid UTF-8; and a bound on a name's length that both apply by default.
// docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <string_view>

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// Longest label name read by default, in bytes. Prometheus sets no bound of its own (its
/// scrape config's label_name_length_limit is off by default); names in practice are under
/// 100 bytes, and a hostile page or answer must not cost megabytes per name.
inline constexpr std::size_t default_max_label_name_bytes = 1024;

/// Which label names a reader accepts.
enum class label_name_rule : unsigned char {
  legacy,  ///< [a-zA-Z_][a-zA-Z0-9_]*, as the text format 0.0.4 writes them
  utf8,    ///< any non-empty valid UTF-8 (Prometheus 3 with UTF-8 names, e.g. "service.name")
};

/// True for a classic label name: [a-zA-Z_][a-zA-Z0-9_]*.
[[nodiscard]] constexpr bool is_legacy_label_name(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/api_types.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/api_types.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL auto api_parse_error::message() const -> std::string {
  std::string out = "byte " + std::to_string(offset);
  if (!field.empty()) {
    out += " (field \"";
    out += field;
    out += "\")";
  }
  out += ": ";
  out += describe(code);
  return out;
}

HEADROOM_DECL auto api_series::label(std::string_view name) const noexcept
    -> std::optional<std::string_view> {
  for (const api_label& l : labels)
    if (l.name == name) return std::string_view(l.value);
  return std::nullopt;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

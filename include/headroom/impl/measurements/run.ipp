// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/run.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../measurements/run.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {

HEADROOM_DECL auto read_error::message() const -> std::string {
  std::string m = "byte " + std::to_string(offset);
  if (!field.empty()) m += " (field \"" + field + "\")";
  m += ": ";
  m += reason;
  return m;
}

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

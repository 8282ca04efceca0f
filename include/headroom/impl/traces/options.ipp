// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/traces/options.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../traces/options.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace traces {

HEADROOM_DECL auto trace_summary::rate_per_second() const noexcept -> std::optional<double> {
  const double span = (last_arrival - first_arrival).count();
  if (requests < 2 || !(span > 0.0)) return std::nullopt;
  return static_cast<double>(requests - 1) / span;
}

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

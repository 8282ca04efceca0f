// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/capacity/outcome.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../capacity/outcome.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace capacity {

HEADROOM_DECL void validate(const slo& objective) {
  detail::require_positive("slo.ttft", objective.ttft.count());
  detail::require_positive("slo.tpot", objective.tpot.count());
  if (objective.e2e) detail::require_positive("slo.e2e", objective.e2e->count());
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

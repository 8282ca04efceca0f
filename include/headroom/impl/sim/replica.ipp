// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/replica.hpp's non-template functions: included at the end of that
// header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/replica.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL void validate_replica_requests(std::span<const sim::request> requests) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const sim::request& r = requests[i];
    if (!is_finite(r.arrival.count()))
      fail("requests[i].arrival", r.arrival, "must be a finite time");
    if (i > 0 && r.arrival < requests[i - 1].arrival)
      fail("requests[i].arrival", r.arrival, "arrivals must be sorted (non-decreasing)");
    if (r.prompt_tokens == 0) fail("requests[i].prompt_tokens", 0, "must be >= 1");
    if (r.output_tokens == 0) fail("requests[i].output_tokens", 0, "must be >= 1");
  }
}

HEADROOM_DECL double replica_horizon_s(const sim::run_options& options) {
  if (!options.horizon) return std::numeric_limits<double>::infinity();
  return require_finite("options.horizon", options.horizon->count());
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

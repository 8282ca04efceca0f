// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/capacity/search.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../capacity/search.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace capacity {
namespace detail {

HEADROOM_DECL void validate_search_options(const capacity_search_options& options) {
  require_open_unit("options.quota", options.quota);
  const double low = require_positive("options.rate_low_per_second", options.rate_low_per_second);
  const double high =
      require_positive("options.rate_high_per_second", options.rate_high_per_second);
  if (!(high > low))
    fail("options.rate_high_per_second", high, "must be > options.rate_low_per_second");
  require_positive("options.relative_tolerance", options.relative_tolerance);
  const double growth = require_finite("options.growth_factor", options.growth_factor);
  if (!(growth > 1.0)) fail("options.growth_factor", growth, "must be > 1");
  if (options.max_measurements < 2)
    fail("options.max_measurements", options.max_measurements, "must be >= 2");
  if (options.max_runs_per_rate < 1)
    fail("options.max_runs_per_rate", options.max_runs_per_rate, "must be >= 1");
  if (options.request_budget && *options.request_budget == 0)
    fail("options.request_budget", *options.request_budget, "must be > 0");
}

}  // namespace detail
}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/query_value.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/query_value.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL query_reading read_query_value(const api_response& r, null_values nulls) {
  if (!r.parsed()) return {.missing = query_missing::malformed};
  if (r.status == api_status::error) return {.missing = query_missing::query_failed};
  double v = 0;
  switch (r.type) {
    case api_result_type::vector:
      if (r.series.empty())
        return nulls == null_values::keda_ignore_null
                   ? query_reading{.value = 0.0, .missing = query_missing::none}
                   : query_reading{.missing = query_missing::no_series};
      if (r.series.size() > 1) return {.missing = query_missing::multiple_series};
      v = r.series.front().points.front().value;
      break;
    case api_result_type::scalar:
      v = r.scalar.value;
      break;
    case api_result_type::matrix:
    case api_result_type::string:
    case api_result_type::none:
      return {.missing = query_missing::not_instant_value};
  }
  if (!std::isfinite(v))
    return nulls == null_values::keda_ignore_null
               ? query_reading{.value = 0.0, .missing = query_missing::none}
               : query_reading{.missing = query_missing::not_finite};
  return {.value = v, .missing = query_missing::none};
}

HEADROOM_DECL autoscaling::metric_observation observe_query(const api_response& r,
                                                            null_values nulls) {
  const query_reading reading = read_query_value(r, nulls);
  if (!reading.value) return {};
  return autoscaling::observe_value(*reading.value);
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/http_api.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/http_api.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL api_response parse_api_response(std::string_view json, const api_limits& limits) {
  api_response out;
  if (limits.max_bytes != 0 && json.size() > limits.max_bytes) {
    out.parse_error = {.code = api_errc::too_large, .offset = limits.max_bytes, .field = {}};
    return out;
  }
  detail::api_reader reader(json, limits, out);
  reader.run();
  if (!out.parsed()) {
    out.type = api_result_type::none;
    out.series.clear();
    out.string_value.clear();
  }
  return out;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

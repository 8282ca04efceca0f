// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/detail/json_file.hpp's non-template functions: included
// at the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../../measurements/detail/json_file.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {
namespace detail {

HEADROOM_DECL bool too_large(std::string_view text, const read_options& options,
                             benchmark_file& out) {
  if (options.max_bytes == 0 || text.size() <= options.max_bytes) return false;
  out.error = read_error{.offset = options.max_bytes,
                         .reason = std::string(describe(::headroom::detail::json_errc::too_large))};
  return true;
}

}  // namespace detail
}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// What every benchmark reader does around its own fields: refuse a file over the size bound,
// parse it as one bounded JSON document, and turn the first bad field into the file's one
// read_error (no run kept). docs/capacity.md, "Reading benchmark files".
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <string>
#include <string_view>
#include <utility>

#include "../../detail/json.hpp"
#include "../run.hpp"

namespace headroom {
inline namespace v0 {
namespace measurements {
namespace detail {

// The error of a file over options.max_bytes (0: no bound), or none.
[[nodiscard]] HEADROOM_DECL bool too_large(std::string_view text, const read_options& options,
                                           benchmark_file& out);

// `text` as one JSON document within `options`, its root handed to `read(root, runs, error)`,
// which returns false (with `error` set) on the first bad field.
template <class Read>
[[nodiscard]] benchmark_file read_json_file(std::string_view text, const read_options& options,
                                            ::headroom::detail::json_non_finite non_finite,
                                            Read&& read) {
  using ::headroom::detail::json_document;
  benchmark_file out;
  if (too_large(text, options, out)) return out;
  const json_document doc = json_document::parse(
      text,
      {.max_bytes = 0, .max_string_bytes = options.max_string_bytes, .non_finite = non_finite});
  if (!doc.ok()) {
    out.error =
        read_error{.offset = doc.error().offset, .reason = std::string(describe(doc.error().code))};
    return out;
  }
  read_error error;
  if (!std::forward<Read>(read)(doc.root(), out.runs, error)) {
    out.runs.clear();
    out.error = std::move(error);
  }
  return out;
}

}  // namespace detail
}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../../impl/measurements/detail/json_file.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/format.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../measurements/format.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {

HEADROOM_DECL benchmark_format detect_benchmark_format(std::string_view text) {
  using ::headroom::detail::json_document;
  const json_document doc =
      json_document::parse(text, {.max_bytes = 0,
                                  .max_string_bytes = 0,
                                  .non_finite = ::headroom::detail::json_non_finite::python});
  if (doc.ok() && doc.root()["benchmarks"].present()) return benchmark_format::guidellm;
  if (doc.ok() && doc.root()["experiments"].present()) return benchmark_format::genai_perf;
  return benchmark_format::vllm_bench;
}

HEADROOM_DECL benchmark_file read_benchmark_file(std::string_view text,
                                                 const read_options& options) {
  if (options.max_bytes != 0 && text.size() > options.max_bytes)
    return read_vllm_bench(text, options);  // refused by size, before any parse
  switch (detect_benchmark_format(text)) {
    case benchmark_format::guidellm:
      return read_guidellm(text, options);
    case benchmark_format::genai_perf:
      return read_genai_perf(text, options);
    case benchmark_format::vllm_bench:
      break;
  }
  return read_vllm_bench(text, options);
}

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Which tool wrote a benchmark file, told from its content, and the reader for it.
// docs/capacity.md, "Reading benchmark files".
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstdint>
#include <string_view>

#include "../detail/json.hpp"
#include "genai_perf.hpp"
#include "guidellm.hpp"
#include "run.hpp"
#include "vllm_bench.hpp"

namespace headroom {
inline namespace v0 {
namespace measurements {

/// The tools whose files this library reads.
enum class benchmark_format : std::uint8_t {
  vllm_bench,  ///< `vllm bench serve --save-result` (read_vllm_bench)
  guidellm,    ///< a guidellm report (read_guidellm)
  genai_perf,  ///< a genai-perf profile export (read_genai_perf)
};

/// "vllm_bench", "guidellm" or "genai_perf".
[[nodiscard]] constexpr std::string_view to_string(benchmark_format f) noexcept {
  switch (f) {
    case benchmark_format::guidellm:
      return "guidellm";
    case benchmark_format::genai_perf:
      return "genai_perf";
    case benchmark_format::vllm_bench:
      break;
  }
  return "vllm_bench";
}

/// The format of `text`: a JSON object with a "benchmarks" member is a guidellm report, one
/// with an "experiments" member a genai-perf profile export; anything else (a vLLM result,
/// JSON Lines of them, or text no reader accepts) is vllm_bench, whose reader then says what
/// is wrong.
[[nodiscard]] HEADROOM_DECL benchmark_format detect_benchmark_format(std::string_view text);

/// Reads `text` with the reader of its detected format (detect_benchmark_format; it parses
/// the JSON once more). Never throws for bad input.
[[nodiscard]] HEADROOM_DECL benchmark_file read_benchmark_file(std::string_view text,
                                                               const read_options& options = {});

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/measurements/format.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

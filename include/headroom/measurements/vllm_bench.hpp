// SPDX-License-Identifier: Apache-2.0
// Reading vLLM's benchmark results: the JSON `vllm bench serve --save-result` writes (and
// `benchmarks/benchmark_serving.py` before it), with `--save-detailed` its per-request arrays,
// and the JSON Lines of `--append-result`. docs/capacity.md, "Reading benchmark files".
//
// Source: vllm-project/vllm vllm/benchmarks/serve.py, main_async (the run's keys: request_rate,
// a number or "inf", burstiness, max_concurrency) and benchmark() (duration, completed,
// failed, the *_ms summaries, and the per-request input_lens, output_lens, ttfts, itls,
// start_times, latencies, queue_times, errors), at commit 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1;
// vllm/benchmarks/lib/endpoint_request_func.py (RequestFuncOutput: ttft and itl in seconds
// from the send, start_time from time.perf_counter()). Per request: TTFT from ttfts, the end
// from latencies (or TTFT plus the inter-chunk gaps of itls, which are per streamed chunk, not
// per token), the send from start_times relative to the first, the intended send from
// start_time − queue_time. A failed request keeps its entries (ttft 0, output 0, an error
// text, or an empty one for an HTTP error without a reason): it is an error when its error
// text is not empty or when its TTFT and output are both 0.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/json.hpp"
#include "detail/json_file.hpp"
#include "run.hpp"

namespace headroom {
inline namespace v0 {
namespace measurements {

namespace detail {

using ::headroom::detail::json_kind;
using ::headroom::detail::json_value;

// Reads one result object into `run`; false (with `error` set) on the first bad field.
class vllm_object_reader {
 public:
  vllm_object_reader(json_value root, std::size_t base, benchmark_run& run, read_error& error)
      : root_(root), base_(base), run_(run), error_(error) {}

  HEADROOM_DECL bool read();

 private:
  json_value root_;
  std::size_t base_;
  benchmark_run& run_;
  read_error& error_;

  HEADROOM_DECL bool fail(json_value at, std::string field, std::string reason);

  // A finite number >= 0 (a count, a time), or a failure naming `field`.
  HEADROOM_DECL bool non_negative(json_value v, const std::string& field, double& out);
  HEADROOM_DECL bool whole(json_value v, const std::string& field, std::size_t& out);

  HEADROOM_DECL bool read_load();

  HEADROOM_DECL bool read_counts();

  HEADROOM_DECL bool read_summaries();

  // The per-request arrays of --save-detailed: all or none of the four that make an outcome.
  HEADROOM_DECL bool read_requests();
};

}  // namespace detail

/// Reads a vLLM benchmark result: one JSON object, or one per line (--append-result). Never
/// throws for bad input: a malformed file, a missing request_rate, a field of the wrong type,
/// a NaN or negative time, or per-request arrays of different lengths refuse the whole file
/// with one read_error (byte, field, reason). Python's NaN and Infinity words are read (as
/// json.dump writes them) and then refused where a finite number belongs.
[[nodiscard]] HEADROOM_DECL benchmark_file read_vllm_bench(std::string_view text,
                                                           const read_options& options = {});

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/measurements/vllm_bench.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

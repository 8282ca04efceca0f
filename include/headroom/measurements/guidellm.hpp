// SPDX-License-Identifier: Apache-2.0
// Reading guidellm's benchmark reports (`guidellm benchmark --output-path benchmarks.json`):
// one run per benchmark of the report, its load from the benchmark's strategy, one
// request_outcome per request object the report keeps. docs/capacity.md, "Reading benchmark
// files".
//
// Source: vllm-project/guidellm. Reports of guidellm 0.4 and later carry
// `metadata.version` (1, or 2 from 0.7; src/guidellm/benchmark/schemas/report.py at
// ee7a77457ba668b4b5ccb40f110518829893b36a): per benchmark `config.strategy`
// (src/guidellm/scheduler/strategies.py: type_ "synchronous", "concurrent" with `streams`,
// "throughput", "constant" and "poisson" with `rate`, "trace"), `scheduler_metrics.requests_made`,
// `metrics.<name>.successful` summaries in milliseconds, and `requests.{successful, errored,
// incomplete}` lists of GenerativeRequestStats (src/guidellm/schemas/request_stats.py) whose
// `info.timings` (src/guidellm/schemas/info.py, RequestTimings) are Unix seconds:
// `targeted_start` (the schedule), `request_start` (the send), `first_token_iteration`,
// `last_token_iteration` (else `request_end`). Earlier reports (0.2, 0.3) have no metadata:
// `args.strategy`, `request_totals`, and per request `scheduler_info.targeted_start_time`,
// `start_time`, `first_token_time`, `last_token_time` (else `end_time`)
// (src/guidellm/benchmark/benchmark.py at a1fe883aa062ed0225d60e0ae9f0f6340ce1742a). guidellm
// stores no per-token times, only the first and the last; the lists may be a reservoir sample of
// the run (`sample_size`).
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

// Reads a report's benchmarks into runs; false (with `error` set) on the first bad field.
class guidellm_reader {
 public:
  guidellm_reader(json_value root, std::vector<benchmark_run>& runs, read_error& error)
      : root_(root), runs_(runs), error_(error) {}

  HEADROOM_DECL bool read();

 private:
  json_value root_;
  std::vector<benchmark_run>& runs_;
  read_error& error_;
  bool modern_ = false;  // metadata.version 1 or 2; else the 0.2/0.3 layout

  HEADROOM_DECL bool fail(json_value at, std::string field, std::string reason);

  // `v` absent or null: nullopt; a finite number >= 0: its value; else a failure.
  HEADROOM_DECL bool optional_non_negative(json_value v, const std::string& field,
                                           std::optional<double>& out);
  HEADROOM_DECL bool optional_whole(json_value v, const std::string& field,
                                    std::optional<std::size_t>& out);
  // A Unix time in seconds (a finite number > 0) or absent/null.
  HEADROOM_DECL bool optional_time(json_value v, const std::string& field,
                                   std::optional<double>& out);

  HEADROOM_DECL bool read_strategy(json_value s, const std::string& field, offered_load& load);

  HEADROOM_DECL bool read_counts(json_value counts, const std::string& field, benchmark_run& run);

  HEADROOM_DECL bool read_summaries(json_value metrics, const std::string& field,
                                    benchmark_run& run);

  // One request's times (Unix seconds) and tokens before they are made relative.
  struct raw {
    double intended = 0, sent = 0, first = 0, end = 0;
    std::size_t in = 0, out = 0;
    bool error = false;
    bool scheduled = true;  // its intended time is the schedule's (targeted_start)
    bool counted = true;    // both token counts are in the file
  };

  // Tokens: the computed field, else the usage metrics' total, else (output) the iterations.
  HEADROOM_DECL bool tokens(json_value r, const std::string& field, const char* computed,
                            const char* usage, json_value iterations, std::size_t& out,
                            bool& counted);

  HEADROOM_DECL bool read_request(json_value r, const std::string& field, bool successful, raw& x);

  HEADROOM_DECL bool read_requests(json_value requests, const std::string& field,
                                   benchmark_run& run);

  HEADROOM_DECL bool read_benchmark(json_value b, const std::string& field, benchmark_run& run);
};

}  // namespace detail

/// Reads a guidellm report (JSON): one benchmark_run per benchmark, in the report's order.
/// Never throws for bad input: a malformed file, a missing strategy, an unknown report
/// version, a field of the wrong type, a NaN, negative or out-of-order time refuse the whole
/// file with one read_error (byte, field, reason). Requests listed as errored or incomplete
/// (in flight when the benchmark ended) read as errors; times are made relative to the
/// earliest intended send (`targeted_start`).
[[nodiscard]] HEADROOM_DECL benchmark_file read_guidellm(std::string_view text,
                                                         const read_options& options = {});

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/measurements/guidellm.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

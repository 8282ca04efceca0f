// SPDX-License-Identifier: Apache-2.0
// The trace formats, the reading options, one request of a trace and the summary of a read.
// Part of the trace readers (include/headroom/traces.hpp); formats and a worked example:
// docs/traces.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace traces {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

/// The trace formats the readers understand.
enum class trace_format : std::uint8_t {
  azure,     ///< Azure LLM inference CSV: TIMESTAMP (date-time), ContextTokens, GeneratedTokens
  burstgpt,  ///< BurstGPT CSV: Timestamp (s), Request tokens, Response tokens (+ other columns)
  mooncake,  ///< Mooncake JSON lines: timestamp (ms), input_length, output_length (+ hash_ids)
};

/// Where trace time 0 lies; the window (from, to) is measured from it.
enum class trace_origin : std::uint8_t {
  first_row,   ///< the time of the file's first data row
  trace_zero,  ///< the trace's own zero: 00:00 of the first row's day (Azure), 0 s, 0 ms
};

/// What becomes of BurstGPT's failed requests (rows with Response tokens 0, per its README).
enum class failed_rows : std::uint8_t {
  skip,  ///< left out (as in BurstGPT's own *_without_fails_* files); counted in the summary
  keep,  ///< yielded with output_tokens 0 (they arrived: count them in the traffic)
};

/// How to read a trace. The reader keeps the rows whose time t (from the origin) lies in
/// [from, to) and yields each at arrival (t − from) / speed.
struct trace_options {
  double speed = 1.0;  ///< replay at speed× the recorded pace (2: twice as fast); finite, > 0
  std::chrono::duration<double> from{0};              ///< window start, trace time, >= 0
  std::optional<std::chrono::duration<double>> to{};  ///< window end (excluded), > from
  trace_origin origin = trace_origin::first_row;      ///< where trace time 0 lies
  failed_rows failed = failed_rows::skip;             ///< BurstGPT rows with Response tokens 0
  std::string_view model{};     ///< BurstGPT only: keep rows of this Model ("GPT-4"); empty: all
  std::string_view log_type{};  ///< BurstGPT only: keep rows of this Log Type; empty: all
  std::string_view name{};  ///< the file's name in error messages; empty: the source's or "trace"
  std::size_t buffer_bytes = std::size_t{1} << 18;  ///< the read buffer, the longest line; >= 64
};

/// One request of a trace.
struct trace_request {
  std::chrono::duration<double> arrival{};  ///< seconds from the window's start, after speed
  std::size_t prompt_tokens = 0;            ///< input tokens (ContextTokens, Request tokens, ...)
  std::size_t output_tokens = 0;            ///< generated tokens (0 only for a kept failure)
};

/// What a read saw. Counts are rows; token sums are over the requests yielded.
struct trace_summary {
  std::size_t lines = 0;          ///< lines read, header and blank lines included
  std::size_t rows = 0;           ///< data rows parsed
  std::size_t requests = 0;       ///< rows yielded
  std::size_t failed = 0;         ///< BurstGPT failures seen (yielded only with failed_rows::keep)
  std::size_t filtered = 0;       ///< BurstGPT rows of another model or log type
  std::size_t before_window = 0;  ///< rows before options.from
  bool reached_window_end = false;  ///< stopped at a row at or after options.to (rest unread)
  std::uint64_t prompt_tokens = 0;  ///< Σ prompt tokens yielded
  std::uint64_t output_tokens = 0;  ///< Σ output tokens yielded
  std::chrono::duration<double> first_arrival{};  ///< of the first request yielded (0 if none)
  std::chrono::duration<double> last_arrival{};   ///< of the last request yielded (0 if none)

  /// Mean prompt tokens per request yielded (0 when none).
  [[nodiscard]] double mean_prompt_tokens() const noexcept {
    return requests == 0 ? 0.0 : static_cast<double>(prompt_tokens) / static_cast<double>(requests);
  }
  /// Mean output tokens per request yielded (0 when none).
  [[nodiscard]] double mean_output_tokens() const noexcept {
    return requests == 0 ? 0.0 : static_cast<double>(output_tokens) / static_cast<double>(requests);
  }
  /// The mean rate of the requests yielded, (n − 1)/(last − first) req/s (arrivals.hpp's
  /// observed_rate_per_second); empty with fewer than two distinct arrival times.
  [[nodiscard]] HEADROOM_DECL std::optional<double> rate_per_second() const noexcept;
};

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/traces/options.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

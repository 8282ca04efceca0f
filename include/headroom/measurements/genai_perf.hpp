// SPDX-License-Identifier: Apache-2.0
// Reading NVIDIA genai-perf's profile export (`profile_export.json`, written by perf_analyzer
// under genai-perf): one run per experiment, its load from the experiment's mode, one
// request_outcome per request, from OpenAI-compatible endpoints' responses. docs/capacity.md,
// "Reading benchmark files".
//
// Source: triton-inference-server/perf_analyzer at 263c5f6e0c7a6c15472a54409174981f67930cfe:
// src/profile_data_exporter.cc (the layout: `experiments[].experiment.{mode, value}`,
// "concurrency" or "request_rate"; `requests[].timestamp`, the send, and
// `response_timestamps[]`, each a whole number of nanoseconds since the epoch;
// `response_outputs[].response`, the text of each response; `service_kind`, `endpoint`) and
// genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py (how genai-perf reads
// them: a splintered server-sent event joined to the response before it, several events in one
// response split at blank lines, `event:` lines naming an error, responses without text left
// out, TTFT from the send to the first response with text, the end at the last). The export
// holds neither the schedule (only each send) nor token counts (genai-perf counts them with a
// tokenizer); the server's own `usage` is read where a response carries it.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
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

// What one request's responses say, read as genai-perf reads them.
struct genai_perf_responses {
  std::optional<std::size_t> first, last;  // indices of the first and last response with text
  std::size_t chunks = 0;                  // server-sent events (or whole answers) with text
  std::optional<std::size_t> prompt_tokens, completion_tokens;  // the server's usage, if sent
  bool error = false;  // an error event or object, or a chunk that is not JSON
};

// Whether an SSE line is a comment or a field other than data (genai-perf's
// not_data_sse_field).
[[nodiscard]] constexpr bool genai_perf_not_data(std::string_view s) noexcept {
  return s.starts_with(':') || s.starts_with("event:") || s.starts_with("id:") ||
         s.starts_with("retry:");
}

[[nodiscard]] constexpr std::string_view genai_perf_strip(std::string_view s) noexcept {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Reads a profile export's experiments into runs; false (with `error` set) on the first bad
// field.
class genai_perf_reader {
 public:
  genai_perf_reader(std::string_view text, json_value root, const read_options& options,
                    std::vector<benchmark_run>& runs, read_error& error)
      : text_(text), root_(root), options_(options), runs_(runs), error_(error) {}

  HEADROOM_DECL bool read();

 private:
  std::string_view text_;
  json_value root_;
  const read_options& options_;
  std::vector<benchmark_run>& runs_;
  read_error& error_;

  HEADROOM_DECL bool fail(json_value at, std::string field, std::string reason);

  // A whole number of nanoseconds since the epoch, read from the text itself (a double would
  // round today's 1.7e18 ns to 256 ns).
  HEADROOM_DECL bool nanoseconds(json_value v, const std::string& field, std::uint64_t& out);

  HEADROOM_DECL bool read_mode(json_value e, const std::string& field, offered_load& load);

  // Counts the event in `with_text` when it carries text, and keeps the usage it states;
  // sets r.error when it is an error event or object, or not JSON.
  HEADROOM_DECL void read_event(std::string_view event, genai_perf_responses& r,
                                std::size_t& with_text);

  // Reads one request's responses as genai-perf's _preprocess_response does.
  HEADROOM_DECL bool read_responses(json_value outputs, const std::string& field,
                                    genai_perf_responses& r);

  // One request's times (ns since the epoch) and tokens before they are made relative.
  struct raw {
    std::uint64_t sent = 0, first = 0, end = 0;
    std::size_t in = 0, out = 0;
    bool error = false, counted = false;  // counted: tokens from the server's usage
  };

  HEADROOM_DECL bool read_request(json_value q, const std::string& field, raw& x);

  HEADROOM_DECL bool read_experiment(json_value e, const std::string& field, benchmark_run& run);
};

}  // namespace detail

/// Reads a genai-perf profile export (`profile_export.json`; perf_analyzer's
/// `--profile-export-file`): one benchmark_run per experiment, in the file's order, from an
/// OpenAI-compatible endpoint ("service_kind": "openai"). Never throws for bad input: a
/// malformed file, another service kind, a missing or fractional timestamp, a response before
/// its request or out of order, or response lists of different lengths refuse the whole file
/// with one read_error (byte, field, reason). A request whose responses carry no text, or
/// carry an error event or object or a chunk that is not JSON, reads as an error. The export
/// holds no schedule: intended_arrival is the send (intended_times_known false). Token counts
/// come from the server's `usage` where a response carries it; else prompt_tokens is 0 and
/// output_tokens counts the events with text (token_counts_known false).
[[nodiscard]] HEADROOM_DECL benchmark_file read_genai_perf(std::string_view text,
                                                           const read_options& options = {});

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/measurements/genai_perf.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

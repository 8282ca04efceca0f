// SPDX-License-Identifier: Apache-2.0
// What a benchmark file holds once read: the load one run offered, each request's outcome in
// capacity.hpp's terms (so conformance and the μ* search work on the user's own engine), and
// the run's own summary; or why the file was refused. docs/capacity.md, "Reading benchmark
// files".
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../capacity/outcome.hpp"

namespace headroom {
inline namespace v0 {
namespace measurements {

/// How a run sent its requests.
enum class load_pattern : std::uint8_t {
  /// On a schedule at request_rate_per_second, whatever the server did (vLLM at a finite
  /// rate; guidellm's "constant" and "poisson"): a point of an open-loop capacity curve.
  open_loop,
  /// Every request at once, at most max_concurrency in flight (vLLM's "inf", guidellm's
  /// "throughput").
  all_at_once,
  /// max_concurrency streams, each sending when its last answer arrived (guidellm's
  /// "synchronous", one stream, and "concurrent"): the load follows the server, so the run
  /// is not a point of an open-loop curve (coordinated omission; docs/capacity.md).
  closed_loop,
  /// A trace's own times, scaled (guidellm's "trace").
  trace,
};

/// "open_loop", "all_at_once", "closed_loop" or "trace".
[[nodiscard]] constexpr std::string_view to_string(load_pattern p) noexcept {
  switch (p) {
    case load_pattern::open_loop:
      return "open_loop";
    case load_pattern::all_at_once:
      return "all_at_once";
    case load_pattern::closed_loop:
      return "closed_loop";
    case load_pattern::trace:
      break;
  }
  return "trace";
}

/// The load a run offered.
struct offered_load {
  load_pattern pattern = load_pattern::open_loop;  ///< how requests were sent
  /// Requests per second of the schedule; set exactly when pattern is open_loop.
  std::optional<double> request_rate_per_second{};
  /// The shape of the gamma gaps (1: Poisson), where the tool states it.
  std::optional<double> burstiness{};
  /// The cap on requests in flight (the streams of a closed loop); nullopt: none.
  std::optional<std::size_t> max_concurrency{};
};

/// A latency summary a tool computed itself over its successful requests, seconds.
struct latency_summary {
  std::optional<double> mean{};    ///< mean
  std::optional<double> median{};  ///< median
  std::optional<double> p99{};     ///< 99th percentile
};

/// One run at one load.
struct benchmark_run {
  std::string tool{};  ///< which tool wrote it ("vllm bench serve", "guidellm")
  offered_load load{};
  std::optional<std::chrono::duration<double>> duration{};  ///< the run's length, when stated
  std::optional<std::size_t> completed{};  ///< successful requests, as the tool counted them
  std::optional<std::size_t> failed{};     ///< failed requests, as the tool counted them
  /// Requests still in flight when the run ended, as the tool counted them (guidellm's
  /// "incomplete"; they read as errors in `requests`).
  std::optional<std::size_t> incomplete{};
  /// Each request, in the order sent, latencies from its own send time (see send_times_known);
  /// empty when the file holds summaries only.
  std::vector<capacity::request_outcome> requests{};
  /// Whether `requests` is a sample of the run's requests (guidellm keeps a reservoir sample
  /// when asked): fewer than the counts above, drawn by the tool.
  bool requests_sampled = false;
  /// Whether `requests` carry when each was sent (relative to the first): without it every
  /// request reads as sent at 0, its latencies right but the run's timeline lost (no warm-up
  /// or cool-down to discard).
  bool send_times_known = false;
  /// Whether each request's intended_arrival is the schedule's own time (vLLM's queue_times,
  /// guidellm's targeted_start). False: it is the send, so a client that fell behind its
  /// schedule hides that delay from the latencies (coordinated omission; docs/capacity.md).
  bool intended_times_known = false;
  /// Whether every successful request's token counts come from the file (or the server's own
  /// `usage`). False: a count the file lacks is 0 (prompt) or the number of streamed chunks
  /// with text (output; at least one token each), as genai-perf's export without usage.
  bool token_counts_known = false;
  latency_summary ttft{};  ///< the tool's own TTFT summary
  latency_summary tpot{};  ///< the tool's own TPOT summary (its definition)
  latency_summary itl{};   ///< the tool's own inter-token (or inter-chunk) latency summary
};

/// Why a file was refused: the byte, the field (a path such as "ttfts[3]"; empty for the JSON
/// itself) and the reason.
struct read_error {
  std::size_t offset = 0;
  std::string field{};
  std::string reason{};
  /// "byte 120 (field "ttfts[3]"): must be a finite number >= 0".
  [[nodiscard]] HEADROOM_DECL std::string message() const;
};

/// Bounds on one file, for every reader; 0 means none.
struct read_options {
  std::size_t max_bytes = std::size_t{1} << 30;          ///< longest file (1 GiB)
  std::size_t max_string_bytes = std::size_t{16} << 20;  ///< longest string (16 MiB)
};

/// A file read: its runs, or the error that refused it (then no run).
struct benchmark_file {
  std::vector<benchmark_run> runs{};  ///< one per JSON object read
  std::optional<read_error> error{};  ///< set when the file was refused
  [[nodiscard]] bool ok() const noexcept { return !error.has_value(); }
};

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/measurements/run.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

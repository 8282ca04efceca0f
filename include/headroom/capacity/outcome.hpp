// SPDX-License-Identifier: Apache-2.0
// One request's outcome and the SLO it is judged by: the timestamps a load test records
// (from the intended arrival, so a client behind its schedule cannot hide the queue: no
// coordinated omission), TTFT, TPOT in vLLM's and GuideLLM's definitions, end-to-end latency,
// and meets_slo. Part of capacity.hpp; docs/capacity.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <optional>

#include "../detail/checks.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Capacity: request outcomes, SLOs, conformance with its interval, capacity curves and the
/// search for mu* (docs/capacity.md).
namespace capacity {
namespace detail {
using namespace ::headroom::detail;  // capacity's internals call the shared ones too
}  // namespace detail

// ---- one request ----------------------------------------------------------------------------

/// What happened to one request of a load test (or of a simulated replica). A plain
/// aggregate; times in seconds from the run's start. For an errored request only
/// intended_arrival must be meaningful; the other times are ignored.
struct request_outcome {
  std::chrono::duration<double> intended_arrival{};  ///< when the schedule said to send it
  std::chrono::duration<double> sent{};              ///< when the client actually sent it
  std::chrono::duration<double> first_token{};       ///< when the first output token arrived
  std::chrono::duration<double> finished{};          ///< when the last token / the answer arrived
  std::size_t prompt_tokens = 0;                     ///< input tokens
  std::size_t output_tokens = 0;                     ///< generated tokens
  bool error = false;  ///< failed, timed out or refused: never conforming
};

/// Time to first token from the intended arrival: first_token − intended_arrival.
[[nodiscard]] constexpr std::chrono::duration<double> time_to_first_token(
    const request_outcome& o) noexcept {
  return o.first_token - o.intended_arrival;
}
/// End-to-end latency from the intended arrival: finished − intended_arrival.
[[nodiscard]] constexpr std::chrono::duration<double> end_to_end_latency(
    const request_outcome& o) noexcept {
  return o.finished - o.intended_arrival;
}
/// The client-side queue: sent − intended_arrival (the load generator's own lag; large
/// values mean the client, not the server, could not keep the schedule).
[[nodiscard]] constexpr std::chrono::duration<double> client_queue_delay(
    const request_outcome& o) noexcept {
  return o.sent - o.intended_arrival;
}
/// TTFT as the server sees it, first_token − sent: what a tool that times from the send
/// reports. Shown for comparison; the SLO uses time_to_first_token.
[[nodiscard]] constexpr std::chrono::duration<double> time_to_first_token_from_send(
    const request_outcome& o) noexcept {
  return o.first_token - o.sent;
}
/// TPOT, vLLM definition (benchmarks/serve.py): (E2E − TTFT)/(output_tokens − 1) =
/// (finished − first_token)/(out − 1), the mean time per token after the first; 0 when
/// out <= 1. Independent of whether E2E and TTFT start at the send or the intended time.
/// guidellm calls the same quantity inter_token_latency.
[[nodiscard]] constexpr std::chrono::duration<double> tpot_vllm(const request_outcome& o) noexcept {
  if (o.output_tokens <= 1) return std::chrono::duration<double>::zero();
  return (o.finished - o.first_token) / static_cast<double>(o.output_tokens - 1);
}
/// TPOT, guidellm definition (src/guidellm/schemas/request_stats.py,
/// GenerativeRequestStats.time_per_output_token_ms, "including first token"):
/// (last token − request start)/output_tokens, i.e. E2E/out, TTFT included in the
/// numerator and the first token in the denominator. Here the start is the intended
/// arrival (guidellm's request_start is its send time; equal when the client keeps its
/// schedule); 0 when out = 0 (guidellm: None). (guidellm <= 0.1 divided (last − first) by
/// out instead; that older variant is not offered.)
[[nodiscard]] constexpr std::chrono::duration<double> tpot_guidellm(
    const request_outcome& o) noexcept {
  if (o.output_tokens == 0) return std::chrono::duration<double>::zero();
  return (o.finished - o.intended_arrival) / static_cast<double>(o.output_tokens);
}

// ---- the SLO --------------------------------------------------------------------------------

/// Which TPOT a service-level objective constrains.
enum class tpot_definition {
  vllm,     ///< tpot_vllm: (E2E − TTFT)/(out − 1)
  guidellm  ///< tpot_guidellm: E2E/out
};

/// A latency promise: a request conforms when it did not fail, TTFT <= ttft, TPOT <= tpot
/// and, when set, E2E <= e2e (all inclusive, latencies from the intended arrival).
struct slo {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::chrono::duration<double> ttft{};                ///< TTFT threshold, > 0
  std::chrono::duration<double> tpot{};                ///< TPOT threshold, > 0
  std::optional<std::chrono::duration<double>> e2e{};  ///< optional E2E threshold, > 0
  tpot_definition tpot_kind = tpot_definition::vllm;   ///< which TPOT tpot constrains
};

/// Checks an SLO: every threshold finite and > 0; throws invalid_argument ("slo.ttft", ...).
HEADROOM_DECL void validate(const slo& objective);

/// Whether one outcome meets the SLO (errors never do). No validation: call
/// validate(objective) once beforehand; NaN times compare false and fail.
[[nodiscard]] constexpr bool meets_slo(const slo& objective, const request_outcome& o) noexcept {
  if (o.error) return false;
  // Counts, not durations: without C++20's <=> for durations (libc++ 14), duration's <= is
  // !(b < a), which a NaN passes.
  if (!(time_to_first_token(o).count() <= objective.ttft.count())) return false;
  const auto tpot = objective.tpot_kind == tpot_definition::vllm ? tpot_vllm(o) : tpot_guidellm(o);
  if (!(tpot.count() <= objective.tpot.count())) return false;
  if (objective.e2e && !(end_to_end_latency(o).count() <= objective.e2e->count())) return false;
  return true;
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/capacity/outcome.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

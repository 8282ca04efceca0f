// SPDX-License-Identifier: Apache-2.0
// Reading a whole trace: a visitor per request, the summary, the fleet day's per-step rates,
// the replica simulator's requests and the capacity sweep's lengths.
// Part of the trace readers (include/headroom/traces.hpp); formats and a worked example:
// docs/traces.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "reader.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace traces {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {

/// A reader over any accepted source argument: a TraceSource (by reference) or a stream.
template <class Src>
[[nodiscard]] auto make_trace_reader(trace_format format, Src& source,
                                     const trace_options& options) {
  if constexpr (TraceSource<Src>) {
    return trace_reader<Src&>(format, source, options);
  } else {
    static_assert(TraceStream<Src>,
                  "a trace source is a TraceSource (trace_file, trace_text, a callable "
                  "filling a buffer) or a stream with read(), gcount() and bad()");
    return trace_reader<trace_stream<Src>>(format, trace_stream<Src>(source), options);
  }
}

}  // namespace detail

/// Streams a trace: calls visit(const trace_request&) for each request of the window, in
/// order; a visitor returning bool stops the read by returning false. source: a TraceSource
/// (trace_file{"conv.csv"}, trace_text{...}, a callable) or a std::istream. Constant memory.
/// Returns what was read. Errors as trace_reader.
template <class Src, class Visitor>
trace_summary read_trace(trace_format format, Src&& source, const trace_options& options,
                         Visitor&& visit) {
  auto reader = detail::make_trace_reader(format, source, options);
  trace_request r;
  while (reader.next(r)) {
    if constexpr (std::is_convertible_v<std::invoke_result_t<Visitor&, const trace_request&>,
                                        bool>) {
      if (!static_cast<bool>(visit(static_cast<const trace_request&>(r)))) break;
    } else {
      visit(static_cast<const trace_request&>(r));
    }
  }
  return reader.summary();
}

/// The summary of a whole read (counts, token sums, first and last arrival) in constant memory.
template <class Src>
[[nodiscard]] trace_summary summarize_trace(trace_format format, Src&& source,
                                            const trace_options& options = {}) {
  return read_trace(format, source, options, [](const trace_request&) noexcept {});
}

/// The fleet day's traffic: requests per second in consecutive steps of `step` from the
/// window's start (after the speed-up), element m = (arrivals in [m·step, (m+1)·step)) / step.
/// With options.to, the window's ceil((to − from)/speed/step) steps, empty ones 0; without,
/// up to the step of the last request (none: empty). At most 2^24 steps; step > 0, finite.
/// The memory is one double per step, whatever the file's size.
template <class Src>
[[nodiscard]] std::vector<double> read_trace_rates(
    trace_format format, Src&& source, const trace_options& options = {},
    std::chrono::duration<double> step = std::chrono::minutes{1}) {
  const double step_s = detail::require_positive("step", step.count());
  constexpr double most_steps = 16777216.0;                          // 2^24
  auto reader = detail::make_trace_reader(format, source, options);  // checks the options
  std::vector<double> counts;
  if (options.to) {
    const double window_steps =
        std::ceil((options.to->count() - options.from.count()) / options.speed / step_s);
    if (!(window_steps <= most_steps))
      detail::fail("step", step, "the window holds more than 2^24 steps of it");
    counts.assign(static_cast<std::size_t>(window_steps), 0.0);
  }
  trace_request r;
  while (reader.next(r)) {
    const double index = std::floor(r.arrival.count() / step_s);
    if (!(index < most_steps))
      detail::trace_line_error(reader.name(), reader.line(),
                               "the arrival lies more than 2^24 steps of `step` from the start");
    const auto m = static_cast<std::size_t>(index);
    if (m >= counts.size()) counts.resize(m + 1, 0.0);
    counts[m] += 1.0;
  }
  for (double& c : counts) c /= step_s;
  return counts;
}

/// Every request of the window as a Request{arrival, prompt, output}, for the replica
/// simulator: read_trace_requests<sim::request>(...) feeds sim::simulate. Token counts of 0
/// become 1 (the simulator's minimum: a request reads a token and generates one). Memory
/// grows with the requests kept (use read_trace to stream).
template <class Request, class Src>
requires requires(std::chrono::duration<double> t, std::size_t n) { Request{t, n, n}; }
[[nodiscard]] std::vector<Request> read_trace_requests(trace_format format, Src&& source,
                                                       const trace_options& options = {}) {
  std::vector<Request> requests;
  read_trace(format, source, options, [&requests](const trace_request& r) {
    requests.push_back(Request{r.arrival, r.prompt_tokens > 0 ? r.prompt_tokens : 1,
                               r.output_tokens > 0 ? r.output_tokens : 1});
  });
  return requests;
}

/// The window's prompt and output lengths as Lengths{prompt, output}, in order:
/// read_trace_lengths<sim::request_lengths>(...) feeds sim::replayed_lengths (and through it
/// make_requests and sweep_capacity). Counts of 0 become 1, as read_trace_requests.
template <class Lengths, class Src>
requires requires(std::size_t n) { Lengths{n, n}; }
[[nodiscard]] std::vector<Lengths> read_trace_lengths(trace_format format, Src&& source,
                                                      const trace_options& options = {}) {
  std::vector<Lengths> lengths;
  read_trace(format, source, options, [&lengths](const trace_request& r) {
    lengths.push_back(Lengths{r.prompt_tokens > 0 ? r.prompt_tokens : 1,
                              r.output_tokens > 0 ? r.output_tokens : 1});
  });
  return lengths;
}

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/arrivals.hpp's non-template functions: included at the end of that
// header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../arrivals.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace arrivals {

HEADROOM_DECL auto gamma_gaps::from_burstiness(const gamma_burstiness_inputs& inputs)
    -> gamma_gaps {
  const double burstiness = detail::require_positive("burstiness", inputs.burstiness);
  const double cv = 1.0 / std::sqrt(burstiness);
  const double shape = 1.0 / (cv * cv);
  if (!(shape > 0.0 && detail::is_finite(shape)))
    detail::fail("burstiness", burstiness, "gives a gamma shape that is not finite and > 0");
  return gamma_gaps({.rate_per_second = inputs.rate_per_second, .cv = cv});
}

HEADROOM_DECL std::vector<std::chrono::duration<double>> constant_schedule(
    double rate_per_second, std::size_t count, std::chrono::duration<double> start) {
  detail::require_positive("rate_per_second", rate_per_second);
  detail::require_finite("start", start.count());
  std::vector<std::chrono::duration<double>> times;
  if (count > times.max_size()) detail::fail("count", count, "exceeds the largest vector");
  times.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    times.push_back(start +
                    std::chrono::duration<double>(static_cast<double>(i + 1) / rate_per_second));
  return times;
}

}  // namespace arrivals
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace arrivals {
namespace detail {

HEADROOM_DECL void require_trace(std::span<const std::chrono::duration<double>> trace) {
  if (trace.empty()) fail("trace.size()", 0, "the trace must hold at least one timestamp");
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (!is_finite(trace[i].count())) fail("trace[i]", trace[i], "must be a finite time");
    if (i > 0 && trace[i] < trace[i - 1])
      fail("trace[i]", trace[i], "timestamps must be sorted (non-decreasing)");
  }
}

}  // namespace detail
}  // namespace arrivals
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace arrivals {

HEADROOM_DECL std::vector<std::chrono::duration<double>> replay_schedule(
    std::span<const std::chrono::duration<double>> trace) {
  detail::require_trace(trace);
  std::vector<std::chrono::duration<double>> times;
  times.reserve(trace.size());
  for (const auto& t : trace) times.push_back(t - trace.front());
  return times;
}

HEADROOM_DECL std::vector<std::chrono::duration<double>> replay_schedule(
    std::span<const std::chrono::duration<double>> trace, double target_rate_per_second) {
  detail::require_positive("target_rate_per_second", target_rate_per_second);
  detail::require_trace(trace);
  const double span_s = (trace.back() - trace.front()).count();
  if (!(span_s > 0.0))
    detail::fail("trace.size()", trace.size(),
                 "scaling to a rate needs at least two distinct timestamps");
  const double trace_rate = static_cast<double>(trace.size() - 1) / span_s;
  const double factor = trace_rate / target_rate_per_second;
  std::vector<std::chrono::duration<double>> times;
  times.reserve(trace.size());
  for (const auto& t : trace) times.push_back((t - trace.front()) * factor);
  return times;
}

HEADROOM_DECL double observed_rate_per_second(
    std::span<const std::chrono::duration<double>> schedule) {
  detail::require_trace(schedule);
  const double span_s = (schedule.back() - schedule.front()).count();
  if (!(span_s > 0.0))
    detail::fail("schedule.size()", schedule.size(), "a rate needs two distinct timestamps");
  return static_cast<double>(schedule.size() - 1) / span_s;
}

HEADROOM_DECL closed_loop_population::closed_loop_population(
    std::size_t users, std::chrono::duration<double> mean_think_time, double think_cv)
    : users_(users),
      mean_think_time_(mean_think_time),
      think_cv_(detail::require_gap_cv("think_cv", think_cv)) {
  if (users == 0) detail::fail("users", users, "must be > 0");
  detail::require_non_negative("mean_think_time", mean_think_time.count());
}

HEADROOM_DECL auto closed_loop_population::offered_rate_per_second(
    std::chrono::duration<double> mean_sojourn) const -> double {
  detail::require_non_negative("mean_sojourn", mean_sojourn.count());
  if (!(mean_sojourn.count() + mean_think_time_.count() > 0.0))
    detail::fail("mean_sojourn", mean_sojourn, "mean_sojourn + mean_think_time must be > 0");
  return queueing::closed_loop{.users = static_cast<double>(users_), .think_time = mean_think_time_}
      .rate(mean_sojourn);
}

}  // namespace arrivals
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

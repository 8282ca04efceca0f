// SPDX-License-Identifier: Apache-2.0
// The planner's calls into the library's formulas that take several quantities of one type
// (the roofline step time, the weights and the KV budget, the capacity search's bracket and
// answer, the replicas for a peak, the fleet day's configuration): one function each, all
// here, so that a change of those signatures is adapted in one place. Internal.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "../capacity.hpp"
#include "../queueing.hpp"
#include "../roofline.hpp"
#include "../sim/fleet_day.hpp"
#include "../sim/replica.hpp"
#include "calibrations.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

// sim::make_roofline_step_time over `replica` (a replica's summed peaks and memory) with
// the model's size and the accelerator's resolved efficiencies and step overhead.
[[nodiscard]] inline sim::roofline_step_time roofline_of(const accelerator_spec& replica,
                                                         const model_shape& model,
                                                         const accelerator_option& gpu) {
  const step_time_parameters x = resolve_step_time(gpu, model).parameters;
  return sim::make_roofline_step_time(replica, model.parameters, model.bytes_per_parameter,
                                      model.kv_bytes_per_token, x.flops_efficiency,
                                      x.bandwidth_efficiency, x.step_overhead, model.moe);
}

// roofline.hpp's weight_bytes: N_p × bytes per parameter.
[[nodiscard]] inline double weight_bytes_of(const model_shape& model) {
  return weight_bytes(weight_bytes_inputs{.parameters = model.parameters,
                                          .bytes_per_parameter = model.bytes_per_parameter});
}

// sim::kv_budget_tokens of `memory_bytes` of which `memory_fraction` holds weights and KV.
[[nodiscard]] inline std::size_t kv_budget_of(const model_shape& model, double memory_bytes,
                                              double memory_fraction) {
  return sim::kv_budget_tokens(memory_bytes, memory_fraction, weight_bytes_of(model),
                               model.kv_bytes_per_token);
}

// capacity.hpp's search options: the bracket starts at [rate_high / 2, rate_high].
[[nodiscard]] inline capacity_search_options capacity_bracket(double rate_high_per_second,
                                                              double quota,
                                                              const search_options& s) {
  capacity_search_options o;
  o.quota = quota;
  o.rate_high_per_second = rate_high_per_second;
  o.rate_low_per_second = 0.5 * rate_high_per_second;
  o.relative_tolerance = s.relative_tolerance;
  o.max_measurements = s.max_measurements;
  o.max_runs_per_rate = s.max_runs_per_rate;
  return o;
}

// The search's answer: μ* (none: no rate passed) and the smallest rate that failed.
struct capacity_found {
  std::optional<double> capacity_per_second;  // μ*
  double high_per_second = std::numeric_limits<double>::infinity();
};
[[nodiscard]] inline capacity_found capacity_of(const capacity_search_result& found) {
  return {.capacity_per_second = found.capacity_per_second,
          .high_per_second = found.bracket_high_per_second};
}

// queueing.hpp's replicas_needed: ceil(peak / (ρ*·μ*)).
[[nodiscard]] inline std::int64_t replicas_for_peak(double peak_per_second,
                                                    double target_utilization,
                                                    double capacity_per_second) {
  return replicas_needed(replicas_needed_inputs{.arrival_rate_per_second = peak_per_second,
                                                .target_utilization = target_utilization,
                                                .capacity_per_second = capacity_per_second});
}

// The fleet day of replicas of capacity μ* at ρ*, each paying `price_per_replica_hour`,
// each request generating `tokens_per_request` tokens.
[[nodiscard]] inline sim::fleet_day_config day_config(const problem& p, double capacity_per_second,
                                                      double price_per_replica_hour,
                                                      double tokens_per_request) {
  sim::fleet_day_config day;
  day.capacity_per_replica = capacity_per_second;
  day.target_utilization = p.fleet.target_utilization;
  day.step = p.traffic.step;
  day.scale_down_window_steps = p.fleet.scale_down_window_steps;
  day.price_per_replica_hour = price_per_replica_hour;
  day.tokens_per_request = tokens_per_request;
  return day;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

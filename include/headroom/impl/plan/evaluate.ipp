// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/evaluate.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/evaluate.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL double nearest_rank_quantile(std::vector<double>& values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const std::size_t i =
      rank < 1.0 ? 0 : std::min(values.size() - 1, static_cast<std::size_t>(rank) - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values.end());
  return values[i];
}

HEADROOM_DECL window_latencies latencies_in_window(const sim::replica_result& run, double begin_s,
                                                   double end_s, capacity::tpot_definition kind) {
  window_latencies w;
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& o : run.outcomes) {
    const double t = o.intended_arrival.count();
    if (!(t >= begin_s && t <= end_s)) continue;
    w.ttft.push_back(o.error ? inf : capacity::time_to_first_token(o).count());
    w.tpot.push_back(o.error ? inf
                     : kind == capacity::tpot_definition::vllm
                         ? capacity::tpot_vllm(o).count()
                         : capacity::tpot_guidellm(o).count());
    w.e2e.push_back(o.error ? inf : capacity::end_to_end_latency(o).count());
  }
  return w;
}

HEADROOM_DECL void record_quantiles(row& r, window_latencies& w, const objective& target) {
  const double q = target.quota;
  r.ttft_quantile = std::chrono::duration<double>(nearest_rank_quantile(w.ttft, q));
  r.tpot_quantile = std::chrono::duration<double>(nearest_rank_quantile(w.tpot, q));
  r.e2e_quantile = std::chrono::duration<double>(nearest_rank_quantile(w.e2e, q));
  double margin = std::numeric_limits<double>::infinity();
  if (target.ttft) margin = std::min(margin, 1.0 - r.ttft_quantile / *target.ttft);
  if (target.tpot) margin = std::min(margin, 1.0 - r.tpot_quantile / *target.tpot);
  if (target.e2e) margin = std::min(margin, 1.0 - r.e2e_quantile / *target.e2e);
  r.latency_margin = margin;
}

HEADROOM_DECL void simulate_day(row& r, const stage_inputs& in, const length_statistics& lengths) {
  const problem& p = in.p;
  const double tp = static_cast<double>(r.config.tensor_parallel);
  const double peak =
      *std::max_element(p.traffic.rates_per_second.begin(), p.traffic.rates_per_second.end());
  r.replicas_for_peak = queueing::replicas_needed({.arrival_rate_per_second = peak,
                                                   .target_utilization = p.fleet.target_utilization,
                                                   .capacity_per_second = r.capacity_per_second});
  // The controller's target, a quantity: named in the problem's terms before the day refuses it.
  ::headroom::autoscaling::detail::check_quantity_target(
      "fleet.target_utilization * capacity_per_second",
      p.fleet.target_utilization * r.capacity_per_second);
  sim::fleet_day_simulator simulator({.capacity_per_replica = r.capacity_per_second,
                                      .target_utilization = p.fleet.target_utilization,
                                      .step = p.traffic.step,
                                      .scale_down_window_steps = p.fleet.scale_down_window_steps,
                                      .price_per_replica_hour = in.gpu.price_per_gpu_hour * tp,
                                      .tokens_per_request = lengths.mean_output_tokens});
  const auto summary = simulator.run(p.traffic.rates_per_second, p.fleet.policy);
  r.peak_paid = summary.peak_paid;
  r.replica_hours = summary.replica_hours;
  r.gpu_hours = summary.replica_hours * tp;
  r.cost = summary.cost;
  r.cost_per_million_tokens =
      summary.cost_per_million_tokens.value_or(std::numeric_limits<double>::infinity());
  r.over_share = summary.over_share;
  r.mean_use = summary.mean_use;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

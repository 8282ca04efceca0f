// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/fleet_day.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/fleet_day.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace sim {

HEADROOM_DECL std::vector<double> reference_day_traffic() {
  std::vector<double> rates(1440);
  for (std::int32_t m = 0; m < 1440; ++m)
    rates[static_cast<std::size_t>(m)] = reference_day_rate(m);
  return rates;
}

HEADROOM_DECL traffic_csv_result parse_traffic_csv(std::string_view text) {
  traffic_csv_result result;
  auto fail_at = [&result](std::size_t line, std::string why) {
    result.rates_per_second.clear();
    result.error_line = line;
    result.error = std::move(why);
    return result;
  };
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
      s.remove_suffix(1);
    return s;
  };
  std::size_t line_number = 0;
  bool seen_first = false;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.empty()) continue;
    const std::size_t comma = line.rfind(',');
    std::string_view field = trim(comma == std::string_view::npos ? line : line.substr(comma + 1));
    if (!field.empty() && field.front() == '+') field.remove_prefix(1);
    double rate = 0.0;
    const auto [ptr, ec] =
        ::headroom::detail::from_chars_double(field.data(), field.data() + field.size(), rate);
    const bool numeric = !field.empty() && ec == std::errc{} && ptr == field.data() + field.size();
    const bool header_allowed = !seen_first;
    seen_first = true;
    if (!numeric) {
      if (header_allowed) continue;  // a header line
      return fail_at(line_number, "the last column is not a number: '" + std::string(field) + "'");
    }
    if (!detail::is_finite(rate))
      return fail_at(line_number, "the rate is not finite: '" + std::string(field) + "'");
    if (rate < 0.0)
      return fail_at(line_number, "the rate is negative: '" + std::string(field) + "'");
    result.rates_per_second.push_back(rate);
  }
  if (result.rates_per_second.empty())
    return fail_at(line_number == 0 ? 1 : line_number, "no data row");
  return result;
}

HEADROOM_DECL fleet_policy chase(std::chrono::duration<double> start_time,
                                 std::int32_t spare_replicas) {
  return {.kind = fleet_policy_kind::reactive,
          .start_time = start_time,
          .spare_replicas = spare_replicas};
}

HEADROOM_DECL fleet_policy chase_with_calendar(std::chrono::duration<double> start_time,
                                               std::int32_t spare_replicas) {
  return {.kind = fleet_policy_kind::reactive,
          .start_time = start_time,
          .spare_replicas = spare_replicas,
          .look_ahead = true};
}

HEADROOM_DECL fleet_policy peak_fleet(std::span<const double> traffic_per_second,
                                      const fleet_day_config& config) {
  if (traffic_per_second.empty())
    detail::fail("traffic_per_second.size()", std::size_t{0}, "needs at least one step");
  double peak = 0.0;
  for (const double rate : traffic_per_second) {
    if (!(rate >= 0.0 && detail::is_finite(rate)))
      detail::fail("traffic_per_second[i]", rate, "must be finite and >= 0");
    peak = std::max(peak, rate);
  }
  const double mu =
      detail::require_positive("config.capacity_per_replica", config.capacity_per_replica);
  if (config.max_replicas < 1)
    detail::fail("config.max_replicas", config.max_replicas, "must be >= 1");
  const double needed = detail::cxm::product_ratio({peak}, {mu});
  if (!(needed <= static_cast<double>(config.max_replicas)))
    detail::fail("traffic_per_second", peak,
                 "its peak over config.capacity_per_replica needs more replicas than "
                 "config.max_replicas = " +
                     std::to_string(config.max_replicas));
  return fixed_fleet(static_cast<std::int32_t>(detail::cxm::ceil_count(needed)));
}

HEADROOM_DECL fleet_day_simulator::fleet_day_simulator(fleet_day_config config) : config_(config) {
  detail::require_positive("config.capacity_per_replica", config_.capacity_per_replica);
  detail::require_unit_positive("config.target_utilization", config_.target_utilization);
  if (!(config_.step.count() > 0.0 && detail::is_finite(config_.step.count())))
    detail::fail("config.step", config_.step, "must be finite and > 0");
  if (config_.scale_down_window_steps < 1)
    detail::fail("config.scale_down_window_steps", config_.scale_down_window_steps, "must be >= 1");
  if (config_.max_replicas < 1)
    detail::fail("config.max_replicas", config_.max_replicas, "must be >= 1");
  detail::require_non_negative("config.price_per_replica_hour", config_.price_per_replica_hour);
  detail::require_non_negative("config.tokens_per_request", config_.tokens_per_request);
  // The controller accepts windows up to a year and a day; so does the day's step.
  constexpr double longest_seconds = 366.0 * 24 * 3600;
  if (config_.step.count() > longest_seconds)
    detail::fail("config.step", config_.step, "must be <= 366 days");
  step_ms_ = std::chrono::round<std::chrono::milliseconds>(config_.step);
  if (step_ms_.count() < 1) detail::fail("config.step", config_.step, "must be >= 1 ms");
  if (config_.step.count() * config_.scale_down_window_steps > longest_seconds)
    detail::fail("config.scale_down_window_steps", config_.scale_down_window_steps,
                 "times config.step must be <= 366 days");
  // The controller's AverageValue target, ρ*μ*, is a quantity: refused where whole
  // milli-units would not hold it (0.0005 req/s would read as 0.001, twice the target).
  autoscaling::detail::check_quantity_target(
      "config.target_utilization * config.capacity_per_replica", target());
}

HEADROOM_DECL auto fleet_day_simulator::controller_config(const fleet_policy& policy) const
    -> autoscaling::autoscaler_config {
  // The down window covers the last N recommendations: ages 0, step, ..., (N-1)·step are
  // younger than N·step (a behavior counts a recommendation iff its age < window).
  const auto down_window =
      std::chrono::ceil<std::chrono::seconds>(step_ms_ * config_.scale_down_window_steps);
  return {.min_replicas = 0,
          .max_replicas = config_.max_replicas,
          .metrics = {{.name = "requests_per_second",
                       .source = autoscaling::metric_source::external,
                       .target_type = autoscaling::metric_target_type::average_value,
                       .target = target()}},
          .scale_up_tolerance = 0.0,
          .scale_down_tolerance = 0.0,
          .behavior =
              autoscaling::scaling_behavior{
                  .scale_up = {.stabilization_window = std::chrono::seconds{0},
                               .select = autoscaling::select_policy::max,
                               .policies = {}},
                  .scale_down = {.stabilization_window = down_window,
                                 .select = autoscaling::select_policy::max,
                                 .policies = {}}},
          .sync_period = step_ms_,
          .count_starting_replicas = true,
          .hold_scale_down_while_starting = true,
          .reserve_replicas = policy.spare_replicas};
}

HEADROOM_DECL auto fleet_day_simulator::start_delay_steps(const fleet_policy& policy) const
    -> std::int64_t {
  const double start = policy.start_time.count();
  if (!(start >= 0.0 && detail::is_finite(start)))
    detail::fail("policy.start_time", policy.start_time, "must be finite and >= 0");
  constexpr std::int64_t most = std::int64_t{1} << 62;
  // Round away float noise (8 min / 1 min is 8, not 8.000000000000002 → 9).
  const double steps = start / config_.step.count();
  const double nearest = std::round(steps);
  const double delay = std::abs(steps - nearest) < 1e-9 ? nearest : std::ceil(steps);
  // Also catches an infinite quotient (a huge start over a tiny step).
  return delay >= static_cast<double>(most) ? most : static_cast<std::int64_t>(delay);
}

HEADROOM_DECL auto fleet_day_simulator::run(std::span<const double> traffic_per_second,
                                            const fleet_policy& policy,
                                            std::vector<fleet_step_record>* trace)
    -> fleet_day_summary {
  if (traffic_per_second.empty())
    detail::fail("traffic_per_second.size()", std::size_t{0}, "needs at least one step");
  // The controller's clock counts milliseconds in an int64: the day must fit in it.
  if (traffic_per_second.size() >
      static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max() / step_ms_.count()))
    detail::fail("traffic_per_second.size()", traffic_per_second.size(),
                 "steps of config.step must span less than 2^63 ms");
  for (std::size_t i = 0; i < traffic_per_second.size(); ++i)
    if (!(traffic_per_second[i] >= 0.0 && detail::is_finite(traffic_per_second[i])))
      detail::fail("traffic_per_second[i]", traffic_per_second[i], "must be finite and >= 0");
  if (policy.kind == fleet_policy_kind::reactive) check_rates_as_quantities(traffic_per_second);
  if (policy.kind == fleet_policy_kind::fixed && policy.fixed_replicas < 0)
    detail::fail("policy.fixed_replicas", policy.fixed_replicas, "must be >= 0");
  if (policy.spare_replicas < 0)
    detail::fail("policy.spare_replicas", policy.spare_replicas, "must be >= 0");

  const std::size_t steps = traffic_per_second.size();
  ready_.assign(steps, 0);
  paid_.assign(steps, 0);
  requested_.assign(steps, 0);
  reasons_.assign(steps, autoscaling::scale_reason::desired_within_range);
  if (policy.kind == fleet_policy_kind::fixed) {
    std::fill(ready_.begin(), ready_.end(), policy.fixed_replicas);
    std::fill(paid_.begin(), paid_.end(), policy.fixed_replicas);
    std::fill(requested_.begin(), requested_.end(), policy.fixed_replicas);
  } else {
    run_reactive(traffic_per_second, policy);
  }
  return summarise(traffic_per_second, trace);
}

HEADROOM_DECL auto fleet_day_simulator::check_rates_as_quantities(
    std::span<const double> traffic) const -> void {
  const double most = autoscaling::quantity_value_tolerance * target();
  if (most >= 1.0 / static_cast<double>(autoscaling::milli_per_unit)) return;
  for (const double rate : traffic) {
    if (autoscaling::quantity_rounding(rate) <= most) continue;
    std::string requirement = "whole milli-units (as the controller reads it) would hold it as ";
    detail::append_value(requirement, autoscaling::to_quantity(rate)->value());
    requirement += ", which moves the replica count by more than 0.01 against the target ";
    detail::append_value(requirement, target());
    requirement += " req/s; express the rates in a smaller unit";
    detail::fail("traffic_per_second[i]", rate, requirement);
  }
}

HEADROOM_DECL auto fleet_day_simulator::run_reactive(std::span<const double> traffic,
                                                     const fleet_policy& policy) -> void {
  const std::size_t steps = traffic.size();
  // A replica due at or after the last step never serves in this day: capping the delay at
  // the day's length keeps the order of requests and bounds the buffer (and its index).
  const std::size_t delay = static_cast<std::size_t>(
      std::min(start_delay_steps(policy), static_cast<std::int64_t>(steps)));
  const autoscaling::autoscaler controller(controller_config(policy));
  becoming_ready_.assign(steps + delay + 1, 0);

  // The first fleet is what the first minute asks for (replicas needed for λ(0), plus the
  // reserve); the history starts as five copies of it: seed it one step before t0, so the
  // first window holds it and the steps since.
  // (A first rate beyond what max_replicas can serve asks for max_replicas.)
  const double most_servable = config_.target_utilization * config_.capacity_per_replica *
                               static_cast<double>(config_.max_replicas);
  const std::int64_t first =
      queueing::replicas_needed({.arrival_rate_per_second = std::min(traffic[0], most_servable),
                                 .target_utilization = config_.target_utilization,
                                 .capacity_per_second = config_.capacity_per_replica}) +
      policy.spare_replicas;
  std::int32_t ready =
      static_cast<std::int32_t>(std::min<std::int64_t>(first, config_.max_replicas));
  std::int32_t starting = 0;
  autoscaling::autoscaler_state state = controller.initial_state(-step_ms_, ready);

  autoscaling::metric_observation observed[1];
  for (std::size_t m = 0; m < steps; ++m) {
    const std::int32_t arrived = becoming_ready_[m];
    ready += arrived;
    starting -= arrived;

    observed[0] = autoscaling::observe_value(traffic[m]);
    if (policy.look_ahead) {
      const std::size_t ahead = std::min(m + delay, steps - 1);
      observed[0].forecast = autoscaling::to_quantity(traffic[ahead]);
    }
    autoscaling::autoscaler_input input;
    input.replicas = {.spec = ready + starting, .status = ready + starting, .ready = ready};
    input.metrics = observed;
    const auto now = step_ms_ * static_cast<std::int64_t>(m);
    const autoscaling::autoscaler_decision decision = controller.step(state, now, input);
    std::int32_t delta = decision.desired_replicas - (ready + starting);
    if (delta > 0) {
      if (delay == 0) {
        ready += delta;
      } else {
        starting += delta;
        becoming_ready_[m + delay] += delta;
      }
    } else if (delta < 0) {
      // Cancel replicas still starting first (the latest requests), then stop ready ones.
      for (std::size_t k = becoming_ready_.size(); delta < 0 && k-- > m + 1;) {
        const std::int32_t cancel = std::min(becoming_ready_[k], -delta);
        becoming_ready_[k] -= cancel;
        starting -= cancel;
        delta += cancel;
      }
      ready += delta;
    }
    ready_[m] = ready;
    paid_[m] = ready + starting;
    requested_[m] = decision.desired_replicas;
    reasons_[m] = decision.reason;
  }
}

HEADROOM_DECL auto fleet_day_simulator::summarise(std::span<const double> traffic,
                                                  std::vector<fleet_step_record>* trace) const
    -> fleet_day_summary {
  const std::size_t steps = traffic.size();
  const double mu = config_.capacity_per_replica;
  const double step_seconds = config_.step.count();
  if (trace) trace->resize(steps);
  fleet_day_summary s;
  // Rates near the double range would overflow the sums (inf / inf = NaN shares): the sums
  // of the shares are then taken scaled by a power of two, which is exact. Everyday
  // traffic is not scaled at all.
  const double peak_rate = *std::max_element(traffic.begin(), traffic.end());
  const double scale = peak_rate > 0x1p+900 ? std::ldexp(1.0, -(std::ilogb(peak_rate) + 1)) : 1.0;
  double paid_total = 0.0, over = 0.0, arrivals = 0.0, served = 0.0, capacity_total = 0.0;
  double backlog = 0.0;
  for (std::size_t m = 0; m < steps; ++m) {
    const double capacity = static_cast<double>(ready_[m]) * mu;
    const double excess = std::max(traffic[m] - capacity, 0.0);
    paid_total += static_cast<double>(paid_[m]);
    s.peak_paid = std::max(s.peak_paid, paid_[m]);
    over += excess * scale;
    arrivals += traffic[m] * scale;
    served += std::min(traffic[m], capacity) * scale;
    capacity_total += capacity * scale;
    if (excess > 0.0) ++s.short_steps;
    backlog = std::max(0.0, backlog + (traffic[m] - capacity) * step_seconds);
    if (backlog > 0.0) ++s.backlog_steps;
    if (trace) {
      (*trace)[m] = fleet_step_record{traffic[m], ready_[m], paid_[m], requested_[m],
                                      capacity,   excess,    backlog,  reasons_[m]};
    }
  }
  s.replica_hours = paid_total * step_seconds / 3600.0;
  s.over_share = arrivals > 0.0 ? over / arrivals : 0.0;
  s.mean_use = capacity_total > 0.0 ? served / capacity_total : 0.0;
  s.requests_served = served / scale * step_seconds;
  s.cost = cost::fleet_cost(
      {.replica_hours = s.replica_hours, .price_per_replica_hour = config_.price_per_replica_hour});
  if (config_.price_per_replica_hour > 0.0 && config_.tokens_per_request > 0.0 && served > 0.0) {
    // ρ̄ over what was paid for: served / (paid replicas × μ*), per step summed. At most 1
    // (served <= ready × μ* <= paid × μ*) but for rounding; it may underflow to 0 with
    // a tiny traffic, or overflow the token rate: then there is no finite price per token.
    const double paid_use = std::min(served / (paid_total * mu * scale), 1.0);
    const double tokens_per_second = mu * config_.tokens_per_request;
    if (paid_use > 0.0 && tokens_per_second > 0.0 && detail::is_finite(tokens_per_second)) {
      const double price =
          cost::cost_per_million_tokens({.hourly_cost = config_.price_per_replica_hour,
                                         .tokens_per_second = tokens_per_second,
                                         .mean_utilization = paid_use});
      if (detail::is_finite(price)) s.cost_per_million_tokens = price;
    }
  }
  return s;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/controller.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/controller.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {

HEADROOM_DECL autoscaler::autoscaler(autoscaler_config config) : config_(std::move(config)) {
  detail::validate_hpa_config(config_);
  resolve();
}

HEADROOM_DECL autoscaler::autoscaler(kpa_config config) : kpa_(config) {
  detail::validate_kpa_config(*kpa_);
  // The bounds and the metric, as the HPA-shaped view config() returns.
  config_.min_replicas = kpa_->min_scale;
  config_.max_replicas = kpa_->max_scale > 0 ? kpa_->max_scale : detail::replicas_max;
  config_.metrics = {{.name = kpa_->metric == kpa_metric::concurrency ? "concurrency" : "rps",
                      .source = metric_source::external,
                      .target_type = metric_target_type::average_value,
                      .target = kpa_->target_value()}};
  config_.scale_up_tolerance = config_.scale_down_tolerance = 0.0;
  config_.sync_period = knative_tick_interval;
  const auto delay_ms = std::chrono::milliseconds{kpa_->scale_down_delay}.count();
  const auto tick_ms = std::chrono::milliseconds{knative_tick_interval}.count();
  delay_buckets_ = detail::ceil_div(delay_ms, tick_ms);  // NewTimeWindow: ceil(d / tick)
}

HEADROOM_DECL auto autoscaler::initial_state() const -> autoscaler_state {
  autoscaler_state state;
  const auto period = std::max<std::int64_t>(1, config_.sync_period.count());
  const auto entries = [&](std::chrono::seconds span) {
    const auto per_sync =
        static_cast<std::size_t>(std::chrono::milliseconds{span}.count() / period);
    return std::min(per_sync + reserve_slack, reserve_cap);
  };
  if (!kpa_) {
    if (config_.behavior && up_window_.count() > 0) state.up_window.reserve(entries(up_window_));
    state.down_window.reserve(entries(down_window_));
    if (config_.behavior) {
      state.scale_up_events.reserve(entries(longest_up_period_));
      state.scale_down_events.reserve(entries(longest_down_period_));
    }
  } else if (delay_buckets_ > 0) {
    state.delay_window.reserve(static_cast<std::size_t>(delay_buckets_) + 1);
  }
  return state;
}

HEADROOM_DECL auto autoscaler::initial_state(std::chrono::milliseconds at,
                                             std::int32_t replicas) const -> autoscaler_state {
  if (replicas < 0) detail::fail("replicas", replicas, "must be >= 0");
  check_time("at", at);
  autoscaler_state state = initial_state();
  state.last_time = at;
  if (kpa_) {
    // pkg/autoscaler/scaling/autoscaler.go newAutoscaler: in panic when more than 1 pod.
    state.max_panic_replicas = replicas;
    if (replicas > 1) {
      state.panicking = true;
      state.panic_time = at;
    }
    return state;
  }
  push_window_entry(state, {.at = at, .replicas = replicas});
  state.seeded = true;
  if (replicas == 0 && config_.min_replicas == 0 && has_total_metric_ &&
      scaled_to_zero_condition_kept())
    state.scaled_to_zero = condition_status::is_true;
  return state;
}

HEADROOM_DECL auto autoscaler::state_from_history(const hpa_history& history) const
    -> autoscaler_state {
  if (kpa_) detail::fail("history", std::string_view("hpa_history"), "is for an HPA, not a KPA");
  autoscaler_state state = initial_state();
  const std::span<const timestamped_recommendation> recorded =
      history.recommendations.value_or(std::span<const timestamped_recommendation>{});
  std::vector<timestamped_recommendation> sorted(recorded.begin(), recorded.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
  for (const auto& r : sorted) {
    check_time("history.recommendations.at", r.at);
    if (r.replicas < 0)
      detail::fail("history.recommendations.replicas", r.replicas, "must be >= 0");
    push_window_entry(state, r);
    state.last_time = std::max(state.last_time, r.at);
  }
  // Upstream's nil vs empty slice: none recorded plants {current, now} at the first sync
  // (recordInitialRecommendation); a list, even an empty one, plants nothing.
  state.seeded = history.recommendations.has_value();
  const auto copy_events = [&](std::span<const scale_event> from, std::vector<scale_event>& to,
                               const char* at_name, const char* change_name) {
    for (const auto& e : from) {
      check_time(at_name, e.at);
      if (e.change < 0) detail::fail(change_name, e.change, "must be >= 0");
      to.push_back(e);
      state.last_time = std::max(state.last_time, e.at);
    }
  };
  copy_events(history.scale_up_events, state.scale_up_events, "history.scale_up_events.at",
              "history.scale_up_events.change");
  copy_events(history.scale_down_events, state.scale_down_events, "history.scale_down_events.at",
              "history.scale_down_events.change");
  // Before 1.36 the HPA has no ScaledToZero condition (and ignores one).
  state.scaled_to_zero = scaled_to_zero_rule() ? history.scaled_to_zero : condition_status::unset;
  return state;
}

HEADROOM_DECL auto autoscaler::step(autoscaler_state& state, std::chrono::milliseconds now,
                                    const autoscaler_input& in) const -> autoscaler_decision {
  if (in.replicas.spec < 0) detail::fail("input.replicas.spec", in.replicas.spec, "must be >= 0");
  if (in.replicas.status < 0)
    detail::fail("input.replicas.status", in.replicas.status, "must be >= 0");
  if (in.replicas.ready < 0)
    detail::fail("input.replicas.ready", in.replicas.ready, "must be >= 0");
  // One observation per configured metric: a longer span is a caller's mix-up.
  if (in.metrics.size() > config_.metrics.size())
    detail::fail("input.metrics.size()", in.metrics.size(), "must be <= config.metrics.size()");
  for (const auto& o : in.metrics)
    for (const auto& p : o.pods)
      if (p.request.milli < 0)
        detail::fail("input.metrics.pods.request", p.request.milli, "must be >= 0");
  check_time("now", now);
  if (now < state.last_time)
    detail::fail("now", now, "must not be earlier than the previous step's time");
  state.last_time = now;
  return kpa_ ? step_kpa(state, now, in) : step_hpa(state, now, in);
}

HEADROOM_IMPL_INLINE auto autoscaler::scaled_to_zero_rule() const noexcept -> bool {
  const auto& k = config_.kubernetes;
  return k.minor == 0 || k.minor >= first_minor_with_scaled_to_zero;
}

HEADROOM_IMPL_INLINE auto autoscaler::scaled_to_zero_condition_kept() const noexcept -> bool {
  const auto& k = config_.kubernetes;
  return scaled_to_zero_rule() && (k.minor == 0 || k.hpa_scale_to_zero);
}

HEADROOM_IMPL_INLINE auto autoscaler::check_time(const char* name, ms t) -> void {
  if (t.count() > detail::time_limit_ms || t.count() < -detail::time_limit_ms)
    detail::fail(name, t, "must lie within ±4e18 ms of the epoch");
}

HEADROOM_IMPL_INLINE auto autoscaler::resolve() -> void {
  for (const auto& m : config_.metrics) {
    resolved_.push_back(detail::resolve_metric(m));
    has_total_metric_ = has_total_metric_ || detail::is_total_source(m.source);
  }
  if (config_.behavior) {
    // GenerateHPAScaleUpRules defaults an unset up window to 0 s; the controller's
    // maybeInitScaleDownStabilizationWindow fills an unset down window from the flag.
    up_window_ = config_.behavior->scale_up.stabilization_window.value_or(std::chrono::seconds{0});
    down_window_ =
        config_.behavior->scale_down.stabilization_window.value_or(config_.downscale_stabilization);
    longest_up_period_ = longest_period(config_.behavior->scale_up);
    longest_down_period_ = longest_period(config_.behavior->scale_down);
  } else {
    down_window_ = config_.downscale_stabilization;
  }
}

HEADROOM_IMPL_INLINE auto autoscaler::longest_period(const scaling_rules& rules) noexcept
    -> std::chrono::seconds {
  std::chrono::seconds longest{0};
  for (const auto& p : rules.policies) longest = std::max(longest, p.period);
  return longest;
}

HEADROOM_IMPL_INLINE auto autoscaler::record_event(autoscaler_state& state, ms now,
                                                   std::int32_t from, std::int32_t to) const
    -> void {
  if (!config_.behavior || from == to) return;
  const bool up = to > from;
  auto& events = up ? state.scale_up_events : state.scale_down_events;
  const std::int32_t change = up ? to - from : from - to;
  const ms cutoff = now - ms{up ? longest_up_period_ : longest_down_period_};
  std::size_t reuse = events.size();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].at < cutoff) events[i].state = scale_event_state::outdated;
    if (events[i].state == scale_event_state::outdated) reuse = i;
  }
  const scale_event event{.at = now, .change = change, .state = scale_event_state::live};
  auto& undo = state.last_sync;
  undo.event_direction = up ? 1 : -1;
  undo.event_appended = reuse == events.size();
  if (reuse < events.size()) {
    undo.event_index = static_cast<std::uint32_t>(reuse);
    undo.replaced = events[reuse];
    events[reuse] = event;
  } else {
    events.push_back(event);
  }
}

HEADROOM_IMPL_INLINE auto autoscaler::undo_last_sync(autoscaler_state& state) -> void {
  const auto& undo = state.last_sync;
  if (undo.event_direction != 0) {
    auto& events = undo.event_direction > 0 ? state.scale_up_events : state.scale_down_events;
    if (undo.event_appended)
      events.pop_back();
    else
      events[undo.event_index] = undo.replaced;
  }
  state.scaled_to_zero = undo.scaled_to_zero;
  if (state.latest && state.latest->at == undo.at) state.latest.reset();
  if (!undo.was_seeded) {  // the windows hold only that sync's seed
    state.up_window.clear();
    state.down_window.clear();
    state.seeded = false;
  }
}

HEADROOM_IMPL_INLINE auto autoscaler::push_window_entry(autoscaler_state& state,
                                                        const timestamped_recommendation& e) const
    -> void {
  if (config_.behavior && up_window_.count() > 0) detail::push_min(state.up_window, e);
  detail::push_max(state.down_window, e);
}

HEADROOM_IMPL_INLINE auto autoscaler::stabilize(autoscaler_state& state, ms now,
                                                std::int32_t current, std::int32_t raw) const
    -> std::int32_t {
  if (state.latest) {
    if (state.latest->at < now) push_window_entry(state, *state.latest);
    state.latest.reset();  // at == now: a retry replaces the earlier attempt
  }
  std::int32_t result = raw;
  if (config_.behavior) {
    std::int32_t up = raw, down = raw;
    if (up_window_.count() > 0) {
      detail::expire(state.up_window, now - ms{up_window_}, detail::window_cutoff::after);
      if (!state.up_window.empty()) up = std::min(up, state.up_window.front().replicas);
    }
    detail::expire(state.down_window, now - ms{down_window_}, detail::window_cutoff::after);
    if (!state.down_window.empty()) down = std::max(down, state.down_window.front().replicas);
    result = current;
    if (result < up) result = up;
    if (result > down) result = down;
  } else {
    detail::expire(state.down_window, now - ms{down_window_}, detail::window_cutoff::not_before);
    if (!state.down_window.empty()) result = std::max(result, state.down_window.front().replicas);
  }
  state.latest = timestamped_recommendation{.at = now, .replicas = raw};
  return result;
}

HEADROOM_IMPL_INLINE auto autoscaler::library_reason(hpa_reason r) noexcept -> scale_reason {
  switch (r) {
    case hpa_reason::scale_up_limit:
      return scale_reason::scale_up_limited;
    case hpa_reason::scale_down_limit:
      return scale_reason::scale_down_limited;
    case hpa_reason::too_many_replicas:
      return scale_reason::too_many_replicas;
    case hpa_reason::too_few_replicas:
      return scale_reason::too_few_replicas;
    default:
      return scale_reason::desired_within_range;
  }
}

HEADROOM_IMPL_INLINE auto autoscaler::step_hpa(autoscaler_state& state, ms now,
                                               const autoscaler_input& in) const
    -> autoscaler_decision {
  autoscaler_decision d = begin_sync(state, now, in);
  // 1.36+: the ScaledToZero condition counts only with HPAScaleToZero on (getScaledToZero-
  // ConditionStatus && the gate).
  const bool scaled_to_zero =
      scaled_to_zero_condition_kept() && state.scaled_to_zero == condition_status::is_true;
  if (decided_before_metrics(state, now, scaled_to_zero, d)) return d;
  const detail::tolerances tol{config_.scale_up_tolerance, config_.scale_down_tolerance};
  const metric_readings readings = read_metrics(in, d.current_replicas, tol, d);
  if (!readings.any_valid || (d.failed_metrics > 0 && readings.raw < d.current_replicas)) {
    d.reason = scale_reason::metric_missing;  // hold; store nothing
    d.metric_index = d.first_failed_metric;
    d.conditions.scaling_active = {condition_status::is_false, readings.first_failure};
    return d;
  }
  d.conditions.scaling_active = {condition_status::is_true, hpa_reason::valid_metric_found};
  // desiredReplicas starts at 0 and takes a larger proposal.
  std::int32_t raw = std::max(readings.raw, 0);
  const bool from_forecast = apply_forecasts(in, d.current_replicas, tol, raw, d);
  d.raw_recommendation = raw;
  const scale_reason reason = from_forecast      ? scale_reason::forecast
                              : readings.in_band ? scale_reason::within_tolerance
                                                 : scale_reason::desired_within_range;
  normalize(state, now, in.replicas, scaled_to_zero, reason, d);
  return d;
}

HEADROOM_IMPL_INLINE auto autoscaler::begin_sync(autoscaler_state& state, ms now,
                                                 const autoscaler_input& in) const
    -> autoscaler_decision {
  if (state.last_sync.at == now) undo_last_sync(state);
  state.last_sync = {.at = now, .was_seeded = state.seeded, .scaled_to_zero = state.scaled_to_zero};
  const std::int32_t current =
      config_.count_starting_replicas ? in.replicas.spec : in.replicas.ready;
  autoscaler_decision d;
  d.current_replicas = current;
  d.desired_replicas = current;
  d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::succeeded_get_scale};
  if (!state.seeded) {
    push_window_entry(state, {.at = now, .replicas = current});
    state.seeded = true;
  }
  return d;
}

HEADROOM_IMPL_INLINE auto autoscaler::decided_before_metrics(autoscaler_state& state, ms now,
                                                             bool scaled_to_zero,
                                                             autoscaler_decision& d) const -> bool {
  const auto& c = config_;
  const std::int32_t current = d.current_replicas;
  if (current == 0) {
    const bool compute = scaled_to_zero_rule() ? (c.min_replicas != 0 && scaled_to_zero) ||
                                                     (scaled_to_zero && has_total_metric_)
                                               : c.min_replicas == 0;
    if (compute) return false;
    d.reason = scale_reason::scaling_disabled;
    d.conditions.scaling_active = {condition_status::is_false, hpa_reason::scaling_disabled};
    // 1.36 with HPAScaleToZero off removes the condition (removeCondition).
    if (!scaled_to_zero_condition_kept()) state.scaled_to_zero = condition_status::unset;
    return true;
  }
  if (current <= c.max_replicas && current >= c.min_replicas) return false;
  const bool above = current > c.max_replicas;
  d.desired_replicas = above ? c.max_replicas : c.min_replicas;
  d.reason = above ? scale_reason::above_max_replicas : scale_reason::below_min_replicas;
  rescaled(state, now, d);
  return true;
}

HEADROOM_IMPL_INLINE auto autoscaler::read_metrics(const autoscaler_input& in, std::int32_t current,
                                                   detail::tolerances tol,
                                                   autoscaler_decision& d) const
    -> metric_readings {
  static constexpr metric_observation missing{};
  metric_readings out;
  for (std::size_t i = 0; i < resolved_.size(); ++i) {
    const metric_observation& o = i < in.metrics.size() ? in.metrics[i] : missing;
    const auto p =
        detail::propose(resolved_[i], o, in.replicas, current, tol, config_.reserve_replicas);
    if (!p.valid) {
      if (d.first_failed_metric < 0) {
        d.first_failed_metric = static_cast<std::int32_t>(i);
        out.first_failure = resolved_[i].failure;
      }
      ++d.failed_metrics;
      continue;
    }
    if (out.raw == 0 || p.replicas > out.raw) {
      out.raw = p.replicas;
      out.in_band = p.in_band;
      d.metric_index = static_cast<std::int32_t>(i);
    }
    out.any_valid = true;
  }
  return out;
}

HEADROOM_IMPL_INLINE auto autoscaler::apply_forecasts(const autoscaler_input& in,
                                                      std::int32_t current, detail::tolerances tol,
                                                      std::int32_t& raw,
                                                      autoscaler_decision& d) const -> bool {
  bool from_forecast = false;
  for (std::size_t i = 0; i < resolved_.size() && i < in.metrics.size(); ++i) {
    if (!in.metrics[i].forecast) continue;
    const auto p = detail::propose_total(resolved_[i], in.metrics[i].forecast, in.replicas, current,
                                         tol, config_.reserve_replicas);
    if (p.valid && p.replicas > raw) {
      raw = p.replicas;
      from_forecast = true;
      d.metric_index = static_cast<std::int32_t>(i);
    }
  }
  return from_forecast;
}

HEADROOM_IMPL_INLINE auto autoscaler::normalize(autoscaler_state& state, ms now,
                                                const replica_counts& counts, bool scaled_to_zero,
                                                scale_reason reason, autoscaler_decision& d) const
    -> void {
  const auto& c = config_;
  const std::int32_t current = d.current_replicas;
  const std::int32_t raw = d.raw_recommendation;
  const std::int32_t stabilized = stabilize(state, now, current, raw);
  d.stabilized_recommendation = stabilized;
  if (stabilized != raw) {
    const bool up = c.behavior && raw >= current;
    d.conditions.able_to_scale = {
        condition_status::is_true,
        up ? hpa_reason::scale_up_stabilized : hpa_reason::scale_down_stabilized};
    reason = up ? scale_reason::scale_up_stabilized : scale_reason::scale_down_stabilized;
  } else {
    d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::ready_for_new_scale};
  }
  const detail::limited l = detail::limit_rate(c, state, now, current, stabilized);
  d.conditions.scaling_limited = {
      l.replicas == stabilized ? condition_status::is_false : condition_status::is_true, l.reason};
  if (l.replicas != stabilized) reason = library_reason(l.reason);
  std::int32_t desired = l.replicas;
  // Scaling up from zero with a raised minReplicas: at least minReplicas.
  if (current == 0 && c.min_replicas != 0 && scaled_to_zero && desired < c.min_replicas) {
    desired = c.min_replicas;
    reason = scale_reason::too_few_replicas;
  }
  // Library extension: no scale-down while replicas are on their way.
  if (c.hold_scale_down_while_starting && desired < current && counts.spec > counts.ready) {
    desired = current;
    reason = scale_reason::waiting_for_starting;
  }
  d.desired_replicas = desired;
  d.reason = reason;
  if (desired != current) rescaled(state, now, d);
}

HEADROOM_IMPL_INLINE auto autoscaler::rescaled(autoscaler_state& state, ms now,
                                               autoscaler_decision& d) const -> void {
  d.conditions.able_to_scale = {condition_status::is_true, hpa_reason::succeeded_rescale};
  record_event(state, now, d.current_replicas, d.desired_replicas);
  if (!scaled_to_zero_condition_kept()) {  // before 1.36, or the gate off: no condition
    state.scaled_to_zero = condition_status::unset;
  } else if (d.current_replicas > 0 && d.desired_replicas == 0 && config_.min_replicas == 0 &&
             has_total_metric_) {
    state.scaled_to_zero = condition_status::is_true;
    d.conditions.scaled_to_zero = {condition_status::is_true, hpa_reason::scaled_to_zero};
  } else {
    state.scaled_to_zero = condition_status::is_false;
    d.conditions.scaled_to_zero = {condition_status::is_false, hpa_reason::not_scaled_to_zero};
  }
}

HEADROOM_IMPL_INLINE auto autoscaler::step_kpa(autoscaler_state& state, ms now,
                                               const autoscaler_input& in) const
    -> autoscaler_decision {
  autoscaler_decision d;
  d.current_replicas = in.replicas.spec;
  d.desired_replicas = in.replicas.spec;
  d.panicking = state.panicking;
  if (!detail::is_finite(in.kpa.stable_value) || !detail::is_finite(in.kpa.panic_value)) {
    d.reason = scale_reason::metric_missing;  // invalidSR: no data, no scale
    d.failed_metrics = 1;
    d.first_failed_metric = 0;
    d.metric_index = 0;
    return d;
  }
  const bool reachable = in.kpa.reachability == revision_reachability::reachable;
  auto [desired, reason] = kpa_recommendation(state, now, in, reachable);
  d.raw_recommendation = desired;
  if (reachable && delay_buckets_ > 0) {
    detail::record_delay(state.delay_window, now, desired, delay_buckets_, knative_tick_interval);
    const std::int32_t delayed = state.delay_window.front().value;
    if (delayed != desired) {
      desired = delayed;
      reason = scale_reason::scale_down_stabilized;
    }
  }
  d.stabilized_recommendation = desired;
  d.excess_burst_capacity = excess_burst_capacity(in.replicas.ready, in.kpa.panic_value);
  // pkg/reconciler/autoscaling/kpa/scaler.go applyBounds with ScaleBounds (min ignored while
  // unreachable; max 0 = unbounded).
  const std::int32_t low = reachable ? kpa_->min_scale : 0;
  if (desired < low) {
    desired = low;
    reason = scale_reason::too_few_replicas;
  } else if (kpa_->max_scale != 0 && desired > kpa_->max_scale) {
    desired = kpa_->max_scale;
    reason = scale_reason::too_many_replicas;
  }
  d.desired_replicas = desired;
  d.reason = reason;
  d.panicking = state.panicking;
  d.metric_index = 0;
  return d;
}

HEADROOM_IMPL_INLINE auto autoscaler::kpa_recommendation(autoscaler_state& state, ms now,
                                                         const autoscaler_input& in,
                                                         bool reachable) const -> kpa_desired {
  const auto& k = *kpa_;
  const double target = k.target_value();
  const double ready = std::max(1.0, static_cast<double>(in.replicas.ready));
  const double max_up = std::ceil(k.max_scale_up_rate * ready);
  const double max_down = reachable ? std::floor(ready / k.max_scale_down_rate) : 0.0;
  const double dspc = std::ceil(in.kpa.stable_value / target);
  const double dppc = std::ceil(in.kpa.panic_value / target);
  std::int32_t desired_stable = detail::to_int32(std::min(std::max(dspc, max_down), max_up));
  std::int32_t desired_panic = detail::to_int32(std::min(std::max(dppc, max_down), max_up));
  if (k.activation_scale > 1) {
    if (dspc > 0 && k.activation_scale > desired_stable) desired_stable = k.activation_scale;
    if (dppc > 0 && k.activation_scale > desired_panic) desired_panic = k.activation_scale;
  }
  if (dppc / ready >= k.panic_threshold) {
    state.panicking = true;  // begin, or extend, the panic
    state.panic_time = now;
  } else if (state.panicking && state.panic_time + ms{k.stable_window} < now) {
    state.panicking = false;  // the surge has reached the stable metric
    state.max_panic_replicas = 0;
  }
  if (!state.panicking) return {.replicas = desired_stable};
  const std::int32_t desired = std::max(desired_stable, desired_panic);
  if (desired > state.max_panic_replicas) state.max_panic_replicas = desired;
  return {.replicas = state.max_panic_replicas, .reason = scale_reason::panic};
}

HEADROOM_IMPL_INLINE auto autoscaler::excess_burst_capacity(std::int32_t ready,
                                                            double panic_value) const noexcept
    -> std::int32_t {
  const double burst = kpa_->target_burst_capacity;
  if (burst == 0.0) return 0;
  if (burst < 0.0) return -1;
  return detail::to_int32(
      std::floor(static_cast<double>(ready) * kpa_->total_value() - burst - panic_value));
}

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/validate.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/validate.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL void require_label(const char* name, std::string_view text, label_kind kind) {
  if (text.empty()) ::headroom::detail::fail(name, text, "must not be empty");
  const bool word = kind == label_kind::word;
  for (const char c : text)
    if (c == ',' || c == '"' || c == '\n' || c == '\r' || (word && (c == ' ' || c == '\t')))
      ::headroom::detail::fail(name, text,
                               word ? "must not contain ',', '\"', a space or a line break"
                                    : "must not contain ',', '\"' or a line break");
}

HEADROOM_DECL void validate_model(const model_shape& m) {
  require_label("model.name", m.name, label_kind::word);
  require_range("model.parameters", m.parameters, 1e6, 1e15);
  require_range("model.layers", m.layers, 1, 100'000);
  require_range("model.hidden_size", m.hidden_size, 0, 1 << 24);
  require_range("model.kv_bytes_per_token", m.kv_bytes_per_token, 1.0, 1e9);
  require_range("model.bytes_per_parameter", m.bytes_per_parameter, 0.0625, 8.0);
  require_range("model.activation_bytes", m.activation_bytes, 0.125, 8.0);
  roofline::check_mixture_of_experts(m.moe, m.parameters, "model.moe.experts",
                                     "model.moe.experts_per_token",
                                     "model.moe.parameters_per_expert");
  if (m.moe.experts > 0)
    require_range("model.moe.experts", m.moe.experts, std::int64_t{1}, std::int64_t{1} << 20);
}

HEADROOM_DECL void validate_accelerator(const accelerator_option& a) {
  require_label("axes.accelerators[i].spec.name", a.spec.name, label_kind::text);
  require_range("axes.accelerators[i].spec.peak_flops_per_second", a.spec.peak_flops_per_second,
                1e9, 1e19);
  require_range("axes.accelerators[i].spec.peak_bytes_per_second", a.spec.peak_bytes_per_second,
                1e6, 1e15);
  require_range("axes.accelerators[i].spec.memory_bytes", a.spec.memory_bytes, 1e6, 1e14);
  if (a.spec.peak_fp8_flops_per_second != 0.0)  // 0: no FP8 tensor cores
    require_range("axes.accelerators[i].spec.peak_fp8_flops_per_second",
                  a.spec.peak_fp8_flops_per_second, 1e9, 1e19);
  if (a.spec.peak_int8_ops_per_second != 0.0)
    require_range("axes.accelerators[i].spec.peak_int8_ops_per_second",
                  a.spec.peak_int8_ops_per_second, 1e9, 1e19);
  if (a.spec.peak_fp4_flops_per_second != 0.0)
    require_range("axes.accelerators[i].spec.peak_fp4_flops_per_second",
                  a.spec.peak_fp4_flops_per_second, 1e9, 1e19);
  require_range("axes.accelerators[i].price_per_gpu_hour", a.price_per_gpu_hour, 1e-6, 1e6);
  if (a.step_time) {
    const step_time_parameters& x = *a.step_time;
    require_range("axes.accelerators[i].step_time.flops_efficiency", x.flops_efficiency, 1e-3, 1.0);
    require_range("axes.accelerators[i].step_time.bandwidth_efficiency", x.bandwidth_efficiency,
                  1e-3, 1.0);
    require_range("axes.accelerators[i].step_time.step_overhead", x.step_overhead.count(), 0.0,
                  10.0);
    require_range("axes.accelerators[i].step_time.all_reduce_latency", x.all_reduce_latency.count(),
                  0.0, 1.0);
  }
  require_range("axes.accelerators[i].interconnect_bytes_per_second", interconnect_of(a), 0.0,
                1e15);
}

HEADROOM_DECL void validate_axes_sizes(const grid& g) {
  using ::headroom::detail::fail;
  if (g.accelerators.empty()) fail("axes.accelerators.size()", 0, "needs at least one");
  if (g.tensor_parallel.empty()) fail("axes.tensor_parallel.size()", 0, "needs at least one");
  if (g.max_batch.empty()) fail("axes.max_batch.size()", 0, "needs at least one");
  if (g.max_batched_tokens.empty()) fail("axes.max_batched_tokens.size()", 0, "needs at least one");
  if (g.prefill.empty()) fail("axes.prefill.size()", 0, "needs at least one");
  if (g.kv.empty()) fail("axes.kv.size()", 0, "needs at least one");
}

HEADROOM_DECL void validate_grid(const grid& g, const model_shape& m) {
  using ::headroom::detail::fail;
  validate_axes_sizes(g);
  require_range("axes.memory_fraction", g.memory_fraction, 0.01, 1.0);
  bool any_tensor_parallel = false;
  for (const auto tp : g.tensor_parallel) {
    if (tp < 1 || tp > 4096) fail("axes.tensor_parallel[i]", tp, "must lie in [1, 4096]");
    any_tensor_parallel = any_tensor_parallel || tp > 1;
  }
  // Some configuration all-reduces a hidden size: every accelerator needs a link.
  const bool all_reduces = any_tensor_parallel && m.hidden_size > 0;
  for (std::size_t i = 0; i < g.accelerators.size(); ++i) {
    const accelerator_option& a = g.accelerators[i];
    validate_accelerator(a);
    if (all_reduces && !(interconnect_of(a) > 0))
      fail("axes.accelerators[i].interconnect_bytes_per_second", interconnect_of(a),
           "must be > 0 when a tensor-parallel size > 1 all-reduces a hidden size > 0");
    for (std::size_t j = 0; j < i; ++j)
      if (g.accelerators[j].spec.name == g.accelerators[i].spec.name)
        fail("axes.accelerators[i].spec.name", g.accelerators[i].spec.name,
             "names must be distinct");
  }
  for (const auto b : g.max_batch)
    if (b < 1 || b > 0xffffffffu) fail("axes.max_batch[i]", b, "must lie in [1, 2^32 - 1]");
  for (const auto t : g.max_batched_tokens) {
    if (t > 0xffffffffu) fail("axes.max_batched_tokens[i]", t, "must be <= 2^32 - 1");
    for (const auto b : g.max_batch)
      if (t < b)
        fail("axes.max_batched_tokens[i]", t,
             "must be >= every axes.max_batch (each decoding sequence takes one token)");
  }
}

HEADROOM_DECL void validate_objective(const objective& o) {
  if (!o.ttft && !o.tpot && !o.e2e)
    ::headroom::detail::fail("target.ttft", 0, "set at least one of ttft, tpot, e2e");
  // A microsecond to a day: any bound a serving SLO states.
  if (o.ttft) require_range("target.ttft", o.ttft->count(), 1e-6, 86'400.0);
  if (o.tpot) require_range("target.tpot", o.tpot->count(), 1e-6, 86'400.0);
  if (o.e2e) require_range("target.e2e", o.e2e->count(), 1e-6, 86'400.0);
  require_range("target.quota", o.quota, 1e-6, 1.0 - 1e-6);
}

HEADROOM_DECL void validate_traffic(const traffic_profile& t) {
  using ::headroom::detail::fail;
  if (t.rates_per_second.empty()) fail("traffic.rates_per_second.size()", 0, "needs one rate");
  double peak = 0.0;
  for (const double r : t.rates_per_second) {
    require_range("traffic.rates_per_second[i]", r, 0.0, 1e9);
    peak = std::max(peak, r);
  }
  if (!(peak > 0.0)) fail("traffic.rates_per_second", peak, "needs a rate > 0");
  // The fleet day's clock: a step of a millisecond to a year and a day, and ten years of them.
  require_range("traffic.step", t.step.count(), 1e-3, longest_span_seconds);
  if (!(static_cast<double>(t.rates_per_second.size()) * t.step.count() <=
        10 * longest_span_seconds))
    fail("traffic.rates_per_second.size()", t.rates_per_second.size(),
         "steps of traffic.step must span at most 3660 days");
}

HEADROOM_DECL void validate_fleet(const fleet_options& f, const traffic_profile& t) {
  using ::headroom::detail::fail;
  require_range("fleet.target_utilization", f.target_utilization, 1e-3, 1.0);
  // The fleet day's rules: at most its 1 000 000 replicas, a window of at most 366 days.
  require_range("fleet.scale_down_window_steps", f.scale_down_window_steps, 1, 1'000'000);
  if (!(t.step.count() * f.scale_down_window_steps <= longest_span_seconds))
    fail("fleet.scale_down_window_steps", f.scale_down_window_steps,
         "times traffic.step must be <= 366 days");
  if (f.policy.kind == sim::fleet_policy_kind::fixed)
    require_range("fleet.policy.fixed_replicas", f.policy.fixed_replicas, 0, 1'000'000);
  require_range("fleet.policy.spare_replicas", f.policy.spare_replicas, 0, 1'000'000);
  require_range("fleet.policy.start_time", f.policy.start_time.count(), 0.0, longest_span_seconds);
}

HEADROOM_DECL void validate_search(const search_options& s) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_unit;
  require_range<std::size_t>("search.requests_per_run", s.requests_per_run, 100, 100'000'000);
  require_range<std::size_t>("search.max_runs_per_rate", s.max_runs_per_rate, 1, 1000);
  require_range<std::size_t>("search.max_measurements", s.max_measurements, 2, 1000);
  require_range("search.relative_tolerance", s.relative_tolerance, 1e-6, 1.0);
  require_unit("search.warm_up_fraction", s.warm_up_fraction);
  require_unit("search.cool_down_fraction", s.cool_down_fraction);
  if (!(s.warm_up_fraction + s.cool_down_fraction < 1.0))
    fail("search.cool_down_fraction", s.cool_down_fraction,
         "warm-up and cool-down must leave part of the run");
  require_range("search.arrival_cv", s.arrival_cv, 0.0, 100.0);
  require_range("search.z", s.z, 0.01, 10.0);
  require_range<std::size_t>("search.zero_load_requests", s.zero_load_requests, 1, 100'000'000);
  require_range<std::size_t>("search.length_draws", s.length_draws, 1, 1'000'000'000);
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL void validate(const problem& p) {
  detail::require_label("problem.name", p.name, detail::label_kind::word);
  detail::validate_model(p.model);
  detail::validate_grid(p.axes, p.model);
  detail::validate_objective(p.target);
  detail::validate_traffic(p.traffic);
  detail::validate_fleet(p.fleet, p.traffic);
  detail::validate_search(p.search);
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

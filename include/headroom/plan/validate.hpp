// SPDX-License-Identifier: Apache-2.0
// Checking a planning problem field by field: invalid_argument naming the field.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

namespace detail {

/// What a label may hold: a word (also no space or tab: the CSV header line separates its
/// fields by spaces) or any text without the CSV's separators.
enum class label_kind : unsigned char { word, text };

// A CSV field: not empty, no ',', '"' or line break; a word has no space or tab either.
inline void require_label(const char* name, std::string_view text, label_kind kind) {
  if (text.empty()) ::headroom::detail::fail(name, text, "must not be empty");
  const bool word = kind == label_kind::word;
  for (const char c : text)
    if (c == ',' || c == '"' || c == '\n' || c == '\r' || (word && (c == ' ' || c == '\t')))
      ::headroom::detail::fail(name, text,
                               word ? "must not contain ',', '\"', a space or a line break"
                                    : "must not contain ',', '\"' or a line break");
}

inline void validate_model(const model_shape& m) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_positive;
  require_label("model.name", m.name, label_kind::word);
  require_positive("model.parameters", m.parameters);
  if (m.layers < 1) fail("model.layers", m.layers, "must be >= 1");
  if (m.hidden_size < 0) fail("model.hidden_size", m.hidden_size, "must be >= 0");
  require_positive("model.kv_bytes_per_token", m.kv_bytes_per_token);
  require_positive("model.bytes_per_parameter", m.bytes_per_parameter);
  require_positive("model.activation_bytes", m.activation_bytes);
}

inline void validate_accelerator(const accelerator_option& a) {
  using ::headroom::detail::require_non_negative;
  using ::headroom::detail::require_positive;
  using ::headroom::detail::require_unit_positive;
  require_label("axes.accelerators[i].spec.name", a.spec.name, label_kind::text);
  require_positive("axes.accelerators[i].spec.peak_flops_per_second", a.spec.peak_flops_per_second);
  require_positive("axes.accelerators[i].spec.peak_bytes_per_second", a.spec.peak_bytes_per_second);
  require_positive("axes.accelerators[i].spec.memory_bytes", a.spec.memory_bytes);
  require_positive("axes.accelerators[i].price_per_gpu_hour", a.price_per_gpu_hour);
  require_unit_positive("axes.accelerators[i].flops_efficiency", a.flops_efficiency);
  require_unit_positive("axes.accelerators[i].bandwidth_efficiency", a.bandwidth_efficiency);
  require_non_negative("axes.accelerators[i].step_overhead", a.step_overhead.count());
  require_non_negative("axes.accelerators[i].interconnect_bytes_per_second",
                       a.interconnect_bytes_per_second);
  require_non_negative("axes.accelerators[i].all_reduce_latency", a.all_reduce_latency.count());
}

inline void validate_axes_sizes(const grid& g) {
  using ::headroom::detail::fail;
  if (g.accelerators.empty()) fail("axes.accelerators.size()", 0, "needs at least one");
  if (g.tensor_parallel.empty()) fail("axes.tensor_parallel.size()", 0, "needs at least one");
  if (g.max_batch.empty()) fail("axes.max_batch.size()", 0, "needs at least one");
  if (g.max_batched_tokens.empty()) fail("axes.max_batched_tokens.size()", 0, "needs at least one");
  if (g.prefill.empty()) fail("axes.prefill.size()", 0, "needs at least one");
  if (g.kv.empty()) fail("axes.kv.size()", 0, "needs at least one");
}

inline void validate_grid(const grid& g, const model_shape& m) {
  using ::headroom::detail::fail;
  validate_axes_sizes(g);
  ::headroom::detail::require_unit_positive("axes.memory_fraction", g.memory_fraction);
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
    if (all_reduces && !(a.interconnect_bytes_per_second > 0))
      fail("axes.accelerators[i].interconnect_bytes_per_second", a.interconnect_bytes_per_second,
           "must be > 0 when a tensor-parallel size > 1 all-reduces a hidden size > 0");
    for (std::size_t j = 0; j < i; ++j)
      if (g.accelerators[j].spec.name == g.accelerators[i].spec.name)
        fail("axes.accelerators[i].spec.name", g.accelerators[i].spec.name,
             "names must be distinct");
  }
  for (const auto b : g.max_batch)
    if (b < 1 || b > 0xffffffffu) fail("axes.max_batch[i]", b, "must lie in [1, 2^32 - 1]");
  for (const auto t : g.max_batched_tokens)
    for (const auto b : g.max_batch)
      if (t < b)
        fail("axes.max_batched_tokens[i]", t,
             "must be >= every axes.max_batch (each decoding sequence takes one token)");
}

inline void validate_objective(const objective& o) {
  using ::headroom::detail::require_positive;
  if (!o.ttft && !o.tpot && !o.e2e)
    ::headroom::detail::fail("target.ttft", 0, "set at least one of ttft, tpot, e2e");
  if (o.ttft) require_positive("target.ttft", o.ttft->count());
  if (o.tpot) require_positive("target.tpot", o.tpot->count());
  if (o.e2e) require_positive("target.e2e", o.e2e->count());
  ::headroom::detail::require_open_unit("target.quota", o.quota);
}

inline void validate_traffic(const traffic_profile& t) {
  using ::headroom::detail::fail;
  if (t.rates_per_second.empty()) fail("traffic.rates_per_second.size()", 0, "needs one rate");
  double peak = 0.0;
  for (const double r : t.rates_per_second) {
    ::headroom::detail::require_non_negative("traffic.rates_per_second[i]", r);
    peak = std::max(peak, r);
  }
  if (!(peak > 0.0)) fail("traffic.rates_per_second", peak, "needs a rate > 0");
  ::headroom::detail::require_positive("traffic.step", t.step.count());
}

inline void validate_fleet(const fleet_options& f) {
  using ::headroom::detail::fail;
  ::headroom::detail::require_unit_positive("fleet.target_utilization", f.target_utilization);
  if (f.scale_down_window_steps < 1)
    fail("fleet.scale_down_window_steps", f.scale_down_window_steps, "must be >= 1");
  if (f.policy.kind == sim::fleet_policy_kind::fixed && f.policy.fixed_replicas < 0)
    fail("fleet.policy.fixed_replicas", f.policy.fixed_replicas, "must be >= 0");
  if (f.policy.spare_replicas < 0)
    fail("fleet.policy.spare_replicas", f.policy.spare_replicas, "must be >= 0");
  if (!(f.policy.start_time.count() >= 0.0 &&
        ::headroom::detail::is_finite(f.policy.start_time.count())))
    fail("fleet.policy.start_time", f.policy.start_time, "must be finite and >= 0");
}

inline void validate_search(const search_options& s) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_unit;
  if (s.requests_per_run < 100)
    fail("search.requests_per_run", s.requests_per_run, "must be >= 100");
  if (s.max_runs_per_rate < 1)
    fail("search.max_runs_per_rate", s.max_runs_per_rate, "must be >= 1");
  if (s.max_measurements < 2) fail("search.max_measurements", s.max_measurements, "must be >= 2");
  ::headroom::detail::require_positive("search.relative_tolerance", s.relative_tolerance);
  require_unit("search.warm_up_fraction", s.warm_up_fraction);
  require_unit("search.cool_down_fraction", s.cool_down_fraction);
  if (!(s.warm_up_fraction + s.cool_down_fraction < 1.0))
    fail("search.cool_down_fraction", s.cool_down_fraction,
         "warm-up and cool-down must leave part of the run");
  ::headroom::detail::require_non_negative("search.arrival_cv", s.arrival_cv);
  ::headroom::detail::require_positive("search.z", s.z);
  if (s.zero_load_requests < 1)
    fail("search.zero_load_requests", s.zero_load_requests, "must be >= 1");
  if (s.length_draws < 1) fail("search.length_draws", s.length_draws, "must be >= 1");
}

}  // namespace detail

/// Checks every field of a problem; throws invalid_argument naming it ("axes.max_batch[i]",
/// "traffic.rates_per_second", ...). Every combination of the axes must be a valid replica
/// (max_batched_tokens >= max_batch).
inline void validate(const problem& p) {
  detail::require_label("problem.name", p.name, detail::label_kind::word);
  detail::validate_model(p.model);
  detail::validate_grid(p.axes, p.model);
  detail::validate_objective(p.target);
  detail::validate_traffic(p.traffic);
  detail::validate_fleet(p.fleet);
  detail::validate_search(p.search);
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/fingerprint.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/fingerprint.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL void append_number(std::string& out, double v) {
  if (v != v) {
    out += "nan";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

HEADROOM_DECL void append_number(std::string& out, std::uint64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

HEADROOM_DECL void append_number(std::string& out, std::int64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

HEADROOM_DECL void hash_text(std::uint64_t& h, std::string_view text) noexcept {
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // a separator, so "ab","c" and "a","bc" differ
  h *= 0x100000001b3ULL;
}

HEADROOM_DECL void hash_number(std::uint64_t& h, double v) {
  std::string s;
  append_number(s, v);
  hash_text(h, s);
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL std::uint64_t fingerprint(const problem& p, const length_statistics& l) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  using detail::hash_number;
  using detail::hash_text;
  hash_text(h, version_string);
  hash_text(h, p.name);
  const model_shape& m = p.model;
  hash_text(h, m.name);
  for (const double v :
       {m.parameters, static_cast<double>(m.layers), static_cast<double>(m.hidden_size),
        m.kv_bytes_per_token, m.bytes_per_parameter, m.activation_bytes})
    hash_number(h, v);
  if (m.compute_format !=
      roofline::numeric_format::bf16) {  // as the moe below: only when it is set
    hash_text(h, "compute");
    hash_text(h, to_string(m.compute_format));
  }
  if (m.moe.experts > 0) {  // only a mixture: a dense model hashes as its other fields say
    hash_text(h, "moe");
    for (const double v :
         {static_cast<double>(m.moe.experts), static_cast<double>(m.moe.experts_per_token),
          m.moe.parameters_per_expert})
      hash_number(h, v);
  }
  for (const auto& a : p.axes.accelerators) {
    hash_text(h, a.spec.name);
    const resolved_step_time x = resolve_step_time(a, m);  // the parameters used, and whence
    hash_text(h, to_string(x.source));
    for (const double v :
         {roofline::peak_flops_for(a.spec, m.compute_format), a.spec.peak_bytes_per_second,
          a.spec.memory_bytes, a.price_per_gpu_hour, x.parameters.flops_efficiency,
          x.parameters.bandwidth_efficiency, x.parameters.step_overhead.count(), interconnect_of(a),
          x.parameters.all_reduce_latency.count()})
      hash_number(h, v);
  }
  for (const auto v : p.axes.tensor_parallel) hash_number(h, static_cast<double>(v));
  hash_text(h, "b");
  for (const auto v : p.axes.max_batch) hash_number(h, static_cast<double>(v));
  hash_text(h, "t");
  for (const auto v : p.axes.max_batched_tokens) hash_number(h, static_cast<double>(v));
  for (const auto v : p.axes.prefill) hash_text(h, to_string(v));
  for (const auto v : p.axes.kv) hash_text(h, to_string(v));
  hash_number(h, p.axes.memory_fraction);
  const objective& o = p.target;
  for (const auto& bound : {o.ttft, o.tpot, o.e2e}) hash_number(h, bound ? bound->count() : -1.0);
  hash_text(h, o.tpot_kind == capacity::tpot_definition::vllm ? "vllm" : "guidellm");
  hash_number(h, o.quota);
  for (const double r : p.traffic.rates_per_second) hash_number(h, r);
  hash_number(h, p.traffic.step.count());
  hash_text(h, p.traffic.lengths_description);
  const fleet_options& f = p.fleet;
  for (const double v :
       {static_cast<double>(f.policy.kind), static_cast<double>(f.policy.fixed_replicas),
        f.policy.start_time.count(), static_cast<double>(f.policy.spare_replicas),
        f.policy.look_ahead ? 1.0 : 0.0, f.target_utilization,
        static_cast<double>(f.scale_down_window_steps)})
    hash_number(h, v);
  const search_options& s = p.search;
  for (const double v :
       {static_cast<double>(s.requests_per_run), static_cast<double>(s.max_runs_per_rate),
        static_cast<double>(s.max_measurements), s.relative_tolerance, s.warm_up_fraction,
        s.cool_down_fraction, s.arrival_cv, s.z, static_cast<double>(s.zero_load_requests),
        static_cast<double>(s.length_draws), static_cast<double>(s.seed >> 32),
        static_cast<double>(s.seed & 0xffffffffu)})
    hash_number(h, v);
  for (const double v : {l.mean_prompt_tokens, l.mean_output_tokens,
                         static_cast<double>(l.longest_sequence), static_cast<double>(l.draws)})
    hash_number(h, v);
  return h;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

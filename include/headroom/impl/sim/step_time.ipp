// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/step_time.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/step_time.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace sim {

HEADROOM_DECL auto roofline_step_time::bytes(const step_shape& s) const noexcept -> double {
  const double kv = static_cast<double>(s.kv_tokens) * kv_bytes_per_token;
  if (moe.experts == 0) return weight_bytes + kv;
  const auto tokens = static_cast<double>(s.prefill_tokens + s.decode_tokens);
  return weight_bytes + roofline::detail::experts_read_unchecked(moe, tokens) * bytes_per_expert +
         kv;
}

HEADROOM_DECL auto roofline_step_time::operator()(const step_shape& s) const noexcept
    -> std::chrono::duration<double> {
  const double memory_s = bytes(s) / bytes_per_second;
  const double compute_s = flops(s) / flops_per_second;
  return std::chrono::duration<double>(memory_s > compute_s ? memory_s : compute_s) + overhead;
}

HEADROOM_DECL roofline_step_time make_roofline_step_time(const roofline::accelerator_spec& spec,
                                                         const roofline_step_time_inputs& in) {
  const double parameters = in.parameters, bytes_per_parameter = in.bytes_per_parameter;
  const roofline::mixture_of_experts& moe = in.moe;
  roofline_step_time m;
  detail::require_positive("parameters", parameters);
  m.parameters = roofline::active_parameters(parameters, moe);
  m.moe = moe;
  const double expert_parameters =
      static_cast<double>(moe.experts) * moe.parameters_per_expert;  // 0 when dense
  m.weight_bytes = roofline::weight_bytes(
      {.parameters = parameters - expert_parameters, .bytes_per_parameter = bytes_per_parameter});
  m.bytes_per_expert = moe.parameters_per_expert * bytes_per_parameter;
  m.kv_bytes_per_token = detail::require_non_negative("kv_bytes_per_token", in.kv_bytes_per_token);
  m.flops_per_second =
      detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second) *
      detail::require_unit_positive("flops_efficiency", in.flops_efficiency);
  m.bytes_per_second =
      detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second) *
      detail::require_unit_positive("bandwidth_efficiency", in.bandwidth_efficiency);
  m.overhead =
      std::chrono::duration<double>(detail::require_non_negative("overhead", in.overhead.count()));
  return m;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/lengths.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/lengths.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL double starting_rate(const tensor_parallel_step_time& model,
                                   const sim::replica_config& config,
                                   const length_statistics& lengths) {
  const double per_sequence = lengths.mean_prompt_tokens + lengths.mean_output_tokens;
  const double fit = std::floor(static_cast<double>(config.kv_budget_tokens) / per_sequence);
  const double batch = std::max(1.0, std::min(static_cast<double>(config.max_batch), fit));
  const auto b = static_cast<std::size_t>(batch);
  const auto context = static_cast<std::size_t>(
      batch * (lengths.mean_prompt_tokens + 0.5 * lengths.mean_output_tokens));
  const double decode = model(sim::step_shape{b, 0, b, context}).count();
  const double prefill = 2.0 * model.roofline.parameters * lengths.mean_prompt_tokens /
                         model.roofline.flops_per_second;
  const double per_request = lengths.mean_output_tokens * decode / batch + prefill;
  const double rate = 1.0 / per_request;
  return std::clamp(::headroom::detail::is_finite(rate) ? rate : 1.0, 1e-6, 1e9);
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

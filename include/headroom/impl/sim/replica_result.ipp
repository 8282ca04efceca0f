// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/replica_result.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/replica_result.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace sim {

HEADROOM_DECL utilization utilization_of(const replica_stats& stats,
                                         const roofline_step_time& model,
                                         const roofline::accelerator_spec& spec) {
  detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second);
  detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second);
  utilization u;
  if (stats.steps == 0 || !(stats.end.count() > 0.0) || !(stats.busy.count() > 0.0)) return u;
  const double tokens = static_cast<double>(stats.prefill_tokens + stats.decode_tokens);
  u.tokens_per_second = tokens / stats.end.count();
  u.busy_fraction = stats.busy.count() / stats.end.count();
  u.mfu = roofline::mfu({.parameters = model.parameters,
                         .tokens_per_second = u.tokens_per_second,
                         .peak_flops_per_second = spec.peak_flops_per_second});
  const double steps = static_cast<double>(stats.steps);
  const double mean_kv_bytes = stats.kv_token_steps / steps * model.kv_bytes_per_token;
  // A mixture of experts reads the experts its steps' tokens are routed to: taken at the mean
  // step's tokens (an upper bound on the mean, as experts_read is concave in the tokens).
  const double read_per_step =
      model.weight_bytes +
      roofline::experts_read(model.moe, tokens / steps) * model.bytes_per_expert;
  u.mbu = roofline::mbu({.weight_bytes = read_per_step,
                         .kv_bytes = mean_kv_bytes,
                         .tpot = stats.busy / steps,
                         .peak_bytes_per_second = spec.peak_bytes_per_second}) *
          u.busy_fraction;
  return u;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

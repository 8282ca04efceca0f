// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/replica_model.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/replica_model.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL auto tensor_parallel_step_time::operator()(const sim::step_shape& s) const noexcept
    -> std::chrono::duration<double> {
  return roofline(s) +
         std::chrono::duration<double>(communication_seconds(s.prefill_tokens + s.decode_tokens));
}

HEADROOM_DECL tensor_parallel_step_time make_step_time(const model_shape& model,
                                                       const accelerator_option& gpu,
                                                       std::int32_t tensor_parallel) {
  if (tensor_parallel < 1)
    ::headroom::detail::fail("tensor_parallel", tensor_parallel, "must be >= 1");
  tensor_parallel_step_time m;
  const step_time_parameters x = resolve_step_time(gpu, model).parameters;
  m.roofline =
      sim::make_roofline_step_time(replica_spec(gpu.spec, tensor_parallel, model.compute_format),
                                   {.parameters = model.parameters,
                                    .bytes_per_parameter = model.bytes_per_parameter,
                                    .kv_bytes_per_token = model.kv_bytes_per_token,
                                    .flops_efficiency = x.flops_efficiency,
                                    .bandwidth_efficiency = x.bandwidth_efficiency,
                                    .overhead = x.step_overhead,
                                    .moe = model.moe});
  m.tensor_parallel = tensor_parallel;
  m.all_reduces_per_step = tensor_parallel > 1 ? 2.0 * static_cast<double>(model.layers) : 0.0;
  m.activation_bytes_per_token = static_cast<double>(model.hidden_size) * model.activation_bytes;
  m.interconnect_bytes_per_second = interconnect_of(gpu);
  m.all_reduce_latency = x.all_reduce_latency;
  return m;
}

HEADROOM_DECL double model_weight_bytes(const model_shape& model) {
  return roofline::weight_bytes(
      {.parameters = model.parameters, .bytes_per_parameter = model.bytes_per_parameter});
}

HEADROOM_DECL std::optional<std::size_t> replica_kv_budget(const model_shape& model,
                                                           const accelerator_option& gpu,
                                                           std::int32_t tensor_parallel,
                                                           double memory_fraction) {
  const double memory = gpu.spec.memory_bytes * static_cast<double>(tensor_parallel);
  const double room = memory * memory_fraction - model_weight_bytes(model);
  if (!(std::floor(room / model.kv_bytes_per_token) >= 1.0)) return std::nullopt;
  return sim::kv_budget_tokens({.memory_bytes = memory,
                                .memory_fraction = memory_fraction,
                                .weight_bytes = model_weight_bytes(model),
                                .kv_bytes_per_token = model.kv_bytes_per_token});
}

HEADROOM_DECL sim::replica_config replica_configuration(const configuration& c,
                                                        std::size_t kv_budget_tokens) {
  return {.max_batch = c.max_batch,
          .kv_budget_tokens = kv_budget_tokens,
          .max_batched_tokens = c.max_batched_tokens,
          .prefill = c.prefill,
          .kv = c.kv};
}

HEADROOM_DECL capacity::slo to_slo(const objective& o) {
  const std::chrono::duration<double> none{std::numeric_limits<double>::max()};
  return {.ttft = o.ttft.value_or(none),
          .tpot = o.tpot.value_or(none),
          .e2e = o.e2e,
          .tpot_kind = o.tpot_kind};
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

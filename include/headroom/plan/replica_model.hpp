// SPDX-License-Identifier: Apache-2.0
// The replica model of a configuration: the roofline over the replica's GPUs plus the
// tensor-parallel all-reduces, its KV-cache budget, and the SLO in capacity.hpp's terms.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "../capacity.hpp"
#include "../roofline.hpp"
#include "../sim/replica.hpp"
#include "calibrations.hpp"
#include "configuration.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Peaks and memory of a replica of `tensor_parallel` GPUs: each figure times the count, the
/// FLOP/s peak the one for matrix products in `compute` (peak_flops_for: FP8's for FP8).
[[nodiscard]] constexpr roofline::accelerator_spec replica_spec(
    const roofline::accelerator_spec& gpu, std::int32_t tensor_parallel,
    roofline::numeric_format compute = roofline::numeric_format::bf16) noexcept {
  const double n = static_cast<double>(tensor_parallel);
  return {.name = gpu.name,
          .peak_flops_per_second = roofline::peak_flops_for(gpu, compute) * n,
          .peak_bytes_per_second = gpu.peak_bytes_per_second * n,
          .memory_bytes = gpu.memory_bytes * n,
          .peak_fp8_flops_per_second = gpu.peak_fp8_flops_per_second * n,
          .peak_int8_ops_per_second = gpu.peak_int8_ops_per_second * n,
          .peak_fp4_flops_per_second = gpu.peak_fp4_flops_per_second * n};
}

/// The step time of a tensor-parallel replica: the roofline over all its GPUs (weights and
/// KV sharded, each GPU reads 1/TP of the bytes and does 1/TP of the FLOPs) plus, when
/// TP > 1, the all-reduces of Megatron-style tensor parallelism (Shoeybi et al., 2019: one
/// after the attention and one after the MLP of each layer), each costing a fixed latency
/// plus a ring all-reduce's 2(TP − 1)/TP × bytes / link bandwidth (Patarasuk & Yuan, JPDC
/// 69(2), 2009; NCCL's "bus bandwidth"), bytes = tokens × hidden × activation bytes.
struct tensor_parallel_step_time {
  sim::roofline_step_time roofline{};          ///< over the whole replica (TP × per-GPU figures)
  std::int32_t tensor_parallel = 1;            ///< GPUs of the replica
  double all_reduces_per_step = 0.0;           ///< 2 × layers when TP > 1, else 0
  double activation_bytes_per_token = 0.0;     ///< hidden × activation bytes
  double interconnect_bytes_per_second = 0.0;  ///< one direction of one GPU's link
  std::chrono::duration<double> all_reduce_latency{0.0};  ///< fixed cost of one all-reduce

  /// Seconds the all-reduces of a step of `tokens` tokens take.
  [[nodiscard]] constexpr double communication_seconds(std::size_t tokens) const noexcept {
    if (tensor_parallel <= 1 || all_reduces_per_step <= 0.0) return 0.0;
    const double p = static_cast<double>(tensor_parallel);
    double one = all_reduce_latency.count();
    if (interconnect_bytes_per_second > 0.0)
      one += 2.0 * (p - 1.0) / p * static_cast<double>(tokens) * activation_bytes_per_token /
             interconnect_bytes_per_second;
    return all_reduces_per_step * one;
  }
  /// The step time: roofline(shape) + the all-reduces of its prefill and decode tokens.
  [[nodiscard]] HEADROOM_DECL std::chrono::duration<double> operator()(
      const sim::step_shape& s) const noexcept;
};

/// The replica model of a configuration: make_roofline_step_time on replica_spec(gpu, TP, the
/// model's compute format) with the accelerator's resolved step-time parameters
/// (resolve_step_time), and the all-reduce terms. Throws invalid_argument for a bad model or
/// accelerator field.
[[nodiscard]] HEADROOM_DECL tensor_parallel_step_time make_step_time(const model_shape& model,
                                                                     const accelerator_option& gpu,
                                                                     std::int32_t tensor_parallel);

/// Bytes of the weights on the replica, N_p × bytes per parameter.
[[nodiscard]] HEADROOM_DECL double model_weight_bytes(const model_shape& model);

/// KV-cache tokens of a replica of TP GPUs: sim::kv_budget_tokens over TP × memory, or
/// std::nullopt when the weights leave no room for one token (the configuration does not
/// fit).
[[nodiscard]] HEADROOM_DECL std::optional<std::size_t> replica_kv_budget(
    const model_shape& model, const accelerator_option& gpu, std::int32_t tensor_parallel,
    double memory_fraction);

/// The replica configuration of a grid point with its KV budget.
[[nodiscard]] HEADROOM_DECL sim::replica_config replica_configuration(const configuration& c,
                                                                      std::size_t kv_budget_tokens);

/// The SLO as capacity.hpp's slo: an unset bound becomes the largest finite duration.
[[nodiscard]] HEADROOM_DECL capacity::slo to_slo(const objective& o);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/replica_model.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

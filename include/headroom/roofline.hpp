// SPDX-License-Identifier: Apache-2.0
// How much of the GPU is used: MFU = 2·N_p·ν / P_peak, MBU = ((M_w + M_kv)/TPOT) /
// B_peak, the arithmetic intensity of a decode step I(b) = 2·N_p·b / (M_w + b·n_ctx·m_kv) and
// its limit 2·N_p/(n_ctx·m_kv), the ridge point P_peak/B_peak, the largest context for which
// decode is compute-bound, KV-cache bytes from a model shape, the roofline time of a step,
// and a small table of accelerator specs with dense figures. See docs/roofline.md.
//
// Units: parameters as a count, FLOP and FLOP/s, bytes and bytes/s (decimal: 1 TB/s = 1e12
// B/s), tokens as counts, durations as std::chrono durations. One forward pass costs ~2·N_p
// FLOP per token (a multiply and an add per parameter); recomputation is not counted.
//
// A formula with two or more quantities of one type takes one aggregate of named fields,
// written with designated initializers (queueing.hpp explains the convention):
// mfu({.parameters = 8e9, .tokens_per_second = 2560, .peak_flops_per_second = 1e15}).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <array>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// The roofline: accelerator peaks and catalog, weight and KV-cache bytes, MFU and MBU
/// (docs/roofline.md).
namespace roofline {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {
/// FLOP per parameter per token of a forward pass: a multiply and an add.
inline constexpr int flops_per_parameter_per_token = 2;
/// Tensors cached per layer and KV head: one K and one V.
inline constexpr int kv_tensors_per_head = 2;
}  // namespace detail

// ============================================================================================
// Accelerator specs
// ============================================================================================

/// Peak figures of one accelerator. peak_flops_per_second is DENSE 16-bit (bf16) tensor
/// throughput (datasheets often print the 2:4-sparsity figure, twice as large), and the FP8,
/// INT8 and FP4 peaks likewise dense (0: the part has no such tensor cores, or none is stated);
/// peak_bytes_per_second is memory bandwidth; memory_bytes the device memory as NVML reports it
/// (nvidia-smi's total, what trtllm-bench sizes its KV cache from), not the marketed "80 GB". A
/// simulator's step time is max(bytes/B_eff, FLOPs/P_eff) + overhead, with the effective
/// figures some fraction of these peaks; a spec of effective figures is a spec too.
template <std::floating_point T>
struct basic_accelerator_spec {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::string_view name{};          ///< as in accelerators::all ("H100 SXM"); may be empty
  T peak_flops_per_second = 0;      ///< P_peak, dense bf16 FLOP/s, > 0
  T peak_bytes_per_second = 0;      ///< B_peak, memory bandwidth, bytes/s, > 0
  T memory_bytes = 0;               ///< device memory as NVML reports it, bytes
  T peak_fp8_flops_per_second = 0;  ///< dense FP8 tensor FLOP/s; 0: no FP8 tensor cores
  T peak_int8_ops_per_second = 0;   ///< dense INT8 tensor OP/s; 0: none stated
  T peak_fp4_flops_per_second = 0;  ///< dense FP4 tensor FLOP/s; 0: no FP4 tensor cores
  /// One direction of one GPU's link to its tensor-parallel peers, bytes/s (NVLink 4's 900 GB/s
  /// both ways: 450e9); 0: none stated.
  T interconnect_bytes_per_second = 0;
};
using accelerator_spec = basic_accelerator_spec<double>;

/// A number format of weights, KV cache or matrix arithmetic.
enum class numeric_format : std::uint8_t {
  bf16,  ///< bfloat16, 2 bytes
  fp16,  ///< IEEE half, 2 bytes
  fp8,   ///< FP8 (E4M3), 1 byte
  int8,  ///< 8-bit integer, 1 byte
  int4,  ///< 4-bit integer (AWQ, GPTQ weights), half a byte
  fp4,   ///< 4-bit float (NVFP4, MXFP4), half a byte
};

/// "bf16", "fp16", "fp8", "int8", "int4" or "fp4".
[[nodiscard]] constexpr std::string_view to_string(numeric_format f) noexcept {
  switch (f) {
    case numeric_format::bf16:
      return "bf16";
    case numeric_format::fp16:
      return "fp16";
    case numeric_format::fp8:
      return "fp8";
    case numeric_format::int8:
      return "int8";
    case numeric_format::int4:
      return "int4";
    case numeric_format::fp4:
      break;
  }
  return "fp4";
}

/// Bytes of one element: 2 (bf16, fp16), 1 (fp8, int8), 0.5 (int4, fp4).
[[nodiscard]] constexpr double bytes_per_element(numeric_format f) noexcept {
  switch (f) {
    case numeric_format::bf16:
    case numeric_format::fp16:
      return 2.0;
    case numeric_format::fp8:
    case numeric_format::int8:
      return 1.0;
    case numeric_format::int4:
    case numeric_format::fp4:
      break;
  }
  return 0.5;
}

/// The dense peak of `spec` for matrix products in `compute`: the FP8, INT8 or FP4 peak where
/// the part has one, else the bf16 peak (no such tensor cores: the engine computes in 16 bits,
/// as weight-only kernels do; INT4 weights always do).
template <std::floating_point T>
[[nodiscard]] constexpr T peak_flops_for(const basic_accelerator_spec<T>& spec,
                                         numeric_format compute) noexcept {
  if (compute == numeric_format::fp8 && spec.peak_fp8_flops_per_second > T(0))
    return spec.peak_fp8_flops_per_second;
  if (compute == numeric_format::int8 && spec.peak_int8_ops_per_second > T(0))
    return spec.peak_int8_ops_per_second;
  if (compute == numeric_format::fp4 && spec.peak_fp4_flops_per_second > T(0))
    return spec.peak_fp4_flops_per_second;
  return spec.peak_flops_per_second;
}

/// Published specs, dense. Each peak is copied from the vendor's datasheet cited beside it;
/// check the figures against your SKU (SXM and PCIe parts differ). Each memory is the total
/// the driver reports for the part (nvidia-smi's memory.total in MiB × 2^20 on current
/// drivers; rocm-smi's VRAM total for AMD): for the H100, H200, A100, L40S and L4 from Modal's
/// published table of them ("Why does an NVIDIA H100 80GB card offer 85.52 GB?",
/// thundergolfer.com; modal-labs/modal-client pull request 2797), for the others as the
/// drivers print it in published runs. Each link is ONE direction of what one GPU can send to
/// its peers: NVLink through a switch, else the PCIe slot. docs/roofline.md, "The catalog".
namespace accelerators {
/// NVIDIA H100 SXM5 80 GB. Source: NVIDIA H100 Tensor Core GPU datasheet (BF16 Tensor Core
/// 1,979 TFLOPS with sparsity, i.e. 989 dense; FP8 3,958 and INT8 3,958 TOPS with sparsity,
/// 1,979 dense; HBM3 3.35 TB/s; 80 GB; NVLink 900 GB/s) and the NVIDIA H100 Tensor Core GPU
/// Architecture whitepaper (989.4 TFLOPS dense BF16, 1,978.9 dense FP8, SXM5). Memory: 81,559
/// MiB ("NVIDIA H100 80GB HBM3" in nvidia-smi).
inline constexpr accelerator_spec h100_sxm{.name = "H100 SXM",
                                           .peak_flops_per_second = 989.4e12,
                                           .peak_bytes_per_second = 3.35e12,
                                           .memory_bytes = 81559.0 * 1024 * 1024,
                                           .peak_fp8_flops_per_second = 1978.9e12,
                                           .peak_int8_ops_per_second = 1978.9e12,
                                           .interconnect_bytes_per_second = 450e9};
/// NVIDIA H100 PCIe 80 GB. Source: NVIDIA H100 Tensor Core GPU datasheet, PCIe column (BF16
/// 1,513 TFLOPS, FP8 3,026 and INT8 3,026 TOPS, all with sparsity; HBM2e 2.0 TB/s; NVLink
/// bridge 600 GB/s between PAIRS of cards; PCIe Gen5 128 GB/s). The link is the PCIe slot's
/// 64 GB/s a direction: a tensor-parallel group larger than a bridged pair goes over PCIe.
/// Memory: 81,559 MiB ("NVIDIA H100 PCIe").
inline constexpr accelerator_spec h100_pcie{.name = "H100 PCIe",
                                            .peak_flops_per_second = 756.5e12,
                                            .peak_bytes_per_second = 2.0e12,
                                            .memory_bytes = 81559.0 * 1024 * 1024,
                                            .peak_fp8_flops_per_second = 1513e12,
                                            .peak_int8_ops_per_second = 1513e12,
                                            .interconnect_bytes_per_second = 64e9};
/// NVIDIA H200 SXM 141 GB. Source: NVIDIA H200 Tensor Core GPU datasheet (BF16 Tensor Core
/// 1,979 TFLOPS and FP8 3,958 with sparsity, the H100's compute; HBM3e 4.8 TB/s; 141 GB;
/// NVLink 900 GB/s). Memory: 143,771 MiB in nvidia-smi ("NVIDIA H200").
inline constexpr accelerator_spec h200_sxm{.name = "H200 SXM",
                                           .peak_flops_per_second = 989.4e12,
                                           .peak_bytes_per_second = 4.8e12,
                                           .memory_bytes = 143771.0 * 1024 * 1024,
                                           .peak_fp8_flops_per_second = 1978.9e12,
                                           .peak_int8_ops_per_second = 1978.9e12,
                                           .interconnect_bytes_per_second = 450e9};
/// NVIDIA A100 SXM4 80 GB. Source: NVIDIA A100 Tensor Core GPU datasheet (BF16 Tensor Core
/// 312 TFLOPS dense, 624 with sparsity; INT8 624 TOPS dense; no FP8; HBM2e 2,039 GB/s for the
/// 80 GB SXM; 80 GB; NVLink 3 600 GB/s). Memory: 81,920 MiB in nvidia-smi ("A100-SXM4-80GB";
/// drivers before R535 print 81,251).
inline constexpr accelerator_spec a100_80gb_sxm{.name = "A100 80GB SXM",
                                                .peak_flops_per_second = 312e12,
                                                .peak_bytes_per_second = 2.039e12,
                                                .memory_bytes = 81920.0 * 1024 * 1024,
                                                .peak_int8_ops_per_second = 624e12,
                                                .interconnect_bytes_per_second = 300e9};
/// NVIDIA A100 SXM4 40 GB. Source: NVIDIA A100 Tensor Core GPU datasheet (the 80 GB part's
/// compute; HBM2 1,555 GB/s; 40 GB; NVLink 3 600 GB/s). Memory: 40,960 MiB in nvidia-smi
/// ("A100-SXM4-40GB"; drivers before R535 print 40,536).
inline constexpr accelerator_spec a100_40gb_sxm{.name = "A100 40GB SXM",
                                                .peak_flops_per_second = 312e12,
                                                .peak_bytes_per_second = 1.555e12,
                                                .memory_bytes = 40960.0 * 1024 * 1024,
                                                .peak_int8_ops_per_second = 624e12,
                                                .interconnect_bytes_per_second = 300e9};
/// NVIDIA L40S 48 GB (PCIe). Source: NVIDIA L40S datasheet (BF16 Tensor Core 362.05 TFLOPS
/// dense, 733 with sparsity; FP8 1,466 and INT8 1,466 TOPS with sparsity, 733 dense; GDDR6
/// 864 GB/s; 48 GB; no NVLink, PCIe Gen4 x16 64 GB/s both ways). Memory: 46,068 MiB.
inline constexpr accelerator_spec l40s{.name = "L40S",
                                       .peak_flops_per_second = 362.05e12,
                                       .peak_bytes_per_second = 864e9,
                                       .memory_bytes = 46068.0 * 1024 * 1024,
                                       .peak_fp8_flops_per_second = 733e12,
                                       .peak_int8_ops_per_second = 733e12,
                                       .interconnect_bytes_per_second = 32e9};
/// NVIDIA L4 24 GB (PCIe). Source: NVIDIA L4 Tensor Core GPU datasheet (BF16 242 TFLOPS, FP8
/// 485 and INT8 485 TOPS, all with sparsity; GDDR6 300 GB/s; 24 GB; PCIe Gen4 x16, no NVLink).
/// Memory: 23,034 MiB ("NVIDIA L4").
inline constexpr accelerator_spec l4{.name = "L4",
                                     .peak_flops_per_second = 121e12,
                                     .peak_bytes_per_second = 300e9,
                                     .memory_bytes = 23034.0 * 1024 * 1024,
                                     .peak_fp8_flops_per_second = 242.5e12,
                                     .peak_int8_ops_per_second = 242.5e12,
                                     .interconnect_bytes_per_second = 32e9};
/// NVIDIA B200 (HGX and DGX B200, 1,000 W). Source: NVIDIA HGX B200 specifications, per GPU
/// with sparsity: FP4 Tensor Core 18 PFLOPS, FP8 9, INT8 9 POPS, BF16 4.5, so 9, 4.5, 4.5 and
/// 2.25 dense; HBM3e 8 TB/s (DGX B200 datasheet: 64 TB/s for eight); 180 GB; NVLink 5 1.8 TB/s
/// a GPU. Memory: 183,359 MiB in nvidia-smi ("NVIDIA B200").
inline constexpr accelerator_spec b200{.name = "B200",
                                       .peak_flops_per_second = 2.25e15,
                                       .peak_bytes_per_second = 8e12,
                                       .memory_bytes = 183359.0 * 1024 * 1024,
                                       .peak_fp8_flops_per_second = 4.5e15,
                                       .peak_int8_ops_per_second = 4.5e15,
                                       .peak_fp4_flops_per_second = 9e15,
                                       .interconnect_bytes_per_second = 900e9};
/// AMD Instinct MI300X 192 GB (OAM). Source: AMD ROCm documentation, "AMD Instinct MI300
/// series microarchitecture" (peak matrix BF16 1,307.4 TFLOPS, FP8 2,614.9, INT8 2,614.9 TOPS,
/// dense; 5.3 TB/s; seven Infinity Fabric links to the other seven GPUs of a platform) and the
/// MI300X data sheet (896 GB/s of Infinity Fabric a GPU, 128 GB/s a link both ways). The link
/// figure is the aggregate over all seven peers: a TP group of 8 uses all of it, one of 2 only
/// one link. Memory: 206,141,652,992 bytes in rocm-smi on bare metal (192 GiB less 16 MiB).
inline constexpr accelerator_spec mi300x{.name = "MI300X",
                                         .peak_flops_per_second = 1307.4e12,
                                         .peak_bytes_per_second = 5.3e12,
                                         .memory_bytes = 206141652992.0,
                                         .peak_fp8_flops_per_second = 2614.9e12,
                                         .peak_int8_ops_per_second = 2614.9e12,
                                         .interconnect_bytes_per_second = 448e9};
/// AMD Instinct MI325X 256 GB (OAM). Source: AMD Instinct MI325X product page and data sheet
/// (the MI300X's 304 compute units and peaks: BF16 1,307.4 TFLOPS, FP8 2,614.9, dense; HBM3E
/// 6 TB/s; 256 GB; seven Infinity Fabric links, as the MI300X). Memory: 262,128 MiB in amd-smi
/// (256 GiB less 16 MiB). INT8 is not stated separately: 0.
inline constexpr accelerator_spec mi325x{.name = "MI325X",
                                         .peak_flops_per_second = 1307.4e12,
                                         .peak_bytes_per_second = 6.0e12,
                                         .memory_bytes = 262128.0 * 1024 * 1024,
                                         .peak_fp8_flops_per_second = 2614.9e12,
                                         .interconnect_bytes_per_second = 448e9};

/// Every spec above, for lookup by name.
inline constexpr std::array<accelerator_spec, 10> all{
    h100_sxm, h100_pcie, h200_sxm, a100_80gb_sxm, a100_40gb_sxm, l40s, l4, b200, mi300x, mi325x};
}  // namespace accelerators

/// The spec whose name equals `name` exactly ("H100 SXM", "H100 PCIe", "H200 SXM", "A100 80GB
/// SXM", "A100 40GB SXM", "L40S", "L4", "B200", "MI300X", "MI325X"), or std::nullopt.
[[nodiscard]] constexpr std::optional<accelerator_spec> find_accelerator(
    std::string_view name) noexcept {
  for (const auto& spec : accelerators::all)
    if (spec.name == name) return spec;
  return std::nullopt;
}

// ============================================================================================
// Mixture of experts
// ============================================================================================

/// The routed experts of a mixture-of-experts model (Shazeer et al., "Outrageously Large
/// Neural Networks", ICLR 2017; Mixtral, Jiang et al., arXiv:2401.04088): in each MoE layer a
/// router sends every token to `experts_per_token` of `experts` feed-forward experts. All
/// zero: a dense model. Mixtral 8x7B: 8 experts, 2 per token, 32 layers × 3 × 4096 × 14336 =
/// 5.64e9 parameters per expert.
template <std::floating_point T>
struct basic_mixture_of_experts {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int64_t experts = 0;            ///< E, routed experts per MoE layer; 0: a dense model
  std::int64_t experts_per_token = 0;  ///< k, experts each token is routed to, 1 <= k <= E
  /// One routed expert's parameters summed over the MoE layers, > 0 (shared experts, which
  /// every token uses, belong to the dense part, not here).
  T parameters_per_expert = 0;
  friend constexpr bool operator==(const basic_mixture_of_experts&,
                                   const basic_mixture_of_experts&) = default;
};
using mixture_of_experts = basic_mixture_of_experts<double>;

/// Checks `moe` against the model's total parameters: dense (all zero), or 1 <= k <= E and
/// E × parameters_per_expert below `parameters`. Throws invalid_argument naming
/// `<prefix>experts`, `<prefix>experts_per_token` or `<prefix>parameters_per_expert`.
template <std::floating_point T>
constexpr void check_mixture_of_experts(const basic_mixture_of_experts<T>& moe, T parameters,
                                        const char* experts_name = "moe.experts",
                                        const char* per_token_name = "moe.experts_per_token",
                                        const char* per_expert_name = "moe.parameters_per_expert") {
  if (moe.experts < 0) detail::fail(experts_name, moe.experts, "must be >= 0 (0: a dense model)");
  if (moe.experts == 0) {
    if (moe.experts_per_token != 0)
      detail::fail(per_token_name, moe.experts_per_token, "must be 0 for a dense model");
    if (moe.parameters_per_expert != T(0))
      detail::fail(per_expert_name, moe.parameters_per_expert, "must be 0 for a dense model");
    return;
  }
  if (moe.experts_per_token < 1 || moe.experts_per_token > moe.experts)
    detail::fail(per_token_name, moe.experts_per_token, "must lie in [1, experts]");
  const T p = detail::require_positive(per_expert_name, moe.parameters_per_expert);
  if (!(p * static_cast<T>(moe.experts) < parameters))
    detail::fail(per_expert_name, p, "times experts must be below the model's parameters");
}

/// The parameters one token uses, N_active = N_p − (E − k) × parameters per expert (N_p for a
/// dense model): Mixtral 8x7B's 46.7e9 less 6 × 5.64e9 = 12.9e9. Checks as
/// check_mixture_of_experts.
template <std::floating_point T = double>
[[nodiscard]] constexpr T active_parameters(T parameters,
                                            const basic_mixture_of_experts<T>& moe = {}) {
  detail::require_positive("parameters", parameters);
  check_mixture_of_experts(moe, parameters);
  return parameters -
         static_cast<T>(moe.experts - moe.experts_per_token) * moe.parameters_per_expert;
}

namespace detail {
// experts_read for a `moe` already checked (a step time's, per step): no throw.
template <std::floating_point T>
[[nodiscard]] inline T experts_read_unchecked(const basic_mixture_of_experts<T>& moe,
                                              T tokens) noexcept {
  if (moe.experts <= 0 || !(tokens > T(0))) return T(0);
  const T e = static_cast<T>(moe.experts);
  // E × (1 − (1 − k/E)^tokens) as −E × expm1(tokens × log1p(−k/E)): accurate for small k/E,
  // and E when k = E (log1p(−1) = −inf).
  return -e * std::expm1(tokens * std::log1p(-static_cast<T>(moe.experts_per_token) / e));
}
}  // namespace detail

/// Distinct experts a step of `tokens` tokens reads in one MoE layer when each token picks k
/// of E at random: E × (1 − (1 − k/E)^tokens) (k for one token, E in the limit; 0 for a dense
/// model or no token). Real routers are skewed, so fewer distinct experts (and bytes) at small
/// batches: an upper bound there. Throws invalid_argument naming `moe.experts_per_token` when
/// it is not in [1, E] for E > 0.
template <std::floating_point T = double>
[[nodiscard]] inline T experts_read(const basic_mixture_of_experts<T>& moe, T tokens) {
  if (moe.experts > 0 && (moe.experts_per_token < 1 || moe.experts_per_token > moe.experts))
    detail::fail("moe.experts_per_token", moe.experts_per_token, "must lie in [1, experts]");
  return detail::experts_read_unchecked(moe, tokens);
}

// ============================================================================================
// Model bytes
// ============================================================================================

/// Inputs of weight_bytes.
template <std::floating_point T>
struct basic_weight_bytes_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;           ///< N_p, >= 0
  T bytes_per_parameter = 0;  ///< 2 for bf16, 0.5 for 4-bit, > 0
};
using weight_bytes_inputs = basic_weight_bytes_inputs<double>;

/// Bytes of the weights, M_w = N_p × bytes per parameter (2 for bf16: 8e9 → 16 GB, 70e9 →
/// 140 GB).
template <std::floating_point T = double>
[[nodiscard]] constexpr T weight_bytes(const basic_weight_bytes_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  return n * detail::require_positive("bytes_per_parameter", inputs.bytes_per_parameter);
}

/// A weight format: its element format and, for group-wise quantization (AWQ, GPTQ), the
/// elements that share one scale and the bytes of that scale and zero point.
template <std::floating_point T>
struct basic_weight_format {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  numeric_format format = numeric_format::bf16;  ///< the elements' format
  std::int64_t group_size = 0;  ///< elements per scale group (AWQ, GPTQ: 128); 0: no groups
  T bytes_per_group = 0;        ///< a group's scale and zero point (fp16 and 4-bit: 2.5); >= 0
};
using weight_format = basic_weight_format<double>;

/// Bytes per parameter of weights in `w`: bytes_per_element(format) + bytes_per_group /
/// group_size. 2 for bf16; 0.5 + 2.5 / 128 = 0.51953 for 4-bit AWQ in groups of 128 with an
/// fp16 scale and a 4-bit zero point. Checkpoints often keep the embeddings and the output
/// layer in 16 bits: count those parameters at 2.
template <std::floating_point T = double>
[[nodiscard]] constexpr T bytes_per_parameter(const basic_weight_format<T>& w) {
  const auto g = detail::require_count_at_least("group_size", w.group_size, 0);
  const T extra = detail::require_non_negative("bytes_per_group", w.bytes_per_group);
  if (g == 0 && extra != T(0)) detail::fail("bytes_per_group", extra, "must be 0 without groups");
  const T element = static_cast<T>(bytes_per_element(w.format));
  return g == 0 ? element : element + extra / static_cast<T>(g);
}

/// Inputs of kv_bytes_per_token: the shape of a model's KV cache.
template <std::floating_point T>
struct basic_kv_bytes_per_token_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int64_t layers = 0;    ///< transformer layers, >= 1
  std::int64_t kv_heads = 0;  ///< KV heads per layer (fewer than query heads with GQA), >= 1
  std::int64_t head_dim = 0;  ///< elements per head, >= 1
  T dtype_bytes = 0;          ///< bytes per element (2 for bf16; fractional below a byte), > 0
};
using kv_bytes_per_token_inputs = basic_kv_bytes_per_token_inputs<double>;

/// KV-cache bytes per token from a model shape: 2 (K and V) × layers × KV heads × head dim ×
/// bytes per element. 32 layers, 8 KV heads (GQA), head dim 128, bf16: 131072 = 128 KiB.
template <std::floating_point T = double>
[[nodiscard]] constexpr T kv_bytes_per_token(const basic_kv_bytes_per_token_inputs<T>& inputs) {
  const auto l = detail::require_count_at_least("layers", inputs.layers, 1);
  const auto h = detail::require_count_at_least("kv_heads", inputs.kv_heads, 1);
  const auto d = detail::require_count_at_least("head_dim", inputs.head_dim, 1);
  const T bytes = detail::require_positive("dtype_bytes", inputs.dtype_bytes);
  return T(detail::kv_tensors_per_head) * static_cast<T>(l) * static_cast<T>(h) *
         static_cast<T>(d) * bytes;
}

/// Inputs of kv_cache_bytes.
template <std::floating_point T>
struct basic_kv_cache_bytes_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T batch = 0;               ///< b, sequences in the batch, >= 0
  T context_tokens = 0;      ///< n_ctx, tokens of context per sequence, >= 0
  T kv_bytes_per_token = 0;  ///< m_kv (kv_bytes_per_token), >= 0
};
using kv_cache_bytes_inputs = basic_kv_cache_bytes_inputs<double>;

/// KV-cache bytes of a batch, M_kv = b × n_ctx × m_kv (64 × 2000 × 128 KiB ≈ 16.8 GB).
template <std::floating_point T = double>
[[nodiscard]] constexpr T kv_cache_bytes(const basic_kv_cache_bytes_inputs<T>& inputs) {
  const T b = detail::require_non_negative("batch", inputs.batch);
  const T n = detail::require_non_negative("context_tokens", inputs.context_tokens);
  const T m = detail::require_non_negative("kv_bytes_per_token", inputs.kv_bytes_per_token);
  return detail::cxm::product_ratio({b, n, m});  // 0 if any is 0, never NaN
}

/// Inputs of min_gpus_for_weights.
template <std::floating_point T>
struct basic_min_gpus_for_weights_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T weight_bytes = 0;      ///< M_w, >= 0
  T gpu_memory_bytes = 0;  ///< memory of one GPU, > 0
};
using min_gpus_for_weights_inputs = basic_min_gpus_for_weights_inputs<double>;

/// GPUs whose memory holds the weights at least: ceil(M_w / memory per GPU) (140 GB on 80 GB
/// GPUs: 2). A lower bound: the KV cache and activations need room too.
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t min_gpus_for_weights(
    const basic_min_gpus_for_weights_inputs<T>& inputs) {
  const T m = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T g = detail::require_positive("gpu_memory_bytes", inputs.gpu_memory_bytes);
  return detail::require_ceil_count("weight_bytes", m / g);
}

// ============================================================================================
// MFU and MBU
// ============================================================================================

/// Inputs of mfu.
template <std::floating_point T>
struct basic_mfu_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;             ///< N_p, >= 0
  T tokens_per_second = 0;      ///< ν, tokens processed per second, >= 0
  T peak_flops_per_second = 0;  ///< P_peak, > 0
};
using mfu_inputs = basic_mfu_inputs<double>;

/// Model FLOPs utilization, MFU = 2·N_p·ν / P_peak [PaLM, Chowdhery et al. 2022]: 8e9
/// parameters at 2560 tokens/s on 1e15 FLOP/s: 4.1 %. May exceed 1 only if the inputs are
/// inconsistent.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mfu(const basic_mfu_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  const T nu = detail::require_non_negative("tokens_per_second", inputs.tokens_per_second);
  const T peak = detail::require_positive("peak_flops_per_second", inputs.peak_flops_per_second);
  // 0 if N_p or ν is 0, never NaN
  return detail::cxm::product_ratio({T(detail::flops_per_parameter_per_token), n, nu}, {peak});
}

/// Inputs of decode_bandwidth.
template <std::floating_point T>
struct basic_decode_bandwidth_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T weight_bytes = 0;           ///< M_w, read once per step, >= 0
  T kv_bytes = 0;               ///< M_kv, the batch's KV cache read per step, >= 0
  detail::seconds_t<T> tpot{};  ///< the time of one decode step, > 0
};
using decode_bandwidth_inputs = basic_decode_bandwidth_inputs<double>;

/// Bandwidth a decode step demands, (M_w + M_kv)/TPOT in bytes/s: 16 GB every 25 ms is
/// 640 GB/s.
template <std::floating_point T = double>
[[nodiscard]] constexpr T decode_bandwidth(const basic_decode_bandwidth_inputs<T>& inputs) {
  const T w = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T kv = detail::require_non_negative("kv_bytes", inputs.kv_bytes);
  const T t = detail::require_positive_seconds<T>("tpot", inputs.tpot);
  // (w + kv) / t, the sum halved so that it cannot overflow where the quotient does not.
  return detail::cxm::product_ratio({w / T(2) + kv / T(2), T(2)}, {t});
}

/// Inputs of mbu.
template <std::floating_point T>
struct basic_mbu_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T weight_bytes = 0;           ///< M_w, read once per step, >= 0
  T kv_bytes = 0;               ///< M_kv, the batch's KV cache read per step, >= 0
  detail::seconds_t<T> tpot{};  ///< the time of one decode step, > 0
  T peak_bytes_per_second = 0;  ///< B_peak, > 0
};
using mbu_inputs = basic_mbu_inputs<double>;

/// Model bandwidth utilization, MBU = ((M_w + M_kv)/TPOT) / B_peak [Databricks 2023]: 16 GB
/// of weights at TPOT 25 ms on 3 TB/s is 21 % before the KV cache. The relevant index for
/// decode, which is bandwidth-bound.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mbu(const basic_mbu_inputs<T>& inputs) {
  const T w = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T kv = detail::require_non_negative("kv_bytes", inputs.kv_bytes);
  const T t = detail::require_positive_seconds<T>("tpot", inputs.tpot);
  const T peak = detail::require_positive("peak_bytes_per_second", inputs.peak_bytes_per_second);
  return detail::cxm::product_ratio({w / T(2) + kv / T(2), T(2)}, {t, peak});
}

// ============================================================================================
// The roofline
// ============================================================================================

/// The ridge point (knee) P_peak / B_peak in FLOP/byte of a spec (or of any peaks:
/// ridge_point({.peak_flops_per_second = 1e15, .peak_bytes_per_second = 3e12}) ≈ 333):
/// kernels with a higher arithmetic intensity are compute-bound, lower ones bandwidth-bound.
template <std::floating_point T = double>
[[nodiscard]] constexpr T ridge_point(const basic_accelerator_spec<T>& spec) {
  const T p = detail::require_positive("peak_flops_per_second", spec.peak_flops_per_second);
  return p / detail::require_positive("peak_bytes_per_second", spec.peak_bytes_per_second);
}

/// Inputs of decode_intensity: a decode step of b sequences of context n_ctx.
template <std::floating_point T>
struct basic_decode_intensity_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;          ///< N_p, >= 0
  T weight_bytes = 0;        ///< M_w, >= 0
  T batch = 0;               ///< b, >= 0
  T context_tokens = 0;      ///< n_ctx, >= 0
  T kv_bytes_per_token = 0;  ///< m_kv, >= 0
};
using decode_intensity_inputs = basic_decode_intensity_inputs<double>;

/// Arithmetic intensity of a decode step with b sequences of context n_ctx:
/// I(b) = 2·N_p·b / (M_w + b·n_ctx·m_kv) FLOP/byte. The weights are read once per step
/// whatever b; each sequence reads its own cache. The bytes must not all be 0.
template <std::floating_point T = double>
[[nodiscard]] constexpr T decode_intensity(const basic_decode_intensity_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  const T w = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T b = detail::require_non_negative("batch", inputs.batch);
  const T ctx = detail::require_non_negative("context_tokens", inputs.context_tokens);
  const T m = detail::require_non_negative("kv_bytes_per_token", inputs.kv_bytes_per_token);
  constexpr T flops = T(detail::flops_per_parameter_per_token);
  const T cache = detail::cxm::product_ratio({b, ctx, m});  // b·n_ctx·m_kv, maybe +inf
  if (!(w > T(0) || cache > T(0))) detail::fail("weight_bytes", w, "a step must read some bytes");
  // 2·N_p·b / (M_w + cache) divided through by the larger term, so that no intermediate
  // overflows: (2·N_p·b / M_w) / (1 + cache/M_w), or (2·N_p / (n_ctx·m_kv)) / (1 + M_w/cache).
  if (w >= cache)
    return detail::cxm::product_ratio({flops, n, b}, {w}) /
           (T(1) + detail::cxm::product_ratio({b, ctx, m}, {w}));
  return detail::cxm::product_ratio({flops, n}, {ctx, m}) /
         (T(1) + detail::cxm::product_ratio({w}, {b, ctx, m}));
}

/// Inputs of decode_intensity_limit.
template <std::floating_point T>
struct basic_decode_intensity_limit_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;          ///< N_p, >= 0
  T context_tokens = 0;      ///< n_ctx, > 0
  T kv_bytes_per_token = 0;  ///< m_kv, > 0
};
using decode_intensity_limit_inputs = basic_decode_intensity_limit_inputs<double>;

/// The limit of I(b) as b grows, 2·N_p / (n_ctx·m_kv): batching amortises the weights, not the
/// cache. 8e9 parameters, 2000 tokens, 128 KiB/token: ≈ 61 FLOP/byte.
template <std::floating_point T = double>
[[nodiscard]] constexpr T decode_intensity_limit(
    const basic_decode_intensity_limit_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  const T ctx = detail::require_positive("context_tokens", inputs.context_tokens);
  const T m = detail::require_positive("kv_bytes_per_token", inputs.kv_bytes_per_token);
  return detail::cxm::product_ratio({T(detail::flops_per_parameter_per_token), n}, {ctx, m});
}

/// Inputs of is_compute_bound and mfu_ceiling: a kernel's intensity against a ridge point.
template <std::floating_point T>
struct basic_intensity_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T intensity = 0;  ///< I, FLOP/byte, >= 0
  T ridge = 0;      ///< the ridge point (ridge_point), FLOP/byte, > 0
};
using intensity_inputs = basic_intensity_inputs<double>;

/// true iff a kernel of this intensity is compute-bound on this ridge (I >= ridge).
template <std::floating_point T = double>
[[nodiscard]] constexpr bool is_compute_bound(const basic_intensity_inputs<T>& inputs) {
  const T i = detail::require_non_negative("intensity", inputs.intensity);
  return i >= detail::require_positive("ridge", inputs.ridge);
}

/// The highest MFU a kernel of intensity I can reach on the roofline, min(1, I / ridge):
/// 61 / 333 ≈ 18 % for an 8e9-parameter decode at 2000 tokens of context (docs/roofline.md).
template <std::floating_point T = double>
[[nodiscard]] constexpr T mfu_ceiling(const basic_intensity_inputs<T>& inputs) {
  const T i = detail::require_non_negative("intensity", inputs.intensity);
  const T r = detail::require_positive("ridge", inputs.ridge);
  return i >= r ? T(1) : i / r;
}

/// Attainable FLOP/s of a kernel of intensity I (FLOP/byte, >= 0) on a spec,
/// min(P_peak, I·B_peak) (the roofline).
template <std::floating_point T = double>
[[nodiscard]] constexpr T attainable_flops_per_second(detail::same_t<T> intensity,
                                                      const basic_accelerator_spec<T>& spec) {
  const T i = detail::require_non_negative("intensity", intensity);
  const T p = detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second);
  const T b = detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second);
  return i * b < p ? i * b : p;
}

/// Inputs of max_compute_bound_context.
template <std::floating_point T>
struct basic_compute_bound_context_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;          ///< N_p, >= 0
  T kv_bytes_per_token = 0;  ///< m_kv, > 0
  T ridge = 0;               ///< the ridge point, FLOP/byte, > 0
};
using compute_bound_context_inputs = basic_compute_bound_context_inputs<double>;

/// The largest context for which decode can be compute-bound at any batch: the n_ctx where
/// the intensity limit meets the ridge, 2·N_p / (ridge·m_kv) tokens (8e9 parameters, 128
/// KiB/token, ridge 1e15/3e12: ≈ 366). Fractional; floor it for a token count.
template <std::floating_point T = double>
[[nodiscard]] constexpr T max_compute_bound_context(
    const basic_compute_bound_context_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  const T m = detail::require_positive("kv_bytes_per_token", inputs.kv_bytes_per_token);
  const T r = detail::require_positive("ridge", inputs.ridge);
  return detail::cxm::product_ratio({T(detail::flops_per_parameter_per_token), n}, {r, m});
}

/// Inputs of max_compute_bound_context_at_batch.
template <std::floating_point T>
struct basic_compute_bound_context_at_batch_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T parameters = 0;          ///< N_p, >= 0
  T weight_bytes = 0;        ///< M_w, >= 0
  T batch = 0;               ///< b, > 0
  T kv_bytes_per_token = 0;  ///< m_kv, > 0
  T ridge = 0;               ///< the ridge point, FLOP/byte, > 0
};
using compute_bound_context_at_batch_inputs = basic_compute_bound_context_at_batch_inputs<double>;

/// The same at a finite batch b: the n_ctx with I(b) = ridge,
/// (2·N_p·b − ridge·M_w) / (ridge·b·m_kv). std::nullopt when even an empty context leaves this
/// batch bandwidth-bound (2·N_p·b < ridge·M_w).
template <std::floating_point T = double>
[[nodiscard]] constexpr std::optional<T> max_compute_bound_context_at_batch(
    const basic_compute_bound_context_at_batch_inputs<T>& inputs) {
  const T n = detail::require_non_negative("parameters", inputs.parameters);
  const T w = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T b = detail::require_positive("batch", inputs.batch);
  const T m = detail::require_positive("kv_bytes_per_token", inputs.kv_bytes_per_token);
  const T r = detail::require_positive("ridge", inputs.ridge);
  // (2·N_p·b − ridge·M_w) / (ridge·b·m_kv) = 2·N_p/(ridge·m_kv) − M_w/(b·m_kv): both terms
  // without intermediate overflow; where both exceed T's range they are taken scaled down by
  // min()^4 (below 2^-500 for float, 2^-4000 for double), which holds any quotient of these.
  T compute = detail::cxm::product_ratio({T(detail::flops_per_parameter_per_token), n}, {r, m});
  T weights = detail::cxm::product_ratio({w}, {b, m});
  constexpr T tiny = std::numeric_limits<T>::min();
  const bool scaled =
      !(compute <= std::numeric_limits<T>::max()) && !(weights <= std::numeric_limits<T>::max());
  if (scaled) {
    compute = detail::cxm::product_ratio(
        {T(detail::flops_per_parameter_per_token), n, tiny, tiny, tiny, tiny}, {r, m});
    weights = detail::cxm::product_ratio({w, tiny, tiny, tiny, tiny}, {b, m});
  }
  if (compute < weights) return std::nullopt;
  if (!scaled) return compute - weights;
  return detail::cxm::product_ratio({compute - weights}, {tiny, tiny, tiny, tiny});
}

/// The work of one step: what it computes and what it reads.
template <std::floating_point T>
struct basic_step_work {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T flops = 0;  ///< FLOP computed, >= 0
  T bytes = 0;  ///< bytes read from memory, >= 0
};
using step_work = basic_step_work<double>;

/// Roofline time of a step on a spec: max(bytes / B, FLOPs / P). Pass the peaks
/// (accelerators::h100_sxm) or a spec of effective figures
/// ({.peak_flops_per_second = P_eff, .peak_bytes_per_second = B_eff}); a simulator adds its
/// fixed per-step overhead.
template <std::floating_point T = double>
[[nodiscard]] constexpr detail::seconds_t<T> roofline_time(const basic_step_work<T>& step,
                                                           const basic_accelerator_spec<T>& spec) {
  const T f = detail::require_non_negative("step.flops", step.flops);
  const T by = detail::require_non_negative("step.bytes", step.bytes);
  const T compute =
      f / detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second);
  const T memory =
      by / detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second);
  return detail::seconds_t<T>(compute > memory ? compute : memory);
}

}  // namespace roofline
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

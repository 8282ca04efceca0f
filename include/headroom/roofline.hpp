// SPDX-License-Identifier: Apache-2.0
// How much of the GPU is used (SPEC §6): MFU = 2·N_p·ν / P_peak, MBU = ((M_w + M_kv)/TPOT) /
// B_peak, the arithmetic intensity of a decode step I(b) = 2·N_p·b / (M_w + b·n_ctx·m_kv) and
// its limit 2·N_p/(n_ctx·m_kv), the ridge point P_peak/B_peak, the largest context for which
// decode is compute-bound, KV-cache bytes from a model shape, the roofline time of a step,
// and a small table of accelerator specs with dense figures. See docs/roofline.md.
//
// Units: parameters as a count, FLOP and FLOP/s, bytes and bytes/s (decimal: 1 TB/s = 1e12
// B/s), tokens as counts, durations as std::chrono durations. One forward pass costs ~2·N_p
// FLOP per token (a multiply and an add per parameter); recomputation is not counted.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"

namespace headroom {
inline namespace v0 {

// ============================================================================================
// Accelerator specs
// ============================================================================================

/// Peak figures of one accelerator. peak_flops_per_second is DENSE 16-bit (bf16) tensor
/// throughput (datasheets often print the 2:4-sparsity figure, twice as large);
/// peak_bytes_per_second is memory bandwidth; memory_bytes the marketed memory size (decimal
/// GB). A simulator's step time is max(bytes/B_eff, FLOPs/P_eff) + overhead, with the
/// effective figures some fraction of these peaks.
struct accelerator_spec {
  std::string_view name;
  double peak_flops_per_second = 0;
  double peak_bytes_per_second = 0;
  double memory_bytes = 0;
};

/// Published specs, dense bf16. Each value is copied from the vendor's datasheet cited beside
/// it; check the figures against your SKU (SXM and PCIe parts differ).
namespace accelerators {
/// NVIDIA H100 SXM5 80 GB. Source: NVIDIA H100 Tensor Core GPU datasheet (BF16 Tensor Core
/// 1,979 TFLOPS with sparsity, i.e. 989 dense; HBM3 3.35 TB/s; 80 GB) and the NVIDIA H100
/// Tensor Core GPU Architecture whitepaper (989.4 TFLOPS dense BF16, SXM5).
inline constexpr accelerator_spec h100_sxm{"H100 SXM", 989.4e12, 3.35e12, 80e9};
/// NVIDIA H200 SXM 141 GB. Source: NVIDIA H200 Tensor Core GPU datasheet (BF16 Tensor Core
/// 1,979 TFLOPS with sparsity, the H100's compute; HBM3e 4.8 TB/s; 141 GB).
inline constexpr accelerator_spec h200_sxm{"H200 SXM", 989.4e12, 4.8e12, 141e9};
/// NVIDIA A100 SXM4 80 GB. Source: NVIDIA A100 Tensor Core GPU datasheet (BF16 Tensor Core
/// 312 TFLOPS dense, 624 with sparsity; HBM2e 2,039 GB/s for the 80 GB SXM; 80 GB).
inline constexpr accelerator_spec a100_80gb_sxm{"A100 80GB SXM", 312e12, 2.039e12, 80e9};
/// NVIDIA L40S 48 GB (PCIe). Source: NVIDIA L40S datasheet (BF16 Tensor Core 362.05 TFLOPS
/// dense, 733 with sparsity; GDDR6 864 GB/s; 48 GB).
inline constexpr accelerator_spec l40s{"L40S", 362.05e12, 864e9, 48e9};

/// Every spec above, for lookup by name.
inline constexpr std::array<accelerator_spec, 4> all{h100_sxm, h200_sxm, a100_80gb_sxm, l40s};
}  // namespace accelerators

/// The spec whose name equals `name` exactly ("H100 SXM", "H200 SXM", "A100 80GB SXM",
/// "L40S"), or std::nullopt.
[[nodiscard]] constexpr std::optional<accelerator_spec> find_accelerator(
    std::string_view name) noexcept {
  for (const auto& spec : accelerators::all)
    if (spec.name == name) return spec;
  return std::nullopt;
}

// ============================================================================================
// Model bytes
// ============================================================================================

/// Bytes of the weights, M_w = N_p × bytes per parameter (2 for bf16: 8e9 → 16 GB, 70e9 →
/// 140 GB). parameters >= 0, bytes_per_parameter > 0 (0.5 for 4-bit).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T weight_bytes(A parameters, detail::same_t<T> bytes_per_parameter) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  return n * detail::require_positive("bytes_per_parameter", bytes_per_parameter);
}

/// KV-cache bytes per token from a model shape: 2 (K and V) × layers × KV heads × head dim ×
/// bytes per element. 32 layers, 8 KV heads (GQA), head dim 128, bf16: 131072 = 128 KiB.
/// Counts >= 1, dtype_bytes > 0 (fractional for sub-byte formats).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T kv_bytes_per_token(std::int64_t layers, std::int64_t kv_heads,
                                             std::int64_t head_dim, A dtype_bytes) {
  const auto l = detail::require_count_at_least("layers", layers, 1);
  const auto h = detail::require_count_at_least("kv_heads", kv_heads, 1);
  const auto d = detail::require_count_at_least("head_dim", head_dim, 1);
  const T bytes = detail::require_positive("dtype_bytes", static_cast<T>(dtype_bytes));
  return T(2) * static_cast<T>(l) * static_cast<T>(h) * static_cast<T>(d) * bytes;
}

/// KV-cache bytes of a batch, M_kv = b × n_ctx × m_kv (64 × 2000 × 128 KiB ≈ 16.8 GB).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T kv_cache_bytes(A batch, detail::same_t<T> context_tokens,
                                         detail::same_t<T> kv_bytes_per_token) {
  const T b = detail::require_non_negative("batch", static_cast<T>(batch));
  const T n = detail::require_non_negative("context_tokens", context_tokens);
  const T m = detail::require_non_negative("kv_bytes_per_token", kv_bytes_per_token);
  return detail::cxm::product_ratio({b, n, m});  // 0 if any is 0, never NaN
}

/// GPUs whose memory holds the weights at least: ceil(M_w / memory per GPU) (140 GB on 80 GB
/// GPUs: 2). A lower bound: the KV cache and activations need room too.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::int64_t min_gpus_for_weights(A weight_bytes,
                                                          detail::same_t<T> gpu_memory_bytes) {
  const T m = detail::require_non_negative("weight_bytes", static_cast<T>(weight_bytes));
  const T g = detail::require_positive("gpu_memory_bytes", gpu_memory_bytes);
  return detail::require_ceil_count("weight_bytes", m / g);
}

// ============================================================================================
// MFU and MBU
// ============================================================================================

/// Model FLOPs utilisation, MFU = 2·N_p·ν / P_peak [PaLM, Chowdhery et al. 2022]: 8e9
/// parameters at 2560 tokens/s on 1e15 FLOP/s: 4.1 %. parameters >= 0, tokens/s >= 0,
/// peak > 0. May exceed 1 only if the inputs are inconsistent.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mfu(A parameters, detail::same_t<T> tokens_per_second,
                              detail::same_t<T> peak_flops_per_second) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  const T nu = detail::require_non_negative("tokens_per_second", tokens_per_second);
  const T peak = detail::require_positive("peak_flops_per_second", peak_flops_per_second);
  return detail::cxm::product_ratio({T(2), n, nu}, {peak});  // 0 if N_p or ν is 0, never NaN
}

/// Bandwidth a decode step demands, (M_w + M_kv)/TPOT in bytes/s: 16 GB every 25 ms is
/// 640 GB/s. tpot > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T decode_bandwidth(A weight_bytes, detail::same_t<T> kv_bytes,
                                           detail::seconds_arg<T> tpot) {
  const T w = detail::require_non_negative("weight_bytes", static_cast<T>(weight_bytes));
  const T kv = detail::require_non_negative("kv_bytes", kv_bytes);
  const T t = detail::require_positive_seconds<T>("tpot", tpot);
  // (w + kv) / t, the sum halved so that it cannot overflow where the quotient does not.
  return detail::cxm::product_ratio({w / T(2) + kv / T(2), T(2)}, {t});
}

/// Model bandwidth utilisation, MBU = ((M_w + M_kv)/TPOT) / B_peak [Databricks 2023]: 16 GB
/// of weights at TPOT 25 ms on 3 TB/s is 21 % before the KV cache. The relevant index for
/// decode, which is bandwidth-bound.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mbu(A weight_bytes, detail::same_t<T> kv_bytes,
                              detail::seconds_arg<T> tpot,
                              detail::same_t<T> peak_bytes_per_second) {
  const T w = detail::require_non_negative("weight_bytes", static_cast<T>(weight_bytes));
  const T kv = detail::require_non_negative("kv_bytes", kv_bytes);
  const T t = detail::require_positive_seconds<T>("tpot", tpot);
  const T peak = detail::require_positive("peak_bytes_per_second", peak_bytes_per_second);
  return detail::cxm::product_ratio({w / T(2) + kv / T(2), T(2)}, {t, peak});
}

// ============================================================================================
// The roofline
// ============================================================================================

/// The ridge point (knee) P_peak / B_peak in FLOP/byte: kernels with a higher arithmetic
/// intensity are compute-bound, lower ones bandwidth-bound. 1e15 / 3e12 ≈ 333.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T ridge_point(A peak_flops_per_second,
                                      detail::same_t<T> peak_bytes_per_second) {
  const T p =
      detail::require_positive("peak_flops_per_second", static_cast<T>(peak_flops_per_second));
  return p / detail::require_positive("peak_bytes_per_second", peak_bytes_per_second);
}

/// The ridge point of a spec.
[[nodiscard]] constexpr double ridge_point(const accelerator_spec& spec) {
  return ridge_point(
      detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second),
      detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second));
}

/// Arithmetic intensity of a decode step with b sequences of context n_ctx:
/// I(b) = 2·N_p·b / (M_w + b·n_ctx·m_kv) FLOP/byte. The weights are read once per step
/// whatever b; each sequence reads its own cache. batch >= 0; the bytes must not all be 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T decode_intensity(A parameters, detail::same_t<T> weight_bytes,
                                           detail::same_t<T> batch,
                                           detail::same_t<T> context_tokens,
                                           detail::same_t<T> kv_bytes_per_token) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  const T w = detail::require_non_negative("weight_bytes", weight_bytes);
  const T b = detail::require_non_negative("batch", batch);
  const T ctx = detail::require_non_negative("context_tokens", context_tokens);
  const T m = detail::require_non_negative("kv_bytes_per_token", kv_bytes_per_token);
  const T cache = detail::cxm::product_ratio({b, ctx, m});  // b·n_ctx·m_kv, maybe +inf
  if (!(w > T(0) || cache > T(0))) detail::fail("weight_bytes", w, "a step must read some bytes");
  // 2·N_p·b / (M_w + cache) divided through by the larger term, so that no intermediate
  // overflows: (2·N_p·b / M_w) / (1 + cache/M_w), or (2·N_p / (n_ctx·m_kv)) / (1 + M_w/cache).
  if (w >= cache)
    return detail::cxm::product_ratio({T(2), n, b}, {w}) /
           (T(1) + detail::cxm::product_ratio({b, ctx, m}, {w}));
  return detail::cxm::product_ratio({T(2), n}, {ctx, m}) /
         (T(1) + detail::cxm::product_ratio({w}, {b, ctx, m}));
}

/// The limit of I(b) as b grows, 2·N_p / (n_ctx·m_kv): batching amortises the weights, not the
/// cache. 8e9 parameters, 2000 tokens, 128 KiB/token: ≈ 61 FLOP/byte. context, kv > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T decode_intensity_limit(A parameters, detail::same_t<T> context_tokens,
                                                 detail::same_t<T> kv_bytes_per_token) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  const T ctx = detail::require_positive("context_tokens", context_tokens);
  const T m = detail::require_positive("kv_bytes_per_token", kv_bytes_per_token);
  return detail::cxm::product_ratio({T(2), n}, {ctx, m});
}

/// true iff a kernel of this intensity is compute-bound on this ridge (I >= ridge).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr bool is_compute_bound(A intensity, detail::same_t<T> ridge) {
  const T i = detail::require_non_negative("intensity", static_cast<T>(intensity));
  return i >= detail::require_positive("ridge", ridge);
}

/// The highest MFU a kernel of intensity I can reach on the roofline, min(1, I / ridge):
/// 61 / 333 ≈ 18 % for the decode of SPEC §6.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mfu_ceiling(A intensity, detail::same_t<T> ridge) {
  const T i = detail::require_non_negative("intensity", static_cast<T>(intensity));
  const T r = detail::require_positive("ridge", ridge);
  return i >= r ? T(1) : i / r;
}

/// Attainable FLOP/s of a kernel of intensity I, min(P_peak, I·B_peak) (the roofline).
[[nodiscard]] constexpr double attainable_flops_per_second(double intensity,
                                                           const accelerator_spec& spec) {
  const double i = detail::require_non_negative("intensity", intensity);
  const double p =
      detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second);
  const double b =
      detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second);
  return i * b < p ? i * b : p;
}

/// The largest context for which decode can be compute-bound at any batch: the n_ctx where
/// the intensity limit meets the ridge, 2·N_p / (ridge·m_kv) tokens (8e9 parameters, 128
/// KiB/token, ridge 1e15/3e12: ≈ 366). Fractional; floor it for a token count.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T max_compute_bound_context(A parameters,
                                                    detail::same_t<T> kv_bytes_per_token,
                                                    detail::same_t<T> ridge) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  const T m = detail::require_positive("kv_bytes_per_token", kv_bytes_per_token);
  return detail::cxm::product_ratio({T(2), n}, {detail::require_positive("ridge", ridge), m});
}

/// The same at a finite batch b: the n_ctx with I(b) = ridge,
/// (2·N_p·b − ridge·M_w) / (ridge·b·m_kv). std::nullopt when even an empty context leaves this
/// batch bandwidth-bound (2·N_p·b < ridge·M_w). batch > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr std::optional<T> max_compute_bound_context(
    A parameters, detail::same_t<T> weight_bytes, detail::same_t<T> batch,
    detail::same_t<T> kv_bytes_per_token, detail::same_t<T> ridge) {
  const T n = detail::require_non_negative("parameters", static_cast<T>(parameters));
  const T w = detail::require_non_negative("weight_bytes", weight_bytes);
  const T b = detail::require_positive("batch", batch);
  const T m = detail::require_positive("kv_bytes_per_token", kv_bytes_per_token);
  const T r = detail::require_positive("ridge", ridge);
  // (2·N_p·b − ridge·M_w) / (ridge·b·m_kv) = 2·N_p/(ridge·m_kv) − M_w/(b·m_kv): both terms
  // without intermediate overflow; where both exceed T's range they are taken scaled down by
  // min()^4 (below 2^-500 for float, 2^-4000 for double), which holds any quotient of these.
  T compute = detail::cxm::product_ratio({T(2), n}, {r, m});
  T weights = detail::cxm::product_ratio({w}, {b, m});
  constexpr T tiny = std::numeric_limits<T>::min();
  const bool scaled = !(compute <= std::numeric_limits<T>::max()) &&
                      !(weights <= std::numeric_limits<T>::max());
  if (scaled) {
    compute = detail::cxm::product_ratio({T(2), n, tiny, tiny, tiny, tiny}, {r, m});
    weights = detail::cxm::product_ratio({w, tiny, tiny, tiny, tiny}, {b, m});
  }
  if (compute < weights) return std::nullopt;
  if (!scaled) return compute - weights;
  return detail::cxm::product_ratio({compute - weights}, {tiny, tiny, tiny, tiny});
}

/// Roofline time of a step: max(bytes / B, FLOPs / P). Pass peak or effective figures; a
/// simulator adds its fixed per-step overhead. flops, bytes >= 0; rates > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr detail::seconds_t<T> roofline_time(A flops, detail::same_t<T> bytes,
                                                           detail::same_t<T> flops_per_second,
                                                           detail::same_t<T> bytes_per_second) {
  const T f = detail::require_non_negative("flops", static_cast<T>(flops));
  const T by = detail::require_non_negative("bytes", bytes);
  const T compute = f / detail::require_positive("flops_per_second", flops_per_second);
  const T memory = by / detail::require_positive("bytes_per_second", bytes_per_second);
  return detail::seconds_t<T>(compute > memory ? compute : memory);
}

/// Roofline time of a step on an accelerator's peaks.
[[nodiscard]] constexpr std::chrono::duration<double> roofline_time(double flops, double bytes,
                                                                    const accelerator_spec& spec) {
  return roofline_time(
      flops, bytes,
      detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second),
      detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second));
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Resource estimators: what one replica of a model needs, as the fit ladder asks it (which
// GPUs are eligible and what each claims, whether a set of claims fits, RAM beside them).
// vllm_estimator reproduces GPUStack's vLLM resource-fit selector
// (gpustack/policies/candidate_selectors/vllm_resource_fit_selector.py); layered_estimator
// places GGUF-like models layer by layer (full offload, partial offload, CPU only); the
// Estimator concept admits any other (a need given directly: docs/scheduler.md §2).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>

#include "../detail/byte_counts.hpp"
#include "../detail/checks.hpp"
#include "../error.hpp"
#include "traits.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// What backends can do beyond single-worker GPU placements.
struct backend_capabilities {
  bool multi_gpu = true;         ///< several GPUs of one worker
  bool distributed = false;      ///< main + subordinate workers
  bool partial_offload = false;  ///< some layers on GPU, the rest on CPU
  bool cpu_only = false;         ///< no GPU at all
};

/// A partial-offload fit on one GPU.
struct offload_fit {
  std::uint64_t vram_bytes = 0;    ///< VRAM claimed on the GPU
  std::uint64_t ram_bytes = 0;     ///< RAM claimed on the worker
  std::uint32_t layers = 0;        ///< layers on the GPU
  std::uint32_t total_layers = 0;  ///< total layers
};

/// A resource estimator for one model: capabilities(); ram_bytes() (RAM a GPU placement
/// claims on its main worker); gpu_claim_bytes(total, alloc) (VRAM it would claim on a GPU,
/// 0 = ineligible); fits(sum_of_claims, gpu_count). Optional: offload(gpu_total, gpu_alloc,
/// ram_alloc) -> std::optional<offload_fit> and cpu_ram_bytes() for the stage-4 fallbacks.
/// Each must be a pure function of its arguments: the fit may evaluate gpu_claim_bytes once
/// for GPUs it knows to have the same arguments.
template <class E>
concept Estimator = requires(const E& e, std::uint64_t total, std::int64_t alloc, std::uint64_t sum,
                             std::uint32_t n) {
  { e.capabilities() } -> std::convertible_to<backend_capabilities>;
  { e.ram_bytes() } -> std::convertible_to<std::uint64_t>;
  { e.gpu_claim_bytes(total, alloc) } -> std::convertible_to<std::uint64_t>;
  { e.fits(sum, n) } -> std::convertible_to<bool>;
};

/// Whether one replica may span several workers (GPUStack's
/// model.distributed_inference_across_workers, false by default).
enum class distributed_inference : std::uint8_t {
  single_worker,  ///< one worker per replica (GPUStack's default)
  across_workers  ///< a main worker and subordinate workers when no single worker fits
};

/// GPUStack's extended KV cache (model.extended_kv_cache): RAM a placement claims beside its
/// VRAM. RAM claim of each part (main and subordinates), as GPUStack's
/// policies/utils.py::get_computed_ram_claim: none unless enabled; ram_size_bytes when > 0
/// (and every worker used must hold that much: get_model_ram_claim, ram_not_enough); else
/// ⌊ram_ratio × the part's VRAM claim⌋ when ram_ratio > 0 (never checked against RAM).
struct extended_kv_cache {
  bool enabled = false;              ///< the feature is on
  std::uint64_t ram_size_bytes = 0;  ///< fixed RAM per part, bytes (GPUStack's ram_size GiB × 2^30)
  double ram_ratio = 1.2;            ///< else RAM = ratio × VRAM claim (GPUStack's default)
};

/// What GPUStack's vLLM resource-fit selector takes about the model
/// (policies/candidate_selectors/vllm_resource_fit_selector.py).
struct vllm_options {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  /// VRAM the model needs in total, bytes (GPUStack's estimate_model_vram; from weights:
  /// vllm_required_vram_bytes). A placement's claims must sum to at least this.
  std::uint64_t required_vram_bytes = 0;
  double gpu_memory_utilization = 0.9;       ///< --gpu-memory-utilization, in (0, 1]
  std::uint32_t attention_heads = 0;         ///< num_attention_heads; 0 = unknown (no constraint)
  std::uint32_t vocab_size = 0;              ///< vocab_size; 0 = unknown (no constraint)
  std::uint32_t tensor_parallel_size = 0;    ///< --tensor-parallel-size; 0 = not set
  std::uint32_t pipeline_parallel_size = 0;  ///< --pipeline-parallel-size; 0 = not set
  distributed_inference distributed = distributed_inference::single_worker;  ///< across workers?
  extended_kv_cache kv_cache{};  ///< RAM claimed beside the VRAM
};

/// GPUStack's VRAM estimate of an LLM from its weights (policies/utils.py::
/// estimate_model_vram): weights × 1.2 for the activations and KV cache...
inline constexpr double vllm_vram_per_weight_byte = 1.2;
/// ...plus 2 GiB for the CUDA context and the runtime.
inline constexpr std::uint64_t vllm_vram_overhead_bytes = 2 * gib_bytes;

/// ⌊weights × vllm_vram_per_weight_byte⌋ + vllm_vram_overhead_bytes, saturated.
[[nodiscard]] constexpr std::uint64_t vllm_required_vram_bytes(
    std::uint64_t weights_bytes) noexcept {
  return detail::sat_add(
      detail::floor_bytes(static_cast<double>(weights_bytes) * vllm_vram_per_weight_byte),
      vllm_vram_overhead_bytes);
}

/// vLLM-style estimator (GPUStack's vLLM resource-fit selector). Claims ⌊utilization ×
/// total⌋ on every GPU it uses; the claims must cover required_vram_bytes; a GPU count n
/// must divide the attention heads and the vocabulary (tensor parallelism) and equal the
/// world size tensor_parallel_size × pipeline_parallel_size when either is set. For the
/// grouped listing a GPU is eligible when at least its claim is free; the gpustack listing
/// applies GPUStack's own thresholds (scheduler/gpustack_fit.hpp).
class vllm_estimator {
 public:
  /// From GPUStack's inputs; throws invalid_argument for gpu_memory_utilization outside
  /// (0, 1], a negative or NaN kv_cache.ram_ratio, or a tensor_parallel_size that does not
  /// divide attention_heads or vocab_size (GPUStack's _validate_arguments).
  explicit constexpr vllm_estimator(const vllm_options& options) : o_(options) {
    detail::require_unit_positive("options.gpu_memory_utilization", o_.gpu_memory_utilization);
    detail::require_non_negative("options.kv_cache.ram_ratio", o_.kv_cache.ram_ratio);
    if (o_.tensor_parallel_size != 0 && !tp_divisible(o_.tensor_parallel_size))
      detail::fail("options.tensor_parallel_size", o_.tensor_parallel_size,
                   "must divide attention_heads and vocab_size");
  }
  /// The short form. weights_bytes: model weights (need vllm_required_vram_bytes(weights));
  /// gpu_memory_utilization in (0, 1]; attention_heads >= 1; ram_bytes: RAM claimed on the
  /// workers used (an extended KV cache of that fixed size; 0 = none); distributed: whether
  /// a replica may span workers (GPUStack's default: no).
  constexpr vllm_estimator(std::uint64_t weights_bytes, double gpu_memory_utilization,
                           std::uint32_t attention_heads, std::uint64_t ram_bytes = 0,
                           distributed_inference distributed = distributed_inference::single_worker)
      : o_{.required_vram_bytes = vllm_required_vram_bytes(weights_bytes),
           .gpu_memory_utilization =
               detail::require_unit_positive("gpu_memory_utilization", gpu_memory_utilization),
           .attention_heads = attention_heads,
           .distributed = distributed,
           .kv_cache = {.enabled = ram_bytes != 0, .ram_size_bytes = ram_bytes, .ram_ratio = 0.0}} {
    if (attention_heads == 0) detail::fail("attention_heads", attention_heads, "must be >= 1");
  }
  /// Multi-GPU always; distributed when enabled; never offload or CPU.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {.multi_gpu = true,
            .distributed = o_.distributed == distributed_inference::across_workers,
            .partial_offload = false,
            .cpu_only = false};
  }
  /// VRAM needed in total, bytes.
  [[nodiscard]] constexpr std::uint64_t required_vram_bytes() const noexcept {
    return o_.required_vram_bytes;
  }
  /// --gpu-memory-utilization.
  [[nodiscard]] constexpr double gpu_memory_utilization() const noexcept {
    return o_.gpu_memory_utilization;
  }
  /// The options it was built from.
  [[nodiscard]] constexpr const vllm_options& options() const noexcept { return o_; }
  /// The GPUs one replica must use: tensor × pipeline parallel size, 0 when neither is set.
  [[nodiscard]] constexpr std::uint32_t world_size() const noexcept {
    if (o_.tensor_parallel_size == 0 && o_.pipeline_parallel_size == 0) return 0;
    return std::max<std::uint32_t>(o_.tensor_parallel_size, 1) *
           std::max<std::uint32_t>(o_.pipeline_parallel_size, 1);
  }
  /// true iff n GPUs can split the model: n > 0 divides the attention heads and the vocabulary
  /// (each when known); GPUStack's _is_tp_size_divisible.
  [[nodiscard]] constexpr bool tp_divisible(std::uint32_t n) const noexcept {
    return n > 0 && (o_.attention_heads == 0 || o_.attention_heads % n == 0) &&
           (o_.vocab_size == 0 || o_.vocab_size % n == 0);
  }
  /// RAM every worker of a placement must hold and the main worker claims (the fixed
  /// extended-KV-cache size when enabled, else 0); GPUStack's get_model_ram_claim.
  [[nodiscard]] constexpr std::uint64_t ram_bytes() const noexcept {
    return o_.kv_cache.enabled ? o_.kv_cache.ram_size_bytes : 0;
  }
  /// RAM one part of a placement claims given its VRAM claims' sum (see extended_kv_cache).
  [[nodiscard]] constexpr std::uint64_t part_ram_bytes(
      std::uint64_t vram_claim_bytes) const noexcept {
    const extended_kv_cache& k = o_.kv_cache;
    if (!k.enabled) return 0;
    if (k.ram_size_bytes > 0) return k.ram_size_bytes;
    if (!(k.ram_ratio > 0)) return 0;
    return detail::floor_bytes(static_cast<double>(vram_claim_bytes) * k.ram_ratio);
  }
  /// ⌊utilization × total⌋ when at least that much of the GPU is free, else 0 (ineligible).
  [[nodiscard]] constexpr std::uint64_t gpu_claim_bytes(std::uint64_t total_bytes,
                                                        std::int64_t alloc_bytes) const noexcept {
    const double claim = o_.gpu_memory_utilization * static_cast<double>(total_bytes);
    if (static_cast<double>(alloc_bytes) < claim || claim < 1.0) return 0;
    return static_cast<std::uint64_t>(claim);
  }
  /// The claims cover the requirement, and gpu_count divides the heads and the vocabulary
  /// and equals the world size when one is set.
  [[nodiscard]] constexpr bool fits(std::uint64_t claims_bytes,
                                    std::uint32_t gpu_count) const noexcept {
    const std::uint32_t world = world_size();
    return tp_divisible(gpu_count) && (world == 0 || gpu_count == world) &&
           claims_bytes >= o_.required_vram_bytes;
  }

 private:
  vllm_options o_;
};

/// An estimator the gpustack listing can run: GPUStack's vLLM selector reads the need, the
/// utilization, the world size, tensor-parallel divisibility, the distribution mode and the
/// RAM claims (vllm_estimator).
template <class E>
concept GpustackEstimator = requires(const E& e, std::uint32_t n, std::uint64_t b) {
  { e.required_vram_bytes() } -> std::convertible_to<std::uint64_t>;
  { e.gpu_memory_utilization() } -> std::convertible_to<double>;
  { e.world_size() } -> std::convertible_to<std::uint32_t>;
  { e.tp_divisible(n) } -> std::convertible_to<bool>;
  { e.capabilities() } -> std::convertible_to<backend_capabilities>;
  { e.ram_bytes() } -> std::convertible_to<std::uint64_t>;
  { e.part_ram_bytes(b) } -> std::convertible_to<std::uint64_t>;
};

/// Whether a model that fits no GPU may run on CPU alone (layered_estimator).
enum class cpu_fallback : std::uint8_t {
  allowed,   ///< the last rung of the ladder: RAM only
  forbidden  ///< GPUs or nothing
};

/// What a layer-based model needs (layered_estimator), bytes.
struct layered_options {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::uint32_t total_layers = 1;            ///< layers in the model (>= 1)
  std::uint64_t layer_vram_bytes = 0;        ///< VRAM per layer on GPU
  std::uint64_t fixed_vram_bytes = 0;        ///< VRAM beside the layers (with at least one on GPU)
  std::uint64_t layer_ram_bytes = 0;         ///< RAM per layer left on CPU
  std::uint64_t fixed_ram_bytes = 0;         ///< RAM beside the layers
  cpu_fallback cpu = cpu_fallback::allowed;  ///< may it run on CPU alone?
};

/// Layer-based estimator (GGUF-like): VRAM(L) = fixed_vram + L × layer_vram for L > 0
/// layers on GPU (0 for L = 0), RAM(L) = fixed_ram + (total − L) × layer_ram, both
/// saturated at the largest std::uint64_t (never wrapping to a small need). Full offload
/// uses one GPU; partial offload finds the most layers that fit one GPU by binary search
/// over VRAM(L) (monotone); CPU only needs RAM(0).
class layered_estimator {
 public:
  /// From named sizes; throws invalid_argument for total_layers 0.
  explicit constexpr layered_estimator(const layered_options& o)
      : total_(o.total_layers),
        layer_vram_(o.layer_vram_bytes),
        fixed_vram_(o.fixed_vram_bytes),
        layer_ram_(o.layer_ram_bytes),
        fixed_ram_(o.fixed_ram_bytes),
        cpu_(o.cpu) {
    if (total_ == 0) detail::fail("total_layers", total_, "must be >= 1");
  }
  /// Single GPU, partial offload, CPU (when allowed); no multi-GPU or distributed here.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {.multi_gpu = false,
            .distributed = false,
            .partial_offload = true,
            .cpu_only = cpu_ == cpu_fallback::allowed};
  }
  /// VRAM with `layers` layers on GPU, bytes.
  [[nodiscard]] constexpr std::uint64_t vram_bytes(std::uint32_t layers) const noexcept {
    return layers == 0 ? 0 : detail::sat_add(fixed_vram_, detail::sat_mul(layers, layer_vram_));
  }
  /// RAM with `layers` layers on GPU (the rest on CPU), bytes.
  [[nodiscard]] constexpr std::uint64_t ram_bytes(std::uint32_t layers) const noexcept {
    return detail::sat_add(fixed_ram_,
                           detail::sat_mul(total_ - std::min(layers, total_), layer_ram_));
  }
  /// RAM of a full GPU placement.
  [[nodiscard]] constexpr std::uint64_t ram_bytes() const noexcept { return ram_bytes(total_); }
  /// Full offload: VRAM(total) when that much is free, else 0.
  [[nodiscard]] constexpr std::uint64_t gpu_claim_bytes(std::uint64_t,
                                                        std::int64_t alloc_bytes) const noexcept {
    const std::uint64_t need = vram_bytes(total_);
    return detail::holds_bytes(alloc_bytes, need) ? need : 0;
  }
  /// One GPU carrying every layer.
  [[nodiscard]] constexpr bool fits(std::uint64_t claims_bytes,
                                    std::uint32_t gpu_count) const noexcept {
    return gpu_count == 1 && claims_bytes >= vram_bytes(total_);
  }
  /// The most layers whose VRAM fits alloc_bytes (binary search), 0 if none.
  [[nodiscard]] constexpr std::uint32_t max_layers(std::int64_t alloc_bytes) const noexcept {
    if (alloc_bytes <= 0) return 0;
    const auto a = static_cast<std::uint64_t>(alloc_bytes);
    std::uint32_t lo = 0, hi = total_;  // invariant: vram(lo) fits; answer in [lo, hi]
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo + 1) / 2;
      if (vram_bytes(mid) <= a)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  }
  /// Partial offload on one GPU: the most layers that fit, if RAM holds the rest.
  [[nodiscard]] constexpr std::optional<offload_fit> offload(
      std::uint64_t, std::int64_t gpu_alloc_bytes, std::int64_t ram_alloc_bytes) const noexcept {
    const std::uint32_t layers = max_layers(gpu_alloc_bytes);
    if (layers == 0) return std::nullopt;
    const std::uint64_t ram = ram_bytes(layers);
    if (!detail::holds_bytes(ram_alloc_bytes, ram)) return std::nullopt;
    return offload_fit{.vram_bytes = vram_bytes(layers),
                       .ram_bytes = ram,
                       .layers = layers,
                       .total_layers = total_};
  }
  /// RAM of a CPU-only placement.
  [[nodiscard]] constexpr std::uint64_t cpu_ram_bytes() const noexcept { return ram_bytes(0); }
  /// Total layers.
  [[nodiscard]] constexpr std::uint32_t total_layers() const noexcept { return total_; }

 private:
  std::uint32_t total_;
  std::uint64_t layer_vram_, fixed_vram_, layer_ram_, fixed_ram_;
  cpu_fallback cpu_;
};

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

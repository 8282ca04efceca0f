// SPDX-License-Identifier: Apache-2.0
// Scheduler step 2: resource fit. The workspace indexes the caller's workers and instances
// (through the traits) into flat records: allocatable VRAM per GPU and RAM per worker
// (total − reserved − claims of existing instances; RAM on the main worker only; each
// quantity counted up to detail::max_counted_bytes = 8 PiB), instance counts per
// worker/GPU, GPU types, file readiness. Two candidate listings run on it:
//  - grouped (the default, ours): single worker single GPU → single worker several GPUs →
//    across workers (main + subordinates) → partial offload, else CPU only, stopping at the
//    first strategy that yields candidates; equivalent GPUs of a worker yield one candidate;
//  - gpustack: GPUStack's vLLM resource-fit selector, every candidate in GPUStack's order
//    (scheduler/gpustack_fit.hpp).
// Requirements come from an estimator: vllm_estimator and layered_estimator are provided.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "traits.hpp"

namespace headroom {
inline namespace v0 {

/// One GiB in bytes.
inline constexpr std::uint64_t gib_bytes = std::uint64_t{1} << 30;

namespace detail {
/// Asks the CPU to start loading the cache line holding p (a hint: no effect on results).
/// Always inlined: GCC otherwise finds the helpers that call it free of effects and drops
/// their calls.
HEADROOM_ALWAYS_INLINE void prefetch(const void* p) noexcept { HEADROOM_PREFETCH(p); }
/// How many items ahead the decision loops prefetch the records they will read.
inline constexpr std::uint32_t prefetch_distance = 32;

/// The largest byte quantity the index counts (2^53 B = 8 PiB, exact in a double): larger
/// totals, reservations and claims read through the traits count as this much. A clamped
/// quantity can only make a GPU or worker look less allocatable: a positive allocatable
/// amount never exceeds the true one.
inline constexpr std::uint64_t max_counted_bytes = std::uint64_t{1} << 53;
/// v clamped to max_counted_bytes, as a signed amount.
[[nodiscard]] constexpr std::int64_t counted_bytes(std::uint64_t v) noexcept {
  return static_cast<std::int64_t>(std::min(v, max_counted_bytes));
}
/// An amount kept exactly: a signed 128-bit integer in two words (any number of additions
/// of at most 2^63 each, in any order), read saturated to std::int64_t.
class byte_balance {
 public:
  constexpr byte_balance() noexcept = default;
  /// The amount v.
  constexpr explicit byte_balance(std::int64_t v) noexcept
      : low_(static_cast<std::uint64_t>(v)), high_(v < 0 ? ~std::uint64_t{0} : 0) {}
  /// Adds v (negative: subtracts).
  constexpr void add(std::int64_t v) noexcept {
    const std::uint64_t low = low_ + static_cast<std::uint64_t>(v);
    high_ += (v < 0 ? ~std::uint64_t{0} : 0) + (low < low_ ? 1u : 0u);
    low_ = low;
  }
  /// Adds another balance.
  constexpr void add(const byte_balance& b) noexcept {
    const std::uint64_t low = low_ + b.low_;
    high_ += b.high_ + (low < low_ ? 1u : 0u);
    low_ = low;
  }
  /// The amount, saturated to [INT64_MIN, INT64_MAX].
  [[nodiscard]] constexpr std::int64_t saturated() const noexcept {
    constexpr std::uint64_t sign = std::uint64_t{1} << 63;
    if (high_ == 0 && low_ < sign) return static_cast<std::int64_t>(low_);
    if (high_ == ~std::uint64_t{0} && low_ >= sign)
      return -static_cast<std::int64_t>(~low_) - 1;  // two's complement, without a narrowing cast
    return (high_ & sign) != 0 ? std::numeric_limits<std::int64_t>::min()
                               : std::numeric_limits<std::int64_t>::max();
  }

 private:
  std::uint64_t low_ = 0, high_ = 0;
};
/// Allocatable amounts kept exactly but stored as their std::int64_t saturation: each in a
/// slot the caller owns (a record's field), plus, for the rare amount beyond the int64 range
/// (1 023 claims of 8 PiB on one GPU), its exact value in a side table. Adding and removing
/// the same claims is then exact in any order (a kept index equals a fresh one bit for bit),
/// and many huge claims leave a GPU or worker full, never wrap it back to free. The fast
/// path is one overflow test.
class saturating_amounts {
 public:
  /// slot += amount for the amount of key (slot: its saturated value).
  void add(std::int64_t& slot, std::uint32_t key, std::int64_t amount) {
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
    const bool overflows = amount > 0 ? slot > hi - amount : slot < lo - amount;
    if (slot != lo && slot != hi && !overflows) {
      slot += amount;
      return;
    }
    byte_balance exact = exact_value(slot, key);
    exact.add(amount);
    slot = exact.saturated();
    const auto it = find(key);
    if (slot == lo || slot == hi) {
      if (it == side_.end())
        side_.push_back({key, exact});
      else
        it->second = exact;
    } else if (it != side_.end()) {
      side_.erase(it);
    }
  }
  /// The exact amount of key, whose saturated value is slot.
  [[nodiscard]] byte_balance exact_value(std::int64_t slot, std::uint32_t key) const noexcept {
    if (slot != std::numeric_limits<std::int64_t>::min() &&
        slot != std::numeric_limits<std::int64_t>::max())
      return byte_balance(slot);
    const auto it =
        std::find_if(side_.begin(), side_.end(), [&](const auto& e) { return e.first == key; });
    return it == side_.end() ? byte_balance(slot) : it->second;
  }
  /// Forgets every exact value (the slots are set anew).
  void clear() noexcept { side_.clear(); }

 private:
  std::vector<std::pair<std::uint32_t, byte_balance>>::iterator find(std::uint32_t key) {
    return std::find_if(side_.begin(), side_.end(), [&](const auto& e) { return e.first == key; });
  }
  std::vector<std::pair<std::uint32_t, byte_balance>> side_;
};
/// true iff an allocatable amount (possibly negative) holds need bytes.
[[nodiscard]] constexpr bool holds_bytes(std::int64_t alloc, std::uint64_t need) noexcept {
  return alloc >= 0 && static_cast<std::uint64_t>(alloc) >= need;
}
/// A vector with a logical size: shrinking keeps the elements' storage, and growing again
/// within it neither zero-fills nor copies (the elements beyond the old size hold stale
/// values, to be overwritten). Decisions size their candidate buffers up and down every
/// time; this makes that free after the first.
template <class T>
class buffer {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
  [[nodiscard]] T* data() noexcept { return v_.data(); }
  [[nodiscard]] const T* data() const noexcept { return v_.data(); }
  [[nodiscard]] T* begin() noexcept { return v_.data(); }
  [[nodiscard]] T* end() noexcept { return v_.data() + n_; }
  [[nodiscard]] const T* begin() const noexcept { return v_.data(); }
  [[nodiscard]] const T* end() const noexcept { return v_.data() + n_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return v_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return v_[i]; }
  [[nodiscard]] operator std::span<const T>() const noexcept { return {v_.data(), n_}; }
  void clear() noexcept { n_ = 0; }
  void resize(std::size_t n) {
    if (n > v_.size()) v_.resize(n);
    n_ = n;
  }
  void push_back(const T& x) {
    if (n_ == v_.size())
      v_.push_back(x);
    else
      v_[n_] = x;
    ++n_;
  }
  /// Removes [first, last).
  void erase(T* first, T* last) noexcept {
    std::copy(last, end(), first);
    n_ -= static_cast<std::size_t>(last - first);
  }

 private:
  std::vector<T> v_;
  std::size_t n_ = 0;
};
/// a + b and a × b saturated at the largest std::uint64_t (estimator arithmetic).
[[nodiscard]] constexpr std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}
[[nodiscard]] constexpr std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) noexcept {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b
             ? std::numeric_limits<std::uint64_t>::max()
             : a * b;
}
}  // namespace detail

/// A position that refers to nothing.
inline constexpr std::uint32_t no_position = std::numeric_limits<std::uint32_t>::max();

/// A worker as indexed by the workspace (positions follow the caller's worker range).
struct worker_record {
  std::uint64_t id = 0;               ///< worker_traits::id
  std::uint64_t ram_total_bytes = 0;  ///< total RAM
  std::int64_t ram_alloc_bytes = 0;   ///< total − reserved − Σ RAM claims (may be < 0)
  std::uint32_t gpu_begin = 0;        ///< first GPU in workspace::gpus()
  std::uint32_t gpu_count = 0;        ///< number of GPUs
  std::uint32_t cur = 0;              ///< instances of the model, once per GPU occupied (CPU: once)
  std::uint32_t oth = 0;              ///< instances of other models, counted the same way
  std::uint16_t type =
      0;  ///< its effective GPU type id (workspace::type_name; see gpustack_fit.hpp)
  worker_state state = worker_state::not_ready;  ///< worker_traits::state
  bool main_files = false;                       ///< the model's files are READY here
  bool draft_files = false;                      ///< the draft model's files are READY here
  bool eligible = false;                         ///< passed the filter chain (set by the scheduler)
};

/// A GPU as indexed by the workspace.
struct gpu_record {
  std::uint32_t index = 0;        ///< gpu_traits::index
  std::uint32_t worker = 0;       ///< position of its worker
  std::uint64_t total_bytes = 0;  ///< total VRAM
  std::int64_t alloc_bytes = 0;   ///< total − reserved − Σ VRAM claims (may be < 0)
  std::uint32_t cur = 0;          ///< instances of the model on this GPU
  std::uint32_t oth = 0;          ///< instances of other models on this GPU
  std::uint16_t type = 0;         ///< GPU type id (workspace::type_name); 0 = untyped
  bool selected = false;          ///< explicitly selected by the model
};

/// A VRAM claim on one GPU of a placement.
struct claim_record {
  std::uint32_t gpu = 0;         ///< position in workspace::gpus()
  std::uint32_t index = 0;       ///< gpu_traits::index of that GPU
  std::uint64_t vram_bytes = 0;  ///< VRAM claimed
};

/// One worker's share of a placement: the first part is the main worker, the others
/// subordinates (distributed inference).
struct placement_part {
  std::uint32_t worker = 0;       ///< position of the worker in the caller's range
  std::uint32_t claim_begin = 0;  ///< first claim in workspace claims
  std::uint32_t claim_count = 0;  ///< GPUs used on this worker (0 = CPU)
  /// RAM claimed: subtracted from the main worker's allocatable RAM; a subordinate's is
  /// scored but never subtracted (GPUStack counts RAM on the main worker only).
  std::uint64_t ram_bytes = 0;
};

/// How a placement was found.
enum class fit_strategy : std::uint8_t {
  none,             ///< no placement
  single_gpu,       ///< one worker, one GPU
  multi_gpu,        ///< one worker, several GPUs
  distributed,      ///< a main worker and subordinate workers
  partial_offload,  ///< some layers on one GPU, the rest in RAM
  cpu_only,         ///< RAM only
  manual,           ///< on explicitly selected GPUs (GPUStack's manual selection stage)
  given             ///< listed by the caller (workspace::set_candidates)
};

/// A candidate placement (scale up): parts live in the workspace.
struct candidate {
  std::uint32_t part_begin = 0;                ///< first part in workspace parts
  std::uint32_t part_count = 0;                ///< 1 + number of subordinates
  fit_strategy strategy = fit_strategy::none;  ///< the ladder step that produced it
  /// A manual selection that over-commits its GPUs (GPUStack keeps the best such one when
  /// nothing else fits and the model has one replica).
  bool overcommit = false;
  std::uint32_t offload_layers = 0;  ///< layers on GPU (layered estimators), else 0
  std::uint32_t total_layers = 0;    ///< total layers (layered estimators), else 0
};

/// An existing instance of the model being scaled down, as indexed by the workspace.
struct instance_record {
  std::size_t position = 0;                        ///< position in the caller's instance range
  std::uint64_t id = 0;                            ///< instance_traits::id
  instance_state state = instance_state::running;  ///< its state
  bool scheduled = false;                          ///< has a worker id
  std::uint32_t part_begin = 0;      ///< first part (no_position parts when not found)
  std::uint32_t part_count = 0;      ///< 0 when unscheduled or its worker is missing
  bool has_layers = false;           ///< layer metadata given (total and offloaded)
  std::uint32_t total_layers = 0;    ///< total layers (when has_layers)
  std::uint32_t offload_layers = 0;  ///< layers on GPU (when has_layers)
};

/// An instance's place in a scale-down ranking (remove from the front).
struct ranked_instance {
  std::size_t position = 0;  ///< position in the caller's instance range
  std::uint64_t id = 0;      ///< instance_traits::id
  double score = 0;          ///< the chain's total (lower = removed first)
};

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
  double ram_ratio = 1.2;            ///< else RAM = ratio × VRAM claim (finite, >= 0)
};

/// What GPUStack's vLLM resource-fit selector takes about the model
/// (policies/candidate_selectors/vllm_resource_fit_selector.py).
struct vllm_options {
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
/// estimate_model_vram): ⌊weights × 1.2⌋ + 2 GiB, saturated.
[[nodiscard]] constexpr std::uint64_t vllm_required_vram_bytes(
    std::uint64_t weights_bytes) noexcept {
  const double scaled = static_cast<double>(weights_bytes) * 1.2;
  const std::uint64_t base = scaled >= 18446744073709551616.0
                                 ? std::numeric_limits<std::uint64_t>::max()
                                 : static_cast<std::uint64_t>(scaled);
  return detail::sat_add(base, 2 * gib_bytes);
}

/// vLLM-style estimator (GPUStack's vLLM resource-fit selector). Claims ⌊gmu × total⌋ on
/// every GPU it uses; the claims must cover required_vram_bytes; a GPU count n must divide
/// the attention heads and the vocabulary (tensor parallelism) and equal the world size
/// tensor_parallel_size × pipeline_parallel_size when either is set. For the grouped
/// listing a GPU is eligible when at least its claim is free; the gpustack listing applies
/// GPUStack's own thresholds (scheduler/gpustack_fit.hpp).
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
  /// weights_bytes: model weights (need vllm_required_vram_bytes(weights)); gmu:
  /// gpu_memory_utilization in (0, 1]; attention_heads >= 1; ram_bytes: RAM claimed on the
  /// workers used (an extended KV cache of that fixed size; 0 = none); distributed: whether
  /// a replica may span workers (GPUStack's default: no).
  constexpr vllm_estimator(std::uint64_t weights_bytes, double gmu, std::uint32_t attention_heads,
                           std::uint64_t ram_bytes = 0,
                           distributed_inference distributed = distributed_inference::single_worker)
      : o_{vllm_required_vram_bytes(weights_bytes),
           detail::require_unit_positive("gmu", gmu),
           attention_heads,
           0,
           0,
           0,
           distributed,
           {ram_bytes != 0, ram_bytes, 0.0}} {
    if (attention_heads == 0) detail::fail("attention_heads", attention_heads, "must be >= 1");
  }
  /// Multi-GPU always; distributed when enabled; never offload or CPU.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {true, o_.distributed == distributed_inference::across_workers, false, false};
  }
  /// VRAM needed in total, bytes.
  [[nodiscard]] constexpr std::uint64_t required_vram_bytes() const noexcept {
    return o_.required_vram_bytes;
  }
  /// gpu_memory_utilization.
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
    const double ram = static_cast<double>(vram_claim_bytes) * k.ram_ratio;
    return ram >= 18446744073709551616.0 ? std::numeric_limits<std::uint64_t>::max()
                                         : static_cast<std::uint64_t>(ram);
  }
  /// ⌊gmu × total⌋ when at least gmu × total of the GPU is free, else 0 (ineligible).
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

/// Layer-based estimator (GGUF-like): VRAM(L) = fixed_vram + L × layer_vram for L > 0
/// layers on GPU (0 for L = 0), RAM(L) = fixed_ram + (total − L) × layer_ram, both
/// saturated at the largest std::uint64_t (never wrapping to a small need). Full offload
/// uses one GPU; partial offload finds the most layers that fit one GPU by binary search
/// over VRAM(L) (monotone); CPU only needs RAM(0).
class layered_estimator {
 public:
  /// total_layers >= 1; byte sizes per layer and fixed overheads.
  constexpr layered_estimator(std::uint32_t total_layers, std::uint64_t layer_vram_bytes,
                              std::uint64_t fixed_vram_bytes, std::uint64_t layer_ram_bytes,
                              std::uint64_t fixed_ram_bytes, bool cpu_only_allowed = true)
      : total_(total_layers),
        layer_vram_(layer_vram_bytes),
        fixed_vram_(fixed_vram_bytes),
        layer_ram_(layer_ram_bytes),
        fixed_ram_(fixed_ram_bytes),
        cpu_(cpu_only_allowed) {
    if (total_layers == 0) detail::fail("total_layers", total_layers, "must be >= 1");
  }
  /// Single GPU, partial offload, CPU (when allowed); no multi-GPU or distributed here.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {false, false, true, cpu_};
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
    return alloc_bytes >= 0 && static_cast<std::uint64_t>(alloc_bytes) >= need ? need : 0;
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
    if (ram_alloc_bytes < 0 || static_cast<std::uint64_t>(ram_alloc_bytes) < ram)
      return std::nullopt;
    return offload_fit{vram_bytes(layers), ram, layers, total_};
  }
  /// RAM of a CPU-only placement.
  [[nodiscard]] constexpr std::uint64_t cpu_ram_bytes() const noexcept { return ram_bytes(0); }
  /// Total layers.
  [[nodiscard]] constexpr std::uint32_t total_layers() const noexcept { return total_; }

 private:
  std::uint32_t total_;
  std::uint64_t layer_vram_, fixed_vram_, layer_ram_, fixed_ram_;
  bool cpu_;
};

/// Which candidates the fit lists.
enum class candidate_listing : std::uint8_t {
  /// headroom's ladder (the default): equivalent GPUs of a worker yield one candidate, the
  /// distributed stage one candidate per main worker; fastest.
  grouped,
  /// GPUStack's vLLM resource-fit selector, exactly: manual selection, else one candidate per
  /// GPU, else the fewest GPUs per worker, else one distributed candidate per GPU type;
  /// GPUStack's order and thresholds (scheduler/gpustack_fit.hpp). Needs a GpustackEstimator.
  gpustack
};

/// Which candidate wins among equal totals.
enum class tie_break : std::uint8_t {
  lowest_worker_id,  ///< the lowest main-worker id, then the lowest first GPU index (ours)
  first_listed       ///< the first in the list (GPUStack's pick_highest_score_candidate)
};

/// What a decision on a kept index (place_indexed) does about a worker changed without
/// workspace::update_worker: anything its record or its cached filter verdict was read from.
enum class stale_check : std::uint8_t {
  /// Trusts the caller's update_worker calls: the index is read, the workers are not (the
  /// fast path; a forgotten update decides on the old record).
  none,
  /// Re-reads every worker first (its record and its filter verdict); one that changed
  /// unannounced → invalid_argument naming "workers" and its id. About the cost of index()
  /// without the instances (bench: place_default_indexed_checked).
  refuse,
  /// Re-reads every worker likewise and updates a changed one in place (update_worker), so
  /// the decision is the one a fresh index makes; GPUs of another count, indices or types →
  /// invalid_argument (index() again).
  refresh
};

/// The default stale_check: refuse in a debug build (HEADROOM_ASSERT active), none under
/// NDEBUG or HEADROOM_DISABLE_ASSERTS.
#if defined(NDEBUG) || defined(HEADROOM_DISABLE_ASSERTS)
inline constexpr stale_check default_stale_check = stale_check::none;
#else
inline constexpr stale_check default_stale_check = stale_check::refuse;
#endif

/// Tuning of the fit ladder and of the pick.
struct fit_options {
  std::uint32_t max_subordinates = 8;  ///< most subordinates of a grouped distributed candidate
  candidate_listing listing = candidate_listing::grouped;  ///< which candidates are listed
  tie_break ties = tie_break::lowest_worker_id;            ///< who wins a tie
  stale_check stale = default_stale_check;  ///< workers changed without update_worker
};

/// GPUStack's rules: its candidate list, in its order, and the first maximum wins. With
/// gpustack_scale_up_chain() this is the gpustack preset (docs/scheduler.md §4).
[[nodiscard]] constexpr fit_options gpustack_fit_options() noexcept {
  return {8, candidate_listing::gpustack, tie_break::first_listed, default_stale_check};
}

/// Read-only view of an indexed cluster and the model being scheduled, given to scorers.
struct cluster_view {
  std::span<const worker_record> workers;               ///< one per caller worker, same order
  std::span<const gpu_record> gpus;                     ///< all GPUs, grouped by worker
  std::span<const placement_part> parts;                ///< parts of instances and candidates
  std::span<const claim_record> claims;                 ///< VRAM claims of those parts
  placement_policy policy = placement_policy::binpack;  ///< the model's policy
  bool has_draft = false;                               ///< the model has a draft model
  bool draft_any_ready = false;  ///< some worker holds the draft model's files READY
  /// Optional dense copies for the scorers' hot loops (a workspace's view fills them; a
  /// view built by hand may leave them empty): gpus[i].alloc_bytes, and per worker
  /// main_files | draft_files << 1.
  std::span<const std::int64_t> gpu_alloc{};
  std::span<const std::uint8_t> worker_files{};  ///< see gpu_alloc
  /// Allocatable VRAM per GPU and RAM per worker counting the claims of the model's own
  /// instances only (filled when the workspace records them: scale down); GPUStack's
  /// scale-down placement scorer sees only these (server/controllers.py::
  /// find_scale_down_candidates passes the model's instances).
  std::span<const std::int64_t> own_gpu_alloc{};
  std::span<const std::int64_t> own_ram_alloc{};  ///< see own_gpu_alloc

  /// The parts of a candidate (first = main worker).
  [[nodiscard]] constexpr std::span<const placement_part> parts_of(
      const candidate& c) const noexcept {
    return parts.subspan(c.part_begin, c.part_count);
  }
  /// The parts of an instance (empty when unscheduled or its worker is missing).
  [[nodiscard]] constexpr std::span<const placement_part> parts_of(
      const instance_record& r) const noexcept {
    return parts.subspan(r.part_begin, r.part_count);
  }
  /// The VRAM claims of a part.
  [[nodiscard]] constexpr std::span<const claim_record> claims_of(
      const placement_part& p) const noexcept {
    return claims.subspan(p.claim_begin, p.claim_count);
  }
};

/// Scratch state and persistent cluster index the caller keeps between decisions. index()
/// reads the whole cluster through the traits; after that, the index can be kept current
/// incrementally (add_instance, remove_instance, update_worker, commit) and decisions
/// taken on it directly (place_indexed, rank_for_removal_indexed) without reading the
/// cluster again. Once its buffers have grown to the cluster's size, indexing, updating,
/// fitting and scoring allocate nothing.
class workspace {
 public:
  /// Indexes workers and instances for model m: allocatable RAM/VRAM, counts, GPU types,
  /// files, explicit GPU selection. With record_instances, also records m's instances and
  /// the allocatable amounts their claims alone leave (scale down).
  template <std::ranges::forward_range Workers, std::ranges::forward_range Instances, class M>
  requires Worker<std::ranges::range_value_t<Workers>> &&
      Instance<std::ranges::range_value_t<Instances>> && ModelRequest<M>
  void index(const Workers& workers, const Instances& instances, const M& m,
             bool record_instances = false) {
    using W = std::ranges::range_value_t<Workers>;
    using WT = worker_traits<W>;
    using MT = model_traits<M>;
    workers_.clear();
    gpus_.clear();
    parts_.clear();
    claims_.clear();
    instances_.clear();
    candidates_.clear();
    ram_base_.clear();
    vram_base_.clear();
    model_key_.assign(MT::id(m));
    files_ = MT::files(m);
    draft_ = MT::draft_files(m);
    policy_ = MT::placement(m);
    gpus_per_replica_ = MT::gpus_per_replica(m);
    replicas_ = MT::replicas(m);
    has_draft_ = draft_ != 0;
    draft_ready_count_ = 0;
    table_draft_ready_ = false;
    sorted_ids_ = true;
    recording_ = record_instances;
    next_position_ = 0;
    type_count_ = 1;  // id 0: untyped
    refilter();
    for (const auto& w : workers) {
      worker_record r;
      r.id = WT::id(w);
      r.ram_total_bytes = WT::ram_total_bytes(w);
      r.ram_alloc_bytes = detail::counted_bytes(r.ram_total_bytes) -
                          detail::counted_bytes(WT::ram_reserved_bytes(w));
      r.state = WT::state(w);
      r.main_files = files_ != 0 && WT::files_ready(w, files_);
      r.draft_files = draft_ != 0 && WT::files_ready(w, draft_);
      draft_ready_count_ += r.draft_files ? 1u : 0u;
      r.gpu_begin = static_cast<std::uint32_t>(gpus_.size());
      const auto pos = static_cast<std::uint32_t>(workers_.size());
      const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
      std::uint64_t low_indices = 0;  // bit i: GPU index i (< 64) seen on this worker
      for (const auto& g : WT::gpus(w)) {
        using GT = gpu_traits<std::remove_cvref_t<decltype(g)>>;
        gpu_record gr;
        gr.index = GT::index(g);
        if (index_seen(r.gpu_begin, gr.index, low_indices)) refuse_duplicate_gpu(r.id, gr.index);
        gr.worker = pos;
        gr.total_bytes = GT::vram_total_bytes(g);
        gr.type = intern_type(GT::type(g));
        gr.alloc_bytes = detail::counted_bytes(gr.total_bytes) -
                         detail::counted_bytes(GT::vram_reserved_bytes(g)) - worker_reserved;
        gpus_.push_back(gr);
        vram_base_.push_back(gr.alloc_bytes);
      }
      r.gpu_count = static_cast<std::uint32_t>(gpus_.size()) - r.gpu_begin;
      r.type = effective_type(r);
      if (!workers_.empty() && workers_.back().id >= r.id) {
        if (workers_.back().id == r.id) refuse_duplicate_worker(r.id);
        sorted_ids_ = false;
      }
      workers_.push_back(r);
      ram_base_.push_back(r.ram_alloc_bytes);
    }
    draft_any_ready_ = draft_ready_count_ > 0;
    if (!sorted_ids_) {
      id_index_.clear();
      for (std::uint32_t i = 0; i < workers_.size(); ++i) id_index_.emplace_back(workers_[i].id, i);
      std::sort(id_index_.begin(), id_index_.end());
      const auto twin =
          std::adjacent_find(id_index_.begin(), id_index_.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; });
      if (twin != id_index_.end()) refuse_duplicate_worker(twin->first);
    }
    has_selection_ = false;
    selection_.clear();
    for (const auto& ref : MT::gpu_selection(m)) {
      using RT = gpu_ref_traits<std::remove_cvref_t<decltype(ref)>>;
      has_selection_ = true;
      const std::uint32_t w = find_worker(RT::worker_id(ref));
      const std::uint32_t g = w == no_position ? no_position : find_gpu(w, RT::index(ref));
      if (g != no_position) gpus_[g].selected = true;
      selection_.push_back(g);
    }
    vram_exact_.clear();
    ram_exact_.clear();
    own_vram_exact_.clear();
    own_ram_exact_.clear();
    excluded_vram_exact_.clear();
    excluded_ram_exact_.clear();
    excluded_vram_.assign(gpus_.size(), 0);
    excluded_ram_.assign(workers_.size(), 0);
    distributed_on_.assign(workers_.size(), 0);
    table_files_.assign(workers_.size(), 0);
    if (recording_) {
      own_gpu_alloc_.assign(vram_base_.begin(), vram_base_.end());
      own_ram_alloc_.assign(ram_base_.begin(), ram_base_.end());

    } else {
      own_gpu_alloc_.clear();
      own_ram_alloc_.clear();
    }
    indexing_ = true;
    for (const auto& inst : instances) apply_instance(inst, false);
    indexing_ = false;
    if (recording_) refuse_duplicate_records();
    instance_parts_ = parts_.size();
    instance_claims_ = claims_.size();
    twins_.resize(gpus_.size());
    gpu_alloc_.resize(gpus_.size());
    worker_files_.resize(workers_.size());
    distinct_.clear();
    distinct_of_.assign(workers_.size(), distinct_span{});
    for (std::uint32_t w = 0; w < workers_.size(); ++w) update_twins(w);
  }

  /// Reads a model-file table kept beside the workers (GPUStack's model_files): a worker
  /// holds the model's (or the draft model's) files READY when a READY row names it and
  /// the key; a READY draft row naming any worker (indexed or not) makes the draft count as
  /// available somewhere (the locality scorer's draft weight). Replaces the table read by
  /// an earlier call; what worker_traits::files_ready says still counts. Call it after
  /// index() (which forgets the table) and whenever the table changes.
  template <std::ranges::input_range Files>
  requires ModelFile<std::ranges::range_value_t<Files>>
  void index_files(const Files& files) {
    using FT = model_file_traits<std::ranges::range_value_t<Files>>;
    drop_candidates();
    std::fill(table_files_.begin(), table_files_.end(), std::uint8_t{0});
    table_draft_ready_ = false;
    for (const auto& f : files) {
      if (!FT::ready(f)) continue;
      const std::uint64_t key = FT::key(f);
      const std::optional<std::uint64_t> wid = FT::worker_id(f);
      if (key == 0 || !wid) continue;
      const bool main = key == files_, draft = key == draft_;
      if (draft) table_draft_ready_ = true;
      if (!main && !draft) continue;
      const std::uint32_t w = find_worker(*wid);
      if (w == no_position) continue;
      table_files_[w] |= static_cast<std::uint8_t>((main ? 1u : 0u) | (draft ? 2u : 0u));
    }
    for (std::uint32_t w = 0; w < workers_.size(); ++w) {
      worker_record& r = workers_[w];
      const bool main = r.main_files || (table_files_[w] & 1u) != 0;
      const bool draft = r.draft_files || (table_files_[w] & 2u) != 0;
      if (draft != r.draft_files)
        draft_ready_count_ = draft ? draft_ready_count_ + 1 : draft_ready_count_ - 1;
      r.main_files = main;
      r.draft_files = draft;
      worker_files_[w] = static_cast<std::uint8_t>((main ? 1u : 0u) | (draft ? 2u : 0u));
    }
    draft_any_ready_ = draft_ready_count_ > 0 || table_draft_ready_;
  }

  /// Counts a new instance into the index, as index() would have counted it: subtracts its
  /// RAM (main worker) and VRAM claims, counts it as cur/oth. When instances are recorded
  /// (index(..., true)) and it is of the indexed model, it is recorded too, at the position
  /// after every recorded one. Claims on workers or GPUs not in the index are ignored.
  /// Invalidates the last candidates and results.
  template <class I>
  requires Instance<I>
  void add_instance(const I& inst) {
    using IT = instance_traits<I>;
    if (recording_ && model_key_.matches(IT::model_id(inst))) {
      const std::uint64_t id = IT::id(inst);
      for (const instance_record& rec : instances_)
        if (rec.id == id)
          detail::fail("instances", id,
                       "is the id of a recorded instance of the model (instance_traits::id must "
                       "be unique)");
    }
    drop_candidates();
    apply_instance(inst, false);
    instance_parts_ = parts_.size();
    instance_claims_ = claims_.size();
  }

  /// Removes an instance counted by index() or add_instance(): gives its RAM/VRAM claims
  /// back and uncounts it (and drops its record when instances are recorded). Pass it as
  /// it was counted. Invalidates the last candidates and results.
  template <class I>
  requires Instance<I>
  void remove_instance(const I& inst) {
    drop_candidates();
    apply_instance(inst, true);
  }

  /// Re-reads one indexed worker (matched by id): state, RAM and VRAM totals/reserved,
  /// file readiness, and queues it for the filters at the next place_indexed (which
  /// otherwise reuses its cached verdict); claims and counts are kept. Call it whenever
  /// anything a filter or the index reads about the worker changed. Returns false, changing
  /// nothing, when the id is not indexed or its GPUs (count, indices or types) changed:
  /// index() again then.
  template <class W>
  requires Worker<W>
  bool update_worker(const W& w) {
    using WT = worker_traits<W>;
    const std::uint32_t pos = find_worker(static_cast<std::uint64_t>(WT::id(w)));
    if (pos == no_position) return false;
    worker_record& r = workers_[pos];
    {
      std::uint32_t g = r.gpu_begin;
      for (const auto& gpu : WT::gpus(w)) {
        using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
        if (g == r.gpu_begin + r.gpu_count || gpus_[g].index != GT::index(gpu) ||
            gpus_[g].type != find_type(GT::type(gpu)))
          return false;
        ++g;
      }
      if (g != r.gpu_begin + r.gpu_count) return false;
    }
    drop_candidates();
    const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
    std::uint32_t g = r.gpu_begin;
    for (const auto& gpu : WT::gpus(w)) {
      using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
      gpu_record& gr = gpus_[g];
      gr.total_bytes = GT::vram_total_bytes(gpu);
      const std::int64_t base = detail::counted_bytes(gr.total_bytes) -
                                detail::counted_bytes(GT::vram_reserved_bytes(gpu)) -
                                worker_reserved;
      const std::int64_t delta = base - vram_base_[g];  // both within ±2^54: exact
      add_gpu_alloc(g, delta);
      if (recording_) add_own_gpu_alloc(g, delta);
      vram_base_[g] = base;
      ++g;
    }
    r.ram_total_bytes = WT::ram_total_bytes(w);
    const std::int64_t base =
        detail::counted_bytes(r.ram_total_bytes) - detail::counted_bytes(WT::ram_reserved_bytes(w));
    const std::int64_t delta = base - ram_base_[pos];
    add_ram_alloc(pos, delta);
    if (recording_) add_own_ram_alloc(pos, delta);
    ram_base_[pos] = base;
    r.state = WT::state(w);
    r.main_files = (files_ != 0 && WT::files_ready(w, files_)) || (table_files_[pos] & 1u) != 0;
    const bool draft = (draft_ != 0 && WT::files_ready(w, draft_)) || (table_files_[pos] & 2u) != 0;
    if (draft != r.draft_files)
      draft_ready_count_ = draft ? draft_ready_count_ + 1 : draft_ready_count_ - 1;
    r.draft_files = draft;
    draft_any_ready_ = draft_ready_count_ > 0 || table_draft_ready_;
    update_twins(pos);
    mark_refilter(pos);
    return true;
  }

  /// true iff re-reading worker w (the caller's worker at position pos) would leave its
  /// record as it is: same id, state, RAM and VRAM totals and reservations (as counted),
  /// GPU indices and types, and file readiness. What update_worker would change, read
  /// without changing anything (stale_check).
  template <class W>
  requires Worker<W>
  [[nodiscard]] bool matches(const W& w, std::uint32_t pos) const noexcept {
    using WT = worker_traits<W>;
    const worker_record& r = workers_[pos];
    if (r.id != static_cast<std::uint64_t>(WT::id(w)) || r.state != WT::state(w) ||
        r.ram_total_bytes != WT::ram_total_bytes(w) ||
        ram_base_[pos] != detail::counted_bytes(r.ram_total_bytes) -
                              detail::counted_bytes(WT::ram_reserved_bytes(w)))
      return false;
    const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
    std::uint32_t g = r.gpu_begin;
    for (const auto& gpu : WT::gpus(w)) {
      using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
      if (g == r.gpu_begin + r.gpu_count) return false;
      const gpu_record& gr = gpus_[g];
      if (gr.index != GT::index(gpu) || gr.type != find_type(GT::type(gpu)) ||
          gr.total_bytes != GT::vram_total_bytes(gpu) ||
          vram_base_[g] != detail::counted_bytes(gr.total_bytes) -
                               detail::counted_bytes(GT::vram_reserved_bytes(gpu)) -
                               worker_reserved)
        return false;
      ++g;
    }
    if (g != r.gpu_begin + r.gpu_count) return false;
    const bool main = (files_ != 0 && WT::files_ready(w, files_)) || (table_files_[pos] & 1u) != 0;
    const bool draft = (draft_ != 0 && WT::files_ready(w, draft_)) || (table_files_[pos] & 2u) != 0;
    return main == r.main_files && draft == r.draft_files;
  }

  /// Forgets the cached filter verdicts: the next place_indexed runs the filter chain on
  /// every worker again. Call it when something the filters read changed without an
  /// update_worker of the worker concerned (the filter chain's own configuration, the
  /// model request in place, a backend or path predicate's outside state). index() does it.
  void refilter() noexcept {
    filter_key_ = {};
    refilter_.clear();
  }

  /// Commits a candidate as if it were now an instance of the indexed model: subtracts its
  /// claims and counts it, so that several placements can be chosen in a row. (The same as
  /// add_instance() of the placed instance: do one or the other, not both.)
  void commit(const candidate& c) {
    for (std::uint32_t p = 0; p < c.part_count; ++p) {
      const placement_part& part = parts_[c.part_begin + p];
      worker_record& w = workers_[part.worker];
      if (p == 0) {
        const std::int64_t ram = detail::counted_bytes(part.ram_bytes);
        add_ram_alloc(part.worker, -ram);
        if (recording_) add_own_ram_alloc(part.worker, -ram);
      }
      for (std::uint32_t k = 0; k < part.claim_count; ++k) {
        const claim_record& cl = claims_[part.claim_begin + k];
        const std::int64_t vram = detail::counted_bytes(cl.vram_bytes);
        add_gpu_alloc(cl.gpu, -vram);
        if (recording_) add_own_gpu_alloc(cl.gpu, -vram);
        ++gpus_[cl.gpu].cur;
      }
      w.cur += p == 0 ? std::max<std::uint32_t>(1, part.claim_count) : part.claim_count;
      if (c.part_count > 1) ++distributed_on_[part.worker];
      update_twins(part.worker);
    }
  }

  /// The view scorers read.
  [[nodiscard]] cluster_view view() const noexcept {
    return {workers_,         gpus_,      parts_,        claims_,        policy_,       has_draft_,
            draft_any_ready_, gpu_alloc_, worker_files_, own_gpu_alloc_, own_ram_alloc_};
  }
  /// The text of GPU type id t (gpu_record::type, worker_record::type); "" = untyped.
  [[nodiscard]] std::string_view type_name(std::uint16_t t) const noexcept {
    return t < type_count_ ? std::string_view(types_[t]) : std::string_view{};
  }
  /// true iff id is the identity of the model the workspace was indexed for.
  template <ModelId K>
  [[nodiscard]] bool indexed_for(const K& id) const noexcept {
    return model_key_.matches(id);
  }
  /// Indexed workers (same order as the caller's range).
  [[nodiscard]] std::span<const worker_record> workers() const noexcept { return workers_; }
  /// Indexed GPUs.
  [[nodiscard]] std::span<const gpu_record> gpus() const noexcept { return gpus_; }
  /// Candidates of the last fit.
  [[nodiscard]] std::span<const candidate> candidates() const noexcept { return candidates_; }
  /// Instances of the model recorded by index(..., true).
  [[nodiscard]] std::span<const instance_record> instances() const noexcept { return instances_; }
  /// Position of the worker with this id, or no_position.
  [[nodiscard]] std::uint32_t find_worker(std::uint64_t id) const noexcept {
    if (sorted_ids_) {
      auto it = std::lower_bound(workers_.begin(), workers_.end(), id,
                                 [](const worker_record& r, std::uint64_t v) { return r.id < v; });
      return it != workers_.end() && it->id == id
                 ? static_cast<std::uint32_t>(it - workers_.begin())
                 : no_position;
    }
    auto it = std::lower_bound(id_index_.begin(), id_index_.end(), std::pair{id, std::uint32_t{0}});
    return it != id_index_.end() && it->first == id ? it->second : no_position;
  }
  /// Position of GPU `index` of worker w, or no_position.
  [[nodiscard]] std::uint32_t find_gpu(std::uint32_t w, std::uint32_t index) const noexcept {
    const worker_record& r = workers_[w];
    for (std::uint32_t g = r.gpu_begin; g < r.gpu_begin + r.gpu_count; ++g)
      if (gpus_[g].index == index) return g;
    return no_position;
  }
  /// Marks which workers passed the filters (the scheduler calls this).
  void set_eligible(std::uint32_t w, bool eligible) noexcept {
    // Written only on change: a warm index keeps its worker records clean (no write-back).
    if (workers_[w].eligible != eligible) workers_[w].eligible = eligible;
  }

  /// Identifies the filter chain and model whose verdicts the eligible flags hold (the
  /// scheduler's filter-verdict cache; see place_indexed).
  struct filter_key {
    const void* filters = nullptr;  ///< the chain object
    const void* model = nullptr;    ///< the model request object
    const void* types = nullptr;    ///< a tag unique to the (chain, model) types
    [[nodiscard]] friend constexpr bool operator==(const filter_key&, const filter_key&) = default;
  };
  /// true iff the eligible flags hold the verdicts of key for every worker except those
  /// listed by refilter_positions() (the scheduler calls this).
  [[nodiscard]] bool verdicts_cached(const filter_key& key) const noexcept {
    return key.filters != nullptr && key == filter_key_;
  }
  /// Workers updated since the verdicts were cached (may repeat a position).
  [[nodiscard]] std::span<const std::uint32_t> refilter_positions() const noexcept {
    return refilter_;
  }
  /// Records that the eligible flags now hold key's verdicts for every worker, of which
  /// filtered_out rejected (the scheduler calls this after running the filters).
  void cache_verdicts(const filter_key& key, std::uint32_t filtered_out) {
    refilter_.clear();
    refilter_.reserve(64 + workers_.size() / 8);  // the bound of mark_refilter: no growth later
    filter_key_ = key;
    filtered_out_ = filtered_out;
  }
  /// Workers rejected by the cached verdicts.
  [[nodiscard]] std::uint32_t filtered_out() const noexcept { return filtered_out_; }

  /// Lists the candidates for estimator e over the eligible workers, as options.listing
  /// says (grouped: headroom's ladder; gpustack: GPUStack's selector, which needs a
  /// GpustackEstimator, else invalid_argument); returns the strategy that produced them
  /// (none when none did).
  template <Estimator E>
  fit_strategy fit(const E& e, const fit_options& options = {}) {
    if (options.listing == candidate_listing::gpustack) {
      if constexpr (GpustackEstimator<E>)
        return fit_gpustack(e);
      else
        detail::fail("options.listing", std::string_view("gpustack"),
                     "needs a GpustackEstimator such as vllm_estimator");
    }
    return fit_grouped(e, options);
  }

  /// Replaces the candidates with placements the caller lists (scored and picked by
  /// score_candidates / pick_candidate, scheduler.hpp), in the caller's order. Each is read
  /// through placement_traits: a main worker id, its GPU claims and RAM claim, and
  /// subordinates. Throws invalid_argument naming "placements" for a worker id or a GPU
  /// index that is not indexed.
  template <std::ranges::input_range Placements>
  requires Placement<std::ranges::range_value_t<Placements>>
  void set_candidates(const Placements& placements) {
    using PT = placement_traits<std::ranges::range_value_t<Placements>>;
    drop_candidates();
    std::uint64_t item = 0;
    for (const auto& p : placements) {
      const auto begin = static_cast<std::uint32_t>(parts_.size());
      given_part(PT::worker_id(p), PT::gpus(p), PT::ram_bytes(p), item);
      for (const auto& sub : PT::subordinates(p)) {
        using ST = subordinate_traits<std::remove_cvref_t<decltype(sub)>>;
        given_part(ST::worker_id(sub), ST::gpus(sub), ST::ram_bytes(sub), item);
      }
      candidates_.push_back({begin, static_cast<std::uint32_t>(parts_.size()) - begin,
                             fit_strategy::given, false, 0, 0});
      ++item;
    }
  }

 private:
  template <class Claims>
  void given_part(std::uint64_t worker_id, const Claims& claims, std::uint64_t ram,
                  std::uint64_t item) {
    const std::uint32_t w = find_worker(worker_id);
    if (w == no_position) detail::fail("placements", item, "names a worker that is not indexed");
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), 0, ram};
    for (const auto& cl : claims) {
      using CT = claim_traits<std::remove_cvref_t<decltype(cl)>>;
      const std::uint32_t g = find_gpu(w, CT::index(cl));
      if (g == no_position)
        detail::fail("placements", item, "claims a GPU index its worker does not have");
      claims_.push_back({g, CT::index(cl), CT::vram_bytes(cl)});
    }
    part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
    parts_.push_back(part);
  }
  // headroom's ladder (candidate_listing::grouped).
  template <Estimator E>
  fit_strategy fit_grouped(const E& e, const fit_options& options) {
    drop_candidates();
    const backend_capabilities caps = e.capabilities();
    const std::uint64_t ram_need = e.ram_bytes();
    auto ram_ok = [&](const worker_record& w) {
      return ram_need == 0 || detail::holds_bytes(w.ram_alloc_bytes, ram_need);
    };
    // 1. single worker, single GPU. GPUs indistinguishable from an earlier one of their
    //    worker (twins) would never win (equivalent_to_earlier), so without an explicit
    //    selection only each worker's distinct GPUs are read and their claims computed
    //    (the estimator is a pure function). Picks first, then the buffers are sized once.
    {
      // Sized for every GPU (free after the first decision: logical sizes), written in
      // place, then trimmed to the n candidates found.
      const std::size_t p0 = parts_.size(), c0 = claims_.size();
      parts_.resize(p0 + gpus_.size());
      claims_.resize(c0 + gpus_.size());
      candidates_.resize(gpus_.size());
      placement_part* const part = parts_.data() + p0;
      claim_record* const claim = claims_.data() + c0;
      candidate* const cand = candidates_.data();
      std::uint32_t n = 0;
      const auto emit = [&](std::uint32_t g, std::uint32_t index, std::uint32_t w,
                            std::uint64_t c) {
        claim[n] = {g, index, c};
        part[n] = {w, static_cast<std::uint32_t>(c0 + n), 1, ram_need};
        cand[n] = {static_cast<std::uint32_t>(p0 + n), 1, fit_strategy::single_gpu, false, 0, 0};
        ++n;
      };
      if (!has_selection_) {
        const auto nw = static_cast<std::uint32_t>(workers_.size());
        for (std::uint32_t w = 0; w < nw; ++w) {
          const worker_record& wr = workers_[w];
          if (!wr.eligible || !ram_ok(wr)) continue;
          const distinct_span sp = distinct_of_[w];
          const distinct_gpu* const d = distinct_.data() + sp.begin;
          for (std::uint32_t k = 0; k < sp.count; ++k) {
            const std::uint64_t c = e.gpu_claim_bytes(d[k].total_bytes, d[k].alloc_bytes);
            if (c != 0 && e.fits(c, 1)) emit(d[k].gpu, d[k].index, w, c);
          }
        }
      } else {
        compute_claims(e);
        for (std::uint32_t w = 0; w < workers_.size(); ++w) {
          const worker_record& wr = workers_[w];
          if (!wr.eligible || !ram_ok(wr)) continue;
          for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
            const std::uint64_t c = gpu_claims_[g];
            if (c != 0 && e.fits(c, 1) && !equivalent_to_earlier(g)) emit(g, gpus_[g].index, w, c);
          }
        }
      }
      parts_.resize(p0 + n);
      claims_.resize(c0 + n);
      candidates_.resize(n);
    }
    if (!candidates_.empty()) return fit_strategy::single_gpu;
    if (!has_selection_) compute_claims(e);
    // 2. single worker, several GPUs: the smallest valid count of its largest claims
    if (caps.multi_gpu) {
      for (std::uint32_t w = 0; w < workers_.size(); ++w) {
        const worker_record& wr = workers_[w];
        if (!wr.eligible || !ram_ok(wr) || wr.gpu_count < 2) continue;
        const std::uint32_t k = sorted_eligible(wr);
        std::uint64_t sum = 0;
        for (std::uint32_t n = 1; n <= k; ++n) {
          sum = detail::sat_add(sum, gpu_claims_[order_[n - 1]]);
          if (n >= 2 && e.fits(sum, n)) {
            const auto begin = static_cast<std::uint32_t>(parts_.size());
            push_sorted_part(w, ram_need, n);
            candidates_.push_back({begin, 1, fit_strategy::multi_gpu, false, 0, 0});
            break;
          }
        }
      }
      if (!candidates_.empty()) return fit_strategy::multi_gpu;
    }
    // 3. across workers: each worker as main with all its eligible GPUs, subordinates
    //    added greedily by largest eligible claim sum (then lowest id).
    if (caps.distributed && options.max_subordinates > 0) {
      worker_sums_.clear();
      for (std::uint32_t w = 0; w < workers_.size(); ++w) {
        const worker_record& wr = workers_[w];
        if (!wr.eligible) continue;
        std::uint64_t sum = 0;
        std::uint32_t n = 0;
        for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
          if (gpu_claims_[g] != 0) sum = detail::sat_add(sum, gpu_claims_[g]), ++n;
        if (n > 0) worker_sums_.push_back({sum, n, w});
      }
      std::sort(worker_sums_.begin(), worker_sums_.end(), [&](const auto& a, const auto& b) {
        return a.sum != b.sum ? a.sum > b.sum : workers_[a.worker].id < workers_[b.worker].id;
      });
      for (const auto& main : worker_sums_) {
        if (!ram_ok(workers_[main.worker])) continue;
        std::uint64_t sum = main.sum;
        std::uint32_t n = main.count, subs = 0;
        subs_.clear();
        bool ok = false;
        for (const auto& s : worker_sums_) {
          if (s.worker == main.worker) continue;
          subs_.push_back(s.worker);
          sum = detail::sat_add(sum, s.sum);
          n += s.count;
          ++subs;
          if (e.fits(sum, n)) {
            ok = true;
            break;
          }
          if (subs >= options.max_subordinates) break;
        }
        if (!ok) continue;
        const auto begin = static_cast<std::uint32_t>(parts_.size());
        push_all_eligible(main.worker, ram_need);
        for (std::uint32_t sw : subs_) push_all_eligible(sw, 0);
        candidates_.push_back({begin, static_cast<std::uint32_t>(1 + subs_.size()),
                               fit_strategy::distributed, false, 0, 0});
      }
      if (!candidates_.empty()) return fit_strategy::distributed;
    }
    // 4. partial offload on one GPU, else CPU only
    if constexpr (requires(std::uint64_t t, std::int64_t a) {
                    { e.offload(t, a, a) } -> std::convertible_to<std::optional<offload_fit>>;
                  }) {
      if (caps.partial_offload) {
        for (std::uint32_t w = 0; w < workers_.size(); ++w) {
          const worker_record& wr = workers_[w];
          if (!wr.eligible) continue;
          for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
            if (has_selection_ && !gpus_[g].selected) continue;
            const std::optional<offload_fit> f =
                e.offload(gpus_[g].total_bytes, gpus_[g].alloc_bytes, wr.ram_alloc_bytes);
            if (!f) continue;
            const auto begin = static_cast<std::uint32_t>(parts_.size());
            push_part(w, f->ram_bytes, &g, &f->vram_bytes, 1);
            candidates_.push_back(
                {begin, 1, fit_strategy::partial_offload, false, f->layers, f->total_layers});
          }
        }
        if (!candidates_.empty()) return fit_strategy::partial_offload;
      }
    }
    if constexpr (requires {
                    { e.cpu_ram_bytes() } -> std::convertible_to<std::uint64_t>;
                  }) {
      if (caps.cpu_only && !has_selection_) {
        const std::uint64_t need = e.cpu_ram_bytes();
        for (std::uint32_t w = 0; w < workers_.size(); ++w) {
          const worker_record& wr = workers_[w];
          if (!wr.eligible || !detail::holds_bytes(wr.ram_alloc_bytes, need)) continue;
          const auto begin = static_cast<std::uint32_t>(parts_.size());
          push_part(w, need, nullptr, nullptr, 0);
          candidates_.push_back({begin, 1, fit_strategy::cpu_only, false, 0, 0});
        }
        if (!candidates_.empty()) return fit_strategy::cpu_only;
      }
    }
    return fit_strategy::none;
  }

  // GPUStack's listing (candidate_listing::gpustack), scheduler/gpustack_fit.hpp: the
  // selector's stages in its order, each its own function.
  template <class E>
  fit_strategy fit_gpustack(const E& e);
  template <class E>
  void gpustack_manual(const E& e, std::uint32_t gpu_count);
  template <class E>
  void gpustack_single_gpu(const E& e);
  template <class E>
  void gpustack_multi_gpu(const E& e, std::uint32_t gpu_count);
  template <class E>
  void gpustack_multi_worker(const E& e, std::uint32_t gpu_count);
  template <class E>
  void gpustack_overcommit(const E& e);
  void gpustack_type_order(bool every_gpu_type);
  [[nodiscard]] std::int64_t gpustack_gpu_alloc(std::uint32_t g) const noexcept;
  [[nodiscard]] std::int64_t gpustack_ram_alloc(std::uint32_t w) const noexcept;
  template <class E>
  void gpustack_push(std::uint32_t w, const std::uint32_t* gpu, std::uint32_t n, const E& e,
                     std::uint64_t static_ram);

 public:
  /// true iff worker w takes part in some candidate of the last fit.
  [[nodiscard]] bool in_some_candidate(std::uint32_t w) const noexcept {
    for (const candidate& c : candidates_)
      for (std::uint32_t p = 0; p < c.part_count; ++p)
        if (parts_[c.part_begin + p].worker == w) return true;
    return false;
  }

 private:
  struct worker_sum {
    std::uint64_t sum;
    std::uint32_t count;
    std::uint32_t worker;
  };

  // Leaves the workspace empty, as constructed, and throws invalid_argument (a half-built
  // index is never used).
  // (value by copy: a reference could name an element of the buffers the reset frees)
  [[noreturn]] void refuse(const char* parameter, std::uint64_t value, std::string_view rule) {
    *this = workspace{};
    detail::fail(parameter, value, rule);
  }
  // Recorded instances are told apart by id (remove_instance, the ranking): two with one id
  // are refused. Ids in increasing order (the common case) are checked without sorting.
  void refuse_duplicate_records() {
    bool increasing = true;
    for (std::size_t k = 1; k < instances_.size() && increasing; ++k)
      increasing = instances_[k - 1].id < instances_[k].id;
    if (increasing) return;
    recorded_ids_.clear();
    for (const instance_record& rec : instances_) recorded_ids_.push_back(rec.id);
    std::sort(recorded_ids_.begin(), recorded_ids_.end());
    const auto twin = std::adjacent_find(recorded_ids_.begin(), recorded_ids_.end());
    if (twin != recorded_ids_.end())
      refuse("instances", *twin,
             "is the id of two instances of the model (instance_traits::id must be unique)");
  }
  [[noreturn]] void refuse_duplicate_gpu(std::uint64_t worker_id, std::uint32_t index) {
    refuse("workers", worker_id,
           "lists GPU index " + std::to_string(index) +
               " twice (gpu_traits::index must name one GPU of a worker)");
  }
  [[noreturn]] void refuse_duplicate_worker(std::uint64_t id) {
    refuse("workers", id,
           "is the id of two workers (worker_traits::id must name one worker: instances and "
           "results name workers by it)");
  }
  // true iff GPU index i was seen among the GPUs indexed from position first on (the
  // worker being indexed); records it in low (indices below 64) on the way.
  [[nodiscard]] bool index_seen(std::uint32_t first, std::uint32_t i, std::uint64_t& low) const {
    if (i < 64) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      const bool seen = (low & bit) != 0;
      low |= bit;
      return seen;
    }
    for (std::size_t g = first; g < gpus_.size(); ++g)
      if (gpus_[g].index == i) return true;
    return false;
  }
  // GPU types: id 0 = untyped, 1.. = distinct texts in order of first appearance; an
  // instance's type that no GPU has reads as unknown_type (equal to no GPU's type).
  static constexpr std::uint16_t unknown_type = 0xFFFF;
  std::uint16_t intern_type(std::string_view t) {
    if (t.empty()) return 0;
    for (std::uint16_t k = 1; k < type_count_; ++k)
      if (types_[k] == t) return k;
    if (type_count_ == unknown_type)
      detail::fail("gpu types", std::size_t{type_count_}, "too many");
    if (types_.size() <= type_count_) types_.resize(type_count_ + std::size_t{1});
    types_[type_count_].assign(t);
    return type_count_++;
  }
  [[nodiscard]] std::uint16_t find_type(std::string_view t) const noexcept {
    if (t.empty()) return 0;
    for (std::uint16_t k = 1; k < type_count_; ++k)
      if (types_[k] == t) return k;
    return unknown_type;
  }
  // The type GPUStack sees a worker with: policies/utils.py::group_workers_by_gpu_type
  // gives each type's copy of the worker the shared (shallow-copied) status, so every copy
  // ends with the GPUs of the type that appears last for the first time among its GPUs.
  [[nodiscard]] std::uint16_t effective_type(const worker_record& r) const noexcept {
    std::uint16_t t = 0;
    for (std::uint32_t g = r.gpu_begin; g < r.gpu_begin + r.gpu_count; ++g) {
      bool first = true;
      for (std::uint32_t h = r.gpu_begin; h < g; ++h)
        if (gpus_[h].type == gpus_[g].type) {
          first = false;
          break;
        }
      if (first) t = gpus_[g].type;
    }
    return t;
  }
  // gpu_claims_: per-GPU claim of a full placement (0 = ineligible), in one pass.
  template <class E>
  void compute_claims(const E& e) {
    gpu_claims_.resize(gpus_.size());
    std::uint64_t* const claim = gpu_claims_.data();
    for (const worker_record& wr : workers_) {
      const std::uint32_t end = wr.gpu_begin + wr.gpu_count;
      if (!wr.eligible) {
        std::fill(claim + wr.gpu_begin, claim + end, std::uint64_t{0});
        continue;
      }
      for (std::uint32_t g = wr.gpu_begin; g < end; ++g) {
        const gpu_record& r = gpus_[g];
        claim[g] =
            has_selection_ && !r.selected ? 0 : e.gpu_claim_bytes(r.total_bytes, r.alloc_bytes);
      }
    }
  }
  // Empties the candidates of the last fit and their parts/claims.
  void drop_candidates() {
    candidates_.clear();
    parts_.resize(instance_parts_);
    claims_.resize(instance_claims_);
  }
  // twins_[g] for the GPUs of worker w: the first earlier GPU of w with the same totals,
  // allocatable VRAM and counts and a lower index, or no_position. Also refreshes w's
  // entries of the dense copies gpu_alloc_ and worker_files_ (every change to a worker or
  // its GPUs ends here).
  void update_twins(std::uint32_t w) noexcept {
    const worker_record& wr = workers_[w];
    const std::uint32_t end = wr.gpu_begin + wr.gpu_count;
    worker_files_[w] =
        static_cast<std::uint8_t>((wr.main_files ? 1u : 0u) | (wr.draft_files ? 2u : 0u));
    std::uint32_t k = 0;
    for (std::uint32_t g = wr.gpu_begin; g < end; ++g) {
      const gpu_record& r = gpus_[g];
      gpu_alloc_[g] = r.alloc_bytes;
      std::uint32_t t = no_position;
      for (std::uint32_t h = wr.gpu_begin; h < g; ++h) {
        const gpu_record& o = gpus_[h];
        if (o.alloc_bytes == r.alloc_bytes && o.total_bytes == r.total_bytes && o.cur == r.cur &&
            o.oth == r.oth && o.index < r.index) {
          t = h;
          break;
        }
      }
      twins_[g] = t;
      if (t == no_position) ++k;
    }
    // w's distinct GPUs, packed: in place when they fit its slots, else in new slots at
    // the end (re-packing every worker when the holes left behind grow too many).
    if (k > distinct_of_[w].cap) {
      if (distinct_.size() + k > 2 * gpus_.size() + 64) pack_distinct();
      distinct_of_[w].begin = static_cast<std::uint32_t>(distinct_.size());
      distinct_of_[w].cap = k;
      distinct_.resize(distinct_.size() + k);
    }
    distinct_span& sp = distinct_of_[w];
    sp.count = k;
    distinct_gpu* d = distinct_.data() + sp.begin;
    for (std::uint32_t g = wr.gpu_begin; g < end; ++g)
      if (twins_[g] == no_position)
        *d++ = {g, gpus_[g].index, gpus_[g].total_bytes, gpus_[g].alloc_bytes};
  }
  // Packs every worker's distinct GPUs densely again, in worker order.
  void pack_distinct() {
    packed_.clear();
    for (distinct_span& sp : distinct_of_) {
      const auto begin = static_cast<std::uint32_t>(packed_.size());
      packed_.insert(packed_.end(), distinct_.begin() + sp.begin,
                     distinct_.begin() + sp.begin + sp.count);
      sp = {begin, sp.count, sp.count};
    }
    distinct_.swap(packed_);
  }
  // Queues worker pos for the filters at the next decision (or forgets every verdict when
  // many are queued: re-running them all is then as cheap, and the queue stays bounded).
  void mark_refilter(std::uint32_t pos) {
    if (filter_key_.filters == nullptr) return;
    if (refilter_.size() >= 64 + workers_.size() / 8)
      refilter();
    else
      refilter_.push_back(pos);
  }
  // Drops the record of instance id and its parts and claims (so that adding and removing
  // instances does not grow the buffers); later records and parts are renumbered.
  void forget_record(std::uint64_t id) {
    auto it = std::find_if(instances_.begin(), instances_.end(),
                           [&](const instance_record& r) { return r.id == id; });
    if (it == instances_.end()) return;
    const std::uint32_t pb = it->part_begin, pc = it->part_count;
    instances_.erase(it);
    if (pc == 0) return;
    const std::uint32_t cb = parts_[pb].claim_begin;
    std::uint32_t cc = 0;
    for (std::uint32_t p = pb; p < pb + pc; ++p) cc += parts_[p].claim_count;
    parts_.erase(parts_.begin() + pb, parts_.begin() + pb + pc);
    claims_.erase(claims_.begin() + cb, claims_.begin() + cb + cc);
    for (std::size_t p = pb; p < parts_.size(); ++p) parts_[p].claim_begin -= cc;
    for (instance_record& r : instances_)
      if (r.part_begin > pb) r.part_begin -= pc;
    instance_parts_ -= pc;
    instance_claims_ -= cc;
  }
  // Counts (or, with remove, uncounts) one instance; records it when recording and mine.
  template <class I>
  void apply_instance(const I& inst, bool remove) {
    using IT = instance_traits<I>;
    const bool mine = model_key_.matches(IT::model_id(inst));
    const std::optional<std::uint64_t> wid = IT::worker_id(inst);
    const std::uint32_t w = wid ? find_worker(*wid) : no_position;
    const bool keep = recording_ && mine && !remove;
    instance_record rec;
    if (keep) {
      rec.position = next_position_;
      rec.id = IT::id(inst);
      rec.state = IT::state(inst);
      rec.scheduled = wid.has_value();
      const std::optional<std::uint32_t> total = IT::total_layers(inst);
      const std::optional<std::uint32_t> offload = IT::offload_layers(inst);
      rec.has_layers = total.has_value() && offload.has_value();
      rec.total_layers = total.value_or(0);
      rec.offload_layers = offload.value_or(0);
      rec.part_begin = static_cast<std::uint32_t>(parts_.size());
    }
    if (remove && recording_ && mine) forget_record(IT::id(inst));
    if (!remove) ++next_position_;
    const std::uint16_t type = find_type(IT::gpu_type(inst));
    const auto& subordinates = IT::subordinates(inst);
    const bool distributed = std::ranges::begin(subordinates) != std::ranges::end(subordinates);
    if (w != no_position) {
      const std::int64_t ram = detail::counted_bytes(IT::ram_bytes(inst));
      add_ram_alloc(w, remove ? ram : -ram);
      if (recording_ && mine) add_own_ram_alloc(w, remove ? ram : -ram);
      // GPUStack's fit counts a main instance's RAM on a worker of another GPU type not at
      // all (policies/utils.py::compute_worker_allocated): kept aside, added back there.
      const std::uint16_t wt = workers_[w].type;
      if (wt != 0 && type != 0 && type != wt)
        excluded_ram_exact_.add(excluded_ram_[w], w, remove ? -ram : ram);
      if (distributed)
        distributed_on_[w] = remove ? distributed_on_[w] - 1 : distributed_on_[w] + 1;
      add_part(w, IT::gpus(inst), IT::ram_bytes(inst), mine, keep, type, true, remove);
      for (const auto& sub : IT::subordinates(inst)) {
        using ST = subordinate_traits<std::remove_cvref_t<decltype(sub)>>;
        const std::uint32_t sw = find_worker(ST::worker_id(sub));
        if (sw == no_position) continue;
        distributed_on_[sw] = remove ? distributed_on_[sw] - 1 : distributed_on_[sw] + 1;
        add_part(sw, ST::gpus(sub), ST::ram_bytes(sub), mine, keep, type, false, remove);
      }
    }
    if (keep) {
      rec.part_count = static_cast<std::uint32_t>(parts_.size()) - rec.part_begin;
      instances_.push_back(rec);
    }
  }
  template <class Claims>
  void add_part(std::uint32_t w, const Claims& gpu_claims, std::uint64_t ram, bool mine, bool keep,
                std::uint16_t type, bool main, bool remove) {
    placement_part part;
    part.worker = w;
    part.ram_bytes = ram;
    part.claim_begin = static_cast<std::uint32_t>(claims_.size());
    std::uint32_t n = 0;
    const bool own = recording_ && mine;
    for (const auto& cl : gpu_claims) {
      using CT = claim_traits<std::remove_cvref_t<decltype(cl)>>;
      const std::uint32_t index = CT::index(cl);
      const std::uint32_t g = find_gpu(w, index);
      ++n;
      if (g == no_position) continue;
      const std::uint64_t claimed = CT::vram_bytes(cl);
      const std::int64_t vram = detail::counted_bytes(claimed);
      std::uint32_t& counter = mine ? gpus_[g].cur : gpus_[g].oth;
      // GPUStack's fit counts a claim on a GPU of another type only from a main instance
      // of unknown type (compute_worker_allocated): the others are kept aside.
      const std::uint16_t gt = gpus_[g].type;
      const bool excluded = gt != 0 && type != gt && (!main || type != 0);
      const std::int64_t given = remove ? vram : -vram;  // back to the GPU, or taken
      add_gpu_alloc(g, given);
      if (own) add_own_gpu_alloc(g, given);
      if (excluded) excluded_vram_exact_.add(excluded_vram_[g], g, -given);
      counter = remove ? counter - 1 : counter + 1;
      if (keep) claims_.push_back({g, index, claimed});
    }
    // Once per GPU occupied; a CPU instance once on its main worker.
    const std::uint32_t count = main ? std::max<std::uint32_t>(1, n) : n;
    std::uint32_t& counter = mine ? workers_[w].cur : workers_[w].oth;
    counter = remove ? counter - count : counter + count;
    if (keep) {
      part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
      parts_.push_back(part);
    }
    if (!indexing_) update_twins(w);
  }
  // Adds amount (negative: takes) to the allocatable VRAM of GPU g, RAM of worker w, or
  // their views counting the model's own instances only; the records hold the sums read
  // saturated.
  void add_gpu_alloc(std::uint32_t g, std::int64_t amount) {
    vram_exact_.add(gpus_[g].alloc_bytes, g, amount);
  }
  void add_ram_alloc(std::uint32_t w, std::int64_t amount) {
    ram_exact_.add(workers_[w].ram_alloc_bytes, w, amount);
  }
  void add_own_gpu_alloc(std::uint32_t g, std::int64_t amount) {
    own_vram_exact_.add(own_gpu_alloc_[g], g, amount);
  }
  void add_own_ram_alloc(std::uint32_t w, std::int64_t amount) {
    own_ram_exact_.add(own_ram_alloc_[w], w, amount);
  }
  void push_part(std::uint32_t w, std::uint64_t ram, const std::uint32_t* g,
                 const std::uint64_t* vram, std::uint32_t n) {
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), n, ram};
    for (std::uint32_t k = 0; k < n; ++k) claims_.push_back({g[k], gpus_[g[k]].index, vram[k]});
    parts_.push_back(part);
  }
  // true iff an earlier GPU of the same worker has the same claim, totals and counts: every
  // scorer gives both the same score and the tie-break prefers the lower index, so the
  // later one would never win and is not emitted as a candidate.
  [[nodiscard]] bool equivalent_to_earlier(std::uint32_t g) const noexcept {
    // Fast path: twins_[g] is an earlier GPU with the same totals and counts and a lower
    // index (kept current by every update). Without an explicit selection and with the
    // same claim, it is exactly the GPU the scan below would find; otherwise scan.
    const std::uint32_t t = twins_[g];
    if (t == no_position) return false;
    if (!has_selection_ && gpu_claims_[t] == gpu_claims_[g]) return true;
    const gpu_record& r = gpus_[g];
    for (std::uint32_t h = workers_[r.worker].gpu_begin; h < g; ++h) {
      const gpu_record& o = gpus_[h];
      if (gpu_claims_[h] == gpu_claims_[g] && o.alloc_bytes == r.alloc_bytes &&
          o.total_bytes == r.total_bytes && o.cur == r.cur && o.oth == r.oth && o.index < r.index)
        return true;
    }
    return false;
  }
  // Sorts the eligible GPUs of wr by claim (largest first, then lowest index) into order_.
  std::uint32_t sorted_eligible(const worker_record& wr) {
    order_.clear();
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      if (gpu_claims_[g] != 0) order_.push_back(g);
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return gpu_claims_[a] != gpu_claims_[b] ? gpu_claims_[a] > gpu_claims_[b]
                                              : gpus_[a].index < gpus_[b].index;
    });
    return static_cast<std::uint32_t>(order_.size());
  }
  void push_sorted_part(std::uint32_t w, std::uint64_t ram, std::uint32_t n) {
    // Claims in GPU-index order for a readable placement.
    std::sort(order_.begin(), order_.begin() + n,
              [&](std::uint32_t a, std::uint32_t b) { return gpus_[a].index < gpus_[b].index; });
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), n, ram};
    for (std::uint32_t k = 0; k < n; ++k)
      claims_.push_back({order_[k], gpus_[order_[k]].index, gpu_claims_[order_[k]]});
    parts_.push_back(part);
  }
  void push_all_eligible(std::uint32_t w, std::uint64_t ram) {
    const worker_record& wr = workers_[w];
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), 0, ram};
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      if (gpu_claims_[g] != 0) claims_.push_back({g, gpus_[g].index, gpu_claims_[g]});
    part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
    parts_.push_back(part);
  }

  std::vector<worker_record> workers_;
  std::vector<gpu_record> gpus_;
  detail::buffer<placement_part> parts_;
  detail::buffer<claim_record> claims_;
  std::vector<instance_record> instances_;
  detail::buffer<candidate> candidates_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> id_index_;
  std::vector<std::uint64_t> recorded_ids_;  // scratch of index(): the recorded ids, sorted
  std::vector<std::uint64_t> gpu_claims_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> subs_;
  std::vector<worker_sum> worker_sums_;
  // A GPU that is no twin, with the two numbers stage 1 of the fit reads: for worker w,
  // distinct_[b, b + count) lists them, b and count from distinct_of_[w] (cap: the slots
  // w owns there). Packed in worker order by index(), so stage 1 streams them.
  struct distinct_gpu {
    std::uint32_t gpu, index;
    std::uint64_t total_bytes;
    std::int64_t alloc_bytes;
  };
  struct distinct_span {
    std::uint32_t begin = 0, count = 0, cap = 0;
  };
  std::vector<distinct_gpu> distinct_, packed_;
  std::vector<distinct_span> distinct_of_;
  std::vector<std::uint32_t> twins_;
  std::vector<std::int64_t> gpu_alloc_;     // gpus_[g].alloc_bytes, dense (cluster_view)
  std::vector<std::uint8_t> worker_files_;  // main_files | draft_files << 1 (cluster_view)
  // The filter-verdict cache: whose verdicts the eligible flags hold, how many rejected,
  // and the workers updated since.
  filter_key filter_key_{};
  std::uint32_t filtered_out_ = 0;
  std::vector<std::uint32_t> refilter_;
  std::vector<std::int64_t> ram_base_, vram_base_;  // total − reserved, for update_worker
  std::size_t instance_parts_ = 0, instance_claims_ = 0, next_position_ = 0;
  detail::model_key model_key_;
  std::uint64_t files_ = 0, draft_ = 0;
  std::uint32_t draft_ready_count_ = 0, gpus_per_replica_ = 0, replicas_ = 1;
  placement_policy policy_ = placement_policy::binpack;
  bool has_draft_ = false, draft_any_ready_ = false, sorted_ids_ = true, has_selection_ = false;
  bool recording_ = false, indexing_ = false, table_draft_ready_ = false;
  // GPU type texts (index = type id) and how many are in use.
  std::vector<std::string> types_{std::string()};
  std::uint16_t type_count_ = 1;
  // Per GPU / per worker: claims GPUStack's fit does not count against the GPU's or the
  // worker's own type (instances of another type); added back by the gpustack listing.
  std::vector<std::int64_t> excluded_vram_, excluded_ram_;
  // Allocatable amounts counting the model's own instances only (recording index).
  std::vector<std::int64_t> own_gpu_alloc_, own_ram_alloc_;
  // The exact values of the amounts above (and of the records' alloc_bytes and
  // ram_alloc_bytes) beyond the int64 range.
  detail::saturating_amounts vram_exact_, ram_exact_, own_vram_exact_, own_ram_exact_,
      excluded_vram_exact_, excluded_ram_exact_;
  // Per worker: distributed instances (with subordinates) it takes part in.
  std::vector<std::uint32_t> distributed_on_;
  // Per worker: files READY by the table of index_files (main | draft << 1).
  std::vector<std::uint8_t> table_files_;
  // The explicit GPU selection in the caller's order: GPU positions, no_position = missing.
  std::vector<std::uint32_t> selection_;
  // Scratch of the gpustack listing.
  std::vector<std::uint16_t> type_order_;
  std::vector<std::uint8_t> type_seen_;
  std::vector<std::uint32_t> gs_workers_, gs_gpus_, gs_used_;
  std::vector<std::uint64_t> gs_claims_;

 public:
  /// Column buffers the chains use for per-scorer scores and totals (grown, never shrunk).
  std::vector<double> column, totals;
  /// The scale-down ranking of the last rank_for_removal.
  std::vector<ranked_instance> ranked;
};

}  // namespace v0
}  // namespace headroom

#include "gpustack_fit.hpp"  // the gpustack listing's member definitions

#endif  // HEADROOM_HAS_CXX20

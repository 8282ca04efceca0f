// SPDX-License-Identifier: Apache-2.0
// Scheduler step 2: resource fit. The workspace indexes the caller's workers and instances
// (through the traits) into flat records: allocatable VRAM per GPU and RAM per worker
// (total − reserved − claims of existing instances; RAM on the main worker only), instance
// counts per worker/GPU, file readiness. The fit ladder then tries, in order, single worker
// single GPU → single worker several GPUs → across workers (main + subordinates) → partial
// offload, else CPU only, and stops at the first strategy that yields candidates.
// Requirements come from an estimator: vllm_estimator and layered_estimator are provided.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "traits.hpp"

namespace headroom {
inline namespace v0 {

/// One GiB in bytes.
inline constexpr std::uint64_t gib_bytes = std::uint64_t{1} << 30;

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
  bool ready = false;                 ///< worker_traits::ready
  bool main_files = false;            ///< the model's files are READY here
  bool draft_files = false;           ///< the draft model's files are READY here
  bool eligible = false;              ///< passed the filter chain (set by the scheduler)
};

/// A GPU as indexed by the workspace.
struct gpu_record {
  std::uint32_t index = 0;        ///< gpu_traits::index
  std::uint32_t worker = 0;       ///< position of its worker
  std::uint64_t total_bytes = 0;  ///< total VRAM
  std::int64_t alloc_bytes = 0;   ///< total − reserved − Σ VRAM claims (may be < 0)
  std::uint32_t cur = 0;          ///< instances of the model on this GPU
  std::uint32_t oth = 0;          ///< instances of other models on this GPU
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
  std::uint64_t ram_bytes = 0;    ///< RAM claimed (main worker only)
};

/// How a placement was found.
enum class fit_strategy : std::uint8_t {
  none,             ///< no placement
  single_gpu,       ///< one worker, one GPU
  multi_gpu,        ///< one worker, several GPUs
  distributed,      ///< a main worker and subordinate workers
  partial_offload,  ///< some layers on one GPU, the rest in RAM
  cpu_only          ///< RAM only
};

/// A candidate placement (scale up): parts live in the workspace.
struct candidate {
  std::uint32_t part_begin = 0;                ///< first part in workspace parts
  std::uint32_t part_count = 0;                ///< 1 + number of subordinates
  fit_strategy strategy = fit_strategy::none;  ///< the ladder step that produced it
  std::uint32_t offload_layers = 0;            ///< layers on GPU (layered estimators), else 0
  std::uint32_t total_layers = 0;              ///< total layers (layered estimators), else 0
};

/// An existing instance of the model being scaled down, as indexed by the workspace.
struct instance_record {
  std::size_t position = 0;                        ///< position in the caller's instance range
  std::uint64_t id = 0;                            ///< instance_traits::id
  instance_state state = instance_state::running;  ///< its state
  bool scheduled = false;                          ///< has a worker id
  std::uint32_t part_begin = 0;      ///< first part (no_position parts when not found)
  std::uint32_t part_count = 0;      ///< 0 when unscheduled or its worker is missing
  std::uint32_t total_layers = 0;    ///< layer metadata, 0 = none
  std::uint32_t offload_layers = 0;  ///< layers on GPU
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
template <class E>
concept Estimator = requires(const E& e, std::uint64_t total, std::int64_t alloc, std::uint64_t sum,
                             std::uint32_t n) {
  { e.capabilities() } -> std::convertible_to<backend_capabilities>;
  { e.ram_bytes() } -> std::convertible_to<std::uint64_t>;
  { e.gpu_claim_bytes(total, alloc) } -> std::convertible_to<std::uint64_t>;
  { e.fits(sum, n) } -> std::convertible_to<bool>;
};

/// vLLM-style estimator: needs weights × 1.2 + 2 GiB of VRAM in total; claims gmu × total
/// on every GPU it uses, and a GPU is eligible only when at least that much is free;
/// the GPU count (tensor-parallel size) must divide the attention heads.
class vllm_estimator {
 public:
  /// weights_bytes: model weights; gmu: gpu_memory_utilization in (0, 1]; attention_heads
  /// >= 1; ram_bytes: RAM claimed on the main worker; distributed: multi-worker allowed.
  constexpr vllm_estimator(std::uint64_t weights_bytes, double gmu, std::uint32_t attention_heads,
                           std::uint64_t ram_bytes = 0, bool distributed = true)
      : weights_(weights_bytes),
        gmu_(detail::require_unit_positive("gmu", gmu)),
        heads_(attention_heads),
        ram_(ram_bytes),
        distributed_(distributed) {
    if (attention_heads == 0) detail::fail("attention_heads", attention_heads, "must be >= 1");
  }
  /// Multi-GPU always; distributed when enabled; never offload or CPU.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {true, distributed_, false, false};
  }
  /// VRAM needed in total: weights × 1.2 + 2 GiB, bytes.
  [[nodiscard]] constexpr double required_vram_bytes() const noexcept {
    return static_cast<double>(weights_) * 1.2 + static_cast<double>(2 * gib_bytes);
  }
  /// RAM claimed on the main worker.
  [[nodiscard]] constexpr std::uint64_t ram_bytes() const noexcept { return ram_; }
  /// gmu × total when at least that much of the GPU is free, else 0 (ineligible).
  [[nodiscard]] constexpr std::uint64_t gpu_claim_bytes(std::uint64_t total_bytes,
                                                        std::int64_t alloc_bytes) const noexcept {
    const double claim = gmu_ * static_cast<double>(total_bytes);
    if (static_cast<double>(alloc_bytes) < claim || claim < 1.0) return 0;
    return static_cast<std::uint64_t>(claim);
  }
  /// The claims cover the requirement and gpu_count divides the attention heads.
  [[nodiscard]] constexpr bool fits(std::uint64_t claims_bytes,
                                    std::uint32_t gpu_count) const noexcept {
    return gpu_count > 0 && heads_ % gpu_count == 0 &&
           static_cast<double>(claims_bytes) >= required_vram_bytes();
  }

 private:
  std::uint64_t weights_;
  double gmu_;
  std::uint32_t heads_;
  std::uint64_t ram_;
  bool distributed_;
};

/// Layer-based estimator (GGUF-like): VRAM(L) = fixed_vram + L × layer_vram for L > 0
/// layers on GPU (0 for L = 0), RAM(L) = fixed_ram + (total − L) × layer_ram. Full offload
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
    return layers == 0 ? 0 : fixed_vram_ + std::uint64_t{layers} * layer_vram_;
  }
  /// RAM with `layers` layers on GPU (the rest on CPU), bytes.
  [[nodiscard]] constexpr std::uint64_t ram_bytes(std::uint32_t layers) const noexcept {
    return fixed_ram_ + std::uint64_t{total_ - std::min(layers, total_)} * layer_ram_;
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

/// Tuning of the fit ladder.
struct fit_options {
  std::uint32_t max_subordinates = 8;  ///< most subordinate workers of a distributed candidate
};

/// Read-only view of an indexed cluster and the model being scheduled, given to scorers.
struct cluster_view {
  std::span<const worker_record> workers;               ///< one per caller worker, same order
  std::span<const gpu_record> gpus;                     ///< all GPUs, grouped by worker
  std::span<const placement_part> parts;                ///< parts of instances and candidates
  std::span<const claim_record> claims;                 ///< VRAM claims of those parts
  placement_policy policy = placement_policy::binpack;  ///< the model's policy
  bool has_draft = false;                               ///< the model has a draft model
  bool draft_any_ready = false;  ///< some worker holds the draft model's files READY

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

/// Scratch state the caller keeps between decisions: once its buffers have grown to the
/// cluster's size, indexing, fitting and scoring allocate nothing.
class workspace {
 public:
  /// Indexes workers and instances for model m: allocatable RAM/VRAM, counts, files,
  /// explicit GPU selection. With record_instances, also records m's instances (scale down).
  template <std::ranges::forward_range Workers, std::ranges::forward_range Instances, class M>
  requires Worker<std::ranges::range_value_t<Workers>> &&
      Instance<std::ranges::range_value_t<Instances>> && ModelRequest<M>
  void index(const Workers& workers, const Instances& instances, const M& m,
             bool record_instances = false) {
    using W = std::ranges::range_value_t<Workers>;
    using I = std::ranges::range_value_t<Instances>;
    using WT = worker_traits<W>;
    using IT = instance_traits<I>;
    using MT = model_traits<M>;
    workers_.clear();
    gpus_.clear();
    parts_.clear();
    claims_.clear();
    instances_.clear();
    candidates_.clear();
    const std::uint64_t model_id = MT::id(m);
    const std::uint64_t files = MT::files(m), draft = MT::draft_files(m);
    policy_ = MT::placement(m);
    has_draft_ = draft != 0;
    draft_any_ready_ = false;
    sorted_ids_ = true;
    for (const auto& w : workers) {
      worker_record r;
      r.id = WT::id(w);
      r.ram_total_bytes = WT::ram_total_bytes(w);
      r.ram_alloc_bytes = static_cast<std::int64_t>(r.ram_total_bytes) -
                          static_cast<std::int64_t>(WT::ram_reserved_bytes(w));
      r.ready = WT::ready(w);
      r.main_files = files != 0 && WT::files_ready(w, files);
      r.draft_files = draft != 0 && WT::files_ready(w, draft);
      draft_any_ready_ = draft_any_ready_ || r.draft_files;
      r.gpu_begin = static_cast<std::uint32_t>(gpus_.size());
      const auto pos = static_cast<std::uint32_t>(workers_.size());
      for (const auto& g : WT::gpus(w)) {
        using GT = gpu_traits<std::remove_cvref_t<decltype(g)>>;
        gpu_record gr;
        gr.index = GT::index(g);
        gr.worker = pos;
        gr.total_bytes = GT::vram_total_bytes(g);
        gr.alloc_bytes = static_cast<std::int64_t>(gr.total_bytes) -
                         static_cast<std::int64_t>(GT::vram_reserved_bytes(g));
        gpus_.push_back(gr);
      }
      r.gpu_count = static_cast<std::uint32_t>(gpus_.size()) - r.gpu_begin;
      if (!workers_.empty() && workers_.back().id >= r.id) sorted_ids_ = false;
      workers_.push_back(r);
    }
    if (!sorted_ids_) {
      id_index_.clear();
      for (std::uint32_t i = 0; i < workers_.size(); ++i) id_index_.emplace_back(workers_[i].id, i);
      std::sort(id_index_.begin(), id_index_.end());
    }
    has_selection_ = false;
    for (const auto& ref : MT::gpu_selection(m)) {
      has_selection_ = true;
      const std::uint32_t w = find_worker(static_cast<std::uint64_t>(ref.worker_id));
      if (w == no_position) continue;
      const std::uint32_t g = find_gpu(w, static_cast<std::uint32_t>(ref.index));
      if (g != no_position) gpus_[g].selected = true;
    }
    std::size_t position = 0;
    for (const auto& inst : instances) {
      const bool mine = IT::model_id(inst) == model_id;
      const std::optional<std::uint64_t> wid = IT::worker_id(inst);
      const std::uint32_t w = wid ? find_worker(*wid) : no_position;
      instance_record rec;
      const bool keep = record_instances && mine;
      if (keep) {
        rec.position = position;
        rec.id = IT::id(inst);
        rec.state = IT::state(inst);
        rec.scheduled = wid.has_value();
        rec.total_layers = IT::total_layers(inst);
        rec.offload_layers = IT::offload_layers(inst);
        rec.part_begin = static_cast<std::uint32_t>(parts_.size());
      }
      ++position;
      if (w != no_position) {
        const std::uint64_t ram = IT::ram_bytes(inst);
        workers_[w].ram_alloc_bytes -= static_cast<std::int64_t>(ram);
        add_part(w, IT::gpus(inst), ram, mine, keep, true);
        for (const auto& sub : IT::subordinates(inst)) {
          const std::uint32_t sw = find_worker(static_cast<std::uint64_t>(sub.worker_id));
          if (sw == no_position) continue;
          add_part(sw, sub.gpus, detail::subordinate_ram_bytes(sub), mine, keep, false);
        }
      }
      if (keep) {
        rec.part_count = static_cast<std::uint32_t>(parts_.size()) - rec.part_begin;
        instances_.push_back(rec);
      }
    }
    instance_parts_ = parts_.size();
    instance_claims_ = claims_.size();
  }

  /// Commits a candidate as if it were now an instance of the indexed model: subtracts its
  /// claims and counts it, so that several placements can be chosen in a row.
  void commit(const candidate& c) noexcept {
    for (std::uint32_t p = 0; p < c.part_count; ++p) {
      const placement_part& part = parts_[c.part_begin + p];
      worker_record& w = workers_[part.worker];
      if (p == 0) w.ram_alloc_bytes -= static_cast<std::int64_t>(part.ram_bytes);
      for (std::uint32_t k = 0; k < part.claim_count; ++k) {
        const claim_record& cl = claims_[part.claim_begin + k];
        gpus_[cl.gpu].alloc_bytes -= static_cast<std::int64_t>(cl.vram_bytes);
        ++gpus_[cl.gpu].cur;
      }
      w.cur += p == 0 ? std::max<std::uint32_t>(1, part.claim_count) : part.claim_count;
    }
  }

  /// The view scorers read.
  [[nodiscard]] cluster_view view() const noexcept {
    return {workers_, gpus_, parts_, claims_, policy_, has_draft_, draft_any_ready_};
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
  void set_eligible(std::uint32_t w, bool eligible) noexcept { workers_[w].eligible = eligible; }

  /// Runs the fit ladder with estimator e over the eligible workers; returns the strategy
  /// that produced candidates (none when no strategy did).
  template <Estimator E>
  fit_strategy fit(const E& e, const fit_options& options = {}) {
    candidates_.clear();
    parts_.resize(instance_parts_);
    claims_.resize(instance_claims_);
    const backend_capabilities caps = e.capabilities();
    const std::uint64_t ram_need = e.ram_bytes();
    // Per-GPU claim of a full placement (0 = ineligible), computed once.
    gpu_claims_.assign(gpus_.size(), 0);
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      const gpu_record& r = gpus_[g];
      if (!workers_[r.worker].eligible || (has_selection_ && !r.selected)) continue;
      gpu_claims_[g] = e.gpu_claim_bytes(r.total_bytes, r.alloc_bytes);
    }
    auto ram_ok = [&](const worker_record& w) {
      return ram_need == 0 || w.ram_alloc_bytes >= static_cast<std::int64_t>(ram_need);
    };
    // 1. single worker, single GPU
    for (std::uint32_t w = 0; w < workers_.size(); ++w) {
      const worker_record& wr = workers_[w];
      if (!wr.eligible || !ram_ok(wr)) continue;
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
        const std::uint64_t c = gpu_claims_[g];
        if (c != 0 && e.fits(c, 1) && !equivalent_to_earlier(g)) {
          const auto begin = static_cast<std::uint32_t>(parts_.size());
          push_part(w, ram_need, &g, &c, 1);
          candidates_.push_back({begin, 1, fit_strategy::single_gpu, 0, 0});
        }
      }
    }
    if (!candidates_.empty()) return fit_strategy::single_gpu;
    // 2. single worker, several GPUs: the smallest valid count of its largest claims
    if (caps.multi_gpu) {
      for (std::uint32_t w = 0; w < workers_.size(); ++w) {
        const worker_record& wr = workers_[w];
        if (!wr.eligible || !ram_ok(wr) || wr.gpu_count < 2) continue;
        const std::uint32_t k = sorted_eligible(wr);
        std::uint64_t sum = 0;
        for (std::uint32_t n = 1; n <= k; ++n) {
          sum += gpu_claims_[order_[n - 1]];
          if (n >= 2 && e.fits(sum, n)) {
            const auto begin = static_cast<std::uint32_t>(parts_.size());
            push_sorted_part(w, ram_need, n);
            candidates_.push_back({begin, 1, fit_strategy::multi_gpu, 0, 0});
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
          if (gpu_claims_[g] != 0) sum += gpu_claims_[g], ++n;
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
          sum += s.sum;
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
        candidates_.push_back(
            {begin, static_cast<std::uint32_t>(1 + subs_.size()), fit_strategy::distributed, 0, 0});
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
                {begin, 1, fit_strategy::partial_offload, f->layers, f->total_layers});
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
          if (!wr.eligible || wr.ram_alloc_bytes < static_cast<std::int64_t>(need)) continue;
          const auto begin = static_cast<std::uint32_t>(parts_.size());
          push_part(w, need, nullptr, nullptr, 0);
          candidates_.push_back({begin, 1, fit_strategy::cpu_only, 0, 0});
        }
        if (!candidates_.empty()) return fit_strategy::cpu_only;
      }
    }
    return fit_strategy::none;
  }

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

  template <class Claims>
  void add_part(std::uint32_t w, const Claims& gpu_claims, std::uint64_t ram, bool mine, bool keep,
                bool main) {
    placement_part part;
    part.worker = w;
    part.ram_bytes = main ? ram : 0;
    part.claim_begin = static_cast<std::uint32_t>(claims_.size());
    std::uint32_t n = 0;
    for (const auto& cl : gpu_claims) {
      const auto index = static_cast<std::uint32_t>(cl.index);
      const std::uint32_t g = find_gpu(w, index);
      ++n;
      if (g == no_position) continue;
      const auto vram = static_cast<std::uint64_t>(cl.vram_bytes);
      gpus_[g].alloc_bytes -= static_cast<std::int64_t>(vram);
      ++(mine ? gpus_[g].cur : gpus_[g].oth);
      if (keep) claims_.push_back({g, index, vram});
    }
    // Once per GPU occupied; a CPU instance once on its main worker.
    const std::uint32_t count = main ? std::max<std::uint32_t>(1, n) : n;
    (mine ? workers_[w].cur : workers_[w].oth) += count;
    if (keep) {
      part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
      parts_.push_back(part);
    }
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
  std::vector<placement_part> parts_;
  std::vector<claim_record> claims_;
  std::vector<instance_record> instances_;
  std::vector<candidate> candidates_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> id_index_;
  std::vector<std::uint64_t> gpu_claims_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> subs_;
  std::vector<worker_sum> worker_sums_;
  std::size_t instance_parts_ = 0, instance_claims_ = 0;
  placement_policy policy_ = placement_policy::binpack;
  bool has_draft_ = false, draft_any_ready_ = false, sorted_ids_ = true, has_selection_ = false;

 public:
  /// Column buffers the chains use for per-scorer scores and totals (grown, never shrunk).
  std::vector<double> column, totals;
  /// The scale-down ranking of the last rank_for_removal.
  std::vector<ranked_instance> ranked;
};

}  // namespace v0
}  // namespace headroom

// SPDX-License-Identifier: Apache-2.0
// What the workspace (scheduler/workspace.hpp) holds: the records of the indexed cluster and
// model, the allocatable amounts (kept exactly, stored saturated), the dense copies the
// scorers read, and the helpers that touch nothing else. A private base of the workspace.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/byte_counts.hpp"
#include "traits.hpp"
#include "view.hpp"
#include "workspace_parts.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

/// The data of a workspace and the helpers that read and write nothing else.
struct workspace_state {
  static constexpr std::uint8_t main_bit = 1, draft_bit = 2;  // files READY: main | draft

  /// Position of the worker with this id, or no_position.
  [[nodiscard]] HEADROOM_DECL std::uint32_t find_worker(std::uint64_t id) const noexcept;
  /// Position of GPU `index` of worker w, or no_position.
  [[nodiscard]] HEADROOM_DECL std::uint32_t find_gpu(std::uint32_t w,
                                                     std::uint32_t index) const noexcept;
  /// Empties the candidates of the last fit and their parts and claims.
  HEADROOM_DECL void drop_candidates();

  // ---- allocatable amounts: kept exactly, stored saturated ----
  // Which allocatable amounts a change moves: the cluster's alone, or also the view that
  // counts the model's own instances only (kept when indexed for scale down).
  enum class amounts : std::uint8_t { cluster, cluster_and_own };
  // The amounts a change of the model's own instances (or of a worker's base) moves: the
  // own view too when indexed for scale down.
  [[nodiscard]] amounts own_amounts() const noexcept {
    return recording_ ? amounts::cluster_and_own : amounts::cluster;
  }
  // Gives amount back (negative: takes) to the allocatable VRAM of GPU g or RAM of worker
  // w, in the amounts named.
  HEADROOM_DECL void give_vram(std::uint32_t g, std::int64_t amount, amounts moved);
  HEADROOM_DECL void give_ram(std::uint32_t w, std::int64_t amount, amounts moved);
  void take_vram(std::uint32_t g, std::int64_t amount, amounts moved) {
    give_vram(g, -amount, moved);
  }
  void take_ram(std::uint32_t w, std::int64_t amount, amounts moved) {
    give_ram(w, -amount, moved);
  }
  // A worker's re-read total − reserved replaces the old one: the difference (both within
  // ±2^54, exact) moves every amount built on it.
  HEADROOM_DECL void rebase_gpu(std::uint32_t g, std::int64_t base);
  HEADROOM_DECL void rebase_ram(std::uint32_t w, std::int64_t base);
  // GPU g's total − its own reservation − the worker's per-GPU reservation, as counted.
  template <class G>
  [[nodiscard]] static std::int64_t vram_base_of(const G& g,
                                                 std::int64_t worker_reserved) noexcept {
    using GT = gpu_traits<G>;
    return detail::counted_bytes(GT::vram_total_bytes(g)) -
           detail::counted_bytes(GT::vram_reserved_bytes(g)) - worker_reserved;
  }

  // ---- files ----
  template <class W>
  [[nodiscard]] bool reads_main_files(const W& w, std::uint32_t pos) const noexcept {
    return (files_ != 0 && worker_traits<W>::files_ready(w, files_)) ||
           (table_files_[pos] & main_bit) != 0;
  }
  template <class W>
  [[nodiscard]] bool reads_draft_files(const W& w, std::uint32_t pos) const noexcept {
    return (draft_ != 0 && worker_traits<W>::files_ready(w, draft_)) ||
           (table_files_[pos] & draft_bit) != 0;
  }
  // Which of the model's files a worker has READY.
  struct ready_files {
    bool main = false;   // the model's own files
    bool draft = false;  // its draft model's files
  };
  HEADROOM_DECL void set_files(std::uint32_t w, ready_files ready) noexcept;
  template <class Files>
  void read_file_table(const Files& files) {
    using FT = model_file_traits<std::ranges::range_value_t<Files>>;
    std::fill(table_files_.begin(), table_files_.end(), std::uint8_t{0});
    table_draft_ready_ = false;
    for (const auto& f : files) {
      const std::uint64_t key = FT::key(f);
      const std::optional<std::uint64_t> wid = FT::worker_id(f);
      if (!FT::ready(f) || key == 0 || !wid) continue;
      const bool main = key == files_, draft = key == draft_;
      table_draft_ready_ = table_draft_ready_ || draft;
      const std::uint32_t w = main || draft ? find_worker(*wid) : no_position;
      if (w != no_position)
        table_files_[w] |=
            static_cast<std::uint8_t>((main ? main_bit : 0u) | (draft ? draft_bit : 0u));
    }
  }

  // ---- workers and GPUs ----
  // true iff w lists the GPUs of record pos: same count, indices and types.
  template <class W>
  [[nodiscard]] bool same_gpus(const W& w, std::uint32_t pos) const noexcept {
    const worker_record& r = workers_[pos];
    std::uint32_t g = r.gpu_begin;
    for (const auto& gpu : worker_traits<W>::gpus(w)) {
      using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
      if (g == r.gpu_begin + r.gpu_count || gpus_[g].index != GT::index(gpu) ||
          gpus_[g].type != types_.find(GT::type(gpu)))
        return false;
      ++g;
    }
    return g == r.gpu_begin + r.gpu_count;
  }
  // Every change to a worker or its GPUs ends here: its distinct GPUs and its entries of
  // the dense copies (gpu_alloc_, worker_files_).
  HEADROOM_DECL void refresh_worker(std::uint32_t w);
  // The type GPUStack sees a worker with: policies/utils.py::group_workers_by_gpu_type
  // gives each type's copy of the worker the shared (shallow-copied) status, so every copy
  // ends with the GPUs of the type that appears last for the first time among its GPUs.
  [[nodiscard]] HEADROOM_DECL std::uint16_t effective_type(const worker_record& r) const noexcept;
  // true iff GPU index i was seen among the GPUs indexed from position first on (the
  // worker being indexed); records it in low (indices below 64) on the way.
  [[nodiscard]] HEADROOM_DECL bool index_seen(std::uint32_t first, std::uint32_t i,
                                              std::uint64_t& low) const;
  // Appends a part of worker w claiming vram[k] on GPU positions g[k] (the listings).
  HEADROOM_DECL void append_part(std::uint32_t w, std::uint64_t ram, const std::uint32_t* g,
                                 const std::uint64_t* vram, std::uint32_t n);

  // ---- the index ----
  std::vector<worker_record> workers_;
  std::vector<gpu_record> gpus_;
  detail::buffer<placement_part> parts_;  // recorded instances' parts, then candidates'
  detail::buffer<claim_record> claims_;
  std::vector<instance_record> instances_;
  detail::buffer<candidate> candidates_;
  // Per candidate, when dense_candidates_ (the one-GPU stage): its main worker and VRAM
  // left over (cluster_view::candidate_worker, candidate_vram_left_bytes).
  detail::buffer<std::uint32_t> candidate_worker_;
  detail::buffer<double> candidate_left_;
  bool dense_candidates_ = false;
  std::size_t instance_parts_ = 0, instance_claims_ = 0, next_position_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> id_index_;  // (id, position), sorted
  std::vector<std::uint64_t> recorded_ids_;         // scratch of index(): the recorded ids, sorted
  std::vector<std::int64_t> ram_base_, vram_base_;  // total − reserved, for update_worker
  // Per GPU / per worker: claims GPUStack's fit does not count against the GPU's or the
  // worker's own type (instances of another type); added back by the gpustack listing.
  std::vector<std::int64_t> excluded_vram_, excluded_ram_;
  // Allocatable amounts counting the model's own instances only (indexed for scale down).
  std::vector<std::int64_t> own_gpu_alloc_, own_ram_alloc_;
  // The exact values of the amounts above (and of the records' alloc_bytes and
  // ram_alloc_bytes) beyond the int64 range.
  detail::saturating_amounts vram_exact_, ram_exact_, own_vram_exact_, own_ram_exact_,
      excluded_vram_exact_, excluded_ram_exact_;
  std::vector<std::uint32_t> distributed_on_;  // per worker: distributed instances on it
  std::vector<std::uint8_t> table_files_;      // per worker: READY by index_files' table
  std::vector<std::uint32_t> selection_;       // the explicit GPU selection: positions (or none)
  detail::gpu_type_names types_;
  detail::distinct_gpus distinct_;
  detail::verdict_cache verdicts_;
  std::vector<std::int64_t> gpu_alloc_;     // gpus_[g].alloc_bytes, dense (cluster_view)
  std::vector<std::uint8_t> worker_files_;  // main_files | draft_files << 1 (cluster_view)
  // Dense copies of what the fit's first stage reads of each worker: workers_[w].eligible
  // and workers_[w].ram_alloc_bytes (kept by set_eligible, give_ram and the index).
  std::vector<std::uint8_t> eligible_;
  std::vector<std::int64_t> ram_alloc_;
  detail::listing_scratch scratch_;
  // ---- the indexed model ----
  detail::model_key model_key_;
  std::uint64_t files_ = 0, draft_ = 0;
  std::uint32_t draft_ready_count_ = 0, gpus_per_replica_ = 0, replicas_ = 1;
  placement_policy policy_ = placement_policy::binpack;
  bool sorted_ids_ = true, has_selection_ = false, recording_ = false, indexing_ = false;
  bool table_draft_ready_ = false;
};

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/workspace_state.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

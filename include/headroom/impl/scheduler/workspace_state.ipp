// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/workspace_state.hpp's non-template functions: included at
// the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/workspace_state.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

HEADROOM_DECL auto workspace_state::find_worker(std::uint64_t id) const noexcept -> std::uint32_t {
  if (sorted_ids_) {
    auto it = std::lower_bound(workers_.begin(), workers_.end(), id,
                               [](const worker_record& r, std::uint64_t v) { return r.id < v; });
    return it != workers_.end() && it->id == id ? static_cast<std::uint32_t>(it - workers_.begin())
                                                : no_position;
  }
  auto it = std::lower_bound(id_index_.begin(), id_index_.end(), std::pair{id, std::uint32_t{0}});
  return it != id_index_.end() && it->first == id ? it->second : no_position;
}

HEADROOM_DECL auto workspace_state::find_gpu(std::uint32_t w, std::uint32_t index) const noexcept
    -> std::uint32_t {
  const worker_record& r = workers_[w];
  for (std::uint32_t g = r.gpu_begin; g < r.gpu_begin + r.gpu_count; ++g)
    if (gpus_[g].index == index) return g;
  return no_position;
}

HEADROOM_DECL auto workspace_state::drop_candidates() -> void {
  candidates_.clear();
  dense_candidates_ = false;
  parts_.resize(instance_parts_);
  claims_.resize(instance_claims_);
}

HEADROOM_DECL auto workspace_state::give_vram(std::uint32_t g, std::int64_t amount, amounts moved)
    -> void {
  vram_exact_.add(gpus_[g].alloc_bytes, g, amount);
  if (moved == amounts::cluster_and_own) own_vram_exact_.add(own_gpu_alloc_[g], g, amount);
}

HEADROOM_DECL auto workspace_state::give_ram(std::uint32_t w, std::int64_t amount, amounts moved)
    -> void {
  ram_exact_.add(workers_[w].ram_alloc_bytes, w, amount);
  ram_alloc_[w] = workers_[w].ram_alloc_bytes;
  if (moved == amounts::cluster_and_own) own_ram_exact_.add(own_ram_alloc_[w], w, amount);
}

HEADROOM_DECL auto workspace_state::rebase_gpu(std::uint32_t g, std::int64_t base) -> void {
  give_vram(g, base - vram_base_[g], own_amounts());
  vram_base_[g] = base;
}

HEADROOM_DECL auto workspace_state::rebase_ram(std::uint32_t w, std::int64_t base) -> void {
  give_ram(w, base - ram_base_[w], own_amounts());
  ram_base_[w] = base;
}

HEADROOM_DECL auto workspace_state::set_files(std::uint32_t w, ready_files ready) noexcept -> void {
  worker_record& r = workers_[w];
  if (ready.draft != r.draft_files)
    draft_ready_count_ = ready.draft ? draft_ready_count_ + 1 : draft_ready_count_ - 1;
  r.main_files = ready.main;
  r.draft_files = ready.draft;
  worker_files_[w] =
      static_cast<std::uint8_t>((ready.main ? main_bit : 0u) | (ready.draft ? draft_bit : 0u));
}

HEADROOM_DECL auto workspace_state::refresh_worker(std::uint32_t w) -> void {
  const worker_record& wr = workers_[w];
  worker_files_[w] = static_cast<std::uint8_t>((wr.main_files ? main_bit : 0u) |
                                               (wr.draft_files ? draft_bit : 0u));
  for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
    gpu_alloc_[g] = gpus_[g].alloc_bytes;
  distinct_.update(wr, w, gpus_);
}

HEADROOM_DECL auto workspace_state::effective_type(const worker_record& r) const noexcept
    -> std::uint16_t {
  std::uint16_t t = 0;
  for (std::uint32_t g = r.gpu_begin; g < r.gpu_begin + r.gpu_count; ++g) {
    bool first = true;
    for (std::uint32_t h = r.gpu_begin; h < g && first; ++h) first = gpus_[h].type != gpus_[g].type;
    if (first) t = gpus_[g].type;
  }
  return t;
}

HEADROOM_DECL auto workspace_state::index_seen(std::uint32_t first, std::uint32_t i,
                                               std::uint64_t& low) const -> bool {
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

HEADROOM_DECL auto workspace_state::append_part(std::uint32_t w, std::uint64_t ram,
                                                const std::uint32_t* g, const std::uint64_t* vram,
                                                std::uint32_t n) -> void {
  parts_.push_back({.worker_position = w,
                    .claim_begin = static_cast<std::uint32_t>(claims_.size()),
                    .claim_count = n,
                    .ram_bytes = ram});
  for (std::uint32_t k = 0; k < n; ++k) claims_.push_back({g[k], gpus_[g[k]].index, vram[k]});
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

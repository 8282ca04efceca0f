// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/workspace.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/workspace.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {

HEADROOM_DECL auto workspace::commit(const candidate& c) -> void {
  dense_candidates_ = false;  // the candidates stay, their dense copies would go stale
  for (std::uint32_t p = 0; p < c.part_count; ++p) {
    const placement_part& part = parts_[c.part_begin + p];
    if (p == 0)
      take_ram(part.worker_position, detail::counted_bytes(part.ram_bytes), own_amounts());
    for (std::uint32_t k = 0; k < part.claim_count; ++k) {
      const claim_record& cl = claims_[part.claim_begin + k];
      take_vram(cl.gpu_position, detail::counted_bytes(cl.vram_bytes), own_amounts());
      ++gpus_[cl.gpu_position].model_instances;
    }
    workers_[part.worker_position].model_instances +=
        p == 0 ? std::max<std::uint32_t>(1, part.claim_count) : part.claim_count;
    if (c.part_count > 1) ++distributed_on_[part.worker_position];
    refresh_worker(part.worker_position);
  }
}

HEADROOM_DECL auto workspace::view() const noexcept -> cluster_view {
  return {.workers = workers_,
          .gpus = gpus_,
          .parts = parts_,
          .claims = claims_,
          .policy = policy_,
          .has_draft = draft_ != 0,
          .draft_ready_somewhere = draft_ready_count_ > 0 || table_draft_ready_,
          .own_gpu_alloc_bytes = own_gpu_alloc_,
          .own_ram_alloc_bytes = own_ram_alloc_,
          .dense = {.gpu_alloc_bytes = gpu_alloc_,
                    .worker_files = worker_files_,
                    .candidates = dense_candidates_ ? std::span<const candidate>(candidates_)
                                                    : std::span<const candidate>(),
                    .candidate_worker = dense_candidates_
                                            ? std::span<const std::uint32_t>(candidate_worker_)
                                            : std::span<const std::uint32_t>(),
                    .candidate_vram_left_bytes = dense_candidates_
                                                     ? std::span<const double>(candidate_left_)
                                                     : std::span<const double>()}};
}

HEADROOM_DECL auto workspace::in_some_candidate(std::uint32_t w) const noexcept -> bool {
  for (const candidate& c : candidates_)
    for (std::uint32_t p = 0; p < c.part_count; ++p)
      if (parts_[c.part_begin + p].worker_position == w) return true;
  return false;
}

HEADROOM_DECL auto workspace::set_eligible(std::uint32_t w, bool eligible) noexcept -> void {
  // Written only on change: a warm index keeps its worker records clean (no write-back).
  if (workers_[w].eligible != eligible) {
    workers_[w].eligible = eligible;
    eligible_[w] = eligible ? 1 : 0;
  }
}

HEADROOM_DECL auto workspace::index_ids() -> void {
  if (sorted_ids_) return;
  id_index_.clear();
  for (std::uint32_t i = 0; i < workers_.size(); ++i) id_index_.emplace_back(workers_[i].id, i);
  std::sort(id_index_.begin(), id_index_.end());
  const auto twin =
      std::adjacent_find(id_index_.begin(), id_index_.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; });
  if (twin != id_index_.end()) refuse_duplicate_worker(twin->first);
}

HEADROOM_DECL auto workspace::begin_counting() -> void {
  ram_alloc_.resize(workers_.size());
  for (std::uint32_t w = 0; w < workers_.size(); ++w) ram_alloc_[w] = workers_[w].ram_alloc_bytes;
  for (detail::saturating_amounts* exact :
       {&vram_exact_, &ram_exact_, &own_vram_exact_, &own_ram_exact_, &excluded_vram_exact_,
        &excluded_ram_exact_})
    exact->clear();
  excluded_vram_.assign(gpus_.size(), 0);
  excluded_ram_.assign(workers_.size(), 0);
  distributed_on_.assign(workers_.size(), 0);
  table_files_.assign(workers_.size(), 0);
  own_gpu_alloc_.clear();
  own_ram_alloc_.clear();
  if (recording_) {
    own_gpu_alloc_.assign(vram_base_.begin(), vram_base_.end());
    own_ram_alloc_.assign(ram_base_.begin(), ram_base_.end());
  }
}

HEADROOM_DECL auto workspace::end_index() -> void {
  if (recording_) refuse_duplicate_records();
  instance_parts_ = parts_.size();
  instance_claims_ = claims_.size();
  gpu_alloc_.resize(gpus_.size());
  worker_files_.resize(workers_.size());
  eligible_.assign(workers_.size(), std::uint8_t{0});  // as the records: not yet filtered
  distinct_.reset(gpus_.size(), workers_.size());
  for (std::uint32_t w = 0; w < workers_.size(); ++w) refresh_worker(w);
}

HEADROOM_DECL auto workspace::count_main_ram(std::uint32_t w, std::int64_t ram,
                                             const instance_count& how) -> void {
  const std::int64_t given = how.change == count_change::out ? ram : -ram;
  give_ram(w, given, how.own_model ? own_amounts() : amounts::cluster);
  // GPUStack's fit counts a main instance's RAM on a worker of another GPU type not at
  // all (policies/utils.py::compute_worker_allocated): kept aside, added back there.
  const std::uint16_t wt = workers_[w].type;
  if (wt != 0 && how.gpu_type != 0 && how.gpu_type != wt)
    excluded_ram_exact_.add(excluded_ram_[w], w, -given);
}

HEADROOM_DECL auto workspace::count_distributed(std::uint32_t w, count_change change) noexcept
    -> void {
  distributed_on_[w] = change == count_change::in ? distributed_on_[w] + 1 : distributed_on_[w] - 1;
}

HEADROOM_DECL auto workspace::forget_record(std::uint64_t id) -> void {
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

HEADROOM_DECL auto workspace::refuse(const char* parameter, std::uint64_t value,
                                     std::string_view rule) -> void {
  *this = workspace{};  // value and rule are copies or outlive the workspace's buffers
  detail::fail(parameter, value, rule);
}

HEADROOM_DECL auto workspace::refuse_duplicate_gpu(std::uint64_t worker_id, std::uint32_t index)
    -> void {
  refuse("workers", worker_id,
         "lists GPU index " + std::to_string(index) +
             " twice (gpu_traits::index must name one GPU of a worker)");
}

HEADROOM_DECL auto workspace::refuse_duplicate_worker(std::uint64_t id) -> void {
  refuse("workers", id,
         "is the id of two workers (worker_traits::id must name one worker: instances and "
         "results name workers by it)");
}

HEADROOM_DECL auto workspace::refuse_duplicate_records() -> void {
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

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

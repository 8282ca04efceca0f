// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/workspace_parts.hpp's non-template functions: included at
// the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/workspace_parts.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

HEADROOM_DECL auto gpu_type_names::intern(std::string_view t) -> std::uint16_t {
  if (t.empty()) return 0;
  if (const std::uint16_t k = find(t); k != unknown) return k;
  if (count_ == unknown) fail("gpu types", std::size_t{count_}, "too many");
  if (names_.size() <= count_) names_.resize(count_ + std::size_t{1});
  names_[count_].assign(t);
  return count_++;
}

HEADROOM_DECL auto gpu_type_names::find(std::string_view t) const noexcept -> std::uint16_t {
  if (t.empty()) return 0;
  for (std::uint16_t k = 1; k < count_; ++k)
    if (names_[k] == t) return k;
  return unknown;
}

HEADROOM_DECL auto distinct_gpus::reset(std::size_t gpu_count, std::size_t worker_count) -> void {
  twin_.resize(gpu_count);
  entries_.clear();
  of_.assign(worker_count, span_of{});
}

HEADROOM_DECL auto distinct_gpus::update(const worker_record& w, std::uint32_t position,
                                         std::span<const gpu_record> gpus) -> void {
  const std::uint32_t end = w.gpu_begin + w.gpu_count;
  std::uint32_t k = 0;
  for (std::uint32_t g = w.gpu_begin; g < end; ++g) {
    twin_[g] = earlier_twin(gpus, w.gpu_begin, g);
    if (twin_[g] == no_position) ++k;
  }
  // In place when they fit w's slots, else in new slots at the end (re-packing every
  // worker when the holes left behind outgrow the GPUs themselves).
  if (k > of_[position].cap) {
    if (entries_.size() + k > 2 * gpus.size() + repack_slack) pack();
    of_[position] = {static_cast<std::uint32_t>(entries_.size()), 0, k};
    entries_.resize(entries_.size() + k);
  }
  span_of& sp = of_[position];
  sp.count = k;
  entry* d = entries_.data() + sp.begin;
  for (std::uint32_t g = w.gpu_begin; g < end; ++g)
    if (twin_[g] == no_position)
      *d++ = {g, gpus[g].index, gpus[g].total_bytes, gpus[g].alloc_bytes};
}

HEADROOM_DECL auto distinct_gpus::earlier_twin(std::span<const gpu_record> gpus,
                                               std::uint32_t first, std::uint32_t g) noexcept
    -> std::uint32_t {
  const gpu_record& r = gpus[g];
  for (std::uint32_t h = first; h < g; ++h) {
    const gpu_record& o = gpus[h];
    if (o.alloc_bytes == r.alloc_bytes && o.total_bytes == r.total_bytes &&
        o.model_instances == r.model_instances && o.other_instances == r.other_instances &&
        o.index < r.index)
      return h;
  }
  return no_position;
}

HEADROOM_DECL auto distinct_gpus::pack() -> void {
  packed_.clear();
  for (span_of& sp : of_) {
    const auto begin = static_cast<std::uint32_t>(packed_.size());
    packed_.insert(packed_.end(), entries_.begin() + sp.begin,
                   entries_.begin() + sp.begin + sp.count);
    sp = {begin, sp.count, sp.count};
  }
  entries_.swap(packed_);
}

HEADROOM_DECL auto verdict_cache::forget() noexcept -> void {
  key_ = {};
  queued_.clear();
}

HEADROOM_DECL auto verdict_cache::queue(std::uint32_t pos, std::size_t workers) -> void {
  if (key_.filters == nullptr) return;
  if (queued_.size() >= bound(workers))
    forget();
  else
    queued_.push_back(pos);
}

HEADROOM_DECL auto verdict_cache::store(const filter_key& key, std::uint32_t rejected,
                                        std::size_t workers) -> void {
  queued_.clear();
  queued_.reserve(bound(workers));  // no growth later
  key_ = key;
  rejected_ = rejected;
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

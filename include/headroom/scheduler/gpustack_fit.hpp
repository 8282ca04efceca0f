// SPDX-License-Identifier: Apache-2.0
// The gpustack listing (candidate_listing::gpustack): GPUStack's vLLM resource-fit
// selector, decision for decision, over an indexed workspace (fit.hpp). Each stage is one
// member function, following upstream's functions of the same role in
// gpustack/policies/candidate_selectors/{base_candidate_selector,vllm_resource_fit_selector}.py
// and gpustack/policies/utils.py:
//  - manual:       _find_manual_gpu_selection_candidates (explicit GPU selection; no other
//                  stage runs then), with the over-commit rule of
//                  _get_non_overcommit_and_best_overcommit_candidates;
//  - single GPU:   find_single_worker_single_gpu_full_offloading_candidates (skipped when the
//                  world size is > 1): every GPU that holds the need at gmu × total and has
//                  at least gmu of its total allocatable (>=);
//  - multi GPU:    find_single_worker_multi_gpu_full_offloading_candidates (skipped when the
//                  world size is 1): per worker, its GPUs with more than gmu allocatable (>),
//                  largest allocatable first (ties in listed order), the fewest whose claims
//                  cover the need with a count dividing heads and vocabulary (or exactly the
//                  world size); only candidates with the fewest GPUs are kept;
//  - distributed:  find_multi_worker_multi_gpu_candidates (only with
//                  distributed_inference::across_workers): per GPU type, workers grouped by
//                  GPU count (most first), the first group whose workers with every GPU at
//                  >= gmu cover the need: exactly one candidate per type.
// Candidates are listed grouped by GPU type in order of first appearance
// (group_workers_by_gpu_type), workers in the caller's order, GPUs in listed order. Upstream
// shallow-copies each worker per type and assigns the copy's (shared) status, so a worker
// whose GPUs have several types takes part with the GPUs of the type that appears last for
// the first time among them, but still places its other types in the first stage's order:
// reproduced (workspace::effective_type). Allocatable amounts are GPUStack's
// get_worker_allocatable_resource: max(total − reserved − claims, 0), a claim counting
// against a GPU type only when made by an instance of that type (or, on the main worker,
// of unknown type).
// Not modelled (the selector's other inputs): vision attention heads, non-LLM categories
// (gpu_memory_utilization 0), unified memory, the MP executor's multi-node topology check
// (GPUStack defaults to Ray), GPUSTACK_SKIP_GPU_COUNT_CHECK, and the backend of an instance
// in the one-distributed-instance-per-worker rule (every distributed instance counts).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstdint>
#include <limits>

#include "fit.hpp"

namespace headroom {
inline namespace v0 {

namespace detail {
/// n > x exactly, for x >= 0 (Python compares an int with a float exactly).
[[nodiscard]] constexpr bool exceeds(std::uint64_t n, double x) noexcept {
  if (!(x >= 0.0)) return true;
  if (x >= 18446744073709551616.0) return false;
  return n > static_cast<std::uint64_t>(x);  // n > x ⇔ n > ⌊x⌋ for an integer n
}
/// ⌊total × gmu⌋: GPUStack's int(gpu.memory.total * gpu_memory_utilization).
[[nodiscard]] constexpr std::uint64_t gmu_claim(std::uint64_t total, double gmu) noexcept {
  const double c = static_cast<double>(total) * gmu;
  return c >= 18446744073709551616.0 ? std::numeric_limits<std::uint64_t>::max()
                                     : static_cast<std::uint64_t>(c);
}
/// allocatable / total, as Python's true division of two ints (exact below 2^53).
[[nodiscard]] constexpr double rate(std::int64_t allocatable, std::uint64_t total) noexcept {
  return static_cast<double>(allocatable) / static_cast<double>(total);
}
}  // namespace detail

// Allocatable VRAM of GPU g as GPUStack's fit sees it for the GPU's type, clamped at 0.
inline std::int64_t workspace::gpustack_gpu_alloc(std::uint32_t g) const noexcept {
  detail::byte_balance sum = vram_exact_.exact_value(gpus_[g].alloc_bytes, g);
  sum.add(excluded_vram_exact_.exact_value(excluded_vram_[g], g));
  return std::max<std::int64_t>(sum.saturated(), 0);
}
// Allocatable RAM of worker w as GPUStack's fit sees it for the worker's type, clamped at 0.
inline std::int64_t workspace::gpustack_ram_alloc(std::uint32_t w) const noexcept {
  detail::byte_balance sum = ram_exact_.exact_value(workers_[w].ram_alloc_bytes, w);
  sum.add(excluded_ram_exact_.exact_value(excluded_ram_[w], w));
  return std::max<std::int64_t>(sum.saturated(), 0);
}

// type_order_: the GPU types of the eligible workers in order of first appearance, each
// worker contributing every type of its GPUs (every_gpu_type: the first call of
// group_workers_by_gpu_type) or its effective type only (later calls); a worker without
// GPUs contributes the untyped group.
inline void workspace::gpustack_type_order(bool every_gpu_type) {
  type_order_.clear();
  type_seen_.assign(type_count_, 0);
  const auto see = [&](std::uint16_t t) {
    if (type_seen_[t] == 0) {
      type_seen_[t] = 1;
      type_order_.push_back(t);
    }
  };
  for (const worker_record& wr : workers_) {
    if (!wr.eligible) continue;
    if (!every_gpu_type || wr.gpu_count == 0) {
      see(wr.type);
      continue;
    }
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) see(gpus_[g].type);
  }
}

template <class E>
fit_strategy workspace::fit_gpustack(const E& e) {
  drop_candidates();
  const std::uint32_t world = e.world_size();
  if (has_selection_) {
    // _set_gpu_count: gpus_per_replica or the selection's size, which a world size must equal.
    std::uint32_t gpu_count =
        gpus_per_replica_ != 0 ? gpus_per_replica_ : static_cast<std::uint32_t>(selection_.size());
    if (world != 0 && world != gpu_count)
      detail::fail("gpus_per_replica", gpu_count,
                   "must equal the world size (tensor × pipeline parallel size)");
    if (world != 0) gpu_count = world;
    gpustack_manual(e, gpu_count);
    return candidates_.empty() ? fit_strategy::none : fit_strategy::manual;
  }
  if (world <= 1) {
    gpustack_single_gpu(e);
    if (!candidates_.empty()) return fit_strategy::single_gpu;
  }
  if (world != 1) {
    gpustack_multi_gpu(e, world);
    if (!candidates_.empty()) return fit_strategy::multi_gpu;
  }
  if (e.capabilities().distributed) {
    gpustack_multi_worker(e, world);
    if (!candidates_.empty()) return fit_strategy::distributed;
  }
  return fit_strategy::none;
}

// find_single_worker_single_gpu_full_offloading_candidates.
template <class E>
void workspace::gpustack_single_gpu(const E& e) {
  const double gmu = e.gpu_memory_utilization();
  const std::uint64_t need = e.required_vram_bytes(), ram_need = e.ram_bytes();
  const auto nw = static_cast<std::uint32_t>(workers_.size());
  gpustack_type_order(true);
  for (const std::uint16_t t : type_order_) {
    for (std::uint32_t w = 0; w < nw; ++w) {
      const worker_record& wr = workers_[w];
      if (!wr.eligible || wr.type != t || wr.gpu_count == 0) continue;
      if (ram_need > 0 && static_cast<std::uint64_t>(gpustack_ram_alloc(w)) < ram_need) continue;
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
        const gpu_record& r = gpus_[g];
        if (r.type != t || r.total_bytes == 0) continue;
        const double utilization = detail::rate(gpustack_gpu_alloc(g), r.total_bytes);
        if (detail::exceeds(need, static_cast<double>(r.total_bytes) * gmu) || utilization < gmu)
          continue;
        const std::uint64_t claim = detail::gmu_claim(r.total_bytes, gmu);
        const auto begin = static_cast<std::uint32_t>(parts_.size());
        push_part(w, e.part_ram_bytes(claim), &g, &claim, 1);
        candidates_.push_back({begin, 1, fit_strategy::single_gpu, false, 0, 0});
      }
    }
  }
}

// find_single_worker_multi_gpu_full_offloading_candidates.
template <class E>
void workspace::gpustack_multi_gpu(const E& e, std::uint32_t gpu_count) {
  const double gmu = e.gpu_memory_utilization();
  const std::uint64_t need = e.required_vram_bytes(), ram_need = e.ram_bytes();
  const auto nw = static_cast<std::uint32_t>(workers_.size());
  gpustack_type_order(false);
  for (const std::uint16_t t : type_order_) {
    for (std::uint32_t w = 0; w < nw; ++w) {
      const worker_record& wr = workers_[w];
      if (!wr.eligible || wr.type != t || wr.gpu_count == 0) continue;
      std::uint32_t of_type = 0;
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
        of_type += gpus_[g].type == t ? 1u : 0u;
      if (of_type < 2) continue;
      if (ram_need > 0 && static_cast<std::uint64_t>(gpustack_ram_alloc(w)) < ram_need) continue;
      gs_gpus_.clear();
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
        const gpu_record& r = gpus_[g];
        if (r.type != t || r.total_bytes == 0) continue;
        if (detail::rate(gpustack_gpu_alloc(g), r.total_bytes) > gmu) gs_gpus_.push_back(g);
      }
      std::stable_sort(gs_gpus_.begin(), gs_gpus_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return gpustack_gpu_alloc(a) > gpustack_gpu_alloc(b);
      });
      gs_claims_.clear();
      std::uint64_t sum = 0;
      std::uint32_t n = 0;
      bool found = false;
      for (const std::uint32_t g : gs_gpus_) {
        const std::uint64_t claim = detail::gmu_claim(gpus_[g].total_bytes, gmu);
        gs_claims_.push_back(claim);
        sum = detail::sat_add(sum, claim);
        ++n;
        if (!e.tp_divisible(n)) continue;
        if (gpu_count != 0 && n >= gpu_count) {
          found = sum >= need;
          break;
        }
        if (gpu_count == 0 && sum >= need) {
          found = true;
          break;
        }
      }
      if (!found) continue;
      const auto begin = static_cast<std::uint32_t>(parts_.size());
      push_part(w, e.part_ram_bytes(sum), gs_gpus_.data(), gs_claims_.data(), n);
      candidates_.push_back({begin, 1, fit_strategy::multi_gpu, false, 0, 0});
    }
  }
  if (candidates_.empty()) return;
  // Only the candidates with the fewest GPUs stay, in order.
  std::uint32_t fewest = std::numeric_limits<std::uint32_t>::max();
  for (const candidate& c : candidates_)
    fewest = std::min(fewest, parts_[c.part_begin].claim_count);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < candidates_.size(); ++i)
    if (parts_[candidates_[i].part_begin].claim_count == fewest)
      candidates_[kept++] = candidates_[i];
  candidates_.resize(kept);
}

// find_multi_worker_multi_gpu_candidates → auto_select_multi_worker_multi_gpu_candidates and
// _create_candidate: one candidate per GPU type at most.
template <class E>
void workspace::gpustack_multi_worker(const E& e, std::uint32_t gpu_count) {
  const double gmu = e.gpu_memory_utilization();
  const std::uint64_t need = e.required_vram_bytes(), ram_need = e.ram_bytes();
  const auto nw = static_cast<std::uint32_t>(workers_.size());
  const auto count_of = [&](std::uint32_t w) {
    const worker_record& wr = workers_[w];
    std::uint32_t n = 0;
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      n += gpus_[g].type == wr.type ? 1u : 0u;
    return n;
  };
  gpustack_type_order(false);
  for (const std::uint16_t t : type_order_) {
    gs_workers_.clear();
    for (std::uint32_t w = 0; w < nw; ++w)
      if (workers_[w].eligible && workers_[w].type == t) gs_workers_.push_back(w);
    if (gs_workers_.size() < 2) continue;
    // sort_workers_by_gpu_count: most GPUs first, stable.
    std::stable_sort(gs_workers_.begin(), gs_workers_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return count_of(a) > count_of(b); });
    bool done = false;
    for (std::size_t i = 0; i < gs_workers_.size() && !done;) {
      const std::uint32_t c = count_of(gs_workers_[i]);
      std::size_t j = i;
      while (j < gs_workers_.size() && count_of(gs_workers_[j]) == c) ++j;
      const std::size_t group_begin = i, group_end = j;
      i = j;
      if (c == 0 || group_end - group_begin < 2 || !e.tp_divisible(c)) continue;
      gs_used_.clear();
      std::uint64_t gpu_sum = 0, vram_sum = 0;
      for (std::size_t k = group_begin; k < group_end; ++k) {
        const std::uint32_t w = gs_workers_[k];
        const worker_record& wr = workers_[w];
        if (ram_need > 0 && static_cast<std::uint64_t>(gpustack_ram_alloc(w)) < ram_need) continue;
        bool every_gpu = true;
        std::uint64_t claims = 0;
        for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
          const gpu_record& r = gpus_[g];
          if (r.type != t) continue;
          if (r.total_bytes == 0 || detail::rate(gpustack_gpu_alloc(g), r.total_bytes) < gmu) {
            every_gpu = false;
            break;
          }
          claims = detail::sat_add(claims, detail::gmu_claim(r.total_bytes, gmu));
        }
        if (!every_gpu) continue;
        gs_used_.push_back(w);
        gpu_sum += c;
        vram_sum = detail::sat_add(vram_sum, claims);
        if (gpu_count != 0) {
          if (gpu_sum < gpu_count) continue;
          if (gpu_sum > gpu_count) break;
        }
        if (vram_sum >= need) {
          const auto begin = static_cast<std::uint32_t>(parts_.size());
          for (const std::uint32_t u : gs_used_) {
            const worker_record& ur = workers_[u];
            gs_gpus_.clear();
            gs_claims_.clear();
            std::uint64_t sum = 0;
            for (std::uint32_t g = ur.gpu_begin; g < ur.gpu_begin + ur.gpu_count; ++g) {
              if (gpus_[g].type != t) continue;
              gs_gpus_.push_back(g);
              gs_claims_.push_back(detail::gmu_claim(gpus_[g].total_bytes, gmu));
              sum = detail::sat_add(sum, gs_claims_.back());
            }
            push_part(u, e.part_ram_bytes(sum), gs_gpus_.data(), gs_claims_.data(),
                      static_cast<std::uint32_t>(gs_gpus_.size()));
          }
          candidates_.push_back({begin, static_cast<std::uint32_t>(parts_.size()) - begin,
                                 fit_strategy::distributed, false, 0, 0});
          done = true;
          break;
        }
      }
    }
  }
}

// _find_manual_gpu_selection_candidates with sort_selected_workers_by_gpu_type_and_resource,
// _manual_select_single_worker_multi_gpu_candidates and
// _manual_select_multi_worker_multi_gpu_candidates.
template <class E>
void workspace::gpustack_manual(const E& e, std::uint32_t gpu_count) {
  const double gmu = e.gpu_memory_utilization();
  // The selected types in order of first appearance (group_gpu_indexes_by_gpu_type_and_worker).
  type_order_.clear();
  type_seen_.assign(type_count_, 0);
  for (const std::uint32_t g : selection_) {
    if (g == no_position || type_seen_[gpus_[g].type] != 0) continue;
    type_seen_[gpus_[g].type] = 1;
    type_order_.push_back(gpus_[g].type);
  }
  // Heterogeneous GPU types are refused when the replica would use every selected GPU.
  if (gpu_count == selection_.size() && type_order_.size() > 1) return;
  if (gpu_count == 0) return;
  const auto nw = static_cast<std::uint32_t>(workers_.size());
  // For type t: gs_workers_ = the eligible workers holding selected GPUs of type t, most such
  // GPUs first (stable); gs_gpus_ from gs_used_[k] = worker k's selected GPUs of type t,
  // highest allocatable rate first (stable: sort_gpu_indexes_by_allocatable_rate).
  const auto select = [&](std::uint16_t t) {
    gs_workers_.clear();
    gs_gpus_.clear();
    gs_used_.clear();
    for (std::uint32_t w = 0; w < nw; ++w) {
      const worker_record& wr = workers_[w];
      if (!wr.eligible) continue;
      const auto begin = static_cast<std::uint32_t>(gs_gpus_.size());
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
        if (gpus_[g].selected && gpus_[g].type == t) gs_gpus_.push_back(g);
      if (gs_gpus_.size() == begin) continue;
      std::stable_sort(
          gs_gpus_.begin() + begin, gs_gpus_.end(), [&](std::uint32_t a, std::uint32_t b) {
            const double ra = gpus_[a].total_bytes == 0
                                  ? 0.0
                                  : detail::rate(gpustack_gpu_alloc(a), gpus_[a].total_bytes);
            const double rb = gpus_[b].total_bytes == 0
                                  ? 0.0
                                  : detail::rate(gpustack_gpu_alloc(b), gpus_[b].total_bytes);
            return ra > rb;
          });
      gs_workers_.push_back(w);
      gs_used_.push_back(begin);
    }
    gs_used_.push_back(static_cast<std::uint32_t>(gs_gpus_.size()));
    // Sort the workers (with their spans) by selected GPU count, most first, stable.
    gs_claims_.clear();
    for (std::size_t k = 0; k + 1 < gs_used_.size(); ++k) gs_claims_.push_back(k);
    std::stable_sort(gs_claims_.begin(), gs_claims_.end(), [&](std::uint64_t a, std::uint64_t b) {
      return gs_used_[a + 1] - gs_used_[a] > gs_used_[b + 1] - gs_used_[b];
    });
  };
  const auto satisfied = [&](std::uint32_t g) {
    const gpu_record& r = gpus_[g];
    return r.total_bytes > 0 && detail::rate(gpustack_gpu_alloc(g), r.total_bytes) >= gmu;
  };
  // One worker, the GPUs gpu[0, n): satisfied ones first, then unsatisfied, gpu_count in all.
  const auto single = [&](std::uint32_t w, const std::uint32_t* gpu, std::uint32_t n) {
    if (n < gpu_count) return;
    std::uint32_t used[2][64];
    std::uint32_t sat = 0, unsat = 0;
    for (std::uint32_t k = 0; k < n && sat < gpu_count; ++k) {
      if (satisfied(gpu[k])) {
        if (sat < 64) used[0][sat] = gpu[k];
        ++sat;
      } else {
        if (unsat < 64) used[1][unsat] = gpu[k];
        ++unsat;
      }
    }
    const auto begin = static_cast<std::uint32_t>(parts_.size());
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), 0, 0};
    std::uint64_t sum = 0;
    const auto add = [&](std::uint32_t g) {
      const std::uint64_t claim = detail::gmu_claim(gpus_[g].total_bytes, gmu);
      claims_.push_back({g, gpus_[g].index, claim});
      sum = detail::sat_add(sum, claim);
    };
    // Beyond 64 GPUs the lists are re-walked (same order, no buffer).
    if (sat <= 64 && unsat <= 64) {
      for (std::uint32_t k = 0; k < sat; ++k) add(used[0][k]);
      for (std::uint32_t k = 0; k < unsat && sat + k < gpu_count; ++k) add(used[1][k]);
    } else {
      std::uint32_t s = 0, u = 0;
      for (std::uint32_t k = 0; k < n && s < sat; ++k)
        if (satisfied(gpu[k])) add(gpu[k]), ++s;
      for (std::uint32_t k = 0; k < n && u < unsat && sat + u < gpu_count; ++k)
        if (!satisfied(gpu[k])) add(gpu[k]), ++u;
    }
    part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
    part.ram_bytes = e.part_ram_bytes(sum);
    parts_.push_back(part);
    candidates_.push_back({begin, 1, fit_strategy::manual, false, 0, 0});
  };
  // The selected GPUs of worker span k in index order, with their claims, as one part.
  const auto push_ascending = [&](std::uint32_t w, std::uint32_t first, std::uint32_t end) {
    placement_part part{w, static_cast<std::uint32_t>(claims_.size()), 0, 0};
    std::uint64_t sum = 0;
    for (std::uint32_t k = first; k < end; ++k) {
      const std::uint32_t g = gs_gpus_[k];
      const std::uint64_t claim = detail::gmu_claim(gpus_[g].total_bytes, gmu);
      claims_.push_back({g, gpus_[g].index, claim});
      sum = detail::sat_add(sum, claim);
    }
    std::sort(claims_.begin() + part.claim_begin, claims_.end(),
              [](const claim_record& a, const claim_record& b) { return a.index < b.index; });
    part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
    part.ram_bytes = e.part_ram_bytes(sum);
    parts_.push_back(part);
  };
  if (gpu_count == 1) {
    for (const std::uint16_t t : type_order_) {
      select(t);
      for (const std::uint64_t k : gs_claims_)
        for (std::uint32_t i = gs_used_[k]; i < gs_used_[k + 1]; ++i)
          single(gs_workers_[k], &gs_gpus_[i], 1);
    }
  } else {
    for (const std::uint16_t t : type_order_) {
      select(t);
      for (const std::uint64_t k : gs_claims_)
        single(gs_workers_[k], gs_gpus_.data() + gs_used_[k], gs_used_[k + 1] - gs_used_[k]);
    }
    if (candidates_.empty()) {
      for (const std::uint16_t t : type_order_) {
        select(t);
        if (gs_claims_.size() < 2) continue;
        const auto begin = static_cast<std::uint32_t>(parts_.size());
        const std::uint64_t main = gs_claims_[0];
        push_ascending(gs_workers_[main], gs_used_[main], gs_used_[main + 1]);
        std::uint32_t placed = gs_used_[main + 1] - gs_used_[main];
        for (std::size_t s = 1; s < gs_claims_.size(); ++s) {
          const std::uint64_t k = gs_claims_[s];
          const std::uint32_t w = gs_workers_[k];
          if (distributed_on_[w] != 0) continue;  // one distributed instance per worker
          // Its GPUs by claim rate, highest first (stable from the allocatable-rate order),
          // as many as the replica still needs.
          std::stable_sort(
              gs_gpus_.begin() + gs_used_[k], gs_gpus_.begin() + gs_used_[k + 1],
              [&](std::uint32_t a, std::uint32_t b) {
                const std::uint64_t ta = gpus_[a].total_bytes, tb = gpus_[b].total_bytes;
                return static_cast<double>(detail::gmu_claim(ta, gmu)) / static_cast<double>(ta) >
                       static_cast<double>(detail::gmu_claim(tb, gmu)) / static_cast<double>(tb);
              });
          const std::uint32_t remaining = gpu_count > placed ? gpu_count - placed : 0;
          const std::uint32_t take = std::min(gs_used_[k + 1] - gs_used_[k], remaining);
          placement_part part{w, static_cast<std::uint32_t>(claims_.size()), 0, 0};
          std::uint64_t sum = 0;
          for (std::uint32_t i = 0; i < take; ++i) {
            const std::uint32_t g = gs_gpus_[gs_used_[k] + i];
            const std::uint64_t claim = detail::gmu_claim(gpus_[g].total_bytes, gmu);
            claims_.push_back({g, gpus_[g].index, claim});
            sum = detail::sat_add(sum, claim);
          }
          part.claim_count = take;
          part.ram_bytes = e.part_ram_bytes(sum);
          parts_.push_back(part);
          placed += take;
          if (placed >= gpu_count) break;
        }
        const auto count = static_cast<std::uint32_t>(parts_.size()) - begin;
        if (count < 2) {  // no subordinate: no candidate
          const std::uint32_t cb = parts_[begin].claim_begin;
          parts_.resize(begin);
          claims_.resize(cb);
          continue;
        }
        candidates_.push_back({begin, count, fit_strategy::manual, false, 0, 0});
      }
    }
  }
  gpustack_overcommit(e);
}

// _get_non_overcommit_and_best_overcommit_candidates (LLM case): the candidates that do not
// over-commit stay; if every one does, the model with one replica keeps the best (largest
// effective VRAM, the last among equals), marked overcommit; with more replicas none.
template <class E>
void workspace::gpustack_overcommit(const E& e) {
  if (candidates_.empty()) return;
  const double gmu = e.gpu_memory_utilization();
  const std::uint64_t need = e.required_vram_bytes(), ram_need = e.ram_bytes();
  const auto selected = static_cast<std::uint32_t>(selection_.size());
  const auto satisfied = [&](std::uint32_t g) {
    const gpu_record& r = gpus_[g];
    return r.total_bytes > 0 && detail::rate(gpustack_gpu_alloc(g), r.total_bytes) >= gmu;
  };
  std::uint64_t selected_alloc = 0;  // allocatable VRAM of every selected GPU of a kept worker
  for (const std::uint32_t g : selection_)
    if (g != no_position && workers_[gpus_[g].worker].eligible)
      selected_alloc =
          detail::sat_add(selected_alloc, static_cast<std::uint64_t>(gpustack_gpu_alloc(g)));
  std::size_t kept = 0, best = candidates_.size();
  double best_effective = 0;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const candidate& c = candidates_[i];
    std::uint64_t vram = 0, ram = 0, alloc = 0;
    std::uint32_t used = 0, sat = 0;
    for (std::uint32_t p = c.part_begin; p < c.part_begin + c.part_count; ++p) {
      ram = detail::sat_add(ram, parts_[p].ram_bytes);
      for (std::uint32_t k = parts_[p].claim_begin;
           k < parts_[p].claim_begin + parts_[p].claim_count; ++k) {
        const claim_record& cl = claims_[k];
        vram = detail::sat_add(vram, cl.vram_bytes);
        alloc = detail::sat_add(alloc, static_cast<std::uint64_t>(gpustack_gpu_alloc(cl.gpu)));
        ++used;
        sat += satisfied(cl.gpu) ? 1u : 0u;
      }
    }
    const bool overcommit = vram < need || (ram_need > 0 && ram < ram_need) || sat < used;
    if (!overcommit) {
      candidates_[kept++] = c;
      continue;
    }
    const double effective = static_cast<double>(used < selected ? alloc : selected_alloc) * gmu;
    if (effective >= best_effective) {
      best_effective = effective;
      best = i;
    }
  }
  if (kept > 0) {
    candidates_.resize(kept);
    return;
  }
  if (replicas_ > 1 || best == candidates_.size()) {
    candidates_.clear();
    return;
  }
  candidates_[0] = candidates_[best];
  candidates_[0].overcommit = true;
  candidates_.resize(1);
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The gpustack listing (candidate_listing::gpustack): GPUStack's vLLM resource-fit
// selector, decision for decision, over an indexed workspace. Each stage is one member
// function of detail::gpustack_listing, following upstream's functions of the same role in
// gpustack/policies/candidate_selectors/{base_candidate_selector,vllm_resource_fit_selector}.py
// and gpustack/policies/utils.py:
//  - manual:       _find_manual_gpu_selection_candidates (explicit GPU selection; no other
//                  stage runs then), with the over-commit rule of
//                  _get_non_overcommit_and_best_overcommit_candidates;
//  - single GPU:   find_single_worker_single_gpu_full_offloading_candidates (skipped when the
//                  world size is > 1): every GPU that holds the need at utilization × total
//                  and has at least that share of its total allocatable (>=);
//  - multi GPU:    find_single_worker_multi_gpu_full_offloading_candidates (skipped when the
//                  world size is 1): per worker, its GPUs with more than that share
//                  allocatable (>), largest allocatable first (ties in listed order), the
//                  fewest whose claims cover the need with a count dividing heads and
//                  vocabulary (with a world size: the first such count at or above it,
//                  which is the world size itself when that divides them); only the fewest
//                  GPUs are kept;
//  - distributed:  find_multi_worker_multi_gpu_candidates (only with
//                  distributed_inference::across_workers): per GPU type, workers grouped by
//                  GPU count (most first), the first group whose workers with every GPU at
//                  >= the share cover the need: exactly one candidate per type.
// Candidates are listed grouped by GPU type in order of first appearance
// (group_workers_by_gpu_type), workers in the caller's order, GPUs in listed order. Upstream
// shallow-copies each worker per type and assigns the copy's (shared) status, so a worker
// whose GPUs have several types takes part with the GPUs of the type that appears last for
// the first time among them, but still places its other types in the first stage's order:
// reproduced (worker_record::type). Allocatable amounts are GPUStack's
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
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../detail/byte_counts.hpp"
#include "../error.hpp"
#include "estimators.hpp"
#include "view.hpp"
#include "workspace.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

/// n > x exactly, for x >= 0 (Python compares an int with a float exactly).
[[nodiscard]] constexpr bool exceeds(std::uint64_t n, double x) noexcept {
  if (!(x >= 0.0)) return true;
  if (x >= two_to_the_64) return false;
  return n > static_cast<std::uint64_t>(x);  // n > x ⇔ n > ⌊x⌋ for an integer n
}
/// allocatable / total, as Python's true division of two ints (exact below 2^53).
[[nodiscard]] constexpr double rate(std::int64_t allocatable, std::uint64_t total) noexcept {
  return static_cast<double>(allocatable) / static_cast<double>(total);
}

/// GPUStack's vLLM resource-fit selector over a workspace's eligible workers (the header
/// comment lists its stages and their upstream functions).
template <class E>
class gpustack_listing {
 public:
  gpustack_listing(workspace& ws, const E& e)
      : ws_(ws),
        e_(e),
        utilization_(e.gpu_memory_utilization()),
        need_(e.required_vram_bytes()),
        ram_need_(e.ram_bytes()),
        s_(ws.scratch_) {}

  fit_strategy run() {
    ws_.drop_candidates();
    const std::uint32_t world = e_.world_size();
    if (ws_.has_selection_) {
      manual(manual_gpu_count(world));
      return ws_.candidates_.empty() ? fit_strategy::none : fit_strategy::manual;
    }
    if (world <= 1 && single_gpu()) return fit_strategy::single_gpu;
    if (world != 1 && multi_gpu(world)) return fit_strategy::multi_gpu;
    if (e_.capabilities().distributed && multi_worker(world)) return fit_strategy::distributed;
    return fit_strategy::none;
  }

 private:
  // ⌊total × utilization⌋: GPUStack's int(gpu.memory.total * gpu_memory_utilization).
  [[nodiscard]] std::uint64_t claim_of(std::uint32_t g) const noexcept {
    return floor_bytes(static_cast<double>(ws_.gpus_[g].total_bytes) * utilization_);
  }
  // Allocatable VRAM of GPU g as GPUStack's fit sees it for the GPU's type, clamped at 0.
  [[nodiscard]] std::int64_t gpu_alloc(std::uint32_t g) const noexcept {
    byte_balance sum = ws_.vram_exact_.exact_value(ws_.gpus_[g].alloc_bytes, g);
    sum.add(ws_.excluded_vram_exact_.exact_value(ws_.excluded_vram_[g], g));
    return std::max<std::int64_t>(sum.saturated(), 0);
  }
  // Allocatable RAM of worker w as GPUStack's fit sees it for its type, clamped at 0.
  [[nodiscard]] std::int64_t ram_alloc(std::uint32_t w) const noexcept {
    byte_balance sum = ws_.ram_exact_.exact_value(ws_.workers_[w].ram_alloc_bytes, w);
    sum.add(ws_.excluded_ram_exact_.exact_value(ws_.excluded_ram_[w], w));
    return std::max<std::int64_t>(sum.saturated(), 0);
  }
  [[nodiscard]] bool ram_ok(std::uint32_t w) const noexcept {
    return ram_need_ == 0 || static_cast<std::uint64_t>(ram_alloc(w)) >= ram_need_;
  }
  // allocatable / total of GPU g (0 for a GPU without memory).
  [[nodiscard]] double gpu_rate(std::uint32_t g) const noexcept {
    const std::uint64_t total = ws_.gpus_[g].total_bytes;
    return total == 0 ? 0.0 : rate(gpu_alloc(g), total);
  }
  // At least the utilization share of GPU g is allocatable.
  [[nodiscard]] bool satisfied(std::uint32_t g) const noexcept {
    return ws_.gpus_[g].total_bytes > 0 && gpu_rate(g) >= utilization_;
  }
  // Appends GPUs gpu[0, n) of worker w with their claims as one part (RAM by the part's
  // VRAM claims); returns the part's VRAM claims.
  std::uint64_t push_part(std::uint32_t w, const std::uint32_t* gpu, std::uint32_t n) {
    placement_part part{.worker_position = w,
                        .claim_begin = static_cast<std::uint32_t>(ws_.claims_.size())};
    std::uint64_t sum = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint64_t claim = claim_of(gpu[k]);
      ws_.claims_.push_back(
          {.gpu_position = gpu[k], .index = ws_.gpus_[gpu[k]].index, .vram_bytes = claim});
      sum = sat_add(sum, claim);
    }
    part.claim_count = n;
    part.ram_bytes = e_.part_ram_bytes(sum);
    ws_.parts_.push_back(part);
    return sum;
  }
  void push_candidate(std::uint32_t begin, fit_strategy strategy) {
    ws_.candidates_.push_back({.part_begin = begin,
                               .part_count = static_cast<std::uint32_t>(ws_.parts_.size()) - begin,
                               .strategy = strategy});
  }

  // Which GPU types a worker contributes to s_.type_order: every type of its GPUs (the first
  // call of group_workers_by_gpu_type), or its effective type only (the later calls).
  enum class types_of_worker : std::uint8_t { every_gpu, effective };
  // s_.type_order: the GPU types of the eligible workers in order of first appearance; a
  // worker without GPUs contributes the untyped group.
  void type_order(types_of_worker contributes) {
    s_.type_order.clear();
    s_.type_seen.assign(ws_.types_.count(), 0);
    for (const worker_record& wr : ws_.workers_) {
      if (!wr.eligible) continue;
      if (contributes == types_of_worker::effective || wr.gpu_count == 0) {
        see_type(wr.type);
        continue;
      }
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
        see_type(ws_.gpus_[g].type);
    }
  }
  void see_type(std::uint16_t t) {
    if (s_.type_seen[t] != 0) return;
    s_.type_seen[t] = 1;
    s_.type_order.push_back(t);
  }

  // find_single_worker_single_gpu_full_offloading_candidates.
  bool single_gpu() {
    type_order(types_of_worker::every_gpu);
    for (const std::uint16_t t : s_.type_order) {
      for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
        const worker_record& wr = ws_.workers_[w];
        if (!wr.eligible || wr.type != t || wr.gpu_count == 0 || !ram_ok(w)) continue;
        for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
          const gpu_record& r = ws_.gpus_[g];
          if (r.type != t || r.total_bytes == 0) continue;
          if (exceeds(need_, static_cast<double>(r.total_bytes) * utilization_) ||
              rate(gpu_alloc(g), r.total_bytes) < utilization_)
            continue;
          const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
          push_part(w, &g, 1);
          push_candidate(begin, fit_strategy::single_gpu);
        }
      }
    }
    return !ws_.candidates_.empty();
  }

  // find_single_worker_multi_gpu_full_offloading_candidates: per worker, then only the
  // candidates with the fewest GPUs stay, in order.
  bool multi_gpu(std::uint32_t gpu_count) {
    type_order(types_of_worker::effective);
    for (const std::uint16_t t : s_.type_order)
      for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) multi_gpu_on(w, t, gpu_count);
    if (ws_.candidates_.empty()) return false;
    std::uint32_t fewest = std::numeric_limits<std::uint32_t>::max();
    for (const candidate& c : ws_.candidates_)
      fewest = std::min(fewest, ws_.parts_[c.part_begin].claim_count);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ws_.candidates_.size(); ++i)
      if (ws_.parts_[ws_.candidates_[i].part_begin].claim_count == fewest)
        ws_.candidates_[kept++] = ws_.candidates_[i];
    ws_.candidates_.resize(kept);
    return true;
  }
  // Worker w's GPUs of type t above the utilization share, largest allocatable first, the
  // fewest that cover the need with a valid count (when gpu_count is set: the first count
  // at or above it that divides the heads and vocabulary, as upstream skips the others
  // before it compares).
  void multi_gpu_on(std::uint32_t w, std::uint16_t t, std::uint32_t gpu_count) {
    const worker_record& wr = ws_.workers_[w];
    if (!wr.eligible || wr.type != t || wr.gpu_count == 0 || of_type(w, t) < 2 || !ram_ok(w))
      return;
    s_.gpus.clear();
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
      const gpu_record& r = ws_.gpus_[g];
      if (r.type == t && r.total_bytes != 0 && rate(gpu_alloc(g), r.total_bytes) > utilization_)
        s_.gpus.push_back(g);
    }
    std::stable_sort(s_.gpus.begin(), s_.gpus.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return gpu_alloc(a) > gpu_alloc(b); });
    std::uint64_t sum = 0;
    for (std::uint32_t n = 1; n <= s_.gpus.size(); ++n) {
      sum = sat_add(sum, claim_of(s_.gpus[n - 1]));
      if (!e_.tp_divisible(n)) continue;
      const bool enough = gpu_count != 0 ? n >= gpu_count : sum >= need_;
      if (!enough) continue;
      if (sum < need_) return;  // the world size (or the first valid count above it) falls short
      const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
      push_part(w, s_.gpus.data(), n);
      push_candidate(begin, fit_strategy::multi_gpu);
      return;
    }
  }
  // GPUs of type t on worker w.
  [[nodiscard]] std::uint32_t of_type(std::uint32_t w, std::uint16_t t) const noexcept {
    const worker_record& wr = ws_.workers_[w];
    std::uint32_t n = 0;
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      n += ws_.gpus_[g].type == t ? 1u : 0u;
    return n;
  }

  // find_multi_worker_multi_gpu_candidates → auto_select_multi_worker_multi_gpu_candidates
  // and _create_candidate: one candidate per GPU type at most.
  bool multi_worker(std::uint32_t gpu_count) {
    type_order(types_of_worker::effective);
    for (const std::uint16_t t : s_.type_order) {
      s_.workers.clear();
      for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w)
        if (ws_.workers_[w].eligible && ws_.workers_[w].type == t) s_.workers.push_back(w);
      if (s_.workers.size() < 2) continue;
      // sort_workers_by_gpu_count: most GPUs (of the worker's type) first, stable.
      std::stable_sort(s_.workers.begin(), s_.workers.end(), [&](std::uint32_t a, std::uint32_t b) {
        return of_type(a, ws_.workers_[a].type) > of_type(b, ws_.workers_[b].type);
      });
      for (std::size_t i = 0; i < s_.workers.size();) {
        const std::uint32_t c = of_type(s_.workers[i], t);
        std::size_t j = i;
        while (j < s_.workers.size() && of_type(s_.workers[j], t) == c) ++j;
        const bool found =
            c != 0 && j - i >= 2 && e_.tp_divisible(c) && multi_worker_group(t, c, i, j, gpu_count);
        i = j;
        if (found) break;
      }
    }
    return !ws_.candidates_.empty();
  }
  // The group s_.workers[first, end) of workers with c GPUs of type t each: the first
  // workers (every GPU at the share or above, RAM for the need) that cover the need (and
  // the world size exactly, when set) make the candidate; true iff they did.
  bool multi_worker_group(std::uint16_t t, std::uint32_t c, std::size_t first, std::size_t end,
                          std::uint32_t gpu_count) {
    s_.spans.clear();  // the workers used
    std::uint64_t gpu_sum = 0, vram_sum = 0;
    for (std::size_t k = first; k < end; ++k) {
      const std::uint32_t w = s_.workers[k];
      std::uint64_t claims = 0;
      if (!ram_ok(w) || !every_gpu_satisfied(w, t, claims)) continue;
      s_.spans.push_back(w);
      gpu_sum += c;
      vram_sum = sat_add(vram_sum, claims);
      if (gpu_count != 0 && gpu_sum < gpu_count) continue;
      if (gpu_count != 0 && gpu_sum > gpu_count) return false;
      if (vram_sum < need_) continue;
      const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
      for (const std::uint32_t u : s_.spans) {
        const worker_record& ur = ws_.workers_[u];
        s_.gpus.clear();
        for (std::uint32_t g = ur.gpu_begin; g < ur.gpu_begin + ur.gpu_count; ++g)
          if (ws_.gpus_[g].type == t) s_.gpus.push_back(g);
        push_part(u, s_.gpus.data(), static_cast<std::uint32_t>(s_.gpus.size()));
      }
      push_candidate(begin, fit_strategy::distributed);
      return true;
    }
    return false;
  }
  // true iff every GPU of type t on worker w is at the share or above; claims: their sum.
  bool every_gpu_satisfied(std::uint32_t w, std::uint16_t t, std::uint64_t& claims) const {
    const worker_record& wr = ws_.workers_[w];
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
      const gpu_record& r = ws_.gpus_[g];
      if (r.type != t) continue;
      if (r.total_bytes == 0 || rate(gpu_alloc(g), r.total_bytes) < utilization_) return false;
      claims = sat_add(claims, claim_of(g));
    }
    return true;
  }

  // _set_gpu_count: gpus_per_replica or the selection's size, which a world size must equal.
  [[nodiscard]] std::uint32_t manual_gpu_count(std::uint32_t world) const {
    const std::uint32_t count = ws_.gpus_per_replica_ != 0
                                    ? ws_.gpus_per_replica_
                                    : static_cast<std::uint32_t>(ws_.selection_.size());
    if (world != 0 && world != count)
      fail("gpus_per_replica", count,
           "must equal the world size (tensor × pipeline parallel size)");
    return world != 0 ? world : count;
  }
  // _find_manual_gpu_selection_candidates with sort_selected_workers_by_gpu_type_and_resource,
  // _manual_select_single_worker_multi_gpu_candidates and
  // _manual_select_multi_worker_multi_gpu_candidates, then the over-commit rule.
  void manual(std::uint32_t gpu_count) {
    // The selected types in order of first appearance (group_gpu_indexes_by_gpu_type_and_worker).
    s_.type_order.clear();
    s_.type_seen.assign(ws_.types_.count(), 0);
    for (const std::uint32_t g : ws_.selection_)
      if (g != no_position) see_type(ws_.gpus_[g].type);
    // Heterogeneous GPU types are refused when the replica would use every selected GPU.
    if (gpu_count == ws_.selection_.size() && s_.type_order.size() > 1) return;
    if (gpu_count == 0) return;
    for (const std::uint16_t t : s_.type_order) {
      select_manual(t);
      for (const std::uint64_t k : s_.ranks) {
        if (gpu_count == 1) {
          for (std::uint32_t i = s_.spans[k]; i < s_.spans[k + 1]; ++i)
            manual_single(s_.workers[k], &s_.gpus[i], 1, gpu_count);
        } else {
          manual_single(s_.workers[k], s_.gpus.data() + s_.spans[k], span_size(k), gpu_count);
        }
      }
    }
    if (ws_.candidates_.empty() && gpu_count > 1)
      for (const std::uint16_t t : s_.type_order) manual_multi_worker(t, gpu_count);
    overcommit();
  }
  [[nodiscard]] std::uint32_t span_size(std::uint64_t k) const noexcept {
    return s_.spans[k + 1] - s_.spans[k];
  }
  // For type t: s_.workers = the eligible workers holding selected GPUs of type t; s_.gpus
  // from s_.spans[k] = worker k's selected GPUs of type t, highest allocatable rate first
  // (stable: sort_gpu_indexes_by_allocatable_rate); s_.ranks = the workers' order, most
  // such GPUs first (stable).
  void select_manual(std::uint16_t t) {
    s_.workers.clear();
    s_.gpus.clear();
    s_.spans.clear();
    for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
      const worker_record& wr = ws_.workers_[w];
      if (!wr.eligible) continue;
      const auto begin = static_cast<std::uint32_t>(s_.gpus.size());
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
        if (ws_.gpus_[g].selected && ws_.gpus_[g].type == t) s_.gpus.push_back(g);
      if (s_.gpus.size() == begin) continue;
      std::stable_sort(s_.gpus.begin() + begin, s_.gpus.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return gpu_rate(a) > gpu_rate(b); });
      s_.workers.push_back(w);
      s_.spans.push_back(begin);
    }
    s_.spans.push_back(static_cast<std::uint32_t>(s_.gpus.size()));
    s_.ranks.clear();
    for (std::size_t k = 0; k + 1 < s_.spans.size(); ++k) s_.ranks.push_back(k);
    std::stable_sort(s_.ranks.begin(), s_.ranks.end(),
                     [&](std::uint64_t a, std::uint64_t b) { return span_size(a) > span_size(b); });
  }
  // One worker, the GPUs gpu[0, n): satisfied ones first, then unsatisfied, gpu_count in all.
  void manual_single(std::uint32_t w, const std::uint32_t* gpu, std::uint32_t n,
                     std::uint32_t gpu_count) {
    if (n < gpu_count) return;
    std::uint32_t sat = 0, unsat = 0;  // among the GPUs scanned until gpu_count are satisfied
    for (std::uint32_t k = 0; k < n && sat < gpu_count; ++k) (satisfied(gpu[k]) ? sat : unsat)++;
    s_.claims.clear();  // the chosen GPUs, in order
    for (std::uint32_t k = 0, s = 0; k < n && s < sat; ++k)
      if (satisfied(gpu[k])) s_.claims.push_back(gpu[k]), ++s;
    for (std::uint32_t k = 0, u = 0; k < n && u < unsat && sat + u < gpu_count; ++k)
      if (!satisfied(gpu[k])) s_.claims.push_back(gpu[k]), ++u;
    const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
    placement_part part{.worker_position = w,
                        .claim_begin = static_cast<std::uint32_t>(ws_.claims_.size())};
    std::uint64_t sum = 0;
    for (const std::uint64_t g64 : s_.claims) {
      const auto g = static_cast<std::uint32_t>(g64);
      ws_.claims_.push_back(
          {.gpu_position = g, .index = ws_.gpus_[g].index, .vram_bytes = claim_of(g)});
      sum = sat_add(sum, claim_of(g));
    }
    part.claim_count = static_cast<std::uint32_t>(ws_.claims_.size()) - part.claim_begin;
    part.ram_bytes = e_.part_ram_bytes(sum);
    ws_.parts_.push_back(part);
    push_candidate(begin, fit_strategy::manual);
  }
  // The multi-worker fallback for type t: the worker with the most selected GPUs as main
  // (all of them, in index order), then workers without a distributed instance, each its
  // GPUs of the highest claim rate first, until the replica has gpu_count GPUs.
  void manual_multi_worker(std::uint16_t t, std::uint32_t gpu_count) {
    select_manual(t);
    if (s_.ranks.size() < 2) return;
    const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
    const std::uint64_t main = s_.ranks[0];
    const std::uint32_t main_claims = static_cast<std::uint32_t>(ws_.claims_.size());
    push_part(s_.workers[main], s_.gpus.data() + s_.spans[main], span_size(main));
    std::sort(ws_.claims_.begin() + main_claims, ws_.claims_.end(),
              [](const claim_record& a, const claim_record& b) { return a.index < b.index; });
    std::uint32_t placed = span_size(main);
    for (std::size_t r = 1; r < s_.ranks.size(); ++r) {
      const std::uint64_t k = s_.ranks[r];
      const std::uint32_t w = s_.workers[k];
      if (ws_.distributed_on_[w] != 0) continue;  // one distributed instance per worker
      // Its GPUs by claim rate, highest first (stable from the allocatable-rate order).
      std::stable_sort(
          s_.gpus.begin() + s_.spans[k], s_.gpus.begin() + s_.spans[k + 1],
          [&](std::uint32_t a, std::uint32_t b) { return claim_rate(a) > claim_rate(b); });
      const std::uint32_t take =
          std::min(span_size(k), gpu_count > placed ? gpu_count - placed : 0);
      push_part(w, s_.gpus.data() + s_.spans[k], take);
      placed += take;
      if (placed >= gpu_count) break;
    }
    if (ws_.parts_.size() - begin < 2) {  // no subordinate: no candidate
      ws_.claims_.resize(ws_.parts_[begin].claim_begin);
      ws_.parts_.resize(begin);
      return;
    }
    push_candidate(begin, fit_strategy::manual);
  }
  [[nodiscard]] double claim_rate(std::uint32_t g) const noexcept {
    return static_cast<double>(claim_of(g)) / static_cast<double>(ws_.gpus_[g].total_bytes);
  }

  // _get_non_overcommit_and_best_overcommit_candidates (LLM case): the candidates that do not
  // over-commit stay; if every one does, the model with one replica keeps the best (largest
  // effective VRAM, the last among equals), marked overcommit; with more replicas none.
  void overcommit() {
    if (ws_.candidates_.empty()) return;
    std::uint64_t selected_alloc = 0;  // allocatable VRAM of every selected GPU of a kept worker
    for (const std::uint32_t g : ws_.selection_)
      if (g != no_position && ws_.workers_[ws_.gpus_[g].worker_position].eligible)
        selected_alloc = sat_add(selected_alloc, static_cast<std::uint64_t>(gpu_alloc(g)));
    const auto selected = static_cast<std::uint32_t>(ws_.selection_.size());
    std::size_t kept = 0, best = ws_.candidates_.size();
    double best_effective = 0;
    for (std::size_t i = 0; i < ws_.candidates_.size(); ++i) {
      const candidate& c = ws_.candidates_[i];
      std::uint64_t vram = 0, ram = 0, alloc = 0;
      std::uint32_t used = 0, sat = 0;
      for (std::uint32_t p = c.part_begin; p < c.part_begin + c.part_count; ++p) {
        ram = sat_add(ram, ws_.parts_[p].ram_bytes);
        for (const claim_record& cl :
             std::span(ws_.claims_.data() + ws_.parts_[p].claim_begin, ws_.parts_[p].claim_count)) {
          vram = sat_add(vram, cl.vram_bytes);
          alloc = sat_add(alloc, static_cast<std::uint64_t>(gpu_alloc(cl.gpu_position)));
          ++used;
          sat += satisfied(cl.gpu_position) ? 1u : 0u;
        }
      }
      if (vram >= need_ && (ram_need_ == 0 || ram >= ram_need_) && sat == used) {
        ws_.candidates_[kept++] = c;
        continue;
      }
      const double effective =
          static_cast<double>(used < selected ? alloc : selected_alloc) * utilization_;
      if (effective >= best_effective) best_effective = effective, best = i;
    }
    if (kept > 0) {
      ws_.candidates_.resize(kept);
    } else if (ws_.replicas_ > 1 || best == ws_.candidates_.size()) {
      ws_.candidates_.clear();
    } else {
      keep_best_overcommit(best);
    }
  }
  void keep_best_overcommit(std::size_t best) {
    ws_.candidates_[0] = ws_.candidates_[best];
    ws_.candidates_[0].overcommit = true;
    ws_.candidates_.resize(1);
  }

  workspace& ws_;
  const E& e_;
  double utilization_;
  std::uint64_t need_, ram_need_;
  listing_scratch& s_;
};

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

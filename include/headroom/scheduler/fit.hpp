// SPDX-License-Identifier: Apache-2.0
// The fit ladder: which candidate placements a decision scores. fit(ws, estimator, options)
// lists them over the eligible workers of an indexed workspace, as options.listing says:
//  - grouped (the default, ours): single worker single GPU → single worker several GPUs →
//    across workers (main + subordinates) → partial offload, else CPU only, stopping at the
//    first stage that yields candidates; equivalent GPUs of a worker yield one candidate;
//  - gpustack: GPUStack's vLLM resource-fit selector, every candidate in GPUStack's order
//    (scheduler/gpustack_fit.hpp).
// Requirements come from an estimator (scheduler/estimators.hpp).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "../detail/byte_counts.hpp"
#include "../error.hpp"
#include "estimators.hpp"
#include "gpustack_fit.hpp"
#include "view.hpp"
#include "workspace.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

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

/// Tuning of the fit ladder and of the pick.
struct fit_options {
  std::uint32_t max_subordinates = 8;  ///< most subordinates of a grouped distributed candidate
  candidate_listing listing = candidate_listing::grouped;  ///< which candidates are listed
  tie_break ties = tie_break::lowest_worker_id;            ///< who wins a tie
};

/// GPUStack's rules: its candidate list, in its order, and the first maximum wins. With
/// gpustack_scale_up_chain() this is the gpustack preset (docs/scheduler.md §4).
[[nodiscard]] constexpr fit_options gpustack_fit_options() noexcept {
  return {.listing = candidate_listing::gpustack, .ties = tie_break::first_listed};
}

namespace detail {
/// An estimator with the stage-4 fallbacks (Estimator's optional members).
template <class E>
concept OffloadEstimator = requires(const E& e, std::uint64_t t, std::int64_t a) {
  { e.offload(t, a, a) } -> std::convertible_to<std::optional<offload_fit>>;
};
template <class E>
concept CpuEstimator = requires(const E& e) {
  { e.cpu_ram_bytes() } -> std::convertible_to<std::uint64_t>;
};

/// headroom's ladder (candidate_listing::grouped) over a workspace's eligible workers, one
/// stage per member function; run() stops at the first stage that yields candidates.
template <class E>
class grouped_listing {
 public:
  grouped_listing(workspace& ws, const E& e, const fit_options& options)
      : ws_(ws), e_(e), options_(options), caps_(e.capabilities()), ram_need_(e.ram_bytes()) {}

  fit_strategy run() {
    ws_.drop_candidates();
    if (single_gpu()) return fit_strategy::single_gpu;
    if (!ws_.has_selection_) compute_claims();
    if (caps_.multi_gpu && multi_gpu()) return fit_strategy::multi_gpu;
    if (caps_.distributed && options_.max_subordinates > 0 && distributed())
      return fit_strategy::distributed;
    if constexpr (OffloadEstimator<E>)
      if (caps_.partial_offload && partial_offload()) return fit_strategy::partial_offload;
    if constexpr (CpuEstimator<E>)
      if (caps_.cpu_only && !ws_.has_selection_ && cpu_only()) return fit_strategy::cpu_only;
    return fit_strategy::none;
  }

 private:
  [[nodiscard]] bool ram_ok(const worker_record& w) const noexcept {
    return ram_need_ == 0 || holds_bytes(w.ram_alloc_bytes, ram_need_);
  }
  // 1. One worker, one GPU. GPUs indistinguishable from an earlier one of their worker
  //    (twins) would never win (equivalent_to_earlier), so without an explicit selection
  //    only each worker's distinct GPUs are read and their claims computed (the estimator
  //    is a pure function). The buffers are sized for every GPU (free after the first
  //    decision: logical sizes), written in place, then trimmed to the n candidates found.
  bool single_gpu() {
    const std::size_t p0 = ws_.parts_.size(), c0 = ws_.claims_.size();
    const std::size_t gpus = ws_.gpus_.size();
    ws_.parts_.resize(p0 + gpus);
    ws_.claims_.resize(c0 + gpus);
    ws_.candidates_.resize(gpus);
    ws_.candidate_worker_.resize(gpus);
    ws_.candidate_left_.resize(gpus);
    placement_part* const part = ws_.parts_.data() + p0;
    claim_record* const claim = ws_.claims_.data() + c0;
    candidate* const cand = ws_.candidates_.data();
    std::uint32_t* const worker = ws_.candidate_worker_.data();
    double* const left = ws_.candidate_left_.data();
    std::uint32_t n = 0;
    const auto emit = [&](std::uint32_t g, std::uint32_t index, std::uint32_t w, std::uint64_t c,
                          std::int64_t a) {
      claim[n] = {.gpu_position = g, .index = index, .vram_bytes = c};
      worker[n] = w;
      left[n] = 0.0 + (static_cast<double>(a) - static_cast<double>(c));  // as best fit sums
      part[n] = {.worker_position = w,
                 .claim_begin = static_cast<std::uint32_t>(c0 + n),
                 .claim_count = 1,
                 .ram_bytes = ram_need_};
      cand[n] = {.part_begin = static_cast<std::uint32_t>(p0 + n),
                 .part_count = 1,
                 .strategy = fit_strategy::single_gpu};
      ++n;
    };
    const auto workers = static_cast<std::uint32_t>(ws_.workers_.size());
    if (!ws_.has_selection_) {
      // The verdicts and allocatable RAM are read from their dense copies, not the records.
      const std::uint8_t* const eligible = ws_.eligible_.data();
      const std::int64_t* const ram = ws_.ram_alloc_.data();
      for (std::uint32_t w = 0; w < workers; ++w) {
        if (eligible[w] == 0 || (ram_need_ != 0 && !holds_bytes(ram[w], ram_need_))) continue;
        for (const distinct_gpus::entry& d : ws_.distinct_.of(w)) {
          const std::uint64_t c = e_.gpu_claim_bytes(d.total_bytes, d.alloc_bytes);
          if (c != 0 && e_.fits(c, 1)) emit(d.gpu_position, d.index, w, c, d.alloc_bytes);
        }
      }
    } else {
      compute_claims();
      for (std::uint32_t w = 0; w < workers; ++w) {
        const worker_record& wr = ws_.workers_[w];
        if (!wr.eligible || !ram_ok(wr)) continue;
        for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
          const std::uint64_t c = claims()[g];
          if (c != 0 && e_.fits(c, 1) && !equivalent_to_earlier(g))
            emit(g, ws_.gpus_[g].index, w, c, ws_.gpu_alloc_[g]);
        }
      }
    }
    ws_.parts_.resize(p0 + n);
    ws_.claims_.resize(c0 + n);
    ws_.candidates_.resize(n);
    ws_.candidate_worker_.resize(n);
    ws_.candidate_left_.resize(n);
    ws_.dense_candidates_ = true;
    return n > 0;
  }
  // 2. One worker, several GPUs: the smallest valid count of its largest claims.
  bool multi_gpu() {
    for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
      const worker_record& wr = ws_.workers_[w];
      if (!wr.eligible || !ram_ok(wr) || wr.gpu_count < 2) continue;
      const std::uint32_t k = sorted_eligible(wr);
      std::uint64_t sum = 0;
      for (std::uint32_t n = 1; n <= k; ++n) {
        sum = sat_add(sum, claims()[order()[n - 1]]);
        if (n >= 2 && e_.fits(sum, n)) {
          const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
          push_sorted_part(w, n);
          ws_.candidates_.push_back(
              {.part_begin = begin, .part_count = 1, .strategy = fit_strategy::multi_gpu});
          break;
        }
      }
    }
    return !ws_.candidates_.empty();
  }
  // 3. Across workers: each worker as main with all its eligible GPUs, subordinates added
  //    greedily by largest eligible claim sum (then lowest id), up to max_subordinates.
  bool distributed() {
    auto& sums = ws_.scratch_.worker_sums;
    sums.clear();
    for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
      const worker_record& wr = ws_.workers_[w];
      if (!wr.eligible) continue;
      listing_scratch::worker_sum s{.worker_position = w};
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
        if (claims()[g] != 0) s.sum = sat_add(s.sum, claims()[g]), ++s.count;
      if (s.count > 0) sums.push_back(s);
    }
    std::sort(sums.begin(), sums.end(), [&](const auto& a, const auto& b) {
      return a.sum != b.sum
                 ? a.sum > b.sum
                 : ws_.workers_[a.worker_position].id < ws_.workers_[b.worker_position].id;
    });
    for (const listing_scratch::worker_sum& main : sums) {
      if (!ram_ok(ws_.workers_[main.worker_position]) || !pick_subordinates(main)) continue;
      const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
      push_all_eligible(main.worker_position, ram_need_);
      for (const std::uint32_t sw : ws_.scratch_.subordinates) push_all_eligible(sw, 0);
      ws_.candidates_.push_back(
          {.part_begin = begin,
           .part_count = static_cast<std::uint32_t>(ws_.parts_.size()) - begin,
           .strategy = fit_strategy::distributed});
    }
    return !ws_.candidates_.empty();
  }
  // The subordinates of main, in the order of the sums: true iff they fit in time.
  bool pick_subordinates(const listing_scratch::worker_sum& main) {
    auto& subs = ws_.scratch_.subordinates;
    subs.clear();
    std::uint64_t sum = main.sum;
    std::uint32_t n = main.count;
    for (const listing_scratch::worker_sum& s : ws_.scratch_.worker_sums) {
      if (s.worker_position == main.worker_position) continue;
      subs.push_back(s.worker_position);
      sum = sat_add(sum, s.sum);
      n += s.count;
      if (e_.fits(sum, n)) return true;
      if (subs.size() >= options_.max_subordinates) return false;
    }
    return false;
  }
  // 4a. Partial offload: the most layers one GPU holds, the rest in RAM.
  bool partial_offload() {
    for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
      const worker_record& wr = ws_.workers_[w];
      if (!wr.eligible) continue;
      for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g) {
        const gpu_record& gr = ws_.gpus_[g];
        if (ws_.has_selection_ && !gr.selected) continue;
        const std::optional<offload_fit> f =
            e_.offload(gr.total_bytes, gr.alloc_bytes, wr.ram_alloc_bytes);
        if (!f) continue;
        const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
        ws_.append_part(w, f->ram_bytes, &g, &f->vram_bytes, 1);
        ws_.candidates_.push_back({.part_begin = begin,
                                   .part_count = 1,
                                   .strategy = fit_strategy::partial_offload,
                                   .offload_layers = f->layers,
                                   .total_layers = f->total_layers});
      }
    }
    return !ws_.candidates_.empty();
  }
  // 4b. CPU only: RAM alone.
  bool cpu_only() {
    const std::uint64_t need = e_.cpu_ram_bytes();
    for (std::uint32_t w = 0; w < ws_.workers_.size(); ++w) {
      const worker_record& wr = ws_.workers_[w];
      if (!wr.eligible || !holds_bytes(wr.ram_alloc_bytes, need)) continue;
      const auto begin = static_cast<std::uint32_t>(ws_.parts_.size());
      ws_.append_part(w, need, nullptr, nullptr, 0);
      ws_.candidates_.push_back(
          {.part_begin = begin, .part_count = 1, .strategy = fit_strategy::cpu_only});
    }
    return !ws_.candidates_.empty();
  }

  [[nodiscard]] std::vector<std::uint64_t>& claims() noexcept { return ws_.scratch_.gpu_claims; }
  [[nodiscard]] std::vector<std::uint32_t>& order() noexcept { return ws_.scratch_.order; }
  // claims()[g]: the claim of a full placement on GPU g (0 = ineligible), in one pass.
  void compute_claims() {
    claims().resize(ws_.gpus_.size());
    std::uint64_t* const claim = claims().data();
    for (const worker_record& wr : ws_.workers_) {
      const std::uint32_t end = wr.gpu_begin + wr.gpu_count;
      if (!wr.eligible) {
        std::fill(claim + wr.gpu_begin, claim + end, std::uint64_t{0});
        continue;
      }
      for (std::uint32_t g = wr.gpu_begin; g < end; ++g) {
        const gpu_record& r = ws_.gpus_[g];
        claim[g] = ws_.has_selection_ && !r.selected
                       ? 0
                       : e_.gpu_claim_bytes(r.total_bytes, r.alloc_bytes);
      }
    }
  }
  // true iff an earlier GPU of the same worker has the same claim, totals and counts: every
  // scorer gives both the same score and the tie-break prefers the lower index, so the
  // later one would never win and is not emitted as a candidate.
  [[nodiscard]] bool equivalent_to_earlier(std::uint32_t g) noexcept {
    // Fast path: the twin is an earlier GPU with the same totals and counts and a lower
    // index (kept current by every update). With the same claim it is exactly the GPU the
    // scan below would find.
    const std::uint32_t t = ws_.distinct_.twin(g);
    if (t == no_position) return false;
    if (claims()[t] == claims()[g]) return true;
    const gpu_record& r = ws_.gpus_[g];
    for (std::uint32_t h = ws_.workers_[r.worker_position].gpu_begin; h < g; ++h) {
      const gpu_record& o = ws_.gpus_[h];
      if (claims()[h] == claims()[g] && o.alloc_bytes == r.alloc_bytes &&
          o.total_bytes == r.total_bytes && o.model_instances == r.model_instances &&
          o.other_instances == r.other_instances && o.index < r.index)
        return true;
    }
    return false;
  }
  // Sorts the eligible GPUs of wr by claim (largest first, then lowest index) into order().
  std::uint32_t sorted_eligible(const worker_record& wr) {
    order().clear();
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      if (claims()[g] != 0) order().push_back(g);
    std::sort(order().begin(), order().end(), [&](std::uint32_t a, std::uint32_t b) {
      return claims()[a] != claims()[b] ? claims()[a] > claims()[b]
                                        : ws_.gpus_[a].index < ws_.gpus_[b].index;
    });
    return static_cast<std::uint32_t>(order().size());
  }
  // The first n GPUs of order() as one part, in GPU-index order for a readable placement.
  void push_sorted_part(std::uint32_t w, std::uint32_t n) {
    std::sort(order().begin(), order().begin() + n, [&](std::uint32_t a, std::uint32_t b) {
      return ws_.gpus_[a].index < ws_.gpus_[b].index;
    });
    ws_.parts_.push_back({.worker_position = w,
                          .claim_begin = static_cast<std::uint32_t>(ws_.claims_.size()),
                          .claim_count = n,
                          .ram_bytes = ram_need_});
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t g = order()[k];
      ws_.claims_.push_back(
          {.gpu_position = g, .index = ws_.gpus_[g].index, .vram_bytes = claims()[g]});
    }
  }
  // Every eligible GPU of worker w as one part.
  void push_all_eligible(std::uint32_t w, std::uint64_t ram) {
    const worker_record& wr = ws_.workers_[w];
    placement_part part{.worker_position = w,
                        .claim_begin = static_cast<std::uint32_t>(ws_.claims_.size()),
                        .ram_bytes = ram};
    for (std::uint32_t g = wr.gpu_begin; g < wr.gpu_begin + wr.gpu_count; ++g)
      if (claims()[g] != 0)
        ws_.claims_.push_back(
            {.gpu_position = g, .index = ws_.gpus_[g].index, .vram_bytes = claims()[g]});
    part.claim_count = static_cast<std::uint32_t>(ws_.claims_.size()) - part.claim_begin;
    ws_.parts_.push_back(part);
  }

  workspace& ws_;
  const E& e_;
  const fit_options& options_;
  backend_capabilities caps_;
  std::uint64_t ram_need_;
};
}  // namespace detail

/// Lists the candidates for estimator e over the eligible workers of ws, as options.listing
/// says (grouped: headroom's ladder; gpustack: GPUStack's selector, which needs a
/// GpustackEstimator, else invalid_argument naming options.listing); returns the stage that
/// produced them (none when none did). The candidates are ws.candidates().
template <class E>
fit_strategy fit(workspace& ws, const E& e, const fit_options& options = {}) {
  if constexpr (detail::diagnose_estimator<E>()) {
    if (options.listing == candidate_listing::gpustack) {
      if constexpr (GpustackEstimator<E>)
        return detail::gpustack_listing<E>(ws, e).run();
      else
        detail::fail("options.listing", std::string_view("gpustack"),
                     "needs a GpustackEstimator such as vllm_estimator");
    }
    return detail::grouped_listing<E>(ws, e, options).run();
  }
  return fit_strategy::none;
}

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

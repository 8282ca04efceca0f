// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/decision.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/decision.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {

HEADROOM_DECL auto explanation::clear() noexcept -> void {
  rejected.clear();
  strategy = fit_strategy::none;
  candidates = 0;
}

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

HEADROOM_DECL bool better(const cluster_view& v, const candidate& a, double sa, const candidate& b,
                          double sb, bool ids_ascending) noexcept {
  if (sa != sb) return sa > sb;
  const placement_part& pa = v.parts[a.part_begin];
  const placement_part& pb = v.parts[b.part_begin];
  if (ids_ascending) {
    if (pa.worker_position != pb.worker_position) return pa.worker_position < pb.worker_position;
  } else if (const std::uint64_t ia = v.workers[pa.worker_position].id,
             ib = v.workers[pb.worker_position].id;
             ia != ib)
    return ia < ib;
  const std::uint32_t ga = pa.claim_count ? v.claims[pa.claim_begin].index : 0;
  const std::uint32_t gb = pb.claim_count ? v.claims[pb.claim_begin].index : 0;
  return ga < gb;
}

HEADROOM_DECL std::size_t pick(const cluster_view& v, std::span<const candidate> cands,
                               std::span<const double> totals, tie_break ties,
                               bool ids_ascending) noexcept {
  std::size_t best = 0;
  if (ties == tie_break::first_listed) {
    // scheduler.py::pick_highest_score_candidate: a later candidate wins only when higher.
    for (std::size_t i = 1; i < cands.size(); ++i)
      if (totals[i] > totals[best]) best = i;
    return best;
  }
  // The scan below keeps the earliest candidate no other beats. Without NaN totals every
  // such candidate has the highest total, so one pass over the totals finds it and the
  // second compares the candidates at that total only (better() reads their parts). The
  // maximum is taken in four independent lanes: without NaN the same value (a zero's sign
  // aside, which == ignores).
  double lane[4] = {totals[0], totals[0], totals[0], totals[0]};
  bool nan = false;
  std::size_t i = 0;
  for (; i + 4 <= cands.size(); i += 4)
    for (std::size_t k = 0; k < 4; ++k) {
      const double t = totals[i + k];
      nan |= t != t;
      lane[k] = t > lane[k] ? t : lane[k];
    }
  for (; i < cands.size(); ++i) {
    nan |= totals[i] != totals[i];
    lane[0] = totals[i] > lane[0] ? totals[i] : lane[0];
  }
  double top = lane[0];
  for (std::size_t k = 1; k < 4; ++k) top = lane[k] > top ? lane[k] : top;
  if (nan) {
    for (i = 1; i < cands.size(); ++i)
      if (better(v, cands[i], totals[i], cands[best], totals[best], ids_ascending)) best = i;
    return best;
  }
  while (totals[best] != top) ++best;
  if (ids_ascending && v.dense.offset_of(cands) == 0) {
    // The one-GPU stage lists its candidates by main-worker position (view.hpp): a later
    // candidate at the top total beats the first one only on the same worker (a later
    // worker has a higher id), so the scan stops where the worker changes.
    const std::uint32_t* const worker = v.dense.candidate_worker.data();
    for (i = best + 1; i < cands.size() && worker[i] == worker[best]; ++i)
      if (totals[i] == top && better(v, cands[i], top, cands[best], top, ids_ascending)) best = i;
    return best;
  }
  for (i = best + 1; i < cands.size(); ++i)
    if (totals[i] == top && better(v, cands[i], top, cands[best], top, ids_ascending)) best = i;
  return best;
}

HEADROOM_DECL std::span<double> totals_for(workspace& ws, std::size_t n, std::size_t columns) {
  if (ws.totals.size() < n) ws.totals.resize(n);
  if (ws.column.size() < n * columns) ws.column.resize(n * columns);
  return {ws.totals.data(), n};
}

HEADROOM_DECL void refuse_worker_count(std::uint32_t pos, std::size_t indexed) {
  if (pos >= indexed)
    fail("workers", std::uint64_t{pos} + 1,
         "holds more workers than the workspace indexed: index() it again");
  fail("workers", std::uint64_t{pos},
       "holds fewer workers than the workspace indexed: index() it again");
}

HEADROOM_DECL void explain_fit(const workspace& ws, fit_strategy strategy, explanation& why) {
  why.strategy = strategy;
  why.candidates = ws.candidates().size();
  const cluster_view v = ws.view();
  std::vector<bool> used(v.workers.size(), false);
  for (const candidate& c : ws.candidates())
    for (const placement_part& p : v.parts_of(c)) used[p.worker_position] = true;
  for (std::uint32_t w = 0; w < v.workers.size(); ++w)
    if (v.workers[w].eligible && !used[w])
      why.rejected.push_back({.worker_position = w,
                              .worker_id = v.workers[w].id,
                              .filter = "resource_fit",
                              .reason = strategy == fit_strategy::none
                                            ? "not enough allocatable VRAM/RAM for any fit strategy"
                                            : "no candidate here in the first strategy that fits"});
}

HEADROOM_DECL placement_result chosen(const workspace& ws, fit_strategy strategy,
                                      const scored_candidates& scored, std::size_t filtered_out) {
  const cluster_view v = ws.view();
  const candidate& c = ws.candidates()[scored.best];
  const std::span<const placement_part> parts = v.parts_of(c);
  return {.strategy = strategy,
          .worker_position = parts[0].worker_position,
          .worker_id = v.workers[parts[0].worker_position].id,
          .score = scored.totals[scored.best],
          .candidates = ws.candidates().size(),
          .filtered_out = filtered_out,
          .chosen = c,
          .parts = parts,
          .claims = v.claims};
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

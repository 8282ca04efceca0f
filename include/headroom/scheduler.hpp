// SPDX-License-Identifier: Apache-2.0
// The scheduler: place a new model instance on the best worker/GPUs (scale up: filter chain
// → candidate listing → scorer chain, highest total wins) and rank existing instances for
// removal (scale down: scorer chain, ascending, remove the first). Generic over the caller's
// own worker/GPU/model/instance types through the traits in scheduler/traits.hpp. The
// gpustack preset (gpustack_scale_up_chain() with gpustack_fit_options(),
// gpustack_scale_down_chain()) makes GPUStack's decisions. Guide: docs/scheduler.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "scheduler/chain.hpp"
#include "scheduler/filters.hpp"
#include "scheduler/fit.hpp"
#include "scheduler/scorers.hpp"
#include "scheduler/traits.hpp"

namespace headroom {
inline namespace v0 {

/// Why no placement was found.
enum class no_placement_reason : std::uint8_t {
  none,                   ///< a placement was found
  no_workers,             ///< the worker range is empty
  all_filtered,           ///< every worker failed a basic filter
  insufficient_resources  ///< survivors exist but no fit strategy yields a candidate
};

/// Text for a no_placement_reason.
[[nodiscard]] constexpr std::string_view to_string(no_placement_reason r) noexcept {
  switch (r) {
    case no_placement_reason::none:
      return "placed";
    case no_placement_reason::no_workers:
      return "no workers";
    case no_placement_reason::all_filtered:
      return "every worker was filtered out";
    case no_placement_reason::insufficient_resources:
      return "no worker or placement has enough allocatable VRAM/RAM";
  }
  return "?";
}

/// Text for a fit_strategy.
[[nodiscard]] constexpr std::string_view to_string(fit_strategy s) noexcept {
  switch (s) {
    case fit_strategy::none:
      return "none";
    case fit_strategy::single_gpu:
      return "single worker, single GPU";
    case fit_strategy::multi_gpu:
      return "single worker, multiple GPUs";
    case fit_strategy::distributed:
      return "distributed across workers";
    case fit_strategy::partial_offload:
      return "partial offload";
    case fit_strategy::cpu_only:
      return "CPU only";
    case fit_strategy::manual:
      return "manual GPU selection";
    case fit_strategy::given:
      return "listed by the caller";
  }
  return "?";
}

/// The outcome of place(): the chosen placement, or why there is none. Spans point into
/// the workspace and stay valid until its next use.
struct placement_result {
  fit_strategy strategy = fit_strategy::none;              ///< the ladder step that produced it
  no_placement_reason reason = no_placement_reason::none;  ///< why nothing, when nothing
  std::size_t worker = 0;                   ///< position of the main worker in the caller's range
  std::uint64_t worker_id = 0;              ///< its id
  double score = 0;                         ///< the winner's chain total
  std::size_t candidates = 0;               ///< candidates scored
  std::size_t filtered_out = 0;             ///< workers rejected by the filter chain
  candidate chosen{};                       ///< the winner (for workspace::commit)
  std::span<const placement_part> parts{};  ///< main worker first, then subordinates
  std::span<const claim_record> claims{};   ///< the workspace's claims (see claims_of)
  /// true iff a placement was found.
  [[nodiscard]] constexpr explicit operator bool() const noexcept {
    return strategy != fit_strategy::none;
  }
  /// The VRAM claims of one part of the placement.
  [[nodiscard]] constexpr std::span<const claim_record> claims_of(
      const placement_part& p) const noexcept {
    return claims.subspan(p.claim_begin, p.claim_count);
  }
};

/// One rejected worker: which filter (or "resource_fit") and why.
struct rejection {
  std::size_t worker = 0;       ///< position in the caller's range
  std::uint64_t worker_id = 0;  ///< its id
  std::string_view filter;      ///< the filter's name
  std::string_view reason;      ///< the filter's explanation
};

/// Opt-in explanation of a placement decision (allocates; pass nullptr on the fast path).
struct explanation {
  std::vector<rejection> rejected;             ///< every worker that did not take part, and why
  fit_strategy strategy = fit_strategy::none;  ///< the strategy that produced candidates
  std::size_t candidates = 0;                  ///< how many
  /// Empties the explanation.
  void clear() noexcept {
    rejected.clear();
    strategy = fit_strategy::none;
    candidates = 0;
  }
};

namespace detail {
/// A tag whose address identifies a type pair (the filter-verdict cache's key).
template <class... Ts>
inline constexpr char type_tag = 0;
/// true iff worker w passes the filter chain for model m.
template <class Filters, class W, class M>
[[nodiscard]] bool passes(const Filters& filters, const W& w, const M& m) {
  return filters(w, m).passed();
}
/// The element at position pos of a forward range (walks it unless random access).
template <std::ranges::forward_range R>
[[nodiscard]] decltype(auto) element_at(const R& r, std::uint32_t pos) {
  if constexpr (std::ranges::random_access_range<const R>)
    return std::ranges::begin(r)[static_cast<std::ranges::range_difference_t<const R>>(pos)];
  else {
    auto it = std::ranges::begin(r);
    for (std::uint32_t i = 0; i < pos; ++i) ++it;
    return *it;
  }
}
/// A worker that changed without workspace::update_worker: refused by name.
[[noreturn]] inline void refuse_stale(std::uint64_t id, std::string_view what) {
  fail("workers", id, what);
}
/// The list of workers is not the indexed one (pos: how many were read).
[[noreturn]] inline void refuse_worker_count(std::uint32_t pos, std::size_t indexed) {
  if (pos >= indexed)
    fail("workers", std::uint64_t{pos} + 1,
         "holds more workers than the workspace indexed: index() it again");
  fail("workers", std::uint64_t{pos},
       "holds fewer workers than the workspace indexed: index() it again");
}
/// stale_check, records: re-reads every worker against its record; refuses a changed one
/// or updates it in place (mode). Refuses a list of another size than the index.
template <class Workers>
void check_records(const Workers& workers, workspace& ws, stale_check mode) {
  using WT = worker_traits<std::ranges::range_value_t<Workers>>;
  const std::size_t indexed = ws.workers().size();
  std::uint32_t pos = 0;
  for (const auto& w : workers) {
    if (pos == indexed) refuse_worker_count(pos, indexed);
    if (!ws.matches(w, pos)) {
      const auto id = static_cast<std::uint64_t>(WT::id(w));
      if (mode == stale_check::refuse)
        refuse_stale(id,
                     "changed since it was indexed: call workspace::update_worker(worker) "
                     "whenever a worker changes (stale_check::refuse)");
      if (id != ws.workers()[pos].id || !ws.update_worker(w))
        refuse_stale(id,
                     "is not the indexed worker at its position, or its GPUs changed "
                     "(count, indices or types): index() again");
    }
    ++pos;
  }
  if (pos != indexed) refuse_worker_count(pos, indexed);
}
/// true iff candidate a beats b: higher total, then lowest main worker id, then lowest first
/// GPU index, then earlier candidate (tie_break::lowest_worker_id).
[[nodiscard]] inline bool better(const cluster_view& v, const candidate& a, double sa,
                                 const candidate& b, double sb) noexcept {
  if (sa != sb) return sa > sb;
  const placement_part& pa = v.parts[a.part_begin];
  const placement_part& pb = v.parts[b.part_begin];
  const std::uint64_t ia = v.workers[pa.worker].id, ib = v.workers[pb.worker].id;
  if (ia != ib) return ia < ib;
  const std::uint32_t ga = pa.claim_count ? v.claims[pa.claim_begin].index : 0;
  const std::uint32_t gb = pb.claim_count ? v.claims[pb.claim_begin].index : 0;
  return ga < gb;
}
/// The position of the winner among totals (none: 0), by the tie rule.
[[nodiscard]] inline std::size_t pick(const cluster_view& v, std::span<const candidate> cands,
                                      std::span<const double> totals, tie_break ties) noexcept {
  std::size_t best = 0;
  if (ties == tie_break::first_listed) {
    // scheduler.py::pick_highest_score_candidate: a later candidate wins only when higher.
    for (std::size_t i = 1; i < cands.size(); ++i)
      if (totals[i] > totals[best]) best = i;
    return best;
  }
  for (std::size_t i = 1; i < cands.size(); ++i)
    if (better(v, cands[i], totals[i], cands[best], totals[best])) best = i;
  return best;
}
}  // namespace detail

/// The chain's totals over the workspace's candidates and the winner.
struct scored_candidates {
  std::span<const double> totals{};  ///< one per candidate, in the list's order
  std::size_t best = 0;              ///< the winner's position (when there are candidates)
  /// true iff there was a candidate.
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return !totals.empty(); }
};

/// Scores the workspace's current candidates (those of the last fit, or a list the caller
/// gave with ws.set_candidates) with chain and picks the winner by ties (GPUStack's
/// CandidateScoreChain.score and pick_highest_score_candidate with the gpustack chain and
/// tie_break::first_listed). The totals point into ws. No allocation once ws is warm.
template <class Chain>
requires ScorerChainFor<Chain, candidate> scored_candidates
score_candidates(Chain& chain, workspace& ws, tie_break ties = tie_break::first_listed) {
  const std::span<const candidate> cands = ws.candidates();
  if (cands.empty()) return {};
  if (ws.totals.size() < cands.size()) {
    ws.totals.resize(cands.size());
    ws.column.resize(cands.size());
  }
  const std::span<double> totals(ws.totals.data(), cands.size());
  const cluster_view v = ws.view();
  chain.evaluate(v, cands, totals, std::span<double>(ws.column.data(), cands.size()));
  return {totals, detail::pick(v, cands, totals, ties)};
}

/// Places a new instance of model m on an already indexed workspace (workspace::index):
/// filters → candidate listing with estimator (options.listing) → scorer chain → the
/// highest total (ties: options.ties). No allocation once ws is warm
/// (unless why is given). Filter verdicts are cached in ws: while filters and m are the
/// objects of the last decision, only the workers passed to ws.update_worker since are
/// filtered again (a worker changed without update_worker keeps its verdict); index(),
/// ws.refilter(), other filter/model objects or an explanation filter every worker.
/// options.stale says whether workers changed without update_worker are looked for first
/// (refused, or re-read), at about the cost of index() without the instances.
template <std::ranges::forward_range Workers, class M, class Filters, Estimator E, class Chain>
requires Worker<std::ranges::range_value_t<Workers>> &&
    ModelRequestFor<M, std::ranges::range_value_t<Workers>> &&
    FilterChainFor<Filters, std::ranges::range_value_t<Workers>, M> &&
    ScorerChainFor<Chain, candidate>
        placement_result place_indexed(const Workers& workers, const M& m, const Filters& filters,
                                       const E& estimator, Chain& chain, workspace& ws,
                                       explanation* why = nullptr,
                                       const fit_options& options = {}) {
  using W = std::ranges::range_value_t<Workers>;
  placement_result out;
  if (why) why->clear();
  if (options.stale != stale_check::none) detail::check_records(workers, ws, options.stale);
  const workspace::filter_key key{&filters, &m, &detail::type_tag<Filters, M>};
  const auto indexed = static_cast<std::uint32_t>(ws.workers().size());
  std::uint32_t count = indexed;  // workers decided on
  bool sized_as_indexed = true;
  if constexpr (std::ranges::sized_range<Workers>)
    sized_as_indexed = std::ranges::size(workers) == indexed;
  if (!why && sized_as_indexed && ws.verdicts_cached(key) &&
      ws.indexed_for(model_traits<M>::id(m))) {
    // Cached verdicts: only the workers updated since run the filters.
    std::uint32_t filtered_out = ws.filtered_out();
    if (options.stale != stale_check::none) {
      // Every verdict again, before anything changes: one that differs from the cached one
      // of a worker not queued by update_worker belongs to a worker changed unannounced.
      const std::span<const std::uint32_t> queued = ws.refilter_positions();
      std::uint32_t pos = 0;
      for (const auto& w : workers) {
        const bool now = detail::passes(filters, w, m);
        if (now != ws.workers()[pos].eligible && !detail::range_contains(queued, pos)) {
          if (options.stale == stale_check::refuse)
            detail::refuse_stale(worker_traits<W>::id(w),
                                 "passes the filters differently than when its verdict was "
                                 "cached: call workspace::update_worker(worker) whenever a "
                                 "worker changes (stale_check::refuse)");
          filtered_out = now ? filtered_out - 1 : filtered_out + 1;
          ws.set_eligible(pos, now);
        }
        ++pos;
      }
    }
    for (const std::uint32_t pos : ws.refilter_positions()) {
      const bool was = ws.workers()[pos].eligible;
      const bool now = detail::passes(filters, detail::element_at(workers, pos), m);
      if (was != now) filtered_out = now ? filtered_out - 1 : filtered_out + 1;
      ws.set_eligible(pos, now);
    }
    ws.cache_verdicts(key, filtered_out);
    out.filtered_out = filtered_out;
    if (indexed == 0) {
      out.reason = no_placement_reason::no_workers;
      return out;
    }
  } else {
    std::uint32_t pos = 0;
    for (const auto& w : workers) {
      // The workspace's records are the indexed workers, position for position.
      if (pos == indexed) detail::refuse_worker_count(pos, indexed);
      const filter_outcome o = filters(w, m);
      ws.set_eligible(pos, o.passed());
      if (!o.passed()) {
        ++out.filtered_out;
        if (why) {
          const auto f = static_cast<std::size_t>(o.filter);
          why->rejected.push_back(
              {pos, worker_traits<W>::id(w), filters.name(f), filters.why(f, o.reason)});
        }
      }
      ++pos;
    }
    if (pos == 0 && indexed == 0) {
      out.reason = no_placement_reason::no_workers;
      return out;
    }
    if (pos != indexed) detail::refuse_worker_count(pos, indexed);
    ws.cache_verdicts(key, static_cast<std::uint32_t>(out.filtered_out));
    count = pos;
  }
  if (out.filtered_out == count) {
    out.reason = no_placement_reason::all_filtered;
    return out;
  }
  const fit_strategy strategy = ws.fit(estimator, options);
  const std::span<const candidate> cands = ws.candidates();
  if (why) {
    why->strategy = strategy;
    why->candidates = cands.size();
    const cluster_view v = ws.view();
    std::vector<bool> used(v.workers.size(), false);
    for (const candidate& c : cands)
      for (const placement_part& p : v.parts_of(c)) used[p.worker] = true;
    for (std::uint32_t w = 0; w < v.workers.size(); ++w)
      if (v.workers[w].eligible && !used[w])
        why->rejected.push_back({w, v.workers[w].id, "resource_fit",
                                 strategy == fit_strategy::none
                                     ? "not enough allocatable VRAM/RAM for any fit strategy"
                                     : "no candidate here in the first strategy that fits"});
  }
  if (strategy == fit_strategy::none) {
    out.reason = no_placement_reason::insufficient_resources;
    return out;
  }
  const scored_candidates scored = score_candidates(chain, ws, options.ties);
  const std::size_t best = scored.best;
  const cluster_view v = ws.view();
  const std::span<const double> totals = scored.totals;
  out.strategy = strategy;
  out.chosen = cands[best];
  out.score = totals[best];
  out.candidates = cands.size();
  out.parts = v.parts_of(out.chosen);
  out.claims = v.claims;
  out.worker = out.parts[0].worker;
  out.worker_id = v.workers[out.worker].id;
  return out;
}

/// Places a new instance of model m among workers, given the existing instances: indexes
/// the cluster into ws, then place_indexed(). Never throws for an infeasible model: the
/// result says why.
template <std::ranges::forward_range Workers, std::ranges::forward_range Instances, class M,
          class Filters, Estimator E, class Chain>
requires Worker<std::ranges::range_value_t<Workers>> &&
    Instance<std::ranges::range_value_t<Instances>> &&
    ModelRequestFor<M, std::ranges::range_value_t<Workers>> &&
    FilterChainFor<Filters, std::ranges::range_value_t<Workers>, M> &&
    ScorerChainFor<Chain, candidate>
        placement_result place(const Workers& workers, const Instances& instances, const M& m,
                               const Filters& filters, const E& estimator, Chain& chain,
                               workspace& ws, explanation* why = nullptr,
                               const fit_options& options = {}) {
  ws.index(workers, instances, m);
  return place_indexed(workers, m, filters, estimator, chain, ws, why, options);
}

/// Ranks the instances recorded in an already indexed workspace (index(..., true), kept
/// current with add_instance/remove_instance/update_worker) for scale down: scores them
/// with chain and orders them ascending (ties: earlier position first). With count below
/// the number of instances (e.g. `instances − replicas`), only the first count are ordered
/// and returned (the same first count as the full ranking, at lower cost); by default all.
/// The span points into ws. No allocation once ws is warm.
template <class Chain>
requires ScorerChainFor<Chain, instance_record> std::span<const ranked_instance>
rank_for_removal_indexed(Chain& chain, workspace& ws,
                         std::size_t count = static_cast<std::size_t>(-1)) {
  const std::span<const instance_record> items = ws.instances();
  const std::size_t n = items.size();
  if (ws.totals.size() < n) {
    ws.totals.resize(n);
    ws.column.resize(n);
  }
  const std::span<double> totals(ws.totals.data(), n);
  chain.evaluate(ws.view(), items, totals, std::span<double>(ws.column.data(), n));
  ws.ranked.resize(n);
  for (std::size_t i = 0; i < n; ++i) ws.ranked[i] = {items[i].position, items[i].id, totals[i]};
  // A strict total order (positions are unique), so a partial sort yields exactly the
  // first count entries of the full sort.
  const auto before = [](const ranked_instance& a, const ranked_instance& b) {
    return a.score != b.score ? a.score < b.score : a.position < b.position;
  };
  if (count < n) {
    const auto mid = ws.ranked.begin() + static_cast<std::ptrdiff_t>(count);
    std::nth_element(ws.ranked.begin(), mid, ws.ranked.end(), before);
    std::sort(ws.ranked.begin(), mid, before);
    return std::span<const ranked_instance>(ws.ranked.data(), count);
  }
  std::sort(ws.ranked.begin(), ws.ranked.end(), before);
  return ws.ranked;
}

/// Ranks the instances of model m for scale down: indexes the cluster into ws (recording
/// m's instances), then rank_for_removal_indexed(): scores them with chain, sorts ascending
/// (ties: earlier in the caller's range first) and returns the ranking; delete the first
/// `instances − replicas` (pass that as count to order only those). The span points into ws.
template <std::ranges::forward_range Workers, std::ranges::forward_range Instances, class M,
          class Chain>
requires Worker<std::ranges::range_value_t<Workers>> &&
    Instance<std::ranges::range_value_t<Instances>> && ModelRequest<M> &&
    ScorerChainFor<Chain, instance_record>
        std::span<const ranked_instance> rank_for_removal(
            const Workers& workers, const Instances& instances, const M& m, Chain& chain,
            workspace& ws, std::size_t count = static_cast<std::size_t>(-1)) {
  ws.index(workers, instances, m, true);
  return rank_for_removal_indexed(chain, ws, count);
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

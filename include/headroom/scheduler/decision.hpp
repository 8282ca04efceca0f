// SPDX-License-Identifier: Apache-2.0
// One decision on an indexed workspace, and what it returns. Scale up: filters (verdicts
// cached in the workspace) → candidate listing (scheduler/fit.hpp) → scorer chain → the
// highest total, ties by the rule asked (placement_result, explained on request). Scale
// down: the chain's totals over the recorded instances, ascending (ranked_instance). The
// scheduler object (scheduler/configured.hpp) runs these; score_candidates scores a list
// the caller gave (workspace::set_candidates).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "../error.hpp"
#include "chain.hpp"
#include "filters.hpp"
#include "fit.hpp"
#include "traits.hpp"
#include "view.hpp"
#include "workspace.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// What a decision on a kept index does about a worker changed without
/// workspace::update_worker: anything its record or its cached filter verdict was read from.
enum class stale_check : std::uint8_t {
  /// Trusts the caller's update_worker calls: the index is read, the workers are not (the
  /// fast path; a forgotten update decides on the old record).
  none,
  /// Re-reads every worker first (its record and its filter verdict); one that changed
  /// unannounced → invalid_argument naming "workers" and its id. About the cost of index()
  /// without the instances (bench: place_default_indexed_checked).
  refuse,
  /// Re-reads every worker likewise and updates a changed one in place (update_worker), so
  /// the decision is the one a fresh index makes; GPUs of another count, indices or types →
  /// invalid_argument (index() again).
  refresh
};

/// The default stale_check: refuse in a debug build (HEADROOM_ASSERT active), none under
/// NDEBUG or HEADROOM_DISABLE_ASSERTS.
#if defined(NDEBUG) || defined(HEADROOM_DISABLE_ASSERTS)
inline constexpr stale_check default_stale_check = stale_check::none;
#else
inline constexpr stale_check default_stale_check = stale_check::refuse;
#endif

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

/// The outcome of a placement decision: the chosen placement, or why there is none. Spans
/// point into the workspace and stay valid until its next use.
struct placement_result {
  fit_strategy strategy = fit_strategy::none;              ///< the ladder step that produced it
  no_placement_reason reason = no_placement_reason::none;  ///< why nothing, when nothing
  std::size_t worker_position = 0;          ///< the main worker's position in the caller's range
  std::uint64_t worker_id = 0;              ///< its id (worker_traits::id)
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
  std::size_t worker_position = 0;  ///< position in the caller's range
  std::uint64_t worker_id = 0;      ///< its id (worker_traits::id)
  std::string_view filter;          ///< the filter's name
  std::string_view reason;          ///< the filter's explanation
};

/// The explanation of a placement decision (allocates; asked for with explain()).
struct explanation {
  std::vector<rejection> rejected;             ///< every worker that did not take part, and why
  fit_strategy strategy = fit_strategy::none;  ///< the strategy that produced candidates
  std::size_t candidates = 0;                  ///< how many
  /// Empties the explanation.
  HEADROOM_DECL void clear() noexcept;
};

/// A placement decision and its explanation (scheduler::explain). result's spans point into
/// the workspace the decision ran on; why is the caller's.
struct explained_placement {
  placement_result result;  ///< the decision
  explanation why;          ///< why each worker took no part
};

/// How a scheduler decides, besides its filters, estimator and chain.
struct scheduler_options {
  fit_options fit{};  ///< the candidate listing and the tie rule
  /// What a decision on a kept index does about workers changed without update_worker.
  stale_check stale = default_stale_check;
};

/// The chain's totals over the workspace's candidates and the winner.
struct scored_candidates {
  std::span<const double> totals{};  ///< one per candidate, in the list's order
  std::size_t best = 0;              ///< the winner's position (when there are candidates)
  /// true iff there was a candidate.
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return !totals.empty(); }
};

namespace detail {
/// true iff candidate a beats b: higher total, then lowest main worker id, then lowest first
/// GPU index, then earlier candidate (tie_break::lowest_worker_id).
/// ids_ascending: the ids increase with position (positions compared, ids not read).
[[nodiscard]] HEADROOM_DECL bool better(const cluster_view& v, const candidate& a, double sa,
                                        const candidate& b, double sb, bool ids_ascending) noexcept;
/// The position of the winner among totals (none: 0), by the tie rule.
/// ids_ascending: as better()'s.
[[nodiscard]] HEADROOM_DECL std::size_t pick(const cluster_view& v,
                                             std::span<const candidate> cands,
                                             std::span<const double> totals, tie_break ties,
                                             bool ids_ascending) noexcept;
/// The scratch columns chain C works best with (its scratch_columns, else one).
template <class C>
[[nodiscard]] consteval std::size_t scratch_columns_of() noexcept {
  if constexpr (requires { C::scratch_columns; })
    return std::max<std::size_t>(C::scratch_columns, 1);
  else
    return 1;
}
/// Scratch spans of ws for n items (grown, never shrunk); ws.column holds columns × n.
HEADROOM_DECL std::span<double> totals_for(workspace& ws, std::size_t n, std::size_t columns = 1);
/// chain.evaluate on ws's scratch: totals of items (view v) into the returned span.
template <class Chain, class Item>
std::span<double> evaluate_on(const Chain& chain, workspace& ws, const cluster_view& v,
                              std::span<const Item> items) {
  constexpr std::size_t columns = scratch_columns_of<Chain>();
  const std::span<double> totals = totals_for(ws, items.size(), columns);
  chain.evaluate(v, items, totals, std::span<double>(ws.column.data(), items.size() * columns));
  return totals;
}
}  // namespace detail

/// Scores the workspace's current candidates (those of the last fit, or a list the caller
/// gave with ws.set_candidates) with chain and picks the winner by ties (GPUStack's
/// CandidateScoreChain.score and pick_highest_score_candidate with the gpustack chain and
/// tie_break::first_listed). The totals point into ws. No allocation once ws is warm.
template <class Chain>
scored_candidates score_candidates(const Chain& chain, workspace& ws,
                                   tie_break ties = tie_break::first_listed) {
  if constexpr (detail::diagnose_scorer_chain<Chain, candidate>()) {
    const std::span<const candidate> cands = ws.candidates();
    if (cands.empty()) return {};
    const cluster_view v = ws.view();
    const std::span<double> totals = detail::evaluate_on(chain, ws, v, cands);
    return {totals, detail::pick(v, cands, totals, ties, ws.ids_ascending())};
  }
  return {};
}

namespace detail {
/// A tag whose address identifies a type pair (the filter-verdict cache's key).
template <class... Ts>
inline constexpr char type_tag = 0;
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
/// The list of workers is not the indexed one (pos: how many were read).
[[noreturn]] HEADROOM_DECL void refuse_worker_count(std::uint32_t pos, std::size_t indexed);
/// A worker that changed without workspace::update_worker: refused by name.
[[noreturn]] inline void refuse_stale(std::uint64_t id, std::string_view what) {
  fail("workers", id, what);
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
/// stale_check, verdicts: every worker filtered again, before anything changes; one whose
/// verdict differs from the cached one without being queued by update_worker changed
/// unannounced: refused, or its verdict replaced (mode). Returns the rejected count.
template <class Workers, class M, class Filters>
std::uint32_t check_verdicts(const Workers& workers, const M& m, const Filters& filters,
                             workspace& ws, stale_check mode, std::uint32_t rejected) {
  const std::span<const std::uint32_t> queued = ws.verdicts().queued();
  std::uint32_t pos = 0;
  for (const auto& w : workers) {
    const bool now = filters(w, m).passed();
    if (now != ws.workers()[pos].eligible && !range_contains(queued, pos)) {
      if (mode == stale_check::refuse)
        refuse_stale(worker_traits<std::ranges::range_value_t<Workers>>::id(w),
                     "passes the filters differently than when its verdict was cached: call "
                     "workspace::update_worker(worker) whenever a worker changes "
                     "(stale_check::refuse)");
      rejected = now ? rejected - 1 : rejected + 1;
      ws.set_eligible(pos, now);
    }
    ++pos;
  }
  return rejected;
}
/// The cached path: only the workers queued since (and, checked, every one) are filtered
/// again. Returns the rejected count.
template <class Workers, class M, class Filters>
std::uint32_t filter_cached(const Workers& workers, const M& m, const Filters& filters,
                            workspace& ws, const filter_key& key, stale_check mode) {
  std::uint32_t rejected = ws.verdicts().rejected();
  if (mode != stale_check::none) rejected = check_verdicts(workers, m, filters, ws, mode, rejected);
  for (const std::uint32_t pos : ws.verdicts().queued()) {
    const bool was = ws.workers()[pos].eligible;
    const bool now = filters(element_at(workers, pos), m).passed();
    if (was != now) rejected = now ? rejected - 1 : rejected + 1;
    ws.set_eligible(pos, now);
  }
  ws.verdicts().store(key, rejected, ws.workers().size());
  return rejected;
}
/// Every worker filtered (the workspace's records are the indexed workers, position for
/// position), each rejection explained when why is given. Returns the rejected count.
template <class Workers, class M, class Filters>
std::uint32_t filter_all(const Workers& workers, const M& m, const Filters& filters, workspace& ws,
                         const filter_key& key, explanation* why) {
  using WT = worker_traits<std::ranges::range_value_t<Workers>>;
  const std::size_t indexed = ws.workers().size();
  std::uint32_t pos = 0, rejected = 0;
  for (const auto& w : workers) {
    if (pos == indexed) refuse_worker_count(pos, indexed);
    const filter_outcome o = filters(w, m);
    ws.set_eligible(pos, o.passed());
    if (!o.passed()) {
      ++rejected;
      if (why) {
        const auto f = static_cast<std::size_t>(o.filter);
        why->rejected.push_back({.worker_position = pos,
                                 .worker_id = WT::id(w),
                                 .filter = filters.name(f),
                                 .reason = filters.why(f, o.reason)});
      }
    }
    ++pos;
  }
  if (pos != indexed) refuse_worker_count(pos, indexed);
  ws.verdicts().store(key, rejected, indexed);
  return rejected;
}
/// Every eligible worker in no candidate, under "resource_fit".
HEADROOM_DECL void explain_fit(const workspace& ws, fit_strategy strategy, explanation& why);
/// The result naming candidate best of the workspace's candidates.
HEADROOM_DECL placement_result chosen(const workspace& ws, fit_strategy strategy,
                                      const scored_candidates& scored, std::size_t filtered_out);
/// Places a new instance of model m on an indexed workspace: filters → candidate listing
/// with estimator → scorer chain → the highest total. No allocation once ws is warm
/// (unless why is given). Filter verdicts are cached in ws: while filters and m are the
/// objects of the last decision, only the workers passed to ws.update_worker since are
/// filtered again (options.stale says whether the others are checked); index(),
/// ws.refilter(), other filter/model objects or an explanation filter every worker.
template <class Workers, class M, class Filters, class E, class Chain>
placement_result place_on_index(const Workers& workers, const M& m, const Filters& filters,
                                const E& estimator, const Chain& chain, workspace& ws,
                                const scheduler_options& options, explanation* why) {
  if (why) why->clear();
  if (options.stale != stale_check::none) check_records(workers, ws, options.stale);
  const filter_key key{&filters, &m, &type_tag<Filters, M>};
  const auto indexed = static_cast<std::uint32_t>(ws.workers().size());
  bool sized_as_indexed = true;
  if constexpr (std::ranges::sized_range<Workers>)
    sized_as_indexed = std::ranges::size(workers) == indexed;
  const bool cached = !why && sized_as_indexed && ws.verdicts().holds(key) &&
                      ws.indexed_for(model_traits<M>::id(m));
  placement_result out;
  out.filtered_out = cached ? filter_cached(workers, m, filters, ws, key, options.stale)
                            : filter_all(workers, m, filters, ws, key, why);
  if (indexed == 0) out.reason = no_placement_reason::no_workers;
  if (indexed == 0 || out.filtered_out == indexed) {
    if (indexed != 0) out.reason = no_placement_reason::all_filtered;
    return out;
  }
  const fit_strategy strategy = fit(ws, estimator, options.fit);
  if (why) explain_fit(ws, strategy, *why);
  if (strategy == fit_strategy::none) {
    out.reason = no_placement_reason::insufficient_resources;
    return out;
  }
  return chosen(ws, strategy, score_candidates(chain, ws, options.fit.ties), out.filtered_out);
}

/// Ranks the instances recorded in an indexed workspace for scale down: scores them with
/// chain and orders them ascending (ties: earlier position first). With count below the
/// number of instances (e.g. `instances − replicas`), only the first count are ordered and
/// returned (the same first count as the full ranking, at lower cost). The span points
/// into ws. No allocation once ws is warm.
template <class Chain>
std::span<const ranked_instance> rank_on_index(const Chain& chain, workspace& ws,
                                               std::size_t count) {
  const std::span<const instance_record> items = ws.instances();
  const std::size_t n = items.size();
  const std::span<double> totals = evaluate_on(chain, ws, ws.view(), items);
  ws.ranked.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    ws.ranked[i] = {.position = items[i].position, .id = items[i].id, .score = totals[i]};
  // A strict total order (positions are unique), so a partial sort yields exactly the
  // first count entries of the full sort.
  const auto before = [](const ranked_instance& a, const ranked_instance& b) {
    return a.score != b.score ? a.score < b.score : a.position < b.position;
  };
  if (count < n) {
    const auto mid = ws.ranked.begin() + static_cast<std::ptrdiff_t>(count);
    std::nth_element(ws.ranked.begin(), mid, ws.ranked.end(), before);
    std::sort(ws.ranked.begin(), mid, before);
    return {ws.ranked.data(), count};
  }
  std::sort(ws.ranked.begin(), ws.ranked.end(), before);
  return ws.ranked;
}
}  // namespace detail

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/decision.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

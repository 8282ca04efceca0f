// SPDX-License-Identifier: Apache-2.0
// Scorer chains. Both forms evaluate the same way: for each scorer in order, prepare(),
// score every item into a column, normalise the column to [0, 100] or not (the chain's mode,
// or the scorer's own: weighted::normalize), then add weight × column to the totals. The
// normalisation is min-max, `100·(s − min)/(max − min)` (a constant column scores 0): raw scores
// here may be negative (best fit's −leftover), so the minimum is taken off first. (Kubernetes'
// DefaultNormalizeScore, pkg/scheduler/framework/plugins/helper/normalize_score.go, scales
// non-negative integer scores by the maximum alone, `100·s/max`, optionally reversed.) scorer_chain
// is static (std::tuple, fold expressions, inlined); dynamic_scorer_chain holds type-erased plugins
// with names and weights configured at run time. Same scorers, same weights → identical
// totals, bit for bit. The chain knows no scorer: it asks each what it reads (scorer_reads),
// whether it applies (applies()) and whether it scores a whole column itself (score_all).
// Given one scratch column per scorer, the static chain scores many items tile by tile,
// every scorer on a tile before the next, then normalises and sums: each total still gets
// the same operations in the same order. Presets: scheduler/presets.hpp.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "scorers.hpp"
#include "view.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// How a chain treats each scorer's raw column before weighing it.
enum class normalization : std::uint8_t {
  none,    ///< raw scores summed (GPUStack)
  min_max  ///< `100·(s − min)/(max − min)` per scorer, 0 for all when max = min
};

/// The most a normalised score is worth (Kubernetes' framework.MaxNodeScore).
inline constexpr double max_normalized_score = 100.0;

/// A scorer with its name and weight in a static chain.
template <class S>
struct weighted {
  S scorer{};               ///< the scorer
  double weight = 1;        ///< its weight (>= 0)
  std::string_view name{};  ///< its name (for reports)
  /// This scorer's normalisation (Kubernetes' per-plugin NormalizeScore); unset: the chain's.
  std::optional<normalization> normalize{};
};
template <class S>
weighted(S, double, std::string_view) -> weighted<S>;

namespace detail {
/// Asks the CPU to start loading the cache line holding p (a hint: no effect on results).
/// Always inlined: GCC otherwise finds the helpers that call it free of effects and drops
/// their calls.
HEADROOM_ALWAYS_INLINE void prefetch(const void* p) noexcept { HEADROOM_PREFETCH(p); }
/// How many items ahead a chain prefetches the records a scorer reads: about the memory
/// latency over the time to score one item.
inline constexpr std::size_t prefetch_distance = 32;

/// Whether scorer S keeps per-decision state: a prepare(view, items) member (spread's
/// statistics). A const chain scores with a copy of such a scorer, prepared for the one
/// decision, so one chain serves many threads; a scorer without prepare is used in place.
template <class S, class Item>
inline constexpr bool prepares = requires(S& s, const cluster_view& v,
                                          std::span<const Item> items) {
  s.prepare(v, items);
};

/// s.prepare(v, items) when s (non-const) has one; nothing for a const scorer.
template <class S, class Item>
constexpr void prepare_scorer(S& s, const cluster_view& v, std::span<const Item> items) {
  if constexpr (!std::is_const_v<S> && requires { s.prepare(v, items); }) s.prepare(v, items);
}

/// What one decision scores with: a copy of a weighted scorer that prepares, else a
/// reference to the chain's own.
template <class E, class Item>
using decision_entry =
    std::conditional_t<prepares<decltype(std::declval<E&>().scorer), Item>, E, const E&>;
/// false iff scorer s says it scores every item 0 in this decision (its applies()). Its
/// column then adds exactly +0.0 to every total (weights are finite, a constant column
/// normalises to 0, and a total that starts at +0.0 is never −0.0), so both chain forms
/// skip it: same totals, bit for bit, without touching the items.
template <class S>
[[nodiscard]] constexpr bool applies(const S& s, const cluster_view& v) noexcept {
  if constexpr (requires {
                  { s.applies(v) } -> std::convertible_to<bool>;
                })
    return s.applies(v);
  else
    return true;
}
/// The extremes of a column as min-max normalisation takes them: lo and hi start at
/// column[0] (the caller's when it continues an earlier part of the column) and take
/// std::min/std::max of every value, in four independent lanes (no chain of dependent
/// min/max through the column). Either way lo and hi are NaN iff the column's first value
/// is, else the extremes of the other values; only the sign of a zero extreme may differ,
/// and it reaches no total: totals start at +0 and adding ±0 to them gives the same sum.
HEADROOM_DECL void extend_extremes(std::span<const double> column, double& lo_all,
                                   double& hi_all) noexcept;
/// totals += weight × normalise(column): the one accumulation both chain forms share.
/// Normalisation and sum in one pass (each total gets the same operations, in the same
/// order, as with a normalised column stored first); column is left as scored. A constant
/// column under min_max carries no information and adds nothing.
HEADROOM_DECL void accumulate(std::span<double> totals, std::span<const double> column,
                              double weight, normalization mode) noexcept;
inline double checked_weight(double w) { return require_non_negative("weight", w); }
/// Starts loading the records item's main part refers to (its worker, its first GPU), so
/// that scoring items in order streams them instead of waiting on each (a hint only). An
/// item without parts or claims loads a neighbour's record, which is harmless. Needs
/// non-empty parts (and claims for gpus).
template <class Item>
HEADROOM_ALWAYS_INLINE void prefetch_item(const cluster_view& v, const Item& item,
                                          record_reads r) noexcept {
  const placement_part& p = v.parts[std::min<std::size_t>(item.part_begin, v.parts.size() - 1)];
  if (r.workers) prefetch(v.workers.data() + p.worker_position);
  if (r.gpus)
    prefetch(v.gpus.data() +
             v.claims[std::min<std::size_t>(p.claim_begin, v.claims.size() - 1)].gpu_position);
}
/// column[i] = s.score(v, items[i]) for every item, prefetching what s reads
/// prefetch_distance ahead.
template <class S, class Item>
inline void score_column(const S& s, const cluster_view& v, std::span<const Item> items,
                         std::span<double> column) {
  if constexpr (requires { s.score_all(v, items, column); }) {
    s.score_all(v, items, column);  // the scorer's own loop over the whole column
    return;
  }
  constexpr record_reads r = scorer_reads<S>::value;
  const std::size_t n = items.size();
  std::size_t i = 0;
  if constexpr (r.gpus || r.workers) {
    if (!v.parts.empty() && (!r.gpus || !v.claims.empty())) {
      const std::size_t ahead = std::min<std::size_t>(n, prefetch_distance);
      for (std::size_t k = 0; k < ahead; ++k) prefetch_item(v, items[k], r);
      for (; i + prefetch_distance < n; ++i) {
        prefetch_item(v, items[i + prefetch_distance], r);
        column[i] = static_cast<double>(s.score(v, items[i]));
      }
    }
  }
  for (; i < n; ++i) column[i] = static_cast<double>(s.score(v, items[i]));
}
}  // namespace detail

/// A chain that scores Items: c.evaluate(view, items, totals, column) writes one total per
/// item (column is scratch of the same size).
template <class C, class Item>
concept ScorerChainFor = requires(C& c, const cluster_view& v, std::span<const Item> items,
                                  std::span<double> out) {
  c.evaluate(v, items, out, out);
};

namespace detail {
/// A scorer chain of Items (scheduler/diagnostics.hpp explains the purpose).
template <class C, class Item>
consteval bool diagnose_scorer_chain() {
  if constexpr (std::is_same_v<Item, candidate>)
    static_assert(ScorerChainFor<C, Item>,
                  "headroom: the scale-up chain cannot score candidates: it needs evaluate(view, "
                  "items, totals, scratch), and each scorer `double score(const cluster_view&, "
                  "const candidate&) const` (see scorer_chain, dynamic_scale_up_chain)");
  else
    static_assert(ScorerChainFor<C, Item>,
                  "headroom: the scale-down chain cannot score instances: it needs evaluate(view, "
                  "items, totals, scratch), and each scorer `double score(const cluster_view&, "
                  "const instance_record&) const` (see scorer_chain, dynamic_scale_down_chain)");
  return ScorerChainFor<C, Item>;
}
}  // namespace detail

/// A static scorer chain over weighted<Ss>...: fully inlined.
template <class... Ss>
class scorer_chain {
 public:
  /// Builds the chain; throws invalid_argument for a negative or NaN weight.
  constexpr explicit scorer_chain(normalization mode, weighted<Ss>... entries)
      : mode_(mode), entries_(std::move(entries)...) {
    std::apply([](const auto&... e) { (detail::checked_weight(e.weight), ...); }, entries_);
  }
  /// This chain with `extra` appended, the same normalisation: the defaults plus yours in one
  /// statement, `default_scale_up_chain().with(weighted<my_scorer>{.weight = 0.5, .name =
  /// "mine"})` (Kubernetes' framework: register a plugin, add {name, weight}).
  template <class S>
  [[nodiscard]] constexpr scorer_chain<Ss..., S> with(weighted<S> extra) const {
    return std::apply(
        [&](const auto&... e) { return scorer_chain<Ss..., S>(mode_, e..., std::move(extra)); },
        entries_);
  }
  /// The scratch evaluate() works best with: one column per scorer (scratch_columns ×
  /// items); with less it scores one scorer after the other.
  static constexpr std::size_t scratch_columns = sizeof...(Ss);
  /// Scores items into totals (column: scratch of at least items.size() entries; with
  /// scratch_columns × items.size() the items are scored in tiles, every scorer on one tile
  /// while its records are in cache: the same totals, bit for bit).
  template <class Item>
  requires(ScorerFor<Ss, Item>&&...) void evaluate(const cluster_view& v,
                                                   std::span<const Item> items,
                                                   std::span<double> totals,
                                                   std::span<double> column) const {
    const std::size_t n = items.size();
    auto entries = decision_entries<Item>();
    if constexpr (sizeof...(Ss) > 0)
      if (n > tile && column.size() >= n * sizeof...(Ss))
        return evaluate_tiled(entries, v, items, totals, column);
    std::fill(totals.begin(), totals.end(), 0.0);
    const std::span<double> scratch = column.first(n);
    std::apply([&](auto&... e) { (run(e, v, items, totals, scratch), ...); }, entries);
  }
  /// The normalisation mode.
  [[nodiscard]] constexpr normalization mode() const noexcept { return mode_; }
  /// The entries.
  [[nodiscard]] constexpr const std::tuple<weighted<Ss>...>& entries() const noexcept {
    return entries_;
  }

 private:
  // The entries one decision scores with (decision_entry: copies of the scorers that
  // prepare, references to the others).
  template <class Item>
  [[nodiscard]] std::tuple<detail::decision_entry<weighted<Ss>, Item>...> decision_entries() const {
    return std::apply(
        [](const auto&... e) {
          return std::tuple<detail::decision_entry<weighted<Ss>, Item>...>(e...);
        },
        entries_);
  }
  template <class E, class Item>
  void run(E& e, const cluster_view& v, std::span<const Item> items, std::span<double> totals,
           std::span<double> column) const {
    if (!detail::applies(e.scorer, v)) return;
    detail::prepare_scorer(e.scorer, v, items);
    detail::score_column(e.scorer, v, items, column);
    detail::accumulate(totals, column, e.weight, e.normalize.value_or(mode_));
  }
  // Items scored per tile: a tile's records (candidate, part, claim: ~60 B each) and
  // columns stay in the first- and second-level caches from one scorer to the next.
  static constexpr std::size_t tile = 512;
  // One column of the weighted sum (tiled evaluation): normalised (min_max), or raw.
  struct term {
    const double* column;
    double lo, span, weight;
    bool raw;
  };
  // Whether every entry sums its raw scores (normalization::none, its own or the chain's).
  [[nodiscard]] constexpr bool all_raw() const noexcept {
    return std::apply(
        [&](const auto&... e) {
          return ((e.normalize.value_or(mode_) == normalization::none) && ...);
        },
        entries_);
  }
  // Every scorer's raw column tile by tile (column k in scratch[k·n, (k+1)·n)), then the
  // totals: each total gets the same operations in the same order as run() gives it
  // (+0, then weight × normalised score per scorer that applies, in chain order).
  template <class Entries, class Item>
  void evaluate_tiled(Entries& entries, const cluster_view& v, std::span<const Item> items,
                      std::span<double> totals, std::span<double> scratch) const {
    constexpr std::size_t k = sizeof...(Ss);
    const std::size_t n = items.size();
    bool on[k] = {};
    double lo[k] = {}, hi[k] = {};
    std::apply(
        [&](auto&... e) {
          std::size_t j = 0;
          ((on[j] = detail::applies(e.scorer, v),
            on[j] ? detail::prepare_scorer(e.scorer, v, items) : void(), ++j),
           ...);
        },
        entries);
    const bool raw_only = all_raw();
    if (raw_only) std::fill(totals.begin(), totals.end(), 0.0);
    for (std::size_t b = 0; b < n; b += tile) {
      const std::size_t m = std::min(tile, n - b);
      const std::span<const Item> part = items.subspan(b, m);
      std::apply(
          [&](auto&... e) {
            std::size_t j = 0;
            ((on[j] ? score_tile(e, v, part, totals.subspan(b, m), scratch.subspan(j * n + b, m),
                                 raw_only, b == 0, lo[j], hi[j])
                    : void(),
              ++j),
             ...);
          },
          entries);
    }
    if (raw_only) return;
    term terms[k]{};  // value-initialised: g++ -O3 cannot see that only [0, t) is read
    std::size_t t = 0;
    std::apply(
        [&](const auto&... e) {
          std::size_t j = 0;
          ((on[j] && e.normalize.value_or(mode_) == normalization::none
                ? void(terms[t++] = {scratch.data() + j * n, 0.0, 1.0, e.weight, true})
            : on[j] && hi[j] > lo[j]
                ? void(terms[t++] = {scratch.data() + j * n, lo[j], hi[j] - lo[j], e.weight, false})
                : void(),
            ++j),
           ...);
        },
        entries);
    // Tile by tile (the totals stay in cache from one term to the next), each term's loop
    // free of dependencies between items.
    for (std::size_t b = 0; b < n; b += tile) {
      const std::size_t m = std::min(tile, n - b);
      double* const out = totals.data() + b;
      std::fill(out, out + m, 0.0);
      for (std::size_t j = 0; j < t; ++j) {
        const double* const c = terms[j].column + b;
        const double lo_j = terms[j].lo, span = terms[j].span, w = terms[j].weight;
        if (terms[j].raw) {
          for (std::size_t i = 0; i < m; ++i) out[i] += w * c[i];
          continue;
        }
        for (std::size_t i = 0; i < m; ++i)
          out[i] += w * ((c[i] - lo_j) / span * max_normalized_score);
      }
    }
  }
  // One scorer on one tile: raw scores into column; when every entry is raw, weight × score
  // added to totals at once, else the column's extremes extended (first: the tile starts the
  // column) for the sums after the last tile.
  template <class E, class Item>
  void score_tile(const E& e, const cluster_view& v, std::span<const Item> items,
                  std::span<double> totals, std::span<double> column, bool raw_only, bool first,
                  double& lo, double& hi) const {
    detail::score_column(e.scorer, v, items, column);
    if (raw_only) {
      detail::accumulate(totals, column, e.weight, normalization::none);
      return;
    }
    if (first) lo = hi = column[0];
    detail::extend_extremes(column, lo, hi);
  }
  normalization mode_;
  std::tuple<weighted<Ss>...> entries_;
};

/// A run-time configured scorer chain of Items (candidate or instance_record): plugins are
/// type-erased per batch (one virtual call per scorer and decision, not per item).
template <class Item>
class dynamic_scorer_chain {
 public:
  /// An empty chain with the given normalisation.
  explicit dynamic_scorer_chain(normalization mode = normalization::min_max) : mode_(mode) {}
  /// Appends scorer s under name with weight (>= 0), normalised as the chain is, or as
  /// `normalize` says (Kubernetes' per-plugin NormalizeScore).
  template <ScorerFor<Item> S>
  dynamic_scorer_chain& add(std::string name, double weight, S s,
                            std::optional<normalization> normalize = std::nullopt) {
    entries_.push_back({std::move(name), detail::checked_weight(weight), normalize,
                        std::make_unique<model<S>>(std::move(s))});
    return *this;
  }
  /// Sets the weight of the scorer called name; false if there is none.
  bool set_weight(std::string_view name, double weight) {
    for (auto& e : entries_)
      if (e.name == name) {
        e.weight = detail::checked_weight(weight);
        return true;
      }
    return false;
  }
  /// Scores items into totals (column: scratch, same size).
  void evaluate(const cluster_view& v, std::span<const Item> items, std::span<double> totals,
                std::span<double> column) const {
    std::fill(totals.begin(), totals.end(), 0.0);
    const std::span<double> scratch = column.first(items.size());
    for (auto& e : entries_)
      if (e.plugin->score_all(v, items, scratch))
        detail::accumulate(totals, scratch, e.weight, e.normalize.value_or(mode_));
  }
  /// Number of scorers.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Name of scorer i.
  [[nodiscard]] std::string_view name(std::size_t i) const noexcept { return entries_[i].name; }
  /// Weight of scorer i.
  [[nodiscard]] double weight(std::size_t i) const noexcept { return entries_[i].weight; }
  /// The normalisation mode.
  [[nodiscard]] normalization mode() const noexcept { return mode_; }
  /// How scorer i is normalised (its own mode, else the chain's).
  [[nodiscard]] normalization normalization_of(std::size_t i) const noexcept {
    return entries_[i].normalize.value_or(mode_);
  }

 private:
  struct concept_t {
    virtual ~concept_t() = default;
    // Scores items into out; false (out untouched) when every score would be 0.
    virtual bool score_all(const cluster_view&, std::span<const Item>, std::span<double>) const = 0;
  };
  template <class S>
  struct model final : concept_t {
    explicit model(S s) : scorer(std::move(s)) {}
    bool score_all(const cluster_view& v, std::span<const Item> items,
                   std::span<double> out) const override {
      if (!detail::applies(scorer, v)) return false;
      if constexpr (detail::prepares<S, Item>) {  // per-decision state: a prepared copy
        S prepared = scorer;
        prepared.prepare(v, items);
        detail::score_column(prepared, v, items, out);
      } else {
        detail::score_column(scorer, v, items, out);
      }
      return true;
    }
    S scorer;
  };
  struct entry {
    std::string name;
    double weight;
    std::optional<normalization> normalize;
    std::unique_ptr<concept_t> plugin;
  };
  normalization mode_;
  std::vector<entry> entries_;
};

/// Scale-up chain of dynamic plugins.
using dynamic_scale_up_chain = dynamic_scorer_chain<candidate>;
/// Scale-down chain of dynamic plugins.
using dynamic_scale_down_chain = dynamic_scorer_chain<instance_record>;

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/chain.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

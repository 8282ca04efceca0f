// SPDX-License-Identifier: Apache-2.0
// Configure once, decide many times, from any thread. A scheduler is a const policy: a
// filter chain, an estimator (or a function of the model returning one), a scale-up scorer
// chain and its options. Every decision takes a workspace the caller owns and passes (the
// kept index, its scratch and the result's storage): place(ws, …) decides, explain(ws, …)
// decides and says why each worker took no part, commit(ws, r) counts a placement in. A
// scale_down_ranker is a const scale-down chain; rank(ws, …) orders a model's instances for
// removal. One policy serves many threads with one workspace each, as the autoscaler's
// config serves many states. Presets: scheduler/presets.hpp. Guide: docs/scheduler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../error.hpp"
#include "chain.hpp"
#include "decision.hpp"
#include "diagnostics.hpp"
#include "estimators.hpp"
#include "filters.hpp"
#include "traits.hpp"
#include "view.hpp"
#include "workspace.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// What sizes one model for a scheduler: an Estimator, or a function of the model
/// returning one (e.g. a vllm_estimator from the model's own weights and heads).
template <class S, class M>
concept EstimatorSourceFor = Estimator<S> ||
    (std::invocable<const S&, const M&>&&
         Estimator<std::remove_cvref_t<std::invoke_result_t<const S&, const M&>>>);

/// A count that ranks every instance (scale_down_ranker::rank).
inline constexpr std::size_t every_instance = std::numeric_limits<std::size_t>::max();

namespace detail {
/// An estimator source S for models M (scheduler/diagnostics.hpp explains the purpose).
template <class S, class M>
consteval bool diagnose_estimator_source() {
  if constexpr (std::invocable<const S&, const M&>)
    return diagnose_estimator<std::remove_cvref_t<std::invoke_result_t<const S&, const M&>>>();
  else
    return diagnose_estimator<S>();
}
/// The estimator for model m: s itself, or s(m) (as std::invoke calls it: a member
/// function pointer as (m.*s)(), a data member pointer as m.*s; without <functional>).
template <class S, class M>
[[nodiscard]] decltype(auto) estimator_of(const S& s, const M& m) {
  if constexpr (Estimator<S>)
    return (s);
  else if constexpr (std::is_member_function_pointer_v<S>)
    return (m.*s)();
  else if constexpr (std::is_member_object_pointer_v<S>)
    return (m.*s);
  else
    return s(m);
}
/// A decision on a kept index for model m needs an index of m.
template <class M>
void require_indexed_for(const workspace& ws, const M& m) {
  if (!ws.indexed_for(model_traits<M>::id(m)))
    fail("model", std::string_view("another model"),
         "is not the model the index was built for: place(workers, instances, model) or "
         "index() first");
}
}  // namespace detail

/// Places new instances of models on the caller's workers: filters → candidate listing
/// (estimator, options.fit) → scorer chain → the highest total. A const policy: every
/// decision takes the caller's workspace (its kept index and scratch), so one scheduler
/// serves many threads with a workspace each; no allocation per decision once the workspace
/// is warm, unless explained.
template <class Filters, class Estimate, class Chain>
class scheduler {
 public:
  /// Configures it: the filter chain, the estimator (or a function of the model returning
  /// one), the scale-up scorer chain and the options. A reference template argument
  /// (scheduler<F&, E, C&>) borrows that part instead of holding it.
  scheduler(Filters filters, Estimate estimate, Chain chain, scheduler_options options = {})
      : filters_(std::forward<Filters>(filters)),
        estimate_(std::forward<Estimate>(estimate)),
        chain_(std::forward<Chain>(chain)),
        options_(options) {}

  /// Indexes workers and instances for model m into ws, then places one instance of m.
  /// Never throws for an infeasible model: the result says why. Its spans point into ws.
  template <class Workers, class Instances, class M>
  placement_result place(headroom::scheduling::workspace& ws, const Workers& workers,
                         const Instances& instances, const M& m) const {
    if constexpr (diagnose_with_instances<Workers, Instances, M>()) {
      ws.index(workers, instances, m);
      return decide(ws, workers, m, nullptr);
    }
    return {};
  }
  /// Places one instance of m on the index ws keeps (built by a place with instances, or
  /// index(), and kept current with ws.add_instance, remove_instance, update_worker, or
  /// commit()). workers must be the indexed list.
  template <class Workers, class M>
  placement_result place(headroom::scheduling::workspace& ws, const Workers& workers,
                         const M& m) const {
    if constexpr (diagnose_kept<Workers, M>()) {
      detail::require_indexed_for(ws, m);
      return decide(ws, workers, m, nullptr);
    }
    return {};
  }
  /// place(ws, workers, instances, m), explained: every worker that took no part, and why.
  template <class Workers, class Instances, class M>
  explained_placement explain(headroom::scheduling::workspace& ws, const Workers& workers,
                              const Instances& instances, const M& m) const {
    explained_placement out;
    if constexpr (diagnose_with_instances<Workers, Instances, M>()) {
      ws.index(workers, instances, m);
      out.result = decide(ws, workers, m, &out.why);
    }
    return out;
  }
  /// place(ws, workers, m) on the kept index, explained.
  template <class Workers, class M>
  explained_placement explain(headroom::scheduling::workspace& ws, const Workers& workers,
                              const M& m) const {
    explained_placement out;
    if constexpr (diagnose_kept<Workers, M>()) {
      detail::require_indexed_for(ws, m);
      out.result = decide(ws, workers, m, &out.why);
    }
    return out;
  }
  /// Indexes workers and instances for model m into ws without deciding.
  template <class Workers, class Instances, class M>
  void index(headroom::scheduling::workspace& ws, const Workers& workers,
             const Instances& instances, const M& m) const {
    ws.index(workers, instances, m);
  }
  /// Counts the placement r, the last decided on ws, in as an instance of the indexed
  /// model, so that the next place(ws, workers, m) decides after it. (Or add the placed
  /// instance with ws.add_instance: one or the other, not both.)
  void commit(headroom::scheduling::workspace& ws, const placement_result& r) const {
    if (r) ws.commit(r.chosen);
  }

  /// This policy with `extra` appended to its (static) chain: the preset plus your scorer in
  /// one statement, `default_scheduler(size_of).with(weighted<my_scorer>{.weight = 0.5,
  /// .name = "mine"})`.
  template <class S>
  requires requires(const std::remove_cvref_t<Chain>& c, weighted<S> w) { c.with(w); }
  [[nodiscard]] auto with(weighted<S> extra) const {
    using extended = decltype(chain_.with(std::move(extra)));
    return scheduler<std::remove_cvref_t<Filters>, std::remove_cvref_t<Estimate>, extended>(
        filters_, estimate_, chain_.with(std::move(extra)), options_);
  }

  /// The options. Change them (or the chain's weights) only while no decision runs.
  [[nodiscard]] scheduler_options& options() noexcept { return options_; }
  [[nodiscard]] const scheduler_options& options() const noexcept { return options_; }
  /// The filters, the estimator (source) and the chain.
  [[nodiscard]] const std::remove_reference_t<Filters>& filters() const noexcept {
    return filters_;
  }
  [[nodiscard]] const std::remove_reference_t<Estimate>& estimator() const noexcept {
    return estimate_;
  }
  [[nodiscard]] std::remove_reference_t<Chain>& chain() noexcept { return chain_; }
  [[nodiscard]] const std::remove_reference_t<Chain>& chain() const noexcept { return chain_; }

 private:
  template <class Workers, class Instances, class M>
  static consteval bool diagnose_with_instances() {
    if constexpr (!detail::diagnose_cluster<Workers, Instances, M>())
      return false;
    else
      return diagnose_configuration<std::ranges::range_value_t<Workers>, M>();
  }
  template <class Workers, class M>
  static consteval bool diagnose_kept() {
    if constexpr (!detail::diagnose_workers_and_model<Workers, M>())
      return false;
    else
      return diagnose_configuration<std::ranges::range_value_t<Workers>, M>();
  }
  template <class W, class M>
  static consteval bool diagnose_configuration() {
    if constexpr (!detail::diagnose_filter_chain<std::remove_cvref_t<Filters>, W, M>())
      return false;
    else if constexpr (!detail::diagnose_estimator_source<std::remove_cvref_t<Estimate>, M>())
      return false;
    else
      return detail::diagnose_scorer_chain<std::remove_cvref_t<Chain>, candidate>();
  }
  template <class Workers, class M>
  placement_result decide(headroom::scheduling::workspace& ws, const Workers& workers, const M& m,
                          explanation* why) const {
    const auto& estimator = detail::estimator_of(estimate_, m);
    return detail::place_on_index(workers, m, filters_, estimator, chain_, ws, options_, why);
  }

  Filters filters_;
  Estimate estimate_;
  Chain chain_;
  scheduler_options options_;
};

/// Ranks the instances of a model for scale down: the scale-down chain's totals,
/// ascending (ties: earlier in the caller's range first); delete the first
/// `instances − replicas` (pass that as count to order only those). A const policy: every
/// ranking takes the caller's workspace (the kept index, recording the model's instances).
template <class Chain>
class scale_down_ranker {
 public:
  /// Configures it: the scale-down chain, and what a ranking on the kept index does about
  /// workers changed without update_worker.
  explicit scale_down_ranker(Chain chain, stale_check stale = default_stale_check)
      : chain_(std::forward<Chain>(chain)), stale_(stale) {}

  /// Indexes workers and instances for model m into ws (recording m's instances), then
  /// ranks them. With count below their number, only the first count are ordered and
  /// returned. The span points into ws.
  template <class Workers, class Instances, class M>
  std::span<const ranked_instance> rank(headroom::scheduling::workspace& ws, const Workers& workers,
                                        const Instances& instances, const M& m,
                                        std::size_t count = every_instance) const {
    if constexpr (detail::diagnose_cluster<Workers, Instances, M>() &&
                  detail::diagnose_scorer_chain<std::remove_cvref_t<Chain>, instance_record>()) {
      ws.index(workers, instances, m, index_for::scale_down);
      return detail::rank_on_index(chain_, ws, count);
    }
    return {};
  }
  /// Ranks the instances recorded in the index ws keeps (built by a rank with instances, or
  /// index(), and kept current with ws.add_instance, remove_instance, update_worker).
  /// workers must be the indexed list: with stale_check refuse or refresh, each is compared
  /// with its record first.
  template <class Workers>
  std::span<const ranked_instance> rank(headroom::scheduling::workspace& ws, const Workers& workers,
                                        std::size_t count = every_instance) const {
    if constexpr (detail::diagnose_workers<Workers>() &&
                  detail::diagnose_scorer_chain<std::remove_cvref_t<Chain>, instance_record>()) {
      if (stale_ != stale_check::none) detail::check_records(workers, ws, stale_);
      return detail::rank_on_index(chain_, ws, count);
    }
    return {};
  }
  /// Indexes workers and instances for model m into ws, recording m's instances, without
  /// ranking.
  template <class Workers, class Instances, class M>
  void index(headroom::scheduling::workspace& ws, const Workers& workers,
             const Instances& instances, const M& m) const {
    ws.index(workers, instances, m, index_for::scale_down);
  }

  /// The chain (change its weights only while no ranking runs).
  [[nodiscard]] std::remove_reference_t<Chain>& chain() noexcept { return chain_; }
  [[nodiscard]] const std::remove_reference_t<Chain>& chain() const noexcept { return chain_; }
  /// What a ranking on the kept index does about stale workers.
  [[nodiscard]] stale_check& stale() noexcept { return stale_; }
  [[nodiscard]] stale_check stale() const noexcept { return stale_; }

 private:
  Chain chain_;
  stale_check stale_;
};

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

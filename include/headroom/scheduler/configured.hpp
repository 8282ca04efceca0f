// SPDX-License-Identifier: Apache-2.0
// Configure once, decide many times. A scheduler holds a filter chain, an estimator (or a
// function of the model returning one), a scale-up scorer chain, its options and its
// workspace; place() decides, explain() decides and says why each worker took no part,
// commit() counts the placement in. A scale_down_ranker holds a scale-down chain and its
// workspace; rank() orders a model's instances for removal. Both keep their index between
// decisions: decide on it directly (place(workers, model), rank(workers)) after keeping it
// current through workspace(). Presets: scheduler/presets.hpp. Guide: docs/scheduler.md.
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
/// (estimator, options.fit) → scorer chain → the highest total. Holds its configuration and
/// its workspace (the kept index); no allocation per decision once warm, unless explained.
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

  /// Indexes workers and instances for model m (the kept index), then places one instance
  /// of m. Never throws for an infeasible model: the result says why.
  template <class Workers, class Instances, class M>
  placement_result place(const Workers& workers, const Instances& instances, const M& m) {
    if constexpr (diagnose_with_instances<Workers, Instances, M>()) {
      ws_.index(workers, instances, m);
      return decide(workers, m, nullptr);
    }
    return {};
  }
  /// Places one instance of m on the kept index (built by a place with instances, or
  /// index(), and kept current through workspace(): add_instance, remove_instance,
  /// update_worker, or commit()). workers must be the indexed list.
  template <class Workers, class M>
  placement_result place(const Workers& workers, const M& m) {
    if constexpr (diagnose_kept<Workers, M>()) {
      detail::require_indexed_for(ws_, m);
      return decide(workers, m, nullptr);
    }
    return {};
  }
  /// place(workers, instances, m), explained: every worker that took no part, and why.
  template <class Workers, class Instances, class M>
  explained_placement explain(const Workers& workers, const Instances& instances, const M& m) {
    if constexpr (diagnose_with_instances<Workers, Instances, M>()) {
      ws_.index(workers, instances, m);
      return {decide(workers, m, &why_), why_};
    }
    return {{}, why_};
  }
  /// place(workers, m) on the kept index, explained.
  template <class Workers, class M>
  explained_placement explain(const Workers& workers, const M& m) {
    if constexpr (diagnose_kept<Workers, M>()) {
      detail::require_indexed_for(ws_, m);
      return {decide(workers, m, &why_), why_};
    }
    return {{}, why_};
  }
  /// Indexes workers and instances for model m without deciding.
  template <class Workers, class Instances, class M>
  void index(const Workers& workers, const Instances& instances, const M& m) {
    ws_.index(workers, instances, m);
  }
  /// Counts the placement r, the last this scheduler returned, in as an instance of the
  /// indexed model, so that the next place(workers, m) decides after it. (Or add the
  /// placed instance with workspace().add_instance: one or the other, not both.)
  void commit(const placement_result& r) {
    if (r) ws_.commit(r.chosen);
  }

  /// The kept index: keep it current with add_instance, remove_instance, update_worker.
  [[nodiscard]] headroom::workspace& workspace() noexcept { return ws_; }
  [[nodiscard]] const headroom::workspace& workspace() const noexcept { return ws_; }
  /// The options (a reference: change them between decisions).
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
  placement_result decide(const Workers& workers, const M& m, explanation* why) {
    const auto& estimator = detail::estimator_of(estimate_, m);
    return detail::place_on_index(workers, m, filters_, estimator, chain_, ws_, options_, why);
  }

  Filters filters_;
  Estimate estimate_;
  Chain chain_;
  scheduler_options options_;
  headroom::workspace ws_;
  explanation why_;
};

/// Ranks the instances of a model for scale down: the scale-down chain's totals,
/// ascending (ties: earlier in the caller's range first); delete the first
/// `instances − replicas` (pass that as count to order only those). Holds its chain and its
/// workspace (the kept index, recording the model's instances).
template <class Chain>
class scale_down_ranker {
 public:
  /// Configures it: the scale-down chain, and what a ranking on the kept index does about
  /// workers changed without update_worker.
  explicit scale_down_ranker(Chain chain, stale_check stale = default_stale_check)
      : chain_(std::forward<Chain>(chain)), stale_(stale) {}

  /// Indexes workers and instances for model m (recording m's instances), then ranks them.
  /// With count below their number, only the first count are ordered and returned. The
  /// span points into the workspace.
  template <class Workers, class Instances, class M>
  std::span<const ranked_instance> rank(const Workers& workers, const Instances& instances,
                                        const M& m, std::size_t count = every_instance) {
    if constexpr (detail::diagnose_cluster<Workers, Instances, M>() &&
                  detail::diagnose_scorer_chain<std::remove_cvref_t<Chain>, instance_record>()) {
      ws_.index(workers, instances, m, index_for::scale_down);
      return detail::rank_on_index(chain_, ws_, count);
    }
    return {};
  }
  /// Ranks the instances recorded in the kept index (built by a rank with instances, or
  /// index(), and kept current through workspace()). workers must be the indexed list:
  /// with stale_check refuse or refresh, each is compared with its record first.
  template <class Workers>
  std::span<const ranked_instance> rank(const Workers& workers,
                                        std::size_t count = every_instance) {
    if constexpr (detail::diagnose_workers<Workers>() &&
                  detail::diagnose_scorer_chain<std::remove_cvref_t<Chain>, instance_record>()) {
      if (stale_ != stale_check::none) detail::check_records(workers, ws_, stale_);
      return detail::rank_on_index(chain_, ws_, count);
    }
    return {};
  }
  /// Indexes workers and instances for model m, recording m's instances, without ranking.
  template <class Workers, class Instances, class M>
  void index(const Workers& workers, const Instances& instances, const M& m) {
    ws_.index(workers, instances, m, index_for::scale_down);
  }

  /// The kept index: keep it current with add_instance, remove_instance, update_worker.
  [[nodiscard]] headroom::workspace& workspace() noexcept { return ws_; }
  [[nodiscard]] const headroom::workspace& workspace() const noexcept { return ws_; }
  /// The chain.
  [[nodiscard]] std::remove_reference_t<Chain>& chain() noexcept { return chain_; }
  /// What a ranking on the kept index does about stale workers (change it between rankings).
  [[nodiscard]] stale_check& stale() noexcept { return stale_; }

 private:
  Chain chain_;
  stale_check stale_;
  headroom::workspace ws_;
};

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

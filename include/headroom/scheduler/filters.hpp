// SPDX-License-Identifier: Apache-2.0
// Scheduler step 1: basic worker filters (non-resource constraints), in GPUStack's order:
// cluster, GPU matching, label matching, state, backend framework, local path. Each is a
// plain callable usable alone; filter_chain (static, std::tuple) and dynamic_filter_chain
// (type-erased, run-time configured) run them in order and stop at the first rejection.
// A rejection is a small code; its text is looked up only when an explanation is asked for.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "traits.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// A filter's answer for one worker: pass, or reject with a filter-specific reason code.
struct filter_verdict {
  bool pass = true;         ///< true: the worker stays
  std::uint8_t reason = 0;  ///< when rejected: code for the filter's why()
  /// The verdict that keeps the worker.
  [[nodiscard]] static constexpr filter_verdict keep() noexcept { return {true, 0}; }
  /// The verdict that drops the worker, with a reason code.
  [[nodiscard]] static constexpr filter_verdict reject(std::uint8_t code = 0) noexcept {
    return {false, code};
  }
};

/// A worker filter for workers W and models M: f(w, m) -> filter_verdict, f.name() and
/// f.why(code) (static text; called only when an explanation is requested).
template <class F, class W, class M>
concept FilterFor = requires(const F& f, const W& w, const M& m, std::uint8_t code) {
  { f(w, m) } -> std::same_as<filter_verdict>;
  { f.name() } -> std::convertible_to<std::string_view>;
  { f.why(code) } -> std::convertible_to<std::string_view>;
};

/// Keeps workers of the model's cluster.
struct cluster_filter {
  template <Worker W, ModelRequestFor<W> M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M& m) const noexcept {
    return worker_traits<W>::cluster(w) == model_traits<M>::cluster(m) ? filter_verdict::keep()
                                                                       : filter_verdict::reject();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "cluster"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "worker is not in the model's cluster";
  }
};

/// When the model selects GPUs explicitly, keeps only workers holding a selected GPU.
struct gpu_matching_filter {
  template <Worker W, ModelRequest M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M& m) const noexcept {
    const auto& sel = model_traits<M>::gpu_selection(m);
    if (std::ranges::begin(sel) == std::ranges::end(sel)) return filter_verdict::keep();
    const std::uint64_t id = worker_traits<W>::id(w);
    for (const auto& ref : sel)
      if (gpu_ref_traits<std::remove_cvref_t<decltype(ref)>>::worker_id(ref) == id)
        return filter_verdict::keep();
    return filter_verdict::reject();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "gpu_matching"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "none of the model's selected GPUs is on this worker";
  }
};

/// Keeps workers whose labels satisfy every (key, value) selector of the model.
struct label_filter {
  template <Worker W, ModelRequest M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M& m) const noexcept {
    const auto& labels = worker_traits<W>::labels(w);
    for (const auto& sel : model_traits<M>::selectors(m)) {
      bool found = false;
      for (const auto& label : labels) {
        // Label and selector types that cannot compare never match.
        if constexpr (requires { label.first == sel.first&& label.second == sel.second; }) {
          if (label.first == sel.first && label.second == sel.second) {
            found = true;
            break;
          }
        }
      }
      if (!found) return filter_verdict::reject();
    }
    return filter_verdict::keep();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "label_matching"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "worker labels do not satisfy the model's selectors";
  }
};

/// Keeps READY workers only (GPUStack's worker_filters/status_filter.py).
struct state_filter {
  template <Worker W, class M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M&) const noexcept {
    return is_ready(worker_traits<W>::state(w)) ? filter_verdict::keep() : filter_verdict::reject();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "state"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "worker is not READY";
  }
};

/// Drops workers whose accelerators or runtime do not suit the model's backend, as told by
/// the caller's predicate compatible(worker, model) -> bool.
template <class Predicate>
struct backend_filter {
  Predicate compatible;  ///< compatible(worker, model): may this backend run here?
  template <Worker W, ModelRequest M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M& m) const
      noexcept(noexcept(static_cast<bool>(compatible(w, m)))) {
    return compatible(w, m) ? filter_verdict::keep() : filter_verdict::reject();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "backend_framework"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "accelerators or runtime do not match the backend";
  }
};
template <class P>
backend_filter(P) -> backend_filter<P>;

/// For a local-path model with explicitly selected GPUs, drops workers where the caller's
/// predicate path_exists(worker, model) is false; passes every worker otherwise.
template <class Predicate>
struct local_path_filter {
  Predicate path_exists;  ///< path_exists(worker, model): is the model path present here?
  template <Worker W, ModelRequest M>
  [[nodiscard]] constexpr filter_verdict operator()(const W& w, const M& m) const
      noexcept(noexcept(static_cast<bool>(path_exists(w, m)))) {
    if (!model_traits<M>::local_path(m)) return filter_verdict::keep();
    const auto& sel = model_traits<M>::gpu_selection(m);
    if (std::ranges::begin(sel) == std::ranges::end(sel)) return filter_verdict::keep();
    return path_exists(w, m) ? filter_verdict::keep() : filter_verdict::reject();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "local_path"; }
  /// Why a worker was dropped.
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept {
    return "the model's local path does not exist on this worker";
  }
};
template <class P>
local_path_filter(P) -> local_path_filter<P>;

/// A predicate that accepts every (worker, model): the default backend/local-path check.
struct always_true {
  template <class... Args>
  [[nodiscard]] constexpr bool operator()(const Args&...) const noexcept {
    return true;
  }
};

/// The outcome of a filter chain for one worker: pass, or which filter rejected and why.
struct filter_outcome {
  std::int32_t filter = -1;  ///< index in the chain of the rejecting filter; -1 = passed
  std::uint8_t reason = 0;   ///< that filter's reason code
  /// true iff the worker passed every filter.
  [[nodiscard]] constexpr bool passed() const noexcept { return filter < 0; }
};

/// A static filter chain: the filters run in order (fold expression, fully inlined) and
/// the first rejection stops the chain.
template <class... Fs>
class filter_chain {
 public:
  /// Builds the chain from its filters, in order.
  constexpr explicit filter_chain(Fs... fs) : filters_(std::move(fs)...) {}

  /// Runs the filters on worker w for model m.
  template <class W, class M>
  requires(FilterFor<Fs, W, M>&&...) [[nodiscard]] constexpr filter_outcome operator()(
      const W& w, const M& m) const {
    filter_outcome out;
    run(w, m, out, std::index_sequence_for<Fs...>{});
    return out;
  }
  /// Number of filters.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return sizeof...(Fs); }
  /// The name of filter i.
  [[nodiscard]] constexpr std::string_view name(std::size_t i) const noexcept {
    std::string_view out;
    visit(i, [&](const auto& f) { out = f.name(); });
    return out;
  }
  /// The text of filter i's reason code.
  [[nodiscard]] constexpr std::string_view why(std::size_t i, std::uint8_t code) const noexcept {
    std::string_view out;
    visit(i, [&](const auto& f) { out = f.why(code); });
    return out;
  }
  /// The filters.
  [[nodiscard]] constexpr const std::tuple<Fs...>& filters() const noexcept { return filters_; }

 private:
  template <class W, class M, std::size_t... I>
  constexpr void run(const W& w, const M& m, filter_outcome& out, std::index_sequence<I...>) const {
    (void)((check<I>(w, m, out)) && ...);
  }
  template <std::size_t I, class W, class M>
  constexpr bool check(const W& w, const M& m, filter_outcome& out) const {
    const filter_verdict v = std::get<I>(filters_)(w, m);
    if (v.pass) return true;
    out.filter = static_cast<std::int32_t>(I);
    out.reason = v.reason;
    return false;
  }
  template <class F>
  constexpr void visit(std::size_t i, F&& f) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (void)((i == I ? (f(std::get<I>(filters_)), true) : false) || ...);
    }
    (std::index_sequence_for<Fs...>{});
  }
  std::tuple<Fs...> filters_;
};

/// The six built-in filters in GPUStack's order; compatible(w, m) and path_exists(w, m) are
/// the caller's backend-compatibility and local-path predicates.
template <class Compatible = always_true, class PathExists = always_true>
[[nodiscard]] constexpr auto basic_filters(Compatible compatible = {},
                                           PathExists path_exists = {}) {
  return filter_chain<cluster_filter, gpu_matching_filter, label_filter, state_filter,
                      backend_filter<Compatible>, local_path_filter<PathExists>>(
      cluster_filter{}, gpu_matching_filter{}, label_filter{}, state_filter{},
      backend_filter<Compatible>{std::move(compatible)},
      local_path_filter<PathExists>{std::move(path_exists)});
}

/// A run-time configured filter chain over W and M: type-erased filters with names.
template <class W, class M>
class dynamic_filter_chain {
 public:
  /// Appends filter f (any FilterFor<F, W, M>); it runs after those added before.
  template <FilterFor<W, M> F>
  dynamic_filter_chain& add(F f) {
    filters_.push_back(std::make_unique<model<F>>(std::move(f)));
    return *this;
  }
  /// Runs the filters on worker w for model m, in order; stops at the first rejection.
  [[nodiscard]] filter_outcome operator()(const W& w, const M& m) const {
    for (std::size_t i = 0; i < filters_.size(); ++i) {
      const filter_verdict v = filters_[i]->run(w, m);
      if (!v.pass) return {static_cast<std::int32_t>(i), v.reason};
    }
    return {};
  }
  /// Number of filters.
  [[nodiscard]] std::size_t size() const noexcept { return filters_.size(); }
  /// The name of filter i.
  [[nodiscard]] std::string_view name(std::size_t i) const { return filters_[i]->name(); }
  /// The text of filter i's reason code.
  [[nodiscard]] std::string_view why(std::size_t i, std::uint8_t code) const {
    return filters_[i]->why(code);
  }

 private:
  struct concept_t {
    virtual ~concept_t() = default;
    virtual filter_verdict run(const W&, const M&) const = 0;
    virtual std::string_view name() const = 0;
    virtual std::string_view why(std::uint8_t) const = 0;
  };
  template <class F>
  struct model final : concept_t {
    explicit model(F f) : filter(std::move(f)) {}
    filter_verdict run(const W& w, const M& m) const override { return filter(w, m); }
    std::string_view name() const override { return filter.name(); }
    std::string_view why(std::uint8_t c) const override { return filter.why(c); }
    F filter;
  };
  std::vector<std::unique_ptr<concept_t>> filters_;
};

/// A chain of filters (static or dynamic) for workers W and models M.
template <class C, class W, class M>
concept FilterChainFor = requires(const C& c, const W& w, const M& m, std::size_t i,
                                  std::uint8_t r) {
  { c(w, m) } -> std::same_as<filter_outcome>;
  { c.name(i) } -> std::convertible_to<std::string_view>;
  { c.why(i, r) } -> std::convertible_to<std::string_view>;
};

namespace detail {
/// A filter chain for workers W and models M (scheduler/diagnostics.hpp explains the
/// purpose).
template <class C, class W, class M>
consteval bool diagnose_filter_chain() {
  static_assert(FilterChainFor<C, W, M>,
                "headroom: the filter chain cannot filter these workers for this model: it needs "
                "operator()(worker, model) -> filter_outcome, name(i) and why(i, code), and each "
                "of its filters FilterFor<worker, model> (see filter_chain, dynamic_filter_chain)");
  return FilterChainFor<C, W, M>;
}
}  // namespace detail

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

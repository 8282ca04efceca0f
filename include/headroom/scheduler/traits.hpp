// SPDX-License-Identifier: Apache-2.0
// Scheduler adaptation layer: the caller's own worker, GPU, model-request and instance
// types are read through *_traits. Primary templates read plainly named members, so a
// plain struct works as it is; a foreign type needs one specialization. The concepts
// Worker, Gpu, ModelRequest and Instance are defined over the traits (docs/scheduler.md).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>

#include "../version.hpp"

namespace headroom {
inline namespace v0 {

/// A worker's lifecycle state; only ready workers take new instances.
enum class worker_state : std::uint8_t { ready, not_ready, unreachable, maintenance };

/// An instance's lifecycle state; running instances on ready workers are the healthy ones.
enum class instance_state : std::uint8_t { running, starting, downloading, error, unreachable };

/// The model's placement policy: pack into few workers/GPUs, or spread across workers.
enum class placement_policy : std::uint8_t { binpack, spread };

/// One GPU an instance occupies and the VRAM it claims there (index as gpu_traits::index).
struct gpu_claim {
  std::uint32_t index = 0;       ///< the GPU's index on its worker
  std::uint64_t vram_bytes = 0;  ///< VRAM claimed on that GPU, bytes
};

/// One explicitly selected GPU: the worker's id and the GPU's index on it.
struct gpu_ref {
  std::uint64_t worker_id = 0;  ///< worker_traits::id of the worker
  std::uint32_t index = 0;      ///< gpu_traits::index of the GPU
};

namespace detail {
/// An empty range used by the primary traits when an optional member is absent.
template <class T>
inline constexpr std::span<const T> empty_span{};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// true iff the range r holds an element equal to key.
template <class R, class K>
[[nodiscard]] constexpr bool range_contains(const R& r, const K& key) noexcept {
  for (const auto& e : r)
    if (e == key) return true;
  return false;
}
}  // namespace detail

/// Reads a GPU. Primary template: members index, vram_total_bytes, vram_reserved_bytes and
/// (optionally) type. Specialize it to adapt a foreign type.
template <class G>
struct gpu_traits {
  /// The GPU's index on its worker (as instances and explicit selections name it).
  static constexpr std::uint32_t index(const G& g) noexcept requires requires { g.index; }
  { return static_cast<std::uint32_t>(g.index); }
  /// Total VRAM, bytes.
  static constexpr std::uint64_t vram_total_bytes(const G& g) noexcept requires requires {
    g.vram_total_bytes;
  }
  { return static_cast<std::uint64_t>(g.vram_total_bytes); }
  /// VRAM reserved for the system (never allocatable), bytes; 0 when the member is absent.
  static constexpr std::uint64_t vram_reserved_bytes(const G& g) noexcept {
    if constexpr (requires { g.vram_reserved_bytes; })
      return static_cast<std::uint64_t>(g.vram_reserved_bytes);
    else
      return 0;
  }
};

/// Reads a worker. Primary template: members id, cluster, labels (pairs with .first and
/// .second), state (worker_state), ram_total_bytes, ram_reserved_bytes, gpus (a range of
/// Gpu) and ready_files (a range of file keys). labels and ready_files are optional.
template <class W>
struct worker_traits {
  /// A unique id (ties between equal scores break on the lowest id).
  static constexpr std::uint64_t id(const W& w) noexcept requires requires { w.id; }
  { return static_cast<std::uint64_t>(w.id); }
  /// The cluster the worker belongs to (compared with model_traits::cluster).
  static constexpr const auto& cluster(const W& w) noexcept requires requires { w.cluster; }
  { return w.cluster; }
  /// Key/value labels: a range of pairs (.first, .second).
  static constexpr decltype(auto) labels(const W& w) noexcept {
    if constexpr (requires { w.labels; })
      return (w.labels);
    else
      return detail::empty_span<std::pair<int, int>>;
  }
  /// true iff the worker is READY.
  static constexpr bool ready(const W& w) noexcept requires requires {
    w.state == worker_state::ready;
  }
  { return w.state == worker_state::ready; }
  /// Total RAM, bytes.
  static constexpr std::uint64_t ram_total_bytes(const W& w) noexcept requires requires {
    w.ram_total_bytes;
  }
  { return static_cast<std::uint64_t>(w.ram_total_bytes); }
  /// RAM reserved for the system, bytes; 0 when the member is absent.
  static constexpr std::uint64_t ram_reserved_bytes(const W& w) noexcept {
    if constexpr (requires { w.ram_reserved_bytes; })
      return static_cast<std::uint64_t>(w.ram_reserved_bytes);
    else
      return 0;
  }
  /// The worker's GPUs (a forward range of a Gpu type).
  static constexpr const auto& gpus(const W& w) noexcept requires requires { w.gpus; }
  { return w.gpus; }
  /// true iff the files identified by file_key are READY on this worker (key 0 never is).
  static constexpr bool files_ready(const W& w, std::uint64_t file_key) noexcept {
    if constexpr (requires { w.ready_files; })
      return file_key != 0 && detail::range_contains(w.ready_files, file_key);
    else
      return false;
  }
};

/// Reads a model request (the model to place or whose instances to rank). Primary
/// template: members id, cluster; optional selectors (pairs), gpu_selection (range of
/// gpu_ref-like {worker_id, index}), placement (placement_policy), local_path (bool: the
/// model is loaded from a local path), files and draft_files (file keys, 0 = none).
template <class M>
struct model_traits {
  /// The model's id (instances of this model are "cur", others "oth" for spread).
  static constexpr std::uint64_t id(const M& m) noexcept requires requires { m.id; }
  { return static_cast<std::uint64_t>(m.id); }
  /// The cluster the model must run in.
  static constexpr const auto& cluster(const M& m) noexcept requires requires { m.cluster; }
  { return m.cluster; }
  /// Label selectors: every (key, value) must appear among a worker's labels.
  static constexpr decltype(auto) selectors(const M& m) noexcept {
    if constexpr (requires { m.selectors; })
      return (m.selectors);
    else
      return detail::empty_span<std::pair<int, int>>;
  }
  /// Explicitly selected GPUs; empty = no explicit selection.
  static constexpr decltype(auto) gpu_selection(const M& m) noexcept {
    if constexpr (requires { m.gpu_selection; })
      return (m.gpu_selection);
    else
      return detail::empty_span<gpu_ref>;
  }
  /// binpack (the default when the member is absent) or spread.
  static constexpr placement_policy placement(const M& m) noexcept {
    if constexpr (requires { m.placement; })
      return m.placement;
    else
      return placement_policy::binpack;
  }
  /// true iff the model's source is a local path (the local-path filter applies).
  static constexpr bool local_path(const M& m) noexcept {
    if constexpr (requires { m.local_path; })
      return static_cast<bool>(m.local_path);
    else
      return false;
  }
  /// Key of the main model's files (worker_traits::files_ready); 0 = unknown.
  static constexpr std::uint64_t files(const M& m) noexcept {
    if constexpr (requires { m.files; })
      return static_cast<std::uint64_t>(m.files);
    else
      return 0;
  }
  /// Key of the draft model's files for speculative decoding; 0 = no draft model.
  static constexpr std::uint64_t draft_files(const M& m) noexcept {
    if constexpr (requires { m.draft_files; })
      return static_cast<std::uint64_t>(m.draft_files);
    else
      return 0;
  }
};

/// Placeholder element type of an instance without subordinates (never instantiated).
struct no_subordinate {
  std::uint64_t worker_id = 0;
  std::span<const gpu_claim> gpus{};
  std::uint64_t ram_bytes = 0;
};

/// Reads an existing instance. Primary template: members id, model_id, worker_id (integer,
/// or std::optional of one; absent = not scheduled), state (instance_state), ram_bytes,
/// gpus (range of {index, vram_bytes}); optional subordinates (range of {worker_id, gpus,
/// optional ram_bytes}), total_layers and offload_layers (0 = no layer metadata).
template <class I>
struct instance_traits {
  /// A unique id.
  static constexpr std::uint64_t id(const I& i) noexcept requires requires { i.id; }
  { return static_cast<std::uint64_t>(i.id); }
  /// The id of the model the instance serves.
  static constexpr std::uint64_t model_id(const I& i) noexcept requires requires { i.model_id; }
  { return static_cast<std::uint64_t>(i.model_id); }
  /// The main worker's id, or nullopt when the instance is not scheduled.
  static constexpr std::optional<std::uint64_t> worker_id(const I& i) noexcept requires requires {
    i.worker_id;
  }
  {
    if constexpr (detail::is_optional<std::remove_cvref_t<decltype(i.worker_id)>>::value) {
      if (!i.worker_id) return std::nullopt;
      return static_cast<std::uint64_t>(*i.worker_id);
    } else {
      return static_cast<std::uint64_t>(i.worker_id);
    }
  }
  /// The instance's state.
  static constexpr instance_state state(const I& i) noexcept requires requires { i.state; }
  { return i.state; }
  /// RAM claimed on the main worker, bytes.
  static constexpr std::uint64_t ram_bytes(const I& i) noexcept requires requires { i.ram_bytes; }
  { return static_cast<std::uint64_t>(i.ram_bytes); }
  /// GPUs on the main worker: a range of {index, vram_bytes} (empty = CPU instance).
  static constexpr const auto& gpus(const I& i) noexcept requires requires { i.gpus; }
  { return i.gpus; }
  /// Subordinate workers of a distributed instance: range of {worker_id, gpus[, ram_bytes]}.
  static constexpr decltype(auto) subordinates(const I& i) noexcept {
    if constexpr (requires { i.subordinates; })
      return (i.subordinates);
    else
      return detail::empty_span<no_subordinate>;
  }
  /// Total layers of a layer-offloaded (GGUF) instance; 0 = no layer metadata.
  static constexpr std::uint32_t total_layers(const I& i) noexcept {
    if constexpr (requires { i.total_layers; })
      return static_cast<std::uint32_t>(i.total_layers);
    else
      return 0;
  }
  /// Layers offloaded to GPU.
  static constexpr std::uint32_t offload_layers(const I& i) noexcept {
    if constexpr (requires { i.offload_layers; })
      return static_cast<std::uint32_t>(i.offload_layers);
    else
      return 0;
  }
};

namespace detail {
template <class R>
using elem_t = std::ranges::range_value_t<std::remove_cvref_t<R>>;

template <class C>
concept GpuClaimLike = requires(const C& c) {
  { c.index } -> std::convertible_to<std::uint32_t>;
  { c.vram_bytes } -> std::convertible_to<std::uint64_t>;
};
template <class S>
concept SubordinateLike = requires(const S& s) {
  { s.worker_id } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(s.gpus)>;
  requires GpuClaimLike<elem_t<decltype(s.gpus)>>;
};
template <class P>
concept LabelPair = requires(const P& p) {
  p.first;
  p.second;
};
/// The RAM a subordinate claims, 0 when it does not say.
template <class S>
[[nodiscard]] constexpr std::uint64_t subordinate_ram_bytes(const S& s) noexcept {
  if constexpr (requires { s.ram_bytes; })
    return static_cast<std::uint64_t>(s.ram_bytes);
  else
    return 0;
}
}  // namespace detail

/// A GPU as the scheduler reads it through gpu_traits<G>.
template <class G>
concept Gpu = requires(const G& g) {
  { gpu_traits<G>::index(g) } -> std::convertible_to<std::uint32_t>;
  { gpu_traits<G>::vram_total_bytes(g) } -> std::convertible_to<std::uint64_t>;
  { gpu_traits<G>::vram_reserved_bytes(g) } -> std::convertible_to<std::uint64_t>;
};

/// A worker as the scheduler reads it through worker_traits<W>.
template <class W>
concept Worker = requires(const W& w, std::uint64_t key) {
  { worker_traits<W>::id(w) } -> std::convertible_to<std::uint64_t>;
  worker_traits<W>::cluster(w);
  requires std::ranges::input_range<decltype(worker_traits<W>::labels(w))>;
  { worker_traits<W>::ready(w) } -> std::convertible_to<bool>;
  { worker_traits<W>::ram_total_bytes(w) } -> std::convertible_to<std::uint64_t>;
  { worker_traits<W>::ram_reserved_bytes(w) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::forward_range<decltype(worker_traits<W>::gpus(w))>;
  requires Gpu<detail::elem_t<decltype(worker_traits<W>::gpus(w))>>;
  { worker_traits<W>::files_ready(w, key) } -> std::convertible_to<bool>;
};

/// A model request as the scheduler reads it through model_traits<M>.
template <class M>
concept ModelRequest = requires(const M& m) {
  { model_traits<M>::id(m) } -> std::convertible_to<std::uint64_t>;
  model_traits<M>::cluster(m);
  requires std::ranges::input_range<decltype(model_traits<M>::selectors(m))>;
  requires std::ranges::input_range<decltype(model_traits<M>::gpu_selection(m))>;
  { model_traits<M>::placement(m) } -> std::convertible_to<placement_policy>;
  { model_traits<M>::local_path(m) } -> std::convertible_to<bool>;
  { model_traits<M>::files(m) } -> std::convertible_to<std::uint64_t>;
  { model_traits<M>::draft_files(m) } -> std::convertible_to<std::uint64_t>;
};

/// A model request placeable on workers W: clusters compare, selectors match label pairs.
template <class M, class W>
concept ModelRequestFor = ModelRequest<M> && Worker<W> &&
    std::equality_comparable_with<decltype(model_traits<M>::cluster(std::declval<const M&>())),
                                  decltype(worker_traits<W>::cluster(std::declval<const W&>()))>;

/// An existing instance as the scheduler reads it through instance_traits<I>.
template <class I>
concept Instance = requires(const I& i) {
  { instance_traits<I>::id(i) } -> std::convertible_to<std::uint64_t>;
  { instance_traits<I>::model_id(i) } -> std::convertible_to<std::uint64_t>;
  { instance_traits<I>::worker_id(i) } -> std::convertible_to<std::optional<std::uint64_t>>;
  { instance_traits<I>::state(i) } -> std::convertible_to<instance_state>;
  { instance_traits<I>::ram_bytes(i) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(instance_traits<I>::gpus(i))>;
  requires detail::GpuClaimLike<detail::elem_t<decltype(instance_traits<I>::gpus(i))>>;
  requires std::ranges::input_range<decltype(instance_traits<I>::subordinates(i))>;
  requires detail::SubordinateLike<detail::elem_t<decltype(instance_traits<I>::subordinates(i))>>;
  { instance_traits<I>::total_layers(i) } -> std::convertible_to<std::uint32_t>;
  { instance_traits<I>::offload_layers(i) } -> std::convertible_to<std::uint32_t>;
};

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

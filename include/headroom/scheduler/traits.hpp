// SPDX-License-Identifier: Apache-2.0
// Scheduler adaptation layer: the caller's own worker, GPU, model-request, instance, claim,
// subordinate, selection and model-file types are read through *_traits. Primary templates
// read plainly named members, so a plain struct works as it is; a foreign type needs one
// specialization. The concepts Worker, Gpu, ModelRequest, Instance and ModelFile are defined
// over the traits (docs/scheduler.md §1).
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
#include <string>
#include <string_view>
#include <type_traits>

#include "../version.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// The scheduler: workers, GPUs, models and instances of the caller's types, filters,
/// estimators, fits and scorer chains, and the policy that composes them
/// (docs/scheduler.md).
namespace scheduling {
/// The scheduler's internals; they call the library's shared ones as detail:: too.
namespace detail {
using namespace ::headroom::detail;
}  // namespace detail

/// One GiB in bytes.
inline constexpr std::uint64_t gib_bytes = std::uint64_t{1} << 30;

/// A worker's lifecycle state: GPUStack's WorkerStateEnum (gpustack/schemas/workers.py).
/// Only ready workers take new instances; scale down scores a not_ready worker's instances 0.
enum class worker_state : std::uint8_t {
  not_ready,     ///< NOT_READY
  ready,         ///< READY
  unreachable,   ///< UNREACHABLE
  pending,       ///< PENDING
  provisioning,  ///< PROVISIONING
  initializing,  ///< INITIALIZING
  deleting,      ///< DELETING
  error,         ///< ERROR
  maintenance    ///< MAINTENANCE
};

/// An instance's lifecycle state: GPUStack's ModelInstanceStateEnum
/// (gpustack/schemas/models.py). Every state counts against the allocatable resources;
/// scale down scores running instances on ready workers highest, error ones 0.
enum class instance_state : std::uint8_t {
  initializing,  ///< INITIALIZING
  pending,       ///< PENDING
  starting,      ///< STARTING
  running,       ///< RUNNING
  scheduled,     ///< SCHEDULED
  error,         ///< ERROR
  downloading,   ///< DOWNLOADING
  analyzing,     ///< ANALYZING
  unreachable    ///< UNREACHABLE
};

/// The model's placement policy: pack into few workers/GPUs, or spread across workers.
enum class placement_policy : std::uint8_t { binpack, spread };

/// One GPU an instance occupies and the VRAM it claims there (the primary claim_traits).
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
/// A member read as text: anything convertible to std::string_view.
template <class T>
[[nodiscard]] constexpr std::string_view as_text(const T& t) noexcept {
  return std::string_view(t);
}
/// An optional count member: absent → nullopt; std::optional → itself; a plain integer →
/// itself, except 0 → nullopt when zero_is_none (0 = "not given").
template <class T>
[[nodiscard]] constexpr std::optional<std::uint32_t> optional_count(const T& v,
                                                                    bool zero_is_none) noexcept {
  if constexpr (is_optional<T>::value) {
    if (!v) return std::nullopt;
    return static_cast<std::uint32_t>(*v);
  } else {
    if (zero_is_none && v == 0) return std::nullopt;
    return static_cast<std::uint32_t>(v);
  }
}
}  // namespace detail

/// A model identity: an integer (or enum) or text (anything convertible to std::string_view;
/// GPUStack names its models). A model's instances name it with the same kind of value.
template <class T>
concept ModelId = std::integral<std::remove_cvref_t<T>> || std::is_enum_v<std::remove_cvref_t<T>> ||
    (std::convertible_to<const std::remove_cvref_t<T>&, std::string_view>);

/// Reads one GPU claim {index, VRAM bytes}. Primary template: members index, vram_bytes.
template <class C>
struct claim_traits {
  /// The GPU's index on its worker.
  static constexpr std::uint32_t index(const C& c) noexcept requires requires { c.index; }
  { return static_cast<std::uint32_t>(c.index); }
  /// VRAM claimed there, bytes.
  static constexpr std::uint64_t vram_bytes(const C& c) noexcept requires requires { c.vram_bytes; }
  { return static_cast<std::uint64_t>(c.vram_bytes); }
};

/// Reads one explicitly selected GPU. Primary template: members worker_id, index.
template <class R>
struct gpu_ref_traits {
  /// worker_traits::id of the GPU's worker.
  static constexpr std::uint64_t worker_id(const R& r) noexcept requires requires { r.worker_id; }
  { return static_cast<std::uint64_t>(r.worker_id); }
  /// gpu_traits::index of the GPU.
  static constexpr std::uint32_t index(const R& r) noexcept requires requires { r.index; }
  { return static_cast<std::uint32_t>(r.index); }
};

/// Reads a GPU, by default: members index, vram_total_bytes and, optionally,
/// vram_reserved_bytes and type. gpu_traits derives from it.
template <class G>
struct default_gpu_traits {
  /// The GPU's index on its worker (as instances and explicit selections name it).
  static constexpr std::uint32_t index(const G& g) noexcept requires requires { g.index; }
  { return static_cast<std::uint32_t>(g.index); }
  /// Total VRAM, bytes.
  static constexpr std::uint64_t vram_total_bytes(const G& g) noexcept requires requires {
    g.vram_total_bytes;
  }
  { return static_cast<std::uint64_t>(g.vram_total_bytes); }
  /// VRAM reserved on this GPU alone (never allocatable), bytes; 0 when absent. Adds to
  /// worker_traits::vram_reserved_bytes.
  static constexpr std::uint64_t vram_reserved_bytes(const G& g) noexcept {
    if constexpr (requires { g.vram_reserved_bytes; })
      return static_cast<std::uint64_t>(g.vram_reserved_bytes);
    else
      return 0;
  }
  /// The GPU's type as text (GPUStack's gpu.type, e.g. "cuda"); "" = untyped (absent).
  static constexpr std::string_view type(const G& g) noexcept {
    if constexpr (requires { g.type; })
      return detail::as_text(g.type);
    else
      return {};
  }
};

/// The gpu_traits the library reads: default_gpu_traits unless specialized. Specialize it for your
/// type and derive from default_gpu_traits<G> to replace only the members whose names differ.
template <class G>
struct gpu_traits : default_gpu_traits<G> {};

/// Reads a worker. Primary template: members id, cluster, state (worker_state),
/// ram_total_bytes, gpus (a range of Gpu); optional: labels (pairs .first/.second),
/// ram_reserved_bytes, vram_reserved_bytes (per GPU, GPUStack's system_reserved.vram) and
/// ready_files (a range of file keys).
template <class W>
struct default_worker_traits {
  /// A unique id.
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
  /// The worker's state (map your own states here).
  static constexpr worker_state state(const W& w) noexcept requires requires {
    { w.state } -> std::convertible_to<worker_state>;
  }
  { return w.state; }
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
  /// VRAM reserved on each of its GPUs, bytes (GPUStack's system_reserved.vram); 0 when absent.
  static constexpr std::uint64_t vram_reserved_bytes(const W& w) noexcept {
    if constexpr (requires { w.vram_reserved_bytes; })
      return static_cast<std::uint64_t>(w.vram_reserved_bytes);
    else
      return 0;
  }
  /// The worker's GPUs (a forward range of a Gpu type).
  static constexpr const auto& gpus(const W& w) noexcept requires requires { w.gpus; }
  { return w.gpus; }
  /// true iff the files identified by file_key are READY on this worker (key 0 never is).
  /// A table beside the workers can say so instead (workspace::index_files).
  static constexpr bool files_ready(const W& w, std::uint64_t file_key) noexcept {
    if constexpr (requires { w.ready_files; })
      return file_key != 0 && detail::range_contains(w.ready_files, file_key);
    else
      return false;
  }
};

/// The worker_traits the library reads: default_worker_traits unless specialized. Specialize it for
/// your type and derive from default_worker_traits<W> to replace only the members whose names
/// differ.
template <class W>
struct worker_traits : default_worker_traits<W> {};

/// true iff a worker in state s takes new instances (GPUStack's status filter).
[[nodiscard]] constexpr bool is_ready(worker_state s) noexcept { return s == worker_state::ready; }

/// Reads a model request (the model to place or whose instances to rank). Primary
/// template: members id (a ModelId), cluster; optional: selectors (pairs), gpu_selection
/// (range of gpu_ref-like {worker_id, index}), gpus_per_replica (GPUStack's
/// gpu_selector.gpus_per_replica, 0 = the selection's size), replicas, placement
/// (placement_policy), local_path (bool), files and draft_files (file keys, 0 = none).
template <class M>
struct default_model_traits {
  /// The model's identity (its instances name it in instance_traits::model_id).
  static constexpr decltype(auto) id(const M& m) noexcept requires requires { m.id; }
  { return (m.id); }
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
  /// Explicitly selected GPUs (GPUStack's manual selection); empty = none.
  static constexpr decltype(auto) gpu_selection(const M& m) noexcept {
    if constexpr (requires { m.gpu_selection; })
      return (m.gpu_selection);
    else
      return detail::empty_span<gpu_ref>;
  }
  /// GPUs per replica of a manual selection; 0 (or absent) = the selection's size.
  static constexpr std::uint32_t gpus_per_replica(const M& m) noexcept {
    if constexpr (requires { m.gpus_per_replica; })
      return static_cast<std::uint32_t>(m.gpus_per_replica);
    else
      return 0;
  }
  /// Replicas the model asks for (1 when absent); a manual selection with more than one
  /// replica never over-commits.
  static constexpr std::uint32_t replicas(const M& m) noexcept {
    if constexpr (requires { m.replicas; })
      return static_cast<std::uint32_t>(m.replicas);
    else
      return 1;
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
  /// Key of the main model's files (worker_traits::files_ready, model_file_traits::key);
  /// 0 = unknown.
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

/// The model_traits the library reads: default_model_traits unless specialized. Specialize it for
/// your type and derive from default_model_traits<M> to replace only the members whose names
/// differ.
template <class M>
struct model_traits : default_model_traits<M> {};

/// Placeholder element type of an instance without subordinates (never instantiated).
struct no_subordinate {
  std::uint64_t worker_id = 0;
  std::span<const gpu_claim> gpus{};
  std::uint64_t ram_bytes = 0;
};

/// Reads one subordinate worker of a distributed instance. Primary template: members
/// worker_id, gpus (range of claims) and, optionally, ram_bytes.
template <class S>
struct subordinate_traits {
  /// The subordinate worker's id.
  static constexpr std::uint64_t worker_id(const S& s) noexcept requires requires { s.worker_id; }
  { return static_cast<std::uint64_t>(s.worker_id); }
  /// Its GPU claims (range of claims read through claim_traits).
  static constexpr const auto& gpus(const S& s) noexcept requires requires { s.gpus; }
  { return s.gpus; }
  /// RAM it claims, bytes (scored, never subtracted from the worker: GPUStack counts RAM on
  /// the main worker only); 0 when absent.
  static constexpr std::uint64_t ram_bytes(const S& s) noexcept {
    if constexpr (requires { s.ram_bytes; })
      return static_cast<std::uint64_t>(s.ram_bytes);
    else
      return 0;
  }
};

/// Reads an existing instance. Primary template: members id, model_id (a ModelId),
/// worker_id (integer, or std::optional of one; absent = not scheduled), state
/// (instance_state), ram_bytes, gpus (range of claims); optional: subordinates, gpu_type
/// (text; "" = unknown), total_layers and offload_layers (std::optional, or integers with
/// total_layers 0 = no layer metadata).
template <class I>
struct default_instance_traits {
  /// A unique id.
  static constexpr std::uint64_t id(const I& i) noexcept requires requires { i.id; }
  { return static_cast<std::uint64_t>(i.id); }
  /// The identity of the model the instance serves (same kind as model_traits::id).
  static constexpr decltype(auto) model_id(const I& i) noexcept requires requires { i.model_id; }
  { return (i.model_id); }
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
  /// The instance's state (map your own states here).
  static constexpr instance_state state(const I& i) noexcept requires requires {
    { i.state } -> std::convertible_to<instance_state>;
  }
  { return i.state; }
  /// RAM claimed on the main worker, bytes.
  static constexpr std::uint64_t ram_bytes(const I& i) noexcept requires requires { i.ram_bytes; }
  { return static_cast<std::uint64_t>(i.ram_bytes); }
  /// GPUs on the main worker: a range of claims (empty = CPU instance).
  static constexpr const auto& gpus(const I& i) noexcept requires requires { i.gpus; }
  { return i.gpus; }
  /// Subordinate workers of a distributed instance (read through subordinate_traits).
  static constexpr decltype(auto) subordinates(const I& i) noexcept {
    if constexpr (requires { i.subordinates; })
      return (i.subordinates);
    else
      return detail::empty_span<no_subordinate>;
  }
  /// The type of the GPUs it was placed on (GPUStack's instance.gpu_type); "" = unknown.
  static constexpr std::string_view gpu_type(const I& i) noexcept {
    if constexpr (requires { i.gpu_type; })
      return detail::as_text(i.gpu_type);
    else
      return {};
  }
  /// Total layers of a layer-offloaded (GGUF) instance; nullopt = no layer metadata.
  static constexpr std::optional<std::uint32_t> total_layers(const I& i) noexcept {
    if constexpr (requires { i.total_layers; })
      return detail::optional_count(i.total_layers, true);
    else
      return std::nullopt;
  }
  /// Layers offloaded to GPU; nullopt = no layer metadata.
  static constexpr std::optional<std::uint32_t> offload_layers(const I& i) noexcept {
    if constexpr (requires { i.offload_layers; })
      return detail::optional_count(i.offload_layers, false);
    else
      return std::nullopt;
  }
};

/// The instance_traits the library reads: default_instance_traits unless specialized. Specialize it
/// for your type and derive from default_instance_traits<I> to replace only the members whose names
/// differ.
template <class I>
struct instance_traits : default_instance_traits<I> {};

/// Reads one row of a model-file table kept beside the workers (GPUStack's model_files):
/// which worker holds which files and whether they are READY. Primary template: members
/// worker_id (integer, or std::optional of one), key (file key) and ready (bool).
template <class F>
struct model_file_traits {
  /// The worker holding the files; nullopt = none.
  static constexpr std::optional<std::uint64_t> worker_id(const F& f) noexcept requires requires {
    f.worker_id;
  }
  {
    if constexpr (detail::is_optional<std::remove_cvref_t<decltype(f.worker_id)>>::value) {
      if (!f.worker_id) return std::nullopt;
      return static_cast<std::uint64_t>(*f.worker_id);
    } else {
      return static_cast<std::uint64_t>(f.worker_id);
    }
  }
  /// The file key (model_traits::files / draft_files).
  static constexpr std::uint64_t key(const F& f) noexcept requires requires { f.key; }
  { return static_cast<std::uint64_t>(f.key); }
  /// true iff the files are READY there.
  static constexpr bool ready(const F& f) noexcept requires requires { f.ready; }
  { return static_cast<bool>(f.ready); }
};

/// Reads a placement the caller proposes for scoring (workspace::set_candidates). Primary
/// template: members worker_id (the main worker), gpus (range of claims) and, optionally,
/// ram_bytes and subordinates (read through subordinate_traits).
template <class P>
struct placement_traits {
  /// The main worker's id.
  static constexpr std::uint64_t worker_id(const P& p) noexcept requires requires { p.worker_id; }
  { return static_cast<std::uint64_t>(p.worker_id); }
  /// Its GPU claims on the main worker (empty = CPU).
  static constexpr const auto& gpus(const P& p) noexcept requires requires { p.gpus; }
  { return p.gpus; }
  /// RAM claimed on the main worker, bytes; 0 when absent.
  static constexpr std::uint64_t ram_bytes(const P& p) noexcept {
    if constexpr (requires { p.ram_bytes; })
      return static_cast<std::uint64_t>(p.ram_bytes);
    else
      return 0;
  }
  /// Subordinate workers.
  static constexpr decltype(auto) subordinates(const P& p) noexcept {
    if constexpr (requires { p.subordinates; })
      return (p.subordinates);
    else
      return detail::empty_span<no_subordinate>;
  }
};

namespace detail {
template <class R>
using elem_t = std::ranges::range_value_t<std::remove_cvref_t<R>>;

template <class C>
concept GpuClaimLike = requires(const C& c) {
  { claim_traits<C>::index(c) } -> std::convertible_to<std::uint32_t>;
  { claim_traits<C>::vram_bytes(c) } -> std::convertible_to<std::uint64_t>;
};
template <class S>
concept SubordinateLike = requires(const S& s) {
  { subordinate_traits<S>::worker_id(s) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(subordinate_traits<S>::gpus(s))>;
  requires GpuClaimLike<elem_t<decltype(subordinate_traits<S>::gpus(s))>>;
  { subordinate_traits<S>::ram_bytes(s) } -> std::convertible_to<std::uint64_t>;
};
template <class R>
concept GpuRefLike = requires(const R& r) {
  { gpu_ref_traits<R>::worker_id(r) } -> std::convertible_to<std::uint64_t>;
  { gpu_ref_traits<R>::index(r) } -> std::convertible_to<std::uint32_t>;
};
template <class P>
concept LabelPair = requires(const P& p) {
  p.first;
  p.second;
};
template <class T>
concept IntegerModelId =
    std::integral<std::remove_cvref_t<T>> || std::is_enum_v<std::remove_cvref_t<T>>;

/// A model identity kept by the workspace: an integer or a copy of the text (the string's
/// storage is reused, so re-indexing with ids of the same length allocates nothing).
class model_key {
 public:
  /// Keeps id.
  template <ModelId K>
  void assign(const K& id) {
    if constexpr (IntegerModelId<K>) {
      text_ = false;
      integer_ = static_cast<std::uint64_t>(id);
      string_.clear();
    } else {
      text_ = true;
      integer_ = 0;
      string_.assign(std::string_view(id));
    }
  }
  /// true iff id is the kept identity (an integer never equals a text).
  template <ModelId K>
  [[nodiscard]] bool matches(const K& id) const noexcept {
    if constexpr (IntegerModelId<K>)
      return !text_ && integer_ == static_cast<std::uint64_t>(id);
    else
      return text_ && std::string_view(string_) == std::string_view(id);
  }

 private:
  std::string string_;
  std::uint64_t integer_ = 0;
  bool text_ = false;
};
}  // namespace detail

/// A GPU as the scheduler reads it through gpu_traits<G>.
template <class G>
concept Gpu = requires(const G& g) {
  { gpu_traits<G>::index(g) } -> std::convertible_to<std::uint32_t>;
  { gpu_traits<G>::vram_total_bytes(g) } -> std::convertible_to<std::uint64_t>;
  { gpu_traits<G>::vram_reserved_bytes(g) } -> std::convertible_to<std::uint64_t>;
  { gpu_traits<G>::type(g) } -> std::convertible_to<std::string_view>;
};

/// A worker as the scheduler reads it through worker_traits<W>.
template <class W>
concept Worker = requires(const W& w, std::uint64_t key) {
  { worker_traits<W>::id(w) } -> std::convertible_to<std::uint64_t>;
  worker_traits<W>::cluster(w);
  requires std::ranges::input_range<decltype(worker_traits<W>::labels(w))>;
  { worker_traits<W>::state(w) } -> std::convertible_to<worker_state>;
  { worker_traits<W>::ram_total_bytes(w) } -> std::convertible_to<std::uint64_t>;
  { worker_traits<W>::ram_reserved_bytes(w) } -> std::convertible_to<std::uint64_t>;
  { worker_traits<W>::vram_reserved_bytes(w) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::forward_range<decltype(worker_traits<W>::gpus(w))>;
  requires Gpu<detail::elem_t<decltype(worker_traits<W>::gpus(w))>>;
  { worker_traits<W>::files_ready(w, key) } -> std::convertible_to<bool>;
};

/// A model request as the scheduler reads it through model_traits<M>.
template <class M>
concept ModelRequest = requires(const M& m) {
  { model_traits<M>::id(m) } -> ModelId;
  model_traits<M>::cluster(m);
  requires std::ranges::input_range<decltype(model_traits<M>::selectors(m))>;
  requires std::ranges::input_range<decltype(model_traits<M>::gpu_selection(m))>;
  requires detail::GpuRefLike<detail::elem_t<decltype(model_traits<M>::gpu_selection(m))>>;
  { model_traits<M>::gpus_per_replica(m) } -> std::convertible_to<std::uint32_t>;
  { model_traits<M>::replicas(m) } -> std::convertible_to<std::uint32_t>;
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
  { instance_traits<I>::model_id(i) } -> ModelId;
  { instance_traits<I>::worker_id(i) } -> std::convertible_to<std::optional<std::uint64_t>>;
  { instance_traits<I>::state(i) } -> std::convertible_to<instance_state>;
  { instance_traits<I>::ram_bytes(i) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(instance_traits<I>::gpus(i))>;
  requires detail::GpuClaimLike<detail::elem_t<decltype(instance_traits<I>::gpus(i))>>;
  requires std::ranges::input_range<decltype(instance_traits<I>::subordinates(i))>;
  requires detail::SubordinateLike<detail::elem_t<decltype(instance_traits<I>::subordinates(i))>>;
  { instance_traits<I>::gpu_type(i) } -> std::convertible_to<std::string_view>;
  { instance_traits<I>::total_layers(i) } -> std::convertible_to<std::optional<std::uint32_t>>;
  { instance_traits<I>::offload_layers(i) } -> std::convertible_to<std::optional<std::uint32_t>>;
};

/// A placement proposed by the caller as the scheduler reads it through placement_traits<P>.
template <class P>
concept Placement = requires(const P& p) {
  { placement_traits<P>::worker_id(p) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(placement_traits<P>::gpus(p))>;
  requires detail::GpuClaimLike<detail::elem_t<decltype(placement_traits<P>::gpus(p))>>;
  { placement_traits<P>::ram_bytes(p) } -> std::convertible_to<std::uint64_t>;
  requires std::ranges::input_range<decltype(placement_traits<P>::subordinates(p))>;
  requires detail::SubordinateLike<detail::elem_t<decltype(placement_traits<P>::subordinates(p))>>;
};

/// A row of a model-file table as the scheduler reads it through model_file_traits<F>.
template <class F>
concept ModelFile = requires(const F& f) {
  { model_file_traits<F>::worker_id(f) } -> std::convertible_to<std::optional<std::uint64_t>>;
  { model_file_traits<F>::key(f) } -> std::convertible_to<std::uint64_t>;
  { model_file_traits<F>::ready(f) } -> std::convertible_to<bool>;
};

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

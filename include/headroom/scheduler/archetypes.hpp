// SPDX-License-Identifier: Apache-2.0
// Concept archetypes of the scheduler (as Boost.Graph ships its concept archetypes): for
// each concept a type that offers nothing but what the concept documents. The data types
// (GPU, worker, model, claim, subordinate, instance, model-file row, proposed placement)
// keep their data in members the primary traits cannot read, so every use goes through the
// traits specializations below; the plugins (estimator, filter, scorers) have exactly the
// members their concepts name. Generic code that compiles with them needs nothing
// undocumented: instantiate yours with headroom::scheduling::archetypes to check. Not included by
// <headroom/scheduler.hpp>.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "estimators.hpp"
#include "filters.hpp"
#include "traits.hpp"
#include "view.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace archetypes {

/// A GPU known only through gpu_traits.
class gpu {
 public:
  /// GPU `index` with `total` bytes of VRAM, `reserved` of them never allocatable.
  constexpr gpu(std::uint32_t index, std::uint64_t total, std::uint64_t reserved = 0) noexcept
      : index_(index), total_(total), reserved_(reserved) {}

 private:
  friend struct headroom::scheduling::gpu_traits<gpu>;
  std::uint32_t index_;
  std::uint64_t total_, reserved_;
};

/// A label of the archetype worker (a pair, as worker_traits::labels reads them).
struct label {
  int first;   ///< the key
  int second;  ///< the value
};

/// A worker known only through worker_traits.
class worker {
 public:
  /// Worker id with ram bytes of RAM and these GPUs, in this state, with labels and READY
  /// file keys.
  HEADROOM_DECL worker(std::uint64_t id, std::uint64_t ram, std::vector<gpu> gpus,
                       worker_state state = worker_state::ready, std::vector<label> labels = {},
                       std::vector<std::uint64_t> files = {});

 private:
  friend struct headroom::scheduling::worker_traits<worker>;
  std::uint64_t id_, ram_;
  std::vector<gpu> gpus_;
  worker_state state_;
  std::vector<label> labels_;
  std::vector<std::uint64_t> files_;
};

/// A model request known only through model_traits.
class model {
 public:
  /// Model id with a placement policy.
  explicit model(std::uint64_t id, placement_policy policy = placement_policy::binpack)
      : id_(id), policy_(policy) {}

 private:
  friend struct headroom::scheduling::model_traits<model>;
  std::uint64_t id_;
  placement_policy policy_;
};

/// A VRAM claim known only through claim_traits.
class claim {
 public:
  /// bytes of VRAM on GPU index.
  constexpr claim(std::uint32_t index, std::uint64_t bytes) noexcept
      : index_(index), bytes_(bytes) {}

 private:
  friend struct headroom::scheduling::claim_traits<claim>;
  std::uint32_t index_;
  std::uint64_t bytes_;
};

/// A subordinate worker of a distributed instance, known only through subordinate_traits.
class subordinate {
 public:
  /// The part on worker `worker`: its claims and RAM.
  subordinate(std::uint64_t worker, std::vector<claim> gpus, std::uint64_t ram = 0)
      : worker_(worker), gpus_(std::move(gpus)), ram_(ram) {}

 private:
  friend struct headroom::scheduling::subordinate_traits<subordinate>;
  std::uint64_t worker_;
  std::vector<claim> gpus_;
  std::uint64_t ram_;
};

/// An instance known only through instance_traits.
class instance {
 public:
  /// Instance id of model `model` on worker `worker` (none: not scheduled), its claims there,
  /// RAM, state and subordinates.
  HEADROOM_DECL instance(std::uint64_t id, std::uint64_t model, std::optional<std::uint64_t> worker,
                         std::vector<claim> gpus, std::uint64_t ram = 0,
                         instance_state state = instance_state::running,
                         std::vector<subordinate> subs = {});

 private:
  friend struct headroom::scheduling::instance_traits<instance>;
  std::uint64_t id_, model_;
  std::optional<std::uint64_t> worker_;
  std::vector<claim> gpus_;
  std::uint64_t ram_;
  instance_state state_;
  std::vector<subordinate> subs_;
};

/// A row of a model-file table, known only through model_file_traits.
class model_file {
 public:
  /// Files `key` on worker `worker`, READY or not.
  constexpr model_file(std::uint64_t worker, std::uint64_t key, bool ready) noexcept
      : worker_(worker), key_(key), ready_(ready) {}

 private:
  friend struct headroom::scheduling::model_file_traits<model_file>;
  std::uint64_t worker_, key_;
  bool ready_;
};

/// A placement the caller proposes, known only through placement_traits.
class placement {
 public:
  /// Its main worker and the claims there.
  placement(std::uint64_t worker, std::vector<claim> gpus)
      : worker_(worker), gpus_(std::move(gpus)) {}

 private:
  friend struct headroom::scheduling::placement_traits<placement>;
  std::uint64_t worker_;
  std::vector<claim> gpus_;
};

/// An Estimator with nothing but its four members: per_gpu bytes on exactly one GPU.
class estimator {
 public:
  /// A model needing per_gpu bytes of VRAM on one GPU.
  explicit constexpr estimator(std::uint64_t per_gpu) noexcept : per_gpu_(per_gpu) {}
  /// One GPU only.
  [[nodiscard]] constexpr backend_capabilities capabilities() const noexcept {
    return {.multi_gpu = false};
  }
  /// No RAM.
  [[nodiscard]] constexpr std::uint64_t ram_bytes() const noexcept { return 0; }
  /// per_gpu when that much is free.
  [[nodiscard]] constexpr std::uint64_t gpu_claim_bytes(std::uint64_t,
                                                        std::int64_t alloc) const noexcept {
    return alloc >= 0 && static_cast<std::uint64_t>(alloc) >= per_gpu_ ? per_gpu_ : 0;
  }
  /// One GPU holding per_gpu.
  [[nodiscard]] constexpr bool fits(std::uint64_t sum, std::uint32_t n) const noexcept {
    return n == 1 && sum >= per_gpu_;
  }

 private:
  std::uint64_t per_gpu_;
};

/// A filter (FilterFor any worker and model) with nothing but its three members.
struct filter {
  /// Keeps every worker.
  template <class W, class M>
  [[nodiscard]] constexpr filter_verdict operator()(const W&, const M&) const noexcept {
    return filter_verdict::keep();
  }
  /// Its name in explanations.
  [[nodiscard]] constexpr std::string_view name() const noexcept { return "archetype"; }
  /// Why a worker was dropped (never).
  [[nodiscard]] constexpr std::string_view why(std::uint8_t) const noexcept { return ""; }
};

/// A scale-up scorer (ScorerFor candidate) with nothing but score().
struct scorer {
  /// Every candidate alike.
  [[nodiscard]] constexpr double score(const cluster_view&, const candidate&) const noexcept {
    return 0;
  }
};

/// A scale-down scorer (ScorerFor instance_record) with nothing but score().
struct instance_scorer {
  /// Every instance alike.
  [[nodiscard]] constexpr double score(const cluster_view&, const instance_record&) const noexcept {
    return 0;
  }
};

}  // namespace archetypes
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

/// The archetypes' traits: each reads exactly what the concept documents.
template <>
struct headroom::scheduling::gpu_traits<headroom::scheduling::archetypes::gpu> {
  using G = headroom::scheduling::archetypes::gpu;
  static constexpr std::uint32_t index(const G& g) noexcept { return g.index_; }
  static constexpr std::uint64_t vram_total_bytes(const G& g) noexcept { return g.total_; }
  static constexpr std::uint64_t vram_reserved_bytes(const G& g) noexcept { return g.reserved_; }
  static constexpr std::string_view type(const G&) noexcept { return {}; }
};

template <>
struct headroom::scheduling::worker_traits<headroom::scheduling::archetypes::worker> {
  using W = headroom::scheduling::archetypes::worker;
  static constexpr std::uint64_t id(const W& w) noexcept { return w.id_; }
  static constexpr int cluster(const W&) noexcept { return 0; }
  static constexpr const std::vector<headroom::scheduling::archetypes::label>& labels(
      const W& w) noexcept {
    return w.labels_;
  }
  static constexpr headroom::scheduling::worker_state state(const W& w) noexcept {
    return w.state_;
  }
  static constexpr std::uint64_t ram_total_bytes(const W& w) noexcept { return w.ram_; }
  static constexpr std::uint64_t ram_reserved_bytes(const W&) noexcept { return 0; }
  static constexpr std::uint64_t vram_reserved_bytes(const W&) noexcept { return 0; }
  static constexpr std::span<const headroom::scheduling::archetypes::gpu> gpus(
      const W& w) noexcept {
    return w.gpus_;
  }
  static constexpr bool files_ready(const W& w, std::uint64_t key) noexcept {
    for (const std::uint64_t f : w.files_)
      if (f == key) return true;
    return false;
  }
};

template <>
struct headroom::scheduling::model_traits<headroom::scheduling::archetypes::model> {
  using M = headroom::scheduling::archetypes::model;
  static constexpr std::uint64_t id(const M& m) noexcept { return m.id_; }
  static constexpr int cluster(const M&) noexcept { return 0; }
  static constexpr std::span<const headroom::scheduling::archetypes::label> selectors(
      const M&) noexcept {
    return {};
  }
  static constexpr std::span<const headroom::scheduling::gpu_ref> gpu_selection(const M&) noexcept {
    return {};
  }
  static constexpr std::uint32_t gpus_per_replica(const M&) noexcept { return 0; }
  static constexpr std::uint32_t replicas(const M&) noexcept { return 1; }
  static constexpr headroom::scheduling::placement_policy placement(const M& m) noexcept {
    return m.policy_;
  }
  static constexpr bool local_path(const M&) noexcept { return false; }
  static constexpr std::uint64_t files(const M&) noexcept { return 0; }
  static constexpr std::uint64_t draft_files(const M&) noexcept { return 0; }
};

template <>
struct headroom::scheduling::claim_traits<headroom::scheduling::archetypes::claim> {
  using C = headroom::scheduling::archetypes::claim;
  static constexpr std::uint32_t index(const C& c) noexcept { return c.index_; }
  static constexpr std::uint64_t vram_bytes(const C& c) noexcept { return c.bytes_; }
};

template <>
struct headroom::scheduling::subordinate_traits<headroom::scheduling::archetypes::subordinate> {
  using S = headroom::scheduling::archetypes::subordinate;
  static constexpr std::uint64_t worker_id(const S& s) noexcept { return s.worker_; }
  static constexpr const std::vector<headroom::scheduling::archetypes::claim>& gpus(
      const S& s) noexcept {
    return s.gpus_;
  }
  static constexpr std::uint64_t ram_bytes(const S& s) noexcept { return s.ram_; }
};

template <>
struct headroom::scheduling::instance_traits<headroom::scheduling::archetypes::instance> {
  using I = headroom::scheduling::archetypes::instance;
  static constexpr std::uint64_t id(const I& i) noexcept { return i.id_; }
  static constexpr std::uint64_t model_id(const I& i) noexcept { return i.model_; }
  static constexpr std::optional<std::uint64_t> worker_id(const I& i) noexcept { return i.worker_; }
  static constexpr headroom::scheduling::instance_state state(const I& i) noexcept {
    return i.state_;
  }
  static constexpr std::uint64_t ram_bytes(const I& i) noexcept { return i.ram_; }
  static constexpr const std::vector<headroom::scheduling::archetypes::claim>& gpus(
      const I& i) noexcept {
    return i.gpus_;
  }
  static constexpr const std::vector<headroom::scheduling::archetypes::subordinate>& subordinates(
      const I& i) noexcept {
    return i.subs_;
  }
  static constexpr std::string_view gpu_type(const I&) noexcept { return {}; }
  static constexpr std::optional<std::uint32_t> total_layers(const I&) noexcept {
    return std::nullopt;
  }
  static constexpr std::optional<std::uint32_t> offload_layers(const I&) noexcept {
    return std::nullopt;
  }
};

template <>
struct headroom::scheduling::model_file_traits<headroom::scheduling::archetypes::model_file> {
  using F = headroom::scheduling::archetypes::model_file;
  static constexpr std::optional<std::uint64_t> worker_id(const F& f) noexcept { return f.worker_; }
  static constexpr std::uint64_t key(const F& f) noexcept { return f.key_; }
  static constexpr bool ready(const F& f) noexcept { return f.ready_; }
};

template <>
struct headroom::scheduling::placement_traits<headroom::scheduling::archetypes::placement> {
  using P = headroom::scheduling::archetypes::placement;
  static constexpr std::uint64_t worker_id(const P& p) noexcept { return p.worker_; }
  static constexpr const std::vector<headroom::scheduling::archetypes::claim>& gpus(
      const P& p) noexcept {
    return p.gpus_;
  }
  static constexpr std::uint64_t ram_bytes(const P&) noexcept { return 0; }
  static constexpr std::span<const headroom::scheduling::archetypes::subordinate> subordinates(
      const P&) noexcept {
    return {};
  }
};

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/archetypes.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

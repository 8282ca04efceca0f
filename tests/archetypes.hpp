// SPDX-License-Identifier: Apache-2.0
// Minimal archetypes: types that offer the scheduler nothing but what the documented traits
// expose. Their data members have names the primary traits do not read, so every use goes
// through the specializations below; an algorithm that compiles with them needs nothing
// undocumented.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <headroom/scheduler/traits.hpp>

namespace archetypes {

/// A GPU known only through gpu_traits.
class gpu {
 public:
  constexpr gpu(std::uint32_t index, std::uint64_t total, std::uint64_t reserved = 0) noexcept
      : index_(index), total_(total), reserved_(reserved) {}

 private:
  friend struct headroom::gpu_traits<gpu>;
  std::uint32_t index_;
  std::uint64_t total_, reserved_;
};

/// A label of the archetype worker.
struct label {
  int first;
  int second;
};

/// A worker known only through worker_traits.
class worker {
 public:
  worker(std::uint64_t id, std::uint64_t ram, std::vector<gpu> gpus, bool ready = true,
         std::vector<label> labels = {}, std::vector<std::uint64_t> files = {})
      : id_(id),
        ram_(ram),
        gpus_(std::move(gpus)),
        ready_(ready),
        labels_(std::move(labels)),
        files_(std::move(files)) {}

 private:
  friend struct headroom::worker_traits<worker>;
  std::uint64_t id_, ram_;
  std::vector<gpu> gpus_;
  bool ready_;
  std::vector<label> labels_;
  std::vector<std::uint64_t> files_;
};

/// A model request known only through model_traits.
class model {
 public:
  explicit model(std::uint64_t id,
                 headroom::placement_policy policy = headroom::placement_policy::binpack)
      : id_(id), policy_(policy) {}

 private:
  friend struct headroom::model_traits<model>;
  std::uint64_t id_;
  headroom::placement_policy policy_;
};

/// An instance known only through instance_traits.
class instance {
 public:
  instance(std::uint64_t id, std::uint64_t model, std::optional<std::uint64_t> worker,
           std::vector<headroom::gpu_claim> gpus, std::uint64_t ram = 0,
           headroom::instance_state state = headroom::instance_state::running)
      : id_(id), model_(model), worker_(worker), gpus_(std::move(gpus)), ram_(ram), state_(state) {}

 private:
  friend struct headroom::instance_traits<instance>;
  std::uint64_t id_, model_;
  std::optional<std::uint64_t> worker_;
  std::vector<headroom::gpu_claim> gpus_;
  std::uint64_t ram_;
  headroom::instance_state state_;
};

}  // namespace archetypes

template <>
struct headroom::gpu_traits<archetypes::gpu> {
  static constexpr std::uint32_t index(const archetypes::gpu& g) noexcept { return g.index_; }
  static constexpr std::uint64_t vram_total_bytes(const archetypes::gpu& g) noexcept {
    return g.total_;
  }
  static constexpr std::uint64_t vram_reserved_bytes(const archetypes::gpu& g) noexcept {
    return g.reserved_;
  }
  static constexpr std::string_view type(const archetypes::gpu&) noexcept { return {}; }
};

template <>
struct headroom::worker_traits<archetypes::worker> {
  using W = archetypes::worker;
  static constexpr std::uint64_t id(const W& w) noexcept { return w.id_; }
  static constexpr int cluster(const W&) noexcept { return 0; }
  static constexpr const std::vector<archetypes::label>& labels(const W& w) noexcept {
    return w.labels_;
  }
  static constexpr headroom::worker_state state(const W& w) noexcept {
    return w.ready_ ? headroom::worker_state::ready : headroom::worker_state::not_ready;
  }
  static constexpr std::uint64_t ram_total_bytes(const W& w) noexcept { return w.ram_; }
  static constexpr std::uint64_t ram_reserved_bytes(const W&) noexcept { return 0; }
  static constexpr std::uint64_t vram_reserved_bytes(const W&) noexcept { return 0; }
  static constexpr std::span<const archetypes::gpu> gpus(const W& w) noexcept { return w.gpus_; }
  static constexpr bool files_ready(const W& w, std::uint64_t key) noexcept {
    for (std::uint64_t f : w.files_)
      if (f == key) return true;
    return false;
  }
};

template <>
struct headroom::model_traits<archetypes::model> {
  using M = archetypes::model;
  static constexpr std::uint64_t id(const M& m) noexcept { return m.id_; }
  static constexpr int cluster(const M&) noexcept { return 0; }
  static constexpr std::span<const archetypes::label> selectors(const M&) noexcept { return {}; }
  static constexpr std::span<const headroom::gpu_ref> gpu_selection(const M&) noexcept {
    return {};
  }
  static constexpr std::uint32_t gpus_per_replica(const M&) noexcept { return 0; }
  static constexpr std::uint32_t replicas(const M&) noexcept { return 1; }
  static constexpr headroom::placement_policy placement(const M& m) noexcept { return m.policy_; }
  static constexpr bool local_path(const M&) noexcept { return false; }
  static constexpr std::uint64_t files(const M&) noexcept { return 0; }
  static constexpr std::uint64_t draft_files(const M&) noexcept { return 0; }
};

template <>
struct headroom::instance_traits<archetypes::instance> {
  using I = archetypes::instance;
  static constexpr std::uint64_t id(const I& i) noexcept { return i.id_; }
  static constexpr std::uint64_t model_id(const I& i) noexcept { return i.model_; }
  static constexpr std::optional<std::uint64_t> worker_id(const I& i) noexcept { return i.worker_; }
  static constexpr headroom::instance_state state(const I& i) noexcept { return i.state_; }
  static constexpr std::uint64_t ram_bytes(const I& i) noexcept { return i.ram_; }
  static constexpr std::span<const headroom::gpu_claim> gpus(const I& i) noexcept {
    return i.gpus_;
  }
  static constexpr std::span<const headroom::no_subordinate> subordinates(const I&) noexcept {
    return {};
  }
  static constexpr std::string_view gpu_type(const I&) noexcept { return {}; }
  static constexpr std::optional<std::uint32_t> total_layers(const I&) noexcept {
    return std::nullopt;
  }
  static constexpr std::optional<std::uint32_t> offload_layers(const I&) noexcept {
    return std::nullopt;
  }
};

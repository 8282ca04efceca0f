// SPDX-License-Identifier: Apache-2.0
// Misuse diagnostics: the public entry points of the scheduler take any type and check it
// here, one static_assert per requirement of the concepts in scheduler/traits.hpp (and of
// filters, estimators and chains), so that a type missing a member or a trait
// specialization fails with ONE line that names it, first ("headroom: ... has no member
// `ram_total_bytes` ..."), instead of a page of unsatisfied constraints. Each diagnose_*
// returns whether the type passed, so that the entry point compiles nothing else when it
// did not (no cascade of errors).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <concepts>
#include <cstdint>
#include <optional>
#include <ranges>
#include <string_view>

#include "estimators.hpp"
#include "traits.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

/// A GPU type G (the element of a worker's gpus).
template <class G>
consteval bool diagnose_gpu() {
  static_assert(
      requires(const G& g) {
        { gpu_traits<G>::index(g) } -> std::convertible_to<std::uint32_t>;
      },
      "headroom: the GPU type has no member `index` (its index on the worker): add it, or "
      "specialize headroom::scheduling::gpu_traits");
  static_assert(
      requires(const G& g) {
        { gpu_traits<G>::vram_total_bytes(g) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the GPU type has no member `vram_total_bytes` (total VRAM, bytes): add it, or "
      "specialize headroom::scheduling::gpu_traits");
  static_assert(
      requires(const G& g) {
        { gpu_traits<G>::vram_reserved_bytes(g) } -> std::convertible_to<std::uint64_t>;
        { gpu_traits<G>::type(g) } -> std::convertible_to<std::string_view>;
      },
      "headroom: the GPU type's `vram_reserved_bytes` must be an integer and its `type` text (both "
      "optional)");
  return Gpu<G>;
}

/// A worker type W.
template <class W>
consteval bool diagnose_worker() {
  using WT = worker_traits<W>;
  static_assert(
      requires(const W& w) {
        { WT::id(w) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the worker type has no member `id` (a unique integer): add it, or specialize "
      "headroom::scheduling::worker_traits");
  static_assert(
      requires(const W& w) { WT::cluster(w); },
      "headroom: the worker type has no member `cluster` (compared with the model's): add it, or "
      "specialize headroom::scheduling::worker_traits");
  static_assert(
      requires(const W& w) {
        { WT::state(w) } -> std::convertible_to<worker_state>;
      },
      "headroom: the worker type has no member `state` of type headroom::scheduling::worker_state: "
      "add it, or "
      "specialize headroom::scheduling::worker_traits");
  static_assert(
      requires(const W& w) {
        { WT::ram_total_bytes(w) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the worker type has no member `ram_total_bytes` (total RAM, bytes): add it, or "
      "specialize headroom::scheduling::worker_traits");
  static_assert(
      requires(const W& w) { requires std::ranges::forward_range<decltype(WT::gpus(w))>; },
      "headroom: the worker type has no member `gpus` (a forward range of GPUs, empty for a CPU "
      "worker): add it, or specialize headroom::scheduling::worker_traits");
  static_assert(
      requires(const W& w) {
        requires std::ranges::input_range<decltype(WT::labels(w))>;
        { WT::ram_reserved_bytes(w) } -> std::convertible_to<std::uint64_t>;
        { WT::vram_reserved_bytes(w) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the worker type's optional `labels` must be a range of pairs and "
      "`ram_reserved_bytes`, `vram_reserved_bytes` integers");
  if constexpr (requires(const W& w) {
                  requires std::ranges::forward_range<decltype(WT::gpus(w))>;
                }) {
    if constexpr (!diagnose_gpu<elem_t<decltype(WT::gpus(std::declval<const W&>()))>>())
      return false;
  }
  return Worker<W>;
}

/// A model request M.
template <class M>
consteval bool diagnose_model() {
  using MT = model_traits<M>;
  static_assert(
      requires(const M& m) {
        { MT::id(m) } -> ModelId;
      },
      "headroom: the model type has no member `id` (an integer or text, as its instances' "
      "model_id): add it, or specialize headroom::scheduling::model_traits");
  static_assert(
      requires(const M& m) { MT::cluster(m); },
      "headroom: the model type has no member `cluster` (compared with the workers'): add it, or "
      "specialize headroom::scheduling::model_traits");
  static_assert(
      requires(const M& m) {
        requires std::ranges::input_range<decltype(MT::selectors(m))>;
        requires std::ranges::input_range<decltype(MT::gpu_selection(m))>;
        requires GpuRefLike<elem_t<decltype(MT::gpu_selection(m))>>;
        { MT::gpus_per_replica(m) } -> std::convertible_to<std::uint32_t>;
        { MT::replicas(m) } -> std::convertible_to<std::uint32_t>;
        { MT::placement(m) } -> std::convertible_to<placement_policy>;
        { MT::local_path(m) } -> std::convertible_to<bool>;
        { MT::files(m) } -> std::convertible_to<std::uint64_t>;
        { MT::draft_files(m) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: an optional member of the model type has the wrong type (selectors, "
      "gpu_selection, gpus_per_replica, replicas, placement, local_path, files, draft_files: see "
      "headroom::scheduling::model_traits)");
  return ModelRequest<M>;
}

/// An instance type I.
template <class I>
consteval bool diagnose_instance() {
  using IT = instance_traits<I>;
  static_assert(
      requires(const I& i) {
        { IT::id(i) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the instance type has no member `id` (a unique integer): add it, or specialize "
      "headroom::scheduling::instance_traits");
  static_assert(
      requires(const I& i) {
        { IT::model_id(i) } -> ModelId;
      },
      "headroom: the instance type has no member `model_id` (the model's id, integer or text): add "
      "it, or specialize headroom::scheduling::instance_traits");
  static_assert(
      requires(const I& i) {
        { IT::worker_id(i) } -> std::convertible_to<std::optional<std::uint64_t>>;
      },
      "headroom: the instance type has no member `worker_id` (an integer, or std::optional of "
      "one): add it, or specialize headroom::scheduling::instance_traits");
  static_assert(
      requires(const I& i) {
        { IT::state(i) } -> std::convertible_to<instance_state>;
      },
      "headroom: the instance type has no member `state` of type "
      "headroom::scheduling::instance_state: add it, "
      "or specialize headroom::scheduling::instance_traits");
  static_assert(
      requires(const I& i) {
        { IT::ram_bytes(i) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the instance type has no member `ram_bytes` (RAM claimed on its main worker, "
      "bytes): add it, or specialize headroom::scheduling::instance_traits");
  static_assert(
      requires(const I& i) {
        requires std::ranges::input_range<decltype(IT::gpus(i))>;
        requires GpuClaimLike<elem_t<decltype(IT::gpus(i))>>;
      },
      "headroom: the instance type has no member `gpus` (a range of claims {index, vram_bytes}): "
      "add it, or specialize headroom::scheduling::instance_traits and "
      "headroom::scheduling::claim_traits");
  static_assert(
      requires(const I& i) {
        requires std::ranges::input_range<decltype(IT::subordinates(i))>;
        requires SubordinateLike<elem_t<decltype(IT::subordinates(i))>>;
        { IT::gpu_type(i) } -> std::convertible_to<std::string_view>;
        { IT::total_layers(i) } -> std::convertible_to<std::optional<std::uint32_t>>;
        { IT::offload_layers(i) } -> std::convertible_to<std::optional<std::uint32_t>>;
      },
      "headroom: an optional member of the instance type has the wrong type (subordinates, "
      "gpu_type, total_layers, offload_layers: see headroom::scheduling::instance_traits)");
  return Instance<I>;
}

/// An estimator E (scheduler/estimators.hpp).
template <class E>
consteval bool diagnose_estimator() {
  static_assert(
      requires(const E& e) {
        { e.capabilities() } -> std::convertible_to<backend_capabilities>;
      },
      "headroom: the estimator has no `capabilities()` returning "
      "headroom::scheduling::backend_capabilities");
  static_assert(
      requires(const E& e) {
        { e.ram_bytes() } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the estimator has no `ram_bytes()` (RAM a GPU placement claims on its main "
      "worker, bytes)");
  static_assert(
      requires(const E& e, std::uint64_t total, std::int64_t alloc) {
        { e.gpu_claim_bytes(total, alloc) } -> std::convertible_to<std::uint64_t>;
      },
      "headroom: the estimator has no `gpu_claim_bytes(total_bytes, alloc_bytes)` (VRAM it claims "
      "on a GPU, 0 = ineligible)");
  static_assert(
      requires(const E& e, std::uint64_t sum, std::uint32_t n) {
        { e.fits(sum, n) } -> std::convertible_to<bool>;
      },
      "headroom: the estimator has no `fits(claims_bytes, gpu_count)` (do the claims of n GPUs "
      "hold the model?)");
  return Estimator<E>;
}

/// A range R of workers or instances.
template <class R>
consteval bool diagnose_forward_range() {
  static_assert(
      std::ranges::forward_range<const R>,
      "headroom: workers and instances are passed as forward ranges (std::vector, std::span, ...)");
  return std::ranges::forward_range<const R>;
}

/// A range of workers.
template <class Workers>
consteval bool diagnose_workers() {
  if constexpr (!diagnose_forward_range<Workers>())
    return false;
  else
    return diagnose_worker<std::ranges::range_value_t<Workers>>();
}

/// A cluster: a range of workers, a range of instances and a model request for them.
template <class Workers, class Instances, class M>
consteval bool diagnose_cluster() {
  if constexpr (!diagnose_forward_range<Workers>() || !diagnose_forward_range<Instances>()) {
    return false;
  } else if constexpr (!diagnose_worker<std::ranges::range_value_t<Workers>>() ||
                       !diagnose_instance<std::ranges::range_value_t<Instances>>() ||
                       !diagnose_model<M>()) {
    return false;
  } else {
    using W = std::ranges::range_value_t<Workers>;
    static_assert(
        ModelRequestFor<M, W>,
        "headroom: the model's `cluster` cannot be compared with the workers' `cluster` (==)");
    return ModelRequestFor<M, W>;
  }
}

/// A range of workers and a model request (a decision on a kept index).
template <class Workers, class M>
consteval bool diagnose_workers_and_model() {
  if constexpr (!diagnose_forward_range<Workers>()) {
    return false;
  } else if constexpr (!diagnose_worker<std::ranges::range_value_t<Workers>>() ||
                       !diagnose_model<M>()) {
    return false;
  } else {
    static_assert(
        ModelRequestFor<M, std::ranges::range_value_t<Workers>>,
        "headroom: the model's `cluster` cannot be compared with the workers' `cluster` (==)");
    return ModelRequestFor<M, std::ranges::range_value_t<Workers>>;
  }
}

/// A model-file table.
template <class Files>
consteval bool diagnose_model_files() {
  static_assert(std::ranges::input_range<const Files>,
                "headroom: the model-file table is a range of rows");
  if constexpr (std::ranges::input_range<const Files>) {
    static_assert(ModelFile<std::ranges::range_value_t<Files>>,
                  "headroom: a model-file row needs members `worker_id`, `key` and `ready` (or a "
                  "headroom::scheduling::model_file_traits specialization)");
    return ModelFile<std::ranges::range_value_t<Files>>;
  }
  return false;
}

/// A list of placements the caller proposes.
template <class Placements>
consteval bool diagnose_placements() {
  static_assert(std::ranges::input_range<const Placements>,
                "headroom: the proposed placements are a range");
  if constexpr (std::ranges::input_range<const Placements>) {
    static_assert(
        Placement<std::ranges::range_value_t<Placements>>,
        "headroom: a proposed placement needs members `worker_id` and `gpus` (claims), optionally "
        "`ram_bytes` and `subordinates` (or a headroom::scheduling::placement_traits "
        "specialization)");
    return Placement<std::ranges::range_value_t<Placements>>;
  }
  return false;
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

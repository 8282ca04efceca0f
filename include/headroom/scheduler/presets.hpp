// SPDX-License-Identifier: Apache-2.0
// Presets: the scorer chains, and schedulers built from them. gpustack_* make GPUStack's
// decisions exactly (its scorers and weights, its candidate list and pick: docs/scheduler.md
// §4); default_* are ours (normalised scores, leftover-aware binpack, fewer candidates).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <utility>

#include "chain.hpp"
#include "configured.hpp"
#include "filters.hpp"
#include "fit.hpp"
#include "scorers.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// GPUStack scale up (scheduler/scheduler.py::find_candidate): placement (M = 100) +
/// model-file locality (M = 5), raw sum. With gpustack_fit_options() (GPUStack's candidate
/// list, first maximum wins) this is the gpustack preset.
[[nodiscard]] inline auto gpustack_scale_up_chain() {
  return scorer_chain<placement_scorer, locality_scorer>(
      normalization::none,
      weighted<placement_scorer>{.scorer = {.max_score = 100}, .weight = 1, .name = "placement"},
      weighted<locality_scorer>{
          .scorer = {.max_score = 5}, .weight = 1, .name = "model_file_locality"});
}

/// GPUStack scale down (server/controllers.py::find_scale_down_candidates): status
/// (M = 100) + offloaded layers (M = 10) + placement in retention mode over the model's own
/// instances (M = 1), raw sum; lowest removed first (ties: earlier first).
[[nodiscard]] inline auto gpustack_scale_down_chain() {
  return scorer_chain<state_scorer, offload_layer_scorer, placement_retention_scorer>(
      normalization::none,
      weighted<state_scorer>{.scorer = {.max_score = 100}, .weight = 1, .name = "state"},
      weighted<offload_layer_scorer>{
          .scorer = {.max_score = 10}, .weight = 1, .name = "offload_layers"},
      weighted<placement_retention_scorer>{
          .scorer = {.max_score = 1, .view = instance_view::model_only},
          .weight = 1,
          .name = "placement"});
}

/// The default scale up, each scorer normalised to [0, 100]: binpack models → best fit
/// (weight 1); spread models → replica anti-affinity (1) + LeastAllocated (0.5);
/// model-file locality (0.1) for both.
[[nodiscard]] inline auto default_scale_up_chain() {
  using best_fit = gated<best_fit_scorer>;
  using anti_affinity = gated<anti_affinity_scorer>;
  using least_allocated = gated<least_allocated_scorer>;
  return scorer_chain<best_fit, anti_affinity, least_allocated, locality_scorer>(
      normalization::min_max,
      weighted<best_fit>{
          .scorer = {.when = placement_policy::binpack}, .weight = 1, .name = "best_fit"},
      weighted<anti_affinity>{
          .scorer = {.when = placement_policy::spread}, .weight = 1, .name = "anti_affinity"},
      weighted<least_allocated>{
          .scorer = {.when = placement_policy::spread}, .weight = 0.5, .name = "least_allocated"},
      weighted<locality_scorer>{
          .scorer = {.max_score = 100}, .weight = 0.1, .name = "model_file_locality"});
}

/// The default scale down, normalised: state (1) ≫ offloaded layers (0.1) ≫ placement in
/// retention mode (0.01): the same priorities as GPUStack, each on a 0–100 scale.
[[nodiscard]] inline auto default_scale_down_chain() {
  return scorer_chain<state_scorer, offload_layer_scorer, placement_retention_scorer>(
      normalization::min_max,
      weighted<state_scorer>{.scorer = {.max_score = 100}, .weight = 1, .name = "state"},
      weighted<offload_layer_scorer>{
          .scorer = {.max_score = 100}, .weight = 0.1, .name = "offload_layers"},
      weighted<placement_retention_scorer>{
          .scorer = {.max_score = 100}, .weight = 0.01, .name = "placement"});
}

/// The default scheduler: filters (GPUStack's six by default), the grouped listing, the
/// default chain; estimate is an Estimator or a function of the model returning one.
template <class Estimate, class Filters = decltype(basic_filters())>
[[nodiscard]] auto default_scheduler(Estimate estimate, Filters filters = basic_filters(),
                                     stale_check stale = default_stale_check) {
  return scheduler(std::move(filters), std::move(estimate), default_scale_up_chain(),
                   scheduler_options{.fit = {}, .stale = stale});
}

/// The gpustack preset: GPUStack's candidate list, chain and pick.
template <class Estimate, class Filters = decltype(basic_filters())>
[[nodiscard]] auto gpustack_scheduler(Estimate estimate, Filters filters = basic_filters(),
                                      stale_check stale = default_stale_check) {
  return scheduler(std::move(filters), std::move(estimate), gpustack_scale_up_chain(),
                   scheduler_options{.fit = gpustack_fit_options(), .stale = stale});
}

/// The default scale down.
[[nodiscard]] inline auto default_scale_down_ranker(stale_check stale = default_stale_check) {
  return scale_down_ranker(default_scale_down_chain(), stale);
}

/// GPUStack's scale down.
[[nodiscard]] inline auto gpustack_scale_down_ranker(stale_check stale = default_stale_check) {
  return scale_down_ranker(gpustack_scale_down_chain(), stale);
}

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

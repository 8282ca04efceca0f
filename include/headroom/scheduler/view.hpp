// SPDX-License-Identifier: Apache-2.0
// What the index holds and the scorers read: flat records of the caller's workers, GPUs and
// instances, candidate placements and their parts and claims, and cluster_view, the
// read-only window a scorer gets on one decision. Written by the workspace
// (scheduler/workspace.hpp) and the fit ladder (scheduler/fit.hpp).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "traits.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// A position that refers to nothing.
inline constexpr std::uint32_t no_position = std::numeric_limits<std::uint32_t>::max();

/// A worker as indexed by the workspace (positions follow the caller's worker range).
struct worker_record {
  std::uint64_t id = 0;               ///< worker_traits::id
  std::uint64_t ram_total_bytes = 0;  ///< total RAM
  std::int64_t ram_alloc_bytes = 0;   ///< total − reserved − Σ RAM claims (may be < 0)
  std::uint32_t gpu_begin = 0;        ///< first GPU in workspace::gpus()
  std::uint32_t gpu_count = 0;        ///< number of GPUs
  /// Instances of the indexed model here, once per GPU occupied (a CPU instance once).
  std::uint32_t model_instances = 0;
  std::uint32_t other_instances = 0;  ///< instances of other models, counted the same way
  std::uint16_t type = 0;  ///< its effective GPU type id (workspace::type_name; gpustack_fit.hpp)
  worker_state state = worker_state::not_ready;  ///< worker_traits::state
  bool main_files = false;                       ///< the model's files are READY here
  bool draft_files = false;                      ///< the draft model's files are READY here
  bool eligible = false;                         ///< passed the filter chain (set by a decision)
};

/// A GPU as indexed by the workspace.
struct gpu_record {
  std::uint32_t index = 0;            ///< gpu_traits::index
  std::uint32_t worker_position = 0;  ///< its worker's position in workspace::workers()
  std::uint64_t total_bytes = 0;      ///< total VRAM
  std::int64_t alloc_bytes = 0;       ///< total − reserved − Σ VRAM claims (may be < 0)
  std::uint32_t model_instances = 0;  ///< instances of the indexed model on this GPU
  std::uint32_t other_instances = 0;  ///< instances of other models on this GPU
  std::uint16_t type = 0;             ///< GPU type id (workspace::type_name); 0 = untyped
  bool selected = false;              ///< explicitly selected by the model
};

/// A VRAM claim on one GPU of a placement.
struct claim_record {
  std::uint32_t gpu_position = 0;  ///< the GPU's position in workspace::gpus()
  std::uint32_t index = 0;         ///< gpu_traits::index of that GPU
  std::uint64_t vram_bytes = 0;    ///< VRAM claimed
};

/// One worker's share of a placement: the first part is the main worker, the others
/// subordinates (distributed inference).
struct placement_part {
  std::uint32_t worker_position = 0;  ///< the worker's position in the caller's range
  std::uint32_t claim_begin = 0;      ///< first claim in workspace claims
  std::uint32_t claim_count = 0;      ///< GPUs used on this worker (0 = CPU)
  /// RAM claimed: subtracted from the main worker's allocatable RAM; a subordinate's is
  /// scored but never subtracted (GPUStack counts RAM on the main worker only).
  std::uint64_t ram_bytes = 0;
};

/// How a placement was found.
enum class fit_strategy : std::uint8_t {
  none,             ///< no placement
  single_gpu,       ///< one worker, one GPU
  multi_gpu,        ///< one worker, several GPUs
  distributed,      ///< a main worker and subordinate workers
  partial_offload,  ///< some layers on one GPU, the rest in RAM
  cpu_only,         ///< RAM only
  manual,           ///< on explicitly selected GPUs (GPUStack's manual selection stage)
  given             ///< listed by the caller (workspace::set_candidates)
};

/// Text for a fit_strategy.
[[nodiscard]] constexpr std::string_view to_string(fit_strategy s) noexcept {
  switch (s) {
    case fit_strategy::none:
      return "none";
    case fit_strategy::single_gpu:
      return "single worker, single GPU";
    case fit_strategy::multi_gpu:
      return "single worker, multiple GPUs";
    case fit_strategy::distributed:
      return "distributed across workers";
    case fit_strategy::partial_offload:
      return "partial offload";
    case fit_strategy::cpu_only:
      return "CPU only";
    case fit_strategy::manual:
      return "manual GPU selection";
    case fit_strategy::given:
      return "listed by the caller";
  }
  return "?";
}

/// A candidate placement (scale up): parts live in the workspace.
struct candidate {
  std::uint32_t part_begin = 0;                ///< first part in workspace parts
  std::uint32_t part_count = 0;                ///< 1 + number of subordinates
  fit_strategy strategy = fit_strategy::none;  ///< the ladder step that produced it
  /// A manual selection that over-commits its GPUs (GPUStack keeps the best such one when
  /// nothing else fits and the model has one replica).
  bool overcommit = false;
  std::uint32_t offload_layers = 0;  ///< layers on GPU (layered estimators), else 0
  std::uint32_t total_layers = 0;    ///< total layers (layered estimators), else 0
};

/// An existing instance of the model being scaled down, as indexed by the workspace.
struct instance_record {
  std::size_t position = 0;                        ///< position in the caller's instance range
  std::uint64_t id = 0;                            ///< instance_traits::id
  instance_state state = instance_state::running;  ///< its state
  bool scheduled = false;                          ///< has a worker id
  std::uint32_t part_begin = 0;      ///< first part (no_position parts when not found)
  std::uint32_t part_count = 0;      ///< 0 when unscheduled or its worker is missing
  bool has_layers = false;           ///< layer metadata given (total and offloaded)
  std::uint32_t total_layers = 0;    ///< total layers (when has_layers)
  std::uint32_t offload_layers = 0;  ///< layers on GPU (when has_layers)
};

/// An instance's place in a scale-down ranking (remove from the front).
struct ranked_instance {
  std::size_t position = 0;  ///< position in the caller's instance range
  std::uint64_t id = 0;      ///< instance_traits::id
  double score = 0;          ///< the chain's total (lower = removed first)
};

namespace detail {

/// Dense copies a workspace's view carries for the library's own hot loops (best_fit_scorer
/// and locality_scorer's score_all, the winner's pick). Internal: a view built by hand leaves
/// them empty, and every scorer then reads the records.
struct view_dense_copies {
  std::span<const std::int64_t> gpu_alloc_bytes{};  // gpus[i].alloc_bytes
  std::span<const std::uint8_t> worker_files{};     // per worker main_files | draft_files << 1
  // Per candidate, when the fit's one-GPU stage listed them (each one part with one claim, in
  // increasing main-worker position) and nothing was committed since, else empty: the
  // candidates they describe, and for candidates[i] the position of its main worker and its
  // VRAM left over, `0 + (a − c)` in bytes as doubles (a: its GPU's allocatable VRAM, c: the
  // claim).
  std::span<const candidate> candidates{};
  std::span<const std::uint32_t> candidate_worker{};
  std::span<const double> candidate_vram_left_bytes{};

  // offset_of() of items that are not among the candidates.
  static constexpr std::size_t no_offset = std::numeric_limits<std::size_t>::max();
  // The position of items[0] among candidates when items lie among them (the same objects,
  // e.g. a chain's tile of them), else no_offset.
  [[nodiscard]] HEADROOM_DECL std::size_t offset_of(
      std::span<const candidate> items) const noexcept;
};

}  // namespace detail

/// Read-only view of an indexed cluster and the model being scheduled, given to scorers.
/// Positions (`worker_position`, `gpu_position`) index `workers` and `gpus`; ids are the
/// caller's (`worker_record::id`).
struct cluster_view {
  std::span<const worker_record> workers{};             ///< one per caller worker, same order
  std::span<const gpu_record> gpus{};                   ///< all GPUs, grouped by worker
  std::span<const placement_part> parts{};              ///< parts of instances and candidates
  std::span<const claim_record> claims{};               ///< VRAM claims of those parts
  placement_policy policy = placement_policy::binpack;  ///< the model's policy
  bool has_draft = false;                               ///< the model has a draft model
  bool draft_ready_somewhere = false;  ///< some worker holds the draft model's files READY
  /// Allocatable VRAM per GPU and RAM per worker counting the claims of the model's own
  /// instances only (filled when the workspace records them: scale down); GPUStack's
  /// scale-down placement scorer sees only these (server/controllers.py::
  /// find_scale_down_candidates passes the model's instances).
  std::span<const std::int64_t> own_gpu_alloc_bytes{};
  std::span<const std::int64_t> own_ram_alloc_bytes{};  ///< see own_gpu_alloc_bytes
  /// Internal: the workspace's dense copies for the library's own scorers; leave it empty.
  detail::view_dense_copies dense{};

  /// The worker of a part (its worker_position).
  [[nodiscard]] constexpr const worker_record& worker_of(const placement_part& p) const noexcept {
    return workers[p.worker_position];
  }
  /// The main worker of a candidate (its first part's worker).
  [[nodiscard]] constexpr const worker_record& main_worker(const candidate& c) const noexcept {
    return workers[parts[c.part_begin].worker_position];
  }
  /// The GPU of a claim (its gpu_position).
  [[nodiscard]] constexpr const gpu_record& gpu_of(const claim_record& c) const noexcept {
    return gpus[c.gpu_position];
  }
  /// The parts of a candidate (first = main worker).
  [[nodiscard]] constexpr std::span<const placement_part> parts_of(
      const candidate& c) const noexcept {
    return parts.subspan(c.part_begin, c.part_count);
  }
  /// The parts of an instance (empty when unscheduled or its worker is missing).
  [[nodiscard]] constexpr std::span<const placement_part> parts_of(
      const instance_record& r) const noexcept {
    return parts.subspan(r.part_begin, r.part_count);
  }
  /// The VRAM claims of a part.
  [[nodiscard]] constexpr std::span<const claim_record> claims_of(
      const placement_part& p) const noexcept {
    return claims.subspan(p.claim_begin, p.claim_count);
  }
};

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/view.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Scheduler step 3: scorers. A scorer returns a raw score for a candidate placement (scale
// up) or an existing instance (scale down) from the indexed cluster_view; chains weigh and
// sum them (chain.hpp). Two families:
//  - GPUStack's, exactly (gpustack/policies/scorers/*.py, same operations in the same
//    order, so equal totals stay equal): binpack, spread, placement (binpack or spread by
//    the model's policy), model-file locality; for scale down: status, offloaded layers,
//    placement in retention mode.
//  - the better default: leftover-aware best fit, Kubernetes MostAllocated/LeastAllocated,
//    replica anti-affinity, and gated<> to apply a scorer under one placement policy only.
// A scorer may have prepare(view, items) (called once per decision before score()),
// applies(view) (false: it scores every item 0 in this decision, and the chain skips it),
// a static `reads` (the indexed records it reads per item: a prefetch hint) and
// score_all(view, items, column) (every item's score() at once, e.g. from the view's dense
// per-candidate copies: best fit and locality have one).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "../detail/checks.hpp"
#include "view.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// A scorer of Items (candidate or instance_record): s.score(view, item) -> double.
template <class S, class Item>
concept ScorerFor = requires(const S& s, const cluster_view& v, const Item& item) {
  { s.score(v, item) } -> std::convertible_to<double>;
};

/// Which indexed records a scorer reads per item beyond the item's parts and claims: the
/// GPU records of the claims, the worker records of the parts. A chain prefetches them
/// (a hint: it never changes a score).
struct record_reads {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  bool gpus = true;     ///< the view's gpus[claim.gpu_position]
  bool workers = true;  ///< the view's workers[part.worker_position]
};
/// What scorer S reads: the `static constexpr record_reads reads` it declares, else both.
template <class S>
struct scorer_reads {
  static constexpr record_reads value = [] {
    if constexpr (requires { S::reads; })
      return record_reads(S::reads);
    else
      return record_reads{};
  }();
};

/// Which instances' claims a placement scorer counts against the allocatable amounts and
/// the instance counts.
enum class instance_view : std::uint8_t {
  all_instances,  ///< every instance in the cluster (GPUStack's scale up)
  model_only      ///< the model's own instances only (GPUStack's scale down)
};

namespace detail {
/// GPUStack's binpack score (placement_scorer.py::_score_binpack_item): a GPU part weighs
/// its RAM term 1 and its VRAM term 2,
inline constexpr double binpack_ram_weight = 1.0, binpack_vram_weight = 2.0;
/// and a distributed placement weighs its main worker 5 and each subordinate 1.
inline constexpr double binpack_main_weight = 5.0, binpack_subordinate_weight = 1.0;
/// GPUStack's locality score (model_file_locality_scorer.py): the draft model's files weigh
/// half the main model's when a READY copy exists somewhere.
inline constexpr double locality_draft_weight = 0.5;
/// GPUStack's status scorer (status_scorer.py): an instance neither running on a READY
/// worker nor broken scores half.
inline constexpr double state_partial_share = 0.5;

/// Which allocatable amount a binpack claim is measured against.
enum class binpack_basis : std::uint8_t {
  before_placement,  ///< a: what is free before the placement (scale up)
  claim_added_back   ///< a + c: the claim given back (scale down: what keeping it costs)
};

/// claim / allocatable, or 0 when nothing is allocatable (GPUStack's calculate_score).
[[nodiscard]] constexpr double claim_ratio(std::uint64_t c, double a) noexcept {
  return !(a > 0) ? 0.0 : static_cast<double>(c) / a;
}
/// An allocatable amount as the view iv sees it: the model's own instances only (own[i],
/// when the view has that copy) or every instance (all), clamped at 0 as GPUStack's
/// get_worker_allocatable_resource does.
[[nodiscard]] constexpr double allocatable(std::span<const std::int64_t> own, std::uint32_t i,
                                           std::int64_t all, instance_view iv) noexcept {
  const std::int64_t a = iv == instance_view::model_only && !own.empty() ? own[i] : all;
  return static_cast<double>(std::max<std::int64_t>(a, 0));
}
/// Allocatable VRAM of GPU position g, clamped at 0.
[[nodiscard]] constexpr double gpu_allocatable(const cluster_view& v, std::uint32_t g,
                                               instance_view iv) noexcept {
  return allocatable(v.own_gpu_alloc_bytes, g, v.gpus[g].alloc_bytes, iv);
}
/// Allocatable RAM of worker position w, clamped at 0.
[[nodiscard]] constexpr double ram_allocatable(const cluster_view& v, std::uint32_t w,
                                               instance_view iv) noexcept {
  return allocatable(v.own_ram_alloc_bytes, w, v.workers[w].ram_alloc_bytes, iv);
}
/// GPUStack's binpack score of one part (placement_scorer.py::_score_binpack_item): CPU
/// `c_ram/a_ram·M` (retention: `c_ram/(a_ram + c_ram)·M`); GPU: max over its GPUs of
/// `(c_ram/a_ram·M·1 + c_vram,i/a_vram,i·M·2)/3`, retention adding each claim to its a.
[[nodiscard]] constexpr double binpack_part(const cluster_view& v, const placement_part& p,
                                            double m, binpack_basis basis,
                                            instance_view iv) noexcept {
  const bool retention = basis == binpack_basis::claim_added_back;
  const double a_ram = ram_allocatable(v, p.worker_position, iv) +
                       (retention ? static_cast<double>(p.ram_bytes) : 0.0);
  if (p.claim_count == 0) return claim_ratio(p.ram_bytes, a_ram) * m;
  double best = 0;
  for (const claim_record& c : v.claims_of(p)) {
    const double a_vram = gpu_allocatable(v, c.gpu_position, iv) +
                          (retention ? static_cast<double>(c.vram_bytes) : 0.0);
    const double ram_score = claim_ratio(p.ram_bytes, a_ram) * m * binpack_ram_weight;
    const double vram_score = claim_ratio(c.vram_bytes, a_vram) * m * binpack_vram_weight;
    const double result = (ram_score + vram_score) / (binpack_ram_weight + binpack_vram_weight);
    if (result > best) best = result;
  }
  return best;
}
/// Combines main and subordinate part scores: `(S_main·5 + Σ S_sub·n·1)/(5 + 1·n)`.
[[nodiscard]] constexpr double binpack_parts(const cluster_view& v,
                                             std::span<const placement_part> parts, double m,
                                             binpack_basis basis, instance_view iv) noexcept {
  if (parts.empty()) return 0;
  const double main = binpack_part(v, parts[0], m, basis, iv);
  if (parts.size() == 1) return main;
  double subs = 0;
  for (std::size_t k = 1; k < parts.size(); ++k) subs += binpack_part(v, parts[k], m, basis, iv);
  const auto n = static_cast<double>(parts.size() - 1);
  return (main * binpack_main_weight + subs * n * binpack_subordinate_weight) /
         (binpack_main_weight + binpack_subordinate_weight * n);
}

/// GPUStack's spread score (placement_scorer.py::_score_spread_worker_score): a worker's
/// term W = base + model_weight·inv(instances of the model) + other_weight·inv(instances of
/// other models), in one of three bands:
struct spread_band {
  double base, model_weight, other_weight;
};
/// ...the worker has none of the model while some candidate worker has none either,
inline constexpr spread_band spread_free_worker{0.85, 0.0, 0.15};
/// ...it has some while another candidate worker has none,
inline constexpr spread_band spread_busy_worker{0.45, 0.35, 0.20};
/// ...every candidate worker has some.
inline constexpr spread_band spread_all_busy{0.50, 0.25, 0.15};
/// A spread score is W·M·0.85 + G·M·0.15 (worker term, GPU term; a CPU part W·M alone),
inline constexpr double spread_worker_share = 0.85, spread_gpu_share = 0.15;
/// and an instance of another model on a GPU weighs 0.2 of one of the model in G.
inline constexpr double spread_other_instance_weight = 0.2;

/// min/max of the instance counts over a set of workers and whether one has none of the
/// model (spread).
struct spread_stats {
  std::uint32_t model_min = 0, model_max = 0, other_min = 0, other_max = 0;
  bool some_without_model = true;  ///< GPUStack's default for an empty set
  bool empty = true;
  bool model_only = false;  ///< other models' instances count as 0 (instance_view::model_only)
  /// The other models' instances as this view counts them.
  [[nodiscard]] constexpr std::uint32_t others(std::uint32_t other) const noexcept {
    return model_only ? 0 : other;
  }
  constexpr void add(const worker_record& w) noexcept {
    const std::uint32_t other = others(w.other_instances);
    if (empty) {
      model_min = model_max = w.model_instances;
      other_min = other_max = other;
      some_without_model = w.model_instances == 0;
      empty = false;
    } else {
      model_min = std::min(model_min, w.model_instances);
      model_max = std::max(model_max, w.model_instances);
      other_min = std::min(other_min, other);
      other_max = std::max(other_max, other);
      some_without_model = some_without_model || w.model_instances == 0;
    }
  }
  /// inv(v) = 1 − (v − min)/(max − min), or 1 when max <= min (GPUStack's inverse_norm).
  [[nodiscard]] static constexpr double inv(std::uint32_t x, std::uint32_t lo,
                                            std::uint32_t hi) noexcept {
    if (hi <= lo) return 1.0;
    return 1.0 -
           static_cast<double>(static_cast<std::int64_t>(x) - lo) / static_cast<double>(hi - lo);
  }
  /// The worker term W (placement_scorer.py::_score_spread_worker_score, before × M).
  [[nodiscard]] constexpr double worker_term(const worker_record& w) const noexcept {
    const spread_band& b = !some_without_model      ? spread_all_busy
                           : w.model_instances == 0 ? spread_free_worker
                                                    : spread_busy_worker;
    const double model_inv =
        b.model_weight == 0.0 ? 0.0 : inv(w.model_instances, model_min, model_max);
    return b.base + b.model_weight * model_inv +
           b.other_weight * inv(others(w.other_instances), other_min, other_max);
  }
};
/// GPUStack's spread score of a placement (placement_scorer.py::_score_spread_item): only
/// the main worker and its GPUs count; `W·M·0.85 + G·M·0.15` with G the mean of
/// `1/(1 + model_i + other_i·0.2)` over the main worker's claimed GPUs, or `W·M` for a CPU
/// part.
[[nodiscard]] constexpr double spread_parts(const cluster_view& v,
                                            std::span<const placement_part> parts,
                                            const spread_stats& st, double m) noexcept {
  if (parts.empty()) return 0;
  const placement_part& p = parts[0];
  const double worker_score = st.worker_term(v.workers[p.worker_position]) * m;
  if (p.claim_count == 0) return worker_score;
  double g_sum = 0;
  for (const claim_record& c : v.claims_of(p)) {
    const gpu_record& g = v.gpus[c.gpu_position];
    g_sum +=
        1.0 / (static_cast<double>(1 + std::uint64_t{g.model_instances}) +
               static_cast<double>(st.others(g.other_instances)) * spread_other_instance_weight);
  }
  const double gpu_score = g_sum / static_cast<double>(p.claim_count) * m;
  return worker_score * spread_worker_share + gpu_score * spread_gpu_share;
}
}  // namespace detail

// ---- GPUStack's scale-up scorers ------------------------------------------------------------

/// Binpack (scale up): per GPU `(c_ram/a_ram·M + c_vram/a_vram·2M)/3`, max over the
/// candidate's GPUs; CPU `c_ram/a_ram·M`; distributed `(5·S_main + n·Σ S_sub)/(5 + n)`; every
/// a clamped at 0 (placement_scorer.py::score_binpack).
struct binpack_scorer {
  double max_score = 100;  ///< M
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    return detail::binpack_parts(v, v.parts_of(c), max_score,
                                 detail::binpack_basis::before_placement,
                                 instance_view::all_instances);
  }
};

/// Spread (scale up): `W·M·0.85 + G·M·0.15` (CPU: `W·M`), W from the main worker's instance
/// counts (of the model, of others) with min/max over the candidates' main workers, G the
/// mean of `1/(1 + model_i + 0.2·other_i)` over the main worker's claimed GPUs
/// (placement_scorer.py::score_spread).
struct spread_scorer {
  double max_score = 100;        ///< M
  detail::spread_stats stats{};  ///< set by prepare()
  /// Computes min/max over the candidates' main workers.
  constexpr void prepare(const cluster_view& v, std::span<const candidate> cands) noexcept {
    stats = {};
    for (const candidate& c : cands) stats.add(v.workers[v.parts[c.part_begin].worker_position]);
  }
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    return detail::spread_parts(v, v.parts_of(c), stats, max_score);
  }
};

/// Placement (scale up, always on in GPUStack): binpack or spread by the model's policy.
struct placement_scorer {
  double max_score = 100;  ///< M
  spread_scorer spread{};  ///< state for the spread policy
  /// Prepares the spread statistics when the model spreads.
  constexpr void prepare(const cluster_view& v, std::span<const candidate> cands) noexcept {
    spread.max_score = max_score;
    if (v.policy == placement_policy::spread) spread.prepare(v, cands);
  }
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    return v.policy == placement_policy::spread
               ? spread.score(v, c)
               : detail::binpack_parts(v, v.parts_of(c), max_score,
                                       detail::binpack_basis::before_placement,
                                       instance_view::all_instances);
  }
};

/// Model-file locality: `(r_main + w·r_draft)/(1 + w)·M`, r = share of the candidate's
/// distinct workers with the files READY, w = 0.5 when the draft model has a READY copy
/// anywhere, else 0 (model_file_locality_scorer.py::_calculate_score).
struct locality_scorer {
  double max_score = 5;  ///< M
  /// It reads the view's dense worker_files in about the candidates' order: no hint needed.
  static constexpr record_reads reads{.gpus = false, .workers = false};
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    const auto parts = v.parts_of(c);
    if (parts.empty()) return 0;
    std::size_t main = 0, draft = 0, distinct = 0;
    const bool dense = !v.dense.worker_files.empty();
    if (parts.size() == 1 && dense) {  // the common case, read from the dense copy
      const unsigned f = v.dense.worker_files[parts[0].worker_position];
      // No draft weight: the formula below reduces to M·(main files READY), exactly.
      if (!(v.has_draft && v.draft_ready_somewhere)) {
        const double by_files[2] = {0.0, max_score};  // a lookup, not a branch on the files
        return by_files[f & 1u];
      }
      main = f & 1u;
      draft = f >> 1;
      distinct = 1;
    }
    for (std::size_t k = distinct; k < parts.size(); ++k) {
      const std::uint32_t w = parts[k].worker_position;
      bool seen = false;  // GPUStack counts a set of worker ids
      for (std::size_t j = 0; j < k && !seen; ++j) seen = parts[j].worker_position == w;
      if (seen) continue;
      ++distinct;
      const unsigned f =
          dense ? v.dense.worker_files[w]
                : (v.workers[w].main_files ? 1u : 0u) | (v.workers[w].draft_files ? 2u : 0u);
      main += f & 1u;
      draft += f >> 1;
    }
    const auto n = static_cast<double>(distinct);
    const bool drafts = v.has_draft && v.draft_ready_somewhere;
    const double r_main = static_cast<double>(main) / n;
    const double r_draft = drafts ? static_cast<double>(draft) / n : 0.0;
    if (r_main == 0 && r_draft == 0) return 0;
    const double w = drafts ? detail::locality_draft_weight : 0.0;
    return (r_main + w * r_draft) / (1.0 + w) * max_score;
  }
  /// score() of every candidate into out (same size); from the view's dense copies when
  /// items lie among the candidates they describe and the draft weight is off (one worker
  /// each: `M·(main files READY)`, the value score() returns).
  HEADROOM_DECL void score_all(const cluster_view& v, std::span<const candidate> items,
                               std::span<double> out) const noexcept;
};

// ---- GPUStack's scale-down scorers ----------------------------------------------------------

/// Status (scale down, status_scorer.py): 0 when unscheduled, its worker missing or
/// NOT_READY, or the instance in error; M when the worker is READY and the instance
/// RUNNING; M·0.5 otherwise (a worker UNREACHABLE, in MAINTENANCE, ... included).
struct state_scorer {
  double max_score = 100;  ///< M
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view& v,
                                       const instance_record& r) const noexcept {
    if (r.part_count == 0) return 0;
    const worker_state ws = v.workers[v.parts[r.part_begin].worker_position].state;
    if (ws == worker_state::not_ready || r.state == instance_state::error) return 0;
    if (ws == worker_state::ready && r.state == instance_state::running) return max_score;
    return max_score * detail::state_partial_share;
  }
};

/// Offloaded layers (scale down, offload_layer_scorer.py): 0 without layer metadata; M when
/// offload = total; else `offload/total·M`.
struct offload_layer_scorer {
  double max_score = 10;  ///< M
  /// It reads the instance record alone.
  static constexpr record_reads reads{.gpus = false, .workers = false};
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view&,
                                       const instance_record& r) const noexcept {
    if (!r.has_layers) return 0;
    if (r.total_layers == r.offload_layers) return max_score;
    if (r.total_layers == 0) return 0;
    return static_cast<double>(r.offload_layers) / static_cast<double>(r.total_layers) * max_score;
  }
};

/// Placement in retention mode (scale down): binpack with each claim added back to its
/// clamped allocatable amount (`c/(max(a, 0) + c)`), or spread with min/max over all
/// workers; 0 when unscheduled. GPUStack's scale down counts the model's own instances only
/// (view = model_only; needs a workspace that recorded them).
struct placement_retention_scorer {
  double max_score = 1;                               ///< M
  instance_view view = instance_view::all_instances;  ///< whose claims and counts it sees
  detail::spread_stats stats{};                       ///< set by prepare()
  /// Computes the spread statistics over all workers.
  constexpr void prepare(const cluster_view& v, std::span<const instance_record>) noexcept {
    stats = {};
    stats.model_only = view == instance_view::model_only;
    for (const worker_record& w : v.workers) stats.add(w);
  }
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view& v,
                                       const instance_record& r) const noexcept {
    const auto parts = v.parts_of(r);
    if (v.policy == placement_policy::spread)
      return detail::spread_parts(v, parts, stats, max_score);
    return detail::binpack_parts(v, parts, max_score, detail::binpack_basis::claim_added_back,
                                 view);
  }
};

// ---- the better default --------------------------------------------------------------------

/// Leftover-aware binpack (best fit): raw score `−Σ_i (a_i − c_i)` in GiB over the
/// candidate's GPUs (CPU: RAM leftover): the placement that strands the least VRAM wins,
/// which keeps large holes whole (fragmentation-aware). Normalise it in the chain.
struct best_fit_scorer {
  /// It reads the view's dense gpu_alloc_bytes in about the candidates' order: no hint needed.
  static constexpr record_reads reads{.gpus = false, .workers = false};
  /// The candidate's raw score (<= 0).
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    double left = 0;
    bool gpu = false;
    const bool dense = !v.dense.gpu_alloc_bytes.empty();
    for (const placement_part& p : v.parts_of(c))
      for (const claim_record& cl : v.claims_of(p)) {
        const std::int64_t a =
            dense ? v.dense.gpu_alloc_bytes[cl.gpu_position] : v.gpus[cl.gpu_position].alloc_bytes;
        left += static_cast<double>(a) - static_cast<double>(cl.vram_bytes);
        gpu = true;
      }
    if (!gpu && c.part_count > 0) {
      const placement_part& p = v.parts[c.part_begin];
      left = static_cast<double>(v.workers[p.worker_position].ram_alloc_bytes) -
             static_cast<double>(p.ram_bytes);
    }
    return -left / static_cast<double>(gib_bytes);
  }
  /// score() of every candidate into out (same size); from the view's dense copies when
  /// items lie among the candidates they describe (one claim each: the same values).
  HEADROOM_DECL void score_all(const cluster_view& v, std::span<const candidate> items,
                               std::span<double> out) const noexcept;
};

namespace detail {
/// Fractions of VRAM (pooled over the candidate's GPUs) and main-worker RAM in use after
/// the placement, each clamped to [0, 1].
struct usage_after {
  double vram = 0, ram = 0;
  bool has_gpu = false;
};
[[nodiscard]] constexpr usage_after usage_of(const cluster_view& v, const candidate& c) noexcept {
  usage_after u;
  double used = 0, cap = 0;
  for (const placement_part& p : v.parts_of(c))
    for (const claim_record& cl : v.claims_of(p)) {
      const gpu_record& g = v.gpus[cl.gpu_position];
      const double total = static_cast<double>(g.total_bytes);
      used += std::min(
          total - static_cast<double>(g.alloc_bytes) + static_cast<double>(cl.vram_bytes), total);
      cap += total;
      u.has_gpu = true;
    }
  u.vram = cap > 0 ? std::max(0.0, used / cap) : 0;
  if (c.part_count > 0) {
    const placement_part& p = v.parts[c.part_begin];
    const worker_record& w = v.workers[p.worker_position];
    const double total = static_cast<double>(w.ram_total_bytes);
    const double req = std::min(
        total - static_cast<double>(w.ram_alloc_bytes) + static_cast<double>(p.ram_bytes), total);
    u.ram = total > 0 ? std::max(0.0, req / total) : 0;
  }
  return u;
}
}  // namespace detail

/// Kubernetes NodeResourcesFit MostAllocated: `Σ w_r·min(req_r, cap_r)·100/cap_r / Σ w_r`
/// over VRAM (pooled over the candidate's GPUs) and main-worker RAM, req including the
/// incoming instance. CPU candidates count RAM only.
struct most_allocated_scorer {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double vram_weight = 2;  ///< w for VRAM
  double ram_weight = 1;   ///< w for RAM
  /// The candidate's score in [0, 100].
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    const detail::usage_after u = detail::usage_of(v, c);
    if (!u.has_gpu) return 100.0 * u.ram;
    return (vram_weight * u.vram * 100.0 + ram_weight * u.ram * 100.0) / (vram_weight + ram_weight);
  }
};

/// Kubernetes NodeResourcesFit LeastAllocated: `Σ w_r·(cap_r − req_r)·100/cap_r / Σ w_r`.
struct least_allocated_scorer {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double vram_weight = 2;  ///< w for VRAM
  double ram_weight = 1;   ///< w for RAM
  /// The candidate's score in [0, 100].
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    const detail::usage_after u = detail::usage_of(v, c);
    if (!u.has_gpu) return 100.0 * (1.0 - u.ram);
    return (vram_weight * (1.0 - u.vram) * 100.0 + ram_weight * (1.0 - u.ram) * 100.0) /
           (vram_weight + ram_weight);
  }
};

/// Replica anti-affinity: raw score `−Σ model_instances` over the candidate's workers (the
/// model's instances already there, once per GPU): the fewer replicas share a failure
/// domain the better.
struct anti_affinity_scorer {
  /// It reads the worker records of the candidate's parts.
  static constexpr record_reads reads{.gpus = false, .workers = true};
  /// The candidate's raw score (<= 0).
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    double n = 0;
    for (const placement_part& p : v.parts_of(c))
      n += static_cast<double>(v.workers[p.worker_position].model_instances);
    return -n;
  }
};

/// Applies scorer S only when the model's placement policy is `when`; scores 0 otherwise
/// (a constant, so it changes no decision).
template <class S>
struct gated {
  placement_policy when = placement_policy::binpack;  ///< the policy it applies to
  S scorer{};                                         ///< the wrapped scorer
  /// It reads what S reads.
  static constexpr record_reads reads = scorer_reads<S>::value;
  /// false when the model's policy is another: every item then scores 0, and a chain skips
  /// the scorer (its column would add exactly +0.0 to every total).
  [[nodiscard]] constexpr bool applies(const cluster_view& v) const noexcept {
    return v.policy == when;
  }
  /// Forwards prepare() when S has one and the policy matches.
  template <class Item>
  constexpr void prepare(const cluster_view& v, std::span<const Item> items) {
    if constexpr (requires { scorer.prepare(v, items); })
      if (v.policy == when) scorer.prepare(v, items);
  }
  /// S's score_all (when it has one), or 0 for every item under another policy.
  template <class Item>
  requires requires(const S& s, const cluster_view& v, std::span<const Item> items,
                    std::span<double> out) {
    s.score_all(v, items, out);
  }
  void score_all(const cluster_view& v, std::span<const Item> items, std::span<double> out) const {
    if (v.policy == when)
      scorer.score_all(v, items, out);
    else
      std::fill(out.begin(), out.end(), 0.0);
  }
  /// S's score, or 0 under another policy.
  template <class Item>
  requires ScorerFor<S, Item>
  [[nodiscard]] constexpr double score(const cluster_view& v, const Item& item) const noexcept {
    return v.policy == when ? static_cast<double>(scorer.score(v, item)) : 0.0;
  }
};
template <class S>
gated(placement_policy, S) -> gated<S>;

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/scorers.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

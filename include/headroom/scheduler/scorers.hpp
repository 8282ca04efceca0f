// SPDX-License-Identifier: Apache-2.0
// Scheduler step 3: scorers. A scorer returns a raw score for a candidate placement (scale
// up) or an existing instance (scale down) from the indexed cluster_view; chains weigh and
// sum them (chain.hpp). Two families:
//  - GPUStack-compatible (SPEC.md §7 reference formulas, exactly): binpack, spread,
//    placement (binpack or spread by the model's policy), model-file locality; for scale
//    down: state, offloaded layers, placement in retention mode.
//  - the better default: leftover-aware best fit, Kubernetes MostAllocated/LeastAllocated,
//    replica anti-affinity, and gated<> to apply a scorer under one placement policy only.
// A scorer may have prepare(view, items) (called once per decision before score()).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "../detail/checks.hpp"
#include "fit.hpp"

namespace headroom {
inline namespace v0 {

/// A scorer of Items (candidate or instance_record): s.score(view, item) -> double.
template <class S, class Item>
concept ScorerFor = requires(const S& s, const cluster_view& v, const Item& item) {
  { s.score(v, item) } -> std::convertible_to<double>;
};

namespace detail {
/// c / a, or 0 when the claim is missing or nothing is allocatable (SPEC §7).
[[nodiscard]] constexpr double claim_ratio(std::uint64_t c, double a) noexcept {
  return c == 0 || !(a > 0) ? 0.0 : static_cast<double>(c) / a;
}
/// GPUStack binpack score of one part: CPU `M·c_ram/a_ram`; GPU: max over its GPUs of
/// `(M·1·c_ram/a_ram + M·2·c_vram,i/a_vram,i)/3`; retention adds the claim back to a.
[[nodiscard]] constexpr double binpack_part(const cluster_view& v, const placement_part& p,
                                            double m, bool retention) noexcept {
  const worker_record& w = v.workers[p.worker];
  const double a_ram =
      static_cast<double>(w.ram_alloc_bytes) + (retention ? static_cast<double>(p.ram_bytes) : 0.0);
  if (p.claim_count == 0) return claim_ratio(p.ram_bytes, a_ram) * m;
  double best = 0;
  for (const claim_record& c : v.claims_of(p)) {
    const double a_vram = static_cast<double>(v.gpus[c.gpu].alloc_bytes) +
                          (retention ? static_cast<double>(c.vram_bytes) : 0.0);
    const double ram_score = claim_ratio(p.ram_bytes, a_ram) * m * 1.0;
    const double vram_score = claim_ratio(c.vram_bytes, a_vram) * m * 2.0;
    best = std::max(best, (ram_score + vram_score) / 3.0);
  }
  return best;
}
/// Combines main and subordinate part scores: `(5·S_main + n·Σ S_sub)/(5 + n)`.
[[nodiscard]] constexpr double binpack_parts(const cluster_view& v,
                                             std::span<const placement_part> parts, double m,
                                             bool retention) noexcept {
  if (parts.empty()) return 0;
  const double main = binpack_part(v, parts[0], m, retention);
  if (parts.size() == 1) return main;
  double subs = 0;
  for (std::size_t k = 1; k < parts.size(); ++k) subs += binpack_part(v, parts[k], m, retention);
  const auto n = static_cast<double>(parts.size() - 1);
  return (main * 5.0 + subs * n * 1.0) / (5.0 + 1.0 * n);
}

/// min/max of cur and oth over a set of workers and whether one has cur = 0 (spread).
struct spread_stats {
  std::uint32_t cur_min = 0, cur_max = 0, oth_min = 0, oth_max = 0;
  bool any_zero_cur = false;
  bool empty = true;
  constexpr void add(const worker_record& w) noexcept {
    if (empty) {
      cur_min = cur_max = w.cur;
      oth_min = oth_max = w.oth;
      empty = false;
    } else {
      cur_min = std::min(cur_min, w.cur);
      cur_max = std::max(cur_max, w.cur);
      oth_min = std::min(oth_min, w.oth);
      oth_max = std::max(oth_max, w.oth);
    }
    any_zero_cur = any_zero_cur || w.cur == 0;
  }
  /// inv(v) = 1 − (v − min)/(max − min), or 1 when max <= min.
  [[nodiscard]] static constexpr double inv(std::uint32_t x, std::uint32_t lo,
                                            std::uint32_t hi) noexcept {
    if (hi <= lo) return 1.0;
    return 1.0 - static_cast<double>(x - lo) / static_cast<double>(hi - lo);
  }
  /// The worker term W of SPEC §7.
  [[nodiscard]] constexpr double worker_term(const worker_record& w) const noexcept {
    const double ic = inv(w.cur, cur_min, cur_max), io = inv(w.oth, oth_min, oth_max);
    if (any_zero_cur) return w.cur == 0 ? 0.85 + 0.15 * io : 0.45 + 0.35 * ic + 0.20 * io;
    return 0.50 + 0.25 * ic + 0.15 * io;
  }
};
/// GPUStack spread score of a placement's parts given the worker statistics.
[[nodiscard]] constexpr double spread_parts(const cluster_view& v,
                                            std::span<const placement_part> parts,
                                            const spread_stats& st, double m) noexcept {
  if (parts.empty()) return 0;
  const double w = st.worker_term(v.workers[parts[0].worker]);
  double g_sum = 0;
  std::size_t g_n = 0;
  for (const placement_part& p : parts)
    for (const claim_record& c : v.claims_of(p)) {
      const gpu_record& g = v.gpus[c.gpu];
      g_sum += 1.0 / (1.0 + static_cast<double>(g.cur) + 0.2 * static_cast<double>(g.oth));
      ++g_n;
    }
  if (g_n == 0) return m * w;
  return m * (0.85 * w + 0.15 * (g_sum / static_cast<double>(g_n)));
}
}  // namespace detail

// ---- GPUStack-compatible scale-up scorers --------------------------------------------------

/// Binpack (scale up): per GPU `(M·c_ram/a_ram + 2M·c_vram/a_vram)/3`, max over the
/// candidate's GPUs; CPU `M·c_ram/a_ram`; distributed `(5·S_main + n·Σ S_sub)/(5 + n)`.
struct binpack_scorer {
  double max_score = 100;  ///< M
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    return detail::binpack_parts(v, v.parts_of(c), max_score, false);
  }
};

/// Spread (scale up): `M·(0.85·W + 0.15·G)` (CPU: `M·W`), W from cur/oth instance counts of
/// the main worker with min/max over the candidates' workers, G the mean of
/// `1/(1 + cur_i + 0.2·oth_i)` over the candidate's GPUs (SPEC §7).
struct spread_scorer {
  double max_score = 100;        ///< M
  detail::spread_stats stats{};  ///< set by prepare()
  /// Computes min/max over the candidates' main workers.
  constexpr void prepare(const cluster_view& v, std::span<const candidate> cands) noexcept {
    stats = {};
    for (const candidate& c : cands) stats.add(v.workers[v.parts[c.part_begin].worker]);
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
               : detail::binpack_parts(v, v.parts_of(c), max_score, false);
  }
};

/// Model-file locality: `M·(r_main + w·r_draft)/(1 + w)`, r = share of participating workers
/// with the files READY, w = 0.5 when the draft model has a READY copy anywhere, else 0.
struct locality_scorer {
  double max_score = 5;  ///< M
  /// The candidate's score.
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    const auto parts = v.parts_of(c);
    if (parts.empty()) return 0;
    std::size_t main = 0, draft = 0;
    if (!v.worker_files.empty()) {
      for (const placement_part& p : parts) {
        const unsigned f = v.worker_files[p.worker];
        main += f & 1u;
        draft += f >> 1;
      }
    } else {
      for (const placement_part& p : parts) {
        if (v.workers[p.worker].main_files) ++main;
        if (v.workers[p.worker].draft_files) ++draft;
      }
    }
    const auto n = static_cast<double>(parts.size());
    const double r_main = static_cast<double>(main) / n, r_draft = static_cast<double>(draft) / n;
    const double w = v.has_draft && v.draft_any_ready ? 0.5 : 0.0;
    if (r_main == 0 && r_draft == 0) return 0;
    return max_score * (r_main + w * r_draft) / (1.0 + w);
  }
};

// ---- GPUStack-compatible scale-down scorers -------------------------------------------------

/// State (scale down): 0 when unscheduled, its worker missing or not ready, or the instance
/// in error; M when the worker is ready and the instance running; 0.5·M otherwise.
struct state_scorer {
  double max_score = 100;  ///< M
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view& v,
                                       const instance_record& r) const noexcept {
    if (r.part_count == 0 || r.state == instance_state::error) return 0;
    if (!v.workers[v.parts[r.part_begin].worker].ready) return 0;
    return r.state == instance_state::running ? max_score : 0.5 * max_score;
  }
};

/// Offloaded layers (scale down): M when every layer is on GPU, `M·offload/total` for a
/// partial offload, 0 without layer metadata.
struct offload_layer_scorer {
  double max_score = 10;  ///< M
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view&,
                                       const instance_record& r) const noexcept {
    if (r.total_layers == 0) return 0;
    if (r.offload_layers >= r.total_layers) return max_score;
    return max_score * static_cast<double>(r.offload_layers) / static_cast<double>(r.total_layers);
  }
};

/// Placement in retention mode (scale down): binpack with each claim added back to its
/// denominator (`c/(a + c)`), or spread with min/max over all workers; 0 when unscheduled.
struct placement_retention_scorer {
  double max_score = 1;          ///< M
  detail::spread_stats stats{};  ///< set by prepare()
  /// Computes the spread statistics over all workers.
  constexpr void prepare(const cluster_view& v, std::span<const instance_record>) noexcept {
    stats = {};
    for (const worker_record& w : v.workers) stats.add(w);
  }
  /// The instance's score.
  [[nodiscard]] constexpr double score(const cluster_view& v,
                                       const instance_record& r) const noexcept {
    const auto parts = v.parts_of(r);
    if (v.policy == placement_policy::spread)
      return detail::spread_parts(v, parts, stats, max_score);
    return detail::binpack_parts(v, parts, max_score, true);
  }
};

// ---- the better default --------------------------------------------------------------------

/// Leftover-aware binpack (best fit): raw score `−Σ_i (a_i − c_i)` in GiB over the
/// candidate's GPUs (CPU: RAM leftover): the placement that strands the least VRAM wins,
/// which keeps large holes whole (fragmentation-aware). Normalise it in the chain.
struct best_fit_scorer {
  /// The candidate's raw score (<= 0).
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    double left = 0;
    bool gpu = false;
    const bool dense = !v.gpu_alloc.empty();
    for (const placement_part& p : v.parts_of(c))
      for (const claim_record& cl : v.claims_of(p)) {
        const std::int64_t a = dense ? v.gpu_alloc[cl.gpu] : v.gpus[cl.gpu].alloc_bytes;
        left += static_cast<double>(a) - static_cast<double>(cl.vram_bytes);
        gpu = true;
      }
    if (!gpu && c.part_count > 0) {
      const placement_part& p = v.parts[c.part_begin];
      left = static_cast<double>(v.workers[p.worker].ram_alloc_bytes) -
             static_cast<double>(p.ram_bytes);
    }
    return -left / static_cast<double>(gib_bytes);
  }
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
      const gpu_record& g = v.gpus[cl.gpu];
      const double total = static_cast<double>(g.total_bytes);
      used += std::min(
          total - static_cast<double>(g.alloc_bytes) + static_cast<double>(cl.vram_bytes), total);
      cap += total;
      u.has_gpu = true;
    }
  u.vram = cap > 0 ? std::max(0.0, used / cap) : 0;
  if (c.part_count > 0) {
    const placement_part& p = v.parts[c.part_begin];
    const worker_record& w = v.workers[p.worker];
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

/// Replica anti-affinity: raw score `−Σ cur` over the candidate's workers (instances of the
/// same model already there, once per GPU): the fewer replicas share a failure domain the better.
struct anti_affinity_scorer {
  /// The candidate's raw score (<= 0).
  [[nodiscard]] constexpr double score(const cluster_view& v, const candidate& c) const noexcept {
    double n = 0;
    for (const placement_part& p : v.parts_of(c)) n += static_cast<double>(v.workers[p.worker].cur);
    return -n;
  }
};

/// Applies scorer S only when the model's placement policy is `when`; scores 0 otherwise
/// (a constant, so it changes no decision).
template <class S>
struct gated {
  placement_policy when = placement_policy::binpack;  ///< the policy it applies to
  S scorer{};                                         ///< the wrapped scorer
  /// Forwards prepare() when S has one and the policy matches.
  template <class Item>
  constexpr void prepare(const cluster_view& v, std::span<const Item> items) {
    if constexpr (requires { scorer.prepare(v, items); })
      if (v.policy == when) scorer.prepare(v, items);
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

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/decide.hpp's non-template functions: included at the end of that
// header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/decide.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL bool dominates(double cost_a, double better_a, double cost_b,
                             double better_b) noexcept {
  return cost_a <= cost_b && better_a >= better_b && (cost_a < cost_b || better_a > better_b);
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL decision decide(std::span<const row> rows) {
  decision d;
  d.verdicts.assign(rows.size(), verdict::infeasible);
  d.dominated_by.assign(rows.size(), std::nullopt);
  std::vector<std::size_t> feasible;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ++d.counts[static_cast<std::size_t>(rows[i].status)];
    if (rows[i].status == feasibility::feasible) feasible.push_back(i);
  }
  const auto margin = [](const row& r) { return r.latency_margin; };
  const auto fewer_replicas = [](const row& r) {
    return -static_cast<double>(r.replicas_for_peak);
  };
  d.margin_frontier = detail::frontier_of(rows, feasible, margin);
  d.replicas_frontier = detail::frontier_of(rows, feasible, fewer_replicas);
  for (const std::size_t i : feasible) {
    d.verdicts[i] = verdict::dominated;
    for (const std::size_t f : d.margin_frontier)  // by cost: the first is the cheapest
      if (detail::dominates(rows[f].cost_per_million_tokens, rows[f].latency_margin,
                            rows[i].cost_per_million_tokens, rows[i].latency_margin)) {
        d.dominated_by[i] = f;
        break;
      }
  }
  for (const std::size_t f : d.margin_frontier) d.verdicts[f] = verdict::frontier;
  for (const std::size_t i : feasible) {
    if (!d.winner) {
      d.winner = i;
      continue;
    }
    const row& a = rows[i];
    const row& w = rows[*d.winner];
    const auto rank = [](const row& r) {
      return std::make_tuple(r.cost_per_million_tokens, -r.latency_margin, r.replicas_for_peak,
                             r.config.index);
    };
    if (rank(a) < rank(w)) d.winner = i;
  }
  if (d.winner) d.verdicts[*d.winner] = verdict::winner;
  return d;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

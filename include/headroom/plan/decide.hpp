// SPDX-License-Identifier: Apache-2.0
// Deciding a grid's rows: the Pareto frontiers, the winner, and why every other
// configuration lost.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "row.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Why a configuration won or lost.
enum class verdict : std::uint8_t {
  winner,      ///< the cheapest per million tokens among those that meet the SLO
  frontier,    ///< not dominated: more latency margin than every cheaper configuration
  dominated,   ///< another costs no more and has no less margin (dominated_by names it)
  infeasible,  ///< cannot serve the SLO (row::status says why)
};

/// The text of a verdict.
[[nodiscard]] constexpr std::string_view to_string(verdict v) noexcept {
  switch (v) {
    case verdict::winner:
      return "winner";
    case verdict::frontier:
      return "frontier";
    case verdict::dominated:
      return "dominated";
    case verdict::infeasible:
      break;
  }
  return "infeasible";
}

/// The outcome of a grid: per row (same order as the rows given) its verdict and the row
/// that dominates it, and the two frontiers as row positions sorted by cost.
struct decision {
  std::vector<verdict> verdicts{};                         ///< one per row
  std::vector<std::optional<std::size_t>> dominated_by{};  ///< the cheapest frontier row that
                                                           ///< dominates it (cost vs margin)
  std::vector<std::size_t> margin_frontier{};    ///< cost per Mtok vs latency margin, by cost
  std::vector<std::size_t> replicas_frontier{};  ///< cost per Mtok vs replicas at the peak
  std::optional<std::size_t> winner;             ///< empty when no configuration is feasible
  /// Rows per feasibility (index: the enum's value).
  std::size_t counts[5] = {0, 0, 0, 0, 0};
};

namespace detail {
// a dominates b (both minimise cost, a maximises `better`): a is no worse on both and
// strictly better on one.
[[nodiscard]] HEADROOM_DECL bool dominates(double cost_a, double better_a, double cost_b,
                                           double better_b) noexcept;
// Positions of the feasible rows not dominated on (cost, value), sorted by cost, then by
// value (descending), then by position.
template <class Value>
[[nodiscard]] std::vector<std::size_t> frontier_of(std::span<const row> rows,
                                                   const std::vector<std::size_t>& feasible,
                                                   Value value) {
  std::vector<std::size_t> front;
  for (const std::size_t b : feasible) {
    bool beaten = false;
    for (const std::size_t a : feasible)
      if (a != b && dominates(rows[a].cost_per_million_tokens, value(rows[a]),
                              rows[b].cost_per_million_tokens, value(rows[b]))) {
        beaten = true;
        break;
      }
    if (!beaten) front.push_back(b);
  }
  std::sort(front.begin(), front.end(), [&](std::size_t x, std::size_t y) {
    if (rows[x].cost_per_million_tokens != rows[y].cost_per_million_tokens)
      return rows[x].cost_per_million_tokens < rows[y].cost_per_million_tokens;
    if (value(rows[x]) != value(rows[y])) return value(rows[x]) > value(rows[y]);
    return x < y;
  });
  return front;
}
}  // namespace detail

/// Decides a grid's rows (any subset, e.g. merged shards): the feasible ones are compared
/// by cost per million tokens (lower is better) against latency margin (higher) and against
/// replicas at the peak (fewer). The winner is the cheapest, ties broken by more margin,
/// then fewer replicas at the peak, then the lower configuration index; it is on both
/// frontiers' cheap end. Pure: the same rows give the same decision.
[[nodiscard]] HEADROOM_DECL decision decide(std::span<const row> rows);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/decide.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// One call for a whole grid: evaluate it, then decide.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <concepts>
#include <random>
#include <vector>

#include "decide.hpp"
#include "grid.hpp"
#include "lengths.hpp"
#include "problem.hpp"
#include "row.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// One planned grid: its rows (canonical order) and their decision.
struct plan_result {
  length_statistics lengths{};  ///< the mix's statistics the rows used
  std::vector<row> rows{};      ///< every configuration evaluated
  decision outcome{};           ///< frontiers, winner, verdicts
};

/// evaluate_grid, then decide.
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] plan_result search(const problem& p, const L& sampler, const execution& run = {}) {
  plan_result r;
  r.rows = evaluate_grid(p, sampler, run);
  r.lengths = sample_lengths(sampler, p.search.length_draws, p.search.seed);
  r.outcome = decide(r.rows);
  return r;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

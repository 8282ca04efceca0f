// SPDX-License-Identifier: Apache-2.0
// The grid in parallel: every configuration of a shard on a pool of threads, rows in
// canonical order, bit-identical for any thread count.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <concepts>
#include <cstddef>
#include <random>
#include <vector>

#include "../detail/checks.hpp"
#include "../detail/parallel.hpp"
#include "configuration.hpp"
#include "evaluate.hpp"
#include "lengths.hpp"
#include "problem.hpp"
#include "row.hpp"
#include "validate.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Evaluates the configurations of `run.part` (all by default) on run.threads threads and
/// returns their rows in canonical order. Each configuration depends only on its key, so
/// the rows are bit-identical for any thread count and any sharding. Validates the problem
/// first (throws invalid_argument); an error raised by the sampler inside a worker is
/// rethrown here once every worker has stopped.
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] std::vector<row> evaluate_grid(const problem& p, const L& sampler,
                                             const execution& run = {}) {
  validate(p);
  if (run.part.count < 1)
    ::headroom::detail::fail("run.part.count", run.part.count, "must be >= 1");
  if (run.part.index < 1 || run.part.index > run.part.count)
    ::headroom::detail::fail("run.part.index", run.part.index, "must lie in [1, run.part.count]");
  const length_statistics lengths = sample_lengths(sampler, p.search.length_draws, p.search.seed);
  std::vector<configuration> mine;
  for (const auto& c : enumerate(p.axes))
    if (c.index % run.part.count == run.part.index - 1) mine.push_back(c);
  std::vector<row> rows(mine.size());
  auto evaluate_one = [&](std::size_t i) { rows[i] = evaluate(p, mine[i], sampler, lengths); };
  ::headroom::detail::parallel_for(mine.size(), run.threads, evaluate_one);
  return rows;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

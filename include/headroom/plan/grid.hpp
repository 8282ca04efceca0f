// SPDX-License-Identifier: Apache-2.0
// The grid in parallel: every configuration of a shard on a pool of threads, rows in
// canonical order, bit-identical for any thread count.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <exception>
#include <random>
#include <thread>
#include <vector>

#include "../detail/checks.hpp"
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
  std::size_t threads = run.threads;
  if (threads == 0) threads = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, std::max<std::size_t>(1, mine.size()));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  std::exception_ptr error;  // the first, written by one worker only (guarded by `failed`)
#endif
  auto work = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= mine.size()) return;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
      try {
        rows[i] = evaluate(p, mine[i], sampler, lengths);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
        return;
      }
#else
      rows[i] = evaluate(p, mine[i], sampler, lengths);
#endif
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (error) std::rethrow_exception(error);
#endif
  return rows;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

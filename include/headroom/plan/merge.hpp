// SPDX-License-Identifier: Apache-2.0
// Merging shards of one grid: every shard once, every configuration once, in canonical
// order; a missing, repeated or foreign shard is reported.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "csv_read.hpp"
#include "row.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Merged shards of one grid: its identity and every row, in canonical order.
struct merged_grid {
  std::string plan_name{};                  ///< problem::name
  std::string model_name{};                 ///< model_shape::name
  std::uint64_t fingerprint = 0;            ///< shared by every shard
  std::size_t configurations = 0;           ///< rows, = the grid's configuration count
  std::vector<std::string> accelerators{};  ///< names; configuration::accelerator indexes them
  std::vector<row> rows{};  ///< sorted by configuration index, one per configuration
};

/// The outcome of a merge: one merged grid per fingerprint (in order of first appearance),
/// or why the blocks do not make whole grids.
struct merge_result {
  std::vector<merged_grid> grids{};  ///< complete grids
  std::string error{};               ///< empty when ok
  /// true when every grid is complete.
  [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};

namespace detail {

// The blocks of each fingerprint, in order of first appearance.
[[nodiscard]] HEADROOM_DECL std::vector<std::vector<const csv_block*>> group_by_fingerprint(
    std::span<const csv_block> blocks);

[[nodiscard]] inline std::string shard_text(std::size_t index, std::size_t count) {
  return "shard " + std::to_string(index) + "/" + std::to_string(count);
}

// Each row of one grid's blocks at its configuration index; why not, or "" when every
// block agrees with the first, no shard repeats and every row sits in the shard owning it.
[[nodiscard]] HEADROOM_DECL std::string index_rows(const std::vector<const csv_block*>& group,
                                                   std::vector<const row*>& by_index);

// The rows in index order, each accelerator renumbered by its name's first appearance in
// the merged grid (each block numbered its own).
HEADROOM_DECL void assemble(const std::vector<const csv_block*>& group,
                            const std::vector<const row*>& by_index, merged_grid& m);

}  // namespace detail

/// Merges blocks (shards, or whole runs) by fingerprint. Each grid must be complete: every
/// shard k of n exactly once, all written by the same version, and every configuration
/// index 0..N−1 present exactly once in the shard that owns it (index mod n = k − 1).
/// A domain outcome: a missing, duplicated or foreign shard is reported, never thrown.
[[nodiscard]] HEADROOM_DECL merge_result merge(std::span<const csv_block> blocks);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/merge.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

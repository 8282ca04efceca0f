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
[[nodiscard]] inline std::vector<std::vector<const csv_block*>> group_by_fingerprint(
    std::span<const csv_block> blocks) {
  std::vector<std::vector<const csv_block*>> groups;
  for (const csv_block& b : blocks) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.front()->fingerprint == b.fingerprint; });
    if (it == groups.end())
      groups.push_back({&b});
    else
      it->push_back(&b);
  }
  return groups;
}

[[nodiscard]] inline std::string shard_text(std::size_t index, std::size_t count) {
  return "shard " + std::to_string(index) + "/" + std::to_string(count);
}

// Each row of one grid's blocks at its configuration index; why not, or "" when every
// block agrees with the first, no shard repeats and every row sits in the shard owning it.
[[nodiscard]] inline std::string index_rows(const std::vector<const csv_block*>& group,
                                            std::vector<const row*>& by_index) {
  const csv_block& first = *group.front();
  std::vector<bool> seen_shard(first.part.count, false);
  for (const csv_block* b : group) {
    if (b->version != first.version || b->configurations != first.configurations ||
        b->part.count != first.part.count || b->plan_name != first.plan_name ||
        b->model_name != first.model_name)
      return "shards disagree on version, size or shard count";
    const std::string shard = shard_text(b->part.index, b->part.count);
    if (seen_shard[b->part.index - 1]) return shard + " appears twice";
    seen_shard[b->part.index - 1] = true;
    for (const row& r : b->rows) {
      const std::string configuration = "configuration " + std::to_string(r.config.index);
      if (r.config.index >= first.configurations ||
          r.config.index % b->part.count != b->part.index - 1)
        return configuration + " does not belong in " + shard;
      if (by_index[r.config.index]) return configuration + " appears twice";
      by_index[r.config.index] = &r;
    }
  }
  for (std::size_t k = 0; k < seen_shard.size(); ++k)
    if (!seen_shard[k]) return shard_text(k + 1, first.part.count) + " is missing";
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (!by_index[i]) return "configuration " + std::to_string(i) + " is missing";
  return "";
}

// The rows in index order, each accelerator renumbered by its name's first appearance in
// the merged grid (each block numbered its own).
inline void assemble(const std::vector<const csv_block*>& group,
                     const std::vector<const row*>& by_index, merged_grid& m) {
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    row r = *by_index[i];
    const csv_block* owner = group.front();
    for (const csv_block* b : group)
      if (i % b->part.count == b->part.index - 1) owner = b;
    const std::string& accelerator = owner->accelerators[r.config.accelerator];
    const auto found = std::find(m.accelerators.begin(), m.accelerators.end(), accelerator);
    r.config.accelerator = static_cast<std::size_t>(found - m.accelerators.begin());
    if (found == m.accelerators.end()) m.accelerators.push_back(accelerator);
    m.rows.push_back(std::move(r));
  }
}

}  // namespace detail

/// Merges blocks (shards, or whole runs) by fingerprint. Each grid must be complete: every
/// shard k of n exactly once, all written by the same version, and every configuration
/// index 0..N−1 present exactly once in the shard that owns it (index mod n = k − 1).
/// A domain outcome: a missing, duplicated or foreign shard is reported, never thrown.
[[nodiscard]] inline merge_result merge(std::span<const csv_block> blocks) {
  merge_result out;
  for (const auto& group : detail::group_by_fingerprint(blocks)) {
    const csv_block& first = *group.front();
    std::vector<const row*> by_index(first.configurations, nullptr);
    const std::string why = detail::index_rows(group, by_index);
    if (!why.empty()) {
      out.error = "grid '" + first.plan_name + "' (model " + first.model_name + "): " + why;
      return out;
    }
    merged_grid m{.plan_name = first.plan_name,
                  .model_name = first.model_name,
                  .fingerprint = first.fingerprint,
                  .configurations = first.configurations};
    detail::assemble(group, by_index, m);
    out.grids.push_back(std::move(m));
  }
  return out;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

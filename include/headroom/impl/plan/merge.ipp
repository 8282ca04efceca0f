// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/merge.hpp's non-template functions: included at the end of that
// header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/merge.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL std::vector<std::vector<const csv_block*>> group_by_fingerprint(
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

HEADROOM_DECL std::string index_rows(const std::vector<const csv_block*>& group,
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

HEADROOM_DECL void assemble(const std::vector<const csv_block*>& group,
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
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL merge_result merge(std::span<const csv_block> blocks) {
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

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/scorers.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/scorers.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {

HEADROOM_DECL auto locality_scorer::score_all(const cluster_view& v,
                                              std::span<const candidate> items,
                                              std::span<double> out) const noexcept -> void {
  const std::size_t at = v.dense.offset_of(items);
  if (at == detail::view_dense_copies::no_offset || v.dense.worker_files.empty() ||
      (v.has_draft && v.draft_ready_somewhere)) {
    for (std::size_t i = 0; i < items.size(); ++i) out[i] = score(v, items[i]);
    return;
  }
  const std::uint32_t* const worker = v.dense.candidate_worker.data() + at;
  const std::uint8_t* const files = v.dense.worker_files.data();
  const double by_files[2] = {0.0, max_score};  // a lookup, not a branch on the files
  for (std::size_t i = 0; i < items.size(); ++i) out[i] = by_files[files[worker[i]] & 1u];
}

HEADROOM_DECL auto best_fit_scorer::score_all(const cluster_view& v,
                                              std::span<const candidate> items,
                                              std::span<double> out) const noexcept -> void {
  const std::size_t at = v.dense.offset_of(items);
  if (at == detail::view_dense_copies::no_offset) {
    for (std::size_t i = 0; i < items.size(); ++i) out[i] = score(v, items[i]);
    return;
  }
  const double* const left = v.dense.candidate_vram_left_bytes.data() + at;
  for (std::size_t i = 0; i < items.size(); ++i) out[i] = -left[i] / static_cast<double>(gib_bytes);
}

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/view.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/view.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

HEADROOM_DECL auto view_dense_copies::offset_of(std::span<const candidate> items) const noexcept
    -> std::size_t {
  if (items.empty() || candidates.empty() || candidate_worker.size() != candidates.size() ||
      candidate_vram_left_bytes.size() != candidates.size())
    return no_offset;
  // Addresses as integers: a total order even between unrelated objects.
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(candidates.data());
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(items.data());
  const std::uintptr_t bytes = at - first;  // wraps when items lie before
  if (bytes % sizeof(candidate) != 0) return no_offset;
  const std::size_t i = bytes / sizeof(candidate);
  return i < candidates.size() && items.size() <= candidates.size() - i ? i : no_offset;
}

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/scheduler/archetypes.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../scheduler/archetypes.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace archetypes {

HEADROOM_DECL worker::worker(std::uint64_t id, std::uint64_t ram, std::vector<gpu> gpus,
                             worker_state state, std::vector<label> labels,
                             std::vector<std::uint64_t> files)
    : id_(id),
      ram_(ram),
      gpus_(std::move(gpus)),
      state_(state),
      labels_(std::move(labels)),
      files_(std::move(files)) {}

HEADROOM_DECL instance::instance(std::uint64_t id, std::uint64_t model,
                                 std::optional<std::uint64_t> worker, std::vector<claim> gpus,
                                 std::uint64_t ram, instance_state state,
                                 std::vector<subordinate> subs)
    : id_(id),
      model_(model),
      worker_(worker),
      gpus_(std::move(gpus)),
      ram_(ram),
      state_(state),
      subs_(std::move(subs)) {}

}  // namespace archetypes
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

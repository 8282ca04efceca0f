// SPDX-License-Identifier: Apache-2.0
// Each HPA metric's own proposal for one input: what computeReplicasForMetrics
// (pkg/controller/podautoscaler/horizontal.go) computes per metric before it keeps the
// largest, for dashboards and the exposition page (prometheus/exposition.hpp).
// docs/autoscaler.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "config.hpp"
#include "inputs.hpp"
#include "replica_calculator.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail

/// Each of config.metrics' proposals for `in` (index-aligned; nullopt: the metric failed,
/// as a missing observation, no pods or no samples), at the current replica count
/// `current_replicas` (autoscaler_decision::current_replicas of the same step), with the
/// config's tolerances and reserve. The largest is the step's raw recommendation when no
/// forecast is larger. `config` must be one the autoscaler accepted.
[[nodiscard]] HEADROOM_DECL std::vector<std::optional<std::int32_t>> metric_proposals(
    const autoscaler_config& config, const autoscaler_input& in, std::int32_t current_replicas);

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/proposals.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

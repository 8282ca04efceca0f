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
[[nodiscard]] inline std::vector<std::optional<std::int32_t>> metric_proposals(
    const autoscaler_config& config, const autoscaler_input& in, std::int32_t current_replicas) {
  std::vector<std::optional<std::int32_t>> out;
  out.reserve(config.metrics.size());
  const detail::tolerances tol{config.scale_up_tolerance, config.scale_down_tolerance};
  static constexpr metric_observation missing{};
  for (std::size_t i = 0; i < config.metrics.size(); ++i) {
    const metric_observation& o = i < in.metrics.size() ? in.metrics[i] : missing;
    const detail::proposal p =
        detail::propose(detail::resolve_metric(config.metrics[i]), o, in.replicas, current_replicas,
                        tol, config.reserve_replicas);
    out.push_back(p.valid ? std::optional<std::int32_t>(p.replicas) : std::nullopt);
  }
  return out;
}

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

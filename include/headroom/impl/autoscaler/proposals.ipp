// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/proposals.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/proposals.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {

HEADROOM_DECL std::vector<std::optional<std::int32_t>> metric_proposals(
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

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/config.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/config.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {

HEADROOM_DECL scaling_rules default_scale_up_rules() {
  return {.stabilization_window = std::chrono::seconds{0},
          .select = select_policy::max,
          .policies = {{.type = scaling_policy_type::pods,
                        .value = default_scale_up_pods,
                        .period = default_policy_period},
                       {.type = scaling_policy_type::percent,
                        .value = default_scale_percent,
                        .period = default_policy_period}}};
}

HEADROOM_DECL scaling_rules default_scale_down_rules() {
  return {.stabilization_window = std::nullopt,
          .select = select_policy::max,
          .policies = {{.type = scaling_policy_type::percent,
                        .value = default_scale_percent,
                        .period = default_policy_period}}};
}

}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

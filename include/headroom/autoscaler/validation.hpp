// SPDX-License-Identifier: Apache-2.0
// Validation of the autoscaler's configurations (internal): every field the HPA's or the
// KPA's API or flags would refuse, and the library's own ranges, throw
// headroom::invalid_argument naming the field and its value.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <string>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "arithmetic.hpp"
#include "config.hpp"
#include "inputs.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace autoscaling {
namespace detail {
using namespace ::headroom::detail;  // the autoscaler's internals call the shared ones too
}  // namespace detail
namespace detail {

/// The longest window or period accepted: a year and a day keeps every sum of times in
/// milliseconds far from overflowing (Kubernetes itself caps windows at 3600 s and periods
/// at 1800 s; kubernetes.hpp enforces those for manifests).
inline constexpr std::chrono::seconds longest_duration = std::chrono::days{366};

/// Validates one direction's rules (window, policy values and periods), naming the fields.
HEADROOM_DECL void validate_rules(const scaling_rules& rules, const char* window_name,
                                  const char* value_name, const char* period_name);

/// Refuses a target (> 0) that reading it as a quantity, in whole milli-units, would move by
/// more than quantity_target_tolerance of itself, saying what it would read as.
HEADROOM_DECL void check_quantity_target(const char* name, double target);

/// Validates an HPA configuration; throws invalid_argument naming the field and value.
HEADROOM_DECL void validate_hpa_config(const autoscaler_config& c);

/// Validates a KPA configuration as Knative's config validation does
/// (pkg/autoscaler/config/config.go validate).
HEADROOM_DECL void validate_kpa_config(const kpa_config& k);

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/autoscaler/validation.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// headroom: capacity, autoscaling, placement and cost for model-serving fleets.
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

/// Library version, semantic versioning. HEADROOM_VERSION is MAJOR*10000 + MINOR*100 + PATCH.
#define HEADROOM_VERSION_MAJOR 0
#define HEADROOM_VERSION_MINOR 1
#define HEADROOM_VERSION_PATCH 0
#define HEADROOM_VERSION \
  (HEADROOM_VERSION_MAJOR * 10000 + HEADROOM_VERSION_MINOR * 100 + HEADROOM_VERSION_PATCH)

namespace headroom {
/// The ABI namespace: every public name lives in headroom::v0 and is reached as headroom::name.
inline namespace v0 {
/// The version as a string literal, "MAJOR.MINOR.PATCH".
inline constexpr const char version_string[] = "0.1.0";
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The library's one error path. Three tiers (docs/errors.md):
//  - a broken internal precondition -> HEADROOM_ASSERT (aborts with file and line);
//  - a caller's invalid argument or configuration -> headroom::invalid_argument,
//    whose message names the parameter and its offending value;
//  - a domain outcome (unstable queue, no feasible worker, missing metric) -> a value.
// Gives headroom::invalid_argument, error_handler_fn, set_error_handler and
// HEADROOM_ASSERT, defined in detail/error.hpp (which the argument checks include).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "detail/error.hpp"
#include "version.hpp"

#endif  // HEADROOM_HAS_CXX20

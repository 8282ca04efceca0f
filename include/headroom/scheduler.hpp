// SPDX-License-Identifier: Apache-2.0
// The scheduler: places new model instances on the best workers/GPUs (scale up) and ranks
// existing instances for removal (scale down), over the caller's own types. Includes the
// headers of scheduler/ and nothing else (scheduler/archetypes.hpp, a testing aid, is
// included where it is used). Guide: docs/scheduler.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "scheduler/chain.hpp"
#include "scheduler/configured.hpp"
#include "scheduler/decision.hpp"
#include "scheduler/diagnostics.hpp"
#include "scheduler/estimators.hpp"
#include "scheduler/filters.hpp"
#include "scheduler/fit.hpp"
#include "scheduler/gpustack_fit.hpp"
#include "scheduler/presets.hpp"
#include "scheduler/scorers.hpp"
#include "scheduler/traits.hpp"
#include "scheduler/view.hpp"
#include "scheduler/workspace.hpp"
#include "scheduler/workspace_parts.hpp"

#endif  // HEADROOM_HAS_CXX20

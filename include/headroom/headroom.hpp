// SPDX-License-Identifier: Apache-2.0
// The umbrella header: includes every public header of headroom, and nothing else.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "error.hpp"
#include "version.hpp"

// measurements
#include "arrivals.hpp"
#include "capacity.hpp"
#include "measurements.hpp"
#include "queueing.hpp"
#include "traces.hpp"

// decisions
#include "autoscaler.hpp"
#include "coldstart.hpp"

// prices
#include "cost.hpp"
#include "roofline.hpp"

// placement
#include "scheduler.hpp"

// integration
#include "kubernetes.hpp"
#include "prometheus.hpp"

// composition
#include "plan.hpp"
#include "plan/calibrate.hpp"
#include "plan/csv_read.hpp"
#include "plan/csv_write.hpp"
#include "plan/fingerprint.hpp"
#include "plan/merge.hpp"
#include "plan/model_card.hpp"
#include "sim/fleet_day.hpp"
#include "sim/replica.hpp"

#endif  // HEADROOM_HAS_CXX20

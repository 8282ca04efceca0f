// SPDX-License-Identifier: Apache-2.0
// Measuring a replica's capacity μ*: per-request outcomes, an SLO, conformance over a
// window with a confidence interval that holds for requests correlated by the queue (batch
// means in arrival order; Wilson's for independent requests; independent replications),
// the capacity curve and a search for μ* that decides only what its intervals allow and
// measures more where they cannot. The method, its coverage and its pitfalls:
// docs/capacity.md.
//
// Times are std::chrono::duration<double> seconds from the run's start. Latencies are
// measured from the INTENDED arrival time (the schedule's), never from the send time, so
// a client that falls behind its schedule cannot hide the queue it built (no
// coordinated omission); the client-side delay is reported on its own.
//
// From capacity to control: target concurrency L* = ρ*·μ*·W̄ (target_concurrency) and
// replicas needed ceil(λ/(ρ*·μ*)) (replicas_needed) are queueing.hpp's, included here;
// conformance_estimate::mean_latency gives W̄ at a measured rate. Rates are requests per
// second, spelled *_per_second.
//
// This header only includes its pieces:
//   capacity/outcome.hpp      request_outcome, TTFT/TPOT/E2E, slo, meets_slo
//   capacity/conformance.hpp  conformance_estimate, wilson_interval, conformance_series,
//                             measure_conformance, replicated_conformance, pooled_conformance
//   capacity/curve.hpp        capacity_point, find_capacity
//   capacity/search.hpp       search_capacity
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "capacity/conformance.hpp"
#include "capacity/curve.hpp"
#include "capacity/outcome.hpp"
#include "capacity/search.hpp"
#include "queueing.hpp"

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The autoscaler: the Kubernetes HorizontalPodAutoscaler's decision, input for input
// (pkg/controller/podautoscaler: horizontal.go reconcileAutoscaler and its normalisation,
// replica_calculator.go, metrics/utilization.go; pkg/apis/autoscaling/v2/defaults.go), and
// the Knative KPA's (knative/serving pkg/autoscaler/scaling/autoscaler.go Scale, with the
// defaults of pkg/autoscaler/config), plus what serving models needs: replicas on their way,
// a spare-replica reserve and a feed-forward forecast.
//
// The core is pure and clock-injected: the caller passes the time, the replica counts and the
// metric observations; the controller's memory (stabilization windows, scale events, panic
// state) is a value, autoscaler_state, that the caller owns, can copy, store and restore. No
// threads, no clock reads, no allocation per step once the state is warm, and a step costs
// the same whatever the windows' length (monotone queues). docs/autoscaler.md maps every
// upstream input to ours.
//
// This header only includes; the pieces:
//   autoscaler/controller.hpp          the autoscaler class: step(state, now, input)
//   autoscaler/config.hpp              autoscaler_config (HPA), kpa_config (KPA), defaults
//   autoscaler/inputs.hpp              quantity, replica_counts, pod_sample, autoscaler_input
//   autoscaler/decision.hpp            autoscaler_decision, scale_reason, hpa_reason, conditions
//   autoscaler/state.hpp               autoscaler_state, scale_event, hpa_history
//   autoscaler/proposals.hpp           each metric's own proposal (for /metrics and logs)
// and, internal: arithmetic.hpp (Go's integer conversions), validation.hpp,
// replica_calculator.hpp (one metric to a count), windows.hpp (monotone queues),
// rate_limits.hpp (behavior policies).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "autoscaler/config.hpp"
#include "autoscaler/controller.hpp"
#include "autoscaler/decision.hpp"
#include "autoscaler/inputs.hpp"
#include "autoscaler/proposals.hpp"
#include "autoscaler/state.hpp"

#endif  // HEADROOM_HAS_CXX20

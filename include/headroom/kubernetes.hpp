// SPDX-License-Identifier: Apache-2.0
// Kubernetes manifests from measured capacity: the per-replica in-flight target
// L* = ρ*·μ*·W̄ (docs/queueing.md, target_concurrency), a PromQL query for the in-flight total of
// one model, and YAML for an autoscaling/v2 HorizontalPodAutoscaler and a KEDA (keda.sh/v1alpha1)
// ScaledObject whose min/max replicas, targets and behavior are those of a
// headroom::autoscaling::autoscaler_config, so the cluster's HPA and the library's controller
// decide alike. See docs/integrations.md.
//
// Output: writers append YAML text to a std::string (no streams). Field names are the APIs'
// own; strings that YAML could misread (numbers, booleans, anything with ':' or '"') are
// quoted; numbers that the APIs type as quantities or strings are quoted decimals ("51",
// "51.2"), which both Kubernetes quantities and KEDA's float-parsed thresholds accept.
//
// Errors: names Kubernetes would reject (not DNS-1123), empty names, non-positive targets,
// settings the APIs cannot express (an Object metric without its described object, a window
// over the API's cap) throw headroom::invalid_argument naming the parameter. Library-only
// settings that change no field (reserve_replicas, ...) are kept as YAML comments.
//
// Pieces: kubernetes/target.hpp (in_flight_target, in_flight_query, the names Kubernetes
// validates), kubernetes/manifest.hpp (scaled_workload, omission; the target cluster is the
// configuration's own autoscaler_config::kubernetes, shared with the controller),
// kubernetes/hpa.hpp, kubernetes/keda.hpp and kubernetes/yaml.hpp (the YAML writer).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "kubernetes/hpa.hpp"
#include "kubernetes/keda.hpp"
#include "kubernetes/manifest.hpp"
#include "kubernetes/target.hpp"
#include "kubernetes/yaml.hpp"

#endif  // HEADROOM_HAS_CXX20

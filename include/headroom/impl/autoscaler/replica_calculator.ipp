// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/autoscaler/replica_calculator.hpp's non-template functions: included
// at the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../autoscaler/replica_calculator.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace autoscaling {
namespace detail {

HEADROOM_DECL resolved_metric resolve_metric(const metric_spec& m) {
  const bool resource =
      m.source == metric_source::resource || m.source == metric_source::container_resource;
  resolved_metric r{.source = m.source,
                    .target_type = m.target_type,
                    .cpu = resource && m.name == "cpu",
                    .failure = failure_reason(m.source)};
  if (m.target_type == metric_target_type::utilization)
    r.target_percent = static_cast<std::int32_t>(m.target);
  else
    r.target_milli = to_quantity(m.target)->milli;
  return r;
}

HEADROOM_IMPL_INLINE proposal propose_total(const resolved_metric& m,
                                            const std::optional<quantity>& value,
                                            const replica_counts& n, std::int32_t current,
                                            tolerances tol, std::int32_t reserve) noexcept {
  if (!value) return {};
  const std::int32_t k = reserve;
  const double usage = static_cast<double>(value->milli);
  const double target = static_cast<double>(m.target_milli);
  if (m.target_type == metric_target_type::value) {
    const double ratio = usage / target;
    if (current - k > 0) {
      if (tol.within(ratio)) return hold_at(current);
      if (n.status == 0) return {};  // getReadyPodsCount: "no pods returned by selector"
      const double replicas = ratio * static_cast<double>(std::max(0, n.ready - k));
      if (replicas > static_cast<double>(replicas_max))
        return ask_for(plus_reserve(replicas_max, reserve));
      return ask_for(plus_reserve(to_int32(std::ceil(replicas)), reserve));
    }
    return ask_for(plus_reserve(to_int32(std::ceil(ratio)), reserve));
  }
  const std::int32_t status_net = std::max(0, n.status - k);
  const double ratio = usage / (target * static_cast<double>(status_net));
  if (tol.within(ratio)) return hold_at(plus_reserve(status_net, reserve));
  const double replicas = std::ceil(usage / target);
  if (replicas > static_cast<double>(replicas_max))
    return ask_for(plus_reserve(replicas_max, reserve));
  return ask_for(plus_reserve(to_int32(replicas), reserve));
}

HEADROOM_IMPL_INLINE proposal propose_per_pod(const resolved_metric& m,
                                              std::span<const pod_sample> pods,
                                              std::int32_t current, tolerances tol,
                                              std::int32_t reserve) noexcept {
  if (pods.empty()) return {};  // "no pods returned by selector"
  const bool utilization = m.target_type == metric_target_type::utilization;
  const std::int64_t fallback_percent = std::max<std::int64_t>(percent, m.target_percent);
  std::int64_t sum = 0, requests = 0, ready = 0;
  std::int64_t missing = 0, missing_requests = 0, missing_fallback = 0;
  std::int64_t unready = 0, unready_requests = 0;
  for (const auto& p : pods) {
    const std::int64_t request = p.request.milli;
    if (p.status == pod_status::terminated) continue;  // ignoredPods
    if (p.status == pod_status::pending) {             // unreadyPods
      ++unready;
      unready_requests = add_saturated(unready_requests, request);
      continue;
    }
    if (!p.value) {  // missingPods
      ++missing;
      missing_requests = add_saturated(missing_requests, request);
      missing_fallback =
          add_saturated(missing_fallback, mul_saturated(request, fallback_percent) / percent);
      continue;
    }
    if (m.cpu && p.status == pod_status::cpu_unready) {
      ++unready;
      unready_requests = add_saturated(unready_requests, request);
      continue;
    }
    ++ready;
    sum = add_saturated(sum, p.value->milli);
    requests = add_saturated(requests, request);
  }
  if (ready == 0) return {};                    // "did not receive metrics for targeted pods"
  if (utilization && requests == 0) return {};  // "no metrics returned matched known pods"
  const auto ratio_of = [&](std::int64_t s, std::int64_t r, std::int64_t count) noexcept {
    if (utilization) {
      const std::int64_t used = saturate(mul_saturated(s, percent) / r);
      return static_cast<double>(used) / static_cast<double>(m.target_percent);
    }
    return static_cast<double>(s / count) / static_cast<double>(m.target_milli);
  };
  const double ratio = ratio_of(sum, requests, ready);
  const bool up_with_unready = unready > 0 && ratio > 1.0;
  if (!up_with_unready && missing == 0) {
    if (tol.within(ratio)) return hold_at(current);
    return ask_for(plus_reserve(to_int32(std::ceil(ratio * static_cast<double>(ready))), reserve));
  }
  std::int64_t sum2 = sum, requests2 = requests, count2 = ready;
  if (missing > 0 && ratio != 1.0) {
    if (ratio < 1.0)
      sum2 = add_saturated(sum2,
                           utilization ? missing_fallback : mul_saturated(missing, m.target_milli));
    requests2 = add_saturated(requests2, missing_requests);
    count2 += missing;
  }
  if (up_with_unready) {
    requests2 = add_saturated(requests2, unready_requests);
    count2 += unready;
  }
  const double new_ratio = ratio_of(sum2, requests2, count2);
  if (tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0))
    return hold_at(current);
  const std::int32_t replicas = to_int32(std::ceil(new_ratio * static_cast<double>(count2)));
  if ((new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current))
    return hold_at(current);
  return ask_for(plus_reserve(replicas, reserve));
}

HEADROOM_IMPL_INLINE proposal propose(const resolved_metric& m, const metric_observation& o,
                                      const replica_counts& n, std::int32_t current, tolerances tol,
                                      std::int32_t reserve) noexcept {
  switch (m.source) {
    case metric_source::object:
    case metric_source::external:
      return propose_total(m, o.value, n, current, tol, reserve);
    case metric_source::resource:
    case metric_source::container_resource:
    case metric_source::pods:
      break;
  }
  return propose_per_pod(m, o.pods, current, tol, reserve);
}

}  // namespace detail
}  // namespace autoscaling
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Tests of headroom/autoscaler.hpp. Expected values come from upstream: the Kubernetes HPA
// (kubernetes/kubernetes pkg/controller/podautoscaler: horizontal.go, replica_calculator.go,
// metrics/utilization.go, and their tests horizontal_test.go / replica_calculator_test.go;
// pkg/apis/autoscaling/v2/defaults.go) and the Knative KPA (knative/serving
// pkg/autoscaler/scaling/autoscaler.go and autoscaler_test.go, pkg/autoscaler/config), each
// case naming its origin; from hand calculations shown in the comments; from differential
// vectors in tests/data/autoscaler/ (format and origin described above their reader below);
// and from the reference day program of docs/simulated-day.md.
#include <headroom/autoscaler.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef HEADROOM_TEST_DATA_DIR
#error "HEADROOM_TEST_DATA_DIR must name the absolute path of tests/data"
#endif

namespace {

using namespace std::chrono_literals;
using headroom::autoscaling::autoscaler;
using headroom::autoscaling::autoscaler_config;
using headroom::autoscaling::autoscaler_decision;
using headroom::autoscaling::autoscaler_input;
using headroom::autoscaling::autoscaler_state;
using headroom::autoscaling::condition_status;
using headroom::autoscaling::hpa_reason;
using headroom::autoscaling::kpa_config;
using headroom::autoscaling::metric_observation;
using headroom::autoscaling::metric_source;
using headroom::autoscaling::metric_spec;
using headroom::autoscaling::metric_target_type;
using headroom::autoscaling::observe_pods;
using headroom::autoscaling::observe_value;
using headroom::autoscaling::pod_sample;
using headroom::autoscaling::pod_status;
using headroom::autoscaling::quantity;
using headroom::autoscaling::replica_counts;
using headroom::autoscaling::scale_event;
using headroom::autoscaling::scale_event_state;
using headroom::autoscaling::scale_reason;
using headroom::autoscaling::scaling_behavior;
using headroom::autoscaling::scaling_policy;
using headroom::autoscaling::scaling_policy_type;
using headroom::autoscaling::scaling_rules;
using headroom::autoscaling::select_policy;
using headroom::autoscaling::timestamped_recommendation;
using ms = std::chrono::milliseconds;

constexpr double missing_value = std::numeric_limits<double>::quiet_NaN();

metric_spec pods_metric(double target) {
  return {.name = "inflight",
          .source = metric_source::pods,
          .target_type = metric_target_type::average_value,
          .target = target};
}
metric_spec utilization_metric(double target_percent) {
  return {.name = "cpu",
          .source = metric_source::resource,
          .target_type = metric_target_type::utilization,
          .target = target_percent};
}
metric_spec external_average(double target) {
  return {.name = "rate",
          .source = metric_source::external,
          .target_type = metric_target_type::average_value,
          .target = target};
}
metric_spec external_value(double target) {
  return {.name = "queue",
          .source = metric_source::external,
          .target_type = metric_target_type::value,
          .target = target};
}

// Behavior with no rate limits and no stabilization: desired = the raw recommendation.
scaling_behavior unlimited_behavior() {
  return {.scale_up = {.stabilization_window = 0s, .select = select_policy::max, .policies = {}},
          .scale_down = {.stabilization_window = 0s, .select = select_policy::max, .policies = {}}};
}

autoscaler_config config_with(metric_spec metric, std::int32_t min_r = 1,
                              std::int32_t max_r = 100) {
  return {.min_replicas = min_r, .max_replicas = max_r, .metrics = {std::move(metric)}};
}

// spec = status = ready = n: a settled workload.
constexpr replica_counts settled(std::int32_t n) { return {.spec = n, .status = n, .ready = n}; }

// One step with one Object/External value; `starting` replicas requested but not ready.
autoscaler_decision step_total(const autoscaler& a, autoscaler_state& s, ms now, std::int32_t ready,
                               double total, std::int32_t starting = 0) {
  const metric_observation obs = observe_value(total);
  const std::int32_t requested = ready + starting;
  return a.step(
      s, now,
      {.replicas = {.spec = requested, .status = requested, .ready = ready}, .metrics = {&obs, 1}});
}

// A Running pod reporting `value` with a request of `request` (both in units).
pod_sample pod(double value, double request = 1.0, pod_status status = pod_status::running) {
  return {.value = headroom::autoscaling::to_quantity(value),
          .request = *headroom::autoscaling::to_quantity(request),
          .status = status};
}
// A Running pod without a sample (a "missing" pod).
pod_sample missing_pod(double request = 1.0) {
  return {.value = std::nullopt, .request = *headroom::autoscaling::to_quantity(request)};
}
// A Pending pod (unready: 0 on a scale-up, left out on a scale-down).
pod_sample pending_pod(double request = 1.0) {
  return {.value = std::nullopt,
          .request = *headroom::autoscaling::to_quantity(request),
          .status = pod_status::pending};
}

std::vector<pod_sample> pods_at(std::initializer_list<double> values, double request = 1.0) {
  std::vector<pod_sample> out;
  for (double v : values) out.push_back(pod(v, request));
  return out;
}

// One step with per-pod samples; spec = status = the number of non-terminated pods, ready =
// the Running ones.
autoscaler_decision step_pods(const autoscaler& a, autoscaler_state& s, ms now,
                              const std::vector<pod_sample>& pods) {
  std::int32_t existing = 0, ready = 0;
  for (const auto& p : pods) {
    existing += p.status != pod_status::terminated ? 1 : 0;
    ready += p.status == pod_status::running ? 1 : 0;
  }
  const metric_observation obs = observe_pods(pods);
  return a.step(
      s, now,
      {.replicas = {.spec = existing, .status = existing, .ready = ready}, .metrics = {&obs, 1}});
}

// The proposal of one sync from a fresh state, no windows, no rate limits.
std::int32_t one_sync(autoscaler_config c, std::int32_t current,
                      const std::vector<pod_sample>& pods, double up_tolerance = 0.1,
                      double down_tolerance = 0.1) {
  c.behavior = unlimited_behavior();
  c.scale_up_tolerance = up_tolerance;
  c.scale_down_tolerance = down_tolerance;
  c.max_replicas = 1000;
  const autoscaler a(c);
  auto s = a.initial_state();
  const metric_observation obs = observe_pods(pods);
  std::int32_t ready = 0;
  for (const auto& p : pods) ready += p.status == pod_status::running ? 1 : 0;
  return a
      .step(
          s, 0s,
          {.replicas = {.spec = current, .status = current, .ready = ready}, .metrics = {&obs, 1}})
      .desired_replicas;
}

}  // namespace

TEST_SUITE("autoscaler") {
  TEST_CASE("autoscaler: target 10 per replica on 4 replicas") {
    // 80 in flight on 4 replicas = 20 each, target 10: ratio 2, ceil(2 x 4) = 8.
    // No behavior: the scale-up limit is max(2 x 4, 4) = 8, so 8 passes.
    autoscaler a(config_with(pods_metric(10.0)));
    auto s = a.initial_state();
    auto d = step_pods(a, s, 0s, pods_at({20, 20, 20, 20}));
    CHECK(d.desired_replicas == 8);
    CHECK(d.reason == scale_reason::desired_within_range);
    CHECK(d.delta() == 4);
    // 10.5 each: ratio 1.05 <= 1 + 0.1, inside the band: nothing moves.
    s = a.initial_state();
    d = step_pods(a, s, 0s, pods_at({10.5, 10.5, 10.5, 10.5}));
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::within_tolerance);
    CHECK_FALSE(d.rescale());
    // The same 80 as an External AverageValue total: band test 80/(10 x 4) = 2, then
    // ceil(80/10) = 8.
    autoscaler total(config_with(external_average(10.0)));
    s = total.initial_state();
    CHECK(step_total(total, s, 0s, 4, 80.0).desired_replicas == 8);
  }

  TEST_CASE("autoscaler: default scale-up limit without behavior is max(2n / 4)") {
    autoscaler a(config_with(pods_metric(10.0)));
    auto s = a.initial_state();
    // 3 replicas at 100 each: raw ceil(10 x 3) = 30; limit max(6, 4) = 6.
    auto d = step_pods(a, s, 0s, pods_at({100, 100, 100}));
    CHECK(d.raw_recommendation == 30);
    CHECK(d.desired_replicas == 6);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // 1 replica at 100: raw 10; limit max(2, 4) = 4.
    s = a.initial_state();
    CHECK(step_pods(a, s, 0s, pods_at({100})).desired_replicas == 4);
    // max_replicas 5 < limit 6: capped by max, reason TooManyReplicas.
    autoscaler capped(config_with(pods_metric(10.0), 1, 5));
    s = capped.initial_state();
    d = step_pods(capped, s, 0s, pods_at({100, 100, 100}));
    CHECK(d.desired_replicas == 5);
    CHECK(d.reason == scale_reason::too_many_replicas);
  }

  TEST_CASE("autoscaler: default behavior scale-up is Max(Pods 4 / Percent 100) per 15 s") {
    auto c = config_with(pods_metric(10.0));
    c.behavior = scaling_behavior{};
    autoscaler a(c);
    auto s = a.initial_state();
    // t=0: 3 replicas, raw 30. start = 3: Pods 3+4 = 7, Percent ceil(3 x 2) = 6, Max -> 7.
    auto d = step_pods(a, s, 0s, pods_at({100, 100, 100}));
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // t=5: event +4 is 5 s old (< 15): start = 7 - 4 = 3, limit 7 again: hold.
    const auto seven = std::vector<pod_sample>(7, pod(100));
    d = step_pods(a, s, 5s, seven);
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // t=15: the event is 15 s old, not < 15: start = 7, Pods 11, Percent 14 -> 14.
    d = step_pods(a, s, 15s, seven);
    CHECK(d.desired_replicas == 14);
  }

  TEST_CASE("autoscaler: scale-down stabilization over 300 s and its boundary") {
    // External AverageValue target 10. t=0: 10 replicas, total 100: ratio 1, in band, raw 10.
    // Then total 20: raw ceil(20/10) = 2 every 15 s. The windows hold 10 (first sync and t=0).
    SUBCASE("with a behavior: a recommendation counts iff age < 300 s") {
      auto c = config_with(external_average(10.0));
      c.behavior = scaling_behavior{};  // down window unset: the 300 s flag default
      autoscaler a(c);
      CHECK(a.scale_down_window() == 300s);
      auto s = a.initial_state();
      CHECK(step_total(a, s, 0s, 10, 100.0).desired_replicas == 10);
      for (auto t = 15s; t < 300s; t += 15s) {
        const auto d = step_total(a, s, t, 10, 20.0);
        CHECK(d.raw_recommendation == 2);
        CHECK(d.desired_replicas == 10);
        CHECK(d.reason == scale_reason::scale_down_stabilized);
      }
      // t=300: the t=0 entries are exactly 300 s old, no longer < 300: down to 2. The down
      // policy Percent 100 allows trunc(10 x 0) = 0, floored by min 1.
      const auto d = step_total(a, s, 300s, 10, 20.0);
      CHECK(d.desired_replicas == 2);
      CHECK(d.reason == scale_reason::desired_within_range);
    }
    SUBCASE("without a behavior: iff age <= 300 s, one sync later") {
      autoscaler a(config_with(external_average(10.0)));
      auto s = a.initial_state();
      CHECK(step_total(a, s, 0s, 10, 100.0).desired_replicas == 10);
      for (auto t = 15s; t <= 300s; t += 15s)
        CHECK(step_total(a, s, t, 10, 20.0).desired_replicas == 10);
      CHECK(step_total(a, s, 315s, 10, 20.0).desired_replicas == 2);
    }
  }

  TEST_CASE("autoscaler: Percent rounding / ceil up and truncate down") {
    auto c = config_with(external_average(1.0));
    c.behavior = scaling_behavior{
        .scale_up =
            scaling_rules{
                .stabilization_window = 0s,
                .select = select_policy::max,
                .policies = {{.type = scaling_policy_type::percent, .value = 50, .period = 60s}}},
        .scale_down = scaling_rules{
            .stabilization_window = 0s,
            .select = select_policy::max,
            .policies = {{.type = scaling_policy_type::percent, .value = 50, .period = 60s}}}};
    autoscaler a(c);
    auto s = a.initial_state();
    // Up from 3 by 50 %: ceil(3 x 1.5) = ceil(4.5) = 5.
    auto d = step_total(a, s, 0s, 3, 100.0);
    CHECK(d.desired_replicas == 5);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // Down from 5 by 50 %: trunc(5 x 0.5) = trunc(2.5) = 2 (fresh state: no events).
    s = a.initial_state();
    d = step_total(a, s, 0s, 5, 1.0);
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::scale_down_limited);
    // Ceil lets a small percent grow 1 replica: 1 x 1.1 -> 2; truncation: 3 x 0.9 = 2.7 -> 2.
    c.behavior->scale_up.policies = {
        {.type = scaling_policy_type::percent, .value = 10, .period = 60s}};
    c.behavior->scale_down.policies = {
        {.type = scaling_policy_type::percent, .value = 10, .period = 60s}};
    autoscaler small(c);
    s = small.initial_state();
    CHECK(step_total(small, s, 0s, 1, 100.0).desired_replicas == 2);
    s = small.initial_state();
    CHECK(step_total(small, s, 0s, 3, 1.0).desired_replicas == 2);
  }

  TEST_CASE("autoscaler: selectPolicy Max / Min and Disabled in both directions") {
    // Up from 10, policies Pods 4 and Percent 100 per 15 s: proposals 14 and 20.
    // Down from 10, policies Pods 4 and Percent 50 per 15 s: proposals 6 and 5.
    const auto run = [](select_policy up, select_policy down, std::int32_t ready, double total) {
      auto c = config_with(external_average(1.0));
      c.behavior = scaling_behavior{
          .scale_up =
              scaling_rules{
                  .stabilization_window = 0s,
                  .select = up,
                  .policies = {{.type = scaling_policy_type::pods, .value = 4, .period = 15s},
                               {.type = scaling_policy_type::percent,
                                .value = 100,
                                .period = 15s}}},
          .scale_down = scaling_rules{
              .stabilization_window = 0s,
              .select = down,
              .policies = {{.type = scaling_policy_type::pods, .value = 4, .period = 15s},
                           {.type = scaling_policy_type::percent, .value = 50, .period = 15s}}}};
      autoscaler a(c);
      auto s = a.initial_state();
      return step_total(a, s, 0s, ready, total);
    };
    CHECK(run(select_policy::max, select_policy::max, 10, 100.0).desired_replicas == 20);
    CHECK(run(select_policy::min, select_policy::max, 10, 100.0).desired_replicas == 14);
    auto d = run(select_policy::disabled, select_policy::max, 10, 100.0);
    CHECK(d.desired_replicas == 10);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // Max = largest change = lowest count (5); Min = smallest change (6).
    CHECK(run(select_policy::max, select_policy::max, 10, 1.0).desired_replicas == 5);
    CHECK(run(select_policy::max, select_policy::min, 10, 1.0).desired_replicas == 6);
    d = run(select_policy::max, select_policy::disabled, 10, 1.0);
    CHECK(d.desired_replicas == 10);
    CHECK(d.reason == scale_reason::scale_down_limited);
  }

  TEST_CASE("autoscaler: period start accounts for earlier scale events in both directions") {
    auto c = config_with(external_average(1.0));
    c.behavior = scaling_behavior{
        .scale_up =
            scaling_rules{
                .stabilization_window = 0s,
                .select = select_policy::max,
                .policies = {{.type = scaling_policy_type::pods, .value = 2, .period = 60s}}},
        .scale_down = scaling_rules{
            .stabilization_window = 0s,
            .select = select_policy::max,
            .policies = {{.type = scaling_policy_type::pods, .value = 1, .period = 60s}}}};
    autoscaler a(c);
    auto s = a.initial_state();
    // t=0: 10 -> raw 1; down limit 10 - 1 = 9.  Event: -1 at 0.
    CHECK(step_total(a, s, 0s, 10, 1.0).desired_replicas == 9);
    // t=30: 9, raw 100. start = 9 - 0 (ups) + 1 (downs) = 10, limit 12.  Event: +3 at 30.
    CHECK(step_total(a, s, 30s, 9, 100.0).desired_replicas == 12);
    // t=45: start = 12 - 3 + 1 = 10, limit 12 = current: hold.
    auto d = step_total(a, s, 45s, 12, 100.0);
    CHECK(d.desired_replicas == 12);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // t=60: the -1 is 60 s old (not < 60): start = 12 - 3 = 9, limit 11 < current: hold at 12.
    CHECK(step_total(a, s, 60s, 12, 100.0).desired_replicas == 12);
    // t=90: the +3 is 60 s old: start = 12, limit 14.
    CHECK(step_total(a, s, 90s, 12, 100.0).desired_replicas == 14);
  }

  TEST_CASE("autoscaler: missing and pending pods follow the HPA's rules") {
    // Pods metric target 10, no rate limits or windows, so desired = raw.
    const auto c = config_with(pods_metric(10.0));
    const auto run = [&](const std::vector<pod_sample>& v) { return one_sync(c, 4, v); };
    // Scale down with a missing pod: ratio 5/10 = 0.5; missing counts as the target (10):
    // (5+5+5+10)/4 = 6.25 -> 0.625; ceil(0.625 x 4) = ceil(2.5) = 3.
    CHECK(run({pod(5), pod(5), pod(5), missing_pod()}) == 3);
    // Scale up with a missing pod: ratio 2; missing counts as 0: 60/4 = 15 -> 1.5;
    // ceil(1.5 x 4) = 6; two missing: 40/4 = 10 -> ratio 1.0, inside the band: hold 4.
    CHECK(run({pod(20), pod(20), pod(20), missing_pod()}) == 6);
    CHECK(run({pod(20), pod(20), missing_pod(), missing_pod()}) == 4);
    // Pending on a scale up counts as 0: 3 x 20 + 0 over 4 = 15 -> ceil(6) = 6; two pending:
    // 40/4 = 10 -> in band, hold 4.
    CHECK(run({pod(20), pod(20), pod(20), pending_pod()}) == 6);
    CHECK(run({pod(20), pod(20), pending_pod(), pending_pod()}) == 4);
    // Pending on a scale down stays excluded: ratio 0.5 over the 2 ready: ceil(1) = 1.
    CHECK(run({pod(5), pod(5), pending_pod(), pending_pod()}) == 1);
    // Direction flip: 11.5 is a scale up (1.15) but with 3 missing at 0 the average is
    // 11.5/4 = 2.875 (ratio 0.2875 < 1): hold.
    CHECK(run({pod(11.5), missing_pod(), missing_pod(), missing_pod()}) == 4);
    // No pod reported: the metric fails (FailedGetPodsMetric), hold.
    auto cc = c;
    cc.behavior = unlimited_behavior();
    const autoscaler a(cc);
    auto s = a.initial_state();
    const auto d = step_pods(a, s, 0s, {pending_pod(), pending_pod()});
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.first_failed_metric == 0);
    CHECK(d.conditions.scaling_active.status == condition_status::is_false);
    CHECK(d.conditions.scaling_active.reason == hpa_reason::failed_get_pods_metric);
  }

  TEST_CASE("autoscaler: utilization fallback max(target / 100 %) and integer truncation") {
    // Every pod requests 1 (1000m), so usage u is u x 100 % of its request.
    // Target 150 %: 3 at 60 % (ratio 0.4), one missing counted at 1000m x max(150, 100)/100 =
    // 1500m: (1800 + 1500) x 100 / 4000 = 82 % -> 82/150 = 0.5467; ceil(0.5467 x 4) = 3.
    // (A fallback of 100 % would give 70 % -> ceil(1.87) = 2.)
    CHECK(one_sync(config_with(utilization_metric(150.0)), 4,
                   {pod(0.6), pod(0.6), pod(0.6), missing_pod()}) == 3);
    // Target 50 % (< 100): 4 at 10 % (ratio 0.2), one missing counted at 100 %:
    // 1400 x 100 / 5000 = 28 % -> 0.56; ceil(0.56 x 5) = ceil(2.8) = 3. (Counting it at the
    // target, 50 %, would give 18 % -> ceil(1.8) = 2.)
    CHECK(one_sync(config_with(utilization_metric(50.0)), 5,
                   {pod(0.1), pod(0.1), pod(0.1), pod(0.1), missing_pod()}) == 3);
    // Target 50 %: 550m, 550m, 560m of 1000m -> 1660 x 100 / 3000 = 55 % (truncated from
    // 55.33) -> ratio 1.1, inside the band. Untruncated, 1.1067 > 1.1 would ask 4.
    autoscaler fifty(config_with(utilization_metric(50.0)));
    auto s = fifty.initial_state();
    CHECK(step_pods(fifty, s, 0s, pods_at({0.55, 0.55, 0.56})).desired_replicas == 3);
    // Pods metric averages are truncated to milli-units: target 1, samples 1.100, 1.100,
    // 1.101 -> 3301/3 = 1100 milli -> ratio 1.1, in band (untruncated 1.1003 is not).
    autoscaler milli(config_with(pods_metric(1.0)));
    s = milli.initial_state();
    CHECK(step_pods(milli, s, 0s, pods_at({1.100, 1.100, 1.101})).desired_replicas == 3);
  }

  TEST_CASE("autoscaler: from zero only after the HPA scaled to zero itself") {
    // horizontal.go reconcileAutoscaler / shouldComputeMetricsForZeroReplicas: at 0 replicas
    // the HPA computes metrics only when its ScaledToZero condition is True (it scaled the
    // workload to zero itself) and an Object/External metric exists; otherwise
    // ScalingDisabled.
    auto c = config_with(external_average(5.0), 0, 100);
    autoscaler a(c);
    auto s = a.initial_state();
    auto d = step_total(a, s, 0s, 0, 12.0);
    CHECK(d.desired_replicas == 0);
    CHECK(d.reason == scale_reason::scaling_disabled);
    CHECK(d.conditions.scaling_active ==
          headroom::autoscaling::hpa_condition{.status = condition_status::is_false,
                                               .reason = hpa_reason::scaling_disabled});
    // A history saying the controller set 0 itself: 0 replicas, total 12, target 5:
    // ceil(12/5) = ceil(2.4) = 3 (limit max(0, 4) = 4).
    s = a.initial_state(-15s, 0);
    CHECK(s.scaled_to_zero == condition_status::is_true);
    d = step_total(a, s, 0s, 0, 12.0);
    CHECK(d.desired_replicas == 3);
    CHECK(d.conditions.scaled_to_zero.reason == hpa_reason::not_scaled_to_zero);
    // Nothing to do: total 0 at 0 replicas stays 0.
    s = a.initial_state(-15s, 0);
    CHECK(step_total(a, s, 0s, 0, 0.0).desired_replicas == 0);
    // Value target 5 from zero: ceil(12/5) = 3, no tolerance test.
    autoscaler v(config_with(external_value(5.0), 0, 100));
    s = v.initial_state(-15s, 0);
    CHECK(step_total(v, s, 0s, 0, 12.0).desired_replicas == 3);
    // Value with replicas: ratio 12/5 = 2.4 times the ready count 2 -> ceil(4.8) = 5.
    s = v.initial_state();
    CHECK(step_total(v, s, 0s, 2, 12.0).desired_replicas == 4);  // no behavior: max(2x2, 4) = 4
    // Scale to zero: 2 replicas, total 0 -> ceil(0) = 0; no windows or limits in the way. The
    // HPA then sets ScaledToZero=True, and may scale up from zero on the next sync.
    c.behavior = unlimited_behavior();
    autoscaler zero(c);
    s = zero.initial_state();
    d = step_total(zero, s, 0s, 2, 0.0);
    CHECK(d.desired_replicas == 0);
    CHECK(d.conditions.scaled_to_zero ==
          headroom::autoscaling::hpa_condition{.status = condition_status::is_true,
                                               .reason = hpa_reason::scaled_to_zero});
    CHECK(step_total(zero, s, 15s, 0, 12.0).desired_replicas == 3);
  }

  TEST_CASE("autoscaler: several metrics take the max and hold when one fails") {
    auto c = config_with(external_average(10.0));
    c.metrics.push_back(external_average(10.0));
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    const auto run = [&](double first, double second) {
      auto s = a.initial_state();
      const std::array<metric_observation, 2> obs{observe_value(first), observe_value(second)};
      return a.step(s, 0s, {.replicas = settled(4), .metrics = obs});
    };
    // ceil(80/10) = 8 and ceil(40/10) = 4: max 8 from metric 0.
    auto d = run(80.0, 40.0);
    CHECK(d.desired_replicas == 8);
    CHECK(d.metric_index == 0);
    // First missing, second asks 8 >= 4: scale, and say which failed.
    d = run(missing_value, 80.0);
    CHECK(d.desired_replicas == 8);
    CHECK(d.failed_metrics == 1);
    CHECK(d.first_failed_metric == 0);
    CHECK(d.conditions.scaling_active.reason == hpa_reason::valid_metric_found);
    // First missing, second asks ceil(10/10) = 1 < 4: hold, metric 0 missing.
    d = run(missing_value, 10.0);
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.metric_index == 0);
    CHECK(d.conditions.scaling_active.reason == hpa_reason::failed_get_external_metric);
    // All missing (NaN, infinity): hold.
    d = run(missing_value, std::numeric_limits<double>::infinity());
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::metric_missing);
    // A shorter observation span leaves metric 1 missing; no observations at all: hold.
    auto s = a.initial_state();
    const metric_observation one = observe_value(10.0);
    CHECK(a.step(s, 0s, {.replicas = settled(4), .metrics = {&one, 1}}).reason ==
          scale_reason::metric_missing);
    CHECK(a.step(s, 1s, {.replicas = settled(4)}).reason == scale_reason::metric_missing);
    // A failed sync stores nothing: only the initial {4 at 0} is in the windows.
    CHECK(s.window_entries() == 1);
  }

  TEST_CASE("autoscaler: min/max clamping rules before the metrics") {
    autoscaler a(config_with(external_average(10.0), 2, 5));
    auto s = a.initial_state();
    auto d = step_total(a, s, 0s, 8, missing_value);  // metrics not read
    CHECK(d.desired_replicas == 5);
    CHECK(d.reason == scale_reason::above_max_replicas);
    CHECK(d.conditions.able_to_scale.reason == hpa_reason::succeeded_rescale);
    CHECK(d.conditions.scaling_active.status == condition_status::unset);  // not read
    d = step_total(a, s, 15s, 1, missing_value);
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::below_min_replicas);
    d = step_total(a, s, 30s, 0, 1000.0);  // current 0 with min 2: scaling disabled
    CHECK(d.desired_replicas == 0);
    CHECK(d.reason == scale_reason::scaling_disabled);
    // Metric asks 1 with min 2: TooFewReplicas (down window 0 through a behavior).
    auto c = config_with(external_average(10.0), 2, 5);
    c.behavior = unlimited_behavior();
    autoscaler b(c);
    s = b.initial_state();
    d = step_total(b, s, 0s, 4, 1.0);
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::too_few_replicas);
    CHECK(d.conditions.scaling_limited ==
          headroom::autoscaling::hpa_condition{.status = condition_status::is_true,
                                               .reason = hpa_reason::too_few_replicas});
  }

  TEST_CASE("autoscaler: invalid configuration names the parameter") {
    const auto parameter_of = [](autoscaler_config c) -> std::string {
      return headroom::test::rejected([&] { autoscaler a(std::move(c)); });
    };
    auto base = config_with(external_average(10.0));
    CHECK(parameter_of(base).empty());
    auto c = base;
    c.min_replicas = 6;
    c.max_replicas = 5;
    CHECK(parameter_of(c) == "config.min_replicas");
    c = base;
    c.metrics.clear();
    CHECK(parameter_of(c) == "config.metrics");
    c = base;
    c.metrics[0].target = 0.0;
    CHECK(parameter_of(c) == "config.metrics.target");
    c = base;
    c.metrics[0].target = missing_value;
    CHECK(parameter_of(c) == "config.metrics.target");
    c = config_with(utilization_metric(70.5));  // averageUtilization is a whole percent
    CHECK(parameter_of(c) == "config.metrics.target");
    c = base;
    c.scale_up_tolerance = -0.1;
    CHECK(parameter_of(c) == "config.scale_up_tolerance");
    c = base;
    c.scale_down_tolerance = missing_value;
    CHECK(parameter_of(c) == "config.scale_down_tolerance");
    c = config_with(pods_metric(10.0), 0, 5);  // scale to zero needs object/external
    CHECK(parameter_of(c) == "config.min_replicas");
    c = config_with(metric_spec{.name = "x",
                                .source = metric_source::pods,
                                .target_type = metric_target_type::value,
                                .target = 1.0});
    CHECK(parameter_of(c) == "config.metrics.target_type");
    c = config_with(metric_spec{.name = "x",
                                .source = metric_source::pods,
                                .target_type = metric_target_type::utilization,
                                .target = 50.0});
    CHECK(parameter_of(c) == "config.metrics.target_type");
    c = base;
    c.behavior = scaling_behavior{};
    c.behavior->scale_down.stabilization_window = -1s;
    CHECK(parameter_of(c) == "config.behavior.scale_down.stabilization_window");
    c = base;
    c.behavior = scaling_behavior{};
    c.behavior->scale_up.policies[0].period = 0s;
    CHECK(parameter_of(c) == "config.behavior.scale_up.policies.period");
    c = base;
    c.sync_period = 0ms;
    CHECK(parameter_of(c) == "config.sync_period");
    // The message follows "name = value: requirement".
    c = base;
    c.reserve_replicas = -2;
    CHECK_THROWS_WITH_AS(autoscaler{c}, "config.reserve_replicas = -2: must be >= 0",
                         headroom::invalid_argument);
    autoscaler a(base);
    auto s = a.initial_state();
    CHECK_THROWS_AS((void)step_total(a, s, 0s, -1, 1.0), headroom::invalid_argument);
  }

  TEST_CASE("autoscaler: a target whole milli-units would change is refused") {
    // The HPA reads a target as Quantity.MilliValue(), rounded up to a whole milli-unit; more
    // than 1 % of change is refused. By hand: 0.0005 reads as 0.001 (+100 %), 0.0015 as 0.002
    // (+33 %), 0.0123 as 0.013 (+5.7 %), 0.0995 as 0.1 (+0.5 %), 0.2227 as 0.223 (+0.13 %),
    // 1.0005 as 1.001 (+0.05 %), 0.5 and 0.001 exactly.
    const auto parameter_of = [](double target) -> std::string {
      return headroom::test::rejected([&] { autoscaler a(config_with(external_average(target))); });
    };
    CHECK(parameter_of(0.0005) == "config.metrics.target");
    CHECK(parameter_of(0.0015) == "config.metrics.target");
    CHECK(parameter_of(5e-324) == "config.metrics.target");
    CHECK(parameter_of(0.0123) == "config.metrics.target");
    CHECK(parameter_of(0.0995).empty());
    CHECK(parameter_of(0.2227).empty());
    CHECK(parameter_of(1.0005).empty());
    CHECK(parameter_of(0.5).empty());
    CHECK(parameter_of(0.001).empty());
    const std::string message = headroom::test::rejection_message(
        [&] { autoscaler a(config_with(external_average(0.0005))); });
    CHECK(message.find("would hold it as 0.001") != std::string::npos);
  }

  TEST_CASE("autoscaler: tolerance per direction") {
    auto c = config_with(external_average(10.0));
    c.scale_up_tolerance = 0.0;
    c.scale_down_tolerance = 0.5;
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    auto s = a.initial_state();
    // 4 replicas, total 42: ratio 1.05 > 1 + 0: ceil(4.2) = 5.
    CHECK(step_total(a, s, 0s, 4, 42.0).desired_replicas == 5);
    // total 24: ratio 0.6 >= 1 - 0.5: hold.
    s = a.initial_state();
    const auto d = step_total(a, s, 0s, 4, 24.0);
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::within_tolerance);
  }

  TEST_CASE("autoscaler: replicas on their way are counted / or naively not") {
    auto c = config_with(external_average(10.0));
    c.behavior = unlimited_behavior();
    {
      // 2 ready + 3 starting, 50 req/s at 10 each: 5 needed, 5 already counted: no new start.
      autoscaler a(c);
      auto s = a.initial_state();
      const auto d = step_total(a, s, 0s, 2, 50.0, 3);
      CHECK(d.current_replicas == 5);
      CHECK(d.delta() == 0);
    }
    {
      // Naive: compares with the 2 ready and asks 3 more (the start-delay overshoot).
      c.count_starting_replicas = false;
      autoscaler a(c);
      auto s = a.initial_state();
      const auto d = step_total(a, s, 0s, 2, 50.0, 3);
      CHECK(d.current_replicas == 2);
      CHECK(d.delta() == 3);
      c.count_starting_replicas = true;
    }
    {
      // Hold scale-down while replicas start: 5 ready + 2 starting, total 10 -> raw 1 < 7.
      c.hold_scale_down_while_starting = true;
      autoscaler a(c);
      auto s = a.initial_state();
      auto d = step_total(a, s, 0s, 5, 10.0, 2);
      CHECK(d.desired_replicas == 7);
      CHECK(d.reason == scale_reason::waiting_for_starting);
      d = step_total(a, s, 15s, 7, 10.0, 0);  // all ready now: down to ceil(10/10) = 1
      CHECK(d.desired_replicas == 1);
    }
  }

  TEST_CASE("autoscaler: forecast and reserve feed the recommendation") {
    auto c = config_with(external_average(6.4));
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    auto s = a.initial_state();
    // Now 12 req/s -> ceil(1.875) = 2; the calendar says 42 in T_start -> ceil(6.5625) = 7.
    metric_observation obs = observe_value(12.0);
    obs.forecast = headroom::autoscaling::to_quantity(42.0);
    auto d = a.step(s, 0s, {.replicas = settled(2), .metrics = {&obs, 1}});
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::forecast);
    // No forecast value is no forecast.
    obs.forecast = std::nullopt;
    s = a.initial_state();
    CHECK(a.step(s, 0s, {.replicas = settled(2), .metrics = {&obs, 1}}).desired_replicas == 2);
    // Reserve 3: ceil(12/6.4) + 3 = 5; with 5 in place the band is tested on 5 - 3 = 2
    // (12/(6.4 x 2) = 0.94, in band): stays 5.
    c.reserve_replicas = 3;
    autoscaler r(c);
    s = r.initial_state();
    CHECK(step_total(r, s, 0s, 2, 12.0).desired_replicas == 5);
    const auto held = step_total(r, s, 60s, 5, 12.0);
    CHECK(held.desired_replicas == 5);
    CHECK(held.reason == scale_reason::within_tolerance);
  }

  TEST_CASE("autoscaler: every reason has a distinct name") {
    // all_scale_reasons holds every enumerator (its header static_asserts that against
    // to_string's exhaustive switch), so a new reason is named and checked here too.
    std::vector<std::string> names;
    for (const scale_reason r : headroom::autoscaling::all_scale_reasons)
      names.emplace_back(headroom::autoscaling::to_string(r));
    for (const auto& n : names) {
      CHECK_FALSE(n.empty());
      CHECK(n != "Unknown");
    }
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(headroom::autoscaling::to_string(scale_reason::scale_up_limited) == "ScaleUpLimit");
    CHECK(headroom::autoscaling::to_string(select_policy::disabled) == "Disabled");
    CHECK(headroom::autoscaling::to_string(metric_target_type::average_value) == "AverageValue");
    CHECK(headroom::autoscaling::to_string(metric_source::container_resource) ==
          "ContainerResource");
  }

  // ---------------------------------------------------------------------------------------
  // One regression test per difference from upstream that the differential harness found,
  // each built from upstream's rule (file and function named).
  // ---------------------------------------------------------------------------------------

  TEST_CASE("autoscaler: utilization weighs pods by request (GetResourceUtilizationRatio)") {
    // kubernetes pkg/controller/podautoscaler/metrics/utilization.go
    // GetResourceUtilizationRatio: int32(sum(usage) x 100 / sum(request)) over the pods.
    // Target 80 %, pods (request 500m, usage 1000m) and (2000m, 1000m): 2000 x 100 / 2500 =
    // 80 % -> ratio 1, keep 2. (An unweighted mean of 200 % and 50 % is 125 % -> 4.)
    const autoscaler a(config_with(utilization_metric(80.0)));
    auto s = a.initial_state();
    const auto d = step_pods(a, s, 0s, {pod(1.0, 0.5), pod(1.0, 2.0)});
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::within_tolerance);
  }

  TEST_CASE("autoscaler: upstream GetResourceReplicas vectors (replica_calculator_test.go)") {
    // TestReplicaCalcResourceScale / TestReplicaCalcResourceMissingMetrics /
    // TestReplicaCalcResourceTolerance in kubernetes replica_calculator_test.go. Each fake pod
    // has two containers, both requesting the listed request and using the listed level, so a
    // pod requests 2 x request and uses 2 x level (the ratio is unchanged); "unready" is the
    // test's CPU readiness rule verdict (see cpu_pod_status below).
    const auto cpu = [](double target) { return config_with(utilization_metric(target)); };
    const auto p = [](double level_milli, double request = 1.0,
                      pod_status st = pod_status::running) {
      return pod(2 * level_milli / 1000.0, 2 * request, st);
    };
    const auto u = [&](double level_milli) { return p(level_milli, 1.0, pod_status::cpu_unready); };
    const auto missing = [](double request = 1.0) { return missing_pod(2 * request); };
    const pod_sample failed = {.value = std::nullopt,
                               .request = quantity{.milli = 2000},
                               .status = pod_status::terminated};
    // "scale up": 300/500/700 of 1.0, target 30 % -> 50 % -> 5.
    CHECK(one_sync(cpu(30), 3, {p(300), p(500), p(700)}) == 5);
    // "scale up: unready pod scales less" -> 4; "no scale: unready pods ignored" -> 3.
    CHECK(one_sync(cpu(30), 3, {u(300), p(500), p(700)}) == 4);
    CHECK(one_sync(cpu(30), 3, {p(400), u(500), u(700)}) == 3);
    // "scale up: failed pods ignored" -> 4 (the failed pods have no metrics).
    CHECK(one_sync(cpu(30), 2, {p(500), p(700), failed, failed}) == 4);
    // "scale down": 100/300/500/250/250, target 50 % -> 28 % -> 3.
    CHECK(one_sync(cpu(50), 5, {p(100), p(300), p(500), p(250), p(250)}) == 3);
    // "scale down: exclude unready pods" -> 2; "exclude unscheduled pods" (Pending) -> 1.
    CHECK(one_sync(cpu(50), 5, {p(100), p(300), p(500), u(250), u(250)}) == 2);
    CHECK(one_sync(cpu(50), 5,
                   {p(100), pending_pod(2), pending_pod(2), pending_pod(2), pending_pod(2)}) == 1);
    // "some pods missing metrics scales down": 400, 95 of 4 pods, target 100 -> 3.
    CHECK(one_sync(cpu(100), 4, {p(400), p(95), missing(), missing()}) == 3);
    // "no change: metric equal/above/below target" with one of two pods missing -> 2.
    CHECK(one_sync(cpu(100), 2, {p(1000), missing()}) == 2);
    CHECK(one_sync(cpu(100), 2, {p(1900), missing()}) == 2);
    CHECK(one_sync(cpu(100), 2, {p(600), missing()}) == 2);
    // "no change: unready pod metric missing" -> 3; "scale up: unready pod metric missing" -> 4.
    CHECK(one_sync(cpu(50), 3, {u(100), p(450), missing()}) == 3);
    CHECK(one_sync(cpu(50), 3, {u(100), p(2000), missing()}) == 4);
    // "scale down: unready pod metric missing" -> 3.
    CHECK(one_sync(cpu(50), 4, {u(100), p(100), p(100), missing()}) == 3);
    // "scale down: target over 100": requests 1, 1, 2, 2; target 300 % -> 2.
    CHECK(one_sync(cpu(300), 4, {u(200), p(100, 1.0), p(100, 2.0), missing(2.0)}) == 2);
    // "rolling update with maxSurge: extra pod missing metric" -> 2 (direction kept).
    CHECK(one_sync(cpu(50), 2, {p(100), p(100), missing()}) == 2);
    // TestReplicaCalcResourceTolerance: requests 0.9, 1.0, 1.1, target 100 %.
    const auto mixed = [&](double a, double b, double c) {
      return std::vector<pod_sample>{p(a, 0.9), p(b, 1.0), p(c, 1.1)};
    };
    CHECK(one_sync(cpu(100), 3, mixed(1010, 1030, 1020)) == 3);             // within default
    CHECK(one_sync(cpu(100), 3, mixed(909, 1010, 1111), 0.0, 0.0) == 4);    // outside 0 %
    CHECK(one_sync(cpu(100), 3, mixed(1890, 1910, 1900), 2.0, 0.1) == 3);   // within 200 % up
    CHECK(one_sync(cpu(100), 3, mixed(1100, 1080, 1090), 0.08, 2.0) == 4);  // outside 8 % up
    CHECK(one_sync(cpu(100), 3, mixed(660, 640, 650), 0.1, 0.36) == 3);     // within 36 % down
    CHECK(one_sync(cpu(100), 3, mixed(660, 640, 650), 0.1, 0.34) == 2);     // outside 34 %
  }

  TEST_CASE("autoscaler: upstream plain and object metric vectors (replica_calculator_test.go)") {
    // TestReplicaCalcPodMetric (GetMetricReplicas -> calcPlainMetricReplicas), values in
    // milli-units as the fake custom metrics client serves them.
    const auto qps = [](double target_milli) {
      return config_with(pods_metric(target_milli / 1000));
    };
    const auto m = [](double milli, pod_status st = pod_status::running) {
      return pod(milli / 1000.0, 1.0, st);
    };
    CHECK(one_sync(qps(15000), 3, {m(20000), m(10000), m(30000)}) == 4);  // "scale up"
    CHECK(one_sync(qps(20000), 5, {m(12000), m(12000), m(12000), m(12000), m(12000)}) == 3);
    CHECK(one_sync(qps(20000), 3, {m(20000), m(21000), m(21000)}) == 3);  // within tolerance
    CHECK(one_sync(qps(20000), 3, {m(20000), m(21000), m(21000)}, 0.01, 0.1) == 4);  // 1 % up
    // "no change: missing metrics": 5 pods, 3 report 20000/19000/21000 -> ratio 1.0 -> 5.
    CHECK(one_sync(qps(20000), 5, {m(20000), m(19000), m(21000), missing_pod(), missing_pod()}) ==
          5);
    // "rolling update with maxSurge: extra pod missing metric": 2 current, 3 pods -> 2.
    CHECK(one_sync(qps(17000), 2, {m(10000), m(10000), missing_pod()}) == 2);
    // A not-ready Running pod still counts for a Pods metric: only CPU reads readiness
    // ("scale up: unready hot-CPU pod scales less": 50000, 10000, 30000 -> 30000 -> 6).
    CHECK(one_sync(qps(15000), 3, {m(50000), m(10000), m(30000, pod_status::cpu_unready)}) == 6);

    // TestReplicaCalcObjectPerPodMetric / TestReplicaCalcExternalPerPodMetric (AverageValue:
    // the band on usage / (target x status.replicas), else ceil(usage / target)).
    const auto per_pod = [](double target_milli, std::int32_t status, double usage_milli,
                            double up = 0.1) {
      auto c = config_with(external_average(target_milli / 1000));
      c.behavior = unlimited_behavior();
      c.scale_up_tolerance = up;
      const autoscaler a(c);
      auto s = a.initial_state();
      const metric_observation obs{.value =
                                       quantity{.milli = static_cast<std::int64_t>(usage_milli)}};
      return a.step(s, 0s, {.replicas = settled(status), .metrics = {&obs, 1}}).desired_replicas;
    };
    CHECK(per_pod(5000, 3, 20000) == 4);        // "scale up"
    CHECK(per_pod(2000, 5, 6000) == 3);         // "scale down"
    CHECK(per_pod(5000, 4, 20166) == 4);        // "within default tolerance"
    CHECK(per_pod(5000, 4, 20208, 0.01) == 5);  // "outside configurable 1% tolerance"
    CHECK(per_pod(2150, 3, 8600) == 4);         // external "scale up"
    CHECK(per_pod(2867, 5, 8600) == 3);         // external "scale down"
    CHECK(per_pod(2900, 3, 8600) == 3);         // external "within default tolerance"
    CHECK(per_pod(2800, 3, 8600, 0.01) == 4);   // external "outside configurable 1%"

    // TestReplicaCalcObjectMetric / TestReplicaCalcExternalMetric (Value: ceil(ratio x ready
    // pods) from spec.replicas != 0).
    const auto value = [](double target_milli, replica_counts n, std::int64_t usage_milli,
                          double up = 0.1) {
      auto c = config_with(external_value(target_milli / 1000));
      c.behavior = unlimited_behavior();
      c.max_replicas = headroom::autoscaling::detail::replicas_max;
      c.scale_up_tolerance = up;
      const autoscaler a(c);
      auto s = a.initial_state();
      const metric_observation obs{.value = quantity{.milli = usage_milli}};
      return a.step(s, 0s, {.replicas = n, .metrics = {&obs, 1}}).desired_replicas;
    };
    CHECK(value(15000, settled(3), 20000) == 4);                            // "scale up"
    CHECK(value(10000, {.spec = 3, .status = 3, .ready = 1}, 50000) == 5);  // unready ignored
    CHECK(value(20000, settled(5), 12000) == 3);                            // "scale down"
    CHECK(value(20000, settled(3), 20666) == 3);                            // within
    CHECK(value(20000, settled(3), 20666, 0.01) == 4);                      // outside 1 %
    // "scale up: very large metric saturates replicas to MaxInt32".
    CHECK(value(1, settled(3), std::numeric_limits<std::int64_t>::max()) ==
          std::numeric_limits<std::int32_t>::max());
    // External "scale down: ignores unready pods (would otherwise scale up)": 8600 / 4400
    // x 1 ready pod -> 2.
    CHECK(value(4400, {.spec = 3, .status = 3, .ready = 1}, 8600) == 2);
    CHECK(value(14334, settled(5), 8600) == 3);
  }

  TEST_CASE("autoscaler: groupPods CPU readiness rule (replica_calculator_test.go TestGroupPods)") {
    // kubernetes replica_calculator.go groupPods, with the TestGroupPods cases (CPU
    // initialization period 2 min, initial readiness delay 10 s as in the tests).
    const ms now = 1'000'000ms;
    headroom::autoscaling::cpu_readiness_facts f{
        .start_time = std::nullopt,
        .ready = headroom::autoscaling::ready_condition::absent,
        .now = now,
        .cpu_initialization_period = 120'000ms,
        .initial_readiness_delay = 10'000ms};
    // "unready a pod without ready condition - CPU".
    f.start_time = now;
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::cpu_unready);
    // "count in a ready pod with fresh metrics during initialization period - CPU": started
    // 1 min ago, Ready since 30 s, sample now with a 30 s window.
    f = {.start_time = now - 60s,
         .ready = headroom::autoscaling::ready_condition::is_true,
         .ready_transition = now - 30s,
         .sample_time = now,
         .sample_window = 30s,
         .now = now,
         .cpu_initialization_period = 120'000ms,
         .initial_readiness_delay = 10'000ms};
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::running);
    // "unready a ready pod without fresh metrics during initialization period - CPU": 60 s window.
    f.sample_window = 60s;
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::cpu_unready);
    // "unready an unready pod during initialization period - CPU": started 10 min ago, not
    // ready since 9 min 54 s (never ready within 10 s of start).
    f = {.start_time = now - 600s,
         .ready = headroom::autoscaling::ready_condition::is_false,
         .ready_transition = now - 594s,
         .now = now,
         .cpu_initialization_period = 120'000ms,
         .initial_readiness_delay = 10'000ms};
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::cpu_unready);
    // "count in a ready pod without fresh metrics after initialization period - CPU".
    f = {.start_time = now - 180s,
         .ready = headroom::autoscaling::ready_condition::is_true,
         .ready_transition = now - 180s,
         .sample_time = now - 120s,
         .sample_window = 60s,
         .now = now,
         .cpu_initialization_period = 120'000ms,
         .initial_readiness_delay = 10'000ms};
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::running);
    // A pod not Ready after having been ready (transition 20 s after start > 10 s delay) is
    // counted once past the initialization period.
    f.ready = headroom::autoscaling::ready_condition::is_false;
    f.ready_transition = now - 160s;
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::running);
    f.ready_transition = now - 175s;  // 5 s after start: it never became ready
    CHECK(headroom::autoscaling::cpu_pod_status(f) == pod_status::cpu_unready);
  }

  TEST_CASE(
      "autoscaler: the flag defaults an unset scale-down window "
      "(maybeInitScaleDownStabilizationWindow)") {
    // kubernetes pkg/apis/autoscaling/v2/defaults.go GenerateHPAScaleDownRules leaves
    // stabilizationWindowSeconds unset; horizontal.go maybeInitScaleDownStabilizationWindow
    // fills it from --horizontal-pod-autoscaler-downscale-stabilization. Default behavior,
    // flag 60 s, history {5 at -90 s}, current 5, the metric asks 2: the 90 s old 5 is
    // outside the 60 s window, so 2 (a hard-coded 300 s would hold 5).
    auto c = config_with(external_average(10.0));
    c.behavior = scaling_behavior{};
    c.downscale_stabilization = 60s;
    const autoscaler a(c);
    CHECK(a.scale_down_window() == 60s);
    CHECK(a.scale_up_window() == 0s);
    const timestamped_recommendation history[] = {{.at = -90s, .replicas = 5}};
    auto s = a.state_from_history({.recommendations = history});
    auto d = step_total(a, s, 0s, 5, 20.0);
    CHECK(d.desired_replicas == 2);
    // The same with an explicit 300 s window holds 5.
    c.behavior->scale_down.stabilization_window = 300s;
    const autoscaler b(c);
    s = b.state_from_history({.recommendations = history});
    d = step_total(b, s, 0s, 5, 20.0);
    CHECK(d.desired_replicas == 5);
    CHECK(d.conditions.able_to_scale.reason == hpa_reason::scale_down_stabilized);
  }

  TEST_CASE(
      "autoscaler: AverageValue tests the band on status.replicas "
      "(GetExternalPerPodMetricReplicas)") {
    // kubernetes replica_calculator.go GetExternalPerPodMetricReplicas /
    // GetObjectPerPodMetricReplicas read statusReplicas (scale.status.replicas), not
    // spec.replicas. spec 5, status 4 (a pod not created yet), total 44, target 10:
    // 44 / (10 x 4) = 1.1 is inside the band, so the proposal is status.replicas = 4.
    // (Against spec: 44/50 = 0.88 is outside, ceil(4.4) = 5.)
    auto c = config_with(external_average(10.0));
    c.behavior = unlimited_behavior();
    const autoscaler a(c);
    auto s = a.initial_state();
    const metric_observation obs = observe_value(44.0);
    auto d =
        a.step(s, 0s, {.replicas = {.spec = 5, .status = 4, .ready = 4}, .metrics = {&obs, 1}});
    CHECK(d.raw_recommendation == 4);
    CHECK(d.desired_replicas == 4);
    // Ready may exceed spec during a scale-down (pods terminating): a Value target multiplies
    // by the Running+Ready pods (getReadyPodsCount): 300/100 = 3 x 7 = 21.
    auto v = config_with(external_value(100.0), 1, 50);
    v.behavior = unlimited_behavior();
    const autoscaler b(v);
    s = b.initial_state();
    const metric_observation three = observe_value(300.0);
    d = b.step(s, 0s, {.replicas = {.spec = 5, .status = 7, .ready = 7}, .metrics = {&three, 1}});
    CHECK(d.desired_replicas == 21);
  }

  TEST_CASE(
      "autoscaler: missing pods at a ratio of exactly 1 count nowhere (calcPlainMetricReplicas)") {
    // kubernetes replica_calculator.go calcPlainMetricReplicas: missing pods take the target
    // when usageRatio < 1, 0 when usageRatio > 1, and are left out at exactly 1. Target 10,
    // pods 10/10/10 plus one missing, current 4: ratio 1 -> 4. (Counting the missing pod as 0
    // would give 7.5 -> 0.75 -> ceil(3) = 3.)
    CHECK(one_sync(config_with(pods_metric(10.0)), 4, {pod(10), pod(10), pod(10), missing_pod()}) ==
          4);
    // The same rule in GetResourceReplicas: 100 % of the request at a 100 % target.
    CHECK(one_sync(config_with(utilization_metric(100.0)), 4,
                   {pod(1), pod(1), pod(1), missing_pod()}) == 4);
  }

  TEST_CASE(
      "autoscaler: milli-quantities make 0.09 against 0.1 exactly 0.9 (Quantity.MilliValue)") {
    // Kubernetes reads targets and metrics with Quantity.MilliValue(): 90m / 100m = 0.9, which
    // is inside a 0.1 band (1 - 0.1 <= 0.9). In doubles 0.09 / 0.1 = 0.8999999999999999 is not.
    CHECK(headroom::autoscaling::to_quantity(0.09) == quantity{.milli = 90});
    CHECK(headroom::autoscaling::to_quantity(0.1) == quantity{.milli = 100});
    CHECK(0.09 / 0.1 < 0.9);
    const autoscaler a(config_with(external_average(0.1)));
    auto s = a.initial_state();
    auto d = step_total(a, s, 0s, 1, 0.09);
    CHECK(d.desired_replicas == 1);
    CHECK(d.reason == scale_reason::within_tolerance);
    // The same as integer milli-units, and through a Pods metric.
    s = a.initial_state();
    const metric_observation obs{.value = quantity{.milli = 90}};
    CHECK(a.step(s, 0s, {.replicas = settled(1), .metrics = {&obs, 1}}).reason ==
          scale_reason::within_tolerance);
    CHECK(one_sync(config_with(pods_metric(0.1)), 2, pods_at({0.09, 0.09})) == 2);
    // MilliValue rounds up to a whole milli-unit: 0.0001 -> 1m; a double's binary error is
    // rounded away first (0.3 -> 300m, not 301m).
    CHECK(headroom::autoscaling::to_quantity(0.0001) == quantity{.milli = 1});
    CHECK(headroom::autoscaling::to_quantity(1e-9) == quantity{.milli = 1});
    CHECK(headroom::autoscaling::to_quantity(-1e-9) == quantity{.milli = 0});
    CHECK(headroom::autoscaling::to_quantity(0.1 * 3) == quantity{.milli = 300});
    CHECK(headroom::autoscaling::to_quantity(-0.0015) == quantity{.milli = -1});
    CHECK_FALSE(headroom::autoscaling::to_quantity(missing_value).has_value());
    CHECK(headroom::autoscaling::to_quantity(1e300) ==
          quantity{.milli = std::numeric_limits<std::int64_t>::max()});
  }

  TEST_CASE(
      "autoscaler: a state from a running HPA's history keeps its outdated marks "
      "(storeScaleEvent)") {
    // kubernetes horizontal.go storeScaleEvent / markScaleEventsOutdated, with the cases of
    // horizontal_test.go TestStoreScaleEvents: a +5 scale-up from 10 with scale-up policies
    // generateScalingRules(pods, podsPeriod, percent, percentPeriod) marks the events older
    // than the longest period outdated and reuses the LAST outdated slot. A policy large
    // enough never to bind (Pods 100 per the longest period) lets the +5 through unchanged.
    struct upstream_case {
      const char* name;
      std::vector<scale_event> before;  // ages in seconds before the sync at t = 1000 s
      std::vector<scaling_policy> policies;
      std::vector<scale_event> after;
    };
    const auto at = [](int age_s) { return ms{1'000'000} - std::chrono::seconds{age_s}; };
    const auto live = scale_event_state::live;
    const auto outdated = scale_event_state::outdated;
    const std::chrono::seconds s60{60}, s30{30}, s120{120};
    const std::vector<upstream_case> cases{
        {"empty entries with two-policy-behavior",
         {},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s60},
          {.type = scaling_policy_type::percent, .value = 100, .period = s60}},
         {{.at = at(0), .change = 5, .state = live}}},
        {"one outdated entry to be replaced with behavior",
         {{.at = at(61), .change = 7, .state = live}},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s60},
          {.type = scaling_policy_type::percent, .value = 100, .period = s60}},
         {{.at = at(0), .change = 5, .state = live}}},
        {"one actual entry to be not touched with behavior",
         {{.at = at(58), .change = 7, .state = live}},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s60},
          {.type = scaling_policy_type::percent, .value = 100, .period = s60}},
         {{.at = at(58), .change = 7, .state = live}, {.at = at(0), .change = 5, .state = live}}},
        {"two entries and one of them to be replaced",
         {{.at = at(61), .change = 7, .state = live}, {.at = at(59), .change = 6, .state = live}},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s60}},
         {{.at = at(0), .change = 5, .state = live}, {.at = at(59), .change = 6, .state = live}}},
        {"replace one entry and use policies with different periods",
         {{.at = at(29), .change = 8, .state = live},
          {.at = at(59), .change = 6, .state = live},
          {.at = at(61), .change = 7, .state = live},
          {.at = at(61), .change = 9, .state = live}},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s60},
          {.type = scaling_policy_type::percent, .value = 100, .period = s30}},
         {{.at = at(29), .change = 8, .state = live},
          {.at = at(59), .change = 6, .state = live},
          {.at = at(61), .change = 7, .state = outdated},
          {.at = at(0), .change = 5, .state = live}}},
        {"two entries and both actual",
         {{.at = at(58), .change = 7, .state = live}, {.at = at(59), .change = 6, .state = live}},
         {{.type = scaling_policy_type::pods, .value = 10, .period = s120},
          {.type = scaling_policy_type::percent, .value = 100, .period = s30}},
         {{.at = at(58), .change = 7, .state = live},
          {.at = at(59), .change = 6, .state = live},
          {.at = at(0), .change = 5, .state = live}}},
    };
    for (const auto& k : cases) {
      CAPTURE(k.name);
      auto c = config_with(external_average(1.0), 1, 15);
      c.behavior = unlimited_behavior();
      c.behavior->scale_up.policies = k.policies;
      std::chrono::seconds longest{0};
      for (const auto& p : k.policies) longest = std::max(longest, p.period);
      c.behavior->scale_up.policies.push_back(
          {.type = scaling_policy_type::pods, .value = 100, .period = longest});
      const autoscaler a(c);
      auto s = a.state_from_history({.scale_up_events = k.before});
      const auto d = step_total(a, s, ms{1'000'000}, 10, 15.0);
      REQUIRE(d.desired_replicas == 15);
      CHECK(s.scale_up_events == k.after);
    }
    // The marks matter for the other direction: an outdated scale-up still counts for a
    // longer scale-down period until its slot is reused. Down Pods 1 / 120 s from 10 with the
    // +7 of 61 s ago (outdated for the 60 s up policies): start = 10 - 7 = 3, limit 2.
    auto c = config_with(external_average(1.0), 1, 15);
    c.behavior = scaling_behavior{
        .scale_up =
            scaling_rules{
                .stabilization_window = 0s,
                .select = select_policy::max,
                .policies = {{.type = scaling_policy_type::pods, .value = 10, .period = s60}}},
        .scale_down = scaling_rules{
            .stabilization_window = 0s,
            .select = select_policy::max,
            .policies = {{.type = scaling_policy_type::pods, .value = 1, .period = s120}}}};
    const autoscaler a(c);
    const scale_event up_before[] = {{.at = at(61), .change = 7, .state = outdated}};
    auto s = a.state_from_history({.scale_up_events = up_before});
    const auto d = step_total(a, s, ms{1'000'000}, 10, 1.0);
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::scale_down_limited);
  }

  TEST_CASE("autoscaler: conditions in upstream's words (horizontal.go setCondition)") {
    // What `kubectl describe hpa` shows after each sync, as horizontal.go sets it.
    CHECK(headroom::autoscaling::to_string(hpa_reason::desired_within_range) ==
          "DesiredWithinRange");
    CHECK(headroom::autoscaling::to_string(hpa_reason::scale_up_limit) == "ScaleUpLimit");
    CHECK(headroom::autoscaling::to_string(hpa_reason::scale_down_stabilized) ==
          "ScaleDownStabilized");
    CHECK(headroom::autoscaling::to_string(hpa_reason::failed_get_resource_metric) ==
          "FailedGetResourceMetric");
    CHECK(headroom::autoscaling::to_string(hpa_reason::failed_get_container_resource_metric) ==
          "FailedGetContainerResourceMetric");
    CHECK(headroom::autoscaling::to_string(condition_status::is_true) == "True");
    std::vector<std::string> names;
    for (const hpa_reason r : headroom::autoscaling::all_hpa_reasons)
      if (r != hpa_reason::none) names.emplace_back(headroom::autoscaling::to_string(r));
    CHECK(names.size() + 1 == headroom::autoscaling::all_hpa_reasons.size());
    CHECK(std::find(names.begin(), names.end(), "Unknown") == names.end());
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(std::find(names.begin(), names.end(), "") == names.end());

    using headroom::autoscaling::hpa_condition;
    const hpa_condition within{.status = condition_status::is_false,
                               .reason = hpa_reason::desired_within_range};
    auto c = config_with(pods_metric(10.0));
    c.behavior = scaling_behavior{};
    const autoscaler a(c);
    auto s = a.initial_state();
    // A rescale limited by the up policies: AbleToScale SucceededRescale, ScalingActive
    // ValidMetricFound, ScalingLimited True/ScaleUpLimit, ScaledToZero False/NotScaledToZero.
    auto d = step_pods(a, s, 0s, pods_at({100, 100, 100}));
    CHECK(d.conditions.able_to_scale == hpa_condition{.status = condition_status::is_true,
                                                      .reason = hpa_reason::succeeded_rescale});
    CHECK(d.conditions.scaling_active == hpa_condition{.status = condition_status::is_true,
                                                       .reason = hpa_reason::valid_metric_found});
    CHECK(d.conditions.scaling_limited ==
          hpa_condition{.status = condition_status::is_true, .reason = hpa_reason::scale_up_limit});
    CHECK(d.conditions.scaled_to_zero == hpa_condition{.status = condition_status::is_false,
                                                       .reason = hpa_reason::not_scaled_to_zero});
    // Held by the down window: ScaleDownStabilized, no rescale, ScalingLimited False.
    d = step_pods(a, s, 15s, pods_at({1, 1, 1, 1, 1, 1, 1}));
    CHECK(d.desired_replicas == 7);
    CHECK(d.conditions.able_to_scale == hpa_condition{.status = condition_status::is_true,
                                                      .reason = hpa_reason::scale_down_stabilized});
    CHECK(d.conditions.scaling_limited == within);
    CHECK(d.conditions.scaled_to_zero.status == condition_status::unset);
    // In band, nothing to do: ReadyForNewScale.
    d = step_pods(a, s, 30s, std::vector<pod_sample>(7, pod(10)));
    CHECK(d.conditions.able_to_scale == hpa_condition{.status = condition_status::is_true,
                                                      .reason = hpa_reason::ready_for_new_scale});
    CHECK(d.conditions.scaling_limited == within);
    // A Resource metric failing: FailedGetResourceMetric, AbleToScale SucceededGetScale.
    const autoscaler r(config_with(utilization_metric(50)));
    s = r.initial_state();
    d = step_pods(r, s, 0s, {missing_pod(), missing_pod()});
    CHECK(d.conditions.scaling_active ==
          hpa_condition{.status = condition_status::is_false,
                        .reason = hpa_reason::failed_get_resource_metric});
    CHECK(d.conditions.able_to_scale == hpa_condition{.status = condition_status::is_true,
                                                      .reason = hpa_reason::succeeded_get_scale});
  }

  // ---------------------------------------------------------------------------------------
  // The Knative KPA (knative/serving pkg/autoscaler/scaling/autoscaler.go Scale).
  // ---------------------------------------------------------------------------------------
  namespace {

  // Knative's autoscaler_test.go newTestAutoscaler: TargetValue t, TotalValue t / 0.75,
  // target burst capacity tbc, panic threshold 2, rates 10, stable window 60 s, reachable.
  kpa_config knative_test_config(double target, double tbc) {
    return {.total_per_replica = target / 0.75,
            .target_utilization = 0.75,
            .max_scale_up_rate = 10.0,
            .max_scale_down_rate = 10.0,
            .panic_threshold = 2.0,
            .stable_window = 60s,
            .target_burst_capacity = tbc};
  }

  // autoscaler_test.go expectedEBC: floor(ready x total - tbc - panic).
  std::int32_t expected_ebc(double target, double tbc, double panic, std::int32_t ready) {
    return static_cast<std::int32_t>(std::floor(ready * (target / 0.75) - tbc - panic));
  }

  autoscaler_decision kpa_step(const autoscaler& a, autoscaler_state& s, ms now, std::int32_t ready,
                               double stable, double panic,
                               headroom::autoscaling::revision_reachability reach =
                                   headroom::autoscaling::revision_reachability::reachable) {
    return a.step(s, now,
                  {.replicas = settled(ready),
                   .kpa = {.stable_value = stable, .panic_value = panic, .reachability = reach}});
  }

  }  // namespace

  TEST_CASE("autoscaler: KPA defaults are Knative's (config.go defaultConfig)") {
    // knative/serving pkg/autoscaler/config/config.go defaultConfig and
    // pkg/reconciler/autoscaling/resources/target.go ResolveMetricTarget.
    const kpa_config k;
    CHECK(k.metric == headroom::autoscaling::kpa_metric::concurrency);
    CHECK(k.total_value() == 100.0);                   // container-concurrency-target-default
    CHECK(k.target_value() == doctest::Approx(70.0));  // x 0.7
    CHECK(k.max_scale_up_rate == 1000.0);
    CHECK(k.max_scale_down_rate == 2.0);
    CHECK(k.panic_threshold == 2.0);  // panic-threshold-percentage 200
    CHECK(k.stable_window == 60s);
    CHECK(k.scale_down_delay == 0s);
    CHECK(k.target_burst_capacity == 211.0);
    CHECK(k.min_scale == 0);
    CHECK(k.max_scale == 0);
    const kpa_config rps{.metric = headroom::autoscaling::kpa_metric::requests_per_second};
    CHECK(rps.target_value() == doctest::Approx(140.0));  // requests-per-second 200 x 0.7
    // No tolerance band: 71 in flight against 70 on one pod asks 2 (an HPA with the 0.1
    // default tolerance would keep 1).
    const autoscaler a(k);
    auto s = a.initial_state();
    CHECK(kpa_step(a, s, 0s, 1, 71.0, 71.0).desired_replicas == 2);
    CHECK(a.kpa().has_value());
    CHECK(a.config().max_replicas == std::numeric_limits<std::int32_t>::max());
  }

  TEST_CASE("autoscaler: KPA Scale matches Knative's autoscaler_test.go") {
    SUBCASE("TestAutoscalerStableModeIncreaseWithConcurrencyDefault") {
      const autoscaler a(knative_test_config(10, 101));
      auto s = a.initial_state();
      auto d = kpa_step(a, s, 0s, 1, 50, 10);
      CHECK(d.desired_replicas == 5);
      CHECK(d.excess_burst_capacity == expected_ebc(10, 101, 10, 1));
      CHECK(kpa_step(a, s, 0s, 1, 100, 10).desired_replicas == 10);
    }
    SUBCASE("TestAutoscalerStableModeDecrease and NoTrafficScaleToZero") {
      const autoscaler a(knative_test_config(10, 98));
      auto s = a.initial_state();
      CHECK(kpa_step(a, s, 0s, 8, 100, 100).desired_replicas == 10);
      CHECK(kpa_step(a, s, 0s, 8, 50, 50).desired_replicas == 5);
      const autoscaler z(knative_test_config(10, 75));
      s = z.initial_state();
      CHECK(kpa_step(z, s, 0s, 1, 1, 0).desired_replicas == 1);
      CHECK(kpa_step(z, s, 0s, 1, 0, 0).desired_replicas == 0);
    }
    SUBCASE("TestAutoscalerActivationScale") {
      auto k = knative_test_config(10, 75);
      k.activation_scale = 2;
      const autoscaler a(k);
      auto s = a.initial_state();
      CHECK(kpa_step(a, s, 0s, 1, 0, 0).desired_replicas == 0);
      CHECK(kpa_step(a, s, 0s, 1, 1, 0).desired_replicas == 2);
    }
    SUBCASE("TestAutoscalerUnpanicAfterSlowIncrease") {
      const autoscaler a(knative_test_config(1, 98));
      auto s = a.initial_state();
      auto d = kpa_step(a, s, 0s, 10, 11, 25);
      CHECK(d.desired_replicas == 25);
      CHECK(d.panicking);
      d = kpa_step(a, s, 30s, 40, 30, 41);
      CHECK(d.desired_replicas == 41);
      CHECK(s.panic_time == 0s);            // 41/40 < 2: the panic is not extended
      d = kpa_step(a, s, 62s, 55, 50, 56);  // 30 s + 30 s + one 2 s tick
      CHECK(d.desired_replicas == 50);
      CHECK_FALSE(d.panicking);
      CHECK(d.excess_burst_capacity == expected_ebc(1, 98, 56, 55));
    }
    SUBCASE("TestAutoscalerPanicThenUnPanicScaleDown") {
      const autoscaler a(knative_test_config(10, 93));
      auto s = a.initial_state();
      CHECK(kpa_step(a, s, 0s, 1, 100, 100).desired_replicas == 10);
      CHECK(kpa_step(a, s, 1s, 10, 100, 1000).desired_replicas == 100);
      CHECK(kpa_step(a, s, 31s, 10, 1, 1).desired_replicas == 100);  // still panicking
      CHECK(kpa_step(a, s, 62s, 10, 1, 1).desired_replicas == 1);    // 61 s after the panic
    }
    SUBCASE("TestAutoscalerRateLimitScaleUp and ScaleDown") {
      const autoscaler a(knative_test_config(10, 61));
      auto s = a.initial_state();
      CHECK(kpa_step(a, s, 0s, 1, 1000, 1001).desired_replicas == 10);
      CHECK(kpa_step(a, s, 0s, 10, 1000, 1001).desired_replicas == 100);
      s = a.initial_state();
      CHECK(kpa_step(a, s, 0s, 100, 1, 1).desired_replicas == 10);
      CHECK(kpa_step(a, s, 0s, 10, 1, 1).desired_replicas == 1);
    }
    SUBCASE("TestAutoscalerScale table") {
      struct row {
        const char* label;
        double target, tbc, stable, panic;
        std::int32_t ready, want, want_ebc;
      };
      const row rows[] = {
          {"AutoscalerStableModeUnlimitedTBC", 181, -1, 21, 26, 1, 1, -1},
          {"Autoscaler0TBC", 10, 0, 50, 49, 1, 5, 0},
          {"AutoscalerStableModeNoChange", 10, 100, 50, 50, 1, 5, expected_ebc(10, 100, 50, 1)},
          {"AutoscalerStableModeNoChangeAlreadyScaled", 10, 100, 50, 50, 5, 5,
           expected_ebc(10, 100, 50, 5)},
          {"AutoscalerPanicModeDoublePodCount", 10, 84, 50, 100, 1, 10,
           expected_ebc(10, 84, 100, 1)},
      };
      for (const auto& r : rows) {
        CAPTURE(r.label);
        const autoscaler a(knative_test_config(r.target, r.tbc));
        auto s = a.initial_state();
        const auto d = kpa_step(a, s, 0s, r.ready, r.stable, r.panic);
        CHECK(d.desired_replicas == r.want);
        CHECK(d.excess_burst_capacity == r.want_ebc);
      }
    }
    SUBCASE("TestAutoscalerScale with small rates and reachability") {
      // AutoscalerStableModeIncreaseWithSmallScaleUpRate: rate 1.1, 2 ready, 3 wanted -> 3.
      auto k = knative_test_config(1, 1982);
      k.max_scale_up_rate = 1.1;
      const autoscaler up(k);
      auto s = up.initial_state();
      CHECK(kpa_step(up, s, 0s, 2, 3, 3.1).desired_replicas == 3);
      // AutoscalerStableModeDecreaseWithSmallScaleDownRate: rate 1.1 from 100 -> 90;
      // AutoscalerStableModeDecreaseNonReachable: unreachable has no scale-down floor -> 1.
      k = knative_test_config(10, 1982);
      k.max_scale_down_rate = 1.1;
      const autoscaler down(k);
      s = down.initial_state();
      CHECK(kpa_step(down, s, 0s, 100, 1, 1).desired_replicas == 90);
      s = down.initial_state();
      CHECK(kpa_step(down, s, 0s, 100, 1, 1,
                     headroom::autoscaling::revision_reachability::unreachable)
                .desired_replicas == 1);
    }
    SUBCASE("TestAutoscalerScaleDownDelay simple and gradual") {
      // TargetValue 10, rates 10, panic threshold 100, scale-down delay 5 min.
      const kpa_config k{.total_per_replica = 10.0,
                         .target_utilization = 1.0,
                         .max_scale_up_rate = 10.0,
                         .max_scale_down_rate = 10.0,
                         .panic_threshold = 100.0,
                         .scale_down_delay = 300s};
      const autoscaler a(k);
      auto s = a.initial_state();
      CHECK(kpa_step(a, s, 2s, 0, 40, 40).desired_replicas == 4);
      CHECK(kpa_step(a, s, 300s, 0, 0, 0).desired_replicas == 4);
      auto d = kpa_step(a, s, 302s, 0, 0, 0);
      CHECK(d.desired_replicas == 0);
      CHECK(kpa_step(a, s, 540s, 0, 40, 40).desired_replicas == 4);
      CHECK(kpa_step(a, s, 600s, 0, 30, 30).desired_replicas == 4);
      CHECK(kpa_step(a, s, 660s, 0, 0, 0).desired_replicas == 4);
      CHECK(kpa_step(a, s, 840s, 0, 0, 0).desired_replicas == 3);  // the 4 scrolls out
      CHECK(kpa_step(a, s, 900s, 0, 0, 0).desired_replicas == 0);
      // TestAutoscalerScaleDownDelayNotReachable: unreachable skips the delay window.
      s = a.initial_state();
      CHECK(kpa_step(a, s, 2s, 0, 40, 40).desired_replicas == 4);
      CHECK(kpa_step(a, s, 60s, 0, 0, 0).desired_replicas == 4);
      CHECK(kpa_step(a, s, 62s, 0, 0, 0, headroom::autoscaling::revision_reachability::unreachable)
                .desired_replicas == 0);
    }
    SUBCASE("TestStartInPanicMode") {
      // newAutoscaler starts panicking when more than one pod is ready.
      const autoscaler a(knative_test_config(100, 100));
      CHECK_FALSE(a.initial_state(0s, 1).panicking);
      const auto s = a.initial_state(0s, 2);
      CHECK(s.panicking);
      CHECK(s.max_panic_replicas == 2);
    }
  }

  TEST_CASE("autoscaler: KPA activation scale and reachability (Scale and applyBounds)") {
    // knative autoscaler.go Scale: a non-zero desired count is raised to activationScale when
    // it is > 1; with the revision unreachable the scale-down floor floor(ready / rate) is 0;
    // kpa/scaler.go applyBounds with ScaleBounds ignores min-scale while unreachable.
    kpa_config k{.total_per_replica = 10.0, .target_utilization = 1.0, .activation_scale = 3};
    k.min_scale = 2;
    k.max_scale = 8;
    const autoscaler a(k);
    auto s = a.initial_state();
    auto d = kpa_step(a, s, 0s, 1, 5, 5);  // ceil(0.5) = 1 -> activation scale 3
    CHECK(d.desired_replicas == 3);
    s = a.initial_state();
    d = kpa_step(a, s, 0s, 1, 0, 0);  // nothing: 0, then min-scale 2
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::too_few_replicas);
    s = a.initial_state();
    d = kpa_step(a, s, 0s, 1, 0, 0, headroom::autoscaling::revision_reachability::unreachable);
    CHECK(d.desired_replicas == 0);  // min-scale ignored while unreachable
    // Reachable, 6 ready, no load: floor(6 / 2) = 3 at least; unreachable: 0.
    s = a.initial_state();
    CHECK(kpa_step(a, s, 0s, 6, 0, 0).desired_replicas == 3);
    s = a.initial_state();
    CHECK(kpa_step(a, s, 0s, 6, 0, 0, headroom::autoscaling::revision_reachability::unreachable)
              .desired_replicas == 0);
    // max-scale bounds a surge: 1000 in flight asks 100, at most 8.
    s = a.initial_state();
    d = kpa_step(a, s, 0s, 6, 1000, 1000);
    CHECK(d.desired_replicas == 8);
    CHECK(d.reason == scale_reason::too_many_replicas);
    // No data: hold.
    s = a.initial_state();
    d = kpa_step(a, s, 0s, 6, missing_value, 1);
    CHECK(d.desired_replicas == 6);
    CHECK(d.reason == scale_reason::metric_missing);
    // Knative's validation, by name.
    const auto rejected = [](kpa_config bad) {
      return headroom::test::rejected([&] { autoscaler x(bad); });
    };
    CHECK(rejected(kpa_config{.max_scale_up_rate = 1.0}) == "kpa.max_scale_up_rate");
    CHECK(rejected(kpa_config{.stable_window = 5s}) == "kpa.stable_window");
    CHECK(rejected(kpa_config{.target_burst_capacity = -2.0}) == "kpa.target_burst_capacity");
    CHECK(rejected(kpa_config{.min_scale = 3, .max_scale = 2}) == "kpa.min_scale");
    CHECK(rejected(kpa_config{.target_utilization = 0.0}) == "kpa.target_utilization");
  }

  // ---------------------------------------------------------------------------------------
  // Differential vectors: upstream's functions transcribed to a scratch harness (not in this
  // repository), run on random scenarios; their decisions are committed in
  // tests/data/autoscaler/. Format, one record per line:
  //   S id min max tol_up tol_down flag_window_s behavior(0|1)
  //     [up_window(-1 = unset) select(0 Max, 1 Min, 2 Disabled) n (type(0 Pods, 1 Percent)
  //      value period_s)^n  down_window select n (...)^n]
  //   M source(0 Resource, 1 ContainerResource, 2 Pods, 3 Object, 4 External)
  //     target_type(0 Utilization, 1 Value, 2 AverageValue) cpu(0|1) target(% or milli)
  //   Z                         the HPA starts with ScaledToZero=True
  //   T now_ms spec status ready
  //   V metric value_milli|x    (Object/External; x = failed to get)
  //   P metric n (status(0 running, 1 cpu_unready, 2 pending, 3 terminated)
  //     value_milli|x request_milli)^n
  //   E desired able_to_scale scaling_active scaling_limited scaled_to_zero
  //     (each condition "T:Reason", "F:Reason" or "-" when the sync did not set it)
  //   K id metric(0 concurrency, 1 rps) total utilization up_rate down_rate panic_threshold
  //     stable_window_s delay_s activation_scale tbc min_scale max_scale init_ready init_ms
  //   U now_ms ready stable panic reachable(0|1) desired excess_burst_capacity panicking
  // The HPA side transcribes kubernetes horizontal.go (reconcileAutoscaler,
  // computeReplicasForMetrics, normalizeDesiredReplicas[WithBehaviors],
  // stabilizeRecommendation[WithBehaviors], convertDesiredReplicasWith{Rules,BehaviorRate},
  // storeScaleEvent), replica_calculator.go (groupPods, GetResourceReplicas,
  // calcPlainMetricReplicas, getUsageRatioReplicaCount, Get*PerPodMetricReplicas) and
  // metrics/utilization.go; the KPA side knative/serving autoscaler.go Scale,
  // aggregation/max window.go and kpa/scaler.go applyBounds. Times are strictly increasing.
  // ---------------------------------------------------------------------------------------
  namespace {

  std::string condition_token(const headroom::autoscaling::hpa_condition& c) {
    if (c.status == condition_status::unset) return "-";
    return std::string(c.status == condition_status::is_true ? "T:" : "F:") +
           std::string(headroom::autoscaling::to_string(c.reason));
  }

  std::vector<std::string> read_lines(const std::string& name) {
    std::ifstream in(std::string(HEADROOM_TEST_DATA_DIR) + "/autoscaler/" + name);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') lines.push_back(line);
    return lines;
  }

  scaling_rules read_rules(std::istringstream& in) {
    scaling_rules r;
    int window = 0, select = 0, n = 0;
    in >> window >> select >> n;
    if (window >= 0) r.stabilization_window = std::chrono::seconds{window};
    r.select = static_cast<select_policy>(select);
    for (int i = 0; i < n; ++i) {
      int type = 0, value = 0, period = 0;
      in >> type >> value >> period;
      r.policies.push_back(
          {static_cast<scaling_policy_type>(type), value, std::chrono::seconds{period}});
    }
    return r;
  }

  std::optional<quantity> read_milli(std::istringstream& in) {
    std::string token;
    in >> token;
    if (token == "x") return std::nullopt;
    return quantity{.milli = std::stoll(token)};
  }

  }  // namespace

  TEST_CASE("autoscaler: differential vectors from the HPA's own functions") {
    const auto lines = read_lines("hpa_vectors.txt");
    REQUIRE(lines.size() > 1000);
    std::size_t syncs = 0, rescales = 0, mismatches = 0;
    std::size_t i = 0;
    while (i < lines.size()) {
      std::istringstream head(lines[i++]);
      std::string tag;
      int id = 0, behavior = 0, flag = 0;
      autoscaler_config c;
      head >> tag >> id >> c.min_replicas >> c.max_replicas >> c.scale_up_tolerance >>
          c.scale_down_tolerance >> flag >> behavior;
      REQUIRE(tag == "S");
      c.downscale_stabilization = std::chrono::seconds{flag};
      if (behavior != 0) {
        scaling_behavior b;
        b.scale_up = read_rules(head);
        b.scale_down = read_rules(head);
        c.behavior = b;
      }
      while (i < lines.size() && lines[i][0] == 'M') {
        std::istringstream m(lines[i++]);
        int source = 0, type = 0, cpu = 0;
        long long target = 0;
        m >> tag >> source >> type >> cpu >> target;
        const auto src = static_cast<metric_source>(source);
        const auto tt = static_cast<metric_target_type>(type);
        const bool resource =
            src == metric_source::resource || src == metric_source::container_resource;
        c.metrics.push_back({.name = resource ? (cpu != 0 ? "cpu" : "memory") : "metric",
                             .source = src,
                             .target_type = tt,
                             .target = tt == metric_target_type::utilization
                                           ? static_cast<double>(target)
                                           : static_cast<double>(target) / 1000.0});
      }
      const autoscaler a(c);
      autoscaler_state s = a.initial_state();
      if (i < lines.size() && lines[i] == "Z")
        s = a.state_from_history({.scaled_to_zero = condition_status::is_true}), ++i;
      while (i < lines.size() && lines[i][0] == 'T') {
        std::istringstream t(lines[i++]);
        long long now = 0;
        replica_counts n;
        t >> tag >> now >> n.spec >> n.status >> n.ready;
        std::vector<metric_observation> obs(c.metrics.size());
        std::vector<std::vector<pod_sample>> pods(c.metrics.size());
        while (i < lines.size() && (lines[i][0] == 'V' || lines[i][0] == 'P')) {
          std::istringstream o(lines[i++]);
          std::size_t k = 0;
          o >> tag >> k;
          if (tag == "V") {
            obs[k].value = read_milli(o);
          } else {
            std::size_t count = 0;
            o >> count;
            for (std::size_t p = 0; p < count; ++p) {
              int status = 0;
              o >> status;
              const auto value = read_milli(o);
              long long request = 0;
              o >> request;
              pods[k].push_back({.value = value,
                                 .request = quantity{.milli = request},
                                 .status = static_cast<pod_status>(status)});
            }
            obs[k].pods = pods[k];
          }
        }
        std::istringstream e(lines[i++]);
        std::int32_t want = 0;
        std::string able, active, limited, zero;
        e >> tag >> want >> able >> active >> limited >> zero;
        REQUIRE(tag == "E");
        const auto d = a.step(s, ms{now}, {.replicas = n, .metrics = obs});
        ++syncs;
        rescales += d.rescale() ? 1U : 0U;
        const bool same = d.desired_replicas == want &&
                          condition_token(d.conditions.able_to_scale) == able &&
                          condition_token(d.conditions.scaling_active) == active &&
                          condition_token(d.conditions.scaling_limited) == limited &&
                          condition_token(d.conditions.scaled_to_zero) == zero;
        if (!same) {
          ++mismatches;
          CAPTURE(id);
          CAPTURE(now);
          CHECK(d.desired_replicas == want);
          CHECK(condition_token(d.conditions.able_to_scale) == able);
          CHECK(condition_token(d.conditions.scaling_active) == active);
          CHECK(condition_token(d.conditions.scaling_limited) == limited);
          CHECK(condition_token(d.conditions.scaled_to_zero) == zero);
        }
      }
    }
    CHECK(mismatches == 0);
    CHECK(syncs > 1500);
    CHECK(rescales > syncs / 10);  // the scenarios move: not a run of holds
  }

  TEST_CASE("autoscaler: differential vectors from the KPA's own functions") {
    const auto lines = read_lines("kpa_vectors.txt");
    REQUIRE(lines.size() > 1000);
    std::size_t steps = 0, mismatches = 0, panics = 0;
    std::size_t i = 0;
    while (i < lines.size()) {
      std::istringstream head(lines[i++]);
      std::string tag;
      int id = 0, metric = 0, stable_s = 0, delay_s = 0, init_ready = 0;
      long long init_ms = 0;
      double total = 0;
      kpa_config k;
      head >> tag >> id >> metric >> total >> k.target_utilization >> k.max_scale_up_rate >>
          k.max_scale_down_rate >> k.panic_threshold >> stable_s >> delay_s >> k.activation_scale >>
          k.target_burst_capacity >> k.min_scale >> k.max_scale >> init_ready >> init_ms;
      REQUIRE(tag == "K");
      k.metric = static_cast<headroom::autoscaling::kpa_metric>(metric);
      k.total_per_replica = total;
      k.stable_window = std::chrono::seconds{stable_s};
      k.scale_down_delay = std::chrono::seconds{delay_s};
      const autoscaler a(k);
      auto s = init_ready < 0 ? a.initial_state() : a.initial_state(ms{init_ms}, init_ready);
      while (i < lines.size() && lines[i][0] == 'U') {
        std::istringstream u(lines[i++]);
        long long now = 0;
        std::int32_t ready = 0, want = 0, ebc = 0;
        int reachable = 0, panicking = 0;
        double stable = 0, panic = 0;
        u >> tag >> now >> ready >> stable >> panic >> reachable >> want >> ebc >> panicking;
        const auto d =
            kpa_step(a, s, ms{now}, ready, stable, panic,
                     reachable != 0 ? headroom::autoscaling::revision_reachability::reachable
                                    : headroom::autoscaling::revision_reachability::unreachable);
        ++steps;
        panics += d.panicking ? 1U : 0U;
        if (d.desired_replicas != want || d.excess_burst_capacity != ebc ||
            d.panicking != (panicking != 0)) {
          ++mismatches;
          CAPTURE(id);
          CAPTURE(now);
          CHECK(d.desired_replicas == want);
          CHECK(d.excess_burst_capacity == ebc);
          CHECK(d.panicking == (panicking != 0));
        }
      }
    }
    CHECK(mismatches == 0);
    CHECK(steps > 1000);
    CHECK(panics > steps / 20);
  }

  // ---------------------------------------------------------------------------------------
  // Time, memory and the windows as monotone queues.
  // ---------------------------------------------------------------------------------------

  TEST_CASE("autoscaler: times that would overflow are refused by name") {
    auto c = config_with(external_average(10.0));
    c.behavior = scaling_behavior{};
    const autoscaler a(c);
    auto s = a.initial_state();
    CHECK(headroom::test::rejected(
              [&] { (void)step_total(a, s, std::chrono::milliseconds::min(), 2, 20.0); }) == "now");
    CHECK(headroom::test::rejected(
              [&] { (void)step_total(a, s, ms{-5'000'000'000'000'000'000}, 2, 20.0); }) == "now");
    CHECK(headroom::test::rejected(
              [&] { (void)step_total(a, s, std::chrono::milliseconds::max(), 2, 20.0); }) == "now");
    CHECK(s == a.initial_state());  // refused steps leave the state as it was
    CHECK(headroom::test::rejected([&] { (void)a.initial_state(ms::min(), 2); }) == "at");
    const timestamped_recommendation far[] = {{.at = ms::max(), .replicas = 3}};
    CHECK(headroom::test::rejected([&] { (void)a.state_from_history({.recommendations = far}); }) ==
          "history.recommendations.at");
    // The extremes accepted: ±4e18 ms, a step at each end, windows computed without overflow.
    CHECK(step_total(a, s, ms{-4'000'000'000'000'000'000}, 2, 20.0).desired_replicas == 2);
    const auto d = step_total(a, s, ms{4'000'000'000'000'000'000}, 2, 100.0);
    CHECK(d.desired_replicas == 6);  // 2 -> Max(2 + 4, 2 x 2) = 6 of the 10 asked
  }

  TEST_CASE("autoscaler: a repeated now replaces its recommendation and never grows the state") {
    auto c = config_with(external_average(10.0), 1, 1000);
    c.behavior = scaling_behavior{};
    c.sync_period = 1s;
    const autoscaler a(c);
    auto s = a.initial_state();
    for (int t = 0; t < 400; ++t) (void)step_total(a, s, std::chrono::seconds{t}, 10, 50.0 + t % 7);
    const auto entries = s.window_entries();
    const auto* down = s.down_window.data();
    const auto* ups = s.scale_up_events.data();
    const auto capacity = s.down_window.capacity();
    // 100 000 retries at one time: the state neither grows nor reallocates, and each retry
    // decides as the first attempt did.
    const auto first = step_total(a, s, 400s, 10, 300.0);
    for (int i = 0; i < 100'000; ++i) {
      const auto d = step_total(a, s, 400s, 10, 300.0);
      REQUIRE(d.desired_replicas == first.desired_replicas);
    }
    CHECK(s.window_entries() <= entries + 1);
    CHECK(s.down_window.data() == down);
    CHECK(s.down_window.capacity() == capacity);
    CHECK(s.scale_up_events.data() == ups);
    // A retry replaces the earlier attempt: a smaller recommendation retried at the same
    // instant is what the next sync's down window sees. The windows start with 3 at 1000 s.
    auto w = config_with(external_average(10.0));
    w.behavior = scaling_behavior{
        .scale_up =
            scaling_rules{.stabilization_window = 0s, .select = select_policy::max, .policies = {}},
        .scale_down = scaling_rules{
            .stabilization_window = 60s, .select = select_policy::max, .policies = {}}};
    const autoscaler b(w);
    auto t = b.initial_state(1000s, 3);
    (void)step_total(b, t, 1010s, 3, 90.0);           // asks 9 (latest: 9 at 1010 s)
    (void)step_total(b, t, 1010s, 3, 40.0);           // retried: asks 4, replacing the 9
    const auto d = step_total(b, t, 1020s, 3, 10.0);  // asks 1; the window holds 3 and 4
    CHECK(d.stabilized_recommendation == 3);          // max(1, 3, 4) clamped to current 3
    CHECK(d.desired_replicas == 3);
    const auto e = step_total(b, t, 1030s, 5, 10.0);
    CHECK(e.stabilized_recommendation == 4);  // the 4 of 1010 s, not the replaced 9
  }

  TEST_CASE("autoscaler: the monotone windows equal a scan of the whole history") {
    // Random windows (unset, 0, or multiples of the sync so that ages hit the boundaries
    // exactly), random loads, strictly increasing times: the stabilized recommendation equals
    // horizontal.go's scan over every stored recommendation (age < window with a behavior,
    // age <= window without).
    std::mt19937_64 rng(4242);
    const auto pick = [](std::mt19937_64& g) { return headroom::test::integer_draw(g, 0, 5); };
    for (int trial = 0; trial < 200; ++trial) {
      auto c = config_with(external_average(10.0), 1, 500);
      c.scale_up_tolerance = c.scale_down_tolerance = 0.0;
      c.downscale_stabilization = std::chrono::seconds{15 * pick(rng)};
      if (trial % 3 != 0) {
        c.behavior = unlimited_behavior();
        const auto window = [&]() -> std::optional<std::chrono::seconds> {
          const int k = pick(rng);
          if (k == 0) return std::nullopt;
          return std::chrono::seconds{15 * (k - 1)};
        };
        c.behavior->scale_up.stabilization_window = window();
        c.behavior->scale_down.stabilization_window = window();
      }
      const autoscaler a(c);
      auto s = a.initial_state();
      std::vector<timestamped_recommendation> history;
      std::int32_t current = 1 + pick(rng);
      ms now{0};
      for (int step = 0; step < 80; ++step) {
        now += std::chrono::seconds{pick(rng) < 4 ? 15 : 5 * (1 + pick(rng))};
        if (history.empty())
          history.push_back({.at = now, .replicas = current});  // recordInitialRecommendation
        const double total = 10.0 * (1 + pick(rng) * pick(rng));
        const auto d = step_total(a, s, now, current, total);
        std::int32_t up = d.raw_recommendation, down = d.raw_recommendation;
        for (const auto& h : history) {
          const ms age = now - h.at;
          if (c.behavior) {
            if (age < a.scale_up_window()) up = std::min(up, h.replicas);
            if (age < a.scale_down_window()) down = std::max(down, h.replicas);
          } else if (age <= a.scale_down_window()) {
            down = std::max(down, h.replicas);
          }
        }
        const std::int32_t expected = c.behavior ? std::clamp(current, up, down) : down;
        REQUIRE(d.stabilized_recommendation == expected);
        history.push_back({.at = now, .replicas = d.raw_recommendation});
        current = d.desired_replicas;
      }
    }
  }

  TEST_CASE("autoscaler: state buffers stop growing once warm (no allocation per step)") {
    // Default behavior, 300 s down window, 1 s period: after the window has filled, every
    // step recycles entries in place, so the buffers never reallocate again.
    auto c = config_with(external_average(10.0), 1, 1000);
    c.behavior = scaling_behavior{};
    c.sync_period = 1s;
    const autoscaler a(c);
    auto state = a.initial_state();
    CHECK(state.down_window.capacity() >= 301);
    std::int32_t current = 10;
    const auto run = [&](int from, int to) {
      for (int i = from; i < to; ++i) {
        const double total = 10.0 * current * (i % 7 == 0 ? 1.5 : 0.7);
        current = step_total(a, state, std::chrono::seconds{i}, current, total).desired_replicas;
      }
    };
    run(0, 400);
    const auto* down = state.down_window.data();
    const auto* ups = state.scale_up_events.data();
    const auto* downs = state.scale_down_events.data();
    const auto capacities =
        std::array{state.down_window.capacity(), state.scale_up_events.capacity(),
                   state.scale_down_events.capacity()};
    run(400, 2000);
    CHECK(state.down_window.data() == down);
    CHECK(state.scale_up_events.data() == ups);
    CHECK(state.scale_down_events.data() == downs);
    CHECK(state.down_window.capacity() == capacities[0]);
    CHECK(state.scale_up_events.capacity() == capacities[1]);
    CHECK(state.scale_down_events.capacity() == capacities[2]);
    CHECK(state.down_window.size() <= 301);  // bounded by the window
  }

  TEST_CASE("autoscaler: huge per-pod samples saturate the sum instead of overflowing") {
    // Found by tests/fuzz/autoscaler.fuzz.cpp: ten samples of 1e16 are 1e19 milli-units in
    // all, past int64; the sum wrapped negative (undefined behaviour) and scaled down.
    const autoscaler a(config_with(pods_metric(10.0)));
    auto state = a.initial_state();
    const std::vector<pod_sample> pods(10, pod(1e16));
    const auto d = step_pods(a, state, 0s, pods);
    CHECK(d.raw_recommendation == std::numeric_limits<std::int32_t>::max());
    CHECK(d.desired_replicas == 20);  // max(2n, 4) without a behavior
    CHECK(d.reason == scale_reason::scale_up_limited);
    // Missing pods on a scale-down count as the target: the largest target a quantity holds
    // (9e15, 9e18 milli-units) times 11 missing pods must not overflow.
    const autoscaler b(config_with(pods_metric(9e15)));
    auto state_b = b.initial_state();
    std::vector<pod_sample> mixed(12, missing_pod());
    mixed[0] = pod(1.0);
    const auto e = step_pods(b, state_b, 0s, mixed);
    CHECK(e.failed_metrics == 0);
    // The sum, 1 + 11 x 9e18 milli-units, saturates at 2^63 - 1: ratio (2^63 - 1) / (12 x
    // 9e18) = 0.0854, times 12 pods = 1.0248, ceil 2 (not a wrapped, negative sum).
    CHECK(e.raw_recommendation == 2);
    CHECK(e.desired_replicas == 12);  // the 300 s down window holds the first count
  }

  TEST_CASE("autoscaler: time going backwards and misaligned spans are refused by name") {
    const autoscaler a(config_with(external_average(10.0), 1, 10));
    autoscaler_state s = a.initial_state();
    (void)step_total(a, s, 60s, 2, 20.0);
    // The same time again is fine (a retried sync); an earlier one is a caller's clock bug.
    (void)step_total(a, s, 60s, 2, 20.0);
    const autoscaler_state before = s;
    CHECK(headroom::test::rejected([&] { (void)step_total(a, s, 59s, 2, 20.0); }) == "now");
    CHECK(s == before);  // a refused step leaves the state as it was
    // Two observations for a controller configured with one metric.
    const metric_observation two[2] = {observe_value(1.0), observe_value(2.0)};
    CHECK(headroom::test::rejected([&] {
            (void)a.step(s, 120s, {.replicas = settled(2), .metrics = two});
          }) == "input.metrics.size()");
    const pod_sample negative[] = {
        {.value = quantity{.milli = 1}, .request = quantity{.milli = -1}}};
    const metric_observation bad = observe_pods(negative);
    CHECK(headroom::test::rejected([&] {
            (void)a.step(s, 120s, {.replicas = settled(2), .metrics = {&bad, 1}});
          }) == "input.metrics.pods.request");
    // initial_state(at, n) counts as a step at `at`.
    autoscaler_state seeded = a.initial_state(-60s, 3);
    CHECK(headroom::test::rejected([&] { (void)step_total(a, seeded, -61s, 3, 30.0); }) == "now");
  }

  TEST_CASE("autoscaler: windows and periods longer than a year and a day are refused") {
    // 366 days = 31 622 400 s is the longest; sums of such times in milliseconds stay far
    // from the int64 range (9.2e15 s).
    autoscaler_config c = config_with(external_average(10.0));
    c.downscale_stabilization = std::chrono::seconds{31'622'400};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }).empty());
    c.downscale_stabilization = std::chrono::seconds{31'622'401};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }) == "config.downscale_stabilization");
    c = config_with(external_average(10.0));
    c.behavior = scaling_behavior{};
    c.behavior->scale_down.stabilization_window = std::chrono::seconds::max() / 10;
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }) ==
          "config.behavior.scale_down.stabilization_window");
    c.behavior = scaling_behavior{};
    c.behavior->scale_up.policies[0].period = std::chrono::hours{24 * 400};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }) ==
          "config.behavior.scale_up.policies.period");
    c.behavior.reset();
    c.sync_period = std::chrono::hours{24 * 400};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }) == "config.sync_period");
  }

  // ---------------------------------------------------------------------------------------
  // The simulated day (docs/simulated-day.md): the controller configured as the reference
  // day program's policy, and that program transliterated as an independent oracle.
  // ---------------------------------------------------------------------------------------
  namespace {

  constexpr double day_mu = 8.0, day_aim = 0.8;

  struct day_trace {
    std::vector<std::int32_t> ready, paid;
  };

  // How the day simulator configures the controller (see docs/autoscaler.md).
  autoscaler_config day_config(std::int32_t reserve) {
    return {.min_replicas = 1,
            .max_replicas = 1'000'000,
            .metrics = {{.name = "requests_per_second",
                         .source = metric_source::external,
                         .target_type = metric_target_type::average_value,
                         .target = day_aim * day_mu}},
            .scale_up_tolerance = 0.0,
            .scale_down_tolerance = 0.0,
            .behavior = scaling_behavior{.scale_up = {.stabilization_window = 0s,
                                                      .select = select_policy::max},  // at once
                                         .scale_down = {.stabilization_window = 300s,
                                                        .select = select_policy::max}},  // 5 min
            .sync_period = 60s,
            .hold_scale_down_while_starting = true,
            .reserve_replicas = reserve};
  }

  day_trace controller_day(const std::vector<double>& rate, int start_min, std::int32_t reserve,
                           bool calendar) {
    const autoscaler a(day_config(reserve));
    const int minutes = static_cast<int>(rate.size());
    auto n = static_cast<std::int32_t>(std::ceil(rate[0] / (day_aim * day_mu))) + reserve;
    auto state = a.initial_state(-60s, n);  // the loop: ultime = [n] * 5
    std::vector<int> due;                   // minute at which each starting replica is ready
    day_trace out;
    for (int m = 0; m < minutes; ++m) {
      n += static_cast<std::int32_t>(std::count(due.begin(), due.end(), m));
      due.erase(std::remove_if(due.begin(), due.end(), [m](int p) { return p <= m; }), due.end());
      metric_observation now_obs = observe_value(rate[static_cast<std::size_t>(m)]);
      if (calendar)
        now_obs.forecast = headroom::autoscaling::to_quantity(
            rate[static_cast<std::size_t>(std::min(m + start_min, minutes - 1))]);
      const auto starting = static_cast<std::int32_t>(due.size());
      const auto d = a.step(state, std::chrono::minutes{m},
                            {.replicas = {.spec = n + starting, .status = n + starting, .ready = n},
                             .metrics = {&now_obs, 1}});
      if (d.delta() > 0) due.insert(due.end(), static_cast<std::size_t>(d.delta()), m + start_min);
      if (d.delta() < 0) n += d.delta();
      out.ready.push_back(n);
      out.paid.push_back(n + static_cast<std::int32_t>(due.size()));
    }
    return out;
  }

  // The reference day program (docs/simulated-day.md), line by line.
  day_trace reference_day_loop(const std::vector<double>& arrivi, int avvio, int riserva,
                               bool calendario) {
    const auto servono = [&](double tasso) {
      return static_cast<int>(std::ceil(tasso / (day_aim * day_mu))) + riserva;
    };
    const int minutes = static_cast<int>(arrivi.size());
    int n = servono(arrivi[0]);
    std::vector<int> ultime(5, n), chiamate;
    day_trace out;
    for (int m = 0; m < minutes; ++m) {
      n += static_cast<int>(std::count(chiamate.begin(), chiamate.end(), m));
      chiamate.erase(
          std::remove_if(chiamate.begin(), chiamate.end(), [m](int p) { return !(p > m); }),
          chiamate.end());
      const double davanti =
          calendario ? arrivi[static_cast<std::size_t>(std::min(m + avvio, minutes - 1))] : 0.0;
      const int voglio = servono(std::max(arrivi[static_cast<std::size_t>(m)], davanti));
      ultime.erase(ultime.begin());
      ultime.push_back(voglio);
      const int pending = static_cast<int>(chiamate.size());
      const int top = *std::max_element(ultime.begin(), ultime.end());
      if (voglio > n + pending)
        chiamate.insert(chiamate.end(), static_cast<std::size_t>(voglio - n - pending), m + avvio);
      else if (top < n && chiamate.empty())
        n = top;
      out.ready.push_back(n);
      out.paid.push_back(n + static_cast<int>(chiamate.size()));
    }
    return out;
  }

  std::vector<double> reference_day() {
    std::vector<double> arrivi;
    for (int m = 0; m < 1440; ++m) {
      const double x = (m - 840) / 300.0;
      const double hump = std::max(0.0, 1.0 - x * x);
      double a = 12.0 + 48.0 * (hump * hump);
      if (m >= 21 * 60 && m < 21 * 60 + 20) a += 30.0;
      arrivi.push_back(a);
    }
    return arrivi;
  }

  }  // namespace

  TEST_CASE("autoscaler: simulated-day policy on a hand-made sequence") {
    // servono(r) = ceil(r / 6.4): 10 -> 2, 40 -> ceil(6.25) = 7.
    // Start 2 min. The reference loop by hand (ultime = last five, chiamate = ready minutes):
    //  m0,1: voglio 2, n 2.                 m2: voglio 7 > 2+0: call 5 due at 4 (paid 7).
    //  m3: 7 > 2+5? no; max 7 < 2? no.      m4: n = 7; m5..8: ultime keeps a 7: stay 7.
    //  m9: ultime [2,2,2,2,2], 2 < 7, nothing starting: n = 2.
    const std::vector<double> traffic{10, 10, 40, 40, 40, 10, 10, 10, 10, 10, 10, 10};
    const auto d = controller_day(traffic, 2, 0, false);
    CHECK(d.ready == std::vector<std::int32_t>{2, 2, 2, 2, 7, 7, 7, 7, 7, 2, 2, 2});
    CHECK(d.paid == std::vector<std::int32_t>{2, 2, 7, 7, 7, 7, 7, 7, 7, 2, 2, 2});
    // Start 8 min, a one-minute spike at m1: 5 called, due at 9. From m6 the last five are
    // all 2, but replicas are starting: no scale-down (the controller counts 7 and holds).
    // m9: the 5 arrive, n = 7, nothing starting, max 2 < 7: n = 2 at once.
    const std::vector<double> spike{10, 40, 10, 10, 10, 10, 10, 10, 10, 10, 10};
    const auto e = controller_day(spike, 8, 0, false);
    CHECK(e.ready == std::vector<std::int32_t>{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2});
    CHECK(e.paid == std::vector<std::int32_t>{2, 7, 7, 7, 7, 7, 7, 7, 7, 2, 2});
    // The same with the calendar (start 2): at m0 the forecast for m2 is 40 -> 7 at once.
    const auto f = controller_day(traffic, 2, 0, true);
    CHECK(f.paid[0] == 7);
    CHECK(f.ready[2] == 7);
    // All three equal the transliterated loop.
    CHECK(d.ready == reference_day_loop(traffic, 2, 0, false).ready);
    CHECK(e.paid == reference_day_loop(spike, 8, 0, false).paid);
    CHECK(f.paid == reference_day_loop(traffic, 2, 0, true).paid);
  }

  TEST_CASE("autoscaler: simulated-day policy matches the reference loop on random traffic") {
    std::mt19937_64 rng(20240605);
    const auto unit = [](std::mt19937_64& g) { return headroom::test::unit_draw(g); };
    for (int trial = 0; trial < 24; ++trial) {
      std::vector<double> rate;
      double level = 5.0 + 40.0 * unit(rng);
      for (int m = 0; m < 240; ++m) {
        level = std::clamp(
            level + 6.0 * (unit(rng) - 0.5) + (unit(rng) < 0.03 ? 40.0 * (unit(rng) - 0.4) : 0.0),
            0.5, 120.0);
        rate.push_back(level);
      }
      const int start = 1 + trial % 9;
      const std::int32_t reserve = trial % 3;
      const bool calendar = trial % 2 == 1;
      const auto ours = controller_day(rate, start, reserve, calendar);
      const auto theirs = reference_day_loop(rate, start, reserve, calendar);
      CHECK(ours.ready == theirs.ready);
      CHECK(ours.paid == theirs.paid);
    }
  }

  TEST_CASE("autoscaler: simulated day reproduces the reference table columns") {
    // The reference table of docs/simulated-day.md (paid replica-hours, minutes short,
    // minutes with a backlog): 1 min 94.4/1/2; 8 min 94.4/8/20; 3 spare 166.4/8/8; calendar
    // 96.1/0/0.
    const auto arrivi = reference_day();
    struct row {
      int start;
      std::int32_t reserve;
      bool calendar;
      double hours;
      int short_minutes, backlog_minutes;
    };
    const row rows[] = {{1, 0, false, 94.4, 1, 2},
                        {8, 0, false, 94.4, 8, 20},
                        {8, 3, false, 166.4, 8, 8},
                        {8, 0, true, 96.1, 0, 0}};
    for (const auto& r : rows) {
      const auto t = controller_day(arrivi, r.start, r.reserve, r.calendar);
      double paid = 0.0, backlog = 0.0;
      int short_minutes = 0, backlog_minutes = 0;
      for (std::size_t m = 0; m < arrivi.size(); ++m) {
        paid += t.paid[m];
        const double capacity = t.ready[m] * day_mu;
        short_minutes += arrivi[m] - capacity > 0.0 ? 1 : 0;
        backlog = std::max(0.0, backlog + (arrivi[m] - capacity) * 60.0);
        backlog_minutes += backlog > 0.0 ? 1 : 0;
      }
      CHECK(std::abs(paid / 60.0 - r.hours) < 0.05);
      CHECK(short_minutes == r.short_minutes);
      CHECK(backlog_minutes == r.backlog_minutes);
    }
    // The replicas asked at 20:59 and at 21:00: 2 and 7.
    CHECK(std::ceil(arrivi[21 * 60 - 1] / 6.4) == 2.0);
    CHECK(std::ceil(arrivi[21 * 60] / 6.4) == 7.0);
  }

  // ---------------------------------------------------------------------------------------
  // Properties over seeded random streams.
  // ---------------------------------------------------------------------------------------
  namespace {

  struct random_setup {
    autoscaler_config config;
    std::vector<double> totals;  // one per step
    std::vector<ms> times;
  };

  random_setup make_setup(std::mt19937_64& rng, int steps) {
    const auto unit = [](std::mt19937_64& g) { return headroom::test::unit_draw(g); };
    const auto small = [](std::mt19937_64& g) { return headroom::test::integer_draw(g, 1, 6); };
    random_setup r;
    auto& c = r.config;
    c.min_replicas = small(rng);
    c.max_replicas = c.min_replicas + 5 * small(rng);
    c.metrics = {external_average(1.0 + 9.0 * unit(rng))};
    c.scale_up_tolerance = 0.2 * unit(rng);
    c.scale_down_tolerance = 0.2 * unit(rng);
    c.downscale_stabilization = std::chrono::seconds{15 * (small(rng) - 1) * 10};
    if (unit(rng) < 0.7) {
      const auto random_rules = [&](std::chrono::seconds window) {
        scaling_rules rules{.stabilization_window = window,
                            .select = static_cast<select_policy>(small(rng) % 3),
                            .policies = {}};
        const int n = small(rng) % 3;
        for (int i = 0; i < n; ++i)
          rules.policies.push_back(
              {unit(rng) < 0.5 ? scaling_policy_type::pods : scaling_policy_type::percent,
               small(rng) * (unit(rng) < 0.5 ? 1 : 20), std::chrono::seconds{15 * small(rng)}});
        return rules;
      };
      c.behavior =
          scaling_behavior{.scale_up = random_rules(std::chrono::seconds{15 * (small(rng) - 1)}),
                           .scale_down = random_rules(std::chrono::seconds{30 * small(rng)})};
      // Sometimes leave the down window to the downscale-stabilization flag.
      if (unit(rng) < 0.3) c.behavior->scale_down.stabilization_window.reset();
    }
    ms t{0};
    double level = c.metrics[0].target * c.min_replicas;
    for (int i = 0; i < steps; ++i) {
      level = std::max(0.0, level * (0.6 + 0.8 * unit(rng)) + (unit(rng) - 0.5));
      r.totals.push_back(unit(rng) < 0.05 ? missing_value : level);
      t += ms{5'000 + static_cast<std::int64_t>(20'000 * unit(rng))};
      r.times.push_back(t);
    }
    return r;
  }

  }  // namespace

  TEST_CASE("autoscaler: properties over random streams (range / windows / rates)") {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 150; ++trial) {
      const auto setup = make_setup(rng, 120);
      const auto& c = setup.config;
      const autoscaler a(c);
      auto state = a.initial_state();
      std::int32_t current = c.min_replicas;
      std::vector<std::pair<ms, std::int32_t>> raws{{setup.times[0], current}};  // the first sync's
      std::vector<std::pair<ms, std::int32_t>> events;                           // signed changes
      for (std::size_t i = 0; i < setup.totals.size(); ++i) {
        const ms now = setup.times[i];
        const auto d = step_total(a, state, now, current, setup.totals[i]);
        // 1. Always within [min, max].
        REQUIRE(d.desired_replicas >= c.min_replicas);
        REQUIRE(d.desired_replicas <= c.max_replicas);
        if (d.raw_recommendation >= 0) {
          // 2. No scale-down below anything the down window still sees.
          if (d.desired_replicas < current) {
            std::int32_t floor = d.raw_recommendation;
            for (const auto& [at, rec] : raws) {
              const bool seen =
                  c.behavior ? now - at < a.scale_down_window() : now - at <= a.scale_down_window();
              if (seen) floor = std::max(floor, rec);
            }
            REQUIRE(d.desired_replicas >= floor);
          }
          raws.emplace_back(now, d.raw_recommendation);
        }
        // 3. Rate limits never exceeded.
        if (d.desired_replicas > current) {
          if (!c.behavior) {
            REQUIRE(d.desired_replicas <= std::max(2 * current, 4));
          } else {
            const auto& rules = c.behavior->scale_up;
            REQUIRE(rules.select != select_policy::disabled);
            if (!rules.policies.empty()) {
              std::int64_t bound = rules.select == select_policy::max ? 0 : std::int64_t{1} << 40;
              for (const auto& p : rules.policies) {
                std::int64_t start = current;
                for (const auto& [at, change] : events)
                  if (now - at < p.period) start -= change;
                const std::int64_t allowed =
                    p.type == scaling_policy_type::pods
                        ? start + p.value
                        : static_cast<std::int64_t>(
                              std::ceil(static_cast<double>(start) * (1.0 + p.value / 100.0)));
                bound = rules.select == select_policy::max ? std::max(bound, allowed)
                                                           : std::min(bound, allowed);
              }
              REQUIRE(d.desired_replicas <= bound);
            }
          }
        }
        if (d.desired_replicas < current && c.behavior) {
          const auto& rules = c.behavior->scale_down;
          REQUIRE(rules.select != select_policy::disabled);
          if (!rules.policies.empty()) {
            std::int64_t bound = rules.select == select_policy::max ? std::int64_t{1} << 40
                                                                    : -(std::int64_t{1} << 40);
            for (const auto& p : rules.policies) {
              std::int64_t start = current;
              for (const auto& [at, change] : events)
                if (now - at < p.period) start -= change;
              const std::int64_t allowed =
                  p.type == scaling_policy_type::pods
                      ? start - p.value
                      : static_cast<std::int64_t>(
                            std::trunc(static_cast<double>(start) * (1.0 - p.value / 100.0)));
              bound = rules.select == select_policy::max ? std::min(bound, allowed)
                                                         : std::max(bound, allowed);
            }
            REQUIRE(d.desired_replicas >= std::max<std::int64_t>(bound, c.min_replicas));
          }
        }
        if (d.desired_replicas != current) events.emplace_back(now, d.desired_replicas - current);
        current = d.desired_replicas;
      }
    }
  }

  TEST_CASE("autoscaler: a metric inside the tolerance band never moves the count") {
    std::mt19937_64 rng(11);
    const auto unit = [](std::mt19937_64& g) { return headroom::test::unit_draw(g); };
    for (int trial = 0; trial < 100; ++trial) {
      auto c = config_with(trial % 2 == 0 ? external_average(10.0) : pods_metric(10.0), 1, 50);
      c.scale_up_tolerance = 0.05 + 0.1 * unit(rng);
      c.scale_down_tolerance = 0.05 + 0.1 * unit(rng);
      if (trial % 3 == 0) c.behavior = scaling_behavior{};
      const autoscaler a(c);
      auto state = a.initial_state();
      const auto current = static_cast<std::int32_t>(1 + trial % 20);
      for (int i = 0; i < 40; ++i) {
        // A ratio strictly inside [1 - down, 1 + up], away from the edges by 1 %.
        const double lo = 1.0 - c.scale_down_tolerance + 0.01,
                     hi = 1.0 + c.scale_up_tolerance - 0.01;
        const double ratio = lo + (hi - lo) * unit(rng);
        autoscaler_decision d;
        if (trial % 2 == 0) {
          d = step_total(a, state, std::chrono::seconds{15 * i}, current, 10.0 * ratio * current);
        } else {
          std::vector<pod_sample> v(static_cast<std::size_t>(current), pod(10.0 * ratio));
          d = step_pods(a, state, std::chrono::seconds{15 * i}, v);
        }
        REQUIRE(d.desired_replicas == current);
        REQUIRE(d.reason == scale_reason::within_tolerance);
      }
    }
  }

  TEST_CASE("autoscaler: restoring saved state yields the same future decisions") {
    std::mt19937_64 rng(99);
    for (int trial = 0; trial < 60; ++trial) {
      auto setup = make_setup(rng, 100);
      const autoscaler a(setup.config);
      auto state = a.initial_state();
      std::int32_t current = setup.config.min_replicas;
      autoscaler_state saved;
      std::int32_t saved_current = 0;
      std::vector<std::int32_t> first_run;
      for (std::size_t i = 0; i < setup.totals.size(); ++i) {
        if (i == 50) {
          saved = state;  // checkpoint
          saved_current = current;
        }
        const auto d = step_total(a, state, setup.times[i], current, setup.totals[i]);
        if (i >= 50) first_run.push_back(d.desired_replicas);
        current = d.desired_replicas;
      }
      // A new controller object (a restarted operator) continues from the checkpoint.
      const autoscaler restarted(setup.config);
      auto restored = saved;
      CHECK(restored == saved);
      current = saved_current;
      std::vector<std::int32_t> second_run;
      for (std::size_t i = 50; i < setup.totals.size(); ++i) {
        const auto d = step_total(restarted, restored, setup.times[i], current, setup.totals[i]);
        second_run.push_back(d.desired_replicas);
        current = d.desired_replicas;
      }
      REQUIRE(first_run == second_run);
      CHECK(restored == state);
    }
  }

  // ---- the zero-replica rule of each Kubernetes release -------------------------------------
  // Upstream: kubernetes/kubernetes pkg/controller/podautoscaler horizontal.go and
  // horizontal_test.go. The rule changed in kubernetes#135118 ("HPA condition based scaling to
  // zero", commit 6bebe8d3a29a71ba7bb9d345d7e8464b416c2dfc, merged as b865748c1c721107e6457101
  // ac55f7dbfa9d6212; first released in v1.36.0, whose k8s.io/api v0.36.0 is the first tag with
  // the ScaledToZero condition type):
  //  - 1.33 to 1.35 (reconcileAutoscaler before that commit): `if currentReplicas == 0 &&
  //    minReplicas != 0` -> ScalingDisabled, else the metrics are computed, so minReplicas 0
  //    alone lets the HPA scale up from zero; HPAScaleToZero is read by the API server only.
  //  - 1.36 (shouldComputeMetricsForZeroReplicas): at zero the metrics are computed only when
  //    `(minReplicas != 0 && scaledToZeroCondition) || canScaleFromZero`, where
  //    scaledToZeroCondition = the HPAScaleToZero gate && status ScaledToZero=True and
  //    canScaleFromZero adds an Object or External metric; a raised minReplicas is then a
  //    floor; the condition is set on every rescale with the gate, removed without it.
  // The vectors are upstream's own test cases: before #135118 as horizontal_test.go reads up
  // to that commit (the pre-1.33 revision stored with the 1.33 to 1.35 text of these tests),
  // and after it as at 88cca8337e1ddf5b2e8b7411ffa27bc2f27d980e (the gate off by default, as
  // released in 1.36), the gate-on and gate-off halves of each FG loop. The harness: no
  // behavior, a 5-minute down window, tolerance 0.1; `recommendations: nil` plants {current,
  // now}, `[]timestampedRecommendation{}` plants nothing.
  namespace {
  enum class history { none_recorded, empty_list };
  struct zero_case {
    const char* test;  // upstream's test name
    std::int32_t min = 0, max = 6, spec = 0;
    metric_spec metric{};
    std::optional<std::int64_t> value_milli{};  // Object/External
    std::vector<pod_sample> pods{};             // Resource cpu
    history recommendations = history::none_recorded;
    bool scaled_to_zero = false;  // initialConditions: ScaledToZero True
    std::int32_t computed = 0;    // expectedDesiredReplicas when the metrics are computed
  };
  struct zero_outcome {
    std::int32_t desired = 0;
    headroom::autoscaling::hpa_conditions conditions{};
  };
  zero_outcome zero_sync(const zero_case& c, headroom::autoscaling::kubernetes_version version) {
    autoscaler_config config = config_with(c.metric, c.min, c.max);
    config.kubernetes = version;
    const autoscaler a(config);
    const std::vector<timestamped_recommendation> none;
    headroom::autoscaling::hpa_history h{
        .scaled_to_zero = c.scaled_to_zero ? condition_status::is_true : condition_status::unset};
    if (c.recommendations == history::empty_list)
      h.recommendations = std::span<const timestamped_recommendation>(none);
    auto s = a.state_from_history(h);
    const metric_observation obs =
        c.value_milli ? metric_observation{.value = quantity{.milli = *c.value_milli}}
                      : observe_pods(c.pods);
    const auto d = a.step(s, 0s, {.replicas = settled(c.spec), .metrics = {&obs, 1}});
    return {.desired = d.desired_replicas, .conditions = d.conditions};
  }
  metric_spec object_value(double target) {
    return {.name = "qps",
            .source = metric_source::object,
            .target_type = metric_target_type::value,
            .target = target};
  }
  headroom::autoscaling::hpa_condition is(condition_status status, hpa_reason reason) {
    return {.status = status, .reason = reason};
  }
  constexpr auto T = condition_status::is_true;
  constexpr auto F = condition_status::is_false;
  // statusOk: AbleToScale SucceededRescale, ScalingActive ValidMetricFound, ScalingLimited False
  // DesiredWithinRange, and the ScaledToZero condition as given (unset: absent).
  headroom::autoscaling::hpa_conditions status_ok(headroom::autoscaling::hpa_condition zero = {}) {
    return {.able_to_scale = is(T, hpa_reason::succeeded_rescale),
            .scaling_active = is(T, hpa_reason::valid_metric_found),
            .scaling_limited = is(F, hpa_reason::desired_within_range),
            .scaled_to_zero = zero};
  }
  // ScalingDisabled: AbleToScale SucceededGetScale, ScalingActive False ScalingDisabled.
  const headroom::autoscaling::hpa_conditions disabled{
      .able_to_scale = is(T, hpa_reason::succeeded_get_scale),
      .scaling_active = is(F, hpa_reason::scaling_disabled)};
  const zero_case up_from_zero{.test = "TestScaleUpFromZeroCMObject",
                               .metric = object_value(15.0),
                               .value_milli = 20000,
                               .computed = 2};  // ceil(20 / 15)
  const zero_case ignores_tolerance{.test = "TestScaleUpFromZeroIgnoresToleranceCMObject",
                                    .metric = object_value(1.0),
                                    .value_milli = 1000,
                                    .computed = 1};  // ratio 1, no band at zero
  const zero_case down_to_zero_object{.test = "TestScaleDownToZeroCMObject",
                                      .spec = 5,
                                      .metric = object_value(20.0),
                                      .value_milli = 0,
                                      .recommendations = history::empty_list};
  const zero_case down_to_zero_external{.test = "TestScaleDownToZeroCMExternal",
                                        .spec = 5,
                                        .metric = external_value(14.4),
                                        .value_milli = 0,
                                        .recommendations = history::empty_list};
  const zero_case zero_replicas{
      .test = "TestZeroReplicas", .min = 3, .max = 5, .metric = utilization_metric(90)};
  // CPU 300m, 500m and 700m of 1 CPU each: 50 % against 30 %, ceil(1.667 x 3) = 5.
  const zero_case normal_rescale{.test = "TestScaledToZeroConditionHandledOnNormalRescale",
                                 .min = 1,
                                 .spec = 3,
                                 .metric = utilization_metric(30),
                                 .pods = pods_at({0.3, 0.5, 0.7}),
                                 .scaled_to_zero = true};
  }  // namespace

  TEST_CASE("autoscaler: 1.33 to 1.35 scale up from zero on minReplicas 0 alone") {
    // horizontal_test.go before kubernetes#135118; the controller reads no gate, and the
    // ScaledToZero condition does not exist (never set, never read).
    for (const std::int32_t minor : {33, 34, 35})
      for (const bool gate : {false, true}) {
        CAPTURE(minor);
        CAPTURE(gate);
        const headroom::autoscaling::kubernetes_version v{.minor = minor,
                                                          .hpa_scale_to_zero = gate};
        for (const zero_case& c : {up_from_zero, ignores_tolerance}) {
          CAPTURE(c.test);
          const zero_outcome o = zero_sync(c, v);
          CHECK(o.desired == c.computed);
          CHECK(o.conditions == status_ok());
          // A ScaledToZero in the history is not read either.
          zero_case with_condition = c;
          with_condition.scaled_to_zero = true;
          CHECK(zero_sync(with_condition, v).conditions == status_ok());
        }
        for (const zero_case& c : {down_to_zero_object, down_to_zero_external}) {
          CAPTURE(c.test);
          const zero_outcome o = zero_sync(c, v);
          CHECK(o.desired == 0);
          CHECK(o.conditions == status_ok());
        }
        CHECK(zero_sync(zero_replicas, v).desired == 0);
        CHECK(zero_sync(zero_replicas, v).conditions == disabled);
      }
  }

  TEST_CASE("autoscaler: 1.36 scales up from zero only under ScaledToZero, with the gate") {
    const headroom::autoscaling::kubernetes_version on{.minor = 36, .hpa_scale_to_zero = true};
    const headroom::autoscaling::kubernetes_version off{.minor = 36, .hpa_scale_to_zero = false};
    const auto not_zero = is(F, hpa_reason::not_scaled_to_zero);
    for (zero_case c : {up_from_zero, ignores_tolerance}) {
      CAPTURE(c.test);
      // TestScaleUpFromZeroWithoutCondition: no condition, disabled with the gate on or off.
      CHECK(zero_sync(c, on).desired == 0);
      CHECK(zero_sync(c, on).conditions == disabled);
      c.scaled_to_zero = true;  // initialConditions: ScaledToZero True
      const zero_outcome gate_on = zero_sync(c, on);
      CHECK(gate_on.desired == c.computed);
      CHECK(gate_on.conditions == status_ok(not_zero));
      const zero_outcome gate_off = zero_sync(c, off);
      CHECK(gate_off.desired == 0);
      CHECK(gate_off.conditions == disabled);
    }
    // TestScaleUpFromZeroWhenMinReplicasIncreased: Object value 10 against 15 asks for 1; the
    // raised minimum 2 is the floor (ScalingLimited True TooFewReplicas).
    zero_case raised{.test = "TestScaleUpFromZeroWhenMinReplicasIncreased",
                     .min = 2,
                     .metric = object_value(15.0),
                     .value_milli = 10000,
                     .scaled_to_zero = true};
    const zero_outcome floor = zero_sync(raised, on);
    CHECK(floor.desired == 2);
    CHECK(floor.conditions == headroom::autoscaling::hpa_conditions{
                                  .able_to_scale = is(T, hpa_reason::succeeded_rescale),
                                  .scaling_active = is(T, hpa_reason::valid_metric_found),
                                  .scaling_limited = is(T, hpa_reason::too_few_replicas),
                                  .scaled_to_zero = not_zero});
    CHECK(zero_sync(raised, off).desired == 0);
    CHECK(zero_sync(raised, off).conditions == disabled);
    // Before 1.36 the same HPA stays at zero: currentReplicas 0 with minReplicas 2.
    CHECK(zero_sync(raised, {.minor = 35}).conditions == disabled);
    // TestScaleDownToZeroCM{Object,External}: ScaledToZero True with the gate, absent without.
    for (const zero_case& c : {down_to_zero_object, down_to_zero_external}) {
      CAPTURE(c.test);
      CHECK(zero_sync(c, on).desired == 0);
      CHECK(zero_sync(c, on).conditions == status_ok(is(T, hpa_reason::scaled_to_zero)));
      CHECK(zero_sync(c, off).conditions == status_ok());
    }
    // TestScaledToZeroConditionHandledOnNormalRescale: a rescale from 3 sets False with the
    // gate; without it the stale condition is removed.
    CHECK(zero_sync(normal_rescale, on).desired == 5);
    CHECK(zero_sync(normal_rescale, on).conditions == status_ok(not_zero));
    CHECK(zero_sync(normal_rescale, off).desired == 5);
    CHECK(zero_sync(normal_rescale, off).conditions == status_ok());
    // TestManualScaleToZeroDisablesHPA and TestZeroReplicas: scaled to zero by hand, the HPA
    // stays disabled.
    const zero_case manual{
        .test = "TestManualScaleToZeroDisablesHPA", .min = 1, .metric = utilization_metric(50)};
    for (const auto& v : {on, off}) {
      CHECK(zero_sync(manual, v).conditions == disabled);
      CHECK(zero_sync(zero_replicas, v).conditions == disabled);
    }
    // No release named (minor 0): 1.36's rule with every gate on, as before the setting.
    CHECK(zero_sync(up_from_zero, {}).desired == 0);
    zero_case marked = up_from_zero;
    marked.scaled_to_zero = true;
    CHECK(zero_sync(marked, {}).desired == 2);
  }

  TEST_CASE("autoscaler: a history tells none recorded from an empty list, as nil from {}") {
    // TestScaleDownStabilizeInitialSize (recommendations nil) and TestScaleDown ([] {}): CPU
    // 100m, 300m, 500m, 250m and 250m of 1 CPU on 5 replicas, target 50 %: 28 %, ceil(0.56
    // x 5) = 3. With none recorded the first sync plants {5, now}, and the 5-minute window
    // holds 5 (AbleToScale ScaleDownStabilized); with an empty list it scales down to 3.
    autoscaler_config config = config_with(utilization_metric(50), 2, 6);
    const autoscaler a(config);
    const auto pods = pods_at({0.1, 0.3, 0.5, 0.25, 0.25});
    const metric_observation obs = observe_pods(pods);
    auto held = a.state_from_history({});
    const auto d_held = a.step(held, 0s, {.replicas = settled(5), .metrics = {&obs, 1}});
    CHECK(d_held.desired_replicas == 5);
    CHECK(d_held.conditions.able_to_scale == is(T, hpa_reason::scale_down_stabilized));
    const std::vector<timestamped_recommendation> none;
    auto empty = a.state_from_history({.recommendations = std::span(none)});
    const auto d_empty = a.step(empty, 0s, {.replicas = settled(5), .metrics = {&obs, 1}});
    CHECK(d_empty.desired_replicas == 3);
    CHECK(d_empty.conditions == status_ok(is(F, hpa_reason::not_scaled_to_zero)));
  }
}  // TEST_SUITE

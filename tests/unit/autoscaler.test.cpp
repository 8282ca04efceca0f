// SPDX-License-Identifier: Apache-2.0
// Tests of headroom/autoscaler.hpp. Expected values are documented Kubernetes HPA / Knative
// KPA behaviour (worked by hand in the comments), SPEC.md's numbers, and the seed's
// simulated-day program and table (seeds/000_*.txt, "Il tempo di accendere").
#include <headroom/autoscaler.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using headroom::autoscaler;
using headroom::autoscaler_config;
using headroom::autoscaler_decision;
using headroom::autoscaler_input;
using headroom::autoscaler_state;
using headroom::metric_observation;
using headroom::metric_source;
using headroom::metric_spec;
using headroom::metric_target_type;
using headroom::observe_replicas;
using headroom::observe_total;
using headroom::replica_sample;
using headroom::scale_reason;
using headroom::scaling_behavior;
using headroom::scaling_policy;
using headroom::scaling_policy_type;
using headroom::scaling_rules;
using headroom::select_policy;
using ms = std::chrono::milliseconds;

constexpr double missing_value = std::numeric_limits<double>::quiet_NaN();

metric_spec pods_metric(double target) {
  return {"inflight", metric_source::pods, metric_target_type::average_value, target};
}
metric_spec utilization_metric(double target_percent) {
  return {"cpu", metric_source::resource, metric_target_type::utilization, target_percent};
}
metric_spec external_average(double target) {
  return {"rate", metric_source::external, metric_target_type::average_value, target};
}
metric_spec external_value(double target) {
  return {"queue", metric_source::external, metric_target_type::value, target};
}

// Behavior with no rate limits and no stabilization: desired = the raw recommendation.
scaling_behavior unlimited_behavior() {
  return {scaling_rules{0s, select_policy::max, {}}, scaling_rules{0s, select_policy::max, {}}};
}

autoscaler_config config_with(metric_spec metric, std::int32_t min_r = 1,
                              std::int32_t max_r = 100) {
  autoscaler_config c;
  c.min_replicas = min_r;
  c.max_replicas = max_r;
  c.metrics = {std::move(metric)};
  return c;
}

// One step with one total observation.
autoscaler_decision step_total(const autoscaler& a, autoscaler_state& s, ms now, std::int32_t ready,
                               double total, std::int32_t starting = 0) {
  const metric_observation obs = observe_total(total);
  return a.step(s, now, autoscaler_input{ready, starting, {&obs, 1}, {}, {}});
}

// One step with per-replica samples: ready samples are ready replicas, the rest starting.
autoscaler_decision step_samples(const autoscaler& a, autoscaler_state& s, ms now,
                                 const std::vector<replica_sample>& samples) {
  std::int32_t ready = 0;
  for (const auto& r : samples) ready += r.ready ? 1 : 0;
  const auto starting = static_cast<std::int32_t>(samples.size()) - ready;
  const metric_observation obs = observe_replicas(samples);
  return a.step(s, now, autoscaler_input{ready, starting, {&obs, 1}, {}, {}});
}

std::vector<replica_sample> samples(std::initializer_list<double> values) {
  std::vector<replica_sample> out;
  for (double v : values) out.push_back({v, true});
  return out;
}
constexpr replica_sample unready{missing_value, false};

}  // namespace

TEST_SUITE("autoscaler") {
  TEST_CASE("autoscaler: SPEC example / target 10 per replica / 4 replicas") {
    // 80 in flight on 4 replicas = 20 each, target 10: ratio 2, ceil(2 x 4) = 8.
    // No behavior: the scale-up limit is max(2 x 4, 4) = 8, so 8 passes.
    autoscaler a(config_with(pods_metric(10.0)));
    auto s = a.initial_state();
    auto d = step_samples(a, s, 0s, samples({20, 20, 20, 20}));
    CHECK(d.desired_replicas == 8);
    CHECK(d.reason == scale_reason::desired_within_range);
    CHECK(d.delta() == 4);
    // 10.5 each: ratio 1.05 <= 1 + 0.1, inside the band: nothing moves.
    s = a.initial_state();
    d = step_samples(a, s, 0s, samples({10.5, 10.5, 10.5, 10.5}));
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
    auto d = step_samples(a, s, 0s, samples({100, 100, 100}));
    CHECK(d.raw_recommendation == 30);
    CHECK(d.desired_replicas == 6);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // 1 replica at 100: raw 10; limit max(2, 4) = 4.
    s = a.initial_state();
    CHECK(step_samples(a, s, 0s, samples({100})).desired_replicas == 4);
    // max_replicas 5 < limit 6: capped by max, reason TooManyReplicas.
    autoscaler capped(config_with(pods_metric(10.0), 1, 5));
    s = capped.initial_state();
    d = step_samples(capped, s, 0s, samples({100, 100, 100}));
    CHECK(d.desired_replicas == 5);
    CHECK(d.reason == scale_reason::too_many_replicas);
  }

  TEST_CASE("autoscaler: default behavior scale-up is Max(Pods 4 / Percent 100) per 15 s") {
    auto c = config_with(pods_metric(10.0));
    c.behavior = scaling_behavior{};
    autoscaler a(c);
    auto s = a.initial_state();
    // t=0: 3 replicas, raw 30. start = 3: Pods 3+4 = 7, Percent ceil(3 x 2) = 6, Max -> 7.
    auto d = step_samples(a, s, 0s, samples({100, 100, 100}));
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // t=5: event +4 is 5 s old (< 15): start = 7 - 4 = 3, limit 7 again: hold.
    const auto seven = std::vector<replica_sample>(7, replica_sample{100, true});
    d = step_samples(a, s, 5s, seven);
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::scale_up_limited);
    // t=15: the event is 15 s old, not < 15: start = 7, Pods 11, Percent 14 -> 14.
    d = step_samples(a, s, 15s, seven);
    CHECK(d.desired_replicas == 14);
  }

  TEST_CASE("autoscaler: scale-down stabilization over 300 s and its boundary") {
    // External AverageValue target 10. t=0: 10 replicas, total 100: ratio 1, in band, raw 10.
    // Then total 20: raw ceil(20/10) = 2 every 15 s. The history holds 10 (seed and t=0).
    SUBCASE("with a behavior: a recommendation counts iff age < 300 s") {
      auto c = config_with(external_average(10.0));
      c.behavior = scaling_behavior{};
      autoscaler a(c);
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
        scaling_rules{0s, select_policy::max, {{scaling_policy_type::percent, 50, 60s}}},
        scaling_rules{0s, select_policy::max, {{scaling_policy_type::percent, 50, 60s}}}};
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
    c.behavior->scale_up.policies = {{scaling_policy_type::percent, 10, 60s}};
    c.behavior->scale_down.policies = {{scaling_policy_type::percent, 10, 60s}};
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
      c.behavior = scaling_behavior{scaling_rules{0s,
                                                  up,
                                                  {{scaling_policy_type::pods, 4, 15s},
                                                   {scaling_policy_type::percent, 100, 15s}}},
                                    scaling_rules{0s,
                                                  down,
                                                  {{scaling_policy_type::pods, 4, 15s},
                                                   {scaling_policy_type::percent, 50, 15s}}}};
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
        scaling_rules{0s, select_policy::max, {{scaling_policy_type::pods, 2, 60s}}},
        scaling_rules{0s, select_policy::max, {{scaling_policy_type::pods, 1, 60s}}}};
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

  TEST_CASE("autoscaler: missing and not-ready replicas follow the HPA's rules") {
    // Pods metric target 10, no rate limits or windows, so desired = raw.
    auto c = config_with(pods_metric(10.0));
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    const auto run = [&](const std::vector<replica_sample>& v) {
      auto s = a.initial_state();
      return step_samples(a, s, 0s, v);
    };
    // Scale down with a missing replica: ratio 5/10 = 0.5; missing counts as the target (10):
    // (5+5+5+10)/4 = 6.25 -> 0.625; ceil(0.625 x 4) = ceil(2.5) = 3.
    CHECK(run({{5, true}, {5, true}, {5, true}, {missing_value, true}}).desired_replicas == 3);
    // Scale up with a missing replica: ratio 2; missing counts as 0: 60/4 = 15 -> 1.5;
    // ceil(1.5 x 4) = 6 (ignoring it would give ceil(2 x 3) = 6 too, so also check 2 missing:
    // 40/4 = 10 -> ratio 1.0, inside the band: hold 4).
    CHECK(run({{20, true}, {20, true}, {20, true}, {missing_value, true}}).desired_replicas == 6);
    CHECK(run({{20, true}, {20, true}, {missing_value, true}, {missing_value, true}})
              .desired_replicas == 4);
    // Not ready on a scale up counts as 0: 3 x 20 + 0 over 4 = 15 -> ceil(6) = 6; two not
    // ready: 40/4 = 10 -> in band, hold 4.
    CHECK(run({{20, true}, {20, true}, {20, true}, unready}).desired_replicas == 6);
    auto d = run({{20, true}, {20, true}, unready, unready});
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::within_tolerance);
    // Not ready on a scale down stays excluded: ratio 0.5 over the 2 ready: ceil(1) = 1.
    CHECK(run({{5, true}, {5, true}, unready, unready}).desired_replicas == 1);
    // Direction flip: 11.5 is a scale up (1.15) but with 3 missing at 0 the average is
    // 11.5/4 = 2.875 (ratio 0.2875 < 1): hold.
    CHECK(run({{11.5, true}, {missing_value, true}, {missing_value, true}, {missing_value, true}})
              .desired_replicas == 4);
    // No ready replica reported: the metric is missing, hold.
    d = run({unready, unready});
    CHECK(d.desired_replicas == 2);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.first_failed_metric == 0);
  }

  TEST_CASE("autoscaler: utilization fallback max(target / 100 %) and integer truncation") {
    auto c = config_with(utilization_metric(150.0));
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    auto s = a.initial_state();
    // Target 150 %: 3 at 60 % (ratio 0.4), one missing counted at max(150, 100) = 150:
    // (180 + 150)/4 = 82.5 -> 82 % -> 82/150 = 0.5467; ceil(0.5467 x 4) = ceil(2.19) = 3.
    // (A fallback of 100 % would give 70 % -> ceil(1.87) = 2.)
    CHECK(step_samples(a, s, 0s, {{60, true}, {60, true}, {60, true}, {missing_value, true}})
              .desired_replicas == 3);
    // Target 50 % (< 100): 4 at 10 % (ratio 0.2), one missing counted at max(50, 100) = 100:
    // 140/5 = 28 % -> 0.56; ceil(0.56 x 5) = ceil(2.8) = 3. (Counting it at the target, 50 %,
    // would give 18 % -> ceil(1.8) = 2.)
    auto c50 = config_with(utilization_metric(50.0));
    c50.behavior = unlimited_behavior();
    autoscaler fifty_unlimited(c50);
    s = fifty_unlimited.initial_state();
    CHECK(step_samples(fifty_unlimited, s, 0s,
                       {{10, true}, {10, true}, {10, true}, {10, true}, {missing_value, true}})
              .desired_replicas == 3);
    // Target 50 %: 55, 55, 56 -> 55.33 truncated to 55 % -> ratio 1.1, inside the band.
    // Untruncated, 1.1067 > 1.1 would ask ceil(3.32) = 4.
    autoscaler fifty(config_with(utilization_metric(50.0)));
    s = fifty.initial_state();
    CHECK(step_samples(fifty, s, 0s, samples({55, 55, 56})).desired_replicas == 3);
    // Pods metric averages are truncated to milli-units: target 1, samples 1.100, 1.100,
    // 1.101 -> 3301/3 = 1100 milli -> ratio 1.1, in band (untruncated 1.1003 is not).
    autoscaler milli(config_with(pods_metric(1.0)));
    s = milli.initial_state();
    CHECK(step_samples(milli, s, 0s, samples({1.100, 1.100, 1.101})).desired_replicas == 3);
  }

  TEST_CASE("autoscaler: AverageValue and Value from zero / and scale to zero") {
    auto c = config_with(external_average(5.0), 0, 100);
    autoscaler a(c);
    auto s = a.initial_state();
    // 0 replicas, total 12, target 5: ceil(12/5) = ceil(2.4) = 3 (limit max(0, 4) = 4).
    auto d = step_total(a, s, 0s, 0, 12.0);
    CHECK(d.desired_replicas == 3);
    // Nothing to do: total 0 at 0 replicas stays 0.
    s = a.initial_state();
    CHECK(step_total(a, s, 0s, 0, 0.0).desired_replicas == 0);
    // Value target 5 from zero: ceil(12/5) = 3, no tolerance test.
    autoscaler v(config_with(external_value(5.0), 0, 100));
    s = v.initial_state();
    CHECK(step_total(v, s, 0s, 0, 12.0).desired_replicas == 3);
    // Value with replicas: ratio 12/5 = 2.4 times the ready count 2 -> ceil(4.8) = 5.
    s = v.initial_state();
    CHECK(step_total(v, s, 0s, 2, 12.0).desired_replicas == 4);  // no behavior: max(2x2, 4) = 4
    // Scale to zero: 2 replicas, total 0 -> ceil(0) = 0; no windows or limits in the way.
    c.behavior = unlimited_behavior();
    autoscaler zero(c);
    s = zero.initial_state();
    CHECK(step_total(zero, s, 0s, 2, 0.0).desired_replicas == 0);
  }

  TEST_CASE("autoscaler: several metrics take the max and hold when one fails") {
    auto c = config_with(external_average(10.0));
    c.metrics.push_back(external_average(10.0));
    c.behavior = unlimited_behavior();
    autoscaler a(c);
    const auto run = [&](double first, double second) {
      auto s = a.initial_state();
      const std::array<metric_observation, 2> obs{observe_total(first), observe_total(second)};
      return a.step(s, 0s, autoscaler_input{4, 0, obs, {}, {}});
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
    // First missing, second asks ceil(10/10) = 1 < 4: hold, metric 0 missing.
    d = run(missing_value, 10.0);
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.metric_index == 0);
    // All missing (NaN, infinity): hold.
    d = run(missing_value, std::numeric_limits<double>::infinity());
    CHECK(d.desired_replicas == 4);
    CHECK(d.reason == scale_reason::metric_missing);
    // A shorter observation span leaves metric 1 missing; no observations at all: hold.
    auto s = a.initial_state();
    const metric_observation one = observe_total(10.0);
    CHECK(a.step(s, 0s, autoscaler_input{4, 0, {&one, 1}, {}, {}}).reason ==
          scale_reason::metric_missing);
    CHECK(a.step(s, 1s, autoscaler_input{4, 0, {}, {}, {}}).reason == scale_reason::metric_missing);
    // A failed sync stores nothing: only the seed {4 at 0} is in the history.
    CHECK(s.recommendations.size() == 1);
  }

  TEST_CASE("autoscaler: min/max clamping rules before the metrics") {
    autoscaler a(config_with(external_average(10.0), 2, 5));
    auto s = a.initial_state();
    auto d = step_total(a, s, 0s, 8, missing_value);  // metrics not read
    CHECK(d.desired_replicas == 5);
    CHECK(d.reason == scale_reason::above_max_replicas);
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
    c = base;
    c.scale_up_tolerance = -0.1;
    CHECK(parameter_of(c) == "config.scale_up_tolerance");
    c = base;
    c.scale_down_tolerance = missing_value;
    CHECK(parameter_of(c) == "config.scale_down_tolerance");
    c = config_with(pods_metric(10.0), 0, 5);  // scale to zero needs object/external
    CHECK(parameter_of(c) == "config.min_replicas");
    c = config_with(metric_spec{"x", metric_source::pods, metric_target_type::value, 1.0});
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
    c = base;
    c.panic = headroom::panic_config{};
    c.panic->threshold = missing_value;
    CHECK(parameter_of(c) == "config.panic.threshold");
    // The message follows "name = value: requirement".
    c = base;
    c.reserve_replicas = -2;
    CHECK_THROWS_WITH_AS(autoscaler{c}, "config.reserve_replicas = -2: must be >= 0",
                         headroom::invalid_argument);
    autoscaler a(base);
    auto s = a.initial_state();
    CHECK_THROWS_AS((void)step_total(a, s, 0s, -1, 1.0), headroom::invalid_argument);
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
      // Naive: compares with the 2 ready and asks 3 more (the overshoot of SPEC "Delay").
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
    const metric_observation now_obs = observe_total(12.0), ahead = observe_total(42.0);
    auto d = a.step(s, 0s, autoscaler_input{2, 0, {&now_obs, 1}, {&ahead, 1}, {}});
    CHECK(d.desired_replicas == 7);
    CHECK(d.reason == scale_reason::forecast);
    // A NaN forecast is no forecast.
    const metric_observation none = observe_total(missing_value);
    s = a.initial_state();
    CHECK(a.step(s, 0s, autoscaler_input{2, 0, {&now_obs, 1}, {&none, 1}, {}}).desired_replicas ==
          2);
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

  TEST_CASE("autoscaler: Knative panic mode") {
    // Concurrency target 10 per replica (External AverageValue), no HPA windows or limits.
    auto c = config_with(external_average(10.0), 1, 1000);
    c.behavior = unlimited_behavior();
    c.panic = headroom::panic_config{};
    autoscaler a(c);
    auto s = a.initial_state();
    const auto run = [&](ms t, std::int32_t ready, std::int32_t starting, double stable,
                         double panic) {
      const metric_observation st = observe_total(stable), pa = observe_total(panic);
      return a.step(s, t, autoscaler_input{ready, starting, {&st, 1}, {}, {&pa, 1}});
    };
    // t=0: 2 ready, stable 20 -> 2 (in band); panic-window 60 -> ceil(60/10) = 6;
    // 6/2 = 3 >= 2: panic; desired max(2, 6) = 6 (bounds [floor(2/2), ceil(1000 x 2)]).
    auto d = run(0s, 2, 0, 20.0, 60.0);
    CHECK(d.desired_replicas == 6);
    CHECK(d.panicking);
    CHECK(d.reason == scale_reason::panic);
    // t=2 s: panic count ceil(30/10) = 3, 3/2 = 1.5 < 2, but panic lasts one stable window
    // (60 s) after t=0 and never decreases: stays 6.
    d = run(2s, 2, 4, 24.0, 30.0);
    CHECK(d.desired_replicas == 6);
    CHECK(d.reason == scale_reason::panic);
    // t=60 s: 0 + 60 is not before 60: still panic.
    CHECK(run(60s, 6, 0, 30.0, 30.0).desired_replicas == 6);
    // t=61 s: panic over; stable 30 on 6 -> ratio 0.5 -> ceil(3) = 3, bounds [3, 6000].
    d = run(61s, 6, 0, 30.0, 30.0);
    CHECK_FALSE(d.panicking);
    CHECK(d.desired_replicas == 3);
    // KPA scale-down bound: 10 ready, load gone -> raw 0, but >= floor(10/2) = 5.
    s = a.initial_state();
    CHECK(run(0s, 10, 0, 0.0, 0.0).desired_replicas == 5);
  }

  TEST_CASE("autoscaler: every reason has a distinct name") {
    std::vector<std::string> names;
    for (int r = 0; r <= static_cast<int>(scale_reason::waiting_for_starting); ++r)
      names.emplace_back(headroom::to_string(static_cast<scale_reason>(r)));
    for (const auto& n : names) CHECK_FALSE(n.empty());
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(headroom::to_string(scale_reason::scale_up_limited) == "ScaleUpLimit");
    CHECK(headroom::to_string(select_policy::disabled) == "Disabled");
    CHECK(headroom::to_string(metric_target_type::average_value) == "AverageValue");
  }

  // ---------------------------------------------------------------------------------------
  // The simulated day (SPEC §4, seeds/000_*.txt): the controller configured as the seed's
  // Python loop, and that loop transliterated as an independent oracle.
  // ---------------------------------------------------------------------------------------
  namespace {

  constexpr double day_mu = 8.0, day_aim = 0.8;

  struct day_trace {
    std::vector<std::int32_t> ready, paid;
  };

  // How the day simulator configures the controller (see docs/autoscaler.md).
  autoscaler_config day_config(std::int32_t reserve) {
    autoscaler_config c;
    c.min_replicas = 1;
    c.max_replicas = 1'000'000;
    c.metrics = {{"requests_per_second", metric_source::external, metric_target_type::average_value,
                  day_aim * day_mu}};
    c.scale_up_tolerance = 0.0;
    c.scale_down_tolerance = 0.0;
    c.behavior = scaling_behavior{scaling_rules{0s, select_policy::max, {}},     // up at once
                                  scaling_rules{300s, select_policy::max, {}}};  // last 5 min
    c.sync_period = 60s;
    c.hold_scale_down_while_starting = true;
    c.reserve_replicas = reserve;
    return c;
  }

  day_trace controller_day(const std::vector<double>& rate, int start_min, std::int32_t reserve,
                           bool calendar) {
    const autoscaler a(day_config(reserve));
    const int minutes = static_cast<int>(rate.size());
    auto n = static_cast<std::int32_t>(std::ceil(rate[0] / (day_aim * day_mu))) + reserve;
    auto state = a.initial_state(-60s, n);  // Python: ultime = [n] * 5
    std::vector<int> due;                   // minute at which each starting replica is ready
    day_trace out;
    for (int m = 0; m < minutes; ++m) {
      n += static_cast<std::int32_t>(std::count(due.begin(), due.end(), m));
      due.erase(std::remove_if(due.begin(), due.end(), [m](int p) { return p <= m; }), due.end());
      const metric_observation now_obs = observe_total(rate[static_cast<std::size_t>(m)]);
      const metric_observation ahead =
          observe_total(rate[static_cast<std::size_t>(std::min(m + start_min, minutes - 1))]);
      const auto starting = static_cast<std::int32_t>(due.size());
      const auto d = a.step(
          state, std::chrono::minutes{m},
          autoscaler_input{n,
                           starting,
                           {&now_obs, 1},
                           calendar ? std::span{&ahead, 1} : std::span<const metric_observation>{},
                           {}});
      if (d.delta() > 0) due.insert(due.end(), static_cast<std::size_t>(d.delta()), m + start_min);
      if (d.delta() < 0) n += d.delta();
      out.ready.push_back(n);
      out.paid.push_back(n + static_cast<std::int32_t>(due.size()));
    }
    return out;
  }

  // The seed's giornata(), line by line.
  day_trace python_day(const std::vector<double>& arrivi, int avvio, int riserva, bool calendario) {
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

  std::vector<double> seed_day() {
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
    // Start 2 min. Python, by hand (ultime = last five, chiamate = ready minutes):
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
    CHECK(d.ready == python_day(traffic, 2, 0, false).ready);
    CHECK(e.paid == python_day(spike, 8, 0, false).paid);
    CHECK(f.paid == python_day(traffic, 2, 0, true).paid);
  }

  TEST_CASE("autoscaler: simulated-day policy matches the seed loop on random traffic") {
    std::mt19937_64 rng(20240605);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
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
      const auto theirs = python_day(rate, start, reserve, calendar);
      CHECK(ours.ready == theirs.ready);
      CHECK(ours.paid == theirs.paid);
    }
  }

  TEST_CASE("autoscaler: simulated day reproduces the seed's table columns") {
    // Seed table (ore = paid replica-hours, minuti = minutes short, in fila = minutes with a
    // backlog): 1 min 94.4/1/2; 8 min 94.4/8/20; 3 spare 166.4/8/8; calendar 96.1/0/0.
    const auto arrivi = seed_day();
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
    // "repliche chieste: 2 alle 20:59, 7 alle 21:00".
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
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int> small(1, 6);
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
        scaling_rules rules{window, static_cast<select_policy>(small(rng) % 3), {}};
        const int n = small(rng) % 3;
        for (int i = 0; i < n; ++i)
          rules.policies.push_back(
              {unit(rng) < 0.5 ? scaling_policy_type::pods : scaling_policy_type::percent,
               small(rng) * (unit(rng) < 0.5 ? 1 : 20), std::chrono::seconds{15 * small(rng)}});
        return rules;
      };
      c.behavior = scaling_behavior{random_rules(std::chrono::seconds{15 * (small(rng) - 1)}),
                                    random_rules(std::chrono::seconds{30 * small(rng)})};
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
      std::vector<std::pair<ms, std::int32_t>> raws{{setup.times[0], current}};  // HPA seed
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
              const bool seen = c.behavior ? now - at < c.behavior->scale_down.stabilization_window
                                           : now - at <= c.downscale_stabilization;
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
    std::uniform_real_distribution<double> unit(0.0, 1.0);
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
          std::vector<replica_sample> v(static_cast<std::size_t>(current),
                                        replica_sample{10.0 * ratio, true});
          d = step_samples(a, state, std::chrono::seconds{15 * i}, v);
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
      if (trial % 4 == 0) setup.config.panic = headroom::panic_config{};
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

  TEST_CASE("autoscaler: state buffers stop growing once warm (no allocation per step)") {
    // Default behavior, 300 s down window, 1 s period: after the window has filled, every
    // step recycles an entry in place, so the vectors never reallocate again.
    auto c = config_with(external_average(10.0), 1, 1000);
    c.behavior = scaling_behavior{};
    c.sync_period = 1s;
    const autoscaler a(c);
    auto state = a.initial_state();
    const auto reserved = state.recommendations.capacity();
    CHECK(reserved >= 301);
    std::int32_t current = 10;
    const auto run = [&](int from, int to) {
      for (int i = from; i < to; ++i) {
        const double total = 10.0 * current * (i % 7 == 0 ? 1.5 : 0.7);
        current = step_total(a, state, std::chrono::seconds{i}, current, total).desired_replicas;
      }
    };
    run(0, 400);
    const auto* history = state.recommendations.data();
    const auto* ups = state.scale_up_events.data();
    const auto* downs = state.scale_down_events.data();
    const auto capacities =
        std::array{state.recommendations.capacity(), state.scale_up_events.capacity(),
                   state.scale_down_events.capacity()};
    run(400, 2000);
    CHECK(state.recommendations.data() == history);
    CHECK(state.scale_up_events.data() == ups);
    CHECK(state.scale_down_events.data() == downs);
    CHECK(state.recommendations.capacity() == capacities[0]);
    CHECK(state.scale_up_events.capacity() == capacities[1]);
    CHECK(state.scale_down_events.capacity() == capacities[2]);
    CHECK(state.recommendations.capacity() == reserved);
  }

  TEST_CASE("autoscaler: huge per-replica samples saturate the sum instead of overflowing") {
    // Found by tests/fuzz/autoscaler.fuzz.cpp: ten samples of 1e16 are 1e19 milli-units in
    // all, past int64; the sum wrapped negative (undefined behaviour) and scaled down.
    autoscaler_config c;
    c.min_replicas = 1;
    c.max_replicas = 100;
    c.metrics = {
        {"in_flight", metric_source::pods, headroom::metric_target_type::average_value, 10.0}};
    const autoscaler a(c);
    auto state = a.initial_state();
    const std::vector<headroom::replica_sample> samples(10, headroom::replica_sample{1e16, true});
    const metric_observation obs = headroom::observe_replicas(samples);
    const auto d = a.step(state, 0s, {10, 0, {&obs, 1}, {}, {}});
    CHECK(d.raw_recommendation == std::numeric_limits<std::int32_t>::max());
    CHECK(d.desired_replicas == 20);  // max(2n, 4) without a behavior
    CHECK(d.reason == headroom::scale_reason::scale_up_limited);
    // Missing replicas on a scale-down count as the target: a huge target must not overflow.
    c.metrics[0].target = 1e300;
    const autoscaler b(c);
    auto state_b = b.initial_state();
    std::vector<headroom::replica_sample> mixed(12, headroom::replica_sample{});  // NaN: missing
    mixed[0] = {1.0, true};
    const metric_observation obs_b = headroom::observe_replicas(mixed);
    const auto e = b.step(state_b, 0s, {12, 0, {&obs_b, 1}, {}, {}});
    CHECK(e.failed_metrics == 0);
    CHECK(e.raw_recommendation == 1);  // ceil(~0 × 12), then the minimum of one replica
    CHECK(e.desired_replicas == 12);   // the 300 s down window holds the first count
  }

  TEST_CASE("autoscaler: time going backwards and misaligned spans are refused by name") {
    const autoscaler a(config_with(
        {"rate", metric_source::external, metric_target_type::average_value, 10.0}, 1, 10));
    autoscaler_state s = a.initial_state();
    (void)step_total(a, s, 60s, 2, 20.0);
    // The same time again is fine (a retried sync); an earlier one is a caller's clock bug.
    (void)step_total(a, s, 60s, 2, 20.0);
    const autoscaler_state before = s;
    CHECK(headroom::test::rejected([&] { (void)step_total(a, s, 59s, 2, 20.0); }) == "now");
    CHECK(s == before);  // a refused step leaves the state as it was
    // Two observations for a controller configured with one metric.
    const metric_observation two[2] = {observe_total(1.0), observe_total(2.0)};
    CHECK(headroom::test::rejected([&] {
            (void)a.step(s, 120s, autoscaler_input{2, 0, two, {}, {}});
          }) == "input.metrics.size()");
    CHECK(headroom::test::rejected([&] {
            (void)a.step(s, 120s, autoscaler_input{2, 0, {}, two, {}});
          }) == "input.forecast.size()");
    // initial_state(at, n) counts as a step at `at`.
    autoscaler_state seeded = a.initial_state(-60s, 3);
    CHECK(headroom::test::rejected([&] { (void)step_total(a, seeded, -61s, 3, 30.0); }) == "now");
  }

  TEST_CASE("autoscaler: windows and periods longer than a year and a day are refused") {
    // 366 days = 31 622 400 s is the longest; sums of such times in milliseconds stay far
    // from the int64 range (9.2e15 s).
    autoscaler_config c =
        config_with({"rate", metric_source::external, metric_target_type::average_value, 10.0});
    c.downscale_stabilization = std::chrono::seconds{31'622'400};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }).empty());
    c.downscale_stabilization = std::chrono::seconds{31'622'401};
    CHECK(headroom::test::rejected([&] { autoscaler{c}; }) == "config.downscale_stabilization");
    c = config_with({"rate", metric_source::external, metric_target_type::average_value, 10.0});
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
}  // TEST_SUITE

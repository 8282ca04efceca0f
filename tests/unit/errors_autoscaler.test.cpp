// SPDX-License-Identifier: Apache-2.0
// The error policy of autoscaler.hpp (docs/errors.md): one TEST_CASE per row of its table.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <headroom/autoscaler.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::autoscaling;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: autoscaler constructor") {
    autoscaler_config good;
    good.metrics = {metric_spec{.name = "in_flight",
                                .source = metric_source::external,
                                .target_type = metric_target_type::average_value,
                                .target = 51.0}};
    auto c = good;
    c.min_replicas = -1;
    CHECK_REJECTS(autoscaler(c), "config.min_replicas");
    c = good;
    c.min_replicas = 5;
    c.max_replicas = 4;
    CHECK_REJECTS(autoscaler(c), "config.min_replicas");  // min > max
    c = good;
    c.max_replicas = 0;
    CHECK_REJECTS(autoscaler(c), "config.max_replicas");
    c = good;
    c.metrics = {};
    CHECK_REJECTS(autoscaler(c), "config.metrics");
    c = good;
    c.metrics[0].target = not_a_number;
    CHECK_REJECTS(autoscaler(c), "config.metrics.target");
    c = good;
    c.metrics[0].target = 0.0;
    CHECK_REJECTS(autoscaler(c), "config.metrics.target");
    c = good;
    c.scale_up_tolerance = -0.1;
    CHECK_REJECTS(autoscaler(c), "config.scale_up_tolerance");
    c = good;
    c.scale_down_tolerance = inf;
    CHECK_REJECTS(autoscaler(c), "config.scale_down_tolerance");
    c = good;
    c.sync_period = std::chrono::milliseconds{0};
    CHECK_REJECTS(autoscaler(c), "config.sync_period");
    c = good;
    c.downscale_stabilization = std::chrono::seconds{-1};
    CHECK_REJECTS(autoscaler(c), "config.downscale_stabilization");
    c = good;
    c.reserve_replicas = -1;
    CHECK_REJECTS(autoscaler(c), "config.reserve_replicas");
    c = good;
    c.behavior = scaling_behavior{};
    c.behavior->scale_up.policies[0].period = std::chrono::seconds{0};
    CHECK_REJECTS(autoscaler(c), "config.behavior.scale_up.policies.period");
    c = good;
    kpa_config k;
    k.panic_threshold = not_a_number;
    CHECK_REJECTS(autoscaler(k), "kpa.panic_threshold");
    k = kpa_config{};
    k.max_scale_down_rate = 1.0;
    CHECK_REJECTS(autoscaler(k), "kpa.max_scale_down_rate");
  }

  TEST_CASE("errors: autoscaler initial_state and step") {
    autoscaler_config config;
    config.metrics = {metric_spec{.name = "in_flight",
                                  .source = metric_source::external,
                                  .target_type = metric_target_type::average_value,
                                  .target = 10.0}};
    const autoscaler controller(config);
    CHECK_REJECTS(controller.initial_state(0ms, -1), "replicas");
    auto state = controller.initial_state();
    autoscaler_input in;
    in.replicas.spec = -1;
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.spec");
    in.replicas = {.spec = 2, .status = -1, .ready = 2};
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.status");
    in.replicas = {.spec = 2, .status = 2, .ready = -1};
    CHECK_REJECTS(controller.step(state, 0ms, in), "input.replicas.ready");
    in.replicas = {.spec = 2, .status = 2, .ready = 2};
    CHECK_REJECTS(controller.step(state, std::chrono::milliseconds::min(), in), "now");
    // A NaN or missing observation: hold, with the reason.
    const metric_observation missing[1] = {observe_value(not_a_number)};
    in.metrics = missing;
    const auto d = controller.step(state, 0ms, in);
    CHECK(d.reason == scale_reason::metric_missing);
    CHECK(d.desired_replicas == 2);
    CHECK(d.first_failed_metric == 0);
  }
}

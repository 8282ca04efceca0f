// SPDX-License-Identifier: Apache-2.0
// The error policy of kubernetes.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/kubernetes.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::autoscaling;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: kubernetes in_flight_target") {
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = not_a_number, .capacity_per_second = 8.0, .mean_sojourn = 8s}),
        "target_utilization");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.8, .capacity_per_second = 0.0, .mean_sojourn = 8s}),
                  "capacity_per_second");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 0s}),
                  "mean_sojourn");
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = nan_s}),
        "mean_sojourn");
    CHECK_REJECTS(kubernetes::in_flight_target(
                      {.target_utilization = 0.1, .capacity_per_second = 1.0, .mean_sojourn = 1s}),
                  "rounding");  // 0.1 -> 0
    CHECK_REJECTS(
        kubernetes::in_flight_target(
            {.target_utilization = 1.0, .capacity_per_second = 1e300, .mean_sojourn = 1s}),
        "capacity_per_second");
  }

  TEST_CASE("errors: kubernetes in_flight_query") {
    CHECK_REJECTS(kubernetes::in_flight_query("", "w", "m", "x"), "running_metric");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "1w", "m", "x"), "waiting_metric");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "w", "bad:label", "x"), "label_name");
    CHECK_REJECTS(kubernetes::in_flight_query("r", "w", "m", "\xc3("), "label_value");  // not UTF-8
    auto preset = prometheus::vllm_preset;
    preset.running = {};
    CHECK_REJECTS(kubernetes::in_flight_query(preset, "m"), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(kubernetes::in_flight_query(preset, "m"), "preset");
    CHECK(kubernetes::in_flight_query(preset, "") ==
          "sum(vllm:num_requests_running) + sum(vllm:num_requests_waiting)");
  }

  TEST_CASE("errors: kubernetes horizontal_pod_autoscaler_yaml") {
    const kubernetes::scaled_workload good{"llm", "serving", "llm", "Deployment", "apps/v1"};
    autoscaler_config config;
    config.metrics = {metric_spec{.name = "vllm_in_flight",
                                  .source = metric_source::pods,
                                  .target_type = metric_target_type::average_value,
                                  .target = 51.0}};
    auto w = good;
    w.name = "Bad_Name";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.name");
    w = good;
    w.namespace_name = "a.b";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.namespace_name");
    w = good;
    w.target_kind = "a/b";
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(w, config), "workload.target_kind");
    auto c = config;
    c.max_replicas = 0;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.max_replicas");
    c = config;
    c.metrics[0].target = 51.0001;  // not a whole number of milli-units
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.metrics.target");
    c = config;
    c.metrics[0].source = metric_source::object;
    c.metrics[0].target_type = metric_target_type::value;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.metrics.source");
    c = config;
    c.behavior = scaling_behavior{};
    c.behavior->scale_down.stabilization_window = std::chrono::seconds{3601};
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c),
                  "config.behavior.scale_down.stabilization_window");
    c = config;
    c.scale_up_tolerance = 1e7;
    CHECK_REJECTS(kubernetes::horizontal_pod_autoscaler_yaml(good, c), "config.scale_up_tolerance");
  }

  TEST_CASE("errors: kubernetes scaled_object_yaml") {
    const kubernetes::scaled_workload workload{
        .name = "llm", .target_name = "llm", .target_kind = "Deployment"};
    const autoscaler_config config{.min_replicas = 0,
                                   .metrics = {{.name = "in_flight",
                                                .source = metric_source::external,
                                                .target_type = metric_target_type::average_value,
                                                .target = 51.0}}};
    const kubernetes::keda_prometheus_options good{
        .server_address = "http://prometheus:9090",
        .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}};
    auto k = good;
    k.server_address = "prometheus:9090";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.server_address");
    k = good;
    k.triggers = {};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers");
    k = good;
    k.triggers[0].metric_name = "other";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers");
    k = good;
    k.triggers[0].query = " ";
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.triggers.query");
    k = good;
    k.triggers[0].activation_threshold = not_a_number;
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k),
                  "keda.triggers.activation_threshold");
    k = good;
    k.cooldown_period = std::chrono::seconds{-1};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, config, k), "keda.cooldown_period");
    auto c = config;
    c.sync_period = std::chrono::milliseconds{1500};
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, c, good), "config.sync_period");
    c = config;
    c.metrics[0].target = -1.0;
    CHECK_REJECTS(kubernetes::scaled_object_yaml(workload, c, good), "config.metrics.target");
  }
}

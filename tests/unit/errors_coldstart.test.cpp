// SPDX-License-Identifier: Apache-2.0
// The error policy of coldstart.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/coldstart.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::coldstart;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: coldstart slowest_channel") {
    const std::vector<double> with_nan{1e9, not_a_number};
    const std::vector<double> with_zero{1e9, 0.0};
    const std::vector<double> none{};
    CHECK_REJECTS(slowest_channel(with_nan), "bandwidths");
    CHECK_REJECTS(slowest_channel(with_zero), "bandwidths");
    CHECK_REJECTS((slowest_channel({1e9, -1.0})), "bandwidths");
    CHECK_REJECTS((slowest_channel({1e9, inf})), "bandwidths");
    CHECK_REJECTS(slowest_channel(none), "bandwidths");
    CHECK_REJECTS((slowest_channel(std::initializer_list<double>{})), "bandwidths");
  }

  TEST_CASE("errors: coldstart weight_load_time") {
    CHECK_REJECTS(
        (weight_load_time({.weight_bytes = not_a_number, .channel_bytes_per_second = 1e9})),
        "weight_bytes");
    CHECK_REJECTS((weight_load_time({.weight_bytes = -1.0, .channel_bytes_per_second = 1e9})),
                  "weight_bytes");
    CHECK_REJECTS((weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = 0.0})),
                  "channel_bytes_per_second");
    CHECK_REJECTS((weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = inf})),
                  "channel_bytes_per_second");
    CHECK_REJECTS(
        (weight_load_time({.weight_bytes = 1e9, .channel_bytes_per_second = 1e9, .gpus = 0})),
        "gpus");
  }

  TEST_CASE("errors: coldstart tier_channel_bandwidth and tier_weight_load_time") {
    storage_bandwidths b = typical_storage_bandwidths();
    b.local_nvme = not_a_number;
    CHECK_REJECTS(tier_channel_bandwidth(b, storage_tier::local_nvme), "bandwidths.local_nvme");
    CHECK_REJECTS((tier_weight_load_time(
                      {.weight_bytes = 1e9, .bandwidths = b, .source = storage_tier::local_nvme})),
                  "bandwidths.local_nvme");
    b = typical_storage_bandwidths();
    b.host_memory = 0.0;  // every tier but peer_gpu crosses the host link
    CHECK_REJECTS(tier_channel_bandwidth(b, storage_tier::object_store), "bandwidths.host_memory");
    CHECK(tier_channel_bandwidth(b, storage_tier::peer_gpu) == 450e9);
    CHECK_REJECTS((tier_weight_load_time({.weight_bytes = -1.0,
                                          .bandwidths = typical_storage_bandwidths(),
                                          .source = storage_tier::peer_gpu})),
                  "weight_bytes");
  }

  TEST_CASE("errors: coldstart startup_breakdown") {
    startup_breakdown b{.machine = 1s, .image = 1s, .weights = 1s, .warmup = 1s};
    b.image = nan_s;
    CHECK_REJECTS(b.start_time(), "image");
    CHECK_REJECTS(b.largest_phase(), "image");
    b.image = -1s;
    CHECK_REJECTS(b.start_time(), "image");
    b.image = 1s;
    b.warmup = inf_s;
    CHECK_REJECTS(b.start_time(), "warmup");
  }

  TEST_CASE("errors: coldstart ramp_reserve") {
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = not_a_number,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "max_ramp_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = -1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "max_ramp_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = -1s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "start_time");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.0,
                                 .capacity_per_second = 8.0})),
                  "target_utilization");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1.0,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 0.0})),
                  "capacity_per_second");
    CHECK_REJECTS((ramp_reserve({.max_ramp_per_second = 1e300,
                                 .start_time = 60s,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 1e-10})),
                  "max_ramp_per_second");  // > 2^62
    CHECK(ramp_reserve({.max_ramp_per_second = 0.0,
                        .start_time = 60s,
                        .target_utilization = 1e-300,
                        .capacity_per_second = 1e-300}) == 0);  // rho x capacity underflow: 0/0
    // ramp x start past the double range, capacity as large: 1e160 x 1e160 / 1e308 = 1e12.
    CHECK(ramp_reserve({.max_ramp_per_second = 1e160,
                        .start_time = seconds_d(1e160),
                        .target_utilization = 1.0,
                        .capacity_per_second = 1e308}) == 1'000'000'000'000);
  }

  TEST_CASE("errors: coldstart step_reserve and reserve_covers_step") {
    CHECK_REJECTS((step_reserve({.step_rate_per_second = not_a_number,
                                 .target_utilization = 0.8,
                                 .capacity_per_second = 8.0})),
                  "step_rate_per_second");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = -1.0, .target_utilization = 0.8, .capacity_per_second = 8.0})),
        "step_rate_per_second");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = 1.0, .target_utilization = 1.5, .capacity_per_second = 8.0})),
        "target_utilization");
    CHECK_REJECTS(
        (step_reserve(
            {.step_rate_per_second = 1.0, .target_utilization = 0.8, .capacity_per_second = -8.0})),
        "capacity_per_second");
    CHECK_REJECTS((step_reserve({.step_rate_per_second = 1e300,
                                 .target_utilization = 0.5,
                                 .capacity_per_second = 1e-10})),
                  "step_rate_per_second");  // > 2^62
    CHECK_REJECTS((reserve_covers_step({.step_rate_per_second = 1e300,
                                        .target_utilization = 0.5,
                                        .capacity_per_second = 1e-10},
                                       1)),
                  "step_rate_per_second");
    CHECK_REJECTS(
        (reserve_covers_step(
            {.step_rate_per_second = 1.0, .target_utilization = 0.8, .capacity_per_second = 8.0},
            -1)),
        "spare_replicas");
    CHECK(step_reserve({.step_rate_per_second = 0.0,
                        .target_utilization = 1e-300,
                        .capacity_per_second = 1e-300}) == 0);
  }

  TEST_CASE("errors: coldstart step_uncovered_time") {
    CHECK_REJECTS((step_uncovered_time({.start_time = nan_s})), "start_time");
    CHECK_REJECTS((step_uncovered_time({.start_time = -1s})), "start_time");
    CHECK_REJECTS((step_uncovered_time({.start_time = 60s, .look_ahead = inf_s})), "look_ahead");
    CHECK_REJECTS((step_uncovered_time({.start_time = 60s, .look_ahead = -1s})), "look_ahead");
  }

  TEST_CASE("errors: coldstart decide_scale_to_zero") {
    const scale_to_zero_inputs good{
        .idle_period = 3600s, .start_time = 120s, .ttft_promise = 500ms, .warm_ttft = 100ms};
    auto in = good;
    in.idle_period = nan_s;
    CHECK_REJECTS(decide_scale_to_zero(in), "idle_period");
    in = good;
    in.start_time = -1s;
    CHECK_REJECTS(decide_scale_to_zero(in), "start_time");
    in = good;
    in.ttft_promise = 0s;
    CHECK_REJECTS(decide_scale_to_zero(in), "ttft_promise");
    in = good;
    in.warm_ttft = inf_s;
    CHECK_REJECTS(decide_scale_to_zero(in), "warm_ttft");
    in = good;
    in.min_idle_to_start_ratio = 0.0;
    CHECK_REJECTS(decide_scale_to_zero(in), "min_idle_to_start_ratio");
    in = good;
    in.cold_request_share = 1.5;
    CHECK_REJECTS(decide_scale_to_zero(in), "cold_request_share");
    in = good;
    in.ttft_miss_budget = 1.0;
    CHECK_REJECTS(decide_scale_to_zero(in), "ttft_miss_budget");
    // A domain outcome: keep one warm, with the reason.
    const auto d = decide_scale_to_zero(good);
    CHECK_FALSE(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::ttft_promise_broken);
  }
}

// SPDX-License-Identifier: Apache-2.0
// The worked numbers of docs/coldstart.md and hand calculations, each shown beside its check.
#include <headroom/coldstart.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

using headroom::test::rejected;

using headroom::test::not_a_number;

}  // namespace

TEST_SUITE("coldstart") {
  TEST_CASE("coldstart: 140 GB of weights take 140 s / 20 s / 2.8 s through one channel") {
    // 70e9 parameters × 2 bytes (bf16) = 140e9 bytes.
    const double weights = 70e9 * 2;
    // 140e9 / 1e9 = 140 s (object store); / 7e9 = 20 s (NVMe); / 50e9 = 2.8 s (PCIe).
    CHECK(headroom::coldstart::weight_load_time(
              {.weight_bytes = weights, .channel_bytes_per_second = 1e9})
              .count() == doctest::Approx(140.0));
    CHECK(headroom::coldstart::weight_load_time(
              {.weight_bytes = weights, .channel_bytes_per_second = 7e9})
              .count() == doctest::Approx(20.0));
    CHECK(headroom::coldstart::weight_load_time(
              {.weight_bytes = weights, .channel_bytes_per_second = 50e9})
              .count() == doctest::Approx(2.8));
    static_assert(headroom::coldstart::weight_load_time(
                      {.weight_bytes = 140e9, .channel_bytes_per_second = 7e9})
                      .count() == 20.0);

    // The same through named tiers with the documented typical bandwidths.
    constexpr auto bw = headroom::coldstart::typical_storage_bandwidths();
    using headroom::coldstart::storage_tier;
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = weights, .bandwidths = bw, .source = storage_tier::object_store})
              .count() == doctest::Approx(140.0));
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = weights, .bandwidths = bw, .source = storage_tier::local_nvme})
              .count() == doctest::Approx(20.0));
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = weights, .bandwidths = bw, .source = storage_tier::host_memory})
              .count() == doctest::Approx(2.8));
    // NVLink-class peer copy: 140e9 / 450e9 = 0.311 s.
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = weights, .bandwidths = bw, .source = storage_tier::peer_gpu})
              .count() == doctest::Approx(140.0 / 450.0));
    static_assert(
        headroom::coldstart::tier_weight_load_time(
            {.weight_bytes = 140e9, .bandwidths = bw, .source = storage_tier::object_store})
            .count() == 140.0);
  }

  TEST_CASE("coldstart: the slowest channel crossed decides") {
    // Object store at 1 GB/s then PCIe at 50: 1 GB/s. A fast (100 GB/s) store behind a
    // 50 GB/s PCIe link is bounded by the link: 140e9/50e9 = 2.8 s.
    CHECK(headroom::coldstart::slowest_channel({1e9, 50e9}) == 1e9);
    const std::vector<double> path{100e9, 50e9, 450e9};
    CHECK(headroom::coldstart::slowest_channel(path) == 50e9);
    headroom::coldstart::storage_bandwidths bw = headroom::coldstart::typical_storage_bandwidths();
    bw.object_store = 100e9;
    CHECK(headroom::coldstart::tier_channel_bandwidth(
              bw, headroom::coldstart::storage_tier::object_store) == 50e9);
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = 140e9,
               .bandwidths = bw,
               .source = headroom::coldstart::storage_tier::object_store})
              .count() == doctest::Approx(2.8));
    // peer_gpu does not cross the host link.
    bw.host_memory = 1e9;
    CHECK(headroom::coldstart::tier_channel_bandwidth(
              bw, headroom::coldstart::storage_tier::peer_gpu) == 450e9);
    static_assert(headroom::coldstart::slowest_channel({7e9, 50e9}) == 7e9);
    constexpr std::array<double, 3> channels{3e9, 2e9, 5e9};
    static_assert(headroom::coldstart::slowest_channel(channels) == 2e9);
  }

  TEST_CASE(
      "coldstart: tensor parallelism over g GPUs divides the load by g only on independent "
      "channels") {
    // 140 GB over g = 2 GPUs from local NVMe at 7 GB/s.
    // Shared channel (one drive feeds both): 140/7 = 20 s. Independent (a drive each): 70/7 = 10 s.
    using headroom::coldstart::channel_sharing;
    CHECK(headroom::coldstart::weight_load_time({.weight_bytes = 140e9,
                                                 .channel_bytes_per_second = 7e9,
                                                 .gpus = 2,
                                                 .sharing = channel_sharing::shared})
              .count() == doctest::Approx(20.0));
    CHECK(headroom::coldstart::weight_load_time({.weight_bytes = 140e9,
                                                 .channel_bytes_per_second = 7e9,
                                                 .gpus = 2,
                                                 .sharing = channel_sharing::independent})
              .count() == doctest::Approx(10.0));
    // g = 8 independent PCIe links from host memory: 140/8/50 = 0.35 s.
    CHECK(headroom::coldstart::tier_weight_load_time(
              {.weight_bytes = 140e9,
               .bandwidths = headroom::coldstart::typical_storage_bandwidths(),
               .source = headroom::coldstart::storage_tier::host_memory,
               .gpus = 8,
               .sharing = channel_sharing::independent})
              .count() == doctest::Approx(0.35));
    static_assert(headroom::coldstart::weight_load_time({.weight_bytes = 140e9,
                                                         .channel_bytes_per_second = 7e9,
                                                         .gpus = 2,
                                                         .sharing = channel_sharing::independent})
                      .count() == 10.0);
  }

  TEST_CASE("coldstart: start-up breakdown T_start = machine + image + weights + warm-up") {
    // 3 min machine + 40 s image + 20 s weights (NVMe) + 30 s warm-up = 180 + 40 + 20 + 30 = 270 s.
    headroom::coldstart::startup_breakdown b;
    b.machine = 3min;
    b.image = 40s;
    b.weights = headroom::coldstart::weight_load_time(
        {.weight_bytes = 140e9, .channel_bytes_per_second = 7e9});
    b.warmup = 30s;
    const std::chrono::duration<double> start = b.start_time();
    CHECK(start.count() == doctest::Approx(270.0));
    CHECK(b.largest_phase() == headroom::coldstart::startup_phase::machine);
    CHECK(headroom::coldstart::to_string(b.largest_phase()) == "machine");
    // With weights in host memory (2.8 s), warm-up weighs as much as loading or more.
    b.machine = 0s;
    b.image = 0s;
    b.weights = headroom::coldstart::weight_load_time(
        {.weight_bytes = 140e9, .channel_bytes_per_second = 50e9});
    CHECK(b.largest_phase() == headroom::coldstart::startup_phase::warmup);
    CHECK(b.start_time().count() == doctest::Approx(32.8));
    // Usable in constant expressions; the duration type is std::chrono.
    constexpr headroom::coldstart::startup_breakdown cb{
        .machine = std::chrono::duration<double>(60.0),
        .image = std::chrono::duration<double>(10.0),
        .weights = std::chrono::duration<double>(20.0),
        .warmup = std::chrono::duration<double>(30.0)};
    static_assert(cb.start_time() == std::chrono::duration<double>(120.0));
    static_assert(cb.largest_phase() == headroom::coldstart::startup_phase::machine);
    static_assert(std::is_same_v<decltype(cb.start_time()), std::chrono::duration<double>>);
  }

  TEST_CASE("coldstart: reserve for a ramp ceil(λ̇ T_start / (ρμ))") {
    // Ramp of 0.1 req/s per second, T_start = 8 min = 480 s, ρ* = 0.8, μ* = 8:
    // 0.1 × 480 / 6.4 = 7.5 → 8 replicas.
    CHECK(headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                             .start_time = 8min,
                                             .target_utilization = 0.8,
                                             .capacity_per_second = 8.0}) == 8);
    // A start four times shorter shrinks the reserve in proportion: 0.1 × 120 / 6.4 = 1.875 → 2.
    CHECK(headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                             .start_time = 2min,
                                             .target_utilization = 0.8,
                                             .capacity_per_second = 8.0}) == 2);
    // No start delay, no reserve.
    CHECK(headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                             .start_time = 0s,
                                             .target_utilization = 0.8,
                                             .capacity_per_second = 8.0}) == 0);
    static_assert(
        headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                           .start_time = std::chrono::duration<double>(480.0),
                                           .target_utilization = 0.8,
                                           .capacity_per_second = 8.0}) == 8);
  }

  TEST_CASE("coldstart: reserve for a step ceil(Δλ/(ρμ)) and its uncovered time") {
    // The 21:00 event of docs/simulated-day.md, Δλ = 30 req/s at ρ* = 0.8, μ* = 8: 30/6.4 = 4.6875
    // → 5 extra replicas ("from two to seven, five more").
    CHECK(headroom::coldstart::step_reserve({.step_rate_per_second = 30.0,
                                             .target_utilization = 0.8,
                                             .capacity_per_second = 8.0}) == 5);
    static_assert(headroom::coldstart::step_reserve({.step_rate_per_second = 30.0,
                                                     .target_utilization = 0.8,
                                                     .capacity_per_second = 8.0}) == 5);
    // Three spare replicas do not cover it (a "3 spare replicas" policy stays short
    // for all 8 minutes of the start); five do.
    CHECK_FALSE(headroom::coldstart::reserve_covers_step(
        {.step_rate_per_second = 30.0, .target_utilization = 0.8, .capacity_per_second = 8.0}, 3));
    CHECK(headroom::coldstart::reserve_covers_step(
        {.step_rate_per_second = 30.0, .target_utilization = 0.8, .capacity_per_second = 8.0}, 5));
    // Uncovered time: T_start for a reactive controller (8 min), 1 min with a 1-minute start,
    // 0 when the calendar looks T_start ahead.
    CHECK(headroom::coldstart::step_uncovered_time({.start_time = 8min}) == 8min);
    CHECK(headroom::coldstart::step_uncovered_time({.start_time = 1min}) == 1min);
    CHECK(headroom::coldstart::step_uncovered_time({.start_time = 8min, .look_ahead = 8min})
              .count() == 0.0);
    CHECK(headroom::coldstart::step_uncovered_time({.start_time = 8min, .look_ahead = 10min})
              .count() == 0.0);
    CHECK(headroom::coldstart::step_uncovered_time({.start_time = 8min, .look_ahead = 5min}) ==
          3min);
    static_assert(headroom::coldstart::step_uncovered_time(
                      {.start_time = std::chrono::duration<double>(480.0)})
                      .count() == 480.0);
  }

  TEST_CASE("coldstart: scale to zero is a decision with a reason") {
    using headroom::coldstart::scale_to_zero_reason;
    // A start of minutes and a 0.5 s TTFT promise → keep one warm replica.
    headroom::coldstart::scale_to_zero_inputs in;
    in.idle_period = 8h;
    in.start_time = 3min;
    in.ttft_promise = 500ms;
    in.warm_ttft = 200ms;
    auto d = headroom::coldstart::decide_scale_to_zero(in);
    CHECK_FALSE(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::ttft_promise_broken);
    CHECK(d.cold_ttft.count() == doctest::Approx(180.2));
    CHECK(d.idle_to_start_ratio == doctest::Approx(160.0));  // 28800 / 180
    // If one request in a thousand finds no warm replica and the promise tolerates 1 %
    // misses, the rare case fits: scale to zero.
    in.cold_request_share = 0.001;
    in.ttft_miss_budget = 0.01;
    d = headroom::coldstart::decide_scale_to_zero(in);
    CHECK(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::ttft_miss_tolerated);
    // Idle periods of 10 min against a 3 min start (ratio 3.3 < 10): not worth it.
    in.idle_period = 10min;
    d = headroom::coldstart::decide_scale_to_zero(in);
    CHECK_FALSE(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::idle_too_short);
    CHECK(headroom::coldstart::to_string(d.reason) == "idle_too_short");
    // A 2 s start (snapshot restore) under a 5 s promise, idle an hour: scale to zero.
    in.idle_period = 1h;
    in.start_time = 2s;
    in.ttft_promise = 5s;
    in.cold_request_share = 1.0;
    in.ttft_miss_budget = 0.0;
    d = headroom::coldstart::decide_scale_to_zero(in);
    CHECK(d.scale_to_zero);
    CHECK(d.reason == scale_to_zero_reason::ttft_promise_met);
    constexpr auto cd =
        headroom::coldstart::decide_scale_to_zero(headroom::coldstart::scale_to_zero_inputs{
            .idle_period = std::chrono::duration<double>(3600.0),
            .start_time = std::chrono::duration<double>(180.0),
            .ttft_promise = std::chrono::duration<double>(0.5),
            .warm_ttft = std::chrono::duration<double>(0.2),
            .min_idle_to_start_ratio = 10.0,
            .cold_request_share = 1.0,
            .ttft_miss_budget = 0.0});
    static_assert(!cd.scale_to_zero && cd.reason == scale_to_zero_reason::ttft_promise_broken);
  }

  TEST_CASE("coldstart: invalid arguments name the parameter") {
    CHECK(rejected([] {
            (void)headroom::coldstart::weight_load_time(
                {.weight_bytes = -1.0, .channel_bytes_per_second = 7e9});
          }) == "weight_bytes");
    CHECK(rejected([] {
            (void)headroom::coldstart::weight_load_time(
                {.weight_bytes = not_a_number, .channel_bytes_per_second = 7e9});
          }) == "weight_bytes");
    CHECK(rejected([] {
            (void)headroom::coldstart::weight_load_time(
                {.weight_bytes = 1.0, .channel_bytes_per_second = 0.0});
          }) == "channel_bytes_per_second");
    CHECK(rejected([] {
            (void)headroom::coldstart::weight_load_time(
                {.weight_bytes = 1.0, .channel_bytes_per_second = 7e9, .gpus = 0});
          }) == "gpus");
    CHECK(rejected([] { (void)headroom::coldstart::slowest_channel(std::vector<double>{}); }) ==
          "bandwidths");
    CHECK(rejected([] {
            (void)headroom::coldstart::slowest_channel({1e9, -1.0});
          }) == "bandwidths");
    // Tiers left unset are rejected by name when used.
    headroom::coldstart::storage_bandwidths unset;
    CHECK(rejected([&] {
            (void)headroom::coldstart::tier_weight_load_time(
                {.weight_bytes = 1.0,
                 .bandwidths = unset,
                 .source = headroom::coldstart::storage_tier::local_nvme});
          }) == "bandwidths.local_nvme");
    unset.local_nvme = 7e9;
    CHECK(rejected([&] {
            (void)headroom::coldstart::tier_weight_load_time(
                {.weight_bytes = 1.0,
                 .bandwidths = unset,
                 .source = headroom::coldstart::storage_tier::local_nvme});
          }) == "bandwidths.host_memory");
    headroom::coldstart::startup_breakdown b;
    b.warmup = std::chrono::duration<double>(-1.0);
    CHECK(rejected([&] { (void)b.start_time(); }) == "warmup");
    b.warmup = std::chrono::duration<double>(std::numeric_limits<double>::infinity());
    CHECK(rejected([&] { (void)b.largest_phase(); }) == "warmup");
    CHECK(rejected([] {
            (void)headroom::coldstart::ramp_reserve({.max_ramp_per_second = -0.1,
                                                     .start_time = 1s,
                                                     .target_utilization = 0.8,
                                                     .capacity_per_second = 8.0});
          }) == "max_ramp_per_second");
    CHECK(rejected([] {
            (void)headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                                     .start_time = 1s,
                                                     .target_utilization = 0.0,
                                                     .capacity_per_second = 8.0});
          }) == "target_utilization");
    CHECK(rejected([] {
            (void)headroom::coldstart::ramp_reserve({.max_ramp_per_second = 0.1,
                                                     .start_time = 1s,
                                                     .target_utilization = 0.8,
                                                     .capacity_per_second = 0.0});
          }) == "capacity_per_second");
    CHECK(rejected([] {
            (void)headroom::coldstart::ramp_reserve(
                {.max_ramp_per_second = 0.1,
                 .start_time = std::chrono::duration<double>(not_a_number),
                 .target_utilization = 0.8,
                 .capacity_per_second = 8.0});
          }) == "start_time");
    CHECK(rejected([] {
            (void)headroom::coldstart::step_reserve({.step_rate_per_second = not_a_number,
                                                     .target_utilization = 0.8,
                                                     .capacity_per_second = 8.0});
          }) == "step_rate_per_second");
    CHECK(
        rejected([] {
          (void)headroom::coldstart::reserve_covers_step(
              {.step_rate_per_second = 30.0, .target_utilization = 0.8, .capacity_per_second = 8.0},
              -1);
        }) == "spare_replicas");
    CHECK(rejected([] {
            (void)headroom::coldstart::step_uncovered_time(
                {.start_time = 1min, .look_ahead = std::chrono::duration<double>(-1.0)});
          }) == "look_ahead");
    headroom::coldstart::scale_to_zero_inputs in;
    in.idle_period = 1h;
    in.start_time = 1min;
    CHECK(rejected([&] { (void)headroom::coldstart::decide_scale_to_zero(in); }) == "ttft_promise");
    in.ttft_promise = 1s;
    in.ttft_miss_budget = 1.0;
    CHECK(rejected([&] { (void)headroom::coldstart::decide_scale_to_zero(in); }) ==
          "ttft_miss_budget");
    in.ttft_miss_budget = 0.0;
    in.cold_request_share = not_a_number;
    CHECK(rejected([&] { (void)headroom::coldstart::decide_scale_to_zero(in); }) ==
          "cold_request_share");
  }

  TEST_CASE("coldstart: generic over the floating type") {
    const auto t = headroom::coldstart::weight_load_time<float>(
        {.weight_bytes = 140e9f, .channel_bytes_per_second = 7e9f});
    static_assert(std::is_same_v<decltype(t), const std::chrono::duration<float>>);
    CHECK(t.count() == doctest::Approx(20.0f));
    headroom::coldstart::basic_startup_breakdown<long double> b;
    b.weights = std::chrono::duration<long double>(2.5L);
    b.warmup = 10s;
    CHECK(static_cast<double>(b.start_time().count()) == doctest::Approx(12.5));
    CHECK(headroom::coldstart::to_string(headroom::coldstart::storage_tier::peer_gpu) ==
          "peer_gpu");
  }
}

// SPDX-License-Identifier: Apache-2.0
// The worked numbers of docs/cost.md and hand calculations, each shown beside its check.
// Money is in the caller's currency.
#include <headroom/cost.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

using headroom::test::rejected;

using headroom::test::infinity;
using headroom::test::not_a_number;

using headroom::test::near;

}  // namespace

TEST_SUITE("cost") {
  TEST_CASE("cost: 2560 tokens/s is 9.216e6 tokens per hour") {
    // 64 sequences × 40 tokens/s = 2560; equally μ* = 8 req/s × 320 tokens per answer.
    CHECK(headroom::cost::replica_token_rate(
              {.capacity_per_second = 8.0, .mean_output_tokens = 320.0}) == 2560.0);
    CHECK(headroom::cost::replica_token_rate(
              {.capacity_per_second = 64.0, .mean_output_tokens = 40.0}) == 2560.0);
    // 2560 × 3600 = 9 216 000.
    CHECK(headroom::cost::tokens_per_hour(2560.0) == 9.216e6);
    static_assert(headroom::cost::tokens_per_hour(2560.0) == 9.216e6);
  }

  TEST_CASE(
      "cost: 2 per hour at 2560 tokens/s costs 0.217 per million at full use and 0.60 at "
      "36 %") {
    // c = 2 / (3600 × 2560) = 2 / 9.216e6 = 2.1701e-7 per token = 0.21701 per million.
    CHECK(headroom::cost::cost_per_token({.hourly_cost = 2.0, .tokens_per_second = 2560.0}) ==
          doctest::Approx(2.1701388889e-7));
    CHECK(headroom::cost::cost_per_million_tokens(
              {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.0}) ==
          doctest::Approx(0.2170138889));
    // At ρ̄ = 0.36: 0.21701 / 0.36 = 0.60282 ≈ 0.60.
    CHECK(headroom::cost::cost_per_million_tokens(
              {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.36}) ==
          doctest::Approx(0.6028163580));
    // A day kept at its peak (docs/simulated-day.md) has ρ̄ = 36.1 %: 0.21701 / 0.361 = 0.6011.
    CHECK(headroom::cost::cost_per_million_tokens(
              {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.361}) ==
          doctest::Approx(0.6011465067));
    static_assert(
        near(headroom::cost::cost_per_million_tokens(
                 {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.0}),
             0.217013888888889, 1e-12));
    static_assert(
        near(headroom::cost::cost_per_million_tokens(
                 {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.36}),
             0.602816358024691, 1e-12));
    // 1/ρ̄ is the price of excess capacity: halving ρ̄ doubles the cost.
    CHECK(headroom::cost::cost_per_token(
              {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.5}) ==
          doctest::Approx(
              2 * headroom::cost::cost_per_token(
                      {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.0})));
  }

  TEST_CASE("cost: mean utilization is served over servable") {
    // 3.6e6 tokens served out of 1e7 servable: 0.36.
    CHECK(headroom::cost::mean_utilization({.served = 3.6e6, .servable = 1e7}) ==
          doctest::Approx(0.36));
    CHECK(headroom::cost::mean_utilization({.served = 0, .servable = 10}) == 0.0);
    static_assert(headroom::cost::mean_utilization({.served = 5.0, .servable = 10.0}) == 0.5);
  }

  TEST_CASE("cost: fleet cost over time is replica-hours × price") {
    // A day kept at its peak: 8 replicas for 1440 minutes = 192 replica-hours;
    // at 2 per replica-hour: 384.
    const std::vector<std::int64_t> peak(1440, 8);
    const double hours = headroom::cost::replica_hours(peak, 1min);
    CHECK(hours == doctest::Approx(192.0));
    CHECK(headroom::cost::fleet_cost({.replica_hours = hours, .price_per_replica_hour = 2.0}) ==
          doctest::Approx(384.0));
    // Three spare replicas all day cost 3 × 24 = 72 replica-hours (166.4 − 94.4 in
    // docs/simulated-day.md).
    const std::vector<int> spare(1440, 3);
    CHECK(headroom::cost::replica_hours(spare, 1min) == doctest::Approx(72.0));
    // Hourly cost of 10 replicas at 2: 20 per hour.
    CHECK(headroom::cost::fleet_hourly_cost({.replicas = 10, .price_per_replica_hour = 2.0}) ==
          20.0);
    constexpr std::array<double, 4> quarter_hours{4, 4, 6, 6};  // 15-minute samples
    static_assert(
        headroom::cost::replica_hours(quarter_hours, std::chrono::duration<double>(900.0)) == 5.0);
  }

  TEST_CASE("cost: spot factors 0.444 and 1.6 and the break-even d > ω") {
    // d = 0.6, ω = 0.1: 0.4 / 0.9 = 0.4444 (44 %), worth it.
    CHECK(headroom::cost::spot_factor({.discount = 0.6, .lost_work = 0.1}) ==
          doctest::Approx(0.4444444444));
    CHECK(headroom::cost::spot_pays({.discount = 0.6, .lost_work = 0.1}));
    // d = 0.2, ω = 0.5: 0.8 / 0.5 = 1.6 (160 %), not worth it.
    CHECK(headroom::cost::spot_factor({.discount = 0.2, .lost_work = 0.5}) == doctest::Approx(1.6));
    CHECK_FALSE(headroom::cost::spot_pays({.discount = 0.2, .lost_work = 0.5}));
    // At the break-even d = ω the factor is 1 and spot does not pay.
    CHECK(headroom::cost::spot_break_even_discount(0.3) == 0.3);
    CHECK(headroom::cost::spot_factor({.discount = 0.3, .lost_work = 0.3}) == doctest::Approx(1.0));
    CHECK_FALSE(headroom::cost::spot_pays({.discount = 0.3, .lost_work = 0.3}));
    // Cost per million on spot: 0.21701 × 0.4444 = 0.09645.
    CHECK(headroom::cost::spot_cost(
              {.on_demand_cost = 0.2170138889, .discount = 0.6, .lost_work = 0.1}) ==
          doctest::Approx(0.0964506173));
    // SpotServe's reported −54 % corresponds to a factor of 0.46: e.g. d = 0.6, ω = 0.13.
    CHECK(headroom::cost::spot_factor({.discount = 0.6, .lost_work = 0.13}) ==
          doctest::Approx(0.46).epsilon(0.001));
    static_assert(near(headroom::cost::spot_factor({.discount = 0.6, .lost_work = 0.1}),
                       0.444444444444444, 1e-12));
    static_assert(
        near(headroom::cost::spot_factor({.discount = 0.2, .lost_work = 0.5}), 1.6, 1e-12));
    static_assert(headroom::cost::spot_pays({.discount = 0.6, .lost_work = 0.1}) &&
                  !headroom::cost::spot_pays({.discount = 0.2, .lost_work = 0.5}));
  }

  TEST_CASE(
      "cost: two tiers put the minimum and the protected share on demand and the rest on spot") {
    // 12 replicas needed, traffic minimum needs 2, 25 % of traffic tolerates no interruption
    // (ceil(0.25 × 12) = 3): on demand max(2, 3) = 3, spot 9. Price 2, d = 0.6, ω = 0.1:
    // 3 × 2 + 9 × 2 × 0.4/0.9 = 6 + 8 = 14 per hour, against 24 all on demand: factor 14/24.
    headroom::cost::two_tier_inputs in;
    in.replicas = 12;
    in.minimum_replicas = 2;
    in.non_interruptible_share = 0.25;
    in.on_demand_price_per_hour = 2.0;
    in.spot_discount = 0.6;
    in.lost_work = 0.1;
    auto plan = headroom::cost::two_tier_split(in);
    CHECK(plan.on_demand_replicas == 3);
    CHECK(plan.spot_replicas == 9);
    CHECK(plan.spot_pays);
    CHECK(plan.hourly_cost == doctest::Approx(14.0));
    CHECK(plan.all_on_demand_hourly_cost == doctest::Approx(24.0));
    CHECK(plan.blended_factor == doctest::Approx(14.0 / 24.0));
    // Blended cost per million at ρ̄ = 1: 0.21701 × 0.58333 = 0.12659.
    CHECK(
        headroom::cost::cost_per_million_tokens({.hourly_cost = 2.0, .tokens_per_second = 2560.0}) *
            plan.blended_factor ==
        doctest::Approx(0.1265914352));
    // A larger minimum wins over the share: base 5, spot 7.
    in.minimum_replicas = 5;
    plan = headroom::cost::two_tier_split(in);
    CHECK(plan.on_demand_replicas == 5);
    CHECK(plan.spot_replicas == 7);
    // When spot does not pay (d = 0.2, ω = 0.5) everything runs on demand.
    in.spot_discount = 0.2;
    in.lost_work = 0.5;
    plan = headroom::cost::two_tier_split(in);
    CHECK_FALSE(plan.spot_pays);
    CHECK(plan.on_demand_replicas == 12);
    CHECK(plan.spot_replicas == 0);
    CHECK(plan.blended_factor == doctest::Approx(1.0));
    // Nothing to run: factor 1, cost 0.
    in.replicas = 0;
    in.minimum_replicas = 0;
    plan = headroom::cost::two_tier_split(in);
    CHECK(plan.hourly_cost == 0.0);
    CHECK(plan.blended_factor == 1.0);
    constexpr auto cplan = headroom::cost::two_tier_split(
        headroom::cost::two_tier_inputs{.replicas = 12,
                                        .minimum_replicas = 2,
                                        .non_interruptible_share = 0.25,
                                        .on_demand_price_per_hour = 2.0,
                                        .spot_discount = 0.6,
                                        .lost_work = 0.1});
    static_assert(cplan.on_demand_replicas == 3 && cplan.spot_replicas == 9);
    static_assert(near(cplan.hourly_cost, 14.0, 1e-12));
  }

  TEST_CASE("cost: splitting the hour between prefill and decode by GPU time") {
    // 2 per hour; prefill busy 900 s, decode 2700 s: shares 1/4 and 3/4. 20e6 prefill
    // tokens: 0.5 / 20e6 = 2.5e-8 each; 6e6 decode tokens: 1.5 / 6e6 = 2.5e-7 each.
    const auto split = headroom::cost::split_cost_by_gpu_time({.hourly_cost = 2.0,
                                                               .prefill_tokens = 20e6,
                                                               .prefill_gpu_time = 900s,
                                                               .decode_tokens = 6e6,
                                                               .decode_gpu_time = 2700s});
    CHECK(split.prefill_share == doctest::Approx(0.25));
    CHECK(split.decode_share == doctest::Approx(0.75));
    CHECK(split.prefill_cost_per_token == doctest::Approx(2.5e-8));
    CHECK(split.decode_cost_per_token == doctest::Approx(2.5e-7));
    // The whole hour is charged: 20e6 × 2.5e-8 + 6e6 × 2.5e-7 = 0.5 + 1.5 = 2.
    CHECK(split.prefill_cost_per_token * 20e6 + split.decode_cost_per_token * 6e6 ==
          doctest::Approx(2.0));
    // Idle time is spread in proportion: 600 s + 1200 s busy → 1/3 and 2/3.
    const auto idle = headroom::cost::split_cost_by_gpu_time({.hourly_cost = 2.0,
                                                              .prefill_tokens = 1e6,
                                                              .prefill_gpu_time = 600s,
                                                              .decode_tokens = 1e6,
                                                              .decode_gpu_time = 1200s});
    CHECK(idle.prefill_share == doctest::Approx(1.0 / 3.0));
    static_assert(near(headroom::cost::split_cost_by_gpu_time(
                           {.hourly_cost = 2.0,
                            .prefill_tokens = 20e6,
                            .prefill_gpu_time = std::chrono::duration<double>(900.0),
                            .decode_tokens = 6e6,
                            .decode_gpu_time = std::chrono::duration<double>(2700.0)})
                           .decode_cost_per_token,
                       2.5e-7, 1e-20));
  }

  TEST_CASE("cost: invalid arguments name the parameter") {
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_token(
                {.hourly_cost = -2.0, .tokens_per_second = 2560.0});
          }) == "hourly_cost");
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_token(
                {.hourly_cost = not_a_number, .tokens_per_second = 2560.0});
          }) == "hourly_cost");
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_token({.hourly_cost = 2.0, .tokens_per_second = 0.0});
          }) == "tokens_per_second");
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_token(
                {.hourly_cost = 2.0, .tokens_per_second = infinity});
          }) == "tokens_per_second");
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_token(
                {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.0});
          }) == "mean_utilization");
    CHECK(rejected([] {
            (void)headroom::cost::cost_per_million_tokens(
                {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.2});
          }) == "mean_utilization");
    CHECK(rejected([] {
            (void)headroom::cost::replica_token_rate(
                {.capacity_per_second = 0.0, .mean_output_tokens = 320.0});
          }) == "capacity_per_second");
    CHECK(rejected([] {
            (void)headroom::cost::replica_token_rate(
                {.capacity_per_second = 8.0, .mean_output_tokens = -1.0});
          }) == "mean_output_tokens");
    CHECK(rejected([] {
            (void)headroom::cost::mean_utilization({.served = 11.0, .servable = 10.0});
          }) == "served");
    CHECK(rejected([] {
            (void)headroom::cost::mean_utilization({.served = 1.0, .servable = 0.0});
          }) == "servable");
    CHECK(rejected([] {
            (void)headroom::cost::replica_hours(std::vector<double>{1.0, -1.0}, 1min);
          }) == "replicas_per_step");
    CHECK(rejected([] { (void)headroom::cost::replica_hours(std::vector<double>{1.0}, 0s); }) ==
          "step");
    CHECK(rejected([] {
            (void)headroom::cost::fleet_cost(
                {.replica_hours = -1.0, .price_per_replica_hour = 2.0});
          }) == "replica_hours");
    CHECK(rejected([] {
            (void)headroom::cost::fleet_hourly_cost(
                {.replicas = 3, .price_per_replica_hour = not_a_number});
          }) == "price_per_replica_hour");
    CHECK(rejected([] {
            (void)headroom::cost::spot_factor({.discount = 1.0, .lost_work = 0.1});
          }) == "discount");
    CHECK(rejected([] {
            (void)headroom::cost::spot_factor({.discount = -0.1, .lost_work = 0.1});
          }) == "discount");
    CHECK(rejected([] {
            (void)headroom::cost::spot_factor({.discount = 0.5, .lost_work = 1.0});
          }) == "lost_work");
    CHECK(rejected([] {
            (void)headroom::cost::spot_pays({.discount = 0.5, .lost_work = not_a_number});
          }) == "lost_work");
    CHECK(rejected([] {
            (void)headroom::cost::spot_cost(
                {.on_demand_cost = -1.0, .discount = 0.5, .lost_work = 0.1});
          }) == "on_demand_cost");
    headroom::cost::two_tier_inputs in{.replicas = 10,
                                       .minimum_replicas = 2,
                                       .non_interruptible_share = 0.1,
                                       .on_demand_price_per_hour = 2.0,
                                       .spot_discount = 0.6,
                                       .lost_work = 0.1};
    in.replicas = -1;
    CHECK(rejected([&] { (void)headroom::cost::two_tier_split(in); }) == "replicas");
    in.replicas = 10;
    in.non_interruptible_share = 1.5;
    CHECK(rejected([&] { (void)headroom::cost::two_tier_split(in); }) == "non_interruptible_share");
    in.non_interruptible_share = 0.1;
    in.lost_work = 1.0;
    CHECK(rejected([&] { (void)headroom::cost::two_tier_split(in); }) == "lost_work");
    CHECK(rejected([] {
            (void)headroom::cost::split_cost_by_gpu_time({.hourly_cost = 2.0,
                                                          .prefill_tokens = 0.0,
                                                          .prefill_gpu_time = 1s,
                                                          .decode_tokens = 1.0,
                                                          .decode_gpu_time = 1s});
          }) == "prefill_tokens");
    CHECK(rejected([] {
            (void)headroom::cost::split_cost_by_gpu_time({.hourly_cost = 2.0,
                                                          .prefill_tokens = 1.0,
                                                          .prefill_gpu_time = 0s,
                                                          .decode_tokens = 1.0,
                                                          .decode_gpu_time = 0s});
          }) == "decode_gpu_time");
  }

  TEST_CASE("cost: generic over the floating type") {
    const float c = headroom::cost::cost_per_million_tokens<float>(
        {.hourly_cost = 2.0f, .tokens_per_second = 2560.0f, .mean_utilization = 1.0f});
    CHECK(c == doctest::Approx(0.2170139f));
    const long double f =
        headroom::cost::spot_factor<long double>({.discount = 0.6L, .lost_work = 0.1L});
    CHECK(static_cast<double>(f) == doctest::Approx(0.4444444444));
    CHECK(headroom::cost::cost_per_million_tokens(
              {.hourly_cost = 2, .tokens_per_second = 2560, .mean_utilization = 1}) ==
          doctest::Approx(0.2170138889));
  }
}

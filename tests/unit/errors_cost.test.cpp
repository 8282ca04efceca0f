// SPDX-License-Identifier: Apache-2.0
// The error policy of cost.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/cost.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::cost;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: cost replica_token_rate") {
    CHECK_REJECTS(
        (replica_token_rate({.capacity_per_second = not_a_number, .mean_output_tokens = 320.0})),
        "capacity_per_second");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 0.0, .mean_output_tokens = 320.0})),
                  "capacity_per_second");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 8.0, .mean_output_tokens = -1.0})),
                  "mean_output_tokens");
    CHECK_REJECTS((replica_token_rate({.capacity_per_second = 8.0, .mean_output_tokens = inf})),
                  "mean_output_tokens");
  }

  TEST_CASE("errors: cost tokens_per_hour") {
    CHECK_REJECTS(tokens_per_hour(not_a_number), "tokens_per_second");
    CHECK_REJECTS(tokens_per_hour(-1.0), "tokens_per_second");
    CHECK_REJECTS(tokens_per_hour(inf), "tokens_per_second");
  }

  TEST_CASE("errors: cost mean_utilization") {
    CHECK_REJECTS((mean_utilization({.served = not_a_number, .servable = 1.0})), "served");
    CHECK_REJECTS((mean_utilization({.served = -1.0, .servable = 1.0})), "served");
    CHECK_REJECTS((mean_utilization({.served = 1.0, .servable = 0.0})), "servable");
    CHECK_REJECTS((mean_utilization({.served = 2.0, .servable = 1.0})),
                  "served");  // served > servable
  }

  TEST_CASE("errors: cost cost_per_token and cost_per_million_tokens") {
    CHECK_REJECTS((cost_per_token({.hourly_cost = not_a_number, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    CHECK_REJECTS((cost_per_token({.hourly_cost = -2.0, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    CHECK_REJECTS((cost_per_token({.hourly_cost = 2.0, .tokens_per_second = 0.0})),
                  "tokens_per_second");
    CHECK_REJECTS((cost_per_million_tokens(
                      {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 0.0})),
                  "mean_utilization");
    CHECK_REJECTS((cost_per_million_tokens(
                      {.hourly_cost = 2.0, .tokens_per_second = 2560.0, .mean_utilization = 1.5})),
                  "mean_utilization");
    CHECK_REJECTS((cost_per_million_tokens({.hourly_cost = inf, .tokens_per_second = 2560.0})),
                  "hourly_cost");
    // A free replica costs nothing per token, whatever the rate (0 / 0 was NaN).
    CHECK(cost_per_token(
              {.hourly_cost = 0.0, .tokens_per_second = 5e-324, .mean_utilization = 5e-324}) ==
          0.0);
    CHECK(cost_per_million_tokens(
              {.hourly_cost = 0.0, .tokens_per_second = 1e-300, .mean_utilization = 1e-300}) ==
          0.0);
  }

  TEST_CASE("errors: cost replica_hours") {
    const std::vector<double> bad{1.0, not_a_number};
    const std::vector<double> negative{1.0, -1.0};
    const std::vector<int> ok{1, 2};
    CHECK_REJECTS(replica_hours(bad, 60s), "replicas_per_step");
    CHECK_REJECTS(replica_hours(negative, 60s), "replicas_per_step");
    CHECK_REJECTS(replica_hours(ok, 0s), "step");
    CHECK_REJECTS(replica_hours(ok, nan_s), "step");
    CHECK(replica_hours(std::vector<int>{}, 60s) == 0.0);  // an empty fleet costs nothing
  }

  TEST_CASE("errors: cost fleet_hourly_cost and fleet_cost") {
    CHECK_REJECTS((fleet_hourly_cost({.replicas = not_a_number, .price_per_replica_hour = 2.0})),
                  "replicas");
    CHECK_REJECTS((fleet_hourly_cost({.replicas = -1, .price_per_replica_hour = 2.0})), "replicas");
    CHECK_REJECTS((fleet_hourly_cost({.replicas = 1, .price_per_replica_hour = -2.0})),
                  "price_per_replica_hour");
    CHECK_REJECTS((fleet_cost({.replica_hours = inf, .price_per_replica_hour = 2.0})),
                  "replica_hours");
    CHECK_REJECTS((fleet_cost({.replica_hours = 1.0, .price_per_replica_hour = not_a_number})),
                  "price_per_replica_hour");
  }

  TEST_CASE("errors: cost spot functions") {
    CHECK_REJECTS((spot_factor({.discount = not_a_number, .lost_work = 0.1})), "discount");
    CHECK_REJECTS((spot_factor({.discount = 1.0, .lost_work = 0.1})), "discount");
    CHECK_REJECTS((spot_pays({.discount = 0.5, .lost_work = -0.1})), "lost_work");
    CHECK_REJECTS(spot_break_even_discount(1.0), "lost_work");
    CHECK_REJECTS((spot_cost({.on_demand_cost = -1.0, .discount = 0.5, .lost_work = 0.1})),
                  "on_demand_cost");
    CHECK_REJECTS((spot_cost({.on_demand_cost = 1.0, .discount = 0.5, .lost_work = inf})),
                  "lost_work");
  }

  TEST_CASE("errors: cost two_tier_split") {
    two_tier_inputs good;
    good.replicas = 10;
    good.minimum_replicas = 2;
    good.non_interruptible_share = 0.3;
    good.on_demand_price_per_hour = 2.0;
    good.spot_discount = 0.6;
    good.lost_work = 0.1;
    auto in = good;
    in.replicas = -1;
    CHECK_REJECTS(two_tier_split(in), "replicas");
    in = good;
    in.replicas = i64_max;  // share x replicas would not convert back to a count
    CHECK_REJECTS(two_tier_split(in), "replicas");
    in = good;
    in.minimum_replicas = -1;
    CHECK_REJECTS(two_tier_split(in), "minimum_replicas");
    in = good;
    in.non_interruptible_share = not_a_number;
    CHECK_REJECTS(two_tier_split(in), "non_interruptible_share");
    in = good;
    in.on_demand_price_per_hour = -1.0;
    CHECK_REJECTS(two_tier_split(in), "on_demand_price_per_hour");
    in = good;
    in.spot_discount = 1.0;
    CHECK_REJECTS(two_tier_split(in), "spot_discount");
    in = good;
    in.lost_work = inf;
    CHECK_REJECTS(two_tier_split(in), "lost_work");
    in = good;
    in.replicas = std::int64_t{1} << 62;  // the largest accepted count
    in.non_interruptible_share = 1.0;
    CHECK(two_tier_split(in).on_demand_replicas == in.replicas);
    // Costs past the double range: the blended factor (on + spot x f)/(on + spot) is still
    // f = (1 - 0.5)/(1 - 0) = 0.5 with every replica on spot (inf / inf was NaN).
    in = good;
    in.replicas = std::int64_t{1} << 62;
    in.minimum_replicas = 0;
    in.non_interruptible_share = 0.0;
    in.on_demand_price_per_hour = std::numeric_limits<double>::max();
    in.spot_discount = 0.5;
    in.lost_work = 0.0;
    const two_tier_plan plan = two_tier_split(in);
    CHECK(plan.spot_replicas == in.replicas);
    CHECK(std::isinf(plan.hourly_cost));
    CHECK(plan.blended_factor == 0.5);
  }

  TEST_CASE("errors: cost split_cost_by_gpu_time") {
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = not_a_number,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "hourly_cost");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 0.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "prefill_tokens");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = -1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 1s})),
                  "prefill_gpu_time");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = -1.0,
                                           .decode_gpu_time = 1s})),
                  "decode_tokens");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 1s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = inf_s})),
                  "decode_gpu_time");
    CHECK_REJECTS((split_cost_by_gpu_time({.hourly_cost = 1.0,
                                           .prefill_tokens = 1.0,
                                           .prefill_gpu_time = 0s,
                                           .decode_tokens = 1.0,
                                           .decode_gpu_time = 0s})),
                  "decode_gpu_time");
    // GPU times whose sum overflows still split half and half (they were both 0).
    const seconds_d longest{std::numeric_limits<double>::max()};
    const phase_costs halves = split_cost_by_gpu_time({.hourly_cost = 1.0,
                                                       .prefill_tokens = 1.0,
                                                       .prefill_gpu_time = longest,
                                                       .decode_tokens = 1.0,
                                                       .decode_gpu_time = longest});
    CHECK(halves.prefill_share == 0.5);
    CHECK(halves.decode_share == 0.5);
  }
}

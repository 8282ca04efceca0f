// SPDX-License-Identifier: Apache-2.0
// Size a fleet from a measured capacity, a traffic peak and ramp, a start-up breakdown and a
// price: the replicas to run, the reserve for the start delay, the cost per million tokens
// at the resulting utilization, and whether spot capacity pays. No arguments needed; edit
// the inputs below for your own service. Money is in whatever currency the price is in.
#include <headroom/coldstart.hpp>
#include <headroom/cost.hpp>
#include <headroom/queueing.hpp>
#include <headroom/roofline.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "flags.hpp"

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  example::flags f("size_a_fleet",
                   "Sizes a fleet from a measured capacity, a traffic peak and ramp, a start-up "
                   "breakdown and a price.\nNo flags: edit the inputs in the source.");
  f.parse(argc, argv);
  example::output_buffer out;

  // ---- what was measured and what is promised --------------------------------------------
  const double capacity = 8.0;            // μ*: req/s one replica serves within the SLO (sweep)
  const double mean_output = 320.0;       // tokens per answer
  const double target_utilization = 0.8;  // run replicas at 80 % of μ*
  const auto mean_sojourn = 8s;           // W̄: 320 tokens at 40 tokens/s
  const double peak_rate = 60.0;          // req/s at the daily peak
  const double minimum_rate = 12.0;       // req/s at night
  const double steepest_ramp = 0.05;      // req/s per second (3 req/s per minute)
  const double surprise_step = 30.0;      // req/s an unannounced event can add at once

  // ---- how long a replica takes to start -------------------------------------------------
  headroom::coldstart::startup_breakdown start;
  start.machine = 2min;  // a node with the GPU
  start.image = 45s;     // container pull and start
  start.weights =
      headroom::coldstart::tier_weight_load_time(  // 16 GB of bf16 weights from local NVMe
          {.weight_bytes =
               headroom::roofline::weight_bytes({.parameters = 8e9, .bytes_per_parameter = 2.0}),
           .bandwidths = headroom::coldstart::typical_storage_bandwidths(),
           .source = headroom::coldstart::storage_tier::local_nvme});
  start.warmup = 30s;  // compile (cached) and CUDA-graph capture (not cacheable)
  const auto t_start = start.start_time();

  // ---- prices -----------------------------------------------------------------------------
  const double price_per_hour = 2.0;     // one replica, on demand
  const double spot_discount = 0.6;      // d
  const double spot_lost_work = 0.1;     // ω: redone prefills and replacement starts
  const double non_interruptible = 0.2;  // share of traffic that must not be interrupted

  // ---- sizing -----------------------------------------------------------------------------
  const auto steady = headroom::queueing::replicas_needed({.arrival_rate_per_second = peak_rate,
                                                           .target_utilization = target_utilization,
                                                           .capacity_per_second = capacity});
  const auto ramp = headroom::coldstart::ramp_reserve({.max_ramp_per_second = steepest_ramp,
                                                       .start_time = t_start,
                                                       .target_utilization = target_utilization,
                                                       .capacity_per_second = capacity});
  const auto step = headroom::coldstart::step_reserve({.step_rate_per_second = surprise_step,
                                                       .target_utilization = target_utilization,
                                                       .capacity_per_second = capacity});
  const auto uncovered = headroom::coldstart::step_uncovered_time({.start_time = t_start});
  const std::int64_t run = steady + ramp;
  const double target =
      headroom::queueing::target_concurrency({.target_utilization = target_utilization,
                                              .capacity_per_second = capacity,
                                              .mean_sojourn = mean_sojourn});

  const auto largest = headroom::coldstart::to_string(start.largest_phase());
  out.printf(
      "start-up: %.1f s (machine %.0f + image %.0f + weights %.1f + warm-up %.0f), "
      "largest term: %.*s\n",
      t_start.count(), start.machine.count(), start.image.count(), start.weights.count(),
      start.warmup.count(), static_cast<int>(largest.size()), largest.data());
  out.printf("replicas for the peak: ceil(%.0f / (%.1f x %.0f)) = %lld\n", peak_rate,
             target_utilization, capacity, static_cast<long long>(steady));
  out.printf("ramp reserve: ceil(%.2f x %.1f / %.1f) = %lld\n", steepest_ramp, t_start.count(),
             target_utilization * capacity, static_cast<long long>(ramp));
  out.printf("replicas to run at the peak: %lld (autoscaler target %.1f in flight per replica)\n",
             static_cast<long long>(run), target);
  out.printf(
      "a %.0f req/s step needs %lld more replicas held in advance; without them it is "
      "uncovered for %.1f s\n",
      surprise_step, static_cast<long long>(step), uncovered.count());

  // ---- cost ---------------------------------------------------------------------------------
  const double tokens_per_second = headroom::cost::replica_token_rate(
      {.capacity_per_second = capacity, .mean_output_tokens = mean_output});
  const double utilization = peak_rate / (static_cast<double>(run) * capacity);
  const double per_million =
      headroom::cost::cost_per_million_tokens({.hourly_cost = price_per_hour,
                                               .tokens_per_second = tokens_per_second,
                                               .mean_utilization = utilization});
  out.printf(
      "cost at the peak: utilization %.1f %%, %.3f per million tokens "
      "(%.3f at full use)\n",
      100.0 * utilization, per_million,
      headroom::cost::cost_per_million_tokens(
          {.hourly_cost = price_per_hour, .tokens_per_second = tokens_per_second}));

  // ---- spot ---------------------------------------------------------------------------------
  const double factor =
      headroom::cost::spot_factor({.discount = spot_discount, .lost_work = spot_lost_work});
  const bool pays =
      headroom::cost::spot_pays({.discount = spot_discount, .lost_work = spot_lost_work});
  headroom::cost::two_tier_inputs tiers;
  tiers.replicas = run;
  tiers.minimum_replicas =
      headroom::queueing::replicas_needed({.arrival_rate_per_second = minimum_rate,
                                           .target_utilization = target_utilization,
                                           .capacity_per_second = capacity});
  tiers.non_interruptible_share = non_interruptible;
  tiers.on_demand_price_per_hour = price_per_hour;
  tiers.spot_discount = spot_discount;
  tiers.lost_work = spot_lost_work;
  const auto plan = headroom::cost::two_tier_split(tiers);
  out.printf("spot: factor (1 - %.2f)/(1 - %.2f) = %.3f, %s\n", spot_discount, spot_lost_work,
             factor, pays ? "it pays" : "it does not pay");
  out.printf(
      "two tiers: %lld on demand + %lld spot, %.2f per hour instead of %.2f; "
      "%.3f per million tokens at the peak\n",
      static_cast<long long>(plan.on_demand_replicas), static_cast<long long>(plan.spot_replicas),
      plan.hourly_cost, plan.all_on_demand_hourly_cost, per_million * plan.blended_factor);
  out.print(f.program());
  return 0;
}

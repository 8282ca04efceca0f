// SPDX-License-Identifier: Apache-2.0
// The error policy of sim/replica.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/sim/replica.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::arrivals;
using namespace headroom::roofline;
using namespace headroom::capacity;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: replica validate config") {
    sim::replica_config c;
    c.max_batch = 0;
    CHECK_REJECTS(sim::validate(c), "config.max_batch");
    c = {};
    c.kv_budget_tokens = 0;
    CHECK_REJECTS(sim::validate(c), "config.kv_budget_tokens");
    c = {};
    c.max_batched_tokens = c.max_batch - 1;
    CHECK_REJECTS(sim::validate(c), "config.max_batched_tokens");
    c = {};
    c.max_batch = std::size_t{1} << 40;
    c.max_batched_tokens = c.max_batch;
    CHECK_REJECTS(sim::validate(c), "config.max_batch");
  }

  TEST_CASE("errors: replica kv_budget_tokens") {
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = not_a_number,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 0.0,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 1.5,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "memory_fraction");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = -1.0,
                                         .kv_bytes_per_token = 131072.0}),
                  "weight_bytes");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 16e9,
                                         .kv_bytes_per_token = 0.0}),
                  "kv_bytes_per_token");
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                         .memory_fraction = 0.9,
                                         .weight_bytes = 80e9,
                                         .kv_bytes_per_token = 131072.0}),
                  "weight_bytes");  // no room
    CHECK_REJECTS(sim::kv_budget_tokens({.memory_bytes = 1e300,
                                         .memory_fraction = 1.0,
                                         .weight_bytes = 0.0,
                                         .kv_bytes_per_token = 1e-300}),
                  "kv_bytes_per_token");
  }

  TEST_CASE("errors: replica lognormal_lengths") {
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = not_a_number,
                                          .prompt_sigma = 1.0,
                                          .output_median = 150.0,
                                          .output_sigma = 0.9}),
                  "prompt_median");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = -1.0,
                                          .output_median = 150.0,
                                          .output_sigma = 0.9}),
                  "prompt_sigma");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = 1.0,
                                          .output_median = 0.0,
                                          .output_sigma = 0.9}),
                  "output_median");
    CHECK_REJECTS(sim::lognormal_lengths({.prompt_median = 200.0,
                                          .prompt_sigma = 1.0,
                                          .output_median = 150.0,
                                          .output_sigma = inf}),
                  "output_sigma");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {0, 1}})),
                  "min.prompt_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {1, 0}})),
                  "min.output_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {10, 1},
                                           .max = {5, 10}})),
                  "max.prompt_tokens");
    CHECK_REJECTS((sim::lognormal_lengths({.prompt_median = 200.0,
                                           .prompt_sigma = 1.0,
                                           .output_median = 150.0,
                                           .output_sigma = 0.9,
                                           .min = {1, 10},
                                           .max = {10, 5}})),
                  "max.output_tokens");
  }

  TEST_CASE("errors: replica replayed_lengths") {
    const std::vector<sim::request_lengths> empty{};
    const std::vector<sim::request_lengths> zero_prompt{{.prompt_tokens = 0, .output_tokens = 1}};
    const std::vector<sim::request_lengths> zero_output{{.prompt_tokens = 1, .output_tokens = 0}};
    CHECK_REJECTS(sim::replayed_lengths(empty), "list.size()");
    CHECK_REJECTS(sim::replayed_lengths(zero_prompt), "list[i].prompt_tokens");
    CHECK_REJECTS(sim::replayed_lengths(zero_output), "list[i].output_tokens");
  }

  TEST_CASE("errors: replica make_roofline_step_time") {
    const auto& h = accelerators::h100_sxm;
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 0.0,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "parameters");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = not_a_number,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "bytes_per_parameter");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = -1.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "kv_bytes_per_token");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.0,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "flops_efficiency");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 1.5,
                                                   .overhead = 1ms}),
                  "bandwidth_efficiency");
    CHECK_REJECTS(sim::make_roofline_step_time(h, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = -1ms}),
                  "overhead");
    accelerator_spec s = h;
    s.peak_bytes_per_second = 0.0;
    CHECK_REJECTS(sim::make_roofline_step_time(s, {.parameters = 8e9,
                                                   .bytes_per_parameter = 2.0,
                                                   .kv_bytes_per_token = 131072.0,
                                                   .flops_efficiency = 0.5,
                                                   .bandwidth_efficiency = 0.8,
                                                   .overhead = 1ms}),
                  "spec.peak_bytes_per_second");
  }

  TEST_CASE("errors: replica exponential_step_time") {
    CHECK_REJECTS(sim::exponential_step_time(0s, 1), "mean");
    CHECK_REJECTS(sim::exponential_step_time(nan_s, 1), "mean");
    CHECK_REJECTS(sim::exponential_step_time(-1s, 1), "mean");
  }

  TEST_CASE("errors: replica simulate") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    std::vector<sim::request> r{{.arrival = 0s, .prompt_tokens = 10, .output_tokens = 10},
                                {.arrival = 1s, .prompt_tokens = 10, .output_tokens = 10}};
    auto bad = r;
    bad[1].arrival = nan_s;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].arrival");
    bad = r;
    bad[0].arrival = 2s;  // unsorted
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].arrival");
    bad = r;
    bad[0].prompt_tokens = 0;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].prompt_tokens");
    bad = r;
    bad[1].output_tokens = 0;
    CHECK_REJECTS(sim::simulate(config, bad, model), "requests[i].output_tokens");
    CHECK_REJECTS((sim::simulate(config, r, model, {inf_s})), "options.horizon");
    CHECK_REJECTS((sim::simulate(config, r, sim::constant_step_time{seconds_d(not_a_number)})),
                  "step_time");
    auto c = config;
    c.max_batch = 0;
    CHECK_REJECTS(sim::simulate(c, r, model), "config.max_batch");
    // Domain outcomes: a request that can never fit is rejected, even when its token counts
    // would overflow a sum; an empty request list is an empty run.
    const std::vector<sim::request> huge{
        {.arrival = 0s, .prompt_tokens = static_cast<std::size_t>(-1), .output_tokens = 2}};
    const auto run = sim::simulate(config, huge, model);
    CHECK(run.stats.rejected == 1);
    REQUIRE(run.outcomes.size() == 1);
    CHECK(run.outcomes[0].error);
    CHECK(sim::simulate(config, std::vector<sim::request>{}, model).outcomes.empty());
  }

  TEST_CASE("errors: replica simulate_closed_loop") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    const closed_loop_population users(2, 100ms);
    std::mt19937_64 engine(1);
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 0,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}},
                      engine, model)),
                  "request_count");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 0, .output_tokens = 10}},
                      engine, model)),
                  "lengths().prompt_tokens");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 0}},
                      engine, model)),
                  "lengths().output_tokens");
    CHECK_REJECTS((sim::simulate_closed_loop(
                      config, users, 4,
                      sim::fixed_lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}},
                      engine, model, {nan_s})),
                  "options.horizon");
    const auto run = sim::simulate_closed_loop(
        config, users, 3,
        sim::fixed_lengths{
            .lengths = {.prompt_tokens = static_cast<std::size_t>(-1), .output_tokens = 2}},
        engine, model);
    CHECK(run.stats.rejected == 3);
  }

  TEST_CASE("errors: replica utilization_of") {
    sim::replica_stats stats;
    const auto model =
        sim::make_roofline_step_time(accelerators::h100_sxm, {.parameters = 8e9,
                                                              .bytes_per_parameter = 2.0,
                                                              .kv_bytes_per_token = 131072.0,
                                                              .flops_efficiency = 0.5,
                                                              .bandwidth_efficiency = 0.8,
                                                              .overhead = 1ms});
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS(sim::utilization_of(stats, model, s), "spec.peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = not_a_number;
    CHECK_REJECTS(sim::utilization_of(stats, model, s), "spec.peak_bytes_per_second");
    // A run without a step: all zero.
    CHECK(sim::utilization_of(stats, model, accelerators::h100_sxm).mfu == 0.0);
  }

  TEST_CASE("errors: replica sweep_capacity") {
    const sim::replica_config config{};
    const sim::constant_step_time model{10ms};
    const slo objective{.ttft = 1s, .tpot = 100ms};
    const sim::fixed_lengths lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}};
    const std::vector<double> rates{1.0};
    sim::sweep_options good;
    good.requests_per_point = 20;
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, std::vector<double>{}, lengths, objective, good),
        "rates_per_second.size()");
    CHECK_REJECTS(sim::sweep_capacity(config, model, std::vector<double>{1.0, not_a_number},
                                      lengths, objective, good),
                  "rates_per_second[i]");
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, std::vector<double>{0.0}, lengths, objective, good),
        "rates_per_second[i]");
    CHECK_REJECTS(
        sim::sweep_capacity(config, model, rates, lengths, slo{.ttft = 0s, .tpot = 1s}, good),
        "slo.ttft");
    auto o = good;
    o.requests_per_point = 0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.requests_per_point");
    o = good;
    o.arrival_cv = -1.0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.arrival_cv");
    o = good;
    o.replications = 0;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.replications");
    o = good;
    o.warm_up_fraction = 1.5;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.warm_up_fraction");
    o = good;
    o.warm_up_fraction = 0.6;
    o.cool_down_fraction = 0.6;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o),
                  "options.cool_down_fraction");
    o = good;
    o.z = not_a_number;
    CHECK_REJECTS(sim::sweep_capacity(config, model, rates, lengths, objective, o), "options.z");
  }
}

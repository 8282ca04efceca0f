// SPDX-License-Identifier: Apache-2.0
// The deployment planner (plan.hpp): the composition adds no semantics of its own (a
// brute-force recomputation from the component calls gives the same rows, frontier and
// winner), results do not depend on threads or shards, infeasible configurations are
// reported with their reason, and the replica model's predictions against published
// measurements are pinned (tests/data/planner/).
#include <headroom/plan.hpp>
#include <headroom/plan/csv_read.hpp>
#include <headroom/plan/csv_write.hpp>
#include <headroom/plan/fingerprint.hpp>
#include <headroom/plan/merge.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "planner_rows.hpp"
#include "support.hpp"
#include "test_data.hpp"

namespace {
namespace plan = headroom::plan;
namespace sim = headroom::sim;
using namespace std::chrono_literals;
using headroom::test::rejected;

plan::accelerator_option option(const headroom::roofline::accelerator_spec& spec, double price,
                                double link) {
  return {.spec = spec,
          .price_per_gpu_hour = price,
          .step_time = plan::step_time_parameters{.flops_efficiency = 0.5,
                                                  .bandwidth_efficiency = 0.8,
                                                  .step_overhead = 1ms,
                                                  .all_reduce_latency = 34us},
          .interconnect_bytes_per_second = link};
}

const plan::model_shape llama_8b{
    .name = "Llama-3.1-8B",
    .parameters = 8.030261248e9,
    .layers = 32,
    .hidden_size = 4096,
    .kv_bytes_per_token = headroom::roofline::kv_bytes_per_token(
        {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}),
    .bytes_per_parameter = 2.0,
    .activation_bytes = 2.0};
const plan::model_shape llama_70b{
    .name = "Llama-3.1-70B",
    .parameters = 70.553706496e9,
    .layers = 80,
    .hidden_size = 8192,
    .kv_bytes_per_token = headroom::roofline::kv_bytes_per_token(
        {.layers = 80, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}),
    .bytes_per_parameter = 2.0,
    .activation_bytes = 2.0};

// An 8B model (Llama 3.1 8B's shape, bf16) on a small grid: an H100, an L40S and a test
// part whose 17 GB leave the bf16 weights no room at TP 1.
plan::problem small_problem() {
  const headroom::roofline::accelerator_spec small{.name = "Test 17GB",
                                                   .peak_flops_per_second = 200e12,
                                                   .peak_bytes_per_second = 1.0e12,
                                                   .memory_bytes = 17e9};
  return {.name = "test-grid",
          .model = llama_8b,
          .axes = {.accelerators = {option(headroom::roofline::accelerators::h100_sxm, 3.0, 450e9),
                                    option(headroom::roofline::accelerators::l40s, 1.0, 32e9),
                                    option(small, 0.5, 32e9)},
                   .tensor_parallel = {1, 2},
                   .max_batch = {16, 64},
                   .max_batched_tokens = {512}},
          .target = {.ttft = 1s, .tpot = 50ms, .quota = 0.9},
          .traffic = {.rates_per_second = sim::reference_day_traffic(),
                      .lengths_description = "lognormal 200/1.0 150/0.9"},
          .search = {.requests_per_run = 400,
                     .max_measurements = 10,
                     .zero_load_requests = 20,
                     .length_draws = 2000,
                     .seed = 7}};
}

const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                  .prompt_sigma = 1.0,
                                  .output_median = 150.0,
                                  .output_sigma = 0.9,
                                  .min = {4, 1},
                                  .max = {2048, 1024}});

// ---- the brute force: every stage from the component calls, in the test --------------------

struct expected_row {
  std::string key;
  plan::feasibility status = plan::feasibility::feasible;
  double capacity = 0, cost = 0, margin = 0;
  std::int64_t replicas = 0;
};

std::vector<expected_row> brute_force(const plan::problem& p) {
  // The mix's means over length_draws draws on an engine seeded with search.seed.
  std::mt19937_64 length_engine(p.search.seed);
  sim::lognormal_lengths lengths_copy = mix;
  double in = 0, out = 0;
  for (std::size_t i = 0; i < p.search.length_draws; ++i) {
    const auto l = lengths_copy(length_engine);
    in += static_cast<double>(l.prompt_tokens);
    out += static_cast<double>(l.output_tokens);
  }
  const double draws = static_cast<double>(p.search.length_draws);
  const plan::length_statistics stats{.mean_prompt_tokens = in / draws,
                                      .mean_output_tokens = out / draws};
  const headroom::capacity::slo bounds{.ttft = *p.target.ttft,
                                       .tpot = *p.target.tpot,
                                       .e2e = std::nullopt,
                                       .tpot_kind = headroom::capacity::tpot_definition::vllm};
  const double q = p.target.quota;
  const double rho = p.fleet.target_utilization;
  const double peak =
      *std::max_element(p.traffic.rates_per_second.begin(), p.traffic.rates_per_second.end());
  std::vector<expected_row> rows;
  for (const auto& gpu : p.axes.accelerators)
    for (const auto tp : p.axes.tensor_parallel)
      for (const auto batch : p.axes.max_batch)
        for (const auto tokens : p.axes.max_batched_tokens) {
          expected_row e;
          e.key = std::string(gpu.spec.name) + "/tp" + std::to_string(tp) + "/b" +
                  std::to_string(batch) + "/t" + std::to_string(tokens) +
                  "/chunked/preempt_youngest";
          const std::uint64_t seed = plan::configuration_seed(p.search.seed, e.key);
          const double memory = gpu.spec.memory_bytes * tp;
          const double weights = p.model.parameters * p.model.bytes_per_parameter;
          if (std::floor((memory * p.axes.memory_fraction - weights) / p.model.kv_bytes_per_token) <
              1) {
            e.status = plan::feasibility::weights_do_not_fit;
            rows.push_back(e);
            continue;
          }
          const sim::replica_config config{.max_batch = batch,
                                           .kv_budget_tokens = sim::kv_budget_tokens(
                                               {.memory_bytes = memory,
                                                .memory_fraction = p.axes.memory_fraction,
                                                .weight_bytes = weights,
                                                .kv_bytes_per_token = p.model.kv_bytes_per_token}),
                                           .max_batched_tokens = tokens,
                                           .prefill = sim::prefill_mode::chunked,
                                           .kv = sim::kv_policy::preempt_youngest};
          const auto model = plan::make_step_time(p.model, gpu, tp);
          // Zero load: each request alone.
          std::mt19937_64 zero_engine(seed);
          sim::lognormal_lengths zero_lengths = mix;
          std::size_t met = 0, never = 0;
          for (std::size_t i = 0; i < p.search.zero_load_requests; ++i) {
            const auto l = zero_lengths(zero_engine);
            const sim::request one[1] = {{.arrival = 0s,
                                          .prompt_tokens = l.prompt_tokens,
                                          .output_tokens = l.output_tokens}};
            const auto run = sim::simulate(config, one, model);
            never += run.status[0] == sim::request_status::rejected;
            met += headroom::capacity::meets_slo(bounds, run.outcomes[0]);
          }
          const double n0 = static_cast<double>(p.search.zero_load_requests);
          if (static_cast<double>(never) / n0 > 1 - q) {
            e.status = plan::feasibility::requests_do_not_fit;
          } else if (static_cast<double>(met) / n0 < q) {
            e.status = plan::feasibility::slo_unmet_at_zero_load;
          }
          if (e.status != plan::feasibility::feasible) {
            rows.push_back(e);
            continue;
          }
          // μ*: capacity.hpp's search over sweep_capacity runs.
          auto measure = [&](headroom::capacity::capacity_probe probe) {
            const sim::sweep_options one{.requests_per_point = p.search.requests_per_run,
                                         .seed = sim::replication_seed(seed, probe.run + 1)};
            const std::vector<double> rate{probe.rate_per_second};
            return sim::sweep_capacity(config, model, rate, mix, bounds, one).curve[0].conformance;
          };
          const double start = plan::starting_rate(model, config, stats);
          const headroom::capacity::capacity_search_options search{
              .quota = q,
              .rate_low_per_second = start / 2,
              .rate_high_per_second = start,
              .relative_tolerance = p.search.relative_tolerance,
              .max_measurements = p.search.max_measurements,
              .max_runs_per_rate = p.search.max_runs_per_rate};
          const auto found = headroom::capacity::search_capacity(measure, search);
          if (!found.capacity_per_second) {
            e.status = plan::feasibility::slo_unmet_at_any_rate;
            rows.push_back(e);
            continue;
          }
          e.capacity = *found.capacity_per_second;
          // The operating point ρ*·μ*: nearest-rank q-quantiles of TTFT and TPOT.
          std::mt19937_64 engine(sim::replication_seed(seed, 0));
          const auto schedule = headroom::arrivals::open_loop_schedule(
              headroom::arrivals::gamma_gaps({.rate_per_second = rho * e.capacity, .cv = 1.0}),
              p.search.requests_per_run, engine);
          sim::lognormal_lengths draw = mix;
          const auto requests = sim::make_requests(schedule, draw, engine);
          const auto run = sim::simulate(config, requests, model);
          const double span = schedule.back().count();
          std::vector<double> ttft, tpot;
          for (const auto& o : run.outcomes) {
            const double t = o.intended_arrival.count();
            if (t < 0.1 * span || t > span - 0.1 * span) continue;
            ttft.push_back(o.error ? INFINITY : headroom::capacity::time_to_first_token(o).count());
            tpot.push_back(o.error ? INFINITY : headroom::capacity::tpot_vllm(o).count());
          }
          std::sort(ttft.begin(), ttft.end());
          std::sort(tpot.begin(), tpot.end());
          const auto at =
              static_cast<std::size_t>(std::ceil(q * static_cast<double>(ttft.size()))) - 1;
          e.margin = std::min(1 - ttft[at] / p.target.ttft->count(),
                              1 - tpot[at] / p.target.tpot->count());
          // The day.
          sim::fleet_day_simulator simulator({.capacity_per_replica = e.capacity,
                                              .target_utilization = rho,
                                              .price_per_replica_hour = gpu.price_per_gpu_hour * tp,
                                              .tokens_per_request = stats.mean_output_tokens});
          e.cost =
              *simulator.run(p.traffic.rates_per_second, p.fleet.policy).cost_per_million_tokens;
          e.replicas = headroom::queueing::replicas_needed({.arrival_rate_per_second = peak,
                                                            .target_utilization = rho,
                                                            .capacity_per_second = e.capacity});
          rows.push_back(e);
        }
  return rows;
}

}  // namespace

TEST_SUITE("plan") {
  TEST_CASE("plan: the composition adds nothing: a brute force from the components agrees") {
    const plan::problem p = small_problem();
    const auto result = plan::search(p, mix, {.threads = 2});
    const auto expected = brute_force(p);
    REQUIRE(result.rows.size() == expected.size());
    REQUIRE(expected.size() == 12);
    std::size_t feasible = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const auto& r = result.rows[i];
      const auto& e = expected[i];
      CAPTURE(e.key);
      CHECK(r.key == e.key);
      CHECK(r.config.index == i);
      CHECK(r.status == e.status);
      // Bit-identical: the same calls on the same seeds.
      CHECK(r.capacity_per_second == e.capacity);
      if (e.status != plan::feasibility::feasible) continue;
      ++feasible;
      CHECK(r.cost_per_million_tokens == e.cost);
      CHECK(r.latency_margin == e.margin);
      CHECK(r.replicas_for_peak == e.replicas);
    }
    // The test part does not hold the weights at TP 1 (17 GB × 0.9 < 16.06 GB): 2 rows.
    CHECK(result.outcome.counts[static_cast<int>(plan::feasibility::weights_do_not_fit)] == 2);
    CHECK(feasible >= 4);

    // The frontier (cost vs margin) and the winner, by brute force over the expected rows.
    std::vector<std::string> frontier;
    std::optional<std::size_t> winner;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i].status != plan::feasibility::feasible) continue;
      bool dominated = false;
      for (std::size_t j = 0; j < expected.size(); ++j) {
        if (j == i || expected[j].status != plan::feasibility::feasible) continue;
        const auto& a = expected[j];
        const auto& b = expected[i];
        if (a.cost <= b.cost && a.margin >= b.margin && (a.cost < b.cost || a.margin > b.margin))
          dominated = true;
      }
      if (!dominated) frontier.push_back(expected[i].key);
      if (!winner || expected[i].cost < expected[*winner].cost ||
          (expected[i].cost == expected[*winner].cost &&
           expected[i].margin > expected[*winner].margin))
        winner = i;
    }
    std::vector<std::string> planned;
    for (const auto i : result.outcome.margin_frontier) planned.push_back(result.rows[i].key);
    std::sort(frontier.begin(), frontier.end());
    std::sort(planned.begin(), planned.end());
    CHECK(planned == frontier);
    REQUIRE(result.outcome.winner);
    REQUIRE(winner);
    CHECK(result.rows[*result.outcome.winner].key == expected[*winner].key);
    CHECK(result.outcome.verdicts[*result.outcome.winner] == plan::verdict::winner);
  }

  TEST_CASE("plan: one thread and two give the same rows") {
    const plan::problem p = small_problem();
    const auto stats = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    const auto one = plan::evaluate_grid(p, mix, {.threads = 1});
    const auto two = plan::evaluate_grid(p, mix, {.threads = 2});
    const auto d1 = plan::decide(one);
    const auto d2 = plan::decide(two);
    CHECK(plan::write_csv(p, stats, {}, one, &d1) == plan::write_csv(p, stats, {}, two, &d2));
  }

  TEST_CASE("plan: shards 1/3 2/3 3/3 merged give the unsharded rows and frontier") {
    const plan::problem p = small_problem();
    const auto stats = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    const auto whole = plan::evaluate_grid(p, mix, {.threads = 2});
    std::string files;  // concatenated, in reverse order: order must not matter
    for (std::size_t k = 3; k >= 1; --k) {
      const auto part =
          plan::evaluate_grid(p, mix, {.threads = 1, .part = {.index = k, .count = 3}});
      for (const auto& r : part) CHECK(r.config.index % 3 == k - 1);
      files += plan::write_csv(p, stats, {.index = k, .count = 3}, part);
    }
    const auto read = plan::read_csv(files);
    REQUIRE(read.ok());
    REQUIRE(read.blocks.size() == 3);
    const auto merged = plan::merge(read.blocks);
    REQUIRE(merged.ok());
    REQUIRE(merged.grids.size() == 1);
    CHECK(merged.grids[0].fingerprint == plan::fingerprint(p, stats));
    const auto& rows = merged.grids[0].rows;
    const auto d_whole = plan::decide(whole);
    const auto d_merged = plan::decide(rows);
    CHECK(plan::write_csv(p, stats, {}, rows, &d_merged) ==
          plan::write_csv(p, stats, {}, whole, &d_whole));
    CHECK(d_merged.margin_frontier == d_whole.margin_frontier);
    CHECK(d_merged.replicas_frontier == d_whole.replicas_frontier);
    CHECK(d_merged.winner == d_whole.winner);

    // A missing, a repeated or a foreign shard is a reported outcome.
    const std::string one =
        plan::write_csv(p, stats, {.index = 1, .count = 3},
                        plan::evaluate_grid(p, mix, {.part = {.index = 1, .count = 3}}));
    const std::string three =
        plan::write_csv(p, stats, {.index = 3, .count = 3},
                        plan::evaluate_grid(p, mix, {.part = {.index = 3, .count = 3}}));
    const auto gap = plan::merge(plan::read_csv(one + three).blocks);
    CHECK_FALSE(gap.ok());
    CHECK(gap.error.find("shard 2/3 is missing") != std::string::npos);
    const auto twice = plan::merge(plan::read_csv(one + one).blocks);
    CHECK(twice.error.find("appears twice") != std::string::npos);
    plan::problem other = p;
    other.search.requests_per_run = 500;  // another grid: another fingerprint
    CHECK(plan::fingerprint(other, stats) != plan::fingerprint(p, stats));
    plan::problem fp8 = p;  // the same model computing in FP8: another grid
    fp8.model.compute_format = headroom::roofline::numeric_format::fp8;
    CHECK(plan::fingerprint(fp8, stats) != plan::fingerprint(p, stats));
    plan::problem mixture = p;  // the same model with routed experts: another grid too
    mixture.model.moe = {.experts = 8, .experts_per_token = 2, .parameters_per_expert = 0.5e9};
    CHECK(plan::fingerprint(mixture, stats) != plan::fingerprint(p, stats));
  }

  TEST_CASE("plan: a model computing in FP8 takes the accelerator's FP8 peak") {
    // The 8B shape in FP8 on two H100s: the replica's FLOP/s peak is 2 × 1,978.9e12, twice the
    // bf16 replica's; on two A100s (no FP8 tensor cores) it stays 2 × 312e12.
    plan::problem p = small_problem();
    p.model.bytes_per_parameter = 1.0;
    p.model.compute_format = headroom::roofline::numeric_format::fp8;
    const plan::accelerator_option& h100 = p.axes.accelerators[0];
    const auto fp8 = plan::make_step_time(p.model, h100, 2);
    CHECK(fp8.roofline.flops_per_second == doctest::Approx(0.5 * 2 * 1978.9e12).epsilon(1e-15));
    CHECK(plan::replica_spec(h100.spec, 2, headroom::roofline::numeric_format::fp8)
              .peak_flops_per_second == 2 * 1978.9e12);
    CHECK(plan::replica_spec(headroom::roofline::accelerators::a100_80gb_sxm, 2,
                             headroom::roofline::numeric_format::fp8)
              .peak_flops_per_second == 2 * 312e12);
    plan::model_shape bf16 = p.model;
    bf16.compute_format = headroom::roofline::numeric_format::bf16;
    CHECK(plan::make_step_time(bf16, h100, 2).roofline.flops_per_second ==
          doctest::Approx(0.5 * 2 * 989.4e12).epsilon(1e-15));
  }

  TEST_CASE("plan: a mixture of experts runs on the mixtures' calibration, and says so") {
    // The 8B shape with four routed experts of 1.5e9 (2 a token): active 8.03e9 − 3e9. On the
    // H100 it takes the shipped mixture-of-experts calibration; the step time computes the
    // active parameters.
    plan::problem p = small_problem();
    p.model.moe = {.experts = 4, .experts_per_token = 2, .parameters_per_expert = 1.5e9};
    p.axes.accelerators[0].step_time.reset();  // no parameters stated: the shipped ones
    plan::validate(p);
    const plan::accelerator_option& h100 = p.axes.accelerators[0];
    const auto resolved = plan::resolve_step_time(h100, p.model);
    CHECK(resolved.source == plan::calibration_source::shipped);
    CHECK(resolved.parameters ==
          plan::find_shipped_calibration("H100 SXM", plan::model_architecture::mixture_of_experts)
              ->parameters);
    const auto step = plan::make_step_time(p.model, h100, 1);
    CHECK(step.roofline.parameters == doctest::Approx(p.model.parameters - 3e9).epsilon(1e-15));
    // The KV budget leaves room for ALL the weights (every expert is resident).
    const auto budget = plan::replica_kv_budget(p.model, h100, 1, 0.9);
    REQUIRE(budget.has_value());
    CHECK(static_cast<double>(*budget) ==
          doctest::Approx(std::floor((h100.spec.memory_bytes * 0.9 - p.model.parameters * 2.0) /
                                     p.model.kv_bytes_per_token))
              .epsilon(1e-12));
    const plan::row r = plan::evaluate(
        p, {.accelerator = 0, .tensor_parallel = 1, .max_batch = 16, .max_batched_tokens = 512},
        mix, plan::sample_lengths(mix, p.search.length_draws, p.search.seed));
    CHECK(r.calibration == plan::calibration_source::shipped);
  }

  TEST_CASE("plan: a merge renumbers each shard's accelerators by name") {
    // Three configurations, one accelerator each (H100, L40S, the test part), one per shard:
    // every block numbers its only accelerator 0; the merged grid numbers them by name in
    // index order, 0, 1, 2. Rows written by hand: the merge reads, it does not simulate.
    plan::problem p = small_problem();
    p.axes.tensor_parallel = {1};
    p.axes.max_batch = {16};
    const auto all = plan::enumerate(p.axes);
    REQUIRE(all.size() == 3);
    const auto stats = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    std::string files;
    for (std::size_t k = 1; k <= 3; ++k) {
      std::vector<plan::row> one(1);
      one[0].config = all[k - 1];
      one[0].key = plan::key(p.axes, all[k - 1]);
      files += plan::write_csv(p, stats, {.index = k, .count = 3}, one);
    }
    const auto read = plan::read_csv(files);
    REQUIRE(read.ok());
    for (const auto& b : read.blocks) {
      REQUIRE(b.rows.size() == 1);
      CHECK(b.rows[0].config.accelerator == 0);
    }
    const auto merged = plan::merge(read.blocks);
    REQUIRE(merged.ok());
    REQUIRE(merged.grids.size() == 1);
    const auto& g = merged.grids[0];
    CHECK(g.accelerators == std::vector<std::string>{"H100 SXM", "L40S", "Test 17GB"});
    REQUIRE(g.rows.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK(g.rows[i].config.accelerator == i);
  }

  TEST_CASE("plan: a configuration measures the same whatever else the grid holds") {
    const plan::problem p = small_problem();
    plan::problem alone = p;
    alone.axes.accelerators = {p.axes.accelerators[1]};  // the L40S
    alone.axes.tensor_parallel = {2};
    alone.axes.max_batch = {64};
    const auto rows = plan::evaluate_grid(alone, mix, {.threads = 1});
    REQUIRE(rows.size() == 1);
    const auto full = plan::evaluate_grid(p, mix, {.threads = 2});
    const auto it = std::find_if(full.begin(), full.end(),
                                 [&](const plan::row& r) { return r.key == rows[0].key; });
    REQUIRE(it != full.end());
    CHECK(rows[0].key == "L40S/tp2/b64/t512/chunked/preempt_youngest");
    CHECK(it->capacity_per_second == rows[0].capacity_per_second);
    CHECK(it->cost_per_million_tokens == rows[0].cost_per_million_tokens);
    CHECK(it->latency_margin == rows[0].latency_margin);
    CHECK(it->config.index != rows[0].config.index);  // another position, the same result
  }

  TEST_CASE("plan: infeasible configurations are reported with their reason") {
    plan::problem p = small_problem();
    // 70B in bf16 (141 GB) on one L40S: the weights do not fit.
    p.model = llama_70b;
    // A part whose memory leaves the 8B weights room for about 300 tokens of KV cache:
    // floor((17.8888e9 × 0.9 − 16.060522496e9) / 131072) = floor(300.58) = 300 tokens; most
    // requests (median about 350 tokens) can never fit.
    plan::problem tight = small_problem();
    const headroom::roofline::accelerator_spec tiny{.name = "Tight",
                                                    .peak_flops_per_second = 200e12,
                                                    .peak_bytes_per_second = 1.0e12,
                                                    .memory_bytes = 17.8888e9};
    tight.axes.accelerators = {option(tiny, 1.0, 32e9)};
    tight.axes.tensor_parallel = {1};
    tight.axes.max_batch = {16};
    const auto t = plan::search(tight, mix);
    REQUIRE(t.rows.size() == 1);
    CHECK(t.rows[0].status == plan::feasibility::requests_do_not_fit);
    CHECK(t.rows[0].kv_budget_tokens == 300);
    CHECK(t.rows[0].zero_load_rejected > 0.1);
    CHECK_FALSE(t.outcome.winner);
    CHECK(t.outcome.verdicts[0] == plan::verdict::infeasible);

    p.axes.accelerators = {p.axes.accelerators[1]};
    p.axes.tensor_parallel = {1};
    p.axes.max_batch = {16};
    const auto w = plan::search(p, mix);
    REQUIRE(w.rows.size() == 1);
    CHECK(w.rows[0].status == plan::feasibility::weights_do_not_fit);
    CHECK(w.rows[0].kv_budget_tokens == 0);
    CHECK(w.rows[0].runs == 0);  // the early exit: nothing was simulated

    // A 1 ms TTFT: no prompt is prefilled that fast even alone.
    plan::problem fast = small_problem();
    fast.target.ttft = 1ms;
    fast.axes.accelerators = {fast.axes.accelerators[0]};
    const auto f = plan::search(fast, mix);
    REQUIRE(f.rows.size() == 4);
    for (const auto& r : f.rows) {
      CHECK(r.status == plan::feasibility::slo_unmet_at_zero_load);
      CHECK(r.zero_load_conformance == 0.0);
      CHECK(r.runs == 0);
    }
    CHECK_FALSE(f.outcome.winner);
    CHECK(f.outcome.counts[static_cast<int>(plan::feasibility::slo_unmet_at_zero_load)] == 4);
    // The CSV keeps every row, infeasible ones included, with its reason.
    const auto stats = plan::sample_lengths(mix, fast.search.length_draws, fast.search.seed);
    const std::string csv = plan::write_csv(fast, stats, {}, f.rows, &f.outcome);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 4);  // the column names, 4 rows
    const std::string commented = plan::write_csv(fast, stats, {}, f.rows, &f.outcome,
                                                  {.layout = plan::csv_layout::commented});
    CHECK(std::count(commented.begin(), commented.end(), '\n') == 2 + 4);  // + the header
    CHECK(csv.find("slo_unmet_at_zero_load") != std::string::npos);

    // Zero load passes, but two load tests of 100 requests cannot show conformance >= 0.9
    // with confidence at any rate: no passing rate, slo_unmet_at_any_rate.
    plan::problem thin = small_problem();
    thin.axes.accelerators = {thin.axes.accelerators[0]};
    thin.axes.tensor_parallel = {1};
    thin.axes.max_batch = {16};
    thin.target.quota = 0.99;
    thin.search.requests_per_run = 100;
    thin.search.max_measurements = 2;
    thin.search.max_runs_per_rate = 1;
    const auto a = plan::search(thin, mix);
    REQUIRE(a.rows.size() == 1);
    CHECK(a.rows[0].zero_load_conformance >= 0.99);
    CHECK(a.rows[0].status == plan::feasibility::slo_unmet_at_any_rate);
    CHECK(a.rows[0].runs == 2);
    CHECK(a.rows[0].capacity_per_second == 0.0);
  }

  TEST_CASE("plan: decide finds the frontiers, the winner and what dominates each loser") {
    // Five rows: A (cost 1.0, margin 0.5, 4 replicas), B (2.0, 0.8, 3), C (2.5, 0.6, 2),
    // D (1.5, 0.4, 5), E infeasible. Against margin: A and B are not dominated; C is
    // dominated by B (cheaper, more margin), D by A; the winner is A (cheapest). Against
    // replicas: A, B and C each trade cost for fewer replicas; D is dominated by A.
    std::vector<plan::row> rows(5);
    const double cost[] = {1.0, 2.0, 2.5, 1.5, 0};
    const double margin[] = {0.5, 0.8, 0.6, 0.4, 0};
    const std::int64_t replicas[] = {4, 3, 2, 5, 0};
    for (std::size_t i = 0; i < 5; ++i) {
      rows[i].config.index = i;
      rows[i].key = std::string(1, static_cast<char>('A' + i));
      rows[i].cost_per_million_tokens = cost[i];
      rows[i].latency_margin = margin[i];
      rows[i].replicas_for_peak = replicas[i];
    }
    rows[4].status = plan::feasibility::weights_do_not_fit;
    const auto d = plan::decide(rows);
    CHECK(d.margin_frontier == std::vector<std::size_t>{0, 1});
    CHECK(d.replicas_frontier == std::vector<std::size_t>{0, 1, 2});
    REQUIRE(d.winner);
    CHECK(*d.winner == 0);
    CHECK(d.verdicts == std::vector<plan::verdict>{plan::verdict::winner, plan::verdict::frontier,
                                                   plan::verdict::dominated,
                                                   plan::verdict::dominated,
                                                   plan::verdict::infeasible});
    CHECK(d.dominated_by[2] == std::optional<std::size_t>(1));
    CHECK(d.dominated_by[3] == std::optional<std::size_t>(0));
    CHECK_FALSE(d.dominated_by[0]);
    CHECK(d.counts[0] == 4);
    CHECK(d.counts[1] == 1);
    // A tie on cost goes to more margin.
    rows[1].cost_per_million_tokens = 1.0;
    CHECK(*plan::decide(rows).winner == 1);
  }

  TEST_CASE("plan: the tensor-parallel step time is the roofline plus the all-reduces") {
    // 8e9 parameters bf16 on two H100s (P_eff 0.5 × 2 × 989.4e12, B_eff 0.8 × 2 × 3.35e12),
    // 1 ms overhead; a decode step of 64 sequences with 64,000 KV tokens of 128 KiB:
    // bytes 16e9 + 64000 × 131072 = 24.388608e9 over 5.36e12 B/s = 4.550113 ms (the FLOPs,
    // 1.024e12 over 989.4e12, take 1.035 ms); all-reduces 2 × 32 × (34 µs + 2 × (1/2) ×
    // 64 × 4096 × 2 B / 450e9 B/s) = 64 × 35.16508 µs = 2.250565 ms; total 7.800679 ms.
    const plan::model_shape m{.name = "m",
                              .parameters = 8e9,
                              .layers = 32,
                              .hidden_size = 4096,
                              .kv_bytes_per_token = 131072,
                              .bytes_per_parameter = 2.0,
                              .activation_bytes = 2.0};
    const auto model =
        plan::make_step_time(m, option(headroom::roofline::accelerators::h100_sxm, 1.0, 450e9), 2);
    const sim::step_shape decode{
        .batch = 64, .prefill_tokens = 0, .decode_tokens = 64, .kv_tokens = 64000};
    CHECK(model.communication_seconds(64) == doctest::Approx(2.2505654044e-3).epsilon(1e-10));
    CHECK(model(decode).count() == doctest::Approx(7.800678837e-3).epsilon(1e-9));
    // TP 1: no all-reduce at all.
    const auto one =
        plan::make_step_time(m, option(headroom::roofline::accelerators::h100_sxm, 1.0, 450e9), 1);
    CHECK(one.communication_seconds(64) == 0.0);
    // The replica holds TP × the memory: 8 × 46,068 MiB L40S = 386,446,393,344 bytes.
    CHECK(plan::replica_spec(headroom::roofline::accelerators::l40s, 8).memory_bytes ==
          386'446'393'344.0);
  }

  TEST_CASE("plan: configurations keys seeds and shards") {
    const plan::problem p = small_problem();
    const auto all = plan::enumerate(p.axes);
    REQUIRE(all.size() == 12);
    CHECK(plan::key(p.axes, all[0]) == "H100 SXM/tp1/b16/t512/chunked/preempt_youngest");
    CHECK(plan::key(p.axes, all[1]) == "H100 SXM/tp1/b64/t512/chunked/preempt_youngest");
    CHECK(plan::key(p.axes, all[2]) == "H100 SXM/tp2/b16/t512/chunked/preempt_youngest");
    CHECK(plan::key(p.axes, all[4]) == "L40S/tp1/b16/t512/chunked/preempt_youngest");
    // The seed depends on the key and the base only.
    CHECK(plan::configuration_seed(1, "a") == plan::configuration_seed(1, "a"));
    CHECK(plan::configuration_seed(1, "a") != plan::configuration_seed(1, "b"));
    CHECK(plan::configuration_seed(1, "a") != plan::configuration_seed(2, "a"));
    // Its value: SplitMix64's finaliser of 7 XOR FNV-1a("a") (0xaf63dc4c8601ec8c, the
    // published FNV-1a test vector), computed by hand in 64-bit arithmetic.
    static_assert(plan::configuration_seed(7, "a") == 0x0c556c997d01e47bull);
    const auto two_of_three = plan::parse_shard("2/3");
    REQUIRE(two_of_three);
    CHECK(two_of_three->index == 2);
    CHECK(two_of_three->count == 3);
    for (const char* bad : {"0/3", "4/3", "a/3", "3", "1/0", "/3", "1/", "1/3/4", "-1/3"})
      CHECK_FALSE(plan::parse_shard(bad));
  }

  TEST_CASE("plan: CSV rows read back to the same doubles and bad text names its line") {
    const plan::problem p = small_problem();
    const auto stats = plan::sample_lengths(mix, p.search.length_draws, p.search.seed);
    std::vector<plan::row> rows(1);
    rows[0].key = "H100 SXM/tp1/b16/t512/chunked/preempt_youngest";
    rows[0].capacity_per_second = 0.1 + 0.2;  // not a short decimal
    rows[0].capacity_high_per_second = INFINITY;
    rows[0].latency_margin = -0.25;
    for (const auto layout : {plan::csv_layout::plain, plan::csv_layout::commented}) {
      CAPTURE(static_cast<int>(layout));
      const std::string text =
          plan::write_csv(p, stats, {.index = 1, .count = 12}, rows, nullptr, {.layout = layout});
      const auto read = plan::read_csv(text);
      REQUIRE(read.ok());
      REQUIRE(read.blocks.size() == 1);
      CHECK(read.blocks[0].part.index == 1);
      CHECK(read.blocks[0].part.count == 12);
      CHECK(read.blocks[0].configurations == 12);
      CHECK(read.blocks[0].model_name == "Llama-3.1-8B");
      CHECK(read.blocks[0].plan_name == p.name);
      CHECK(read.blocks[0].rows[0].capacity_per_second == 0.1 + 0.2);
      CHECK(read.blocks[0].rows[0].capacity_high_per_second == INFINITY);
      CHECK(read.blocks[0].rows[0].latency_margin == -0.25);
      CHECK(plan::write_csv(p, stats, {.index = 1, .count = 12}, read.blocks[0].rows, nullptr,
                            {.layout = layout}) == text);
      std::string cut = text;
      cut.resize(cut.size() - 3);  // the last row loses a field
      cut += "\n";
      // Plain: the column names, then the row; commented: the header line first.
      CHECK(plan::read_csv(cut).error_line == (layout == plan::csv_layout::plain ? 2u : 3u));
    }
    // Plain: no '#' line, the metadata first on every row; two grids continue one table and
    // read back as two blocks.
    const std::string plain = plan::write_csv(p, stats, {.index = 1, .count = 12}, rows);
    CHECK(plain.find('#') == std::string::npos);
    CHECK(plain.rfind("headroom_version,plan,model,fingerprint,configurations,shard,index,key,",
                      0) == 0);
    const std::string second_row = plain.substr(plain.find('\n') + 1);
    CHECK(second_row.rfind(std::string(headroom::version_string) + "," + p.name + ",Llama-3.1-8B,",
                           0) == 0);
    plan::problem other = p;
    other.name = "other-grid";
    std::string two = plain;
    plan::append_csv(two, other, stats, {.index = 1, .count = 12}, rows, nullptr,
                     {.column_names = false});
    CHECK(std::count(two.begin(), two.end(), '\n') == 3);
    const auto both = plan::read_csv(two);
    REQUIRE(both.ok());
    REQUIRE(both.blocks.size() == 2);
    CHECK(both.blocks[1].plan_name == "other-grid");
    CHECK(both.blocks[1].rows.size() == 1);

    const auto header = plan::read_csv("# not a plan\n");
    CHECK(header.error_line == 1);
    CHECK(header.error == "not a headroom plan header");
    CHECK(plan::read_csv("1,2,3\n").error ==
          "a row before any column names or '# headroom' header");
    CHECK(plan::read_csv(std::string(plan::metadata_columns) + ",x\n").error ==
          "a row before any column names or '# headroom' header");
  }

  TEST_CASE("plan: every row says where its step time came from") {
    // small_problem states every accelerator's parameters (given); without them an H100 takes
    // its shipped calibration and the 17 GB test part, which has none, is uncalibrated. The
    // 17 GB part's weights do not fit at TP 1, so its row is decided at once.
    plan::problem p = small_problem();
    p.axes.accelerators[2].step_time.reset();
    const auto configurations = plan::enumerate(p.axes);
    const auto on = [&](std::size_t accelerator) {
      for (const auto& c : configurations)
        if (c.accelerator == accelerator && c.tensor_parallel == 1) return c;
      FAIL("no configuration");
      return configurations.front();
    };
    const auto lengths = plan::sample_lengths(mix, 100, 1);
    const plan::row uncalibrated = plan::evaluate(p, on(2), mix, lengths);
    CHECK(uncalibrated.status == plan::feasibility::weights_do_not_fit);
    CHECK(uncalibrated.calibration == plan::calibration_source::uncalibrated);
    CHECK(plan::write_csv(p, lengths, {}, std::vector<plan::row>{uncalibrated})
              .ends_with(",uncalibrated\n"));
    p.axes.accelerators[0].step_time.reset();
    p.axes.max_batched_tokens = {512};
    p.search.zero_load_requests = 1;
    p.target.ttft = std::chrono::duration<double>(1e-6);  // misses the SLO alone: decided early
    CHECK(plan::evaluate(p, on(0), mix, lengths).calibration == plan::calibration_source::shipped);
    CHECK(plan::evaluate(p, on(1), mix, lengths).calibration == plan::calibration_source::given);
  }

  TEST_CASE("plan: a bad problem is rejected naming the field") {
    plan::problem p = small_problem();
    const auto bad = [&](auto change) {
      plan::problem q = p;
      change(q);
      return rejected([&] { plan::validate(q); });
    };
    CHECK(rejected([&] { plan::validate(p); }).empty());
    CHECK(bad([](plan::problem& q) { q.name = "two words"; }) == "problem.name");
    CHECK(bad([](plan::problem& q) { q.model.parameters = -1; }) == "model.parameters");
    CHECK(bad([](plan::problem& q) {
            q.model.moe = {.experts = 8, .experts_per_token = 0, .parameters_per_expert = 1e8};
          }) == "model.moe.experts_per_token");
    CHECK(bad([](plan::problem& q) {
            q.model.moe = {.experts = 8, .experts_per_token = 2, .parameters_per_expert = 1e12};
          }) == "model.moe.parameters_per_expert");
    CHECK(bad([](plan::problem& q) { q.axes.accelerators.clear(); }) == "axes.accelerators.size()");
    CHECK(bad([](plan::problem& q) { q.axes.accelerators[1].spec.name = "H100 SXM"; }) ==
          "axes.accelerators[i].spec.name");
    CHECK(bad([](plan::problem& q) { q.axes.accelerators[0].price_per_gpu_hour = 0; }) ==
          "axes.accelerators[i].price_per_gpu_hour");
    CHECK(bad([](plan::problem& q) { q.axes.tensor_parallel = {0}; }) == "axes.tensor_parallel[i]");
    CHECK(bad([](plan::problem& q) { q.axes.max_batched_tokens = {32}; }) ==
          "axes.max_batched_tokens[i]");
    CHECK(bad([](plan::problem& q) {
            q.target.ttft.reset();
            q.target.tpot.reset();
          }) == "target.ttft");
    CHECK(bad([](plan::problem& q) { q.target.quota = 1.0; }) == "target.quota");
    CHECK(bad([](plan::problem& q) {
            q.traffic.rates_per_second = {0, 0};
          }) == "traffic.rates_per_second");
    CHECK(bad([](plan::problem& q) { q.search.requests_per_run = 10; }) ==
          "search.requests_per_run");
    CHECK(rejected([&] {
            (void)plan::evaluate_grid(p, mix, {.part = {.index = 4, .count = 3}});
          }) == "run.part.index");
  }

  TEST_CASE("plan: a field out of its range is refused up front, naming it") {
    // Values no model or accelerator has, which used to fail late and deep (traffic.step =
    // 1e300 in the fleet day, as over 366 days) or not at all (denormals).
    const plan::problem p = small_problem();
    const auto bad = [&](auto change) {
      plan::problem q = p;
      change(q);
      return rejected([&] { plan::validate(q); });
    };
    constexpr double huge = std::numeric_limits<double>::max();
    constexpr double denormal = std::numeric_limits<double>::denorm_min();
    CHECK(bad([](plan::problem& q) { q.traffic.step = std::chrono::duration<double>(1e300); }) ==
          "traffic.step");
    CHECK(bad([&](plan::problem& q) {
            q.traffic.step = std::chrono::duration<double>(denormal);
          }) == "traffic.step");
    CHECK(bad([&](plan::problem& q) { q.model.parameters = huge; }) == "model.parameters");
    CHECK(bad([&](plan::problem& q) { q.model.kv_bytes_per_token = denormal; }) ==
          "model.kv_bytes_per_token");
    CHECK(bad([&](plan::problem& q) { q.model.bytes_per_parameter = 1e300; }) ==
          "model.bytes_per_parameter");
    CHECK(bad([&](plan::problem& q) {
            q.axes.accelerators[0].spec.peak_flops_per_second = huge;
          }) == "axes.accelerators[i].spec.peak_flops_per_second");
    CHECK(bad([&](plan::problem& q) {
            q.axes.accelerators[0].spec.peak_fp8_flops_per_second = -1.0;
          }) == "axes.accelerators[i].spec.peak_fp8_flops_per_second");
    CHECK(bad([&](plan::problem& q) { q.axes.accelerators[0].spec.memory_bytes = denormal; }) ==
          "axes.accelerators[i].spec.memory_bytes");
    CHECK(bad([&](plan::problem& q) {
            q.axes.accelerators[1].step_time->bandwidth_efficiency = denormal;
          }) == "axes.accelerators[i].step_time.bandwidth_efficiency");
    CHECK(bad([&](plan::problem& q) { q.axes.accelerators[2].price_per_gpu_hour = huge; }) ==
          "axes.accelerators[i].price_per_gpu_hour");
    CHECK(bad([&](plan::problem& q) {
            q.axes.accelerators[0].step_time->step_overhead = std::chrono::duration<double>(1e300);
          }) == "axes.accelerators[i].step_time.step_overhead");
    CHECK(bad([&](plan::problem& q) { q.axes.memory_fraction = denormal; }) ==
          "axes.memory_fraction");
    CHECK(bad([&](plan::problem& q) { q.target.tpot = std::chrono::duration<double>(denormal); }) ==
          "target.tpot");
    CHECK(bad([&](plan::problem& q) { q.target.quota = denormal; }) == "target.quota");
    CHECK(bad([&](plan::problem& q) { q.traffic.rates_per_second[3] = huge; }) ==
          "traffic.rates_per_second[i]");
    CHECK(bad([&](plan::problem& q) { q.fleet.target_utilization = denormal; }) ==
          "fleet.target_utilization");
    CHECK(bad([&](plan::problem& q) {
            q.fleet.policy = sim::chase(std::chrono::duration<double>(1e300));
          }) == "fleet.policy.start_time");
    // A window of 600 000 one-minute steps is over 366 days.
    CHECK(bad([&](plan::problem& q) { q.fleet.scale_down_window_steps = 600'000; }) ==
          "fleet.scale_down_window_steps");
    CHECK(bad([&](plan::problem& q) { q.search.z = 1e300; }) == "search.z");
    CHECK(bad([&](plan::problem& q) { q.search.relative_tolerance = denormal; }) ==
          "search.relative_tolerance");
    CHECK(bad([&](plan::problem& q) { q.search.arrival_cv = huge; }) == "search.arrival_cv");
    CHECK(bad([&](plan::problem& q) { q.search.length_draws = std::size_t{1} << 40; }) ==
          "search.length_draws");
    // The message names the range.
    plan::problem q = p;
    q.traffic.step = std::chrono::duration<double>(1e300);
    CHECK(headroom::test::rejection_message([&] { plan::validate(q); }) ==
          "traffic.step = 1e+300: must lie in [0.001, 31622400]");
  }

  TEST_CASE("plan: a value refused inside the search names the configuration and the field") {
    // One configuration (the H100 at TP 1, batch 16). μ* does not depend on ρ*; at ρ* = 0.001
    // the controller's target ρ*μ* is a few hundredths of a request per second, which whole
    // milli-units hold only if μ* has no more than three significant decimals there.
    plan::problem p = small_problem();
    p.axes.accelerators.resize(1);
    p.axes.tensor_parallel = {1};
    p.axes.max_batch = {16};
    const auto rows = plan::evaluate_grid(p, mix, {.threads = 1});
    REQUIRE(rows.size() == 1);
    REQUIRE(rows[0].status == plan::feasibility::feasible);
    const double mu = rows[0].capacity_per_second;
    p.fleet.target_utilization = 0.001;
    const auto refused =
        headroom::test::rejection_of([&] { (void)plan::evaluate_grid(p, mix, {.threads = 1}); });
    // By hand: whole milli-units read the target as ceil(1000 × target) / 1000.
    const double target = 0.001 * mu;
    const double read = std::ceil(std::round(target * 1e6) / 1000.0) / 1000.0;
    const bool target_refused = std::abs(read - target) > 1e-2 * target;  // more than 1 %
    CHECK(refused.parameter == (target_refused ? "fleet.target_utilization * capacity_per_second"
                                               : "traffic_per_second[i]"));
#if defined(__cpp_exceptions)  // without exceptions the handler gets the stage's own message
    CHECK(refused.message.starts_with("configuration " + rows[0].key + ": " + refused.parameter +
                                      " = "));
#endif
  }

  TEST_CASE("plan: a refused CSV block leaves the output as it was") {
    const plan::problem p = small_problem();
    std::vector<plan::row> rows(2);
    rows[0].key = "H100 SXM/tp1/b16/t512/chunked/preempt-youngest";
    rows[1].key = "L40S/tp1/b16/t512/chunked/preempt-youngest";
    rows[1].config.accelerator = 1;
    plan::decision d = plan::decide(rows);
    std::string out = "kept\n";
    // A dominated_by that indexes no row (read out of bounds before it was checked).
    d.dominated_by[0] = 7;
    CHECK(rejected([&] { plan::append_csv(out, p, {}, {}, rows, &d); }) ==
          "decided->dominated_by[i]");
    CHECK(out == "kept\n");
    d = plan::decide(rows);
    rows[1].key = "a,b";  // a comma would shift every later column
    CHECK(rejected([&] { plan::append_csv(out, p, {}, {}, rows, &d); }) == "rows[i].key");
    rows[1].key = "L40S/tp1/b16/t512/chunked/preempt-youngest";
    rows[1].config.accelerator = 5;  // no such accelerator in the grid
    CHECK(rejected([&] { plan::append_csv(out, p, {}, {}, rows, &d); }) ==
          "rows[i].config.accelerator");
    CHECK(out == "kept\n");
    rows[1].config.accelerator = 1;
    plan::append_csv(out, p, {}, {}, rows, &d);
    CHECK(out == "kept\n" + plan::write_csv(p, {}, {}, rows, &d));
  }

  // ---- fidelity against published measurements ----------------------------------------------
  //
  // tests/data/planner/fidelity.csv: 40 rows of TensorRT-LLM's published throughput table
  // (fixed input/output lengths, all requests at once) and one vLLM row; sources in its
  // README. Each is replayed through the replica model: all requests arrive at t = 0, the
  // engine's limits as it sets them (trtllm-bench's max batch size and max tokens, from its
  // tuning heuristic; vLLM's defaults), and the prediction is output tokens (or requests)
  // over the makespan. One factor is calibrated for the Hopper family, the bandwidth
  // efficiency, on one row (T40: Llama 3.1 8B FP8 on one H100, 1000/1000); everything else
  // is stated beforehand (docs/planner.md).

  using headroom::test::measurement;
  using headroom::test::measurements;

  // The Hopper bandwidth efficiency calibrated on T40 (checked below).
  constexpr double hopper_bandwidth_efficiency = 0.5644;

  double predict(const measurement& r, double bandwidth_efficiency) {
    const plan::model_shape m = headroom::test::shape_of(r);
    plan::accelerator_option gpu = option(headroom::test::spec_of(r), 1.0, 450e9);
    gpu.step_time->bandwidth_efficiency = bandwidth_efficiency;
    const auto model = plan::make_step_time(m, gpu, r.tensor_parallel);
    const sim::replica_config c = headroom::test::engine_of(r);
    const std::vector<sim::request> requests(
        r.requests,
        sim::request{.arrival = 0s, .prompt_tokens = r.input, .output_tokens = r.output});
    const auto run = sim::simulate(c, requests, model);
    REQUIRE(run.stats.finished == r.requests);
    const double end = run.stats.end.count();
    if (r.unit == "requests_per_second") return static_cast<double>(r.requests) / end;
    return static_cast<double>(r.requests * r.output) / end;
  }

  TEST_CASE("plan: fidelity: the Hopper bandwidth efficiency calibrated on T40") {
    const auto rows = measurements();
    const auto t40 =
        std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.id == "T40"; });
    REQUIRE(t40 != rows.end());
    // Throughput rises with the bandwidth efficiency: bisect for the published 15,220.
    double low = 0.1, high = 1.0;
    for (int i = 0; i < 40; ++i) {
      const double mid = 0.5 * (low + high);
      (predict(*t40, mid) < t40->published ? low : high) = mid;
    }
    CHECK(0.5 * (low + high) == doctest::Approx(hopper_bandwidth_efficiency).epsilon(1e-4));
  }

  TEST_CASE("plan: fidelity: the predictions against the published figures") {
    // Error = (predicted - published) / published, against the published figures of
    // tests/data/planner/fidelity.csv; the bands are what docs/planner.md's fidelity section
    // states: every TensorRT-LLM row not calibrated on within 35 %, their mean absolute error
    // under 11 %, and the vLLM row (P01) over 50 % too fast.
    const auto rows = measurements();
    REQUIRE(rows.size() == 41);
    double total_error = 0;
    std::size_t counted = 0;
    for (const auto& r : rows) {
      CAPTURE(r.id);
      const double error = (predict(r, hopper_bandwidth_efficiency) - r.published) / r.published;
      if (r.id == "T40") {
        CHECK(std::abs(error) < 1e-3);  // the row the factor is calibrated on
      } else if (r.engine == "TensorRT-LLM") {
        CHECK(std::abs(error) <= 0.35);
        total_error += std::abs(error);
        ++counted;
      } else {
        CHECK(error > 0.5);
      }
    }
    REQUIRE(counted == 39);
    CHECK(total_error / 39 <= 0.11);
  }
}

// SPDX-License-Identifier: Apache-2.0
// Evaluating one configuration, stage by stage: fit, zero load, the capacity search, the
// operating point, the day.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "../arrivals.hpp"
#include "../autoscaler/validation.hpp"
#include "../capacity.hpp"
#include "../error.hpp"
#include "../queueing.hpp"
#include "../sim/fleet_day.hpp"
#include "../sim/replica.hpp"
#include "configuration.hpp"
#include "lengths.hpp"
#include "problem.hpp"
#include "replica_model.hpp"
#include "row.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

namespace detail {

/// The nearest-rank q-quantile of values (sorted in place): the smallest v with at least
/// q·n values <= v. Empty: NaN.
[[nodiscard]] HEADROOM_DECL double nearest_rank_quantile(std::vector<double>& values, double q);

// What every stage of one configuration's evaluation reads.
struct stage_inputs {
  const problem& p;                 // the validated problem
  const accelerator_option& gpu;    // the configuration's accelerator
  sim::replica_config replica;      // its limits and KV budget
  tensor_parallel_step_time model;  // its step time
  capacity::slo bounds;             // the SLO in capacity.hpp's terms
  std::uint64_t seed = 0;           // configuration_seed of its key
};

// Stage 2, zero load: each of zero_load_requests requests alone on an idle replica. Sets
// the shares and, when the configuration is ruled out, its status; true when it goes on.
template <class L>
[[nodiscard]] bool passes_zero_load(row& r, const stage_inputs& in, const L& sampler) {
  std::mt19937_64 engine(in.seed);
  L draw = sampler;
  std::size_t met = 0, rejected = 0;
  for (std::size_t i = 0; i < in.p.search.zero_load_requests; ++i) {
    const sim::request_lengths l = draw(engine);
    const sim::request one[1] = {{.arrival = std::chrono::duration<double>(0.0),
                                  .prompt_tokens = l.prompt_tokens,
                                  .output_tokens = l.output_tokens}};
    const auto run = sim::simulate(in.replica, std::span<const sim::request>(one), in.model);
    if (run.status[0] == sim::request_status::rejected) ++rejected;
    if (meets_slo(in.bounds, run.outcomes[0])) ++met;
  }
  const double n = static_cast<double>(in.p.search.zero_load_requests);
  const double q = in.p.target.quota;
  r.zero_load_conformance = static_cast<double>(met) / n;
  r.zero_load_rejected = static_cast<double>(rejected) / n;
  if (r.zero_load_rejected > 1.0 - q)
    r.status = feasibility::requests_do_not_fit;
  else if (r.zero_load_conformance < q)
    r.status = feasibility::slo_unmet_at_zero_load;
  return r.status == feasibility::feasible;
}

// Stage 3, μ* with its interval: capacity.hpp's search over one-rate sweeps. True when a
// rate passed.
template <class L>
[[nodiscard]] bool finds_capacity(row& r, const stage_inputs& in, const L& sampler,
                                  const length_statistics& lengths) {
  const search_options& s = in.p.search;
  sim::sweep_options sweep;
  sweep.requests_per_point = s.requests_per_run;
  sweep.arrival_cv = s.arrival_cv;
  sweep.warm_up_fraction = s.warm_up_fraction;
  sweep.cool_down_fraction = s.cool_down_fraction;
  sweep.z = s.z;
  auto measure = [&](capacity::capacity_probe probe) {
    sim::sweep_options one = sweep;
    one.seed = sim::replication_seed(in.seed, probe.run + 1);
    const double rate[1] = {probe.rate_per_second};
    return sim::sweep_capacity(in.replica, in.model, std::span<const double>(rate), sampler,
                               in.bounds, one)
        .curve[0]
        .conformance;
  };
  const double start = starting_rate(in.model, in.replica, lengths);
  // The bracket starts at [start / 2, start].
  const capacity::capacity_search_result found =
      capacity::search_capacity(measure, {.quota = in.p.target.quota,
                                          .rate_low_per_second = 0.5 * start,
                                          .rate_high_per_second = start,
                                          .relative_tolerance = s.relative_tolerance,
                                          .max_measurements = s.max_measurements,
                                          .max_runs_per_rate = s.max_runs_per_rate});
  r.stop = found.reason;
  r.runs = found.runs;
  r.requests = found.requests;
  r.confidence = found.confidence;
  r.capacity_high_per_second = found.bracket_high_per_second;
  if (!found.capacity_per_second) {
    r.status = feasibility::slo_unmet_at_any_rate;
    return false;
  }
  r.capacity_per_second = *found.capacity_per_second;
  return true;
}

// The latencies of the requests that arrived inside a run's measurement window (an
// error counts as infinitely slow).
struct window_latencies {
  std::vector<double> ttft, tpot, e2e;
};

[[nodiscard]] HEADROOM_DECL window_latencies latencies_in_window(const sim::replica_result& run,
                                                                 double begin_s, double end_s,
                                                                 capacity::tpot_definition kind);

// The q-quantiles of a window and the latency margin they leave under the SLO's bounds.
HEADROOM_DECL void record_quantiles(row& r, window_latencies& w, const objective& target);

// Stage 4, the operating point ρ*·μ*: one run, its window's quantiles, margin, MFU, MBU.
template <class L>
void measure_operating_point(row& r, const stage_inputs& in, const L& sampler) {
  const search_options& s = in.p.search;
  r.operating_rate_per_second = in.p.fleet.target_utilization * r.capacity_per_second;
  std::mt19937_64 engine(sim::replication_seed(in.seed, 0));
  const auto schedule = arrivals::open_loop_schedule(
      arrivals::gamma_gaps({.rate_per_second = r.operating_rate_per_second, .cv = s.arrival_cv}),
      s.requests_per_run, engine);
  L draw = sampler;
  const auto requests = sim::make_requests(schedule, draw, engine);
  const auto run = sim::simulate(in.replica, std::span<const sim::request>(requests), in.model);
  const double span_s = schedule.back().count();
  window_latencies w =
      latencies_in_window(run, s.warm_up_fraction * span_s, span_s - s.cool_down_fraction * span_s,
                          in.bounds.tpot_kind);
  record_quantiles(r, w, in.p.target);
  const auto u = sim::utilization_of(
      run.stats, in.model.roofline,
      replica_spec(in.gpu.spec, r.config.tensor_parallel, in.p.model.compute_format));
  r.mfu = u.mfu;
  r.mbu = u.mbu;
}

// Stage 5, the day: the fleet at μ* and ρ* through the traffic, its hours and cost.
HEADROOM_DECL void simulate_day(row& r, const stage_inputs& in, const length_statistics& lengths);

}  // namespace detail

/// Evaluates one configuration of a validated problem, the stages in order, each stopping
/// at the first that rules it out:
///  1. fit: the KV budget (replica_kv_budget) — none: weights_do_not_fit;
///  2. zero load: zero_load_requests requests (lengths from the sampler on an engine seeded
///     with the configuration's seed s) each simulated alone; more than 1 − q of them
///     rejected: requests_do_not_fit; fewer than q meeting the SLO: slo_unmet_at_zero_load;
///  3. μ*: capacity.hpp's search_capacity from starting_rate (rate_high) and half of it,
///     each load test a sim::sweep_capacity at one rate with requests_per_run requests seeded
///     sim::replication_seed(s, run + 1); no passing rate: slo_unmet_at_any_rate;
///  4. the operating point ρ*·μ*: one run seeded sim::replication_seed(s, 0) (the schedule
///     from gamma gaps, then the lengths, on one engine), its window's q-quantiles, latency
///     margin, MFU and MBU;
///  5. the day: fleet_day_simulator at μ*, ρ*, the policy, the replica's price (TP × per
///     GPU) and E[out] tokens per request.
/// `lengths` is the sample_lengths of the problem (seed search.seed). A value a stage refuses
/// (e.g. ρ*·μ* too small for the controller's quantities) throws invalid_argument naming the
/// field, its message starting "configuration <key>: " (built without exceptions, the
/// handler receives the stage's own message).
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] row evaluate(const problem& p, const configuration& c, const L& sampler,
                           const length_statistics& lengths) {
  row r;
  r.config = c;
  r.key = key(p.axes, c);
  r.capacity_high_per_second = std::numeric_limits<double>::infinity();
  const accelerator_option& gpu = p.axes.accelerators.at(c.accelerator);
  r.calibration = resolve_step_time(gpu, p.model).source;
  // 1. Fit.
  const auto budget = replica_kv_budget(p.model, gpu, c.tensor_parallel, p.axes.memory_fraction);
  if (!budget) {
    r.status = feasibility::weights_do_not_fit;
    return r;
  }
  r.kv_budget_tokens = *budget;
  const detail::stage_inputs in{.p = p,
                                .gpu = gpu,
                                .replica = replica_configuration(c, *budget),
                                .model = make_step_time(p.model, gpu, c.tensor_parallel),
                                .bounds = to_slo(p.target),
                                .seed = configuration_seed(p.search.seed, r.key)};
  // 2-5: each stage stops at the first that rules the configuration out. A value a stage
  // refuses (one that depends on the measured μ*) is reported with the configuration's key.
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
#endif
    if (!detail::passes_zero_load(r, in, sampler)) return r;
    if (!detail::finds_capacity(r, in, sampler, lengths)) return r;
    detail::measure_operating_point(r, in, sampler);
    detail::simulate_day(r, in, lengths);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  } catch (const ::headroom::invalid_argument& e) {
    ::headroom::detail::raise_invalid_argument(e.parameter().c_str(),
                                               "configuration " + r.key + ": " + e.what());
  }
#endif
  return r;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/evaluate.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

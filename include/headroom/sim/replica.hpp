// SPDX-License-Identifier: Apache-2.0
// A discrete-event simulation of one continuous-batching replica: requests arrive open loop
// (a schedule from arrivals.hpp) or closed loop (a closed_loop_population), wait for a batch
// slot and KV-cache room, are prefilled (whole or in chunks under a per-step token budget)
// and decode one token per step; the step time comes from a caller-supplied model, by
// default the roofline max(bytes/B_eff, FLOPs/P_eff) + overhead. The output is capacity.hpp's
// request_outcome per request, so measure_conformance, find_capacity and search_capacity run
// on it unchanged, plus an optional per-step trace; sweep_capacity measures a capacity curve.
// Deterministic: the same inputs (and seeds) give bit-identical outcomes.
//
// This header runs the simulation and includes every piece of it:
//   sim/replica_config.hpp  replica_config, run_options, kv_budget_tokens
//   sim/requests.hpp        request, length samplers, make_requests
//   sim/step_time.hpp       step_shape, StepTimeModel, roofline/constant/exponential steps
//   sim/replica_result.hpp  replica_result, replica_stats, step_record, utilization_of
//   sim/replica_core.hpp    the engine (internal)
// What the model leaves out, calibration, and the M/M/1 and M/D/1 checks: docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "../arrivals.hpp"
#include "../capacity.hpp"
#include "../detail/bit_mix.hpp"
#include "../detail/checks.hpp"
#include "../error.hpp"
#include "replica_config.hpp"
#include "replica_core.hpp"
#include "replica_result.hpp"
#include "requests.hpp"
#include "step_time.hpp"

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL void validate_replica_requests(std::span<const sim::request> requests);

[[nodiscard]] HEADROOM_DECL double replica_horizon_s(const sim::run_options& options);

}  // namespace detail

namespace sim {

/// Storage that simulate and simulate_closed_loop reuse from run to run: the last run's
/// result and the engine's per-request state. A run with a workspace allocates nothing once
/// the workspace has held a run as large; its result is overwritten in place by the next
/// run (move it out to keep it). After a run that threw, `result` is unspecified.
struct replica_workspace {
  replica_result result{};           ///< the last run's result
  detail::replica_buffers engine{};  ///< the engine's buffers (internal)
};

/// Simulates the replica serving `requests` open loop (sorted by arrival, finite times,
/// prompt and output >= 1) with the step-time model (used in place; a stateful model
/// advances). Until every request finished, or until options.horizon. Writes the result
/// into `workspace` (reusing its storage) and returns it: valid until the workspace's next
/// run. Throws invalid_argument for a bad configuration, request or step time.
template <StepTimeModel M>
const replica_result& simulate(const replica_config& config, std::span<const request> requests,
                               M&& model, replica_workspace& workspace,
                               const run_options& options = {}) {
  validate(config);
  detail::validate_replica_requests(requests);
  const double horizon = detail::replica_horizon_s(options);
  std::remove_reference_t<M>& m = model;
  detail::replica_core<std::remove_reference_t<M>> core(config, m, requests.size(), options,
                                                        workspace.engine, workspace.result);
  for (const request& r : requests)
    static_cast<void>(core.add(r.arrival.count(), r.prompt_tokens, r.output_tokens, 0));
  const auto nothing = [](std::size_t, double) noexcept {};
  std::size_t next = 0;
  const std::size_t n = requests.size();
  for (;;) {
    const double now = core.now();
    while (next < n && requests[next].arrival.count() <= now &&
           requests[next].arrival.count() <= horizon)
      static_cast<void>(core.arrive(next++));
    if (!core.has_work()) {
      if (next == n || !(requests[next].arrival.count() <= horizon)) break;
      core.advance_to(requests[next].arrival.count());
      continue;
    }
    if (!(now < horizon)) break;
    core.step(nothing);
  }
  core.finish(workspace.result, workspace.engine);
  return workspace.result;
}

/// simulate with a workspace of its own: the same result, in fresh storage.
template <StepTimeModel M>
[[nodiscard]] replica_result simulate(const replica_config& config,
                                      std::span<const request> requests, M&& model,
                                      const run_options& options = {}) {
  replica_workspace workspace;
  static_cast<void>(simulate(config, requests, std::forward<M>(model), workspace, options));
  return std::move(workspace.result);
}

/// Simulates the replica serving a closed loop: each user of `population` sends a request
/// (lengths from the sampler), waits for its answer (or rejection), thinks, sends again,
/// until `request_count` requests were sent. Intended arrival = send time (a closed loop
/// has no schedule: that is coordinated omission). Think times and lengths come from
/// `engine`. request_count >= 1; population.users() <= 2^32 − 1. Writes the result into
/// `workspace` (reusing its storage) and returns it: valid until the workspace's next run.
template <StepTimeModel M, class L, std::uniform_random_bit_generator G>
requires LengthSampler<L, G>
const replica_result& simulate_closed_loop(const replica_config& config,
                                           const arrivals::closed_loop_population& population,
                                           std::size_t request_count, L&& lengths, G& engine,
                                           M&& model, replica_workspace& workspace,
                                           const run_options& options = {}) {
  validate(config);
  if (request_count == 0) detail::fail("request_count", request_count, "must be >= 1");
  if (population.users() > std::numeric_limits<std::uint32_t>::max())
    detail::fail("population.users()", population.users(), "must fit in 32 bits");
  const double horizon = detail::replica_horizon_s(options);
  std::remove_reference_t<M>& m = model;
  detail::replica_core<std::remove_reference_t<M>> core(config, m, request_count, options,
                                                        workspace.engine, workspace.result);
  struct send {
    double time_s;
    std::uint32_t user;
    bool operator>(const send& o) const noexcept {
      return time_s != o.time_s ? time_s > o.time_s : user > o.user;
    }
  };
  std::vector<send> pending;
  pending.reserve(population.users());
  {
    const auto first = population.first_sends(engine);
    for (std::size_t u = 0; u < first.size(); ++u)
      pending.push_back({first[u].count(), static_cast<std::uint32_t>(u)});
    std::make_heap(pending.begin(), pending.end(), detail::heap_later{});
  }
  std::size_t sent = 0;
  const auto schedule_next = [&](std::uint32_t user, double answered_s) {
    if (sent >= request_count) return;
    const auto t = population.next_send(std::chrono::duration<double>(answered_s), engine);
    pending.push_back({t.count(), user});
    std::push_heap(pending.begin(), pending.end(), detail::heap_later{});
  };
  const auto on_done = [&](std::size_t i, double t) { schedule_next(core.at(i).user, t); };
  for (;;) {
    const double now = core.now();
    while (sent < request_count && !pending.empty() && pending.front().time_s <= now &&
           pending.front().time_s <= horizon) {
      std::pop_heap(pending.begin(), pending.end(), detail::heap_later{});
      const send s = pending.back();
      pending.pop_back();
      const request_lengths l = lengths(engine);
      if (l.prompt_tokens == 0) detail::fail("lengths().prompt_tokens", 0, "must be >= 1");
      if (l.output_tokens == 0) detail::fail("lengths().output_tokens", 0, "must be >= 1");
      const std::size_t i = core.add(s.time_s, l.prompt_tokens, l.output_tokens, s.user);
      ++sent;
      if (!core.arrive(i)) schedule_next(s.user, s.time_s);
    }
    if (!core.has_work()) {
      if (sent >= request_count || pending.empty() || !(pending.front().time_s <= horizon)) break;
      core.advance_to(pending.front().time_s);
      continue;
    }
    if (!(now < horizon)) break;
    core.step(on_done);
  }
  core.finish(workspace.result, workspace.engine);
  return workspace.result;
}

/// simulate_closed_loop with a workspace of its own: the same result, in fresh storage.
template <StepTimeModel M, class L, std::uniform_random_bit_generator G>
requires LengthSampler<L, G>
[[nodiscard]] replica_result simulate_closed_loop(
    const replica_config& config, const arrivals::closed_loop_population& population,
    std::size_t request_count, L&& lengths, G& engine, M&& model, const run_options& options = {}) {
  replica_workspace workspace;
  static_cast<void>(simulate_closed_loop(config, population, request_count,
                                         std::forward<L>(lengths), engine, std::forward<M>(model),
                                         workspace, options));
  return std::move(workspace.result);
}

/// Options of sweep_capacity.
struct sweep_options {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::size_t requests_per_point = 10000;  ///< requests simulated at each rate, >= 1
  double arrival_cv = 1.0;                 ///< CV of the gaps: 1 Poisson (gamma_gaps), >= 0
  double warm_up_fraction = 0.1;           ///< share of the schedule's span discarded at the start
  double cool_down_fraction = 0.1;         ///< share discarded at the end (draining server)
  std::uint64_t seed = 1;                  ///< the same seed at every rate (common random numbers)
  double z = 1.96;                         ///< normal quantile naming the intervals' level
  /// Independent runs per rate, >= 1; more than one: the t interval over their
  /// conformances (replicated_conformance).
  std::size_t replications = 1;
};

/// A swept curve: capacity.hpp's points (for find_capacity) and each point's run totals.
struct sweep_result {
  std::vector<capacity::capacity_point> curve{};  ///< λ and the conformance measured there
  std::vector<replica_stats> stats{};             ///< the run at each λ (its first replication)
};

/// The seed sweep_capacity gives replication r >= 1 of `seed`: SplitMix64's output for
/// seed + (r + 1)·0x9e3779b97f4a7c15 (Steele, Lea & Flood, OOPSLA 2014), so that no two
/// replications share a stream.
[[nodiscard]] constexpr std::uint64_t replication_seed(std::uint64_t seed, std::size_t r) noexcept {
  constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ull;  // splitmix64's increment
  return detail::mix64(seed + golden_gamma * (static_cast<std::uint64_t>(r) + 1));
}

/// Measures the conformance to `objective` at each rate (req/s, > 0): requests_per_point
/// arrivals with gamma gaps (arrivals.hpp) and lengths from the sampler, both from a
/// std::mt19937_64 seeded with options.seed anew at every rate (so the curve's points
/// share their random numbers and the curve is smooth), a fresh copy of `model` per point,
/// the window [warm-up, span − cool-down] of the schedule, measure_conformance's interval.
/// With replications R > 1, each rate runs R independent replications (replication r >= 1
/// seeded by replication_seed, and a model with reseed(seed) reseeded) and reports
/// replicated_conformance of the R runs. Feed .curve to find_capacity.
template <StepTimeModel M, class L>
requires LengthSampler<L, std::mt19937_64> && std::copy_constructible<M> &&
    std::copy_constructible<L>
[[nodiscard]] sweep_result sweep_capacity(const replica_config& config, const M& model,
                                          std::span<const double> rates_per_second,
                                          const L& lengths, const capacity::slo& objective,
                                          const sweep_options& options = {}) {
  validate(config);
  validate(objective);
  if (options.requests_per_point == 0)
    detail::fail("options.requests_per_point", options.requests_per_point, "must be >= 1");
  detail::require_non_negative("options.arrival_cv", options.arrival_cv);
  detail::require_unit("options.warm_up_fraction", options.warm_up_fraction);
  detail::require_unit("options.cool_down_fraction", options.cool_down_fraction);
  if (!(options.warm_up_fraction + options.cool_down_fraction < 1.0))
    detail::fail("options.cool_down_fraction", options.cool_down_fraction,
                 "warm-up and cool-down must leave part of the run");
  detail::require_positive("options.z", options.z);
  if (options.replications == 0)
    detail::fail("options.replications", options.replications, "must be >= 1");
  if (rates_per_second.empty())
    detail::fail("rates_per_second.size()", std::size_t{0}, "the sweep needs at least one rate");
  for (const double rate : rates_per_second) detail::require_positive("rates_per_second[i]", rate);
  sweep_result result;
  result.curve.reserve(rates_per_second.size());
  result.stats.reserve(rates_per_second.size());
  std::vector<capacity::conformance_estimate> runs;
  runs.reserve(options.replications);
  replica_workspace workspace;  // one set of buffers for every point
  for (const double rate : rates_per_second) {
    runs.clear();
    for (std::size_t r = 0; r < options.replications; ++r) {
      const std::uint64_t seed = r == 0 ? options.seed : replication_seed(options.seed, r);
      std::mt19937_64 engine(seed);
      const arrivals::gamma_gaps gaps({.rate_per_second = rate, .cv = options.arrival_cv});
      const auto schedule = open_loop_schedule(gaps, options.requests_per_point, engine);
      L sampler = lengths;
      const auto requests = make_requests(schedule, sampler, engine);
      M fresh = model;
      if constexpr (requires(M & m, std::uint64_t s) { m.reseed(s); })
        if (r > 0) fresh.reseed(replication_seed(~seed, r));
      const replica_result& run =
          simulate(config, std::span<const request>(requests), fresh, workspace);
      const double span_s = schedule.back().count();
      capacity::measurement_window window;
      window.warm_up = std::chrono::duration<double>(options.warm_up_fraction * span_s);
      window.cool_down = std::chrono::duration<double>(options.cool_down_fraction * span_s);
      window.run_end = schedule.back();
      runs.push_back(measure_conformance(run.outcomes, objective, window, options.z));
      if (r == 0) result.stats.push_back(run.stats);
    }
    result.curve.push_back(
        {rate, runs.size() == 1 ? runs.front() : replicated_conformance(runs, options.z)});
  }
  return result;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/replica.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

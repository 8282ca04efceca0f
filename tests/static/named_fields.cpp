// SPDX-License-Identifier: Apache-2.0
// Named fields: static_assert only. A formula with two or more quantities of one type takes
// them as named fields (docs/getting-started.md, "Named fields"), so the swaps that used to
// compile silently do not compile at all: the old positional call, and a positional brace
// list, are not accepted; the designated call is. tests/static/misuse/ compiles the same
// misuses as whole programs and checks the compiler's first error.
#include <chrono>
#include <cstdint>
#include <type_traits>

#include <headroom/headroom.hpp>

namespace {
using namespace std::chrono_literals;

// ---- replicas_needed: rate and capacity are both requests per second ----------------------

template <class... Args>
concept replicas_needed_takes = requires(Args... args) {
  headroom::queueing::replicas_needed(args...);
};
template <class T>
concept replicas_needed_takes_positional_braces = requires(T rate, T target, T capacity) {
  headroom::queueing::replicas_needed({rate, target, capacity});
};

// ceil(60 / (0.8 × 8)) = ceil(9.375) = 10; the old swap, ceil(8 / (0.8 × 60)) = 1, compiled.
static_assert(headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                   .target_utilization = 0.8,
                                                   .capacity_per_second = 8.0}) == 10);
static_assert(!replicas_needed_takes<double, double, double>);
static_assert(!replicas_needed_takes<int, double, int>);
static_assert(!replicas_needed_takes_positional_braces<double>);
static_assert(replicas_needed_takes<headroom::queueing::replicas_needed_inputs>);
static_assert(replicas_needed_takes<headroom::queueing::basic_replicas_needed_inputs<float>>);

// ---- erlang_c: a server count and an offered load -----------------------------------------

template <class... Args>
concept erlang_c_takes = requires(Args... args) {
  headroom::queueing::erlang_c(args...);
};
template <class A, class B>
concept erlang_c_takes_positional_braces = requires(A a, B b) {
  headroom::queueing::erlang_c({a, b});
};

// C(2, 1) = 1/3 (docs/queueing.md); erlang_c(servers, offered_load) swapped returned 1.
static_assert(headroom::queueing::erlang_c({.servers = 2, .offered_load = 1.0}) > 0.333 &&
              headroom::queueing::erlang_c({.servers = 2, .offered_load = 1.0}) < 0.334);
static_assert(!erlang_c_takes<std::int64_t, double>);
static_assert(!erlang_c_takes<double, std::int64_t>);
static_assert(!erlang_c_takes_positional_braces<std::int64_t, double>);
static_assert(!erlang_c_takes_positional_braces<double, std::int64_t>);
static_assert(erlang_c_takes<headroom::queueing::erlang_inputs>);

// ---- the queue models: λ and μ are both requests per second --------------------------------

template <class Queue, class T>
concept brace_constructible_positionally = requires(T a, T b) {
  Queue{a, b};
};
static_assert(!brace_constructible_positionally<headroom::queueing::mm1_queue, double>);
static_assert(!brace_constructible_positionally<headroom::queueing::md1_queue, double>);
static_assert(!brace_constructible_positionally<headroom::queueing::mmc_queue, double>);
static_assert(!brace_constructible_positionally<headroom::queueing::closed_loop, double>);
static_assert(headroom::queueing::mm1_queue{.arrival_rate_per_second = 0.5,
                                            .service_rate_per_second = 1.0}
                  .mean_in_system() == 1.0);  // ρ/(1 − ρ) at ρ = 0.5

// ---- the marker costs nothing (where [[no_unique_address]] is used: see detail/config.hpp) --

#if HEADROOM_MARKER_TAKES_NO_SPACE
static_assert(sizeof(headroom::queueing::mm1_queue) == 2 * sizeof(double));
static_assert(sizeof(headroom::queueing::replicas_needed_inputs) == 3 * sizeof(double));
#else
static_assert(sizeof(headroom::queueing::replicas_needed_inputs) == 4 * sizeof(double));
#endif

// ---- every other aggregate of several same-typed quantities refuses positional braces -----

// ---- kubernetes::in_flight_target: utilization and capacity are both doubles ---------------

template <class... Args>
concept in_flight_target_takes = requires(Args... args) {
  headroom::kubernetes::in_flight_target(args...);
};
static_assert(!in_flight_target_takes<double, double, std::chrono::duration<double>>);
static_assert(in_flight_target_takes<headroom::kubernetes::in_flight_target_inputs>);

template <class Aggregate, class... Args>
concept brace_constructible = requires(Args... args) {
  Aggregate{args...};
};
static_assert(!brace_constructible<headroom::cost::spot_terms, double, double>);
static_assert(!brace_constructible<headroom::cost::token_cost_inputs, double, double, double>);
static_assert(
    !brace_constructible<headroom::coldstart::storage_bandwidths, double, double, double, double>);
static_assert(!brace_constructible<headroom::coldstart::startup_breakdown,
                                   std::chrono::duration<double>, std::chrono::duration<double>>);
static_assert(!brace_constructible<headroom::coldstart::step_uncovered_inputs,
                                   std::chrono::duration<double>, std::chrono::duration<double>>);
static_assert(!brace_constructible<headroom::roofline::mfu_inputs, double, double, double>);
static_assert(
    !brace_constructible<headroom::roofline::accelerator_spec, const char*, double, double>);
static_assert(
    !brace_constructible<headroom::capacity::proportion_counts, std::size_t, std::size_t>);
static_assert(!brace_constructible<headroom::arrivals::gamma_gaps_inputs, double, double>);
static_assert(!brace_constructible<headroom::arrivals::linear_ramp_inputs, double, double>);
static_assert(!brace_constructible<headroom::kubernetes::in_flight_target_inputs, double, double,
                                   std::chrono::duration<double>>);

// ---- the simulator's and the scheduler's inputs: several doubles or byte counts each ------

template <class... Args>
concept roofline_step_time_takes = requires(Args... args) {
  headroom::sim::make_roofline_step_time(args...);
};
using seconds_d = std::chrono::duration<double>;
static_assert(!roofline_step_time_takes<headroom::roofline::accelerator_spec, double, double,
                                        double, double, double, seconds_d>);
static_assert(roofline_step_time_takes<headroom::roofline::accelerator_spec,
                                       headroom::sim::roofline_step_time_inputs>);
static_assert(!brace_constructible<headroom::sim::roofline_step_time_inputs, double, double, double,
                                   double, double, seconds_d>);

template <class... Args>
concept kv_budget_takes = requires(Args... args) {
  headroom::sim::kv_budget_tokens(args...);
};
static_assert(!kv_budget_takes<double, double, double, double>);
static_assert(kv_budget_takes<headroom::sim::kv_budget_inputs>);
static_assert(
    !brace_constructible<headroom::sim::kv_budget_inputs, double, double, double, double>);

static_assert(
    !std::is_constructible_v<headroom::sim::lognormal_lengths, double, double, double, double>);
static_assert(
    !brace_constructible<headroom::sim::lognormal_lengths_options, double, double, double, double>);
static_assert(!std::is_constructible_v<headroom::scheduling::layered_estimator, std::uint32_t,
                                       std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>);
static_assert(!brace_constructible<headroom::scheduling::layered_options, std::uint32_t,
                                   std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>);

// ---- options and configurations of several same-typed fields: capacity, sim, plan, scheduler,
// autoscaler (a TTFT bound swapped with a TPOT bound compiled before) ------------------------
static_assert(!brace_constructible<headroom::capacity::slo, seconds_d, seconds_d>);
static_assert(!brace_constructible<headroom::capacity::measurement_window, seconds_d, seconds_d>);
static_assert(
    !brace_constructible<headroom::capacity::capacity_search_options, double, double, double>);
static_assert(!brace_constructible<headroom::sim::fleet_day_config, double, double>);
static_assert(!brace_constructible<headroom::sim::replica_config, std::size_t, std::size_t>);
static_assert(!brace_constructible<headroom::sim::sweep_options, std::size_t, double>);
static_assert(!brace_constructible<headroom::plan::step_time_parameters, double, double>);
static_assert(!brace_constructible<headroom::plan::shard, std::size_t, std::size_t>);
static_assert(!brace_constructible<headroom::scheduling::record_reads, bool, bool>);
static_assert(!brace_constructible<headroom::scheduling::most_allocated_scorer, double, double>);
static_assert(
    !brace_constructible<headroom::autoscaling::replica_counts, std::int32_t, std::int32_t>);
static_assert(!brace_constructible<headroom::autoscaling::kpa_observation, double, double>);
static_assert(headroom::plan::step_time_parameters{.flops_efficiency = 0.5} ==
              headroom::plan::step_time_parameters{.flops_efficiency = 0.5});
}  // namespace

// SPDX-License-Identifier: Apache-2.0
// Cost: cost per generated token c = C_hour/(3600·ν*·ρ̄) and per million, the cost of a
// fleet over time (replica-hours × price), the spot factor (1−d)/(1−ω) and its break-even
// d > ω, a two-tier on-demand/spot split with its blended cost, and a split of the hour
// between prefill and decode tokens weighted by GPU time. See docs/cost.md.
//
// Money is a plain floating-point number in the caller's currency: prices are per replica
// per hour (C_hour), results per token, per million tokens, or per hour. Token rates are
// tokens/s; durations are std::chrono durations. Utilization ρ̄ = tokens served / tokens
// the ready replicas could have served, in (0, 1].
//
// A formula with two or more quantities of one type takes one aggregate of named fields,
// written with designated initializers (queueing.hpp explains the convention):
// cost_per_million_tokens({.hourly_cost = 2, .tokens_per_second = 2560}).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>
#include <utility>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Cost: per token, per fleet, spot and two-tier fleets (docs/cost.md).
namespace cost {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {
/// Seconds in an hour: prices are per hour, rates per second.
inline constexpr int seconds_per_hour = 3600;
/// Tokens in the "million tokens" that providers quote prices per.
inline constexpr double tokens_per_million = 1e6;
}  // namespace detail

// ============================================================================================
// Cost per token
// ============================================================================================

/// Inputs of replica_token_rate.
template <std::floating_point T>
struct basic_replica_token_rate_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T capacity_per_second = 0;  ///< μ*, a replica's capacity, req/s, > 0
  T mean_output_tokens = 0;   ///< mean output tokens per answer, > 0
};
using replica_token_rate_inputs = basic_replica_token_rate_inputs<double>;

/// Tokens a replica generates per second within the SLO, ν* = μ* × mean output tokens per
/// answer (8 req/s × 320 tokens = 2560 tokens/s).
template <std::floating_point T = double>
[[nodiscard]] constexpr T replica_token_rate(const basic_replica_token_rate_inputs<T>& inputs) {
  const T mu = detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  return mu * detail::require_positive("mean_output_tokens", inputs.mean_output_tokens);
}

/// Tokens per hour at a token rate: 3600·ν (2560 tokens/s: 9.216e6 tokens/h).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T tokens_per_hour(A tokens_per_second) {
  return T(detail::seconds_per_hour) *
         detail::require_non_negative("tokens_per_second", static_cast<T>(tokens_per_second));
}

/// Inputs of mean_utilization: the same unit (tokens or requests) for both.
template <std::floating_point T>
struct basic_mean_utilization_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T served = 0;    ///< what the replicas served, >= 0, <= servable
  T servable = 0;  ///< what the ready replicas could have served, > 0
};
using mean_utilization_inputs = basic_mean_utilization_inputs<double>;

/// Mean utilization ρ̄ = served / servable.
template <std::floating_point T = double>
[[nodiscard]] constexpr T mean_utilization(const basic_mean_utilization_inputs<T>& inputs) {
  const T s = detail::require_non_negative("served", inputs.served);
  const T total = detail::require_positive("servable", inputs.servable);
  if (s > total) detail::fail("served", s, "must not exceed servable");
  return s / total;
}

/// Inputs of cost_per_token and cost_per_million_tokens.
template <std::floating_point T>
struct basic_token_cost_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T hourly_cost = 0;        ///< C_hour, the price of a replica per hour, >= 0
  T tokens_per_second = 0;  ///< ν*, the tokens a replica generates per second at full use, > 0
  T mean_utilization = 1;   ///< ρ̄, the share of ν* actually served, in (0, 1]
};
using token_cost_inputs = basic_token_cost_inputs<double>;

/// Cost per generated token, c = C_hour / (3600 · ν* · ρ̄): the hourly price of a replica
/// over the tokens it serves in the hour. 2 per hour at 2560 tokens/s: 2.17e-7 at ρ̄ = 1.
template <std::floating_point T = double>
[[nodiscard]] constexpr T cost_per_token(const basic_token_cost_inputs<T>& inputs) {
  const T price = detail::require_non_negative("hourly_cost", inputs.hourly_cost);
  const T nu = detail::require_positive("tokens_per_second", inputs.tokens_per_second);
  const T rho = detail::require_unit_positive("mean_utilization", inputs.mean_utilization);
  return detail::cxm::product_ratio({price}, {T(detail::seconds_per_hour), nu, rho});  // never 0/0
}

/// Cost per million generated tokens, 1e6 · cost_per_token: 0.217 at ρ̄ = 1 and 0.60 at
/// ρ̄ = 0.36 for 2 per hour and 2560 tokens/s.
template <std::floating_point T = double>
[[nodiscard]] constexpr T cost_per_million_tokens(const basic_token_cost_inputs<T>& inputs) {
  const T price = detail::require_non_negative("hourly_cost", inputs.hourly_cost);
  const T nu = detail::require_positive("tokens_per_second", inputs.tokens_per_second);
  const T rho = detail::require_unit_positive("mean_utilization", inputs.mean_utilization);
  return detail::cxm::product_ratio({T(detail::tokens_per_million), price},
                                    {T(detail::seconds_per_hour), nu, rho});
}

// ============================================================================================
// The fleet over time
// ============================================================================================

/// Replica-hours of a fleet sampled at a fixed step: Σ replicas_i × step / 1 h. Starting
/// replicas count (they are paid while they start). Any range of non-negative numbers.
template <class R, class T = double>
requires detail::Arithmetic<std::remove_cvref_t<decltype(*std::begin(std::declval<const R&>()))>>
[[nodiscard]] constexpr T replica_hours(const R& replicas_per_step, detail::seconds_arg<T> step) {
  const T seconds = detail::require_positive_seconds<T>("step", step);
  T total = 0;
  for (const auto n : replicas_per_step)
    total += detail::require_non_negative("replicas_per_step", static_cast<T>(n));
  return total * seconds / T(detail::seconds_per_hour);
}

/// Inputs of fleet_hourly_cost.
template <std::floating_point T>
struct basic_fleet_hourly_cost_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T replicas = 0;                ///< N, replicas running (a mean may be fractional), >= 0
  T price_per_replica_hour = 0;  ///< C_hour, >= 0
};
using fleet_hourly_cost_inputs = basic_fleet_hourly_cost_inputs<double>;

/// Hourly cost of a fleet of N replicas at a price per replica-hour: N × C_hour.
template <std::floating_point T = double>
[[nodiscard]] constexpr T fleet_hourly_cost(const basic_fleet_hourly_cost_inputs<T>& inputs) {
  const T n = detail::require_non_negative("replicas", inputs.replicas);
  return n * detail::require_non_negative("price_per_replica_hour", inputs.price_per_replica_hour);
}

/// Inputs of fleet_cost.
template <std::floating_point T>
struct basic_fleet_cost_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T replica_hours = 0;           ///< replica-hours used (replica_hours(...)), >= 0
  T price_per_replica_hour = 0;  ///< C_hour, >= 0
};
using fleet_cost_inputs = basic_fleet_cost_inputs<double>;

/// Cost of a fleet over time: replica-hours × price per replica-hour.
template <std::floating_point T = double>
[[nodiscard]] constexpr T fleet_cost(const basic_fleet_cost_inputs<T>& inputs) {
  const T h = detail::require_non_negative("replica_hours", inputs.replica_hours);
  return h * detail::require_non_negative("price_per_replica_hour", inputs.price_per_replica_hour);
}

// ============================================================================================
// Spot / preemptible capacity
// ============================================================================================

/// The terms of spot capacity: discount d against on demand and fraction ω of the work lost
/// or redone (including the replacement's cold start).
template <std::floating_point T>
struct basic_spot_terms {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T discount = 0;   ///< d, in [0, 1)
  T lost_work = 0;  ///< ω, in [0, 1)
};
using spot_terms = basic_spot_terms<double>;

/// Spot factor (1 − d)/(1 − ω): the cost of a useful token on spot relative to on demand.
/// d = 0.6, ω = 0.1: 0.444; d = 0.2, ω = 0.5: 1.6.
template <std::floating_point T = double>
[[nodiscard]] constexpr T spot_factor(const basic_spot_terms<T>& terms) {
  const T d = detail::require_unit_below_one("discount", terms.discount);
  const T omega = detail::require_unit_below_one("lost_work", terms.lost_work);
  return (T(1) - d) / (T(1) - omega);
}

/// true iff spot is cheaper per useful token: the discount exceeds the lost work, d > ω.
template <std::floating_point T = double>
[[nodiscard]] constexpr bool spot_pays(const basic_spot_terms<T>& terms) {
  const T d = detail::require_unit_below_one("discount", terms.discount);
  const T omega = detail::require_unit_below_one("lost_work", terms.lost_work);
  return d > omega;
}

/// Break-even discount: the d at which spot costs as much as on demand for a lost-work
/// fraction ω (d = ω; spot pays above it).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T spot_break_even_discount(A lost_work) {
  return detail::require_unit_below_one("lost_work", static_cast<T>(lost_work));
}

/// Inputs of spot_cost.
template <std::floating_point T>
struct basic_spot_cost_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T on_demand_cost = 0;  ///< c, the cost on demand (any unit: per token, per hour), >= 0
  T discount = 0;        ///< d, in [0, 1)
  T lost_work = 0;       ///< ω, in [0, 1)
};
using spot_cost_inputs = basic_spot_cost_inputs<double>;

/// The cost of a useful token on spot: c_spot = (1 − d)/(1 − ω) · c (any unit of c).
template <std::floating_point T = double>
[[nodiscard]] constexpr T spot_cost(const basic_spot_cost_inputs<T>& inputs) {
  const T c = detail::require_non_negative("on_demand_cost", inputs.on_demand_cost);
  return c * spot_factor(
                 basic_spot_terms<T>{.discount = inputs.discount, .lost_work = inputs.lost_work});
}

/// Inputs of a two-tier split.
template <std::floating_point T>
struct basic_two_tier_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::int64_t replicas = 0;          ///< what the traffic needs now, >= 0
  std::int64_t minimum_replicas = 0;  ///< what the traffic minimum needs (the base), >= 0
  T non_interruptible_share = 0;      ///< share of the traffic that tolerates no interruption
  T on_demand_price_per_hour = 0;     ///< price per replica-hour on demand, >= 0
  T spot_discount = 0;                ///< d, in [0, 1)
  T lost_work = 0;                    ///< ω, in [0, 1)
};
using two_tier_inputs = basic_two_tier_inputs<double>;

/// A two-tier fleet: on-demand base plus spot, and what it costs per hour.
template <std::floating_point T>
struct basic_two_tier_plan {
  std::int64_t on_demand_replicas = 0;  ///< max(minimum, ceil(share × replicas))
  std::int64_t spot_replicas = 0;       ///< the rest; 0 when spot does not pay
  bool spot_pays = false;               ///< d > ω
  /// Expected hourly cost of the capacity: on-demand replicas at the price, spot replicas at
  /// the price × (1 − d)/(1 − ω) (the spot factor: lost work is paid again).
  T hourly_cost = 0;
  T all_on_demand_hourly_cost = 0;  ///< the same capacity all on demand
  /// hourly_cost / all_on_demand_hourly_cost: multiply the on-demand cost per token by it to
  /// get the blended cost per token (1 when there is nothing to run).
  T blended_factor = 1;
};
using two_tier_plan = basic_two_tier_plan<double>;

/// Splits a fleet in two tiers: an on-demand base sized for the traffic minimum and the
/// share that tolerates no interruption, the variable part on spot, and its blended cost.
/// When spot does not pay (d <= ω) everything runs on demand.
template <std::floating_point T = double>
[[nodiscard]] constexpr basic_two_tier_plan<T> two_tier_split(const basic_two_tier_inputs<T>& in) {
  const auto replicas = detail::require_count_at_most_max(
      "replicas", detail::require_count_at_least("replicas", in.replicas, 0));
  const auto minimum = detail::require_count_at_least("minimum_replicas", in.minimum_replicas, 0);
  const T share = detail::require_unit("non_interruptible_share", in.non_interruptible_share);
  const T price =
      detail::require_non_negative("on_demand_price_per_hour", in.on_demand_price_per_hour);
  const T d = detail::require_unit_below_one("spot_discount", in.spot_discount);
  const T omega = detail::require_unit_below_one("lost_work", in.lost_work);
  basic_two_tier_plan<T> plan;
  plan.spot_pays = d > omega;
  const std::int64_t protected_replicas = detail::cxm::ceil_count(share * static_cast<T>(replicas));
  std::int64_t base = minimum > protected_replicas ? minimum : protected_replicas;
  if (!plan.spot_pays && replicas > base) base = replicas;
  plan.on_demand_replicas = base;
  plan.spot_replicas = replicas > base ? replicas - base : 0;
  const T on_demand = static_cast<T>(plan.on_demand_replicas);
  const T spot = static_cast<T>(plan.spot_replicas);
  plan.hourly_cost = detail::cxm::product_ratio({on_demand, price}) +
                     detail::cxm::product_ratio({spot, price, T(1) - d}, {T(1) - omega});
  plan.all_on_demand_hourly_cost = detail::cxm::product_ratio({on_demand + spot, price});
  // The price cancels: (on + spot·f) / (on + spot), finite even where the costs overflow.
  plan.blended_factor =
      plan.all_on_demand_hourly_cost > T(0)
          ? (on_demand + detail::cxm::product_ratio({spot, T(1) - d}, {T(1) - omega})) /
                (on_demand + spot)
          : T(1);
  return plan;
}

// ============================================================================================
// Prefill and decode: splitting the hour by GPU time
// ============================================================================================

/// The hour's cost split between prefill (input) and decode (output) tokens.
template <std::floating_point T>
struct basic_phase_costs {
  T prefill_share = 0;           ///< prefill GPU time / busy GPU time
  T decode_share = 0;            ///< decode GPU time / busy GPU time
  T prefill_cost_per_token = 0;  ///< hourly_cost × prefill_share / prefill tokens
  T decode_cost_per_token = 0;   ///< hourly_cost × decode_share / decode tokens
};
using phase_costs = basic_phase_costs<double>;

/// Inputs of split_cost_by_gpu_time: one hour of a replica and what it served in it.
template <std::floating_point T>
struct basic_gpu_time_split_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T hourly_cost = 0;                        ///< C_hour, >= 0
  T prefill_tokens = 0;                     ///< input tokens prefilled in the hour, > 0
  detail::seconds_t<T> prefill_gpu_time{};  ///< GPU time spent on prefill, >= 0
  T decode_tokens = 0;                      ///< output tokens decoded in the hour, > 0
  detail::seconds_t<T> decode_gpu_time{};   ///< GPU time spent on decode, >= 0
};
using gpu_time_split_inputs = basic_gpu_time_split_inputs<double>;

/// Splits one hour of a replica (hourly_cost) over the prefill and decode tokens it served
/// in that hour, each phase weighted by the GPU time it took: idle time is spread in the
/// same proportion (docs/cost.md). The two GPU times must have a positive sum.
template <std::floating_point T = double>
[[nodiscard]] constexpr basic_phase_costs<T> split_cost_by_gpu_time(
    const basic_gpu_time_split_inputs<T>& inputs) {
  const T price = detail::require_non_negative("hourly_cost", inputs.hourly_cost);
  const T n_prefill = detail::require_positive("prefill_tokens", inputs.prefill_tokens);
  const T t_prefill =
      detail::require_non_negative_seconds<T>("prefill_gpu_time", inputs.prefill_gpu_time);
  const T n_decode = detail::require_positive("decode_tokens", inputs.decode_tokens);
  const T t_decode =
      detail::require_non_negative_seconds<T>("decode_gpu_time", inputs.decode_gpu_time);
  if (!(t_prefill + t_decode > T(0)))
    detail::fail("decode_gpu_time", inputs.decode_gpu_time,
                 "prefill + decode GPU time must be > 0");
  basic_phase_costs<T> out;
  // Both times halved when their sum would overflow (exactly: they are then huge).
  const T scale = t_prefill + t_decode <= std::numeric_limits<T>::max() ? T(1) : T(0.5);
  const T busy = t_prefill * scale + t_decode * scale;
  out.prefill_share = t_prefill * scale / busy;
  out.decode_share = t_decode * scale / busy;
  out.prefill_cost_per_token = detail::cxm::product_ratio({price, out.prefill_share}, {n_prefill});
  out.decode_cost_per_token = detail::cxm::product_ratio({price, out.decode_share}, {n_decode});
  return out;
}

}  // namespace cost
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

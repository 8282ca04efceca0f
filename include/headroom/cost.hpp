// SPDX-License-Identifier: Apache-2.0
// Cost (SPEC §5): cost per generated token c = C_hour/(3600·ν*·ρ̄) and per million, the
// cost of a fleet over time (replica-hours × price), the spot factor (1−d)/(1−ω) and its
// break-even d > ω, a two-tier on-demand/spot split with its blended cost, and a split of
// the hour between prefill and decode tokens weighted by GPU time. See docs/cost.md.
//
// Money is a plain floating-point number in the caller's currency: prices are per replica
// per hour (C_hour), results per token, per million tokens, or per hour. Token rates are
// tokens/s; durations are std::chrono durations. Utilisation ρ̄ = tokens served / tokens
// the ready replicas could have served, in (0, 1].
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

// ============================================================================================
// Cost per token
// ============================================================================================

/// Tokens a replica generates per second within the SLO, ν* = μ* × mean output tokens per
/// answer (8 req/s × 320 tokens = 2560 tokens/s). capacity > 0, mean_output_tokens > 0.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T replica_token_rate(A capacity, detail::same_t<T> mean_output_tokens) {
  const T mu = detail::require_positive("capacity", static_cast<T>(capacity));
  return mu * detail::require_positive("mean_output_tokens", mean_output_tokens);
}

/// Tokens per hour at a token rate: 3600·ν (2560 tokens/s: 9.216e6 tokens/h).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T tokens_per_hour(A tokens_per_second) {
  return T(3600) *
         detail::require_non_negative("tokens_per_second", static_cast<T>(tokens_per_second));
}

/// Mean utilisation ρ̄ = served / servable (tokens or requests, the same unit for both).
/// served >= 0, servable > 0, served <= servable.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T mean_utilisation(A served, detail::same_t<T> servable) {
  const T s = detail::require_non_negative("served", static_cast<T>(served));
  const T total = detail::require_positive("servable", servable);
  if (s > total) detail::fail("served", s, "must not exceed servable");
  return s / total;
}

/// Cost per generated token, c = C_hour / (3600 · ν* · ρ̄) (SPEC §5): the hourly price of a
/// replica over the tokens it serves in the hour. 2 per hour at 2560 tokens/s: 2.17e-7 at
/// ρ̄ = 1. hourly_cost >= 0, tokens_per_second > 0, mean_utilisation in (0, 1].
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T cost_per_token(A hourly_cost, detail::same_t<T> tokens_per_second,
                                         detail::same_t<T> mean_utilisation = T(1)) {
  const T price = detail::require_non_negative("hourly_cost", static_cast<T>(hourly_cost));
  const T nu = detail::require_positive("tokens_per_second", tokens_per_second);
  const T rho = detail::require_unit_positive("mean_utilisation", mean_utilisation);
  return detail::cxm::product_ratio({price}, {T(3600), nu, rho});  // never 0/0
}

/// Cost per million generated tokens, 1e6 · cost_per_token: 0.217 at ρ̄ = 1 and 0.60 at
/// ρ̄ = 0.36 for 2 per hour and 2560 tokens/s (SPEC §5).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T cost_per_million_tokens(A hourly_cost,
                                                  detail::same_t<T> tokens_per_second,
                                                  detail::same_t<T> mean_utilisation = T(1)) {
  const T price = detail::require_non_negative("hourly_cost", static_cast<T>(hourly_cost));
  const T nu = detail::require_positive("tokens_per_second", tokens_per_second);
  const T rho = detail::require_unit_positive("mean_utilisation", mean_utilisation);
  return detail::cxm::product_ratio({T(1e6), price}, {T(3600), nu, rho});
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
  return total * seconds / T(3600);
}

/// Hourly cost of a fleet of N replicas at a price per replica-hour: N × C_hour.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T fleet_hourly_cost(A replicas, detail::same_t<T> price_per_replica_hour) {
  const T n = detail::require_non_negative("replicas", static_cast<T>(replicas));
  return n * detail::require_non_negative("price_per_replica_hour", price_per_replica_hour);
}

/// Cost of a fleet over time: replica-hours × price per replica-hour.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T fleet_cost(A replica_hours, detail::same_t<T> price_per_replica_hour) {
  const T h = detail::require_non_negative("replica_hours", static_cast<T>(replica_hours));
  return h * detail::require_non_negative("price_per_replica_hour", price_per_replica_hour);
}

// ============================================================================================
// Spot / preemptible capacity
// ============================================================================================

/// Spot factor (1 − d)/(1 − ω): the cost of a useful token on spot relative to on demand, with
/// discount d and fraction ω of the work lost or redone (including the replacement's cold
/// start). d = 0.6, ω = 0.1: 0.444; d = 0.2, ω = 0.5: 1.6 (SPEC §5). d, ω in [0, 1).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T spot_factor(A discount, detail::same_t<T> lost_work) {
  const T d = detail::require_unit_below_one("discount", static_cast<T>(discount));
  const T omega = detail::require_unit_below_one("lost_work", lost_work);
  return (T(1) - d) / (T(1) - omega);
}

/// true iff spot is cheaper per useful token: the discount exceeds the lost work, d > ω.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr bool spot_pays(A discount, detail::same_t<T> lost_work) {
  const T d = detail::require_unit_below_one("discount", static_cast<T>(discount));
  const T omega = detail::require_unit_below_one("lost_work", lost_work);
  return d > omega;
}

/// Break-even discount: the d at which spot costs as much as on demand for a lost-work
/// fraction ω (d = ω; spot pays above it).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T spot_break_even_discount(A lost_work) {
  return detail::require_unit_below_one("lost_work", static_cast<T>(lost_work));
}

/// The cost of a useful token on spot: c_spot = (1 − d)/(1 − ω) · c (any unit of c).
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr T spot_cost(A on_demand_cost, detail::same_t<T> discount,
                                    detail::same_t<T> lost_work) {
  const T c = detail::require_non_negative("on_demand_cost", static_cast<T>(on_demand_cost));
  return c * spot_factor(discount, lost_work);
}

/// Inputs of a two-tier split. replicas: what the traffic needs now; minimum_replicas: what
/// the traffic minimum needs (the on-demand base); non_interruptible_share: the share of the
/// traffic that tolerates no interruption; price per replica-hour on demand; spot discount
/// d and lost-work fraction ω.
template <class T>
struct basic_two_tier_inputs {
  std::int64_t replicas = 0;
  std::int64_t minimum_replicas = 0;
  T non_interruptible_share = 0;
  T on_demand_price_per_hour = 0;
  T spot_discount = 0;
  T lost_work = 0;
};
using two_tier_inputs = basic_two_tier_inputs<double>;

/// A two-tier fleet: on-demand base plus spot, and what it costs per hour.
template <class T>
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

/// Splits a fleet in two tiers (SPEC §5): an on-demand base sized for the traffic minimum and
/// the share that tolerates no interruption, the variable part on spot, and its blended
/// cost. When spot does not pay (d <= ω) everything runs on demand. replicas >= 0,
/// minimum_replicas >= 0, share in [0, 1], price >= 0, d and ω in [0, 1).
template <class T>
[[nodiscard]] constexpr basic_two_tier_plan<T> two_tier_split(const basic_two_tier_inputs<T>& in) {
  const auto replicas = detail::require_count_at_most_max(
      "inputs.replicas", detail::require_count_at_least("inputs.replicas", in.replicas, 0));
  const auto minimum =
      detail::require_count_at_least("inputs.minimum_replicas", in.minimum_replicas, 0);
  const T share =
      detail::require_unit("inputs.non_interruptible_share", in.non_interruptible_share);
  const T price =
      detail::require_non_negative("inputs.on_demand_price_per_hour", in.on_demand_price_per_hour);
  const T d = detail::require_unit_below_one("inputs.spot_discount", in.spot_discount);
  const T omega = detail::require_unit_below_one("inputs.lost_work", in.lost_work);

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
template <class T>
struct basic_phase_costs {
  T prefill_share = 0;           ///< prefill GPU time / busy GPU time
  T decode_share = 0;            ///< decode GPU time / busy GPU time
  T prefill_cost_per_token = 0;  ///< hourly_cost × prefill_share / prefill tokens
  T decode_cost_per_token = 0;   ///< hourly_cost × decode_share / decode tokens
};
using phase_costs = basic_phase_costs<double>;

/// Splits one hour of a replica (hourly_cost) over the prefill and decode tokens it served
/// in that hour, each phase weighted by the GPU time it took (SPEC §5's rule): idle time is
/// spread in the same proportion. Token counts > 0; GPU times >= 0 with a positive sum.
template <detail::Arithmetic A, class T = detail::real_t<A>>
[[nodiscard]] constexpr basic_phase_costs<T> split_cost_by_gpu_time(
    A hourly_cost, detail::same_t<T> prefill_tokens, detail::seconds_arg<T> prefill_gpu_time,
    detail::same_t<T> decode_tokens, detail::seconds_arg<T> decode_gpu_time) {
  const T price = detail::require_non_negative("hourly_cost", static_cast<T>(hourly_cost));
  const T n_prefill = detail::require_positive("prefill_tokens", prefill_tokens);
  const T t_prefill = detail::require_non_negative_seconds<T>("prefill_gpu_time", prefill_gpu_time);
  const T n_decode = detail::require_positive("decode_tokens", decode_tokens);
  const T t_decode = detail::require_non_negative_seconds<T>("decode_gpu_time", decode_gpu_time);
  if (!(t_prefill + t_decode > T(0)))
    detail::fail("decode_gpu_time", decode_gpu_time, "prefill + decode GPU time must be > 0");
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

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

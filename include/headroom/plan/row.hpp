// SPDX-License-Identifier: Apache-2.0
// What is measured for one configuration, and whether it can serve the SLO at all.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../capacity.hpp"
#include "calibrations.hpp"
#include "configuration.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Whether a configuration can serve the SLO at all.
enum class feasibility : std::uint8_t {
  feasible,                ///< μ* > 0: it meets the SLO up to some rate
  weights_do_not_fit,      ///< the weights leave no room for the KV cache
  requests_do_not_fit,     ///< more than 1 − q of the requests exceed the KV cache
  slo_unmet_at_zero_load,  ///< served alone, fewer than q of the requests meet the SLO
  slo_unmet_at_any_rate,   ///< the μ* search found no rate that meets it
};

/// The text of a feasibility ("feasible", "weights_do_not_fit", ...).
[[nodiscard]] constexpr std::string_view to_string(feasibility f) noexcept {
  switch (f) {
    case feasibility::feasible:
      return "feasible";
    case feasibility::weights_do_not_fit:
      return "weights_do_not_fit";
    case feasibility::requests_do_not_fit:
      return "requests_do_not_fit";
    case feasibility::slo_unmet_at_zero_load:
      return "slo_unmet_at_zero_load";
    case feasibility::slo_unmet_at_any_rate:
      break;
  }
  return "slo_unmet_at_any_rate";
}

/// The text of a search_stop ("converged", "undecided", ...).
[[nodiscard]] constexpr std::string_view to_string(capacity::search_stop s) noexcept {
  switch (s) {
    case capacity::search_stop::converged:
      return "converged";
    case capacity::search_stop::undecided:
      return "undecided";
    case capacity::search_stop::no_passing_rate:
      return "no_passing_rate";
    case capacity::search_stop::never_saturated:
      return "never_saturated";
    case capacity::search_stop::budget_exhausted:
      break;
  }
  return "budget_exhausted";
}

/// Everything measured for one configuration. The fields of each stage hold only when
/// that stage ran: an infeasible configuration leaves the later ones at their defaults.
struct row {
  configuration config{};  ///< the grid point
  std::string key{};       ///< key(grid, config)
  /// Where its accelerator's step-time parameters came from: an uncalibrated row's figures
  /// rest on stated constants no measurement bounds (resolve_step_time).
  calibration_source calibration = calibration_source::uncalibrated;
  feasibility status = feasibility::feasible;  ///< can it serve the SLO at all
  std::size_t kv_budget_tokens = 0;  ///< KV-cache tokens of the replica (0: weights do not fit)
  /// Zero-load screen: share of zero_load_requests requests, each served alone, that meet
  /// the SLO, and the share that never fit the KV cache.
  double zero_load_conformance = 0.0;
  double zero_load_rejected = 0.0;  ///< share of lone requests larger than the KV cache
  // ---- μ* (capacity.hpp search_capacity) ----
  double capacity_per_second = 0.0;       ///< μ*: the largest rate that passed (0: none)
  double capacity_high_per_second = 0.0;  ///< the smallest that failed (inf: none did)
  double confidence = 0.0;                ///< level of the intervals that decided
  capacity::search_stop stop = capacity::search_stop::converged;  ///< why the search stopped
  std::size_t runs = 0;      ///< simulated load tests of the search
  std::size_t requests = 0;  ///< requests they spent
  // ---- the operating point ρ*·μ* ----
  double operating_rate_per_second = 0.0;         ///< ρ*·μ*
  std::chrono::duration<double> ttft_quantile{};  ///< q-quantile of TTFT there (nearest rank)
  std::chrono::duration<double> tpot_quantile{};  ///< q-quantile of TPOT there
  std::chrono::duration<double> e2e_quantile{};   ///< q-quantile of the end-to-end latency there
  /// min over the SLO's bounds of 1 − quantile/bound: the share of each bound left unused
  /// by the q-th slowest request at the operating point (1: instant, 0: at the bound).
  double latency_margin = 0.0;
  double mfu = 0.0;  ///< model FLOPs utilization there (sim::utilization_of, replica peaks)
  double mbu = 0.0;  ///< model bandwidth utilization there
  // ---- the day (sim/fleet_day.hpp) ----
  std::int64_t replicas_for_peak = 0;    ///< ceil(peak λ / (ρ*·μ*))
  std::int32_t peak_paid = 0;            ///< most replicas paid at once in the day
  double replica_hours = 0.0;            ///< replica-hours paid over the day
  double gpu_hours = 0.0;                ///< replica_hours × TP
  double cost = 0.0;                     ///< the day's cost: GPU-hours × price per GPU-hour
  double cost_per_million_tokens = 0.0;  ///< fleet_day_summary's: cost.hpp's C_hour/(3600·ν*·ρ̄)
  double over_share = 0.0;               ///< share of the day's requests that found no room
  double mean_use = 0.0;                 ///< mean use of the ready replicas
};

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The simulated day (docs/background.md §8): a fleet stepped at a fixed period (a minute by
// default) over any traffic profile. It composes the library's real components and re-implements
// none: the controller is headroom::autoscaling::autoscaler (configured to the reference policy:
// scale up at once counting replicas on their way, scale down only to the maximum of the last
// `window` recommendations and only when none are on their way), the start delay is a std::chrono
// duration (e.g. start_breakdown::start_time() from coldstart.hpp), replicas needed follow
// queueing.hpp's ceil(λ/(ρ*μ*)) through the controller's AverageValue target, and the cost per
// token is cost.hpp's C_hour/(3600·ν*·ρ̄). See docs/simulated-day.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../autoscaler.hpp"
#include "../cost.hpp"
#include "../detail/checks.hpp"
#include "../detail/constexpr_math.hpp"
#include "../detail/from_chars.hpp"
#include "../error.hpp"
#include "../queueing.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

// ============================================================================================
// Traffic
// ============================================================================================

/// The reference day (docs/background.md §8), requests/s at `minute` in [0, 1440): 12 + 48·max(0, 1
/// − x²)², with x = (minute − 840)/300 (a polynomial afternoon hump from 12 to 60 req/s at 14:00),
/// plus 30 req/s for the 20 minutes from 21:00. Evaluated in this fixed operation order, so the
/// values are bit-identical to a NumPy evaluation of the same expression.
[[nodiscard]] constexpr double reference_day_rate(std::int32_t minute) {
  if (minute < 0 || minute >= 1440) detail::fail("minute", minute, "must lie in [0, 1440)");
  const double x = static_cast<double>(minute - 14 * 60) / 300.0;
  const double hump = std::max(1.0 - x * x, 0.0);
  double rate = 12.0 + 48.0 * (hump * hump);
  if (minute >= 21 * 60 && minute < 21 * 60 + 20) rate += 30.0;
  return rate;
}

/// The reference day, 1440 per-minute rates in requests/s (see reference_day_rate).
[[nodiscard]] HEADROOM_DECL std::vector<double> reference_day_traffic();

/// The outcome of reading a traffic CSV: the rates, or the first bad line and why.
struct traffic_csv_result {
  std::vector<double> rates_per_second;  ///< one per data row, in file order
  std::size_t error_line = 0;            ///< 1-based line of the first error; 0 when ok
  std::string error;                     ///< what is wrong with that line; empty when ok
  /// true when the whole text was read without error and held at least one row.
  [[nodiscard]] bool ok() const noexcept { return error_line == 0 && error.empty(); }
};

/// Reads a traffic profile: one row per step, the rate (requests/s) in the LAST
/// comma-separated column; blank lines are skipped; the first non-blank line may be a header
/// (its last field not a number). Rejects a non-numeric data row, a negative, NaN or
/// infinite rate, and a text with no data row. Accepts "\r\n" line ends. Never throws for
/// bad text: the error is in the result, with its line number.
[[nodiscard]] HEADROOM_DECL traffic_csv_result parse_traffic_csv(std::string_view text);

// ============================================================================================
// Policies and configuration
// ============================================================================================

/// How the fleet is sized: a fixed count all day, or the autoscaler reacting to the traffic.
enum class fleet_policy_kind : std::uint8_t { fixed, reactive };

/// One way of running the day. A reactive policy waits start_time for each replica it asks
/// for, keeps spare_replicas on top of every recommendation, and with look_ahead also reads
/// the traffic one start time ahead (a calendar of announced events, a perfect forecast).
struct fleet_policy {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  fleet_policy_kind kind = fleet_policy_kind::reactive;  ///< fixed or reactive
  std::int32_t fixed_replicas = 0;                       ///< fixed: replicas all day; >= 0
  std::chrono::duration<double> start_time{0};           ///< reactive: request → ready; >= 0
  std::int32_t spare_replicas = 0;  ///< reactive: reserve on every recommendation
  bool look_ahead = false;          ///< reactive: also size for λ(t + T_start)
};

/// A fixed fleet of n replicas, ready all day.
[[nodiscard]] inline fleet_policy fixed_fleet(std::int32_t replicas) {
  return {.kind = fleet_policy_kind::fixed, .fixed_replicas = replicas};
}
/// A reactive fleet whose replicas take start_time to become ready, with an optional reserve.
[[nodiscard]] HEADROOM_DECL fleet_policy chase(std::chrono::duration<double> start_time,
                                               std::int32_t spare_replicas = 0);
/// A reactive fleet that also reads the traffic one start time ahead (the calendar).
[[nodiscard]] HEADROOM_DECL fleet_policy
chase_with_calendar(std::chrono::duration<double> start_time, std::int32_t spare_replicas = 0);

/// The fleet and its economics. The controller wants every replica at
/// target_utilization × capacity_per_replica (ρ*μ*); it scales down only to the maximum of
/// the last scale_down_window_steps recommendations (the reference policy: 5).
struct fleet_day_config {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double capacity_per_replica = 8.0;  ///< μ*, requests/s one replica serves within the SLO; > 0
  double target_utilization = 0.8;    ///< ρ*, in (0, 1]
  std::chrono::duration<double> step = std::chrono::minutes{1};  ///< the period; > 0
  std::int32_t scale_down_window_steps = 5;  ///< recommendations the scale-down looks at; >= 1
  std::int32_t max_replicas = 1'000'000;     ///< the controller's ceiling; >= 1
  double price_per_replica_hour = 0.0;       ///< currency per replica-hour; >= 0 (0: no cost)
  double tokens_per_request = 0.0;  ///< generated tokens per request; >= 0 (0: no token cost)
};

/// A fixed fleet sized for the peak of traffic_per_second at full capacity, with no margin:
/// ceil(peak / capacity_per_replica) replicas (the "always at peak" policy). The rates must be
/// finite and >= 0 (at least one); throws invalid_argument naming traffic_per_second when
/// the count exceeds config.max_replicas, so no count past std::int32_t is ever cast.
[[nodiscard]] HEADROOM_DECL fleet_policy peak_fleet(std::span<const double> traffic_per_second,
                                                    const fleet_day_config& config);

// ============================================================================================
// Results
// ============================================================================================

/// One step of the day.
struct fleet_step_record {
  double arrivals_per_second = 0.0;  ///< traffic in this step, requests/s
  std::int32_t ready = 0;            ///< replicas ready and serving
  std::int32_t paid = 0;             ///< ready + starting (a starting replica is paid)
  std::int32_t requested = 0;        ///< the controller's decision this step (fixed: the count)
  double capacity_per_second = 0.0;  ///< ready × μ*
  double excess_per_second = 0.0;    ///< max(0, arrivals − capacity): requests with no room
  double backlog_requests = 0.0;     ///< queued requests at the step's end if excess carries over
  autoscaling::scale_reason reason =
      autoscaling::scale_reason::desired_within_range;  ///< why the controller decided
};

/// The day in five numbers (docs/simulated-day.md's columns) plus its cost.
struct fleet_day_summary {
  double replica_hours = 0.0;      ///< Σ paid × step, in hours (starting replicas are paid)
  std::int64_t short_steps = 0;    ///< steps where ready capacity < arrivals
  std::int64_t backlog_steps = 0;  ///< steps ending with a backlog when excess carries over
  double over_share = 0.0;         ///< share of requests arriving with no room, in [0, 1]
  double mean_use = 0.0;           ///< served / servable by ready replicas (0 if none ready)
  double requests_served = 0.0;    ///< Σ min(arrivals, capacity) × step seconds
  double cost = 0.0;               ///< replica_hours × price_per_replica_hour
  /// Cost per million generated tokens, cost.hpp's C_hour/(3600·ν*·ρ̄) with ν* = μ*·tokens
  /// per request and ρ̄ the use of the PAID replicas; empty without a price, a token count or
  /// any request served, and when it is not a finite number (extreme μ* or traffic).
  std::optional<double> cost_per_million_tokens;
  std::int32_t peak_paid = 0;  ///< the most replicas paid at once
};

// ============================================================================================
// The simulator
// ============================================================================================

/// Runs days. Holds validated configuration and reusable buffers: running several policies
/// (or the same policy many times) allocates nothing once the buffers have grown.
class fleet_day_simulator {
 public:
  /// Validates the configuration (headroom::invalid_argument naming the field and value).
  HEADROOM_DECL explicit fleet_day_simulator(fleet_day_config config);

  /// The validated configuration.
  [[nodiscard]] const fleet_day_config& config() const noexcept { return config_; }
  /// The reactive controller's target, requests/s per replica: ρ*μ*.
  [[nodiscard]] double target() const noexcept {
    return config_.target_utilization * config_.capacity_per_replica;
  }

  /// The autoscaler configuration the reactive policies run with: one external metric, the
  /// request rate, with an AverageValue target of ρ*μ* (so desired = ceil(λ/(ρ*μ*))), no
  /// tolerance, no scale-up rate limit, a down window of scale_down_window_steps steps,
  /// replicas on their way counted, scale-down held while any is starting, and the policy's
  /// spare replicas as the reserve.
  [[nodiscard]] HEADROOM_DECL autoscaling::autoscaler_config controller_config(
      const fleet_policy& policy) const;

  /// Steps a replica takes to become ready: ceil(start_time / step) (0: ready at once),
  /// saturating at 2^62 (a replica that never becomes ready in any day one can run).
  [[nodiscard]] HEADROOM_DECL std::int64_t start_delay_steps(const fleet_policy& policy) const;

  /// Runs one day over `traffic_per_second` (one rate per step, each finite and >= 0, at
  /// least one) and returns its summary; with `trace`, also every step (resized to fit).
  /// The initial fleet is what the first step's traffic asks for (the reference policy).
  [[nodiscard]] HEADROOM_DECL fleet_day_summary
  run(std::span<const double> traffic_per_second, const fleet_policy& policy,
      std::vector<fleet_step_record>* trace = nullptr);

 private:
  fleet_day_config config_;
  std::chrono::milliseconds step_ms_{60'000};
  std::vector<std::int32_t> ready_, paid_, requested_;
  std::vector<autoscaling::scale_reason> reasons_;
  std::vector<std::int32_t> becoming_ready_;  // replicas that turn ready at each step

  // The controller reads each rate as a quantity (whole milli-units): refused where that
  // moves the count it asks for, rate / ρ*μ*, by more than 0.01 replica (a target >= 0.1
  // req/s never does).
  HEADROOM_DECL void check_rates_as_quantities(std::span<const double> traffic) const;

  HEADROOM_DECL void run_reactive(std::span<const double> traffic, const fleet_policy& policy);

  HEADROOM_DECL fleet_day_summary summarise(std::span<const double> traffic,
                                            std::vector<fleet_step_record>* trace) const;
};

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/fleet_day.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

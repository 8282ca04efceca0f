// SPDX-License-Identifier: Apache-2.0
// Calibrating the replica model to measurements: the step time's free parameters (compute and
// bandwidth efficiency, per-step overhead, all-reduce latency) fitted to runs the model can
// replay, by bounded least squares on the log error, with each row's residual and its
// leave-one-out error, so that a fit says how far to trust it. docs/planner.md, "Calibration".
//
// A row is a run in which every request arrives at once with fixed lengths (trtllm-bench,
// vLLM's benchmark_throughput, a `vllm bench serve` at an infinite rate): the engine's
// schedule then depends on token counts only, never on times, so one simulation records the
// shape of every step and any parameters' makespan is a sum over those shapes. Sorted by
// their bytes-to-FLOPs ratio with prefix sums, a row is evaluated in O(log steps): a fit of
// forty rows with its forty leave-one-out refits takes well under a second
// (bench/plan.bench.cpp, calibrate_fidelity_rows).
//
// A timed_run is a run at its own arrival times (a benchmark at a finite rate): the model
// replays its requests at their intended arrivals with a full simulation per evaluation and
// predicts their mean TTFT and mean TPOT, the two figures fitted (calibrate_timed_runs).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../capacity/outcome.hpp"
#include "../detail/checks.hpp"
#include "../error.hpp"
#include "../roofline.hpp"
#include "../sim/replica.hpp"
#include "problem.hpp"
#include "replica_model.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// What a row's figure measures.
enum class measured_unit : std::uint8_t {
  output_tokens_per_second,  ///< output tokens of all requests over the makespan
  requests_per_second,       ///< requests over the makespan
};

/// One run the model replays: `requests` requests of `input_tokens` and `output_tokens` all
/// arriving at once on one replica of `tensor_parallel` GPUs with the engine's limits, and the
/// figure measured.
struct calibration_row {
  std::string id{};                  ///< names the row in the results
  model_shape model{};               ///< the model served (its name is not read)
  roofline::accelerator_spec gpu{};  ///< ONE GPU's datasheet peaks (for the weights' precision)
  std::int32_t tensor_parallel = 1;  ///< GPUs of the replica, >= 1
  /// One direction of one GPU's link, bytes/s; > 0 when tensor_parallel > 1.
  double interconnect_bytes_per_second = 0.0;
  sim::replica_config engine{};   ///< the engine's limits and KV budget in that run
  std::size_t input_tokens = 0;   ///< prompt tokens of every request, >= 1
  std::size_t output_tokens = 0;  ///< output tokens of every request, >= 1
  std::size_t requests = 0;       ///< requests in the run, >= 1
  double measured = 0.0;          ///< the published or measured figure, > 0
  measured_unit unit = measured_unit::output_tokens_per_second;  ///< what `measured` is
};

/// Which parameters a calibration fits; the others keep calibration_options::start.
struct fitted_parameters {
  bool flops_efficiency = true;      ///< fit the compute efficiency
  bool bandwidth_efficiency = true;  ///< fit the bandwidth efficiency
  bool step_overhead = true;         ///< fit the per-step overhead
  bool all_reduce_latency = true;    ///< fit the all-reduce latency (needs rows with TP > 1)
};

/// How to calibrate.
struct calibration_options {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  step_time_parameters start{};  ///< where the fit starts, and the value of a parameter not fitted
  fitted_parameters fit{};       ///< which parameters are free
  step_time_parameters lowest{.flops_efficiency = 0.01,
                              .bandwidth_efficiency = 0.01,
                              .step_overhead = std::chrono::duration<double>(0.0),
                              .all_reduce_latency = std::chrono::duration<double>(0.0)};
  step_time_parameters highest{.flops_efficiency = 1.0,
                               .bandwidth_efficiency = 1.0,
                               .step_overhead = std::chrono::duration<double>(0.1),
                               .all_reduce_latency = std::chrono::duration<double>(0.001)};
  bool leave_one_out = true;  ///< also refit without each row and predict it
};

/// One row's fit: what was measured, what the fitted model predicts, and what the model
/// fitted WITHOUT that row predicts (the honest error of a prediction).
struct calibration_residual {
  std::string id{};        ///< the row's id
  double measured = 0.0;   ///< the row's figure
  double predicted = 0.0;  ///< at the fitted parameters
  double log_error = 0.0;  ///< ln(predicted / measured)
  double left_out_predicted = std::numeric_limits<double>::quiet_NaN();  ///< fitted without it
  double left_out_log_error = std::numeric_limits<double>::quiet_NaN();  ///< ln(that / measured)
};

/// A calibration's answer.
struct calibration_result {
  step_time_parameters fitted{};  ///< the parameters at the least squares
  /// Whether the rows constrain each fitted parameter: false when moving it changes no row's
  /// prediction (an all-reduce latency without a row at TP > 1): it kept its start value.
  fitted_parameters identified{};
  std::vector<calibration_residual> rows{};  ///< one per row, in order
  double rms_log_error = 0.0;                ///< sqrt(mean ln²(predicted / measured))
  double median_abs_log_error = 0.0;         ///< on the rows fitted
  double max_abs_log_error = 0.0;            ///< on the rows fitted
  double left_out_median_abs_log_error = std::numeric_limits<double>::quiet_NaN();  ///< LOO
  double left_out_max_abs_log_error = std::numeric_limits<double>::quiet_NaN();     ///< LOO
  std::size_t evaluations = 0;  ///< rows evaluated in all (a row costs O(log steps))
};

namespace detail {

// The shape-independent record of one row: its steps sorted by bytes / FLOPs, descending,
// with prefix sums, and the per-step constants.
struct row_profile {
  std::vector<double> ratio;           // bytes / FLOPs of each step, descending
  std::vector<double> bytes_prefix;    // Σ bytes of the first k steps (size steps + 1)
  std::vector<double> flops_prefix;    // Σ FLOPs of the first k steps
  double steps = 0.0;                  // number of steps
  double tokens = 0.0;                 // Σ prefill + decode tokens
  double peak_bytes_per_second = 0.0;  // the replica's (TP × one GPU's)
  double peak_flops_per_second = 0.0;
  double all_reduces_per_step = 0.0;       // 2 × layers when TP > 1
  double seconds_per_token_on_link = 0.0;  // per all-reduce, per token: ring bytes / link
  double work = 0.0;                       // output tokens or requests: measured × makespan
  double measured_makespan = 0.0;          // work / measured
};

// Records the shape of every step (the schedule does not depend on times when every request
// arrives at once) as bytes and FLOPs of the replica's roofline.
struct step_recorder {
  const sim::roofline_step_time* roofline;
  std::vector<std::array<double, 3>>* steps;  // bytes, FLOPs, tokens
  HEADROOM_DECL std::chrono::duration<double> operator()(const sim::step_shape& s) const;
};

HEADROOM_DECL void check_row(const calibration_row& r);

[[nodiscard]] HEADROOM_DECL row_profile profile_of(const calibration_row& r);

// The makespan at `x`: Σ max(bytes / B, FLOPs / P) over the steps, plus per-step overhead and
// all-reduces. O(log steps).
[[nodiscard]] HEADROOM_DECL double makespan(const row_profile& p, const step_time_parameters& x);

constexpr std::size_t parameter_count = 4;
using parameter_vector = std::array<double, parameter_count>;

[[nodiscard]] HEADROOM_DECL parameter_vector to_vector(const step_time_parameters& x);
[[nodiscard]] HEADROOM_DECL step_time_parameters from_vector(const parameter_vector& v);
[[nodiscard]] inline std::array<bool, parameter_count> free_of(const fitted_parameters& f) {
  return {f.flops_efficiency, f.bandwidth_efficiency, f.step_overhead, f.all_reduce_latency};
}

// Log residuals at some parameters: fills its vector, one per figure fitted.
using residual_function = std::function<void(const step_time_parameters&, std::vector<double>&)>;

// Bounded Levenberg–Marquardt on log residuals (ln(measured / predicted) or its negative: the
// same least squares). Central differences of relative width `difference_step` (in each
// parameter's scale); each step projected onto the box. Deterministic.
class least_squares {
 public:
  HEADROOM_DECL least_squares(residual_function residuals, const calibration_options& o,
                              double difference_step = 1e-6);

  [[nodiscard]] HEADROOM_DECL double cost(const parameter_vector& v, std::vector<double>& r);

  // Fits from `start`; returns the best point; `sensitive` says which free parameters move
  // any residual there.
  HEADROOM_DECL parameter_vector fit(parameter_vector v,
                                     std::array<bool, parameter_count>& sensitive);

  [[nodiscard]] std::size_t evaluations() const noexcept { return evaluations_; }

 private:
  residual_function residuals_;
  std::array<bool, parameter_count> free_;
  parameter_vector low_, high_, scale_{};
  double difference_step_;
  std::size_t evaluations_ = 0;

  void clamp(parameter_vector& v) const {
    for (std::size_t j = 0; j < parameter_count; ++j) v[j] = std::clamp(v[j], low_[j], high_[j]);
  }

  // ∂r/∂(v_j / scale_j) by central differences inside the box (one-sided at a bound).
  HEADROOM_DECL void jacobian_at(const parameter_vector& v,
                                 std::array<std::vector<double>, parameter_count>& jacobian,
                                 std::array<bool, parameter_count>& sensitive);

  // Gaussian elimination with partial pivoting on a 4×4 system.
  [[nodiscard]] HEADROOM_DECL static parameter_vector solve(
      std::array<std::array<double, parameter_count>, parameter_count> m, parameter_vector b);
};

[[nodiscard]] HEADROOM_DECL double median_of(std::vector<double> v);

HEADROOM_DECL void check_options(const calibration_options& o);

// One figure a unit (a row, a run) predicts: its id, the measured and the predicted value.
struct figure {
  std::string id;
  double measured = 0.0;
  double predicted = 0.0;
};

// What a calibration fits: `count` units, the log residuals of a subset of them, and each
// unit's figures at some parameters (in the order its residuals come).
struct calibration_problem {
  std::size_t count = 0;
  std::function<residual_function(std::span<const std::size_t>)> residuals_of;
  std::function<std::vector<figure>(std::size_t, const step_time_parameters&)> figures_at;
  std::span<const double> difference_steps;  // passes of the fit, each from the last's end
};

// The fit every calibrate() shares: from options.start and two more starts (both efficiencies
// low, both high), each a pass per difference step; the residuals, and with
// options.leave_one_out the refit without each unit, its figures predicted.
[[nodiscard]] HEADROOM_DECL calibration_result fit(const calibration_problem& problem,
                                                   const calibration_options& options);

}  // namespace detail

/// The figure the model predicts for `row` at `parameters`: output tokens (or requests) over
/// the simulated makespan, every request arriving at once. Throws invalid_argument for a bad
/// row field ("rows[i].…") or an engine that cannot finish its requests.
[[nodiscard]] HEADROOM_DECL double predict(const calibration_row& row,
                                           const step_time_parameters& parameters);

/// Fits the free parameters to `rows` by bounded Levenberg–Marquardt on ln(predicted /
/// measured), from options.start and two other deterministic starts (the best is kept), then,
/// with options.leave_one_out, refits without each row and predicts it. At least one row;
/// throws invalid_argument naming a bad row field (`rows[i].…`) or option.
[[nodiscard]] HEADROOM_DECL calibration_result calibrate(std::span<const calibration_row> rows,
                                                         const calibration_options& options = {});

// ---- runs at a finite rate ------------------------------------------------------------------

/// A run's requests and mean latencies, from its outcomes (a benchmark reader's, or a
/// simulation's): every successful request's intended arrival and lengths, their mean TTFT
/// from the intended arrival, and their mean TPOT (vLLM's definition) over the requests with
/// at least two output tokens.
struct observed_run {
  std::vector<sim::request> requests{};       ///< sorted by intended arrival (stable)
  std::chrono::duration<double> mean_ttft{};  ///< seconds
  std::chrono::duration<double> mean_tpot{};  ///< seconds (0 when no request has 2 tokens)
  std::size_t errors = 0;                     ///< outcomes left out as errors
};

/// The successful outcomes of a run as requests and mean latencies; the outcomes must carry
/// their intended arrivals (a reader's benchmark_run::send_times_known). Throws invalid_argument
/// naming `outcomes[i].prompt_tokens` or `.output_tokens` for a successful request whose
/// count is 0 (the file did not say), or `outcomes` when none succeeded.
[[nodiscard]] HEADROOM_DECL observed_run
observe(std::span<const capacity::request_outcome> outcomes);

/// One measured run at its own arrival times (a `vllm bench serve` at a finite rate, a
/// guidellm constant or poisson benchmark) on one replica, and its mean latencies: the model
/// replays the requests at their intended arrivals and predicts both means.
struct timed_run {
  std::string id{};                  ///< names the run in the results
  model_shape model{};               ///< the model served
  roofline::accelerator_spec gpu{};  ///< ONE GPU's datasheet peaks (for the weights' precision)
  std::int32_t tensor_parallel = 1;  ///< GPUs of the replica, >= 1
  /// One direction of one GPU's link, bytes/s; > 0 when tensor_parallel > 1.
  double interconnect_bytes_per_second = 0.0;
  sim::replica_config engine{};  ///< the engine's limits and KV budget in that run
  observed_run measured{};       ///< the requests and the mean latencies measured
};

namespace detail {

// Mean TTFT and TPOT of `run`'s requests replayed at `x`.
struct timed_prediction {
  double mean_ttft = 0.0, mean_tpot = 0.0;
};

class timed_replay {
 public:
  HEADROOM_DECL explicit timed_replay(const timed_run& run);

  [[nodiscard]] bool decodes() const noexcept { return decodes_; }

  [[nodiscard]] HEADROOM_DECL timed_prediction predict(const step_time_parameters& x);

 private:
  const timed_run* run_;
  sim::replica_workspace workspace_{};
  bool decodes_ = false;
};

}  // namespace detail

/// Fits the free parameters to runs at their own arrival times by bounded Levenberg–Marquardt
/// on ln(predicted / measured) of each run's mean TTFT and mean TPOT (two figures a run;
/// `rows` of the result holds them as "<id>/ttft" and "<id>/tpot"), from options.start and two
/// other deterministic starts; with options.leave_one_out, refits without each run and predicts
/// both of its figures. Each evaluation simulates every run (sim::simulate), so a fit costs
/// thousands of simulations: bench/plan.bench.cpp, calibrate_timed_runs. Throws
/// invalid_argument naming a bad run field (`runs[i].…`) or option.
[[nodiscard]] HEADROOM_DECL calibration_result calibrate(std::span<const timed_run> runs,
                                                         const calibration_options& options = {});

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/calibrate.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

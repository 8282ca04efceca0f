// SPDX-License-Identifier: Apache-2.0
// The step-time calibrations headroom ships, as data with provenance, keyed by accelerator and
// model architecture (dense, mixture of experts), and how an accelerator_option's parameters
// are resolved: stated by the caller, taken from the shipped calibration of its accelerator
// for the model's architecture, or, with neither, an uncalibrated fallback that every row, CSV
// line and report says it is. docs/planner.md, "Calibration".
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// Where a configuration's step-time parameters came from.
enum class calibration_source : std::uint8_t {
  given,         ///< accelerator_option::step_time, stated by the caller
  shipped,       ///< the shipped calibration of the accelerator (shipped_calibrations)
  uncalibrated,  ///< neither: uncalibrated_step_time, whose error nothing measured bounds
};

/// "given", "shipped" or "uncalibrated".
[[nodiscard]] constexpr std::string_view to_string(calibration_source s) noexcept {
  switch (s) {
    case calibration_source::given:
      return "given";
    case calibration_source::shipped:
      return "shipped";
    case calibration_source::uncalibrated:
      break;
  }
  return "uncalibrated";
}

/// The parameters of an accelerator with no calibration: 50 % of peak FLOP/s, 80 % of peak
/// bandwidth, 1 ms a step, no all-reduce latency. Stated, not measured.
inline constexpr step_time_parameters uncalibrated_step_time{};

/// What a calibration was fitted on besides the accelerator: a dense model, or a mixture of
/// experts (whose grouped expert kernels run at other efficiencies: the dense calibrations
/// predict mixtures 27 % too fast on average, docs/planner.md).
enum class model_architecture : std::uint8_t {
  dense,               ///< every parameter used by every token
  mixture_of_experts,  ///< model_shape::moe.experts > 0
};

/// "dense" or "mixture_of_experts".
[[nodiscard]] constexpr std::string_view to_string(model_architecture a) noexcept {
  return a == model_architecture::dense ? "dense" : "mixture_of_experts";
}

/// The architecture of `model`: a mixture of experts when it has routed experts.
[[nodiscard]] constexpr model_architecture architecture_of(const model_shape& model) noexcept {
  return model.moe.experts > 0 ? model_architecture::mixture_of_experts : model_architecture::dense;
}

/// One shipped calibration: the parameters plan::calibrate fitted for an accelerator and an
/// architecture, what they were fitted on and how well they predict what they were not fitted
/// on.
struct shipped_calibration {
  std::string_view accelerator;  ///< accelerator_spec::name it applies to
  model_architecture architecture = model_architecture::dense;  ///< the models it applies to
  step_time_parameters parameters;
  std::string_view fitted_on;              ///< the engine, precision and rows
  double validation_median_abs_log_error;  ///< on the validation rows, |ln(predicted/published)|
  double validation_max_abs_log_error;     ///< the worst of them
};

/// The calibrations headroom ships: fitted by plan::calibrate on the calibration rows of NVIDIA
/// TensorRT-LLM's published throughput tables (trtllm-bench, every request at once) and judged
/// on their validation rows. Dense: tests/data/planner/fidelity.csv (the 1.0-era page, FP8) for
/// the H100 and H200, published_v017.csv (version 0.17: FP8 on the L40S, FP16 on the A100) for
/// the A100 and L40S, published_b200.csv (the 1.0-era page, FP4) for the B200. Mixtures of
/// experts: published_v017_moe.csv (version 0.17's Mixtral 8x7B and 8x22B rows) for the H100,
/// H200, A100 and L40S. The test "calibrate: the shipped calibrations are the fits of their
/// rows" refits them. Effective constants of the model, not hardware measurements: most
/// fits put the bandwidth at its bound and the rest of the time in a per-step overhead.
inline constexpr std::array<shipped_calibration, 9> shipped_calibrations{{
    {.accelerator = "H100 SXM",
     .parameters = {.flops_efficiency = 0.4712,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(6.873e-3),
                    .all_reduce_latency = std::chrono::duration<double>(38.31e-6)},
     .fitted_on = "TensorRT-LLM 1.0 (trtllm-bench), FP8: Llama 3.1 8B at TP 1 and 3.3 70B at TP 2, "
                  "10 rows (fidelity.csv T02-T48, role calibration)",
     .validation_median_abs_log_error = 0.045,
     .validation_max_abs_log_error = 0.106},
    {.accelerator = "H200 SXM",
     .parameters = {.flops_efficiency = 0.5079,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(11.03e-3),
                    // No H200 row runs at TP > 1: the H100's (the same NVLink 4 fabric).
                    .all_reduce_latency = std::chrono::duration<double>(38.31e-6)},
     .fitted_on = "TensorRT-LLM 1.0 (trtllm-bench), FP8: Llama 3.1 8B and 3.3 70B at TP 1, 10 "
                  "rows (fidelity.csv T01-T47, role calibration); all-reduce latency the H100's",
     .validation_median_abs_log_error = 0.064,
     .validation_max_abs_log_error = 0.183},
    {.accelerator = "A100 80GB SXM",
     .parameters = {.flops_efficiency = 0.6630,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(11.19e-3),
                    .all_reduce_latency = std::chrono::duration<double>(140.6e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP16: Llama 3.1 8B and Mistral 7B at TP 1, "
                  "Llama 3.1 70B at TP 2, 4 and 8, 24 rows (published_v017.csv, role calibration)",
     .validation_median_abs_log_error = 0.109,
     .validation_max_abs_log_error = 0.267},
    {.accelerator = "L40S",
     .parameters = {.flops_efficiency = 0.3276,
                    .bandwidth_efficiency = 0.7415,
                    .step_overhead = std::chrono::duration<double>(0.0),  // at its bound
                    .all_reduce_latency = std::chrono::duration<double>(497.7e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP8: Llama 3.1 8B and Mistral 7B at TP 1, "
                  "Llama 3.1 70B at TP 4 and 8, 20 rows (published_v017.csv, role calibration)",
     .validation_median_abs_log_error = 0.094,
     .validation_max_abs_log_error = 0.248},
    {.accelerator = "B200",
     .parameters = {.flops_efficiency = 0.3553,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(15.40e-3),
                    .all_reduce_latency = std::chrono::duration<double>(52.31e-6)},
     .fitted_on = "TensorRT-LLM 1.0 (trtllm-bench), NVFP4: Llama 3.3 70B at TP 1 and 3.1 405B at "
                  "TP 4, 10 rows (published_b200.csv, role calibration)",
     .validation_median_abs_log_error = 0.112,
     .validation_max_abs_log_error = 0.180},
    {.accelerator = "H100 SXM",
     .architecture = model_architecture::mixture_of_experts,
     .parameters = {.flops_efficiency = 0.3824,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(5.587e-3),
                    .all_reduce_latency = std::chrono::duration<double>(172.6e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP8: Mixtral 8x7B at TP 1, 2, 4 and 8, "
                  "8x22B at TP 8, 25 rows (published_v017_moe.csv, role calibration)",
     .validation_median_abs_log_error = 0.068,
     .validation_max_abs_log_error = 0.231},
    {.accelerator = "H200 SXM",
     .architecture = model_architecture::mixture_of_experts,
     .parameters = {.flops_efficiency = 0.4100,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(11.94e-3),
                    .all_reduce_latency = std::chrono::duration<double>(124.7e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP8: Mixtral 8x7B at TP 1, 2, 4 and 8, "
                  "8x22B at TP 8, 25 rows (published_v017_moe.csv, role calibration)",
     .validation_median_abs_log_error = 0.083,
     .validation_max_abs_log_error = 0.183},
    {.accelerator = "A100 80GB SXM",
     .architecture = model_architecture::mixture_of_experts,
     .parameters = {.flops_efficiency = 0.4633,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(0.0),  // at its bound
                    .all_reduce_latency = std::chrono::duration<double>(377.2e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP16: Mixtral 8x7B at TP 2, 4 and 8, 8x22B "
                  "at TP 8, 20 rows (published_v017_moe.csv, role calibration)",
     .validation_median_abs_log_error = 0.072,
     .validation_max_abs_log_error = 0.305},
    {.accelerator = "L40S",
     .architecture = model_architecture::mixture_of_experts,
     .parameters = {.flops_efficiency = 0.1536,
                    .bandwidth_efficiency = 1.0,
                    .step_overhead = std::chrono::duration<double>(17.38e-3),
                    .all_reduce_latency = std::chrono::duration<double>(255.9e-6)},
     .fitted_on = "TensorRT-LLM 0.17 (trtllm-bench), FP8: Mixtral 8x7B at TP 4 and 8, 10 rows "
                  "(published_v017_moe.csv, role calibration)",
     .validation_median_abs_log_error = 0.101,
     .validation_max_abs_log_error = 0.243},
}};

/// The shipped calibration of the accelerator named `name` for models of `architecture`, or
/// nullptr.
[[nodiscard]] constexpr const shipped_calibration* find_shipped_calibration(
    std::string_view name, model_architecture architecture = model_architecture::dense) noexcept {
  for (const auto& c : shipped_calibrations)
    if (c.accelerator == name && c.architecture == architecture) return &c;
  return nullptr;
}

/// An option's parameters and where they came from.
struct resolved_step_time {
  step_time_parameters parameters{};
  calibration_source source = calibration_source::uncalibrated;
};

/// The parameters the planner uses for `model` on `gpu`: its step_time when given, else the
/// shipped calibration of its accelerator for the model's architecture (architecture_of), else
/// uncalibrated_step_time (a mixture of experts never takes a dense calibration).
[[nodiscard]] constexpr resolved_step_time resolve_step_time(const accelerator_option& gpu,
                                                             const model_shape& model) noexcept {
  if (gpu.step_time) return {.parameters = *gpu.step_time, .source = calibration_source::given};
  if (const shipped_calibration* c =
          find_shipped_calibration(gpu.spec.name, architecture_of(model)))
    return {.parameters = c->parameters, .source = calibration_source::shipped};
  return {.parameters = uncalibrated_step_time, .source = calibration_source::uncalibrated};
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// What the caller states: the model, the grid of accelerators and limits, the SLO, the
// traffic, how the fleet follows it, how hard each configuration is measured, and which
// shard of the grid a process evaluates. docs/planner.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../capacity.hpp"
#include "../detail/checks.hpp"
#include "../roofline.hpp"
#include "../sim/fleet_day.hpp"
#include "../sim/replica_config.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// The model served: its size and the shape the step time and the KV cache need.
struct model_shape {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  std::string name{};               ///< label in rows and CSV headers (no ',', '"', space, newline)
  double parameters = 0.0;          ///< N_p, all of them (a mixture: every expert), > 0
  std::int32_t layers = 0;          ///< decoder layers, >= 1 (two all-reduces each under TP)
  std::int32_t hidden_size = 0;     ///< activation width, >= 0 (0: all-reduces cost latency only)
  double kv_bytes_per_token = 0.0;  ///< m_kv of the whole model, bytes, > 0
  /// Weights' bytes: 2 for bf16, 1 for fp8, bytes_per_parameter(weight_format{...}) for a
  /// group-quantized format (0.52 for 4-bit AWQ); > 0.
  double bytes_per_parameter = 2.0;
  double activation_bytes = 2.0;  ///< bytes per all-reduced activation element; > 0
  /// The routed experts of a mixture of experts (roofline.hpp); all zero: a dense model.
  roofline::mixture_of_experts moe{};
  /// The format its matrix products run in: picks the accelerator's peak (peak_flops_for;
  /// FP8 on parts with FP8 tensor cores, else bf16). Weight-only quantization (AWQ, GPTQ)
  /// computes in 16 bits: bf16 or fp16 here, its bytes in bytes_per_parameter.
  roofline::numeric_format compute_format = roofline::numeric_format::bf16;
};

/// The step time's free parameters: what plan::calibrate fits and what an accelerator_option
/// states (or takes from a shipped calibration, plan/calibrations.hpp).
struct step_time_parameters {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  double flops_efficiency = 0.5;                          ///< P_eff / P_peak, in (0, 1]
  double bandwidth_efficiency = 0.8;                      ///< B_eff / B_peak, in (0, 1]
  std::chrono::duration<double> step_overhead{0.001};     ///< fixed cost of a step, >= 0
  std::chrono::duration<double> all_reduce_latency{0.0};  ///< fixed cost of an all-reduce, >= 0
  friend bool operator==(const step_time_parameters&, const step_time_parameters&) = default;
};

/// One accelerator of the grid: its datasheet figures, its price, the step time's
/// parameters, and the link its tensor-parallel all-reduces use.
struct accelerator_option {
  roofline::accelerator_spec spec{};  ///< peaks and memory of ONE GPU (roofline.hpp)
  double price_per_gpu_hour = 0.0;    ///< currency per GPU-hour, > 0 (a replica pays TP of them)
  /// The step time's efficiencies, overhead and all-reduce latency (your own calibrate()
  /// result, say). nullopt: the shipped calibration of spec.name if there is one, else
  /// uncalibrated_step_time; every row says which (row::calibration).
  std::optional<step_time_parameters> step_time{};
  /// One direction of one GPU's link to its peers, bytes/s, >= 0 (> 0 when TP > 1 and the
  /// model has a hidden size): NVLink 4 is 900 GB/s both ways, 450e9 here. nullopt: the spec's
  /// (accelerator_spec::interconnect_bytes_per_second, the catalog's datasheet link).
  std::optional<double> interconnect_bytes_per_second{};
};

/// The link `gpu` uses: its stated interconnect_bytes_per_second, else its spec's.
[[nodiscard]] constexpr double interconnect_of(const accelerator_option& gpu) noexcept {
  return gpu.interconnect_bytes_per_second.value_or(gpu.spec.interconnect_bytes_per_second);
}

/// The grid: every combination of the axes is one configuration. Every axis non-empty.
struct grid {
  std::vector<accelerator_option> accelerators{};     ///< distinct spec names
  std::vector<std::int32_t> tensor_parallel{1};       ///< GPUs per replica, each >= 1
  std::vector<std::size_t> max_batch{256};            ///< max running sequences, >= 1
  std::vector<std::size_t> max_batched_tokens{8192};  ///< step token budget (chunk size)
  std::vector<sim::prefill_mode> prefill{sim::prefill_mode::chunked};  ///< prefill modes
  std::vector<sim::kv_policy> kv{sim::kv_policy::preempt_youngest};    ///< KV policies
  double memory_fraction = 0.9;  ///< share of the replica's memory for weights + KV, (0, 1]
};

/// The service-level objective: bounds on TTFT, TPOT (the per-request mean inter-token
/// latency) and end-to-end latency, at least one set, met by a share >= quota of requests.
struct objective {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  std::optional<std::chrono::duration<double>> ttft{};  ///< TTFT bound, > 0
  std::optional<std::chrono::duration<double>> tpot{};  ///< TPOT (ITL) bound, > 0
  std::optional<std::chrono::duration<double>> e2e{};   ///< end-to-end bound, > 0
  capacity::tpot_definition tpot_kind =
      capacity::tpot_definition::vllm;  ///< which TPOT the bound constrains
  double quota = 0.9;                   ///< q, the conformance required, (0, 1)
};

/// The demand: one rate per step (a day of per-minute rates by default).
struct traffic_profile {
  std::vector<double> rates_per_second{};                        ///< finite, >= 0, at least one > 0
  std::chrono::duration<double> step = std::chrono::minutes{1};  ///< one rate's span, > 0
  /// Describes the length mix; part of the fingerprint (the sampler itself cannot be hashed).
  std::string lengths_description{};
};

/// How the fleet follows the traffic over the day (sim/fleet_day.hpp).
struct fleet_options {
  sim::fleet_policy policy = sim::chase(std::chrono::minutes{8});  ///< fixed or reactive
  double target_utilization = 0.8;           ///< ρ*, in (0, 1]: replicas run at ρ*·μ*
  std::int32_t scale_down_window_steps = 5;  ///< recommendations the scale-down looks at, >= 1
};

/// How hard each configuration is measured.
struct search_options {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  std::size_t requests_per_run = 4000;   ///< requests of one simulated load test, >= 100
  std::size_t max_runs_per_rate = 2;     ///< runs pooled at a rate before it is undecided, >= 1
  std::size_t max_measurements = 24;     ///< load tests per μ* search, >= 2
  double relative_tolerance = 0.05;      ///< the search stops at high − low <= this·low, > 0
  double warm_up_fraction = 0.1;         ///< share of a run's span discarded at its start
  double cool_down_fraction = 0.1;       ///< share discarded at its end
  double arrival_cv = 1.0;               ///< CV of the gaps (1: Poisson), >= 0
  double z = 1.96;                       ///< normal quantile naming the intervals' level, > 0
  std::size_t zero_load_requests = 200;  ///< requests served alone by the zero-load screen, >= 1
  std::size_t length_draws = 65536;      ///< draws estimating the mean lengths, >= 1
  std::uint64_t seed = 1;                ///< base of every configuration's seed
};

/// One planning problem: one model, one grid, one SLO, one traffic profile.
struct problem {
  std::string name{};         ///< names the grid in CSV headers (no ',', '"', space, newline)
  model_shape model{};        ///< what is served
  grid axes{};                ///< what may serve it
  objective target{};         ///< the SLO
  traffic_profile traffic{};  ///< the demand
  fleet_options fleet{};      ///< how the fleet follows it
  search_options search{};    ///< how hard each configuration is measured
};

/// Which part of the grid one process evaluates: configurations whose index i has
/// i mod count == index − 1 (round robin, so every shard gets a mix). 1 <= index <= count.
struct shard {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  std::size_t index = 1;  ///< k of "k/n", 1-based
  std::size_t count = 1;  ///< n of "k/n", >= 1
};

/// Parses "k/n" (1 <= k <= n, decimal digits only); std::nullopt when malformed.
[[nodiscard]] HEADROOM_DECL std::optional<shard> parse_shard(std::string_view text) noexcept;

/// How to run the grid.
struct execution {
  std::size_t threads = 0;  ///< worker threads; 0: std::thread::hardware_concurrency()
  shard part{};             ///< the configurations to evaluate (default: all)
};

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/problem.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

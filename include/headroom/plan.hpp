// SPDX-License-Identifier: Apache-2.0
// The deployment planner: for one model, one SLO and one day of traffic, which accelerator,
// tensor-parallel size and batch limits serve it at the lowest cost. A search over a grid
// the caller states, composed of the library's real components and re-implementing none:
// per configuration, the replica simulator (sim/replica.hpp) with a roofline step time plus
// the tensor-parallel all-reduces, capacity.hpp's μ* search with its interval, the demand's
// day through the real fleet (sim/fleet_day.hpp: the autoscaler, the start delay, cost.hpp's
// price per token), roofline.hpp's MFU and MBU at the operating point. Then the Pareto
// frontiers (cost per million tokens against latency margin, and against replicas at the
// peak), the cheapest configuration that meets the SLO, and why every other one lost.
//
// Parallel across threads with results bit-identical for any thread count (each
// configuration is seeded from its own key), and split into shards whose CSV rows merge
// into the same frontier. The model, its assumptions and its fidelity against published
// measurements: docs/planner.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "arrivals.hpp"
#include "capacity.hpp"
#include "cost.hpp"
#include "detail/checks.hpp"
#include "detail/from_chars.hpp"
#include "error.hpp"
#include "queueing.hpp"
#include "roofline.hpp"
#include "sim/fleet_day.hpp"
#include "sim/replica.hpp"
#include "version.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

// ============================================================================================
// What the caller states
// ============================================================================================

/// The model served: its size and the shape the step time and the KV cache need.
struct model_shape {
  std::string name;                 ///< label in rows and CSV headers (no ',', '"', space, newline)
  double parameters = 0.0;          ///< N_p, > 0
  std::int32_t layers = 0;          ///< decoder layers, >= 1 (two all-reduces each under TP)
  std::int32_t hidden_size = 0;     ///< activation width, >= 0 (0: all-reduces cost latency only)
  double kv_bytes_per_token = 0.0;  ///< m_kv of the whole model, bytes, > 0
  double bytes_per_parameter = 2.0;  ///< weights: 2 for bf16, 1 for fp8; > 0
  double activation_bytes = 2.0;     ///< bytes per all-reduced activation element; > 0
};

/// One accelerator of the grid: its datasheet figures, its price, the step-time model's
/// efficiencies, and the link its tensor-parallel all-reduces use.
struct accelerator_option {
  accelerator_spec spec{};            ///< peaks and memory of ONE GPU (roofline.hpp)
  double price_per_gpu_hour = 0.0;    ///< currency per GPU-hour, > 0 (a replica pays TP of them)
  double flops_efficiency = 0.5;      ///< P_eff / P_peak, in (0, 1]
  double bandwidth_efficiency = 0.8;  ///< B_eff / B_peak, in (0, 1]
  std::chrono::duration<double> step_overhead{0.001};  ///< fixed cost of a step, >= 0
  /// One direction of one GPU's link to its peers, bytes/s, >= 0 (> 0 when TP > 1 and the
  /// model has a hidden size): NVLink 4 is 900 GB/s both ways, 450e9 here.
  double interconnect_bytes_per_second = 0.0;
  std::chrono::duration<double> all_reduce_latency{0.0};  ///< fixed cost of one all-reduce, >= 0
};

/// The grid: every combination of the axes is one configuration. Every axis non-empty.
struct grid {
  std::vector<accelerator_option> accelerators;       ///< distinct spec names
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
  std::optional<std::chrono::duration<double>> ttft{};  ///< TTFT bound, > 0
  std::optional<std::chrono::duration<double>> tpot{};  ///< TPOT (ITL) bound, > 0
  std::optional<std::chrono::duration<double>> e2e{};   ///< end-to-end bound, > 0
  tpot_definition tpot_kind = tpot_definition::vllm;    ///< which TPOT the bound constrains
  double quota = 0.9;                                   ///< q, the conformance required, (0, 1)
};

/// The demand: one rate per step (a day of per-minute rates by default).
struct traffic_profile {
  std::vector<double> rates_per_second;                          ///< finite, >= 0, at least one > 0
  std::chrono::duration<double> step = std::chrono::minutes{1};  ///< one rate's span, > 0
  /// Describes the length mix; part of the fingerprint (the sampler itself cannot be hashed).
  std::string lengths_description;
};

/// How the fleet follows the traffic over the day (sim/fleet_day.hpp).
struct fleet_options {
  sim::fleet_policy policy = sim::chase(std::chrono::minutes{8});  ///< fixed or reactive
  double target_utilization = 0.8;           ///< ρ*, in (0, 1]: replicas run at ρ*·μ*
  std::int32_t scale_down_window_steps = 5;  ///< recommendations the scale-down looks at, >= 1
};

/// How hard each configuration is measured.
struct search_options {
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
  std::string name;         ///< names the grid in CSV headers (no ',', '"', space, newline)
  model_shape model;        ///< what is served
  grid axes;                ///< what may serve it
  objective target;         ///< the SLO
  traffic_profile traffic;  ///< the demand
  fleet_options fleet;      ///< how the fleet follows it
  search_options search;    ///< how hard each configuration is measured
};

/// Which part of the grid one process evaluates: configurations whose index i has
/// i mod count == index − 1 (round robin, so every shard gets a mix). 1 <= index <= count.
struct shard {
  std::size_t index = 1;  ///< k of "k/n", 1-based
  std::size_t count = 1;  ///< n of "k/n", >= 1
};

/// Parses "k/n" (1 <= k <= n, decimal digits only); std::nullopt when malformed.
[[nodiscard]] inline std::optional<shard> parse_shard(std::string_view text) noexcept {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view s) -> std::optional<std::size_t> {
    if (s.empty() || s.size() > 9) return std::nullopt;
    std::size_t v = 0;
    for (const char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    return v;
  };
  const auto k = number(text.substr(0, slash));
  const auto n = number(text.substr(slash + 1));
  if (!k || !n || *k < 1 || *k > *n) return std::nullopt;
  return shard{*k, *n};
}

/// How to run the grid.
struct execution {
  std::size_t threads = 0;  ///< worker threads; 0: std::thread::hardware_concurrency()
  shard part{};             ///< the configurations to evaluate (default: all)
};

// ============================================================================================
// Configurations, keys and seeds
// ============================================================================================

/// One point of the grid.
struct configuration {
  std::size_t index = 0;                  ///< position in the grid's canonical order (enumerate)
  std::size_t accelerator = 0;            ///< index into grid::accelerators
  std::int32_t tensor_parallel = 1;       ///< GPUs per replica
  std::size_t max_batch = 256;            ///< max running sequences
  std::size_t max_batched_tokens = 8192;  ///< step token budget
  sim::prefill_mode prefill = sim::prefill_mode::chunked;  ///< prefill mode
  sim::kv_policy kv = sim::kv_policy::preempt_youngest;    ///< KV policy
};

/// "chunked" or "whole".
[[nodiscard]] constexpr std::string_view to_string(sim::prefill_mode m) noexcept {
  return m == sim::prefill_mode::chunked ? "chunked" : "whole";
}
/// "reserve_full" or "preempt_youngest".
[[nodiscard]] constexpr std::string_view to_string(sim::kv_policy k) noexcept {
  return k == sim::kv_policy::reserve_full ? "reserve_full" : "preempt_youngest";
}

/// Every configuration of the grid in canonical order: accelerators outermost, then tensor
/// parallel, max batch, max batched tokens, prefill mode, KV policy (the order of each axis
/// as given). index = position. Call validate(problem) first.
[[nodiscard]] inline std::vector<configuration> enumerate(const grid& g) {
  std::vector<configuration> all;
  all.reserve(g.accelerators.size() * g.tensor_parallel.size() * g.max_batch.size() *
              g.max_batched_tokens.size() * g.prefill.size() * g.kv.size());
  for (std::size_t a = 0; a < g.accelerators.size(); ++a)
    for (const auto tp : g.tensor_parallel)
      for (const auto b : g.max_batch)
        for (const auto t : g.max_batched_tokens)
          for (const auto p : g.prefill)
            for (const auto k : g.kv) all.push_back({all.size(), a, tp, b, t, p, k});
  return all;
}

/// The configuration's key, "<accelerator>/tp<N>/b<max batch>/t<tokens>/<prefill>/<kv>":
/// unique within a grid, and the same whatever else the grid holds.
[[nodiscard]] inline std::string key(const grid& g, const configuration& c) {
  std::string k(g.accelerators.at(c.accelerator).spec.name);
  k += "/tp" + std::to_string(c.tensor_parallel);
  k += "/b" + std::to_string(c.max_batch);
  k += "/t" + std::to_string(c.max_batched_tokens);
  k += '/';
  k += to_string(c.prefill);
  k += '/';
  k += to_string(c.kv);
  return k;
}

/// The seed of a configuration: SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014) of
/// base XOR the 64-bit FNV-1a hash of its key. It depends on nothing but the key and the
/// base, so a configuration measures the same in any grid, shard or thread.
[[nodiscard]] constexpr std::uint64_t configuration_seed(std::uint64_t base,
                                                         std::string_view key) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  std::uint64_t x = base ^ h;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// ============================================================================================
// The replica model: the roofline over the replica's GPUs, plus the all-reduces
// ============================================================================================

/// Peaks and memory of a replica of `tensor_parallel` GPUs: each figure times the count.
[[nodiscard]] constexpr accelerator_spec replica_spec(const accelerator_spec& gpu,
                                                      std::int32_t tensor_parallel) noexcept {
  const double n = static_cast<double>(tensor_parallel);
  return {gpu.name, gpu.peak_flops_per_second * n, gpu.peak_bytes_per_second * n,
          gpu.memory_bytes * n};
}

/// The step time of a tensor-parallel replica: the roofline over all its GPUs (weights and
/// KV sharded, each GPU reads 1/TP of the bytes and does 1/TP of the FLOPs) plus, when
/// TP > 1, the all-reduces of Megatron-style tensor parallelism (Shoeybi et al., 2019: one
/// after the attention and one after the MLP of each layer), each costing a fixed latency
/// plus a ring all-reduce's 2(TP − 1)/TP × bytes / link bandwidth (Patarasuk & Yuan, JPDC
/// 69(2), 2009; NCCL's "bus bandwidth"), bytes = tokens × hidden × activation bytes.
struct tensor_parallel_step_time {
  sim::roofline_step_time roofline{};          ///< over the whole replica (TP × per-GPU figures)
  std::int32_t tensor_parallel = 1;            ///< GPUs of the replica
  double all_reduces_per_step = 0.0;           ///< 2 × layers when TP > 1, else 0
  double activation_bytes_per_token = 0.0;     ///< hidden × activation bytes
  double interconnect_bytes_per_second = 0.0;  ///< one direction of one GPU's link
  std::chrono::duration<double> all_reduce_latency{0.0};  ///< fixed cost of one all-reduce

  /// Seconds the all-reduces of a step of `tokens` tokens take.
  [[nodiscard]] constexpr double communication_seconds(std::size_t tokens) const noexcept {
    if (tensor_parallel <= 1 || all_reduces_per_step <= 0.0) return 0.0;
    const double p = static_cast<double>(tensor_parallel);
    double one = all_reduce_latency.count();
    if (interconnect_bytes_per_second > 0.0)
      one += 2.0 * (p - 1.0) / p * static_cast<double>(tokens) * activation_bytes_per_token /
             interconnect_bytes_per_second;
    return all_reduces_per_step * one;
  }
  /// The step time: roofline(shape) + the all-reduces of its prefill and decode tokens.
  [[nodiscard]] constexpr std::chrono::duration<double> operator()(
      const sim::step_shape& s) const noexcept {
    return roofline(s) +
           std::chrono::duration<double>(communication_seconds(s.prefill_tokens + s.decode_tokens));
  }
};

/// The replica model of a configuration: make_roofline_step_time on replica_spec(gpu, TP)
/// with the accelerator's efficiencies and overhead, and the all-reduce terms. Throws
/// invalid_argument for a bad model or accelerator field.
[[nodiscard]] inline tensor_parallel_step_time make_step_time(const model_shape& model,
                                                              const accelerator_option& gpu,
                                                              std::int32_t tensor_parallel) {
  if (tensor_parallel < 1) detail::fail("tensor_parallel", tensor_parallel, "must be >= 1");
  tensor_parallel_step_time m;
  m.roofline = sim::make_roofline_step_time(
      replica_spec(gpu.spec, tensor_parallel), model.parameters, model.bytes_per_parameter,
      model.kv_bytes_per_token, gpu.flops_efficiency, gpu.bandwidth_efficiency, gpu.step_overhead);
  m.tensor_parallel = tensor_parallel;
  m.all_reduces_per_step = tensor_parallel > 1 ? 2.0 * static_cast<double>(model.layers) : 0.0;
  m.activation_bytes_per_token = static_cast<double>(model.hidden_size) * model.activation_bytes;
  m.interconnect_bytes_per_second = gpu.interconnect_bytes_per_second;
  m.all_reduce_latency = gpu.all_reduce_latency;
  return m;
}

/// Bytes of the weights on the replica, N_p × bytes per parameter.
[[nodiscard]] inline double model_weight_bytes(const model_shape& model) {
  return weight_bytes(model.parameters, model.bytes_per_parameter);
}

/// KV-cache tokens of a replica of TP GPUs: sim::kv_budget_tokens over TP × memory, or
/// std::nullopt when the weights leave no room for one token (the configuration does not
/// fit).
[[nodiscard]] inline std::optional<std::size_t> replica_kv_budget(const model_shape& model,
                                                                  const accelerator_option& gpu,
                                                                  std::int32_t tensor_parallel,
                                                                  double memory_fraction) {
  const double memory = gpu.spec.memory_bytes * static_cast<double>(tensor_parallel);
  const double room = memory * memory_fraction - model_weight_bytes(model);
  if (!(std::floor(room / model.kv_bytes_per_token) >= 1.0)) return std::nullopt;
  return sim::kv_budget_tokens(memory, memory_fraction, model_weight_bytes(model),
                               model.kv_bytes_per_token);
}

/// The replica configuration of a grid point with its KV budget.
[[nodiscard]] inline sim::replica_config replica_configuration(const configuration& c,
                                                               std::size_t kv_budget_tokens) {
  return {c.max_batch, kv_budget_tokens, c.max_batched_tokens, c.prefill, c.kv};
}

/// The SLO as capacity.hpp's slo: an unset bound becomes the largest finite duration.
[[nodiscard]] inline slo to_slo(const objective& o) {
  const std::chrono::duration<double> none{std::numeric_limits<double>::max()};
  return {o.ttft.value_or(none), o.tpot.value_or(none), o.e2e, o.tpot_kind};
}

// ============================================================================================
// Lengths
// ============================================================================================

/// Mean lengths of the mix, estimated once per problem from `draws` draws of a copy of the
/// sampler on std::mt19937_64 seeded with `seed`: arithmetic means of the prompt and output
/// tokens, and the longest prompt + output seen.
struct length_statistics {
  double mean_prompt_tokens = 0.0;   ///< E[prompt]
  double mean_output_tokens = 0.0;   ///< E[output]: the tokens a request generates
  std::size_t longest_sequence = 0;  ///< max(prompt + output) over the draws
  std::size_t draws = 0;             ///< draws taken
};

/// Draws the statistics (see length_statistics). draws >= 1.
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] length_statistics sample_lengths(const L& lengths, std::size_t draws,
                                               std::uint64_t seed) {
  if (draws == 0) detail::fail("draws", draws, "must be >= 1");
  std::mt19937_64 engine(seed);
  L sampler = lengths;
  double prompt = 0.0, output = 0.0;
  length_statistics s;
  for (std::size_t i = 0; i < draws; ++i) {
    const sim::request_lengths l = sampler(engine);
    if (l.prompt_tokens == 0) detail::fail("lengths().prompt_tokens", 0, "must be >= 1");
    if (l.output_tokens == 0) detail::fail("lengths().output_tokens", 0, "must be >= 1");
    prompt += static_cast<double>(l.prompt_tokens);
    output += static_cast<double>(l.output_tokens);
    s.longest_sequence = std::max(s.longest_sequence, l.prompt_tokens + l.output_tokens);
  }
  s.mean_prompt_tokens = prompt / static_cast<double>(draws);
  s.mean_output_tokens = output / static_cast<double>(draws);
  s.draws = draws;
  return s;
}

/// Where the μ* search starts (its rate_high; rate_low is half of it): the rate a full
/// replica would sustain by the roofline alone, 1 / (E[out]·t_decode(B)/B + prefill), with B =
/// min(max_batch, KV budget / (E[prompt] + E[out])) sequences of mean context E[prompt] +
/// E[out]/2 decoding together and each prompt prefilled at the replica's effective FLOP/s.
/// A starting point only: the search brackets μ* from it whatever its error.
[[nodiscard]] inline double starting_rate(const tensor_parallel_step_time& model,
                                          const sim::replica_config& config,
                                          const length_statistics& lengths) {
  const double per_sequence = lengths.mean_prompt_tokens + lengths.mean_output_tokens;
  const double fit = std::floor(static_cast<double>(config.kv_budget_tokens) / per_sequence);
  const double batch = std::max(1.0, std::min(static_cast<double>(config.max_batch), fit));
  const auto b = static_cast<std::size_t>(batch);
  const auto context = static_cast<std::size_t>(
      batch * (lengths.mean_prompt_tokens + 0.5 * lengths.mean_output_tokens));
  const double decode = model(sim::step_shape{b, 0, b, context}).count();
  const double prefill = 2.0 * model.roofline.parameters * lengths.mean_prompt_tokens /
                         model.roofline.flops_per_second;
  const double per_request = lengths.mean_output_tokens * decode / batch + prefill;
  const double rate = 1.0 / per_request;
  return std::clamp(detail::is_finite(rate) ? rate : 1.0, 1e-6, 1e9);
}

// ============================================================================================
// Rows
// ============================================================================================

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
[[nodiscard]] constexpr std::string_view to_string(search_stop s) noexcept {
  switch (s) {
    case search_stop::converged:
      return "converged";
    case search_stop::undecided:
      return "undecided";
    case search_stop::no_passing_rate:
      return "no_passing_rate";
    case search_stop::never_saturated:
      return "never_saturated";
    case search_stop::budget_exhausted:
      break;
  }
  return "budget_exhausted";
}

/// Everything measured for one configuration. The fields of each stage hold only when
/// that stage ran: an infeasible configuration leaves the later ones at their defaults.
struct row {
  configuration config{};                      ///< the grid point
  std::string key;                             ///< key(grid, config)
  feasibility status = feasibility::feasible;  ///< can it serve the SLO at all
  std::size_t kv_budget_tokens = 0;  ///< KV-cache tokens of the replica (0: weights do not fit)
  /// Zero-load screen: share of zero_load_requests requests, each served alone, that meet
  /// the SLO, and the share that never fit the KV cache.
  double zero_load_conformance = 0.0;
  double zero_load_rejected = 0.0;  ///< share of lone requests larger than the KV cache
  // ---- μ* (capacity.hpp search_capacity) ----
  double capacity_per_second = 0.0;           ///< μ*: the largest rate that passed (0: none)
  double capacity_high_per_second = 0.0;      ///< the smallest that failed (inf: none did)
  double confidence = 0.0;                    ///< level of the intervals that decided
  search_stop stop = search_stop::converged;  ///< why the search stopped
  std::size_t runs = 0;                       ///< simulated load tests of the search
  std::size_t requests = 0;                   ///< requests they spent
  // ---- the operating point ρ*·μ* ----
  double operating_rate_per_second = 0.0;         ///< ρ*·μ*
  std::chrono::duration<double> ttft_quantile{};  ///< q-quantile of TTFT there (nearest rank)
  std::chrono::duration<double> tpot_quantile{};  ///< q-quantile of TPOT there
  std::chrono::duration<double> e2e_quantile{};   ///< q-quantile of the end-to-end latency there
  /// min over the SLO's bounds of 1 − quantile/bound: the share of each bound left unused
  /// by the q-th slowest request at the operating point (1: instant, 0: at the bound).
  double latency_margin = 0.0;
  double mfu = 0.0;  ///< model FLOPs utilisation there (sim::utilisation_of, replica peaks)
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

// ============================================================================================
// Checking a problem
// ============================================================================================

namespace detail {
// A CSV field: not empty, no ',', '"' or line break; with `word`, no space or tab either (the
// header line separates its fields by spaces).
inline void require_label(const char* name, std::string_view text, bool word = true) {
  if (text.empty()) ::headroom::detail::fail(name, text, "must not be empty");
  for (const char c : text)
    if (c == ',' || c == '"' || c == '\n' || c == '\r' || (word && (c == ' ' || c == '\t')))
      ::headroom::detail::fail(name, text,
                               word ? "must not contain ',', '\"', a space or a line break"
                                    : "must not contain ',', '\"' or a line break");
}
}  // namespace detail

/// Checks every field of a problem; throws invalid_argument naming it ("axes.max_batch[i]",
/// "traffic.rates_per_second", ...). Every combination of the axes must be a valid replica
/// (max_batched_tokens >= max_batch).
inline void validate(const problem& p) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_non_negative;
  using ::headroom::detail::require_positive;
  detail::require_label("problem.name", p.name);
  detail::require_label("model.name", p.model.name);
  require_positive("model.parameters", p.model.parameters);
  if (p.model.layers < 1) fail("model.layers", p.model.layers, "must be >= 1");
  if (p.model.hidden_size < 0) fail("model.hidden_size", p.model.hidden_size, "must be >= 0");
  require_positive("model.kv_bytes_per_token", p.model.kv_bytes_per_token);
  require_positive("model.bytes_per_parameter", p.model.bytes_per_parameter);
  require_positive("model.activation_bytes", p.model.activation_bytes);

  const grid& g = p.axes;
  if (g.accelerators.empty()) fail("axes.accelerators.size()", 0, "needs at least one");
  if (g.tensor_parallel.empty()) fail("axes.tensor_parallel.size()", 0, "needs at least one");
  if (g.max_batch.empty()) fail("axes.max_batch.size()", 0, "needs at least one");
  if (g.max_batched_tokens.empty()) fail("axes.max_batched_tokens.size()", 0, "needs at least one");
  if (g.prefill.empty()) fail("axes.prefill.size()", 0, "needs at least one");
  if (g.kv.empty()) fail("axes.kv.size()", 0, "needs at least one");
  ::headroom::detail::require_unit_positive("axes.memory_fraction", g.memory_fraction);
  bool any_tensor_parallel = false;
  for (const auto tp : g.tensor_parallel) {
    if (tp < 1 || tp > 4096) fail("axes.tensor_parallel[i]", tp, "must lie in [1, 4096]");
    any_tensor_parallel = any_tensor_parallel || tp > 1;
  }
  for (std::size_t i = 0; i < g.accelerators.size(); ++i) {
    const auto& a = g.accelerators[i];
    detail::require_label("axes.accelerators[i].spec.name", a.spec.name, false);
    for (std::size_t j = 0; j < i; ++j)
      if (g.accelerators[j].spec.name == a.spec.name)
        fail("axes.accelerators[i].spec.name", a.spec.name, "names must be distinct");
    require_positive("axes.accelerators[i].spec.peak_flops_per_second",
                     a.spec.peak_flops_per_second);
    require_positive("axes.accelerators[i].spec.peak_bytes_per_second",
                     a.spec.peak_bytes_per_second);
    require_positive("axes.accelerators[i].spec.memory_bytes", a.spec.memory_bytes);
    require_positive("axes.accelerators[i].price_per_gpu_hour", a.price_per_gpu_hour);
    ::headroom::detail::require_unit_positive("axes.accelerators[i].flops_efficiency",
                                              a.flops_efficiency);
    ::headroom::detail::require_unit_positive("axes.accelerators[i].bandwidth_efficiency",
                                              a.bandwidth_efficiency);
    require_non_negative("axes.accelerators[i].step_overhead", a.step_overhead.count());
    require_non_negative("axes.accelerators[i].interconnect_bytes_per_second",
                         a.interconnect_bytes_per_second);
    require_non_negative("axes.accelerators[i].all_reduce_latency", a.all_reduce_latency.count());
    if (any_tensor_parallel && p.model.hidden_size > 0 && !(a.interconnect_bytes_per_second > 0))
      fail("axes.accelerators[i].interconnect_bytes_per_second", a.interconnect_bytes_per_second,
           "must be > 0 when a tensor-parallel size > 1 all-reduces a hidden size > 0");
  }
  for (const auto b : g.max_batch)
    if (b < 1 || b > 0xffffffffu) fail("axes.max_batch[i]", b, "must lie in [1, 2^32 - 1]");
  for (const auto t : g.max_batched_tokens)
    for (const auto b : g.max_batch)
      if (t < b)
        fail("axes.max_batched_tokens[i]", t,
             "must be >= every axes.max_batch (each decoding sequence takes one token)");

  const objective& o = p.target;
  if (!o.ttft && !o.tpot && !o.e2e) fail("target.ttft", 0, "set at least one of ttft, tpot, e2e");
  if (o.ttft) require_positive("target.ttft", o.ttft->count());
  if (o.tpot) require_positive("target.tpot", o.tpot->count());
  if (o.e2e) require_positive("target.e2e", o.e2e->count());
  ::headroom::detail::require_open_unit("target.quota", o.quota);

  const traffic_profile& t = p.traffic;
  if (t.rates_per_second.empty()) fail("traffic.rates_per_second.size()", 0, "needs one rate");
  double peak = 0.0;
  for (const double r : t.rates_per_second) {
    require_non_negative("traffic.rates_per_second[i]", r);
    peak = std::max(peak, r);
  }
  if (!(peak > 0.0)) fail("traffic.rates_per_second", peak, "needs a rate > 0");
  require_positive("traffic.step", t.step.count());

  ::headroom::detail::require_unit_positive("fleet.target_utilization", p.fleet.target_utilization);
  if (p.fleet.scale_down_window_steps < 1)
    fail("fleet.scale_down_window_steps", p.fleet.scale_down_window_steps, "must be >= 1");
  if (p.fleet.policy.kind == sim::fleet_policy_kind::fixed && p.fleet.policy.fixed_replicas < 0)
    fail("fleet.policy.fixed_replicas", p.fleet.policy.fixed_replicas, "must be >= 0");
  if (p.fleet.policy.spare_replicas < 0)
    fail("fleet.policy.spare_replicas", p.fleet.policy.spare_replicas, "must be >= 0");
  if (!(p.fleet.policy.start_time.count() >= 0.0 &&
        ::headroom::detail::is_finite(p.fleet.policy.start_time.count())))
    fail("fleet.policy.start_time", p.fleet.policy.start_time, "must be finite and >= 0");

  const search_options& s = p.search;
  if (s.requests_per_run < 100)
    fail("search.requests_per_run", s.requests_per_run, "must be >= 100");
  if (s.max_runs_per_rate < 1)
    fail("search.max_runs_per_rate", s.max_runs_per_rate, "must be >= 1");
  if (s.max_measurements < 2) fail("search.max_measurements", s.max_measurements, "must be >= 2");
  require_positive("search.relative_tolerance", s.relative_tolerance);
  ::headroom::detail::require_unit("search.warm_up_fraction", s.warm_up_fraction);
  ::headroom::detail::require_unit("search.cool_down_fraction", s.cool_down_fraction);
  if (!(s.warm_up_fraction + s.cool_down_fraction < 1.0))
    fail("search.cool_down_fraction", s.cool_down_fraction,
         "warm-up and cool-down must leave part of the run");
  require_non_negative("search.arrival_cv", s.arrival_cv);
  require_positive("search.z", s.z);
  if (s.zero_load_requests < 1)
    fail("search.zero_load_requests", s.zero_load_requests, "must be >= 1");
  if (s.length_draws < 1) fail("search.length_draws", s.length_draws, "must be >= 1");
}

// ============================================================================================
// Evaluating one configuration
// ============================================================================================

namespace detail {

/// The nearest-rank q-quantile of values (sorted in place): the smallest v with at least
/// q·n values <= v. Empty: NaN.
[[nodiscard]] inline double nearest_rank_quantile(std::vector<double>& values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const std::size_t i =
      rank < 1.0 ? 0 : std::min(values.size() - 1, static_cast<std::size_t>(rank) - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values.end());
  return values[i];
}

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
/// `lengths` is the sample_lengths of the problem (seed search.seed).
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] row evaluate(const problem& p, const configuration& c, const L& sampler,
                           const length_statistics& lengths) {
  row r;
  r.config = c;
  r.key = key(p.axes, c);
  const accelerator_option& gpu = p.axes.accelerators.at(c.accelerator);
  const auto budget = replica_kv_budget(p.model, gpu, c.tensor_parallel, p.axes.memory_fraction);
  r.capacity_high_per_second = std::numeric_limits<double>::infinity();
  if (!budget) {
    r.status = feasibility::weights_do_not_fit;
    return r;
  }
  r.kv_budget_tokens = *budget;
  const sim::replica_config replica = replica_configuration(c, *budget);
  const tensor_parallel_step_time model = make_step_time(p.model, gpu, c.tensor_parallel);
  const slo bounds = to_slo(p.target);
  const double q = p.target.quota;
  const std::uint64_t seed = configuration_seed(p.search.seed, r.key);

  // 2. Zero load: each request alone on an idle replica.
  {
    std::mt19937_64 engine(seed);
    L draw = sampler;
    std::size_t met = 0, rejected = 0;
    for (std::size_t i = 0; i < p.search.zero_load_requests; ++i) {
      const sim::request_lengths l = draw(engine);
      const sim::request one[1] = {
          {std::chrono::duration<double>(0.0), l.prompt_tokens, l.output_tokens}};
      const auto run = sim::simulate(replica, std::span<const sim::request>(one), model);
      if (run.status[0] == sim::request_status::rejected) ++rejected;
      if (meets_slo(bounds, run.outcomes[0])) ++met;
    }
    const double n = static_cast<double>(p.search.zero_load_requests);
    r.zero_load_conformance = static_cast<double>(met) / n;
    r.zero_load_rejected = static_cast<double>(rejected) / n;
    if (r.zero_load_rejected > 1.0 - q) {
      r.status = feasibility::requests_do_not_fit;
      return r;
    }
    if (r.zero_load_conformance < q) {
      r.status = feasibility::slo_unmet_at_zero_load;
      return r;
    }
  }

  // 3. μ* with its interval.
  sim::sweep_options sweep;
  sweep.requests_per_point = p.search.requests_per_run;
  sweep.arrival_cv = p.search.arrival_cv;
  sweep.warm_up_fraction = p.search.warm_up_fraction;
  sweep.cool_down_fraction = p.search.cool_down_fraction;
  sweep.z = p.search.z;
  auto measure = [&](capacity_probe probe) {
    sim::sweep_options one = sweep;
    one.seed = sim::replication_seed(seed, probe.run + 1);
    const double rate[1] = {probe.rate_per_second};
    return sim::sweep_capacity(replica, model, std::span<const double>(rate), sampler, bounds, one)
        .curve[0]
        .conformance;
  };
  capacity_search_options bracket;
  bracket.quota = q;
  bracket.rate_high_per_s = starting_rate(model, replica, lengths);
  bracket.rate_low_per_s = 0.5 * bracket.rate_high_per_s;
  bracket.relative_tolerance = p.search.relative_tolerance;
  bracket.max_measurements = p.search.max_measurements;
  bracket.max_runs_per_rate = p.search.max_runs_per_rate;
  const capacity_search_result found = search_capacity(measure, bracket);
  r.stop = found.reason;
  r.runs = found.runs;
  r.requests = found.requests;
  r.confidence = found.confidence;
  r.capacity_high_per_second = found.bracket_high_per_s;
  if (!found.capacity_per_s) {
    r.status = feasibility::slo_unmet_at_any_rate;
    return r;
  }
  const double mu = *found.capacity_per_s;
  r.capacity_per_second = mu;

  // 4. The operating point.
  const double rho = p.fleet.target_utilization;
  r.operating_rate_per_second = rho * mu;
  {
    std::mt19937_64 engine(sim::replication_seed(seed, 0));
    const auto schedule =
        open_loop_schedule(gamma_gaps(r.operating_rate_per_second, p.search.arrival_cv),
                           p.search.requests_per_run, engine);
    L draw = sampler;
    const auto requests = sim::make_requests(schedule, draw, engine);
    const auto run = sim::simulate(replica, std::span<const sim::request>(requests), model);
    const double span_s = schedule.back().count();
    const double begin_s = p.search.warm_up_fraction * span_s;
    const double end_s = span_s - p.search.cool_down_fraction * span_s;
    std::vector<double> ttft, tpot, e2e;
    for (const auto& o : run.outcomes) {
      const double t = o.intended_arrival.count();
      if (!(t >= begin_s && t <= end_s)) continue;
      const double inf = std::numeric_limits<double>::infinity();
      ttft.push_back(o.error ? inf : time_to_first_token(o).count());
      tpot.push_back(o.error                                     ? inf
                     : bounds.tpot_kind == tpot_definition::vllm ? tpot_vllm(o).count()
                                                                 : tpot_guidellm(o).count());
      e2e.push_back(o.error ? inf : end_to_end_latency(o).count());
    }
    r.ttft_quantile = std::chrono::duration<double>(detail::nearest_rank_quantile(ttft, q));
    r.tpot_quantile = std::chrono::duration<double>(detail::nearest_rank_quantile(tpot, q));
    r.e2e_quantile = std::chrono::duration<double>(detail::nearest_rank_quantile(e2e, q));
    double margin = std::numeric_limits<double>::infinity();
    if (p.target.ttft) margin = std::min(margin, 1.0 - r.ttft_quantile / *p.target.ttft);
    if (p.target.tpot) margin = std::min(margin, 1.0 - r.tpot_quantile / *p.target.tpot);
    if (p.target.e2e) margin = std::min(margin, 1.0 - r.e2e_quantile / *p.target.e2e);
    r.latency_margin = margin;
    const auto u =
        sim::utilisation_of(run.stats, model.roofline, replica_spec(gpu.spec, c.tensor_parallel));
    r.mfu = u.mfu;
    r.mbu = u.mbu;
  }

  // 5. The day.
  const double peak =
      *std::max_element(p.traffic.rates_per_second.begin(), p.traffic.rates_per_second.end());
  r.replicas_for_peak = replicas_needed(peak, rho, mu);
  sim::fleet_day_config day;
  day.capacity_per_replica = mu;
  day.target_utilisation = rho;
  day.step = p.traffic.step;
  day.scale_down_window_steps = p.fleet.scale_down_window_steps;
  day.price_per_replica_hour = gpu.price_per_gpu_hour * static_cast<double>(c.tensor_parallel);
  day.tokens_per_request = lengths.mean_output_tokens;
  sim::fleet_day_simulator simulator(day);
  const auto summary = simulator.run(p.traffic.rates_per_second, p.fleet.policy);
  r.peak_paid = summary.peak_paid;
  r.replica_hours = summary.replica_hours;
  r.gpu_hours = summary.replica_hours * static_cast<double>(c.tensor_parallel);
  r.cost = summary.cost;
  r.cost_per_million_tokens =
      summary.cost_per_million_tokens.value_or(std::numeric_limits<double>::infinity());
  r.over_share = summary.over_share;
  r.mean_use = summary.mean_use;
  return r;
}

// ============================================================================================
// The grid, in parallel
// ============================================================================================

/// Evaluates the configurations of `run.part` (all by default) on run.threads threads and
/// returns their rows in canonical order. Each configuration depends only on its key, so
/// the rows are bit-identical for any thread count and any sharding. Validates the problem
/// first (throws invalid_argument); an error raised by the sampler inside a worker is
/// rethrown here once every worker has stopped.
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] std::vector<row> evaluate_grid(const problem& p, const L& sampler,
                                             const execution& run = {}) {
  validate(p);
  if (run.part.count < 1)
    ::headroom::detail::fail("run.part.count", run.part.count, "must be >= 1");
  if (run.part.index < 1 || run.part.index > run.part.count)
    ::headroom::detail::fail("run.part.index", run.part.index, "must lie in [1, run.part.count]");
  const length_statistics lengths = sample_lengths(sampler, p.search.length_draws, p.search.seed);
  std::vector<configuration> mine;
  for (const auto& c : enumerate(p.axes))
    if (c.index % run.part.count == run.part.index - 1) mine.push_back(c);
  std::vector<row> rows(mine.size());
  std::size_t threads = run.threads;
  if (threads == 0) threads = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, std::max<std::size_t>(1, mine.size()));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  std::exception_ptr error;  // the first, written by one worker only (guarded by `failed`)
#endif
  auto work = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= mine.size()) return;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
      try {
        rows[i] = evaluate(p, mine[i], sampler, lengths);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
        return;
      }
#else
      rows[i] = evaluate(p, mine[i], sampler, lengths);
#endif
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (error) std::rethrow_exception(error);
#endif
  return rows;
}

// ============================================================================================
// Deciding: the frontiers, the winner, and why each other configuration lost
// ============================================================================================

/// Why a configuration won or lost.
enum class verdict : std::uint8_t {
  winner,      ///< the cheapest per million tokens among those that meet the SLO
  frontier,    ///< not dominated: more latency margin than every cheaper configuration
  dominated,   ///< another costs no more and has no less margin (dominated_by names it)
  infeasible,  ///< cannot serve the SLO (row::status says why)
};

/// The text of a verdict.
[[nodiscard]] constexpr std::string_view to_string(verdict v) noexcept {
  switch (v) {
    case verdict::winner:
      return "winner";
    case verdict::frontier:
      return "frontier";
    case verdict::dominated:
      return "dominated";
    case verdict::infeasible:
      break;
  }
  return "infeasible";
}

/// The outcome of a grid: per row (same order as the rows given) its verdict and the row
/// that dominates it, and the two frontiers as row positions sorted by cost.
struct decision {
  std::vector<verdict> verdicts;                         ///< one per row
  std::vector<std::optional<std::size_t>> dominated_by;  ///< the cheapest frontier row that
                                                         ///< dominates it (cost vs margin)
  std::vector<std::size_t> margin_frontier;    ///< cost per Mtok vs latency margin, by cost
  std::vector<std::size_t> replicas_frontier;  ///< cost per Mtok vs replicas at the peak
  std::optional<std::size_t> winner;           ///< empty when no configuration is feasible
  /// Rows per feasibility (index: the enum's value).
  std::size_t counts[5] = {0, 0, 0, 0, 0};
};

namespace detail {
// a dominates b (both minimise cost, a maximises `better`): a is no worse on both and
// strictly better on one.
[[nodiscard]] inline bool dominates(double cost_a, double better_a, double cost_b,
                                    double better_b) noexcept {
  return cost_a <= cost_b && better_a >= better_b && (cost_a < cost_b || better_a > better_b);
}
// Positions of the feasible rows not dominated on (cost, value), sorted by cost, then by
// value (descending), then by position.
template <class Value>
[[nodiscard]] std::vector<std::size_t> frontier_of(std::span<const row> rows,
                                                   const std::vector<std::size_t>& feasible,
                                                   Value value) {
  std::vector<std::size_t> front;
  for (const std::size_t b : feasible) {
    bool beaten = false;
    for (const std::size_t a : feasible)
      if (a != b && dominates(rows[a].cost_per_million_tokens, value(rows[a]),
                              rows[b].cost_per_million_tokens, value(rows[b]))) {
        beaten = true;
        break;
      }
    if (!beaten) front.push_back(b);
  }
  std::sort(front.begin(), front.end(), [&](std::size_t x, std::size_t y) {
    if (rows[x].cost_per_million_tokens != rows[y].cost_per_million_tokens)
      return rows[x].cost_per_million_tokens < rows[y].cost_per_million_tokens;
    if (value(rows[x]) != value(rows[y])) return value(rows[x]) > value(rows[y]);
    return x < y;
  });
  return front;
}
}  // namespace detail

/// Decides a grid's rows (any subset, e.g. merged shards): the feasible ones are compared
/// by cost per million tokens (lower is better) against latency margin (higher) and against
/// replicas at the peak (fewer). The winner is the cheapest, ties broken by more margin,
/// then fewer replicas at the peak, then the lower configuration index; it is on both
/// frontiers' cheap end. Pure: the same rows give the same decision.
[[nodiscard]] inline decision decide(std::span<const row> rows) {
  decision d;
  d.verdicts.assign(rows.size(), verdict::infeasible);
  d.dominated_by.assign(rows.size(), std::nullopt);
  std::vector<std::size_t> feasible;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ++d.counts[static_cast<std::size_t>(rows[i].status)];
    if (rows[i].status == feasibility::feasible) feasible.push_back(i);
  }
  const auto margin = [](const row& r) { return r.latency_margin; };
  const auto fewer_replicas = [](const row& r) {
    return -static_cast<double>(r.replicas_for_peak);
  };
  d.margin_frontier = detail::frontier_of(rows, feasible, margin);
  d.replicas_frontier = detail::frontier_of(rows, feasible, fewer_replicas);
  for (const std::size_t i : feasible) {
    d.verdicts[i] = verdict::dominated;
    for (const std::size_t f : d.margin_frontier)  // by cost: the first is the cheapest
      if (detail::dominates(rows[f].cost_per_million_tokens, rows[f].latency_margin,
                            rows[i].cost_per_million_tokens, rows[i].latency_margin)) {
        d.dominated_by[i] = f;
        break;
      }
  }
  for (const std::size_t f : d.margin_frontier) d.verdicts[f] = verdict::frontier;
  for (const std::size_t i : feasible) {
    if (!d.winner) {
      d.winner = i;
      continue;
    }
    const row& a = rows[i];
    const row& w = rows[*d.winner];
    const auto rank = [](const row& r) {
      return std::make_tuple(r.cost_per_million_tokens, -r.latency_margin, r.replicas_for_peak,
                             r.config.index);
    };
    if (rank(a) < rank(w)) d.winner = i;
  }
  if (d.winner) d.verdicts[*d.winner] = verdict::winner;
  return d;
}

/// One planned grid: its rows (canonical order) and their decision.
struct plan_result {
  length_statistics lengths{};  ///< the mix's statistics the rows used
  std::vector<row> rows;        ///< every configuration evaluated
  decision outcome;             ///< frontiers, winner, verdicts
};

/// evaluate_grid, then decide.
template <class L>
requires sim::LengthSampler<L, std::mt19937_64> && std::copy_constructible<L>
[[nodiscard]] plan_result search(const problem& p, const L& sampler, const execution& run = {}) {
  plan_result r;
  r.rows = evaluate_grid(p, sampler, run);
  r.lengths = sample_lengths(sampler, p.search.length_draws, p.search.seed);
  r.outcome = decide(r.rows);
  return r;
}

// ============================================================================================
// Shards: CSV out, CSV in, merge
// ============================================================================================

namespace detail {
inline void append_number(std::string& out, double v) {
  if (v != v) {
    out += "nan";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}
inline void append_number(std::string& out, std::uint64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}
inline void append_number(std::string& out, std::int64_t v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}
inline void hash_text(std::uint64_t& h, std::string_view text) noexcept {
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // a separator, so "ab","c" and "a","bc" differ
  h *= 0x100000001b3ULL;
}
inline void hash_number(std::uint64_t& h, double v) {
  std::string s;
  append_number(s, v);
  hash_text(h, s);
}
}  // namespace detail

/// A 64-bit FNV-1a fingerprint of everything that decides a problem's rows: the library
/// version, every field of the problem (each number in shortest round-trip form, every
/// traffic rate) and the length statistics (which stand in for the sampler). Shards of one
/// grid share it; a merge refuses rows whose fingerprints differ.
[[nodiscard]] inline std::uint64_t fingerprint(const problem& p, const length_statistics& l) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  using detail::hash_number;
  using detail::hash_text;
  hash_text(h, version_string);
  hash_text(h, p.name);
  const model_shape& m = p.model;
  hash_text(h, m.name);
  for (const double v :
       {m.parameters, static_cast<double>(m.layers), static_cast<double>(m.hidden_size),
        m.kv_bytes_per_token, m.bytes_per_parameter, m.activation_bytes})
    hash_number(h, v);
  for (const auto& a : p.axes.accelerators) {
    hash_text(h, a.spec.name);
    for (const double v :
         {a.spec.peak_flops_per_second, a.spec.peak_bytes_per_second, a.spec.memory_bytes,
          a.price_per_gpu_hour, a.flops_efficiency, a.bandwidth_efficiency, a.step_overhead.count(),
          a.interconnect_bytes_per_second, a.all_reduce_latency.count()})
      hash_number(h, v);
  }
  for (const auto v : p.axes.tensor_parallel) hash_number(h, static_cast<double>(v));
  hash_text(h, "b");
  for (const auto v : p.axes.max_batch) hash_number(h, static_cast<double>(v));
  hash_text(h, "t");
  for (const auto v : p.axes.max_batched_tokens) hash_number(h, static_cast<double>(v));
  for (const auto v : p.axes.prefill) hash_text(h, to_string(v));
  for (const auto v : p.axes.kv) hash_text(h, to_string(v));
  hash_number(h, p.axes.memory_fraction);
  const objective& o = p.target;
  for (const auto& bound : {o.ttft, o.tpot, o.e2e}) hash_number(h, bound ? bound->count() : -1.0);
  hash_text(h, o.tpot_kind == tpot_definition::vllm ? "vllm" : "guidellm");
  hash_number(h, o.quota);
  for (const double r : p.traffic.rates_per_second) hash_number(h, r);
  hash_number(h, p.traffic.step.count());
  hash_text(h, p.traffic.lengths_description);
  const fleet_options& f = p.fleet;
  for (const double v :
       {static_cast<double>(f.policy.kind), static_cast<double>(f.policy.fixed_replicas),
        f.policy.start_time.count(), static_cast<double>(f.policy.spare_replicas),
        f.policy.look_ahead ? 1.0 : 0.0, f.target_utilization,
        static_cast<double>(f.scale_down_window_steps)})
    hash_number(h, v);
  const search_options& s = p.search;
  for (const double v :
       {static_cast<double>(s.requests_per_run), static_cast<double>(s.max_runs_per_rate),
        static_cast<double>(s.max_measurements), s.relative_tolerance, s.warm_up_fraction,
        s.cool_down_fraction, s.arrival_cv, s.z, static_cast<double>(s.zero_load_requests),
        static_cast<double>(s.length_draws), static_cast<double>(s.seed >> 32),
        static_cast<double>(s.seed & 0xffffffffu)})
    hash_number(h, v);
  for (const double v : {l.mean_prompt_tokens, l.mean_output_tokens,
                         static_cast<double>(l.longest_sequence), static_cast<double>(l.draws)})
    hash_number(h, v);
  return h;
}

/// The column names of a row in CSV, in order.
inline constexpr std::string_view row_columns =
    "index,key,accelerator,tensor_parallel,max_batch,max_batched_tokens,prefill,kv,status,"
    "kv_budget_tokens,zero_load_conformance,zero_load_rejected,capacity_per_second,"
    "capacity_high_per_second,confidence,search_stop,runs,requests,operating_rate_per_second,"
    "ttft_quantile_seconds,tpot_quantile_seconds,e2e_quantile_seconds,latency_margin,mfu,mbu,"
    "replicas_for_peak,peak_paid,replica_hours,gpu_hours,cost,cost_per_million_tokens,"
    "over_share,mean_use";
/// The columns a decided CSV appends.
inline constexpr std::string_view decision_columns = "verdict,dominated_by,replicas_frontier";

/// The first line of a CSV block: `# headroom <version> plan <name> model <model>
/// fingerprint <16 hex digits> configurations <N> shard <k>/<n>`.
[[nodiscard]] inline std::string csv_header(const problem& p, const length_statistics& l,
                                            std::size_t configurations, shard part) {
  std::string out = "# headroom ";
  out += version_string;
  out += " plan " + p.name + " model " + p.model.name + " fingerprint ";
  char hex[17];
  const std::uint64_t f = fingerprint(p, l);
  for (int i = 0; i < 16; ++i) hex[i] = "0123456789abcdef"[(f >> (60 - 4 * i)) & 0xf];
  hex[16] = '\0';
  out += hex;
  out += " configurations " + std::to_string(configurations) + " shard " +
         std::to_string(part.index) + "/" + std::to_string(part.count) + "\n";
  return out;
}

/// Writes a CSV block: the header line, the column names, one line per row; with a
/// decision (of exactly these rows), the verdict columns too. Numbers in shortest
/// round-trip form, so read_csv gives back the same doubles.
[[nodiscard]] inline std::string write_csv(const problem& p, const length_statistics& l, shard part,
                                           std::span<const row> rows,
                                           const decision* decided = nullptr) {
  if (decided && decided->verdicts.size() != rows.size())
    ::headroom::detail::fail("decided->verdicts.size()", decided->verdicts.size(),
                             "must equal rows.size()");
  const std::size_t total = p.axes.accelerators.size() * p.axes.tensor_parallel.size() *
                            p.axes.max_batch.size() * p.axes.max_batched_tokens.size() *
                            p.axes.prefill.size() * p.axes.kv.size();
  std::string out = csv_header(p, l, total, part);
  out += row_columns;
  if (decided) {
    out += ',';
    out += decision_columns;
  }
  out += '\n';
  using detail::append_number;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    const auto u = [&](std::uint64_t v) {
      append_number(out, v);
      out += ',';
    };
    const auto s = [&](std::int64_t v) {
      append_number(out, v);
      out += ',';
    };
    const auto d = [&](double v) {
      append_number(out, v);
      out += ',';
    };
    const auto t = [&](std::string_view v) {
      out += v;
      out += ',';
    };
    u(r.config.index);
    t(r.key);
    t(p.axes.accelerators.at(r.config.accelerator).spec.name);
    s(r.config.tensor_parallel);
    u(r.config.max_batch);
    u(r.config.max_batched_tokens);
    t(to_string(r.config.prefill));
    t(to_string(r.config.kv));
    t(to_string(r.status));
    u(r.kv_budget_tokens);
    d(r.zero_load_conformance);
    d(r.zero_load_rejected);
    d(r.capacity_per_second);
    d(r.capacity_high_per_second);
    d(r.confidence);
    t(to_string(r.stop));
    u(r.runs);
    u(r.requests);
    d(r.operating_rate_per_second);
    d(r.ttft_quantile.count());
    d(r.tpot_quantile.count());
    d(r.e2e_quantile.count());
    d(r.latency_margin);
    d(r.mfu);
    d(r.mbu);
    s(r.replicas_for_peak);
    s(r.peak_paid);
    d(r.replica_hours);
    d(r.gpu_hours);
    d(r.cost);
    d(r.cost_per_million_tokens);
    d(r.over_share);
    d(r.mean_use);
    if (decided) {
      t(to_string(decided->verdicts[i]));
      if (decided->dominated_by[i]) out += rows[*decided->dominated_by[i]].key;
      out += ',';
      const bool on =
          std::find(decided->replicas_frontier.begin(), decided->replicas_frontier.end(), i) !=
          decided->replicas_frontier.end();
      out += on ? "true," : "false,";
    }
    out.back() = '\n';
  }
  return out;
}

/// One block read back: its header fields and its rows. configuration::accelerator is the
/// position of the accelerator's name among the block's names in order of first
/// appearance (the grid itself is not in the file; keys name it).
struct csv_block {
  std::string version;                    ///< library version that wrote it
  std::string plan_name;                  ///< problem::name
  std::string model_name;                 ///< model_shape::name
  std::uint64_t fingerprint = 0;          ///< fingerprint(problem, lengths)
  std::size_t configurations = 0;         ///< configurations in the whole grid
  shard part{};                           ///< which shard this block holds
  std::vector<std::string> accelerators;  ///< accelerator names seen, in order
  std::vector<row> rows;                  ///< the rows, in file order
};

/// The outcome of reading CSV text: the blocks, or the first bad line and why.
struct csv_read_result {
  std::vector<csv_block> blocks;  ///< every block, in file order
  std::size_t error_line = 0;     ///< 1-based line of the first error; 0 when ok
  std::string error;              ///< what is wrong there; empty when ok
  /// true when the whole text was read without error.
  [[nodiscard]] bool ok() const noexcept { return error_line == 0 && error.empty(); }
};

namespace detail {
[[nodiscard]] inline std::vector<std::string_view> split(std::string_view line, char by) {
  std::vector<std::string_view> fields;
  for (;;) {
    const std::size_t at = line.find(by);
    fields.push_back(line.substr(0, at));
    if (at == std::string_view::npos) return fields;
    line.remove_prefix(at + 1);
  }
}
[[nodiscard]] inline bool parse_double(std::string_view s, double& v) {
  const auto [ptr, ec] = ::headroom::detail::from_chars_double(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && ptr == s.data() + s.size();
}
template <class I>
[[nodiscard]] bool parse_integer(std::string_view s, I& v) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && ptr == s.data() + s.size();
}
}  // namespace detail

/// Reads blocks written by write_csv (several may follow each other, e.g. one per model or
/// concatenated shards). Lines may end in "\r\n"; blank lines are skipped. Verdict columns,
/// when present, are ignored (merge and decide recompute them). Never throws for bad text:
/// the error names the line.
[[nodiscard]] inline csv_read_result read_csv(std::string_view text) {
  csv_read_result result;
  auto fail_at = [&result](std::size_t line, std::string why) {
    result.blocks.clear();
    result.error_line = line;
    result.error = std::move(why);
    return result;
  };
  std::size_t number = 0;
  bool expect_columns = false;
  std::size_t columns = 0;
  const std::size_t row_fields = detail::split(row_columns, ',').size();
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      const auto w = detail::split(line, ' ');
      if (w.size() != 13 || w[0] != "#" || w[1] != "headroom" || w[3] != "plan" ||
          w[5] != "model" || w[7] != "fingerprint" || w[9] != "configurations" || w[11] != "shard")
        return fail_at(number, "not a headroom plan header");
      csv_block b;
      b.version = std::string(w[2]);
      b.plan_name = std::string(w[4]);
      b.model_name = std::string(w[6]);
      if (w[8].size() != 16) return fail_at(number, "the fingerprint needs 16 hex digits");
      for (const char c : w[8]) {
        const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) return fail_at(number, "the fingerprint needs 16 hex digits");
        b.fingerprint = b.fingerprint << 4 | static_cast<std::uint64_t>(v);
      }
      if (!detail::parse_integer(w[10], b.configurations))
        return fail_at(number, "bad configuration count '" + std::string(w[10]) + "'");
      const auto part = parse_shard(w[12]);
      if (!part) return fail_at(number, "bad shard '" + std::string(w[12]) + "'");
      b.part = *part;
      result.blocks.push_back(std::move(b));
      expect_columns = true;
      continue;
    }
    if (result.blocks.empty()) return fail_at(number, "a row before any '# headroom' header");
    if (expect_columns) {
      const std::string with_decision =
          std::string(row_columns) + "," + std::string(decision_columns);
      if (line == row_columns) {
        columns = row_fields;
      } else if (line == with_decision) {
        columns = row_fields + 3;
      } else {
        return fail_at(number, "unexpected column names");
      }
      expect_columns = false;
      continue;
    }
    const auto f = detail::split(line, ',');
    if (f.size() != columns)
      return fail_at(number, "expected " + std::to_string(columns) + " fields, found " +
                                 std::to_string(f.size()));
    csv_block& b = result.blocks.back();
    row r;
    std::size_t at = 0;
    bool good = true;
    const auto u = [&](std::size_t& v) { good = good && detail::parse_integer(f[at++], v); };
    const auto d = [&](double& v) { good = good && detail::parse_double(f[at++], v); };
    u(r.config.index);
    r.key = std::string(f[at++]);
    const std::string_view accelerator = f[at++];
    const auto found = std::find(b.accelerators.begin(), b.accelerators.end(), accelerator);
    r.config.accelerator = static_cast<std::size_t>(found - b.accelerators.begin());
    if (found == b.accelerators.end()) b.accelerators.emplace_back(accelerator);
    good = good && detail::parse_integer(f[at++], r.config.tensor_parallel);
    u(r.config.max_batch);
    u(r.config.max_batched_tokens);
    const std::string_view prefill = f[at++];
    if (prefill == "chunked")
      r.config.prefill = sim::prefill_mode::chunked;
    else if (prefill == "whole")
      r.config.prefill = sim::prefill_mode::whole;
    else
      good = false;
    const std::string_view kv = f[at++];
    if (kv == "reserve_full")
      r.config.kv = sim::kv_policy::reserve_full;
    else if (kv == "preempt_youngest")
      r.config.kv = sim::kv_policy::preempt_youngest;
    else
      good = false;
    const std::string_view status = f[at++];
    bool known = false;
    for (const feasibility s :
         {feasibility::feasible, feasibility::weights_do_not_fit, feasibility::requests_do_not_fit,
          feasibility::slo_unmet_at_zero_load, feasibility::slo_unmet_at_any_rate})
      if (status == to_string(s)) r.status = s, known = true;
    good = good && known;
    u(r.kv_budget_tokens);
    d(r.zero_load_conformance);
    d(r.zero_load_rejected);
    d(r.capacity_per_second);
    d(r.capacity_high_per_second);
    d(r.confidence);
    const std::string_view stop = f[at++];
    known = false;
    for (const search_stop s :
         {search_stop::converged, search_stop::undecided, search_stop::no_passing_rate,
          search_stop::never_saturated, search_stop::budget_exhausted})
      if (stop == to_string(s)) r.stop = s, known = true;
    good = good && known;
    u(r.runs);
    u(r.requests);
    d(r.operating_rate_per_second);
    double ttft_s = 0, tpot_s = 0, e2e_s = 0;
    d(ttft_s);
    d(tpot_s);
    d(e2e_s);
    r.ttft_quantile = std::chrono::duration<double>(ttft_s);
    r.tpot_quantile = std::chrono::duration<double>(tpot_s);
    r.e2e_quantile = std::chrono::duration<double>(e2e_s);
    d(r.latency_margin);
    d(r.mfu);
    d(r.mbu);
    good = good && detail::parse_integer(f[at++], r.replicas_for_peak);
    good = good && detail::parse_integer(f[at++], r.peak_paid);
    d(r.replica_hours);
    d(r.gpu_hours);
    d(r.cost);
    d(r.cost_per_million_tokens);
    d(r.over_share);
    d(r.mean_use);
    if (!good) return fail_at(number, "a field is malformed");
    b.rows.push_back(std::move(r));
  }
  if (expect_columns) return fail_at(number, "a header without column names");
  return result;
}

/// Merged shards of one grid: its identity and every row, in canonical order.
struct merged_grid {
  std::string plan_name;                  ///< problem::name
  std::string model_name;                 ///< model_shape::name
  std::uint64_t fingerprint = 0;          ///< shared by every shard
  std::size_t configurations = 0;         ///< rows, = the grid's configuration count
  std::vector<std::string> accelerators;  ///< names; configuration::accelerator indexes them
  std::vector<row> rows;                  ///< sorted by configuration index, one per configuration
};

/// The outcome of a merge: one merged grid per fingerprint (in order of first appearance),
/// or why the blocks do not make whole grids.
struct merge_result {
  std::vector<merged_grid> grids;  ///< complete grids
  std::string error;               ///< empty when ok
  /// true when every grid is complete.
  [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};

/// Merges blocks (shards, or whole runs) by fingerprint. Each grid must be complete: every
/// shard k of n exactly once, all written by the same version, and every configuration
/// index 0..N−1 present exactly once in the shard that owns it (index mod n = k − 1).
/// A domain outcome: a missing, duplicated or foreign shard is reported, never thrown.
[[nodiscard]] inline merge_result merge(std::span<const csv_block> blocks) {
  merge_result out;
  std::vector<std::vector<const csv_block*>> groups;
  for (const csv_block& b : blocks) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.front()->fingerprint == b.fingerprint; });
    if (it == groups.end())
      groups.push_back({&b});
    else
      it->push_back(&b);
  }
  for (const auto& g : groups) {
    const csv_block& first = *g.front();
    merged_grid m;
    m.plan_name = first.plan_name;
    m.model_name = first.model_name;
    m.fingerprint = first.fingerprint;
    m.configurations = first.configurations;
    const std::string name = "'" + first.plan_name + "' (model " + first.model_name + ")";
    std::vector<bool> seen_shard(first.part.count, false);
    std::vector<const row*> by_index(first.configurations, nullptr);
    for (const csv_block* b : g) {
      if (b->version != first.version || b->configurations != first.configurations ||
          b->part.count != first.part.count || b->plan_name != first.plan_name ||
          b->model_name != first.model_name) {
        out.error = "grid " + name + ": shards disagree on version, size or shard count";
        return out;
      }
      if (seen_shard[b->part.index - 1]) {
        out.error = "grid " + name + ": shard " + std::to_string(b->part.index) + "/" +
                    std::to_string(b->part.count) + " appears twice";
        return out;
      }
      seen_shard[b->part.index - 1] = true;
      for (const row& r : b->rows) {
        if (r.config.index >= first.configurations ||
            r.config.index % b->part.count != b->part.index - 1) {
          out.error = "grid " + name + ": configuration " + std::to_string(r.config.index) +
                      " does not belong in shard " + std::to_string(b->part.index) + "/" +
                      std::to_string(b->part.count);
          return out;
        }
        if (by_index[r.config.index]) {
          out.error = "grid " + name + ": configuration " + std::to_string(r.config.index) +
                      " appears twice";
          return out;
        }
        by_index[r.config.index] = &r;
      }
    }
    for (std::size_t k = 0; k < seen_shard.size(); ++k)
      if (!seen_shard[k]) {
        out.error = "grid " + name + ": shard " + std::to_string(k + 1) + "/" +
                    std::to_string(first.part.count) + " is missing";
        return out;
      }
    for (std::size_t i = 0; i < by_index.size(); ++i) {
      if (!by_index[i]) {
        out.error = "grid " + name + ": configuration " + std::to_string(i) + " is missing";
        return out;
      }
      row r = *by_index[i];
      const csv_block* owner = g[0];
      for (const csv_block* b : g)
        if (i % b->part.count == b->part.index - 1) owner = b;
      const std::string& accelerator = owner->accelerators[r.config.accelerator];
      const auto found = std::find(m.accelerators.begin(), m.accelerators.end(), accelerator);
      r.config.accelerator = static_cast<std::size_t>(found - m.accelerators.begin());
      if (found == m.accelerators.end()) m.accelerators.push_back(accelerator);
      m.rows.push_back(std::move(r));
    }
    out.grids.push_back(std::move(m));
  }
  return out;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

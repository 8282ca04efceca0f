// SPDX-License-Identifier: Apache-2.0
// Step-time models for the simulated replica: what one step processes (step_shape), the
// StepTimeModel concept, the roofline max(bytes / B_eff, FLOPs / P_eff) + overhead, and the
// constant and exponential steps behind the M/D/1 and M/M/1 checks. docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>

#include "../detail/checks.hpp"
#include "../detail/random.hpp"
#include "../roofline.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

/// What one step processes, handed to the step-time model.
struct step_shape {
  std::size_t batch = 0;           ///< sequences in the step (decoding + prefilling)
  std::size_t prefill_tokens = 0;  ///< prompt tokens processed in the step
  std::size_t decode_tokens = 0;   ///< decoding sequences, one token each
  std::size_t kv_tokens = 0;       ///< KV-cache tokens of the running sequences after the step
};

/// A step-time model: m(shape) returns the step's duration (finite, >= 0). May keep state
/// (an engine): it is called once per step, in step order.
template <class M>
concept StepTimeModel = requires(M& model, const step_shape& shape) {
  { model(shape) } -> std::convertible_to<std::chrono::duration<double>>;
};

/// The roofline step time: max(bytes / B_eff, FLOPs / P_eff) + overhead, with bytes =
/// M_w + kv_tokens·m_kv (weights read once per step, each sequence reads its cache) and
/// FLOPs = 2·N_p per token processed (prefill + decode). Attention FLOPs are left out. A
/// mixture of experts reads its dense part every step and, in each MoE layer, the experts the
/// step's tokens are routed to (experts_read: k for one token, all E for a large batch), and
/// does 2·N_active FLOPs a token. Build it with make_roofline_step_time, which checks every
/// field.
struct roofline_step_time {
  double parameters = 0.0;          ///< N_p, the parameters a token uses (a mixture's active ones)
  double weight_bytes = 0.0;        ///< M_w, bytes read every step (a mixture's dense part)
  double kv_bytes_per_token = 0.0;  ///< m_kv, bytes
  double flops_per_second = 0.0;    ///< P_eff, FLOP/s, > 0
  double bytes_per_second = 0.0;    ///< B_eff, bytes/s, > 0
  std::chrono::duration<double> overhead{};  ///< fixed cost of a step (scheduling, launch)
  /// The routed experts (all zero: a dense model), checked by make_roofline_step_time.
  roofline::mixture_of_experts moe{};
  double bytes_per_expert = 0.0;  ///< one routed expert's bytes over all MoE layers

  /// Bytes moved by a step of this shape.
  [[nodiscard]] HEADROOM_DECL double bytes(const step_shape& s) const noexcept;
  /// FLOPs of a step of this shape.
  [[nodiscard]] constexpr double flops(const step_shape& s) const noexcept {
    return 2.0 * parameters * static_cast<double>(s.prefill_tokens + s.decode_tokens);
  }
  /// The step time, seconds.
  [[nodiscard]] HEADROOM_DECL std::chrono::duration<double> operator()(
      const step_shape& s) const noexcept;
};

/// What make_roofline_step_time needs besides the accelerator: the model's size, the KV bytes
/// a token and the share of the peaks a step reaches (designated initializers only).
struct roofline_step_time_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double parameters = 0.0;                   ///< N_p, all of them (a mixture's experts too), > 0
  double bytes_per_parameter = 0.0;          ///< 2 for BF16, 1 for FP8, > 0
  double kv_bytes_per_token = 0.0;           ///< m_kv, bytes, >= 0
  double flops_efficiency = 0.0;             ///< share of the peak FLOP/s a step reaches, (0, 1]
  double bandwidth_efficiency = 0.0;         ///< share of the peak bandwidth, (0, 1]
  std::chrono::duration<double> overhead{};  ///< fixed cost of a step, >= 0
  roofline::mixture_of_experts moe{};        ///< the routed experts; all zero: a dense model
};

/// The roofline step time of a model on an accelerator: M_w = N_p × bytes per parameter
/// (roofline.hpp weight_bytes), P_eff = flops_efficiency × peak, B_eff likewise; for a
/// mixture of experts, N_active (active_parameters) a token and the experts' bytes per step as
/// they are routed. Throws invalid_argument naming the field (`in.moe` as
/// check_mixture_of_experts).
[[nodiscard]] HEADROOM_DECL roofline_step_time make_roofline_step_time(
    const roofline::accelerator_spec& spec, const roofline_step_time_inputs& in);

/// Every step takes the same time: with max_batch 1 and one output token, a deterministic
/// service time per request (the M/D/1 check).
struct constant_step_time {
  std::chrono::duration<double> step{};  ///< seconds per step, >= 0
  /// `step`, whatever the shape.
  [[nodiscard]] constexpr std::chrono::duration<double> operator()(
      const step_shape&) const noexcept {
    return step;
  }
};

/// Exponential step times of the given mean, drawn from its own seeded engine: with
/// max_batch 1 and one output token, an exponential service time per request (M/M/1).
class exponential_step_time {
 public:
  /// mean finite and > 0; seed of the internal std::mt19937_64.
  exponential_step_time(std::chrono::duration<double> mean, std::uint64_t seed)
      : mean_s_(detail::require_positive("mean", mean.count())), engine_(seed) {}
  /// One draw, mean·(−ln U).
  [[nodiscard]] std::chrono::duration<double> operator()(const step_shape&) noexcept {
    return std::chrono::duration<double>(mean_s_ * detail::standard_exponential(engine_));
  }
  /// Restarts the internal engine from `seed` (sweep_capacity does, per replication).
  void reseed(std::uint64_t seed) noexcept { engine_.seed(seed); }

 private:
  double mean_s_;
  std::mt19937_64 engine_;
};

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/step_time.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// What a simulated run gives back: each request's outcome (capacity.hpp's request_outcome,
// for measure_conformance) and status, the per-step trace, the run's totals, and the MFU and
// MBU of a run timed by the roofline model. docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../capacity.hpp"
#include "../detail/checks.hpp"
#include "../roofline.hpp"
#include "step_time.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

/// What became of a request by the end of the run.
enum class request_status : std::uint8_t {
  finished,     ///< generated all its tokens
  unfinished,   ///< arrived by the horizon but had not finished (queued or running)
  not_arrived,  ///< its arrival lies after the horizon
  rejected,     ///< prompt + output − 1 > kv_budget_tokens: it can never fit
};

/// One step of the trace, recorded at its peak (before finished sequences leave).
struct step_record {
  std::chrono::duration<double> start{};   ///< when the step began
  std::chrono::duration<double> length{};  ///< its duration
  std::uint32_t batch = 0;                 ///< sequences in the step
  std::uint32_t queue_length = 0;          ///< requests waiting for admission
  std::size_t prefill_tokens = 0;          ///< prompt tokens processed
  std::size_t decode_tokens = 0;           ///< decoding sequences
  std::size_t kv_tokens_used = 0;          ///< KV tokens written by the running sequences
  std::size_t kv_tokens_committed = 0;     ///< KV tokens counted against the budget
};

/// Totals of a run.
struct replica_stats {
  std::size_t finished = 0;                       ///< requests that finished
  std::size_t unfinished = 0;                     ///< arrived, not finished at the horizon
  std::size_t not_arrived = 0;                    ///< arrivals after the horizon
  std::size_t rejected = 0;                       ///< too large for the KV budget
  std::uint64_t steps = 0;                        ///< steps the replica ran
  std::uint64_t preemptions = 0;                  ///< sequences preempted (kv_policy)
  std::uint64_t prefill_tokens = 0;               ///< prompt tokens processed (recompute too)
  std::uint64_t decode_tokens = 0;                ///< decode tokens generated
  double kv_token_steps = 0.0;                    ///< Σ over steps of kv_tokens
  std::size_t max_batch_seen = 0;                 ///< largest batch of a step
  std::size_t max_queue_seen = 0;                 ///< longest admission queue after admission
  std::chrono::duration<double> busy{};           ///< Σ step lengths
  std::chrono::duration<double> end{};            ///< when the last step ended
  std::chrono::duration<double> first_arrival{};  ///< earliest arrival (0 if none)
};

/// A run's outcomes. outcomes[i] and status[i] describe request i (open loop: input order;
/// closed loop: send order). Requests that did not finish have error = true; their times
/// that never happened (first token, finish) are NaN.
struct replica_result {
  std::vector<capacity::request_outcome> outcomes{};  ///< for capacity.hpp's measure_conformance
  std::vector<request_status> status{};               ///< what became of each request
  std::vector<step_record> trace{};                   ///< per step, when run_options::record_trace
  replica_stats stats{};                              ///< the run's totals
};

/// MFU and MBU of a run over [0, end], with the roofline model's bytes (roofline.hpp mfu, mbu).
struct utilization {
  double tokens_per_second = 0.0;  ///< (prefill + decode tokens) / end
  double busy_fraction = 0.0;      ///< busy / end
  double mfu = 0.0;                ///< 2·N_p·ν / P_peak (roofline.hpp mfu)
  double mbu = 0.0;                ///< mean (M_w + M_kv)/step / B_peak × busy fraction
};

/// MFU and MBU of a run whose steps the roofline model timed, against the spec's PEAK
/// figures (not the effective ones). All zero when the run had no step.
[[nodiscard]] HEADROOM_DECL utilization utilization_of(const replica_stats& stats,
                                                       const roofline_step_time& model,
                                                       const roofline::accelerator_spec& spec);

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/replica_result.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

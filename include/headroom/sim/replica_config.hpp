// SPDX-License-Identifier: Apache-2.0
// What a simulated replica is and how one run goes: batch and KV-cache sizes, the step's
// token budget, chunked or whole prefill, KV reservation or preemption (replica_config), the
// KV-cache budget that fits beside the weights, and the options of one run (run_options).
// docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "../detail/checks.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

/// How prompts are processed.
enum class prefill_mode {
  chunked,  ///< prompts are split to fill the step's token budget left after the decodes
  whole,    ///< a prompt is processed in one step (the first of a step may exceed the budget)
};

/// How the KV cache is shared.
enum class kv_policy {
  /// Admission reserves the whole sequence (prompt + output − 1 tokens): nothing is ever
  /// preempted, and fewer sequences run at once.
  reserve_full,
  /// Admission reserves the prompt and the next step's growth; when decode growth would
  /// overflow the budget the youngest running sequence is preempted (recompute: its KV is
  /// freed and it is queued first, to re-prefill its prompt and the tokens it generated).
  preempt_youngest,
};

/// One replica. max_batched_tokens >= max_batch (every decoding sequence takes one token).
struct replica_config {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  std::size_t max_batch = 256;            ///< sequences running at once, >= 1 (vLLM max_num_seqs)
  std::size_t kv_budget_tokens = 262144;  ///< KV-cache capacity in tokens, >= 1
  std::size_t max_batched_tokens = 8192;  ///< token budget of one step, >= max_batch
  prefill_mode prefill = prefill_mode::chunked;  ///< chunked or whole prefill
  kv_policy kv = kv_policy::reserve_full;        ///< KV reservation and preemption
};

/// Checks a configuration; throws invalid_argument naming the field.
HEADROOM_DECL void validate(const replica_config& config);

/// What kv_budget_tokens divides (designated initializers only).
struct kv_budget_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double memory_bytes = 0.0;        ///< the replica's accelerator memory, bytes, > 0
  double memory_fraction = 0.0;     ///< share of it for weights and KV cache, (0, 1]
  double weight_bytes = 0.0;        ///< M_w, bytes, >= 0
  double kv_bytes_per_token = 0.0;  ///< m_kv, bytes, > 0
};

/// KV-cache tokens that fit beside the weights: floor((memory·fraction − M_w) / m_kv). 80 GB
/// at 0.9, 16 GB of weights, 128 KiB/token: 427,246. Throws invalid_argument naming the field,
/// weight_bytes when the weights leave no room.
[[nodiscard]] HEADROOM_DECL std::size_t kv_budget_tokens(const kv_budget_inputs& in);

/// Options of one run.
struct run_options {
  /// Steps start only before the horizon (the last may end after it); arrivals after it
  /// never arrive. Default: run until every request has finished.
  std::optional<std::chrono::duration<double>> horizon{};
  bool record_trace = false;  ///< fill replica_result::trace
};

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/replica_config.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

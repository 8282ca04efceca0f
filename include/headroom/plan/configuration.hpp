// SPDX-License-Identifier: Apache-2.0
// Configurations of a grid: the canonical order, each one's key, and each one's random
// seed, drawn from its key so that it measures the same in any grid, shard or thread.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/bit_mix.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

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
[[nodiscard]] HEADROOM_DECL std::vector<configuration> enumerate(const grid& g);

/// The configuration's key, "<accelerator>/tp<N>/b<max batch>/t<tokens>/<prefill>/<kv>":
/// unique within a grid, and the same whatever else the grid holds.
[[nodiscard]] HEADROOM_DECL std::string key(const grid& g, const configuration& c);

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
  return headroom::detail::mix64(base ^ h);
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/configuration.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

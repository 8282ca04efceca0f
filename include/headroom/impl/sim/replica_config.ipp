// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/replica_config.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/replica_config.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace sim {

HEADROOM_DECL void validate(const replica_config& config) {
  if (config.max_batch == 0) detail::fail("config.max_batch", config.max_batch, "must be >= 1");
  if (config.kv_budget_tokens == 0)
    detail::fail("config.kv_budget_tokens", config.kv_budget_tokens, "must be >= 1");
  if (config.max_batched_tokens < config.max_batch)
    detail::fail("config.max_batched_tokens", config.max_batched_tokens,
                 "must be >= config.max_batch (each decoding sequence takes one token)");
  if (config.max_batch > std::numeric_limits<std::uint32_t>::max())
    detail::fail("config.max_batch", config.max_batch, "must fit in 32 bits");
}

HEADROOM_DECL std::size_t kv_budget_tokens(const kv_budget_inputs& in) {
  const double memory = detail::require_positive("memory_bytes", in.memory_bytes);
  const double fraction = detail::require_unit_positive("memory_fraction", in.memory_fraction);
  const double weights = detail::require_non_negative("weight_bytes", in.weight_bytes);
  const double per_token = detail::require_positive("kv_bytes_per_token", in.kv_bytes_per_token);
  const double tokens = std::floor((memory * fraction - weights) / per_token);
  if (!(tokens >= 1.0))
    detail::fail("weight_bytes", weights, "the weights leave no room for one KV-cache token");
  constexpr double most_tokens = 0x1p62;  // beyond any real cache; converts to a 64-bit size_t
  if (!(tokens <= most_tokens))
    detail::fail("kv_bytes_per_token", per_token, "gives more than 2^62 KV-cache tokens");
  return static_cast<std::size_t>(tokens);
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

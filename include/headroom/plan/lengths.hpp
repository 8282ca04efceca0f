// SPDX-License-Identifier: Apache-2.0
// The length mix's statistics (drawn once per problem) and where the capacity search
// starts for a configuration.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>

#include "../detail/checks.hpp"
#include "../sim/replica.hpp"
#include "replica_model.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

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
  if (draws == 0) ::headroom::detail::fail("draws", draws, "must be >= 1");
  std::mt19937_64 engine(seed);
  L sampler = lengths;
  double prompt = 0.0, output = 0.0;
  length_statistics s;
  for (std::size_t i = 0; i < draws; ++i) {
    const sim::request_lengths l = sampler(engine);
    if (l.prompt_tokens == 0)
      ::headroom::detail::fail("lengths().prompt_tokens", 0, "must be >= 1");
    if (l.output_tokens == 0)
      ::headroom::detail::fail("lengths().output_tokens", 0, "must be >= 1");
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
[[nodiscard]] HEADROOM_DECL double starting_rate(const tensor_parallel_step_time& model,
                                                 const sim::replica_config& config,
                                                 const length_statistics& lengths);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/lengths.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/sim/requests.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../sim/requests.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace sim {

HEADROOM_DECL lognormal_lengths::lognormal_lengths(const lognormal_lengths_options& o)
    : prompt_median_(detail::require_positive("prompt_median", o.prompt_median)),
      prompt_sigma_(detail::require_non_negative("prompt_sigma", o.prompt_sigma)),
      output_median_(detail::require_positive("output_median", o.output_median)),
      output_sigma_(detail::require_non_negative("output_sigma", o.output_sigma)),
      min_(o.min),
      max_(o.max) {
  if (min_.prompt_tokens == 0)
    detail::fail("min.prompt_tokens", min_.prompt_tokens, "must be >= 1");
  if (min_.output_tokens == 0)
    detail::fail("min.output_tokens", min_.output_tokens, "must be >= 1");
  if (max_.prompt_tokens < min_.prompt_tokens)
    detail::fail("max.prompt_tokens", max_.prompt_tokens, "must be >= min.prompt_tokens");
  if (max_.output_tokens < min_.output_tokens)
    detail::fail("max.output_tokens", max_.output_tokens, "must be >= min.output_tokens");
}

HEADROOM_DECL auto lognormal_lengths::draw(double median, double sigma, double z, std::size_t lo,
                                           std::size_t hi) noexcept -> std::size_t {
  const double x = std::round(median * std::exp(sigma * z));
  if (!(x >= static_cast<double>(lo))) return lo;
  if (!(x <= static_cast<double>(hi))) return hi;
  return static_cast<std::size_t>(x);
}

HEADROOM_DECL replayed_lengths::replayed_lengths(std::span<const request_lengths> list)
    : list_(list) {
  if (list.empty()) detail::fail("list.size()", 0, "needs at least one entry");
  for (const auto& l : list) {
    if (l.prompt_tokens == 0) detail::fail("list[i].prompt_tokens", 0, "must be >= 1");
    if (l.output_tokens == 0) detail::fail("list[i].output_tokens", 0, "must be >= 1");
  }
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

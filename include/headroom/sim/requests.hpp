// SPDX-License-Identifier: Apache-2.0
// The requests a simulated replica serves: their arrival and token counts, and samplers of
// prompt and output lengths (fixed, log-normal, replayed) that make_requests pairs with an
// arrival schedule from arrivals.hpp. docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "../detail/checks.hpp"
#include "../detail/random.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

/// One request offered to the replica: when it arrives (the schedule's intended time,
/// seconds from the run's start) and its token counts (prompt >= 1, output >= 1).
struct request {
  std::chrono::duration<double> arrival{};  ///< intended arrival, finite
  std::size_t prompt_tokens = 1;            ///< input tokens, >= 1
  std::size_t output_tokens = 1;            ///< tokens to generate, >= 1 (the first by prefill)
};

/// Prompt and output lengths of one request.
struct request_lengths {
  std::size_t prompt_tokens = 1;  ///< input tokens, >= 1
  std::size_t output_tokens = 1;  ///< generated tokens, >= 1
};

/// A source of request lengths: s(engine) returns the next request_lengths (may keep state).
template <class S, class G>
concept LengthSampler = std::uniform_random_bit_generator<std::remove_cvref_t<G>> &&
    requires(S& sampler, G& engine) {
  { sampler(engine) } -> std::convertible_to<request_lengths>;
};

/// The same lengths for every request. Draws nothing.
struct fixed_lengths {
  request_lengths lengths{};  ///< returned every time
  /// `lengths`, whatever the engine.
  template <class G>
  [[nodiscard]] constexpr request_lengths operator()(G&) const noexcept {
    return lengths;
  }
};

/// The parameters of lognormal_lengths (designated initializers only).
struct lognormal_lengths_options {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  double prompt_median = 0.0;         ///< tokens, > 0
  double prompt_sigma = 0.0;          ///< σ of the underlying normal, >= 0
  double output_median = 0.0;         ///< tokens, > 0
  double output_sigma = 0.0;          ///< σ of the underlying normal, >= 0
  request_lengths min{1, 1};          ///< the clip below, tokens, each >= 1
  request_lengths max{32768, 32768};  ///< the clip above, tokens, each >= min's
};

/// ShareGPT-like lengths (our stated parameters, not a fit): prompt median 200 tokens, σ 1.0;
/// output median 150, σ 0.9; clipped to [1, 32768].
inline constexpr lognormal_lengths_options sharegpt_like_lengths{
    .prompt_median = 200.0, .prompt_sigma = 1.0, .output_median = 150.0, .output_sigma = 0.9};

/// Independent log-normal prompt and output lengths, each round(median·e^{σZ}) clipped to
/// [min, max].
class lognormal_lengths {
 public:
  /// Throws invalid_argument naming the field.
  HEADROOM_DECL explicit lognormal_lengths(const lognormal_lengths_options& o);
  /// One draw: two standard normals from the engine (prompt first).
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] request_lengths operator()(G& engine) const noexcept(noexcept(engine())) {
    const double zp = detail::standard_normal(engine);
    const double zo = detail::standard_normal(engine);
    return {draw(prompt_median_, prompt_sigma_, zp, min_.prompt_tokens, max_.prompt_tokens),
            draw(output_median_, output_sigma_, zo, min_.output_tokens, max_.output_tokens)};
  }
  /// E[prompt] before clipping, median·e^{σ²/2} tokens.
  [[nodiscard]] double prompt_mean_unclipped() const noexcept {
    return prompt_median_ * std::exp(0.5 * prompt_sigma_ * prompt_sigma_);
  }
  /// E[output] before clipping, median·e^{σ²/2} tokens.
  [[nodiscard]] double output_mean_unclipped() const noexcept {
    return output_median_ * std::exp(0.5 * output_sigma_ * output_sigma_);
  }

 private:
  HEADROOM_DECL static std::size_t draw(double median, double sigma, double z, std::size_t lo,
                                        std::size_t hi) noexcept;
  double prompt_median_;
  double prompt_sigma_;
  double output_median_;
  double output_sigma_;
  request_lengths min_;
  request_lengths max_;
};

/// Replays a list of lengths in order, cycling. Holds a span: keep the list alive.
class replayed_lengths {
 public:
  /// list must not be empty; every entry needs prompt >= 1 and output >= 1.
  HEADROOM_DECL explicit replayed_lengths(std::span<const request_lengths> list);
  /// The next entry (the engine is not used).
  template <class G>
  [[nodiscard]] request_lengths operator()(G&) noexcept {
    const request_lengths l = list_[next_];
    next_ = next_ + 1 == list_.size() ? 0 : next_ + 1;
    return l;
  }

 private:
  std::span<const request_lengths> list_;
  std::size_t next_ = 0;
};

/// Requests at the schedule's times (sorted, as arrivals.hpp makes them) with lengths drawn
/// from the sampler in schedule order.
template <class L, std::uniform_random_bit_generator G>
requires LengthSampler<L, G>
[[nodiscard]] std::vector<request> make_requests(
    std::span<const std::chrono::duration<double>> schedule, L&& lengths, G& engine) {
  std::vector<request> requests;
  requests.reserve(schedule.size());
  for (const auto& t : schedule) {
    const request_lengths l = lengths(engine);
    requests.push_back({t, l.prompt_tokens, l.output_tokens});
  }
  return requests;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/sim/requests.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

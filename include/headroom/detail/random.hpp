// SPDX-License-Identifier: Apache-2.0
// Portable variates built from a uniform random bit generator's raw output.
//
// std::exponential_distribution, std::gamma_distribution and std::normal_distribution
// are not specified algorithmically, so libstdc++, libc++ and MSVC draw different
// numbers from the same engine. These helpers are: the uniform is built from the
// engine's bits with integer operations only, the exponential by inverse transform,
// the normal by Marsaglia's polar method and the gamma by Marsaglia and Tsang (2000).
// Given the same engine sequence the results are identical everywhere up to the
// platform's std::log / std::sqrt / std::pow (sqrt is exact under IEEE 754; log and pow
// are correctly rounded in glibc and within one ulp in the other mainstream libms).
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <random>

namespace headroom {
inline namespace v0 {
namespace detail {

/// Bits that one call of G delivers uniformly: floor(log2(max - min + 1)), at most 64.
template <std::uniform_random_bit_generator G>
inline constexpr int engine_bits = [] {
  const std::uint64_t span = static_cast<std::uint64_t>(G::max() - G::min());
  if (span == std::numeric_limits<std::uint64_t>::max()) return 64;
  return static_cast<int>(std::bit_width(span + 1)) - 1;
}();

/// One draw of exactly engine_bits<G> uniform bits (rejects the rare draws above the
/// largest power of two in the engine's range, so engines like minstd_rand stay exact).
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline std::uint64_t uniform_bits(G& engine) noexcept(noexcept(engine())) {
  constexpr int bits = engine_bits<G>;
  constexpr std::uint64_t mask = std::numeric_limits<std::uint64_t>::max() >> (64 - bits);
  for (;;) {
    const std::uint64_t value =
        static_cast<std::uint64_t>(engine()) - static_cast<std::uint64_t>(G::min());
    if (value <= mask) return value;
  }
}

/// A uniform double in the open interval (0, 1): 52 bits from the engine (high bits
/// first), mapped to (2k + 1)·2^-53, so the smallest value is 2^-53 and the largest
/// 1 − 2^-53. Exact integer arithmetic: identical on every platform.
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline double uniform_open01(G& engine) noexcept(noexcept(engine())) {
  constexpr int bits = engine_bits<G>;
  constexpr int wanted = 52;
  std::uint64_t accumulated = 0;
  int have = 0;
  while (have < wanted) {
    const int take = bits < wanted - have ? bits : wanted - have;
    const std::uint64_t draw = uniform_bits(engine);
    accumulated = (accumulated << take) | (draw >> (bits - take));
    have += take;
  }
  return static_cast<double>(2 * accumulated + 1) * 0x1p-53;
}

/// A standard exponential variate (mean 1) by inverse transform: −ln U.
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline double standard_exponential(G& engine) noexcept(noexcept(engine())) {
  return -std::log(uniform_open01(engine));
}

/// A standard normal variate by Marsaglia's polar method (the second variate is dropped,
/// so the helper holds no state).
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline double standard_normal(G& engine) noexcept(noexcept(engine())) {
  for (;;) {
    const double u = 2.0 * uniform_open01(engine) - 1.0;
    const double v = 2.0 * uniform_open01(engine) - 1.0;
    const double s = u * u + v * v;
    if (s < 1.0 && s > 0.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

/// A gamma variate of the given shape and unit scale (mean = shape, variance = shape):
/// Marsaglia & Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3),
/// 2000; shape < 1 by their boost Gamma(a) = Gamma(a + 1)·U^(1/a). Precondition: shape > 0.
template <std::uniform_random_bit_generator G>
[[nodiscard]] inline double standard_gamma(G& engine, double shape) noexcept(noexcept(engine())) {
  if (shape < 1.0) {
    const double boosted = standard_gamma(engine, shape + 1.0);
    return boosted * std::pow(uniform_open01(engine), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(engine);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = uniform_open01(engine);
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

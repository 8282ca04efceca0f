// SPDX-License-Identifier: Apache-2.0
// Student's t quantiles for the batch-means interval of capacity/conformance.hpp: ln Γ
// (Lanczos), the regularised incomplete beta function (continued fraction, Lentz), the t upper
// tail and the t quantile whose tail matches a normal quantile. docs/capacity.md.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cmath>
#include <limits>
#include <numbers>

namespace headroom {
inline namespace v0 {
namespace detail {

inline constexpr double cornish_fisher_min_df = 1e6;
/// Relative width at which the bisection for a t quantile stops, and its step limit.
inline constexpr double t_quantile_tolerance = 1e-14;
inline constexpr int t_quantile_max_steps = 200;
/// Lentz's method for the incomplete beta fraction: the floor that keeps a denominator
/// from 0, the step change that counts as converged, and the step limit.
inline constexpr double lentz_floor = 1e-300;
inline constexpr double lentz_tolerance = 1e-15;
inline constexpr int lentz_max_steps = 400;

/// ln Γ(x) for x >= 0.5: Lanczos' approximation with g = 7 and nine coefficients
/// (Lanczos, SIAM J. Numer. Anal. B 1 (1964); the coefficient set of Godfrey), relative
/// error below 1e-13 on that range.
[[nodiscard]] inline double log_gamma(double x) noexcept {
  constexpr double c[9] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                           771.32342877765313,   -176.61502916214059,   12.507343278686905,
                           -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  const double y = x - 1.0;
  double a = c[0];
  for (int i = 1; i < 9; ++i) a += c[i] / (y + static_cast<double>(i));
  const double t = y + 7.5;
  return 0.91893853320467274 + (y + 0.5) * std::log(t) - t + std::log(a);  // ½ln 2π + …
}

/// Continued fraction of the incomplete beta function, modified Lentz's method
/// (Abramowitz & Stegun 26.5.8; Press et al., Numerical Recipes 3rd ed. §6.4).
[[nodiscard]] inline double incomplete_beta_fraction(double a, double b, double x) noexcept {
  constexpr double tiny = lentz_floor;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= lentz_max_steps; ++m) {
    const double md = static_cast<double>(m);
    const double m2 = 2.0 * md;
    double aa = md * (b - md) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + md) * (qab + md) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1.0) < lentz_tolerance) break;
  }
  return h;
}

/// The regularized incomplete beta function I_x(a, b), a, b >= 0.5, x in [0, 1].
[[nodiscard]] inline double incomplete_beta(double a, double b, double x) noexcept {
  if (!(x > 0.0)) return 0.0;
  if (!(x < 1.0)) return 1.0;
  const double front = std::exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1.0 - front * incomplete_beta_fraction(b, a, 1.0 - x) / b;
}

/// P(T > t) for Student's t with df >= 1 degrees of freedom and t >= 0:
/// ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1 with 26.5.27).
[[nodiscard]] inline double student_t_upper_tail(double t, double df) noexcept {
  return 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
}

/// The quantile of Student's t with df degrees of freedom that has the upper tail of the
/// normal quantile z: P(T_df > t) = P(Z > z) = ½·erfc(z/√2). df >= 1; infinite df gives z
/// itself; df >= 10⁶ uses the Cornish–Fisher expansion of A&S 26.7.5. z > 0.
[[nodiscard]] inline double student_t_quantile_matching(double z, double df) noexcept {
  if (!(df < cornish_fisher_min_df)) {
    if (!(df <= std::numeric_limits<double>::max())) return z;
    const double z2 = z * z;
    return z + z * (z2 + 1.0) / (4.0 * df) + z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * df * df);
  }
  const double tail = 0.5 * std::erfc(z / std::numbers::sqrt2);
  double low = z;  // the t quantile is never below the normal one
  double high = 2.0 * z + 1.0;
  while (student_t_upper_tail(high, df) > tail && high < 1e300) {
    low = high;
    high *= 2.0;
  }
  for (int i = 0; i < t_quantile_max_steps && high - low > t_quantile_tolerance * high; ++i) {
    const double mid = 0.5 * (low + high);
    (student_t_upper_tail(mid, df) > tail ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

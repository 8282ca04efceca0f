// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/detail/student_t.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../detail/student_t.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL double log_gamma(double x) noexcept {
  constexpr double c[9] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                           771.32342877765313,   -176.61502916214059,   12.507343278686905,
                           -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  const double y = x - 1.0;
  double a = c[0];
  for (int i = 1; i < 9; ++i) a += c[i] / (y + static_cast<double>(i));
  const double t = y + 7.5;
  return 0.91893853320467274 + (y + 0.5) * std::log(t) - t + std::log(a);  // ½ln 2π + …
}

HEADROOM_DECL double incomplete_beta_fraction(double a, double b, double x) noexcept {
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

HEADROOM_DECL double incomplete_beta(double a, double b, double x) noexcept {
  if (!(x > 0.0)) return 0.0;
  if (!(x < 1.0)) return 1.0;
  const double front = std::exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1.0 - front * incomplete_beta_fraction(b, a, 1.0 - x) / b;
}

HEADROOM_DECL double student_t_quantile_matching(double z, double df) noexcept {
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

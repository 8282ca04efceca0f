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
[[nodiscard]] HEADROOM_DECL double log_gamma(double x) noexcept;

/// Continued fraction of the incomplete beta function, modified Lentz's method
/// (Abramowitz & Stegun 26.5.8; Press et al., Numerical Recipes 3rd ed. §6.4).
[[nodiscard]] HEADROOM_DECL double incomplete_beta_fraction(double a, double b, double x) noexcept;

/// The regularized incomplete beta function I_x(a, b), a, b >= 0.5, x in [0, 1].
[[nodiscard]] HEADROOM_DECL double incomplete_beta(double a, double b, double x) noexcept;

/// P(T > t) for Student's t with df >= 1 degrees of freedom and t >= 0:
/// ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1 with 26.5.27).
[[nodiscard]] inline double student_t_upper_tail(double t, double df) noexcept {
  return 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
}

/// The quantile of Student's t with df degrees of freedom that has the upper tail of the
/// normal quantile z: P(T_df > t) = P(Z > z) = ½·erfc(z/√2). df >= 1; infinite df gives z
/// itself; df >= 10⁶ uses the Cornish–Fisher expansion of A&S 26.7.5. z > 0.
[[nodiscard]] HEADROOM_DECL double student_t_quantile_matching(double z, double df) noexcept;

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/detail/student_t.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Private helpers of the closed-form headers (queueing, coldstart, cost, roofline):
//  1. constexpr elementary functions. std::exp, std::log, std::sqrt, std::expm1,
//     std::log1p and std::erfc are not constexpr in C++20 (GCC folds them as an extension,
//     Clang and MSVC do not). cxm::exp and friends call the std:: function at run time, so
//     run-time results are exactly the standard library's, and a series implementation
//     during constant evaluation (accurate to a few ulps; tests/unit/queueing.test.cpp
//     compares the two). This keeps every formula of those headers usable in a
//     static_assert. A few special functions with no std:: counterpart (erfcx, ln Γ*, the
//     Poisson deviance) are built from those, for Erlang B at large c.
//  2. the number-type plumbing of the positional formulas (those whose arguments differ in
//     type; the others take a basic_X<T> aggregate of named fields): each is a template
//     over the type of its first real parameter, A, and computes in real_t<A> (A itself when
//     A is a floating-point type, double when it is an integer), so f(60, ...) and
//     f(60.0f, ...) both work and f(60.0L, ...) computes in long double.
//  3. argument checks for durations and counts, in the style of detail/checks.hpp.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include <cmath>

#include "checks.hpp"

namespace headroom {
inline namespace v0 {
namespace detail {

// ---- number types ---------------------------------------------------------------------------

/// A number a formula accepts: any arithmetic type except bool.
template <class A>
concept Arithmetic = std::is_arithmetic_v<A> && !std::same_as<std::remove_cv_t<A>, bool>;

/// The floating type a formula computes in: A if A is floating point, otherwise double.
template <class A>
using real_t = std::conditional_t<std::is_floating_point_v<A>, A, double>;

/// Seconds as a floating-point std::chrono duration of type T. Any std::chrono duration
/// converts to it implicitly (1 min, 250 ms, ...).
template <class T>
using seconds_t = std::chrono::duration<T>;

/// T in a non-deduced context: the other real parameters of a formula take the type deduced
/// from its first one, and convert from any arithmetic argument.
template <class T>
using same_t = std::type_identity_t<T>;

/// A seconds duration of type T in a non-deduced context: accepts any std::chrono duration.
template <class T>
using seconds_arg = std::chrono::duration<std::type_identity_t<T>>;

namespace cxm {

// ---- pure constexpr implementations (used during constant evaluation) ----------------------
namespace impl {

template <std::floating_point T>
inline constexpr T ln2 = static_cast<T>(0.693147180559945309417232121458176568L);
// Cody-Waite split of ln 2 (fdlibm): ln2_hi has 21 trailing zero bits, so k*ln2_hi is exact
// for |k| < 2^21 in double and long double.
template <std::floating_point T>
inline constexpr T ln2_hi = static_cast<T>(6.93147180369123816490e-01);
template <std::floating_point T>
inline constexpr T ln2_lo = static_cast<T>(1.90821492927058770002e-10L);

template <std::floating_point T>
constexpr T quiet_nan() noexcept {
  return std::numeric_limits<T>::quiet_NaN();
}
template <std::floating_point T>
constexpr T infinity() noexcept {
  return std::numeric_limits<T>::infinity();
}

/// 2^k for |k| within the exponent range of T, built by squaring (exact).
template <std::floating_point T>
constexpr T pow2(int k) noexcept {
  T result = 1;
  T base = k >= 0 ? T(2) : T(0.5);
  unsigned n = k >= 0 ? static_cast<unsigned>(k) : static_cast<unsigned>(-k);
  while (n != 0) {
    if (n & 1u) result *= base;
    base *= base;
    n >>= 1;
  }
  return result;
}

/// x * 2^k without intermediate overflow or premature underflow.
template <std::floating_point T>
constexpr T scale2(T x, int k) noexcept {
  const int half = k / 2;
  return x * pow2<T>(half) * pow2<T>(k - half);
}

/// e^r for |r| <= ln2/2: its Taylor series to degree 30 (the last term is below 1e-50),
/// in Horner form 1 + r(1 + r/2(1 + r/3(...))), summed from the smallest term.
template <std::floating_point T>
constexpr T exp_reduced(T r) noexcept {
  T p = 1;
  for (int n = 30; n >= 1; --n) p = T(1) + p * r / static_cast<T>(n);
  return p;
}

template <std::floating_point T>
constexpr T exp_any(T x) noexcept {
  if (x != x) return x;
  const T max_log = static_cast<T>(std::numeric_limits<T>::max_exponent) * ln2<T>;
  const T min_log =
      static_cast<T>(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits) *
      ln2<T>;
  if (x > max_log) return infinity<T>();
  if (x < min_log) return T(0);
  // k = round(x / ln 2); r = x - k ln 2 in [-ln2/2, ln2/2].
  const T kf = x / ln2<T>;
  const long long k = static_cast<long long>(kf < 0 ? kf - T(0.5) : kf + T(0.5));
  const T kt = static_cast<T>(k);
  const T r = (x - kt * ln2_hi<T>)-kt * ln2_lo<T>;
  return scale2(exp_reduced(r), static_cast<int>(k));
}

template <std::floating_point T>
constexpr T expm1_any(T x) noexcept {
  if (x != x) return x;
  if (x > -ln2<T> / 2 && x < ln2<T> / 2) {
    // Series without the leading 1: no cancellation for small x.
    T sum = x;
    T term = x;
    for (int n = 2; n < 64; ++n) {
      term *= x / static_cast<T>(n);
      const T next = sum + term;
      if (next == sum) break;
      sum = next;
    }
    return sum;
  }
  return exp_any(x) - T(1);
}

template <std::floating_point T>
constexpr T log_any(T x) noexcept {
  if (x != x || x < 0) return quiet_nan<T>();
  if (x == 0) return -infinity<T>();
  if (x == infinity<T>()) return x;
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); every scaling is by a power of two (exact).
  int e = 0;
  const T big = pow2<T>(32);
  const T small = pow2<T>(-32);
  while (x >= big) {
    x *= small;
    e += 32;
  }
  while (x < small) {
    x *= big;
    e -= 32;
  }
  while (x >= T(2)) {
    x *= T(0.5);
    ++e;
  }
  while (x < T(1)) {
    x *= T(2);
    --e;
  }
  const T sqrt2 = static_cast<T>(1.41421356237309504880168872420969808L);
  if (x > sqrt2) {
    x *= T(0.5);
    ++e;
  }
  // log m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.172: 2(s + s^3/3 + s^5/5 + ...).
  const T s = (x - T(1)) / (x + T(1));
  const T s2 = s * s;
  T power = s;
  T sum = s;
  for (int n = 3; n < 200; n += 2) {
    power *= s2;
    const T next = sum + power / static_cast<T>(n);
    if (next == sum) break;
    sum = next;
  }
  const T et = static_cast<T>(e);
  return et * ln2_hi<T> + (T(2) * sum + et * ln2_lo<T>);
}

template <std::floating_point T>
constexpr T log1p_any(T x) noexcept {
  if (x != x || x < T(-1)) return quiet_nan<T>();
  const T u = T(1) + x;
  if (u == T(1)) return x;
  if (u == infinity<T>()) return u;
  // Goldberg's correction: log(u) * x / (u - 1) cancels the rounding of 1 + x.
  return log_any(u) * (x / (u - T(1)));
}

template <std::floating_point T>
constexpr T sqrt_any(T x) noexcept {
  if (x != x || x < 0) return quiet_nan<T>();
  if (x == 0 || x == infinity<T>()) return x;
  // Bring x into [1/4, 4) by powers of four (exact), then Newton from y = (1 + x) / 2.
  T scale = 1;
  const T four32 = pow2<T>(64);
  while (x >= four32) {
    x *= pow2<T>(-64);
    scale *= pow2<T>(32);
  }
  while (x < pow2<T>(-64)) {
    x *= four32;
    scale *= pow2<T>(-32);
  }
  while (x >= T(4)) {
    x *= T(0.25);
    scale *= T(2);
  }
  while (x < T(0.25)) {
    x *= T(4);
    scale *= T(0.5);
  }
  T y = (T(1) + x) / T(2);
  for (int i = 0; i < 100; ++i) {
    const T next = T(0.5) * (y + x / y);
    if (next == y) break;
    y = next;
  }
  return y * scale;
}

template <std::floating_point T>
inline constexpr T inv_sqrt_pi = static_cast<T>(0.564189583547756286948079451560772586L);

/// e^{-x^2} for x >= 0 without the rounding of x^2 (which would cost x^2 ulps near the
/// underflow): Veltkamp's split x = hi + lo, hi holding half the digits, makes hi^2 exact.
template <std::floating_point T>
constexpr T exp_minus_square(T x) noexcept {
  const T split = pow2<T>((std::numeric_limits<T>::digits + 1) / 2) + T(1);
  const T p = x * split;
  const T hi = p - (p - x);
  const T lo = x - hi;
  return exp_any(-(hi * hi)) * exp_any(-(T(2) * hi + lo) * lo);
}

/// erfc(x) e^{x^2} for x >= 1/2 by Laplace's continued fraction,
/// 2x/sqrt(pi) / (2x^2 + 1 - 1*2/(2x^2 + 5 - 3*4/(2x^2 + 9 - ...))). Lentz's method finds
/// how many levels converge (16 at x = 3, 300 at x = 1/2 in double), but its rounding errors
/// grow with the levels (4e-14 at x = 1/2); the fraction is then summed from twice that
/// depth back to the top, which is exact to 3 ulps over [1/2, 27] (double and long double).
template <std::floating_point T>
constexpr T erfcx_fraction(T x) noexcept {
  const T tiny = std::numeric_limits<T>::min();
  const T x2 = T(2) * x * x;
  const auto a_n = [](int n) { return -static_cast<T>(2 * n - 1) * static_cast<T>(2 * n); };
  const auto b_n = [x2](int n) { return x2 + static_cast<T>(4 * n + 1); };
  T c = x2 + T(1);
  T d = 0;
  int levels = 1;
  for (; levels < 4000; ++levels) {
    d = b_n(levels) + a_n(levels) * d;
    if (d == T(0)) d = tiny;
    d = T(1) / d;
    c = b_n(levels) + a_n(levels) / c;
    if (c == T(0)) c = tiny;
    const T delta = c * d;
    const T off = delta - T(1);
    if ((off < T(0) ? -off : off) <= std::numeric_limits<T>::epsilon() / T(2)) break;
  }
  const int depth = 2 * levels + 10;
  T tail = b_n(depth);
  for (int n = depth - 1; n >= 0; --n) tail = b_n(n) + a_n(n + 1) / tail;
  return T(2) * x * inv_sqrt_pi<T> / tail;
}

template <std::floating_point T>
constexpr T erfc_any(T x) noexcept {
  if (x != x) return x;
  if (x < T(0)) return T(2) - erfc_any(-x);
  if (x < T(0.5)) {
    // 1 - erf(x), erf(x) = 2/sqrt(pi) (x - x^3/3 + x^5/(2!5) - ...): erf(1/2) = 0.52.
    const T x2 = x * x;
    T power = x;
    T sum = x;
    for (int n = 1; n < 100; ++n) {
      power *= -x2 / static_cast<T>(n);
      const T next = sum + power / static_cast<T>(2 * n + 1);
      if (next == sum) break;
      sum = next;
    }
    return T(1) - T(2) * inv_sqrt_pi<T> * sum;
  }
  const T scale = exp_minus_square(x);
  if (scale == T(0)) return T(0);
  return scale * erfcx_fraction(x);
}

// float is evaluated in double and rounded once: the reduction constants are not exact in
// float, and double costs nothing here.
template <std::floating_point T, class F>
constexpr T in_double_for_float(F f, T x) noexcept {
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(f(static_cast<double>(x)));
  else
    return f(x);
}
template <std::floating_point T>
constexpr T exp(T x) noexcept {
  return in_double_for_float([](auto v) { return exp_any(v); }, x);
}
template <std::floating_point T>
constexpr T expm1(T x) noexcept {
  return in_double_for_float([](auto v) { return expm1_any(v); }, x);
}
template <std::floating_point T>
constexpr T log(T x) noexcept {
  return in_double_for_float([](auto v) { return log_any(v); }, x);
}
template <std::floating_point T>
constexpr T log1p(T x) noexcept {
  return in_double_for_float([](auto v) { return log1p_any(v); }, x);
}
template <std::floating_point T>
constexpr T sqrt(T x) noexcept {
  return in_double_for_float([](auto v) { return sqrt_any(v); }, x);
}
template <std::floating_point T>
constexpr T erfc(T x) noexcept {
  return in_double_for_float([](auto v) { return erfc_any(v); }, x);
}

}  // namespace impl

// ---- dispatchers: std:: at run time, the series in constant evaluation ---------------------

template <std::floating_point T>
[[nodiscard]] constexpr T exp(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::exp(x);
  return std::exp(x);
}
template <std::floating_point T>
[[nodiscard]] constexpr T expm1(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::expm1(x);
  return std::expm1(x);
}
template <std::floating_point T>
[[nodiscard]] constexpr T log(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::log(x);
  return std::log(x);
}
template <std::floating_point T>
[[nodiscard]] constexpr T log1p(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::log1p(x);
  return std::log1p(x);
}
template <std::floating_point T>
[[nodiscard]] constexpr T sqrt(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::sqrt(x);
  return std::sqrt(x);
}
template <std::floating_point T>
[[nodiscard]] constexpr T erfc(T x) noexcept {
  if (std::is_constant_evaluated()) return impl::erfc(x);
  return std::erfc(x);
}

// ---- special functions with no std:: counterpart (the same code at run time) ---------------

/// The scaled complementary error function erfcx(x) = e^{x^2} erfc(x), x >= 0 (finite where
/// erfc underflows: erfcx(x) ~ 1/(x sqrt(pi))). Below 3 from exp and erfc (relative error
/// about 10 ulps), above by Laplace's continued fraction (at most 16 levels in double).
template <std::floating_point T>
[[nodiscard]] constexpr T erfcx(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(erfcx(static_cast<double>(x)));
  } else {
    if (x < T(3)) return exp(x * x) * erfc(x);
    return impl::erfcx_fraction(x);
  }
}

/// ln Γ*(x), the error of Stirling's formula: ln Γ(x) − (x − ½) ln x + x − ½ ln 2π, with
/// Γ*(x) = Γ(x) / (sqrt(2π/x) (x/e)^x) (Temme's notation; Loader's stirlerr). The Stirling
/// series Σ B_2j / (2j(2j − 1) x^{2j−1}) to j = 8; x >= 10, where the first omitted term is
/// below 2e-18 (absolute).
template <std::floating_point T>
[[nodiscard]] constexpr T log_gamma_star(T x) noexcept {
  const T u = T(1) / x;
  const T u2 = u * u;
  // B_2j / (2j(2j - 1)): 1/12, -1/360, 1/1260, -1/1680, 1/1188, -691/360360, 1/156,
  // -3617/122400.
  T sum = T(-3617) / T(122400);
  sum = sum * u2 + T(1) / T(156);
  sum = sum * u2 - T(691) / T(360360);
  sum = sum * u2 + T(1) / T(1188);
  sum = sum * u2 - T(1) / T(1680);
  sum = sum * u2 + T(1) / T(1260);
  sum = sum * u2 - T(1) / T(360);
  sum = sum * u2 + T(1) / T(12);
  return sum * u;
}

/// The Poisson deviance term x ln(x/m) + m − x >= 0 (Loader's bd0), x > 0, m > 0, accurate
/// to a few ulps relative even where x ≈ m and the three terms cancel: there
/// x ln(x/m) = 2x atanh(v), v = (x − m)/(x + m), and the sum is (x − m)v + 2x(v³/3 + v⁵/5 +
/// ...), all terms of one sign (C. Loader, "Fast and accurate computation of binomial
/// probabilities", 2000).
template <std::floating_point T>
[[nodiscard]] constexpr T poisson_deviance(T x, T m) noexcept {
  const T difference = x - m;
  const T v = difference / (x + m);
  if (v > T(-0.5) && v < T(0.5)) {
    const T v2 = v * v;
    T power = T(2) * x * v;
    T sum = difference * v;
    for (int j = 1; j < 100; ++j) {
      power *= v2;
      const T next = sum + power / static_cast<T>(2 * j + 1);
      if (next == sum) break;
      sum = next;
    }
    return sum;
  }
  return x * log(x / m) + m - x;
}

/// ln(1/(1-q)) = -log1p(-q): the number of mean lifetimes an exponential needs for a
/// quota q (ln 10 for q = 0.9).
template <std::floating_point T>
[[nodiscard]] constexpr T quota_log(T q) noexcept {
  return -log1p(-q);
}

/// x = mantissa · 2^exponent with mantissa in [1, 2), for a finite x > 0 (a constexpr frexp).
template <std::floating_point T>
struct binary_parts {
  T mantissa = 1;
  int exponent = 0;
};
template <std::floating_point T>
constexpr binary_parts<T> split2(T x) noexcept {
  constexpr T up = impl::pow2<T>(32);
  constexpr T down = impl::pow2<T>(-32);
  if (!(x > T(0) && x <= std::numeric_limits<T>::max())) return {x, 0};  // not for 0, inf, NaN
  int e = 0;
  while (x >= up) {
    x *= down;
    e += 32;
  }
  while (x < down) {
    x *= up;
    e -= 32;
  }
  while (x >= T(2)) {
    x *= T(0.5);
    ++e;
  }
  while (x < T(1)) {
    x *= T(2);
    --e;
  }
  return {x, e};
}

/// The product of `numerators` over the product of `denominators`, each finite, numerators
/// >= 0 and denominators > 0, without intermediate overflow or underflow: 0 when a numerator
/// is 0 (whatever the rest), +infinity only when the true value exceeds T's range, 0 only when
/// it lies below T's smallest subnormal, never NaN. While every partial product is a normal
/// number the result is the plain left-to-right product, bit for bit; otherwise the factors
/// are split into mantissa and exponent (the same roundings, exponents summed exactly).
template <std::floating_point T>
constexpr T product_ratio(std::initializer_list<T> numerators,
                          std::initializer_list<T> denominators = {}) noexcept {
  constexpr T largest = std::numeric_limits<T>::max();
  constexpr T smallest = std::numeric_limits<T>::min();  // smallest normal
  T r = 1;
  bool normal = true;
  for (const T x : numerators) {
    if (x == T(0)) return T(0);
    r *= x;
    normal = normal && r <= largest && r >= smallest;
  }
  for (const T x : denominators) {
    r /= x;
    normal = normal && r <= largest && r >= smallest;
  }
  if (normal) return r;
  T m = 1;  // the value is m · 2^e, m kept in [1, 2)
  int e = 0;
  for (const T x : numerators) {
    const binary_parts<T> p = split2(x);
    m *= p.mantissa;
    e += p.exponent;
    if (m >= T(2)) {
      m *= T(0.5);
      ++e;
    }
  }
  for (const T x : denominators) {
    const binary_parts<T> p = split2(x);
    m /= p.mantissa;
    e -= p.exponent;
    if (m < T(1)) {
      m *= T(2);
      --e;
    }
  }
  return impl::scale2(m, e);
}

/// Largest integer count the closed-form headers return (2^62: exact in double).
inline constexpr std::int64_t max_count = std::int64_t{1} << 62;

/// ceil(x) for finite x in [0, max_count], as an integer count; exact (no tolerance), so
/// ceil(7.5) = 8 and ceil(8.0) = 8 as numpy's ceil does.
template <std::floating_point T>
[[nodiscard]] constexpr std::int64_t ceil_count(T x) noexcept {
  const auto truncated = static_cast<std::int64_t>(x);
  return static_cast<T>(truncated) < x ? truncated + 1 : truncated;
}

}  // namespace cxm

// ---- checks on counts and durations ---------------------------------------------------------

/// ceil(x) as a count, x a finite non-negative quotient; fails naming `name` when the count
/// would exceed 2^62.
template <std::floating_point T>
constexpr std::int64_t require_ceil_count(const char* name, T quotient) {
  if (!(quotient >= T(0) && quotient <= static_cast<T>(cxm::max_count)))
    fail(name, quotient, "leads to a count outside [0, 2^62]");
  return cxm::ceil_count(quotient);
}

/// An integer count that must be >= minimum.
constexpr std::int64_t require_count_at_least(const char* name, std::int64_t value,
                                              std::int64_t minimum) {
  if (value < minimum) {
    if (minimum == 0) fail(name, value, "must be >= 0");
    if (minimum == 1) fail(name, value, "must be >= 1");
    fail(name, value, "is below its minimum");
  }
  return value;
}

/// An integer count that must be <= 2^62 (cxm::max_count), so that converting it to a
/// floating-point value and back (ceil_count of a share of it) stays defined.
constexpr std::int64_t require_count_at_most_max(const char* name, std::int64_t value) {
  if (value > cxm::max_count) fail(name, value, "must be <= 2^62");
  return value;
}

/// A duration (any std::chrono duration) that must be finite and >= 0; returns seconds.
template <class T, class Rep, class Period>
constexpr T require_non_negative_seconds(const char* name,
                                         std::chrono::duration<Rep, Period> value) {
  const T seconds = std::chrono::duration<T>(value).count();
  if (!(is_finite(seconds) && seconds >= T(0)))
    fail(name, std::chrono::duration<T>(value), "must be a finite duration >= 0");
  return seconds;
}

/// A duration that must be finite and > 0; returns seconds.
template <class T, class Rep, class Period>
constexpr T require_positive_seconds(const char* name, std::chrono::duration<Rep, Period> value) {
  const T seconds = std::chrono::duration<T>(value).count();
  if (!(is_finite(seconds) && seconds > T(0)))
    fail(name, std::chrono::duration<T>(value), "must be a finite duration > 0");
  return seconds;
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

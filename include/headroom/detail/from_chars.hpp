// SPDX-License-Identifier: Apache-2.0
// Exact, locale-independent parsing of a decimal number into a double:
// detail::from_chars_double(first, last, value) behaves as
// std::from_chars(first, last, value, std::chars_format::general) (C++17 [charconv.from.chars]):
// an optional '-', then digits with an optional '.', an optional exponent 'e'/'E' with an
// optional sign, or "inf", "infinity", "nan", "nan(chars)" in any case; no '+', no leading
// space, no hex ("0x1p3" reads as 0 and stops at 'x'). The result is the double nearest to
// the decimal value, ties to even (the bits strtod gives in the "C" locale), whatever the
// locale and the floating-point rounding mode. A finite number whose magnitude rounds to
// infinity or, having a non-zero digit, to zero returns std::errc::result_out_of_range with
// ptr past the number and value untouched; a subnormal result is in range. NaN's sign and
// payload are unspecified.
//
// Where the standard library ships std::from_chars for double it is used: libstdc++ from
// GCC 12 (GCC 12 replaced GCC 11's per-call strtod and newlocale with an allocation-free
// parser), libc++ from LLVM 20 where the deployment target has it, and the MSVC STL.
// Elsewhere, or with HEADROOM_PORTABLE_FROM_CHARS defined to 1, the portable parser below
// is used, three exact steps, the first that applies: Clinger's fast path (W. D. Clinger, "How
// to Read Floating Point Numbers Accurately", PLDI 1990) when the digits fit in 53 bits and
// the power of ten is exact; 128-bit integer arithmetic when there are at most 19 digits and
// the power of ten lies within 10^+-20 (the product, or a quotient of 80 bits or more and
// whether a remainder is left); otherwise a decimal-to-binary conversion by repeated shifts
// of a fixed 800-digit decimal (the method of Go's strconv/decimal.go): 800 digits hold every
// digit that can decide the rounding of a double, and any non-zero digit beyond them is kept
// as a sticky bit. It does not allocate and does not read the locale.
#pragma once

#include "config.hpp"
#if HEADROOM_HAS_CXX20

#include <bit>
#include <cfloat>
#include <charconv>
#include <cstdint>
#include <limits>
#include <system_error>

/// 1 when detail::from_chars_double calls std::from_chars; 0 when it uses the portable
/// parser. Define HEADROOM_PORTABLE_FROM_CHARS to 1 to force the portable parser.
#if defined(HEADROOM_PORTABLE_FROM_CHARS) && HEADROOM_PORTABLE_FROM_CHARS
#define HEADROOM_STD_FROM_CHARS_DOUBLE 0
#elif defined(_LIBCPP_VERSION)
#if _LIBCPP_VERSION >= 200000 && defined(_LIBCPP_AVAILABILITY_HAS_FROM_CHARS_FLOATING_POINT)
#if _LIBCPP_AVAILABILITY_HAS_FROM_CHARS_FLOATING_POINT
#define HEADROOM_STD_FROM_CHARS_DOUBLE 1
#else
#define HEADROOM_STD_FROM_CHARS_DOUBLE 0
#endif
#else
#define HEADROOM_STD_FROM_CHARS_DOUBLE 0
#endif
#elif defined(_GLIBCXX_RELEASE)
#if _GLIBCXX_RELEASE >= 12 && defined(__cpp_lib_to_chars)
#define HEADROOM_STD_FROM_CHARS_DOUBLE 1
#else
#define HEADROOM_STD_FROM_CHARS_DOUBLE 0
#endif
#elif defined(_MSVC_STL_VERSION) && defined(__cpp_lib_to_chars)
#define HEADROOM_STD_FROM_CHARS_DOUBLE 1
#else
#define HEADROOM_STD_FROM_CHARS_DOUBLE 0
#endif

namespace headroom {
inline namespace v0 {
namespace detail {
namespace float_parse {

/// A non-negative decimal 0.d[0]d[1]...d[count-1] x 10^point, digits 0..9, no trailing zero
/// (count == 0 is zero). truncated: non-zero digits beyond `capacity` were dropped.
struct decimal {
  static constexpr int capacity = 800;
  std::uint8_t digit[capacity];
  int count = 0;
  long long point = 0;
  bool truncated = false;

  constexpr void trim() noexcept {
    while (count > 0 && digit[count - 1] == 0) --count;
  }
};

/// The largest shift one step performs: 10 x 2^60 < 2^64 keeps the arithmetic in 64 bits.
inline constexpr unsigned max_shift = 60;

/// d *= 2^k, 1 <= k <= max_shift (digits past the capacity set truncated).
constexpr void shift_left(decimal& d, unsigned k) noexcept {
  // Each step adds fewer than 19 digits: the carry stays below 2^k <= 2^60 < 10^19.
  std::uint8_t out[decimal::capacity + 19];
  int w = decimal::capacity + 19;
  std::uint64_t carry = 0;
  for (int r = d.count - 1; r >= 0; --r) {
    const std::uint64_t v = (std::uint64_t{d.digit[r]} << k) + carry;
    out[--w] = static_cast<std::uint8_t>(v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    out[--w] = static_cast<std::uint8_t>(carry % 10);
    carry /= 10;
  }
  const int produced = decimal::capacity + 19 - w;
  d.point += produced - d.count;
  int n = produced;
  if (n > decimal::capacity) {
    for (int i = decimal::capacity; i < n; ++i)
      if (out[w + i] != 0) d.truncated = true;
    n = decimal::capacity;
  }
  for (int i = 0; i < n; ++i) d.digit[i] = out[w + i];
  d.count = n;
  d.trim();
}

/// d /= 2^k, 1 <= k <= max_shift, by long division in place (digits past the capacity set
/// truncated). Needs d != 0.
constexpr void shift_right(decimal& d, unsigned k) noexcept {
  const std::uint64_t mask = (std::uint64_t{1} << k) - 1;
  int r = 0;
  std::uint64_t acc = 0;
  while ((acc >> k) == 0) {  // read until the first quotient digit is non-zero
    if (r < d.count) {
      acc = acc * 10 + d.digit[r];
    } else {
      acc *= 10;  // past the last digit: implicit zeros
    }
    ++r;
  }
  d.point -= r - 1;
  int w = 0;
  for (; r < d.count; ++r) {  // w < r: writing never overtakes reading
    d.digit[w++] = static_cast<std::uint8_t>(acc >> k);
    acc = (acc & mask) * 10 + d.digit[r];
  }
  while (acc > 0) {  // ends within k steps: 10^k is a multiple of 2^k
    const auto q = static_cast<std::uint8_t>(acc >> k);
    acc = (acc & mask) * 10;
    if (w < decimal::capacity)
      d.digit[w++] = q;
    else if (q != 0)
      d.truncated = true;
  }
  d.count = w;
  d.trim();
}

/// How far one step shifts a decimal whose point is p (1 <= p <= 18): floor(log2(10^p)), so
/// that a value in [10^(p-1), 10^p) stays at least 0.1 after a right shift and stays below 1
/// after a left shift of a value below 10^-p. Entry 0 (a value in [0.1, 0.5)) is 1.
inline constexpr unsigned shift_for_point[19] = {1,  3,  6,  9,  13, 16, 19, 23, 26, 29,
                                                 33, 36, 39, 43, 46, 49, 53, 56, 59};

/// The outcome of a conversion: the bits of |value| (zero for a zero input) or a range error.
struct converted {
  std::uint64_t bits = 0;
  bool out_of_range = false;
};

/// The double nearest to a non-zero decimal, ties to even: scale it into [0.5, 1) by powers
/// of two, then take the nearest integer of d x 2^53 as the significand.
constexpr converted convert_exact(decimal& d) noexcept {
  if (d.point > 310) return {0, true};   // >= 10^309: beyond the largest double
  if (d.point < -330) return {0, true};  // < 10^-330: below half the smallest subnormal
  int exp2 = 0;                          // value = d x 2^exp2 throughout
  while (d.point > 0) {
    const unsigned n = d.point >= 19 ? max_shift : shift_for_point[d.point];
    shift_right(d, n);
    exp2 += static_cast<int>(n);
  }
  while (d.point < 0 || (d.point == 0 && d.digit[0] < 5)) {
    const unsigned n = -d.point >= 19 ? max_shift : shift_for_point[-d.point];
    shift_left(d, n);
    exp2 -= static_cast<int>(n);
  }
  // d in [0.5, 1); the significand m = round(d x 2^53) scales by 2^(exp2 - 53), whose
  // smallest value for a double is 2^-1074 (the subnormal spacing): shift the excess away.
  if (exp2 < -1021) {
    int excess = -1021 - exp2;
    while (excess > 0 && d.count > 0) {
      const unsigned n =
          excess > static_cast<int>(max_shift) ? max_shift : static_cast<unsigned>(excess);
      shift_right(d, n);
      excess -= static_cast<int>(n);
    }
    exp2 = -1021;
  }
  if (d.count == 0) return {0, true};
  shift_left(d, 53);
  // The integer part is digits [0, point) (point <= 16: d x 2^53 < 2^53 < 10^16).
  const int point = static_cast<int>(d.point);
  std::uint64_t m = 0;
  for (int i = 0; i < point; ++i) m = m * 10 + (i < d.count ? d.digit[i] : 0u);
  if (point >= 0 && point < d.count) {
    const std::uint8_t next = d.digit[point];
    const bool exactly_half = next == 5 && point + 1 == d.count && !d.truncated;
    if (next > 5 || (next == 5 && !exactly_half) || (exactly_half && (m & 1) != 0)) ++m;
  }
  if (m >> 53 != 0) {  // rounding carried into a new bit: 2^53 -> 2^52, exactly
    m >>= 1;
    ++exp2;
  }
  if (m == 0) return {0, true};
  const std::uint64_t biased =
      m >> 52 == 0 ? 0 : static_cast<std::uint64_t>(exp2 + 1022);  // subnormal or normal
  if (biased >= 0x7FF) return {0, true};
  return {(biased << 52) | (m & ((std::uint64_t{1} << 52) - 1)), false};
}

/// Exact powers of ten as doubles: 10^22 is the largest that 53 bits hold.
inline constexpr double exact_powers_of_ten[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// true when double arithmetic rounds to nearest (the default environment). Clinger's fast
/// path rounds with the current mode; the exact path is used instead under any other mode.
/// Read through volatile so that the compiler cannot fold it.
inline bool rounds_to_nearest() noexcept {
  static volatile double smallest_normal = std::numeric_limits<double>::min();
  const double tiny = smallest_normal;
  return 1.0 + tiny == 1.0 - tiny;  // upward, downward and toward zero each break one side
}

/// Clinger's fast path: m x 10^e10 with m <= 2^53 and 10^|e10| exact is one correctly
/// rounded multiplication or division. Needs double arithmetic without excess precision.
inline bool fast_path(std::uint64_t m, long long e10, double& out) noexcept {
#if defined(FLT_EVAL_METHOD) && (FLT_EVAL_METHOD == 0 || FLT_EVAL_METHOD == 1)
  constexpr std::uint64_t limit = std::uint64_t{1} << 53;
  if (m > limit || e10 < -22 || e10 > 22 + 15) return false;
  if (e10 > 22) {  // move the excess power into m while it stays exact: 1e5 x 1e22
    for (; e10 > 22; --e10) {
      if (m > limit / 10) return false;
      m *= 10;
    }
  }
  if (!rounds_to_nearest()) return false;
  const auto x = static_cast<double>(m);
  out = e10 >= 0 ? x * exact_powers_of_ten[e10] : x / exact_powers_of_ten[-e10];
  return true;
#else
  (void)m;
  (void)e10;
  (void)out;
  return false;
#endif
}

/// An unsigned 128-bit integer as two 64-bit halves (standard C++ has no wider type).
struct u128 {
  std::uint64_t hi = 0, lo = 0;

  [[nodiscard]] constexpr int bit_width() const noexcept {
    return hi != 0 ? 64 + static_cast<int>(std::bit_width(hi))
                   : static_cast<int>(std::bit_width(lo));
  }
  [[nodiscard]] constexpr bool is_zero() const noexcept { return (hi | lo) == 0; }
  [[nodiscard]] constexpr u128 shl(int n) const noexcept {  // 0 <= n < 128
    if (n == 0) return *this;
    if (n >= 64) return {lo << (n - 64), 0};
    return {(hi << n) | (lo >> (64 - n)), lo << n};
  }
  [[nodiscard]] constexpr u128 shr(int n) const noexcept {  // 0 <= n < 128
    if (n == 0) return *this;
    if (n >= 64) return {0, hi >> (n - 64)};
    return {hi >> n, (lo >> n) | (hi << (64 - n))};
  }
  /// The low n bits (0 <= n < 128).
  [[nodiscard]] constexpr u128 low_bits(int n) const noexcept {
    if (n == 0) return {};
    if (n >= 64) return {n == 64 ? 0 : hi & ((std::uint64_t{1} << (n - 64)) - 1), lo};
    return {0, lo & ((std::uint64_t{1} << n) - 1)};
  }
  friend constexpr bool operator==(const u128&, const u128&) = default;
  friend constexpr bool operator<(const u128& a, const u128& b) noexcept {
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
  }
};

/// a x b, exactly.
[[nodiscard]] constexpr u128 multiply(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xFFFFFFFF, a1 = a >> 32, b0 = b & 0xFFFFFFFF, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t middle = (p00 >> 32) + (p01 & 0xFFFFFFFF) + (p10 & 0xFFFFFFFF);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32), (middle << 32) | (p00 & 0xFFFFFFFF)};
}

/// n / d and whether a remainder is left, for d < 2^48: long division in 32-bit steps where
/// d < 2^32, else 16-bit steps, so that each partial dividend stays below 2^64.
[[nodiscard]] constexpr u128 divide(const u128& n, std::uint64_t d, bool& remainder) noexcept {
  const int step = d >> 32 == 0 ? 32 : 16;
  const std::uint64_t mask = (std::uint64_t{1} << step) - 1;
  u128 q;
  std::uint64_t r = 0;
  for (int shift = 128 - step; shift >= 0; shift -= step) {
    const std::uint64_t chunk = (shift >= 64 ? n.hi >> (shift - 64) : n.lo >> shift) & mask;
    const std::uint64_t v = (r << step) | chunk;
    q = q.shl(step);
    q.lo |= v / d;
    r = v % d;
  }
  remainder = r != 0;
  return q;
}

/// The bits of the double nearest to (q + f) x 2^e2, ties to even, where 0 <= f < 1 and f > 0
/// exactly when sticky; q > 0 and the result is normal and finite (the callers' ranges).
[[nodiscard]] constexpr std::uint64_t round_to_double(const u128& q, bool sticky, int e2) noexcept {
  const int width = q.bit_width();
  std::uint64_t m = 0;
  if (width <= 53) {
    m = q.lo << (53 - width);  // exact: q has at most 53 bits, f is 0 here
    e2 -= 53 - width;
  } else {
    const int drop = width - 53;
    m = q.shr(drop).lo;
    const u128 dropped = q.low_bits(drop);
    const u128 half = u128{0, 1}.shl(drop - 1);
    if (half < dropped || (dropped == half && (sticky || (m & 1) != 0))) ++m;
    e2 += drop;
    if (m >> 53 != 0) {  // rounding carried into a new bit
      m >>= 1;
      ++e2;
    }
  }
  // m in [2^52, 2^53): value = m x 2^e2, biased exponent e2 + 52 + 1023.
  return (static_cast<std::uint64_t>(e2 + 1075) << 52) | (m & ((std::uint64_t{1} << 52) - 1));
}

inline constexpr std::uint64_t powers_of_five[21] = {1,
                                                     5,
                                                     25,
                                                     125,
                                                     625,
                                                     3125,
                                                     15625,
                                                     78125,
                                                     390625,
                                                     1953125,
                                                     9765625,
                                                     48828125,
                                                     244140625,
                                                     1220703125,
                                                     6103515625,
                                                     30517578125,
                                                     152587890625,
                                                     762939453125,
                                                     3814697265625,
                                                     19073486328125,
                                                     95367431640625};

/// m x 10^e10 for m < 2^64 and |e10| <= 20, exactly in 128-bit integers: the product for
/// e10 >= 0; for e10 < 0, m x 2^s / 5^-e10 with m x 2^s just below 2^127, so that the
/// quotient keeps 80 or more bits and the remainder says whether anything is left.
[[nodiscard]] constexpr bool wide_path(std::uint64_t m, long long e10,
                                       std::uint64_t& bits) noexcept {
  if (m == 0 || e10 < -20 || e10 > 20) return false;
  if (e10 >= 0) {
    const std::uint64_t five = powers_of_five[e10];
    const u128 product = multiply(m, five);  // m x 5^e10 < 2^64 x 2^47
    bits = round_to_double(product, false, static_cast<int>(e10));
    return true;
  }
  const int s = 127 - static_cast<int>(std::bit_width(m));
  bool remainder = false;
  const u128 q = divide(u128{0, m}.shl(s), powers_of_five[-e10], remainder);
  bits = round_to_double(q, remainder, static_cast<int>(e10) - s);
  return true;
}

[[nodiscard]] constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
[[nodiscard]] constexpr char lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
/// true when [p, last) starts with word (lower case), ignoring case.
[[nodiscard]] constexpr bool starts_with_word(const char* p, const char* last,
                                              const char* word) noexcept {
  for (; *word != '\0'; ++p, ++word)
    if (p == last || lower(*p) != *word) return false;
  return true;
}

/// An infinity or NaN word at p: where it ends and its (positive) value; end == nullptr when
/// p starts neither.
struct special_value {
  const char* end = nullptr;
  double value = 0.0;
};

/// "inf", "infinity", "nan" or "nan(n-char-sequence)" at p, in any case.
[[nodiscard]] inline special_value parse_special(const char* p, const char* last) noexcept {
  if (starts_with_word(p, last, "inf")) {
    p += 3;
    if (starts_with_word(p, last, "inity")) p += 5;
    return {p, std::numeric_limits<double>::infinity()};
  }
  if (starts_with_word(p, last, "nan")) {
    p += 3;
    if (p != last && *p == '(') {  // "nan(" n-char-sequence ")", else "nan" alone
      const char* q = p + 1;
      while (q != last && (is_digit(*q) || (lower(*q) >= 'a' && lower(*q) <= 'z') || *q == '_'))
        ++q;
      if (q != last && *q == ')') p = q + 1;
    }
    return {p, std::numeric_limits<double>::quiet_NaN()};
  }
  return {};
}

/// The significand's digits at p, advancing p: significant ones (from the first non-zero) go
/// into d; d.point counts the integer digits from the first significant one, less the zeros
/// that lead a fraction. False when no digit was read.
[[nodiscard]] constexpr bool read_significand(const char*& p, const char* last,
                                              decimal& d) noexcept {
  bool any_digit = false;
  bool seen_point = false;
  for (; p != last; ++p) {
    const char c = *p;
    if (c == '.') {
      if (seen_point) break;
      seen_point = true;
      continue;
    }
    if (!is_digit(c)) break;
    any_digit = true;
    const auto digit = static_cast<std::uint8_t>(c - '0');
    if (d.count == 0 && digit == 0) {
      if (seen_point) --d.point;
      continue;
    }
    if (!seen_point) ++d.point;
    if (d.count < decimal::capacity)
      d.digit[d.count++] = digit;
    else if (digit != 0)
      d.truncated = true;
  }
  return any_digit;
}

/// An exponent at p ('e' or 'E', an optional sign, digits) added to d.point; p advances past
/// it only if digits follow the 'e'.
constexpr void read_exponent(const char*& p, const char* last, decimal& d) noexcept {
  if (p == last || (*p != 'e' && *p != 'E')) return;
  const char* q = p + 1;
  const bool exponent_negative = q != last && *q == '-';
  if (q != last && (*q == '+' || *q == '-')) ++q;
  if (q == last || !is_digit(*q)) return;
  long long e = 0;
  for (; q != last && is_digit(*q); ++q)
    if (e < 100'000'000'000'000'000) e = e * 10 + (*q - '0');  // saturates, stays huge
  d.point += exponent_negative ? -e : e;
  p = q;
}

/// The bits of the double nearest to a trimmed non-zero decimal: Clinger's fast path, then
/// the 128-bit path for up to 19 digits, then the exact conversion. A truncated decimal
/// (a non-zero digit past the capacity, after zeros the trim removed) takes the exact
/// conversion: only it keeps that digit, as a sticky bit that can break a tie.
[[nodiscard]] inline converted nearest_double(decimal& d) noexcept {
  if (!d.truncated && d.count <= 19 && d.point >= -400 && d.point <= 400) {
    std::uint64_t m = 0;
    for (int i = 0; i < d.count; ++i) m = m * 10 + d.digit[i];
    double x = 0.0;
    if (fast_path(m, d.point - d.count, x)) return {std::bit_cast<std::uint64_t>(x), false};
    std::uint64_t bits = 0;
    if (wide_path(m, d.point - d.count, bits)) return {bits, false};
  }
  return convert_exact(d);
}

}  // namespace float_parse

/// std::from_chars(first, last, value, std::chars_format::general) for double, implemented
/// without the standard library's parser (see the top of this header for the semantics).
[[nodiscard]] inline std::from_chars_result portable_from_chars_double(const char* first,
                                                                       const char* last,
                                                                       double& value) noexcept {
  namespace fp = float_parse;
  const char* p = first;
  const bool negative = p != last && *p == '-';
  if (negative) ++p;
  if (p == last) return {first, std::errc::invalid_argument};
  if (fp::lower(*p) == 'i' || fp::lower(*p) == 'n') {
    const fp::special_value special = fp::parse_special(p, last);
    if (special.end == nullptr) return {first, std::errc::invalid_argument};
    value = negative ? -special.value : special.value;
    return {special.end, std::errc{}};
  }
  fp::decimal d;
  if (!fp::read_significand(p, last, d)) return {first, std::errc::invalid_argument};
  fp::read_exponent(p, last, d);
  d.trim();
  if (d.count == 0) {
    value = negative ? -0.0 : 0.0;
    return {p, std::errc{}};
  }
  const fp::converted c = fp::nearest_double(d);
  if (c.out_of_range) return {p, std::errc::result_out_of_range};
  const double magnitude = std::bit_cast<double>(c.bits);
  value = negative ? -magnitude : magnitude;
  return {p, std::errc{}};
}

/// std::from_chars(first, last, value, std::chars_format::general) for double, on every
/// standard library: the library's own where it has one (HEADROOM_STD_FROM_CHARS_DOUBLE),
/// else portable_from_chars_double. Same bits either way; value is written only on success.
[[nodiscard]] inline std::from_chars_result from_chars_double(const char* first, const char* last,
                                                              double& value) noexcept {
#if HEADROOM_STD_FROM_CHARS_DOUBLE
  double parsed = 0.0;  // MSVC and libc++ write the range error's value: keep it out
  const std::from_chars_result r = std::from_chars(first, last, parsed, std::chars_format::general);
  if (r.ec == std::errc{}) value = parsed;
  return r;
#else
  return portable_from_chars_double(first, last, value);
#endif
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

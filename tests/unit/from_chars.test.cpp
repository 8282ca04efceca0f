// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/detail/from_chars.hpp: the portable parser and the dispatching one
// (std::from_chars where the standard library has it) against the same vectors, whose
// expected bits come from outside the code under test: strtod in the "C" locale (this
// program never calls setlocale), bit patterns written down from Python's float() (David
// Gay's correctly rounded dtoa.c), and exact halfway points between adjacent doubles built
// here with a small big-integer, whose ties-to-even answer follows from the bits alone.
// The same file is also built into headroom_portable_from_chars_tests with
// HEADROOM_PORTABLE_FROM_CHARS=1, where every parse in the library takes the portable path.
#include <headroom/detail/from_chars.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>
#include "test_data.hpp"

namespace {

namespace hd = headroom::detail;

/// What a parse gave: how far it read, how it ended, and the bits of the value it wrote.
struct outcome {
  std::size_t consumed = 0;
  std::errc ec{};
  std::uint64_t bits = 0;  // meaningful when ec == std::errc{}; NaN compared as NaN
  bool nan = false;
  bool wrote_on_error = false;  // a rejection or a range error must leave the value alone

  friend bool operator==(const outcome& a, const outcome& b) {
    if (a.consumed != b.consumed || a.ec != b.ec || a.wrote_on_error != b.wrote_on_error)
      return false;
    if (a.ec != std::errc{}) return true;
    return a.nan == b.nan && (a.nan || a.bits == b.bits);
  }
};

std::string describe(const outcome& o) {
  char buffer[112];
  std::snprintf(buffer, sizeof buffer, "consumed %zu ec %d bits 0x%016llx%s%s", o.consumed,
                static_cast<int>(o.ec), static_cast<unsigned long long>(o.bits),
                o.nan ? " (NaN)" : "", o.wrote_on_error ? " (value written on error)" : "");
  return buffer;
}

using parser = std::from_chars_result (*)(const char*, const char*, double&);

/// Runs a parser; a range error or a rejection must leave the value as it was.
outcome run(parser parse, std::string_view s) {
  constexpr double untouched = 12345.0;
  double value = untouched;
  const std::from_chars_result r = parse(s.data(), s.data() + s.size(), value);
  return {static_cast<std::size_t>(r.ptr - s.data()), r.ec, std::bit_cast<std::uint64_t>(value),
          std::isnan(value), r.ec != std::errc{} && !(value == untouched)};
}

bool ci_starts_with(std::string_view s, std::size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    char c = s[at + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}
bool digit(char c) { return c >= '0' && c <= '9'; }

/// The oracle: the length of the longest prefix std::from_chars' general format accepts
/// (C++17 [charconv.from.chars]: strtod's pattern without '+', leading space or hex), and
/// its value from strtod. A finite result strtod flags ERANGE as infinity or zero is a
/// range error; a subnormal one is a value.
outcome oracle(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  bool special = false;
  if (ci_starts_with(s, i, "inf")) {
    i += 3;
    if (ci_starts_with(s, i, "inity")) i += 5;
    special = true;
  } else if (ci_starts_with(s, i, "nan")) {
    i += 3;
    if (i < s.size() && s[i] == '(') {
      std::size_t j = i + 1;
      while (j < s.size() && (digit(s[j]) || s[j] == '_' || (s[j] >= 'a' && s[j] <= 'z') ||
                              (s[j] >= 'A' && s[j] <= 'Z')))
        ++j;
      if (j < s.size() && s[j] == ')') i = j + 1;
    }
    special = true;
  } else {
    std::size_t digits = 0;
    while (i < s.size() && digit(s[i])) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && digit(s[i])) ++i, ++digits;
    }
    if (digits == 0) return {0, std::errc::invalid_argument};
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      std::size_t j = i + 1;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      if (j < s.size() && digit(s[j])) {
        while (j < s.size() && digit(s[j])) ++j;
        i = j;
      }
    }
  }
  const std::string text(s.substr(0, i));
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const int error = errno;
  REQUIRE_MESSAGE(end == text.c_str() + text.size(), "strtod read a different length: " << text);
  if (!special && error == ERANGE && (std::isinf(v) || v == 0.0))
    return {i, std::errc::result_out_of_range};
  return {i, std::errc{}, std::bit_cast<std::uint64_t>(v), std::isnan(v)};
}

std::from_chars_result portable(const char* first, const char* last, double& value) {
  return hd::portable_from_chars_double(first, last, value);
}
std::from_chars_result dispatched(const char* first, const char* last, double& value) {
  return hd::from_chars_double(first, last, value);
}
#if HEADROOM_STD_FROM_CHARS_DOUBLE
std::from_chars_result standard(const char* first, const char* last, double& value) {
  double parsed = 0.0;  // as from_chars_double: the value is written only on success
  const std::from_chars_result r = std::from_chars(first, last, parsed, std::chars_format::general);
  if (r.ec == std::errc{}) value = parsed;
  return r;
}
#endif

/// Counts how many strings each path gets exactly right.
struct tally {
  std::size_t strings = 0, portable_agrees = 0, dispatched_agrees = 0, std_agrees_with_portable = 0;

  void check(std::string_view s, const outcome& expected) {
    ++strings;
    const outcome p = run(portable, s);
    const outcome d = run(dispatched, s);
    if (p == expected) ++portable_agrees;
    if (d == expected) ++dispatched_agrees;
    CHECK_MESSAGE(p == expected, "portable '" << std::string(s.substr(0, 80))
                                              << "': " << describe(p) << ", expected "
                                              << describe(expected));
    CHECK_MESSAGE(d == expected, "dispatched '" << std::string(s.substr(0, 80))
                                                << "': " << describe(d) << ", expected "
                                                << describe(expected));
#if HEADROOM_STD_FROM_CHARS_DOUBLE
    if (run(standard, s) == p) ++std_agrees_with_portable;
#endif
  }
  void check(std::string_view s) { check(s, oracle(s)); }
  void report(const char* what) const {
    std::string line = std::string(what) + ": " + std::to_string(strings) +
                       " strings; portable == expected: " + std::to_string(portable_agrees) +
                       "; from_chars_double == expected: " + std::to_string(dispatched_agrees);
#if HEADROOM_STD_FROM_CHARS_DOUBLE
    line += "; std::from_chars == portable: " + std::to_string(std_agrees_with_portable);
#else
    line += "; std::from_chars not used in this build";
#endif
    MESSAGE(line);
    CHECK(portable_agrees == strings);
    CHECK(dispatched_agrees == strings);
#if HEADROOM_STD_FROM_CHARS_DOUBLE
    CHECK(std_agrees_with_portable == strings);
#endif
  }
};

constexpr std::errc ok{};
constexpr std::errc range = std::errc::result_out_of_range;
constexpr std::errc invalid = std::errc::invalid_argument;

/// A non-negative integer in base 10^9, least significant limb first.
struct big {
  std::vector<std::uint32_t> limbs{0};

  void multiply(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (std::uint32_t& limb : limbs) {
      const std::uint64_t v = std::uint64_t{limb} * factor + carry;
      limb = static_cast<std::uint32_t>(v % 1'000'000'000);
      carry = v / 1'000'000'000;
    }
    while (carry > 0) {
      limbs.push_back(static_cast<std::uint32_t>(carry % 1'000'000'000));
      carry /= 1'000'000'000;
    }
  }
  [[nodiscard]] std::string decimal() const {
    std::string out = std::to_string(limbs.back());
    char buffer[16];
    for (std::size_t i = limbs.size() - 1; i-- > 0;) {
      std::snprintf(buffer, sizeof buffer, "%09u", static_cast<unsigned>(limbs[i]));
      out += buffer;
    }
    return out;
  }
};

/// The exact decimal digits D and exponent E with D x 10^E == (2 x significand + 1) x 2^(q-1),
/// the midpoint between the finite double with these bits and the next one up.
std::pair<std::string, int> midpoint(std::uint64_t bits) {
  const std::uint64_t biased = bits >> 52;
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  const std::uint64_t significand = biased == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
  const int q = (biased == 0 ? 1 : static_cast<int>(biased)) - 1075;  // value = significand x 2^q
  big n;
  const std::uint64_t odd = 2 * significand + 1;  // midpoint = odd x 2^(q-1)
  n.limbs = {static_cast<std::uint32_t>(odd % 1'000'000'000),
             static_cast<std::uint32_t>(odd / 1'000'000'000 % 1'000'000'000),
             static_cast<std::uint32_t>(odd / 1'000'000'000'000'000'000)};
  while (n.limbs.size() > 1 && n.limbs.back() == 0) n.limbs.pop_back();
  int e2 = q - 1;
  int e10 = 0;
  for (; e2 > 0; --e2) n.multiply(2);
  for (; e2 < 0; ++e2, --e10) n.multiply(5);  // x 2^-1 == x 5 / 10
  return {n.decimal(), e10};
}

/// digits - 1, for a digit string that is not all zeros.
std::string minus_one(std::string digits) {
  std::size_t i = digits.size();
  while (i-- > 0) {
    if (digits[i] != '0') {
      --digits[i];
      break;
    }
    digits[i] = '9';
  }
  return digits;
}

/// The number fields of a text-exposition page: each sample's value and timestamp, and the
/// le / quantile label values.
std::vector<std::string> number_fields(std::string_view page) {
  std::vector<std::string> out;
  while (!page.empty()) {
    const std::size_t end = page.find('\n');
    std::string_view line = page.substr(0, end);
    page = end == std::string_view::npos ? std::string_view{} : page.substr(end + 1);
    if (line.empty() || line[0] == '#') continue;
    std::size_t i = line.find_first_of("{ ");
    if (i != std::string_view::npos && line[i] == '{') {  // labels: name="value", ...
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find('=', i);
        if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') break;
        std::string_view name = line.substr(i, eq - i);
        while (!name.empty() && (name.front() == ' ' || name.front() == ',')) name.remove_prefix(1);
        std::string value;
        std::size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) ++j;
          value += line[j];
        }
        if (name == "le" || name == "quantile") out.push_back(value);
        i = j + 1;
        while (i < line.size() && (line[i] == ',' || line[i] == ' ')) ++i;
      }
      ++i;
    }
    while (i < line.size()) {  // value [timestamp]
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
      if (i > start) out.emplace_back(line.substr(start, i - start));
      if (i < line.size() && line[i] == '\r') break;
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("detail/from_chars") {
  TEST_CASE("the oracle runs in the C locale and the build says which parser it uses") {
    const char* locale = std::setlocale(LC_NUMERIC, nullptr);
    REQUIRE(locale != nullptr);
    CHECK(std::string_view(locale) == "C");
#ifdef HEADROOM_PORTABLE_FROM_CHARS
    static_assert(HEADROOM_STD_FROM_CHARS_DOUBLE == 0,
                  "the forced build must not use the std path");
#endif
    const std::string path =
        std::string("detail::from_chars_double uses ") +
        (HEADROOM_STD_FROM_CHARS_DOUBLE ? "std::from_chars" : "the portable parser");
    MESSAGE(path);
  }

  TEST_CASE("hostile strings match bit patterns written down independently") {
    struct known {
      std::string_view text;
      std::size_t consumed;
      std::errc ec;
      std::uint64_t bits;
    };
    // Bits from Python's float() (correctly rounded); lengths and errors from the from_chars
    // grammar: no '+', no hex, a dangling exponent is not read, NaN/Inf spelled out.
    const known cases[] = {
        {"0", 1, ok, 0x0000000000000000},
        {"-0", 2, ok, 0x8000000000000000},
        {"0.1", 3, ok, 0x3FB999999999999A},
        {"0.30000000000000004", 19, ok, 0x3FD3333333333334},
        {"1e23", 4, ok, 0x44B52D02C7E14AF6},
        {"123456789012345678901234567890", 30, ok, 0x45F8EE90FF6C373E},
        {"9007199254740993", 16, ok, 0x4340000000000000},  // 2^53 + 1: tie, to even 2^53
        {"9007199254740995", 16, ok, 0x4340000000000002},  // 2^53 + 3: tie, to even 2^53 + 4
        {"4.9e-324", 8, ok, 0x0000000000000001},           // the smallest subnormal
        {"5e-324", 6, ok, 0x0000000000000001},
        {"2.4703282292062328e-324", 23, ok, 0x0000000000000001},  // just above half of it
        {"2.4703282292062327e-324", 23, range, 0},                // just below: rounds to zero
        {"1e-400", 6, range, 0},
        {"-1e-400", 7, range, 0},
        {"2.2250738585072011e-308", 23, ok, 0x000FFFFFFFFFFFFF},  // the largest subnormal
        {"2.2250738585072012e-308", 23, ok, 0x0010000000000000},  // the smallest normal
        {"1.7976931348623157e308", 22, ok, 0x7FEFFFFFFFFFFFFF},   // the largest double
        {"1.7976931348623158e308", 22, ok, 0x7FEFFFFFFFFFFFFF},   // below the midpoint to 2^1024
        {"1.7976931348623159e308", 22, range, 0},                 // above it: infinity
        {"1e400", 5, range, 0},
        {"0e99999999999999999999999", 25, ok, 0x0000000000000000},
        {"1e-99999999999999999999999", 26, range, 0},
        {"0x1p3", 1, ok, 0x0000000000000000},  // hex is not the general format: reads "0"
        {"+Inf", 0, invalid, 0},
        {"+1", 0, invalid, 0},
        {" 1", 0, invalid, 0},
        {"-Inf", 4, ok, 0xFFF0000000000000},
        {"inf", 3, ok, 0x7FF0000000000000},
        {"INFINITY", 8, ok, 0x7FF0000000000000},
        {"infinit", 3, ok, 0x7FF0000000000000},
        {"1e", 1, ok, 0x3FF0000000000000},
        {"1e+", 1, ok, 0x3FF0000000000000},
        {"1.5e-x", 3, ok, 0x3FF8000000000000},
        {"5.", 2, ok, 0x4014000000000000},
        {".5", 2, ok, 0x3FE0000000000000},
        {"1.2.3", 3, ok, 0x3FF3333333333333},
        {".", 0, invalid, 0},
        {"-", 0, invalid, 0},
        {"", 0, invalid, 0},
        {"e5", 0, invalid, 0},
        {"in", 0, invalid, 0},
    };
    tally t;
    for (const known& k : cases) {
      const outcome expected{k.consumed, k.ec, k.bits, false};
      CHECK_MESSAGE(oracle(k.text) == expected, "strtod disagrees on " << std::string(k.text));
      t.check(k.text, expected);
    }
    const std::pair<std::string_view, std::size_t> nans[] = {
        {"NaN", 3},         {"nan", 3},  {"-nan", 4},  {"nan(123)", 8},
        {"NAN(abc_9)", 10}, {"nan(", 3}, {"nan(1", 3}, {"nan(1-2)", 3}};
    for (const auto& [text, consumed] : nans) t.check(text, {consumed, ok, 0, true});
    // 1 + 2^-53, the midpoint between 1 and the next double, exactly: ties to even gives 1;
    // any non-zero digit after it, even the 800th, gives the next double up.
    const std::string one_half_ulp = "1.00000000000000011102230246251565404236316680908203125";
    t.check(one_half_ulp, {one_half_ulp.size(), ok, 0x3FF0000000000000, false});
    const std::string above = one_half_ulp + std::string(800, '0') + "1";
    t.check(above, {above.size(), ok, 0x3FF0000000000001, false});
    const std::string below =
        "1.00000000000000011102230246251565404236316680908203124" + std::string(800, '9') + "e0";
    t.check(below, {below.size(), ok, 0x3FF0000000000000, false});
    // The same with few significant digits, where the short paths apply: 2e23 = 5^23 x 2^24
    // and 5^23 has 54 bits, so 2e23 is a tie (Clinger's path), as is 2^53 + 1 (the 128-bit
    // path); a non-zero digit past the 800 the parser keeps lifts each to the double above.
    const std::string two_e23 = "2" + std::string(23, '0') + "." + std::string(828, '0') + "1";
    t.check(two_e23, {two_e23.size(), ok, 0x44C52D02C7E14AF7, false});
    t.check("2e23", {4, ok, 0x44C52D02C7E14AF6, false});
    const std::string odd_tie = "9007199254740993." + std::string(800, '0') + "1";
    t.check(odd_tie, {odd_tie.size(), ok, 0x4340000000000001, false});
    t.report("hostile");
  }

  TEST_CASE("midpoints between adjacent doubles round to even and their neighbours do not") {
    std::mt19937_64 bits_source(20240917);  // raw outputs only: the same bits on every platform
    tally t;
    for (int i = 0; i < 1500; ++i) {
      std::uint64_t bits = bits_source() >> 1;  // positive
      if (i % 4 == 0) bits >>= 12;              // a subnormal or a tiny normal
      if ((bits >> 52) >= 0x7FE) continue;      // the midpoint above the largest is infinity
      const auto [digits, e10] = midpoint(bits);
      const std::uint64_t even = (bits & 1) == 0 ? bits : bits + 1;
      const std::string tie = digits + "e" + std::to_string(e10);
      t.check(tie, {tie.size(), ok, even, false});
      const std::string up = digits + "00000000001e" + std::to_string(e10 - 11);
      t.check(up, {up.size(), ok, bits + 1, false});
      const std::string down = minus_one(digits + "00000000000") + "e" + std::to_string(e10 - 11);
      t.check(down, {down.size(), ok, bits, false});
    }
    // Doubles in [2^49, 2^64) have midpoints of 16 to 20 digits (x.125, x.5, odd integers):
    // the short path's territory. One unit of the last digit either way stays between them.
    for (int i = 0; i < 1500; ++i) {
      const std::uint64_t biased = 1023 + 49 + bits_source() % 15;
      const std::uint64_t bits = (biased << 52) | (bits_source() >> 12);
      const auto [digits, e10] = midpoint(bits);
      const std::uint64_t even = (bits & 1) == 0 ? bits : bits + 1;
      // Built by appending: g++ 12's "literal" + std::string&& at -O3 raises a false
      // -Wrestrict (GCC bug 105329).
      std::string exponent = "e";
      exponent += std::to_string(e10);
      t.check(digits + exponent, {digits.size() + exponent.size(), ok, even, false});
      std::string plus_one = digits;  // digits + 1: the last digit is odd (5, or odd x 2^0)
      ++plus_one.back();
      if (plus_one.back() > '9') continue;
      t.check(plus_one + exponent, {plus_one.size() + exponent.size(), ok, bits + 1, false});
      const std::string less_one = minus_one(digits);
      t.check(less_one + exponent, {less_one.size() + exponent.size(), ok, bits, false});
    }
    // Half the smallest subnormal, exactly (2^-1075): ties to even gives zero, a range error.
    const auto [digits, e10] = midpoint(0);
    const std::string tie = digits + "e" + std::to_string(e10);
    t.check(tie, {tie.size(), range, 0, false});
    const std::string up = digits + "1e" + std::to_string(e10 - 1);
    t.check(up, {up.size(), ok, 1, false});
    t.report("midpoints");
  }

  TEST_CASE("random decimal strings agree with strtod bit for bit") {
    std::mt19937_64 g(0x6865616472'6f6f6dULL);  // raw outputs only: portable bits
    auto pick = [&g](std::uint64_t n) { return g() % n; };
    tally t;
    for (int i = 0; i < 12000; ++i) {
      std::string s;
      if (pick(4) == 0) s += '-';
      const auto digits = static_cast<std::size_t>(1 + (pick(8) == 0 ? pick(120) : pick(24)));
      const auto leading_zeros = static_cast<std::size_t>(pick(3) == 0 ? pick(6) : 0);
      std::string mantissa(leading_zeros, '0');
      for (std::size_t k = 0; k < digits; ++k) mantissa += static_cast<char>('0' + pick(10));
      if (pick(5) == 0) {  // an integer
        s += mantissa;
      } else {  // a point inside, at the start or at the end
        const auto at = static_cast<std::size_t>(pick(mantissa.size() + 1));
        s += mantissa.substr(0, at) + "." + mantissa.substr(at);
      }
      if (pick(3) != 0) {  // an exponent across the whole range and beyond
        s += pick(2) == 0 ? 'e' : 'E';
        const auto sign = pick(3);
        if (sign == 1) s += '+';
        if (sign == 2) s += '-';
        s += std::to_string(pick(2) == 0 ? pick(30) : pick(400));
      }
      constexpr std::string_view trailing[] = {"x", "e", "e+", " 1", ".5", "_"};
      if (pick(10) == 0) s += trailing[pick(std::size(trailing))];  // text the parse stops at
      t.check(s);
    }
    char buffer[64];
    for (int i = 0; i < 6000; ++i) {  // printf's rendering of random doubles, 1 to 17 digits
      const double d = std::bit_cast<double>(g());
      std::snprintf(buffer, sizeof buffer, "%.*g", static_cast<int>(1 + g() % 17), d);
      t.check(buffer);
    }
    for (int i = 0; i < 300; ++i) {  // mantissas of 800 to 1,200 digits
      std::string s = std::to_string(g() % 10) + ".";
      const auto n = static_cast<std::size_t>(800 + g() % 401);
      for (std::size_t k = 0; k < n; ++k) s += static_cast<char>('0' + g() % 10);
      s += 'e';  // appended apart: GCC bug 105329, as above
      s += std::to_string(static_cast<int>(g() % 660) - 340);
      t.check(s);
    }
    t.report("random");
    CHECK(t.strings >= 10000);
  }

  TEST_CASE("the numbers of the Prometheus fixture pages agree with strtod") {
    tally t;
    for (const char* page :
         {"vllm_v1_deepseek_specdecode.txt", "vllm_v0_mixed_datadog.txt",
          "sglang_qwen35_moe_gorgo.txt", "sglang_llama31_8b_docs.txt",
          "prometheus_alltypes.237mfs.prom.txt", "prometheus_common_expfmt_text.txt"}) {
      const std::vector<std::string> fields =
          number_fields(headroom::test::read_test_data(std::string("metrics/") + page));
      CHECK_MESSAGE(fields.size() > 50, page);
      for (const std::string& f : fields) {
        t.check(f);
        if (!f.empty() && f[0] == '+') t.check(std::string_view(f).substr(1));
      }
    }
    t.report("fixture pages");
  }
}

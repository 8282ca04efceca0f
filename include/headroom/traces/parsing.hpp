// SPDX-License-Identifier: Apache-2.0
// The private parsing helpers of the trace readers: date-times, token counts, times, JSON values
// skipped, and the "file:line: reason" errors.
// Part of the trace readers (include/headroom/traces.hpp); formats and a worked example:
// docs/traces.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "../detail/checks.hpp"
#include "../detail/from_chars.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace traces {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

namespace detail {

/// Trace times are int64 nanoseconds; every accepted time lies within ±2^62 ns (146 years),
/// so a difference of two never overflows.
inline constexpr std::int64_t trace_time_limit_ns = std::int64_t{1} << 62;
/// A token count above this is rejected (no model reads or writes 4 billion tokens).
inline constexpr std::uint64_t trace_token_limit = 0xffffffffULL;

/// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant,
/// "chrono-Compatible Low-Level Date Algorithms", days_from_civil).
[[nodiscard]] constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m,
                                                     unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);                 // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

[[nodiscard]] constexpr unsigned days_in_month(std::int64_t y, unsigned m) noexcept {
  constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

[[nodiscard]] constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// n decimal digits at s (all checked); -1 if any is not a digit.
[[nodiscard]] constexpr int fixed_digits(const char* s, int n) noexcept {
  int v = 0;
  for (int i = 0; i < n; ++i) {
    if (!is_digit(s[i])) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/// Parses "YYYY-MM-DD HH:MM:SS" (or 'T' between date and time), then an optional fraction
/// of 1 to 9 digits, then an optional "Z" or "+HH:MM" / "-HH:MM" offset, into nanoseconds
/// since 1970-01-01 00:00 (UTC when an offset is given). Years 1970 to 2200. The days of the
/// last date seen are cached (a trace repeats its date on every row). Returns a reason, or
/// nullptr when the text is a date-time.
class datetime_parser {
 public:
  [[nodiscard]] HEADROOM_DECL const char* parse(std::string_view s, std::int64_t& ns) noexcept;

 private:
  char date_[10] = {};
  std::int64_t days_ = 0;
  bool have_date_ = false;
};

/// Strips spaces and tabs at both ends.
[[nodiscard]] constexpr std::string_view trim_blanks(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// A whole field as a token count (decimal digits, at most trace_token_limit).
[[nodiscard]] HEADROOM_DECL bool parse_token_count(std::string_view s, std::size_t& out) noexcept;

/// A whole field as a non-negative time in `unit_ns` nanoseconds (an integer, or a decimal
/// number through from_chars_double), converted to ns within ±2^62. nullptr or a reason.
[[nodiscard]] HEADROOM_DECL const char* parse_time_field(std::string_view s, std::int64_t unit_ns,
                                                         std::int64_t& ns) noexcept;

/// JSON whitespace.
[[nodiscard]] constexpr bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// Skips one JSON value at s[i] (string, number, literal, array or object, nested up to 64
/// deep); i ends past it. false if it is not one.
[[nodiscard]] HEADROOM_DECL bool skip_json_value(std::string_view s, std::size_t& i) noexcept;

/// Throws invalid_argument naming `source`: "name:line: reason".
[[noreturn]] HEADROOM_DECL void trace_line_error(std::string_view name, std::size_t line,
                                                 std::string_view reason);

/// The same, quoting the offending text (its first 80 bytes): "name:line: reason: \"text\"".
[[noreturn]] HEADROOM_DECL void trace_line_error(std::string_view name, std::size_t line,
                                                 std::string_view reason, std::string_view text);

}  // namespace detail

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/traces/parsing.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/traces/parsing.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../traces/parsing.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace traces {
namespace detail {

HEADROOM_DECL auto datetime_parser::parse(std::string_view s, std::int64_t& ns) noexcept -> const
    char* {
  constexpr const char* shape = "is not a date-time YYYY-MM-DD HH:MM:SS[.fffffff]";
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return shape;
  std::int64_t days = 0;
  if (have_date_ && std::memcmp(date_, s.data(), 10) == 0) {
    days = days_;
  } else {
    const int y = fixed_digits(s.data(), 4), mo = fixed_digits(s.data() + 5, 2),
              d = fixed_digits(s.data() + 8, 2);
    if (y < 0 || mo < 0 || d < 0) return shape;
    if (y < 1970 || y > 2200) return "has a year outside 1970-2200";
    if (mo < 1 || mo > 12) return "has a month outside 01-12";
    if (d < 1 || static_cast<unsigned>(d) > days_in_month(y, static_cast<unsigned>(mo)))
      return "has a day outside its month";
    days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    std::memcpy(date_, s.data(), 10);
    days_ = days;
    have_date_ = true;
  }
  const int h = fixed_digits(s.data() + 11, 2), mi = fixed_digits(s.data() + 14, 2),
            sec = fixed_digits(s.data() + 17, 2);
  if (h < 0 || mi < 0 || sec < 0) return shape;
  if (h > 23 || mi > 59 || sec > 59) return "has a time of day outside 00:00:00-23:59:59";
  std::int64_t fraction_ns = 0;
  std::size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::int64_t scale = 100'000'000;
    const std::size_t first = i;
    while (i < s.size() && is_digit(s[i])) {
      if (i - first == 9) return "has more than 9 fractional digits";
      fraction_ns += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == first) return shape;
  }
  std::int64_t offset_s = 0;
  if (i < s.size()) {
    if (s[i] == 'Z' && i + 1 == s.size()) {
      ++i;
    } else if ((s[i] == '+' || s[i] == '-') && s.size() - i == 6 && s[i + 3] == ':') {
      const int oh = fixed_digits(s.data() + i + 1, 2), om = fixed_digits(s.data() + i + 4, 2);
      if (oh < 0 || om < 0 || oh > 23 || om > 59) return "has an offset outside -23:59..+23:59";
      offset_s = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
      i = s.size();
    } else {
      return shape;
    }
  }
  const std::int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  ns = seconds * 1'000'000'000 + fraction_ns;
  return nullptr;
}

HEADROOM_DECL bool parse_token_count(std::string_view s, std::size_t& out) noexcept {
  std::uint64_t v = 0;
  const char* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), last, v);
  if (s.empty() || ec != std::errc{} || ptr != last || v > trace_token_limit) return false;
  out = static_cast<std::size_t>(v);
  return true;
}

HEADROOM_DECL const char* parse_time_field(std::string_view s, std::int64_t unit_ns,
                                           std::int64_t& ns) noexcept {
  const char* last = s.data() + s.size();
  if (s.empty()) return "is empty";
  std::uint64_t whole = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), last, whole);
  if (ec == std::errc{} && ptr == last) {
    if (whole >= static_cast<std::uint64_t>(trace_time_limit_ns / unit_ns))
      return "is out of range (more than 146 years)";
    ns = static_cast<std::int64_t>(whole) * unit_ns;
    return nullptr;
  }
  double v = 0.0;
  const auto [dptr, dec] = from_chars_double(s.data(), last, v);
  if (dec != std::errc{} || dptr != last) return "is not a number";
  if (!is_finite(v)) return "is not finite";
  if (v < 0.0) return "is negative";
  const double scaled = std::round(v * static_cast<double>(unit_ns));
  if (!(scaled < static_cast<double>(trace_time_limit_ns)))
    return "is out of range (more than 146 years)";
  ns = static_cast<std::int64_t>(scaled);
  return nullptr;
}

HEADROOM_DECL bool skip_json_value(std::string_view s, std::size_t& i) noexcept {
  if (i >= s.size()) return false;
  const char c = s[i];
  if (c == '"') {
    for (++i; i < s.size(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '"') {
        ++i;
        return true;
      }
    }
    return false;
  }
  if (c == '[' || c == '{') {
    // Brackets must close in order (a 64-level stack of bits, 1 for an object); commas and
    // colons are not checked: a skipped value is only scanned for where it ends.
    std::uint64_t kinds = 0;
    int depth = 0;
    for (; i < s.size(); ++i) {
      const char k = s[i];
      if (k == '[' || k == '{') {
        if (depth == 64) return false;
        kinds = (kinds << 1) | (k == '{' ? 1U : 0U);
        ++depth;
      } else if (k == ']' || k == '}') {
        if ((kinds & 1U) != (k == '}' ? 1U : 0U)) return false;
        kinds >>= 1;
        if (--depth == 0) {
          ++i;
          return true;
        }
      } else if (k == '"') {
        if (!skip_json_value(s, i)) return false;
        --i;  // the loop's ++i
      }
    }
    return false;
  }
  const std::size_t first = i;
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_json_space(s[i])) ++i;
  return i > first;
}

HEADROOM_DECL void trace_line_error(std::string_view name, std::size_t line,
                                    std::string_view reason) {
  std::string message;
  message.reserve(name.size() + reason.size() + 120);
  message += name;
  message += ':';
  char digits[24];
  message.append(digits, std::to_chars(digits, digits + sizeof digits, line).ptr);
  message += ": ";
  message += reason;
  raise_invalid_argument("source", message);
}

HEADROOM_DECL void trace_line_error(std::string_view name, std::size_t line,
                                    std::string_view reason, std::string_view text) {
  constexpr std::size_t shown = 80;
  std::string quoted(reason);
  quoted += ": \"";
  quoted += text.substr(0, shown);
  if (text.size() > shown) quoted += "...";
  quoted += '"';
  trace_line_error(name, line, quoted);
}

}  // namespace detail
}  // namespace traces
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

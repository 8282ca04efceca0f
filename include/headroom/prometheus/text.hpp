// SPDX-License-Identifier: Apache-2.0
// The Prometheus text exposition format 0.0.4: a zero-copy parser over a std::string_view
// into a prometheus::page (prometheus/page.hpp), strict or lenient, with the scrape limits
// Prometheus itself applies (labels per series, series and families per page).
//
// Sources: the format as specified in prometheus/docs content/docs/instrumenting/
// exposition_formats.md and as implemented by prometheus/common expfmt/text_parse.go (whose
// rules the strict mode follows). docs/prometheus.md lists the policies and the deviations.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "../detail/from_chars.hpp"
#include "../detail/utf8.hpp"
#include "label_names.hpp"
#include "page.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// strict: the first malformed line stops the parse and is reported. lenient: malformed lines
/// are skipped, each recorded in page::skipped(); the parse never fails.
enum class parse_mode : unsigned char { strict, lenient };

/// Parser options. The three page limits follow Prometheus's scrape limits (label_limit,
/// sample_limit): 0, the default, means no limit; a line past a limit is an error of its own
/// code (strict: the parse stops; lenient: the line is skipped, and so is every later line
/// past the same limit). The parser's time is O(n log n) in the page size without them.
/// Label names are bounded by default (label_names.hpp), as the HTTP API reader bounds them.
struct parse_options {
  parse_mode mode = parse_mode::strict;
  /// false (default): a last line without '\n' is parsed like any other and flagged by
  /// page::missing_final_newline(). true: it is an error (Go's expfmt behaviour).
  bool require_final_newline = false;
  /// Most labels one sample may carry; 0: no limit. Past it: parse_errc::too_many_labels.
  std::size_t max_labels_per_series = 0;
  /// Most samples (series) a page may hold; 0: no limit. Past it: too_many_series.
  std::size_t max_series_per_page = 0;
  /// Most metric families a page may name (HELP, TYPE or a sample of a new name); 0: no
  /// limit. Past it: too_many_families.
  std::size_t max_families_per_page = 0;
  /// Longest label name, bytes (label_names.hpp); 0: no limit. Past it: label_name_too_long.
  std::size_t max_label_name_bytes = default_max_label_name_bytes;
};

namespace detail {

[[nodiscard]] constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }
[[nodiscard]] constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
[[nodiscard]] constexpr bool is_alpha_(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
[[nodiscard]] constexpr bool is_metric_start(char c) noexcept { return is_alpha_(c) || c == ':'; }
[[nodiscard]] constexpr bool is_metric_char(char c) noexcept {
  return is_metric_start(c) || is_digit(c);
}
[[nodiscard]] constexpr bool is_label_char(char c) noexcept { return is_alpha_(c) || is_digit(c); }

[[nodiscard]] constexpr char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
[[nodiscard]] constexpr bool iequals(std::string_view a, std::string_view lower_b) noexcept {
  if (a.size() != lower_b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower_b[i]) return false;
  return true;
}

/// parse_float stops reading an out-of-range exponent's digits here: far past any double's
/// decimal exponent (±324), so the sign of the magnitude is still right, and no overflow.
inline constexpr long long exponent_clamp = 100000;

/// Parses a float as Go's strconv.ParseFloat does for the text format: optional sign,
/// decimal digits with optional fraction and exponent; Inf/Infinity with optional sign and
/// NaN without, case-insensitive. No hex, no underscores. Overflow -> value_out_of_range;
/// underflow -> signed zero. Locale-independent and exact (detail/from_chars.hpp).
[[nodiscard]] HEADROOM_DECL parse_errc parse_float(std::string_view s, double& out) noexcept;

/// Parses a base-10 int64 with optional sign (Go's strconv.ParseInt(s, 10, 64)).
[[nodiscard]] HEADROOM_DECL bool parse_int64(std::string_view s, std::int64_t& out) noexcept;

/// The line-level parser behind parse_into(); writes into a page.
class text_parser {
 public:
  text_parser(std::string_view text, page& out, parse_options options) noexcept
      : text_(text), out_(out), options_(options) {}

  HEADROOM_DECL void run();

 private:
  static constexpr std::size_t npos = page::npos;

  HEADROOM_DECL static std::size_t count_lines(std::string_view s) noexcept;

  HEADROOM_DECL parse_errc fail(std::size_t column, parse_errc code) noexcept;
  void skip_blanks(std::size_t& i) const noexcept {
    while (i < line_.size() && is_blank(line_[i])) ++i;
  }

  HEADROOM_DECL parse_errc parse_line();

  // # HELP name text / # TYPE name type / any other comment. Follows expfmt: "# HELP" or
  // "# HELP name" with nothing after the name are plain comments.
  HEADROOM_DECL parse_errc parse_comment(std::size_t i);

  // The index of a new family, or npos when the page already holds max_families_per_page.
  HEADROOM_DECL std::size_t new_family(std::string_view name, std::uint64_t h);

  // The family a sample belongs to, or npos when it starts a new one (expfmt's rule: the
  // family of that exact name, else x for x_sum/x_count of a summary or histogram and for
  // x_bucket of a histogram). When it returns npos, h holds hash(name).
  [[nodiscard]] HEADROOM_DECL std::size_t resolve_family(std::string_view name,
                                                         std::uint64_t& h) const noexcept;

  HEADROOM_DECL parse_errc parse_sample(std::size_t i);

  // A histogram sample's le label, a summary's quantile label, must be a float (unescaped).
  HEADROOM_DECL parse_errc check_bound_label(metric_type type, std::size_t first_label) noexcept;

  // The index in the page's label store of the first label from `first` on whose name an
  // earlier label of the same sample already has, or npos. Linear in the labels: a pairwise
  // scan up to 16 of them, beyond that a table of the names under the page's keyed hash.
  [[nodiscard]] HEADROOM_DECL std::size_t first_duplicate(std::size_t first);

  // Reads `name="value", ...}` from i (just after '{'); leaves end just after '}'.
  HEADROOM_DECL parse_errc parse_labels(std::size_t i, std::size_t& end);

  std::string_view text_;
  page& out_;
  parse_options options_;
  std::string_view line_;
  std::size_t line_no_ = 0;
  std::size_t column_ = 0;
  std::string_view last_name_;
  std::size_t last_family_ = npos;
};

}  // namespace detail

/// Parses text into out, reusing out's storage (no allocation once it has grown). text must
/// outlive out: every view in out points into it.
inline void parse_into(std::string_view text, page& out, parse_options options = {}) {
  detail::text_parser(text, out, options).run();
}

/// Parses a page of the text format. text must outlive the result (zero-copy views).
[[nodiscard]] HEADROOM_DECL page parse(std::string_view text, parse_options options = {});

/// Deleted: a page of views into a temporary string would dangle. Keep the text alive.
template <class String>
requires std::is_same_v<std::remove_cvref_t<String>, std::string> &&
    (!std::is_lvalue_reference_v<String>)page
    parse(String&& text, parse_options options = {}) = delete;

/// Deleted: a page of views into a temporary string would dangle. Keep the text alive.
template <class String>
requires std::is_same_v<std::remove_cvref_t<String>, std::string> &&
    (!std::is_lvalue_reference_v<String>)void parse_into(String&& text, page& out,
                                                         parse_options options = {}) = delete;

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/text.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// A parsed Prometheus text page: its families, samples and labels as views into the text,
// the family table (keyed against hash flooding), why a line was rejected, and the decoding
// of escaped label values. prometheus/text.hpp fills a page; docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/keyed_hash.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// A metric family's type, from its `# TYPE` line (untyped when there is none).
enum class metric_type : unsigned char { untyped, counter, gauge, histogram, summary };

/// The keyword of a metric type as the format spells it ("counter", ...).
[[nodiscard]] constexpr std::string_view to_string(metric_type type) noexcept {
  switch (type) {
    case metric_type::counter:
      return "counter";
    case metric_type::gauge:
      return "gauge";
    case metric_type::histogram:
      return "histogram";
    case metric_type::summary:
      return "summary";
    case metric_type::untyped:
      break;
  }
  return "untyped";
}

/// Why a line was rejected. Each code has a fixed English reason (describe()).
enum class parse_errc : unsigned char {
  none,
  invalid_metric_name,   ///< a sample line not starting with [a-zA-Z_:], or a bad character in it
  invalid_label_name,    ///< a label name not matching [a-zA-Z_][a-zA-Z0-9_]*
  reserved_label_name,   ///< the label name __name__
  duplicate_label_name,  ///< the same label name twice in one sample
  expected_equals,       ///< a label name not followed by '='
  expected_quote,        ///< a label value not in double quotes
  invalid_escape,        ///< a label value escape other than \\, \" or \n
  unterminated_label_value,  ///< the line ends inside a label value (raw newline)
  invalid_utf8,              ///< a label value that is not valid UTF-8
  expected_label_separator,  ///< a label value not followed by ',' or '}'
  invalid_value,             ///< a sample value that is not a float
  value_out_of_range,        ///< a sample value beyond the range of a double
  invalid_timestamp,         ///< a timestamp that is not a 64-bit integer (milliseconds)
  trailing_characters,       ///< something after the timestamp
  invalid_comment_name,      ///< a # HELP / # TYPE line with an invalid metric name
  invalid_help_escape,       ///< a HELP escape other than \\ or \n
  unknown_type,              ///< a # TYPE other than counter, gauge, histogram, summary, untyped
  duplicate_help,            ///< a second # HELP line for one family
  duplicate_type,            ///< a second # TYPE line, or a # TYPE after the family's samples
  invalid_bucket_bound,      ///< a histogram sample whose le label is not a float
  invalid_quantile_label,    ///< a summary sample whose quantile label is not a float
  missing_final_newline,     ///< the page does not end with '\n' (only with require_final_newline)
  too_many_labels,      ///< a sample with more labels than parse_options::max_labels_per_series
  too_many_series,      ///< a sample past parse_options::max_series_per_page
  too_many_families,    ///< a new family past parse_options::max_families_per_page
  label_name_too_long,  ///< a label name longer than parse_options::max_label_name_bytes
};

/// A one-line English reason for a parse error code.
[[nodiscard]] constexpr std::string_view describe(parse_errc code) noexcept {
  switch (code) {
    case parse_errc::none:
      return "no error";
    case parse_errc::invalid_metric_name:
      return "invalid metric name";
    case parse_errc::invalid_label_name:
      return "invalid label name";
    case parse_errc::reserved_label_name:
      return "label name __name__ is reserved";
    case parse_errc::duplicate_label_name:
      return "duplicate label name";
    case parse_errc::expected_equals:
      return "expected '=' after label name";
    case parse_errc::expected_quote:
      return "expected '\"' to open the label value";
    case parse_errc::invalid_escape:
      return "invalid escape sequence in label value";
    case parse_errc::unterminated_label_value:
      return "label value not terminated on its line";
    case parse_errc::invalid_utf8:
      return "label value is not valid UTF-8";
    case parse_errc::expected_label_separator:
      return "expected ',' or '}' after label value";
    case parse_errc::invalid_value:
      return "sample value is not a float";
    case parse_errc::value_out_of_range:
      return "sample value out of the range of a double";
    case parse_errc::invalid_timestamp:
      return "timestamp is not a 64-bit integer";
    case parse_errc::trailing_characters:
      return "unexpected characters after the timestamp";
    case parse_errc::invalid_comment_name:
      return "invalid metric name in HELP or TYPE line";
    case parse_errc::invalid_help_escape:
      return "invalid escape sequence in HELP text";
    case parse_errc::unknown_type:
      return "unknown metric type";
    case parse_errc::duplicate_help:
      return "second HELP line for the metric family";
    case parse_errc::duplicate_type:
      return "second TYPE line for the metric family, or TYPE after its samples";
    case parse_errc::invalid_bucket_bound:
      return "histogram le label is not a float";
    case parse_errc::invalid_quantile_label:
      return "summary quantile label is not a float";
    case parse_errc::missing_final_newline:
      return "page does not end with a newline";
    case parse_errc::too_many_labels:
      return "more labels in the sample than max_labels_per_series allows";
    case parse_errc::too_many_series:
      return "more samples on the page than max_series_per_page allows";
    case parse_errc::too_many_families:
      return "more metric families on the page than max_families_per_page allows";
    case parse_errc::label_name_too_long:
      return "label name longer than max_label_name_bytes allows";
  }
  return "unknown error";
}

/// Where and why a line was rejected: 1-based line and byte column (column of the offending
/// character within the line), and the code.
struct parse_error {
  std::size_t line = 0;                ///< 1-based line number
  std::size_t column = 0;              ///< 1-based byte column within the line
  parse_errc code = parse_errc::none;  ///< what is wrong with the line
  /// The fixed English reason for code.
  [[nodiscard]] constexpr std::string_view reason() const noexcept { return describe(code); }
};

/// A label pair; both views point into the parsed text. value is raw: the text between the
/// quotes with escapes (\\, \", \n) intact; use unescape() or raw_equals() on it.
struct label {
  std::string_view name{};   ///< [a-zA-Z_][a-zA-Z0-9_]*
  std::string_view value{};  ///< raw, escapes not decoded
  bool escaped = false;      ///< value contains at least one backslash escape
};

/// One sample line. name points into the text; labels are page::labels(sample).
struct sample {
  std::string_view name{};                     ///< full name, suffix included (x_bucket, x_total)
  double value = 0;                            ///< may be NaN or +-Inf
  std::optional<std::int64_t> timestamp_ms{};  ///< milliseconds since the epoch, when given
  std::size_t family = 0;                      ///< index into page::families()
  std::size_t first_label = 0;  ///< index of the first label in the page's label store
  std::size_t label_count = 0;  ///< number of labels
  std::size_t line = 0;         ///< 1-based line number
};

/// A metric family: named by its HELP/TYPE lines, or by its first sample when untyped.
/// Samples x_sum/x_count (summary, histogram) and x_bucket (histogram) belong to family x.
struct family {
  std::string_view name{};  ///< the name its HELP/TYPE lines or its first sample give
  std::string_view help{};  ///< raw HELP text (escapes \\ and \n intact), empty if none
  metric_type type = metric_type::untyped;  ///< from its # TYPE line; untyped without one
  bool has_help = false;                    ///< a # HELP line was seen
  bool has_type = false;                    ///< a # TYPE line was seen
  std::size_t samples = 0;                  ///< number of samples in the family
};

class page;
namespace detail {
class text_parser;

/// The most slots any lookup in p's family table probes (1 when every name sits in its own
/// slot). For tests: names built to collide must not make it grow with their number.
[[nodiscard]] HEADROOM_DECL std::size_t longest_probe(const page& p) noexcept;
}  // namespace detail

/// The result of a parse: families, samples and labels as views into the text, plus the error
/// (strict) or the skipped lines (lenient). Cheap to keep and reuse with parse_into().
class page {
 public:
  /// The text the page was parsed from.
  [[nodiscard]] std::string_view text() const noexcept { return text_; }
  /// True unless a strict parse failed. A failed page keeps the samples before the error.
  [[nodiscard]] bool ok() const noexcept { return !error_.has_value(); }
  /// The error that stopped a strict parse.
  [[nodiscard]] const std::optional<parse_error>& error() const noexcept { return error_; }
  /// Lines skipped by a lenient parse, in order, with their reasons.
  [[nodiscard]] std::span<const parse_error> skipped() const noexcept { return skipped_; }
  /// Number of lines in the text (a last line without '\n' counts).
  [[nodiscard]] std::size_t line_count() const noexcept { return line_count_; }
  /// True when the text is non-empty and does not end with '\n'.
  [[nodiscard]] bool missing_final_newline() const noexcept { return missing_newline_; }
  /// All families in order of first appearance.
  [[nodiscard]] std::span<const family> families() const noexcept { return families_; }
  /// All samples in text order.
  [[nodiscard]] std::span<const sample> samples() const noexcept { return samples_; }
  /// The labels of s, in text order.
  [[nodiscard]] std::span<const label> labels(const sample& s) const noexcept {
    return std::span<const label>(labels_).subspan(s.first_label, s.label_count);
  }
  /// The family s belongs to.
  [[nodiscard]] const family& family_of(const sample& s) const noexcept {
    return families_[s.family];
  }
  /// The raw value of label name on s, if present.
  [[nodiscard]] HEADROOM_DECL std::optional<std::string_view> label_value(
      const sample& s, std::string_view name) const noexcept;
  /// The index of the family with exactly this name, if any. O(1) expected, whatever the
  /// names: the table's hash is keyed per page (see detail::siphash13).
  [[nodiscard]] HEADROOM_DECL std::optional<std::size_t> find_family(
      std::string_view name) const noexcept;
  /// Empties the page, keeping its storage.
  HEADROOM_DECL void clear() noexcept;

 private:
  friend class detail::text_parser;
  friend std::size_t detail::longest_probe(const page& p) noexcept;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  [[nodiscard]] std::uint64_t hash(std::string_view s) const noexcept {
    return headroom::detail::siphash13(key0_, key1_, s);
  }
  [[nodiscard]] std::size_t lookup(std::string_view name) const noexcept {
    return lookup(name, hash(name));
  }
  // The family named `name`, whose hash is h, or npos.
  [[nodiscard]] HEADROOM_DECL std::size_t lookup(std::string_view name,
                                                 std::uint64_t h) const noexcept;
  HEADROOM_DECL void insert_slot(std::size_t index);
  // Adds a family named `name`, whose hash is h (not yet in the table).
  HEADROOM_DECL std::size_t add_family(std::string_view name, std::uint64_t h);

  std::string_view text_;
  std::vector<family> families_;
  std::vector<sample> samples_;
  std::vector<label> labels_;
  std::vector<parse_error> skipped_;
  std::vector<std::uint64_t> hashes_;  // hash(families_[i].name)
  // Open addressing: 0 empty, else the family's index + 1 in the low 32 bits and the top 32
  // bits of its hash above them (a probe reads a name only when those match).
  static constexpr std::uint64_t slot_index_mask = 0xffffffffu;
  static constexpr std::size_t initial_slots = 64;  // room for 32 families at load 1/2
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint64_t> scratch_;  // a table of one sample's label names (duplicates)
  std::optional<parse_error> error_;
  std::size_t line_count_ = 0;
  bool missing_newline_ = false;
  // The family table's hash key, fresh for each page (detail::fresh_hash_key).
  std::uint64_t key0_ = headroom::detail::fresh_hash_key(0, this);
  std::uint64_t key1_ = headroom::detail::fresh_hash_key(key0_, this);
};

namespace detail {
/// The character raw[i] stands for: a \\, \" or \n escape decoded (i then moves past it),
/// any other character, a lone backslash included, as it is.
[[nodiscard]] constexpr char unescape_at(std::string_view raw, std::size_t& i) noexcept {
  const char c = raw[i];
  if (c != '\\' || i + 1 >= raw.size()) return c;
  const char next = raw[i + 1];
  if (next != '\\' && next != '"' && next != 'n') return c;
  ++i;
  return next == 'n' ? '\n' : next;
}
}  // namespace detail

/// Decodes a raw label value (\\, \", \n) or HELP text (\\, \n) into out (appending). A
/// backslash not followed by one of these characters is copied as it is.
HEADROOM_DECL void unescape_to(std::string_view raw, std::string& out);

/// Decodes a raw label value or HELP text into a new string (see unescape_to()).
[[nodiscard]] HEADROOM_DECL std::string unescape(std::string_view raw);

/// True when the raw (escaped) value decodes to plain. No allocation.
[[nodiscard]] constexpr bool raw_equals(std::string_view raw, std::string_view plain) noexcept {
  std::size_t j = 0;
  for (std::size_t i = 0; i < raw.size(); ++i, ++j)
    if (j >= plain.size() || plain[j] != detail::unescape_at(raw, i)) return false;
  return j == plain.size();
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/page.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

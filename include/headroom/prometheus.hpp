// SPDX-License-Identifier: Apache-2.0
// Prometheus text exposition format 0.0.4: a zero-copy parser over a std::string_view,
// and presets that turn a vLLM or SGLang /metrics page into one replica's load
// (running, waiting, KV-cache usage) and histogram quantiles (TTFT).
//
// Sources: the format as specified in prometheus/docs content/docs/instrumenting/
// exposition_formats.md and as implemented by prometheus/common expfmt/text_parse.go
// (whose rules the strict mode follows); histogram_quantile as in prometheus/prometheus
// promql/quantile.go. docs/prometheus.md lists the policies and the deviations.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "detail/checks.hpp"
#include "detail/from_chars.hpp"
#include "error.hpp"

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
  too_many_labels,    ///< a sample with more labels than parse_options::max_labels_per_series
  too_many_series,    ///< a sample past parse_options::max_series_per_page
  too_many_families,  ///< a new family past parse_options::max_families_per_page
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
  }
  return "unknown error";
}

/// Where and why a line was rejected: 1-based line and byte column (column of the offending
/// character within the line), and the code.
struct parse_error {
  std::size_t line = 0;    ///< 1-based line number
  std::size_t column = 0;  ///< 1-based byte column within the line
  parse_errc code = parse_errc::none;
  /// The fixed English reason for code.
  [[nodiscard]] constexpr std::string_view reason() const noexcept { return describe(code); }
};

/// strict: the first malformed line stops the parse and is reported. lenient: malformed lines
/// are skipped, each recorded in page::skipped(); the parse never fails.
enum class parse_mode : unsigned char { strict, lenient };

/// Parser options. The three limits follow Prometheus's scrape limits (label_limit,
/// sample_limit): 0, the default, means no limit; a line past a limit is an error of its own
/// code (strict: the parse stops; lenient: the line is skipped, and so is every later line
/// past the same limit). The parser's time is O(n log n) in the page size without them.
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
};

/// A label pair; both views point into the parsed text. value is raw: the text between the
/// quotes with escapes (\\, \", \n) intact; use unescape() or raw_equals() on it.
struct label {
  std::string_view name;
  std::string_view value;  ///< raw, escapes not decoded
  bool escaped = false;    ///< value contains at least one backslash escape
};

/// One sample line. name points into the text; labels are page::labels(sample).
struct sample {
  std::string_view name;                     ///< full name, suffix included (x_bucket, x_total)
  double value = 0;                          ///< may be NaN or +-Inf
  std::optional<std::int64_t> timestamp_ms;  ///< milliseconds since the epoch, when given
  std::size_t family = 0;                    ///< index into page::families()
  std::size_t first_label = 0;               ///< index of the first label in the page's label store
  std::size_t label_count = 0;               ///< number of labels
  std::size_t line = 0;                      ///< 1-based line number
};

/// A metric family: named by its HELP/TYPE lines, or by its first sample when untyped.
/// Samples x_sum/x_count (summary, histogram) and x_bucket (histogram) belong to family x.
struct family {
  std::string_view name;
  std::string_view help;  ///< raw HELP text (escapes \\ and \n intact), empty if none
  metric_type type = metric_type::untyped;
  bool has_help = false;
  bool has_type = false;    ///< a # TYPE line was seen
  std::size_t samples = 0;  ///< number of samples in the family
};

class page;
namespace detail {
class text_parser;

[[nodiscard]] constexpr std::uint64_t read_le64(const char* p) noexcept {
  std::uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | static_cast<unsigned char>(p[i]);
  return word;
}

/// SipHash-c-d of s under the 128-bit key (k0, k1): the keyed hash of Aumasson and
/// Bernstein, "SipHash: a fast short-input PRF" (INDOCRYPT 2012), with c compression and d
/// finalization rounds. Without the key, an attacker cannot choose names that collide.
template <int C, int D>
[[nodiscard]] constexpr std::uint64_t siphash(std::uint64_t k0, std::uint64_t k1,
                                              std::string_view s) noexcept {
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  std::uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  const auto round = [&] {
    v0 += v1;
    v1 = std::rotl(v1, 13) ^ v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = std::rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = std::rotl(v1, 17) ^ v2;
    v2 = std::rotl(v2, 32);
  };
  const std::size_t whole = s.size() & ~std::size_t{7};
  for (std::size_t i = 0; i < whole; i += 8) {
    const std::uint64_t m = read_le64(s.data() + i);
    v3 ^= m;
    for (int r = 0; r < C; ++r) round();
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(s.size() & 0xff) << 56;
  for (std::size_t i = s.size(); i-- > whole;)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * (i - whole));
  v3 ^= last;
  for (int r = 0; r < C; ++r) round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < D; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/// SipHash-1-3, the variant Rust's standard HashMap uses against hash flooding.
[[nodiscard]] constexpr std::uint64_t siphash13(std::uint64_t k0, std::uint64_t k1,
                                                std::string_view s) noexcept {
  return siphash<1, 3>(k0, k1, s);
}

/// splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijection that spreads every input bit over the output.
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline constexpr char hash_anchor = 0;  // its address varies with ASLR, run to run

/// A hash key no one outside the process can predict: the address of a static (randomised
/// per run by ASLR, as abseil's absl::Hash seeds itself), the address of the page (stack or
/// heap, also randomised) and the steady clock's nanoseconds. Not cryptographic randomness:
/// enough that a remote page cannot be built to collide.
[[nodiscard]] inline std::uint64_t fresh_hash_key(std::uint64_t salt, const void* owner) noexcept {
  const auto ticks =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return mix64(salt ^ mix64(reinterpret_cast<std::uintptr_t>(&hash_anchor) ^
                            mix64(reinterpret_cast<std::uintptr_t>(owner) ^ mix64(ticks))));
}

/// The most slots any lookup in p's family table probes (1 when every name sits in its own
/// slot). For tests: names built to collide must not make it grow with their number.
[[nodiscard]] inline std::size_t longest_probe(const page& p) noexcept;
}  // namespace detail

/// Parses text into out, reusing out's storage (no allocation once it has grown). text must
/// outlive out: every view in out points into it.
inline void parse_into(std::string_view text, page& out, parse_options options = {});

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
  [[nodiscard]] std::optional<std::string_view> label_value(const sample& s,
                                                            std::string_view name) const noexcept {
    for (const label& l : labels(s))
      if (l.name == name) return l.value;
    return std::nullopt;
  }
  /// The index of the family with exactly this name, if any. O(1) expected, whatever the
  /// names: the table's hash is keyed per page (see detail::siphash13).
  [[nodiscard]] std::optional<std::size_t> find_family(std::string_view name) const noexcept {
    const std::size_t i = lookup(name);
    if (i == npos) return std::nullopt;
    return i;
  }
  /// Empties the page, keeping its storage.
  void clear() noexcept {
    text_ = {};
    families_.clear();
    hashes_.clear();
    samples_.clear();
    labels_.clear();
    skipped_.clear();
    std::fill(slots_.begin(), slots_.end(), std::uint64_t{0});
    error_.reset();
    line_count_ = 0;
    missing_newline_ = false;
  }

 private:
  friend class detail::text_parser;
  friend std::size_t detail::longest_probe(const page& p) noexcept;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  [[nodiscard]] std::uint64_t hash(std::string_view s) const noexcept {
    return detail::siphash13(key0_, key1_, s);
  }
  [[nodiscard]] std::size_t lookup(std::string_view name) const noexcept {
    return lookup(name, hash(name));
  }
  // The family named `name`, whose hash is h, or npos.
  [[nodiscard]] std::size_t lookup(std::string_view name, std::uint64_t h) const noexcept {
    if (slots_.empty()) return npos;
    const std::size_t mask = slots_.size() - 1;
    const std::uint64_t tag = h & ~slot_index_mask;
    for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) return npos;
      const auto index = static_cast<std::size_t>(slot & slot_index_mask) - 1;
      if ((slot & ~slot_index_mask) == tag && families_[index].name == name) return index;
    }
  }
  void insert_slot(std::size_t index) {
    const std::size_t mask = slots_.size() - 1;
    const std::uint64_t h = hashes_[index];
    for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        slots_[i] = (h & ~slot_index_mask) | (static_cast<std::uint64_t>(index) + 1);
        return;
      }
    }
  }
  // Adds a family named `name`, whose hash is h (not yet in the table).
  std::size_t add_family(std::string_view name, std::uint64_t h) {
    families_.push_back(family{name, {}, metric_type::untyped, false, false, 0});
    hashes_.push_back(h);
    if (slots_.size() < 2 * families_.size()) {  // keep the load factor <= 1/2
      std::size_t n = slots_.empty() ? 64 : slots_.size() * 2;
      while (n < 2 * families_.size()) n *= 2;
      slots_.assign(n, std::uint64_t{0});
      for (std::size_t i = 0; i < families_.size(); ++i) insert_slot(i);
    } else {
      insert_slot(families_.size() - 1);
    }
    return families_.size() - 1;
  }

  std::string_view text_;
  std::vector<family> families_;
  std::vector<sample> samples_;
  std::vector<label> labels_;
  std::vector<parse_error> skipped_;
  std::vector<std::uint64_t> hashes_;  // hash(families_[i].name)
  // Open addressing: 0 empty, else the family's index + 1 in the low 32 bits and the top 32
  // bits of its hash above them (a probe reads a name only when those match).
  static constexpr std::uint64_t slot_index_mask = 0xffffffffu;
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint64_t> scratch_;  // a table of one sample's label names (duplicates)
  std::optional<parse_error> error_;
  std::size_t line_count_ = 0;
  bool missing_newline_ = false;
  // The family table's hash key, fresh for each page (detail::fresh_hash_key).
  std::uint64_t key0_ = detail::fresh_hash_key(0, this);
  std::uint64_t key1_ = detail::fresh_hash_key(key0_, this);
};

[[nodiscard]] inline std::size_t detail::longest_probe(const page& p) noexcept {
  std::size_t longest = 0;
  const std::size_t mask = p.slots_.size() - 1;
  for (std::size_t i = 0; i < p.slots_.size(); ++i) {
    if (p.slots_[i] == 0) continue;
    const auto index = static_cast<std::size_t>(p.slots_[i] & page::slot_index_mask) - 1;
    const auto home = static_cast<std::size_t>(p.hashes_[index]) & mask;
    longest = std::max(longest, ((i - home) & mask) + 1);
  }
  return longest;
}

/// Parses a page of the text format. text must outlive the result (zero-copy views).
[[nodiscard]] inline page parse(std::string_view text, parse_options options = {}) {
  page out;
  parse_into(text, out, options);
  return out;
}

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

/// Decodes a raw label value (\\, \", \n) or HELP text (\\, \n) into out (appending). A
/// backslash not followed by one of these characters is copied as it is.
inline void unescape_to(std::string_view raw, std::string& out) {
  out.reserve(out.size() + raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      const char next = raw[i + 1];
      if (next == '\\' || next == '"' || next == 'n') {
        c = next == 'n' ? '\n' : next;
        ++i;
      }
    }
    out.push_back(c);
  }
}

/// Decodes a raw label value or HELP text into a new string (see unescape_to()).
[[nodiscard]] inline std::string unescape(std::string_view raw) {
  std::string out;
  unescape_to(raw, out);
  return out;
}

/// True when the raw (escaped) value decodes to plain. No allocation.
[[nodiscard]] constexpr bool raw_equals(std::string_view raw, std::string_view plain) noexcept {
  std::size_t j = 0;
  for (std::size_t i = 0; i < raw.size(); ++i, ++j) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      const char next = raw[i + 1];
      if (next == '\\' || next == '"' || next == 'n') {
        c = next == 'n' ? '\n' : next;
        ++i;
      }
    }
    if (j >= plain.size() || plain[j] != c) return false;
  }
  return j == plain.size();
}

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

/// True when s is valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
[[nodiscard]] constexpr bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      n = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      n = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      n = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b1 < lo || b1 > hi) return false;
    for (std::size_t k = 2; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < 0x80 || b > 0xBF) return false;
    }
    i += n + 1;
  }
  return true;
}

/// Parses a float as Go's strconv.ParseFloat does for the text format: optional sign,
/// decimal digits with optional fraction and exponent; Inf/Infinity with optional sign and
/// NaN without, case-insensitive. No hex, no underscores. Overflow -> value_out_of_range;
/// underflow -> signed zero. Locale-independent and exact (detail/from_chars.hpp).
[[nodiscard]] inline parse_errc parse_float(std::string_view s, double& out) noexcept {
  if (s.empty()) return parse_errc::invalid_value;
  bool negative = false;
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return parse_errc::none;
  }
  if (body.size() == s.size() && iequals(body, "nan")) {
    out = std::numeric_limits<double>::quiet_NaN();
    return parse_errc::none;
  }
  if (body.empty() || !(is_digit(body[0]) || body[0] == '.')) return parse_errc::invalid_value;
  for (char c : body)  // from_chars would also read "nan(...)" or stop early; be explicit
    if (!(is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return parse_errc::invalid_value;
  double v = 0;
  const char* first = body.data();
  const char* last = first + body.size();
  const auto [ptr, ec] = ::headroom::detail::from_chars_double(first, last, v);
  if (ptr != last) return parse_errc::invalid_value;
  if (ec == std::errc::result_out_of_range) {
    // Decimal magnitude: position of the first non-zero digit relative to the point, plus
    // the exponent. Positive -> overflow (Go: ErrRange); otherwise underflow -> zero.
    long long magnitude = 0;
    bool seen_point = false, seen_nonzero = false;
    std::size_t i = 0;
    for (; i < body.size() && (is_digit(body[i]) || body[i] == '.'); ++i) {
      if (body[i] == '.') {
        seen_point = true;
      } else if (!seen_nonzero) {
        if (body[i] != '0') {
          seen_nonzero = true;
          if (!seen_point) ++magnitude;
        } else if (seen_point) {
          --magnitude;
        }
      } else if (!seen_point) {
        ++magnitude;
      }
    }
    if (i < body.size()) {  // exponent, clamped
      ++i;
      bool exp_negative = false;
      if (i < body.size() && (body[i] == '+' || body[i] == '-')) exp_negative = body[i++] == '-';
      long long e = 0;
      for (; i < body.size(); ++i)
        if (e < 100000) e = e * 10 + (body[i] - '0');
      magnitude += exp_negative ? -e : e;
    }
    if (seen_nonzero && magnitude > 0) return parse_errc::value_out_of_range;
    out = negative ? -0.0 : 0.0;
    return parse_errc::none;
  }
  if (ec != std::errc()) return parse_errc::invalid_value;
  out = negative ? -v : v;
  return parse_errc::none;
}

/// Parses a base-10 int64 with optional sign (Go's strconv.ParseInt(s, 10, 64)).
[[nodiscard]] inline bool parse_int64(std::string_view s, std::int64_t& out) noexcept {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !is_digit(s[0])) return false;
  std::uint64_t magnitude = 0;
  const char* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), last, magnitude, 10);
  if (ec != std::errc() || ptr != last) return false;
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (magnitude > max + (negative ? 1u : 0u)) return false;
  out = negative ? static_cast<std::int64_t>(0u - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

/// The line-level parser behind parse_into(); writes into a page.
class text_parser {
 public:
  text_parser(std::string_view text, page& out, parse_options options) noexcept
      : text_(text), out_(out), options_(options) {}

  void run() {
    out_.clear();
    out_.text_ = text_;
    if (out_.samples_.capacity() == 0) {  // first use: a rough guess from the page size
      out_.samples_.reserve(text_.size() / 96 + 8);
      out_.labels_.reserve(text_.size() / 48 + 8);
    }
    const std::size_t n = text_.size();
    out_.missing_newline_ = n != 0 && text_[n - 1] != '\n';
    std::size_t pos = 0;
    std::size_t line_no = 0;
    while (pos < n) {
      const void* nl = std::memchr(text_.data() + pos, '\n', n - pos);
      const std::size_t end =
          nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data()) : n;
      ++line_no;
      line_ = text_.substr(pos, end - pos);
      line_no_ = line_no;
      parse_errc ec = parse_errc::none;
      if (nl == nullptr && options_.require_final_newline) {
        ec = parse_errc::missing_final_newline;
        column_ = line_.size();
      } else {
        ec = parse_line();
      }
      if (ec != parse_errc::none) {
        const parse_error e{line_no, column_ + 1, ec};
        if (options_.mode == parse_mode::strict) {
          out_.error_ = e;
          out_.line_count_ = line_no + (end < n ? count_lines(text_.substr(end + 1)) : 0);
          return;
        }
        out_.skipped_.push_back(e);
      }
      pos = end + 1;
    }
    out_.line_count_ = line_no;
  }

 private:
  static constexpr std::size_t npos = page::npos;

  static std::size_t count_lines(std::string_view s) noexcept {
    const auto newlines = static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
    return newlines + ((!s.empty() && s.back() != '\n') ? 1 : 0);
  }

  parse_errc fail(std::size_t column, parse_errc code) noexcept {
    column_ = column;
    return code;
  }
  void skip_blanks(std::size_t& i) const noexcept {
    while (i < line_.size() && is_blank(line_[i])) ++i;
  }

  parse_errc parse_line() {
    std::size_t i = 0;
    skip_blanks(i);
    if (i == line_.size()) return parse_errc::none;
    if (line_[i] == '#') return parse_comment(i + 1);
    const std::size_t mark = out_.labels_.size();
    const parse_errc ec = parse_sample(i);
    if (ec != parse_errc::none)
      out_.labels_.erase(out_.labels_.begin() + static_cast<std::ptrdiff_t>(mark),
                         out_.labels_.end());
    return ec;
  }

  // # HELP name text / # TYPE name type / any other comment. Follows expfmt: "# HELP" or
  // "# HELP name" with nothing after the name are plain comments.
  parse_errc parse_comment(std::size_t i) {
    const std::size_t size = line_.size();
    skip_blanks(i);
    const std::size_t keyword_at = i;
    while (i < size && !is_blank(line_[i])) ++i;
    if (i >= size) return parse_errc::none;
    const std::string_view keyword = line_.substr(keyword_at, i - keyword_at);
    const bool is_help = keyword == "HELP";
    if (!is_help && keyword != "TYPE") return parse_errc::none;
    skip_blanks(i);
    const std::size_t name_at = i;
    if (i < size && is_metric_start(line_[i])) {
      ++i;
      while (i < size && is_metric_char(line_[i])) ++i;
    }
    if (i >= size) return parse_errc::none;
    if (!is_blank(line_[i])) return fail(i, parse_errc::invalid_comment_name);
    const std::string_view name = line_.substr(name_at, i - name_at);
    skip_blanks(i);
    if (i >= size) return parse_errc::none;
    std::string_view rest = line_.substr(i);
    if (is_help) {
      for (std::size_t k = 0; k < rest.size(); ++k) {
        if (rest[k] != '\\') continue;
        if (k + 1 >= rest.size() || (rest[k + 1] != '\\' && rest[k + 1] != 'n'))
          return fail(i + k, parse_errc::invalid_help_escape);
        ++k;
      }
      const std::uint64_t h = out_.hash(name);
      std::size_t f = out_.lookup(name, h);
      if (f != npos && out_.families_[f].has_help) return fail(name_at, parse_errc::duplicate_help);
      if (f == npos) f = new_family(name, h);
      if (f == npos) return fail(name_at, parse_errc::too_many_families);
      out_.families_[f].help = rest;
      out_.families_[f].has_help = true;
      return parse_errc::none;
    }
    while (!rest.empty() && is_blank(rest.back())) rest.remove_suffix(1);
    metric_type type = metric_type::untyped;
    if (iequals(rest, "counter")) {
      type = metric_type::counter;
    } else if (iequals(rest, "gauge")) {
      type = metric_type::gauge;
    } else if (iequals(rest, "histogram")) {
      type = metric_type::histogram;
    } else if (iequals(rest, "summary")) {
      type = metric_type::summary;
    } else if (!iequals(rest, "untyped")) {
      return fail(i, parse_errc::unknown_type);
    }
    const std::uint64_t h = out_.hash(name);
    std::size_t f = out_.lookup(name, h);
    if (f != npos && (out_.families_[f].has_type || out_.families_[f].samples != 0))
      return fail(name_at, parse_errc::duplicate_type);
    if (f == npos) f = new_family(name, h);
    if (f == npos) return fail(name_at, parse_errc::too_many_families);
    out_.families_[f].type = type;
    out_.families_[f].has_type = true;
    return parse_errc::none;
  }

  // The index of a new family, or npos when the page already holds max_families_per_page.
  std::size_t new_family(std::string_view name, std::uint64_t h) {
    if (options_.max_families_per_page != 0 &&
        out_.families_.size() >= options_.max_families_per_page)
      return npos;
    last_name_ = {};  // a new family may capture names the cache maps elsewhere
    last_family_ = npos;
    return out_.add_family(name, h);
  }

  // The family a sample belongs to, or npos when it starts a new one (expfmt's rule: the
  // family of that exact name, else x for x_sum/x_count of a summary or histogram and for
  // x_bucket of a histogram). When it returns npos, h holds hash(name).
  [[nodiscard]] std::size_t resolve_family(std::string_view name, std::uint64_t& h) const noexcept {
    if (last_family_ != npos && name == last_name_) return last_family_;
    h = out_.hash(name);
    const std::size_t f = out_.lookup(name, h);
    if (f != npos) return f;
    constexpr std::string_view suffixes[] = {"_bucket", "_count", "_sum"};
    for (std::string_view suffix : suffixes) {
      if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
      const std::size_t base = out_.lookup(name.substr(0, name.size() - suffix.size()));
      if (base == npos) return npos;
      const metric_type t = out_.families_[base].type;
      if (t == metric_type::histogram || (t == metric_type::summary && suffix != "_bucket"))
        return base;
      return npos;
    }
    return npos;
  }

  parse_errc parse_sample(std::size_t i) {
    const std::size_t size = line_.size();
    const std::size_t name_at = i;
    if (!is_metric_start(line_[i])) return fail(i, parse_errc::invalid_metric_name);
    ++i;
    while (i < size && is_metric_char(line_[i])) ++i;
    if (i < size && !is_blank(line_[i]) && line_[i] != '{')
      return fail(i, parse_errc::invalid_metric_name);
    const std::string_view name = line_.substr(name_at, i - name_at);
    skip_blanks(i);
    const std::size_t first_label = out_.labels_.size();
    if (i < size && line_[i] == '{') {
      parse_errc ec = parse_labels(i + 1, i);
      // Duplicate names are looked for once the labels are read (an error stops the reading:
      // a duplicate before it comes first on the line, so it is the one reported).
      if (const std::size_t d = first_duplicate(first_label); d != npos)
        ec = fail(static_cast<std::size_t>(out_.labels_[d].name.data() - line_.data()),
                  parse_errc::duplicate_label_name);
      if (ec != parse_errc::none) return ec;
      skip_blanks(i);
    }
    const std::size_t value_at = i;
    while (i < size && !is_blank(line_[i])) ++i;
    double value = 0;
    if (const parse_errc ec = parse_float(line_.substr(value_at, i - value_at), value);
        ec != parse_errc::none)
      return fail(value_at, ec);
    skip_blanks(i);
    std::optional<std::int64_t> timestamp;
    if (i < size) {
      const std::size_t ts_at = i;
      while (i < size && !is_blank(line_[i])) ++i;
      std::int64_t ts = 0;
      if (!parse_int64(line_.substr(ts_at, i - ts_at), ts))
        return fail(ts_at, parse_errc::invalid_timestamp);
      timestamp = ts;
      skip_blanks(i);
      if (i < size) return fail(i, parse_errc::trailing_characters);
    }
    std::uint64_t name_hash = 0;
    std::size_t f = resolve_family(name, name_hash);
    const metric_type type = f == npos ? metric_type::untyped : out_.families_[f].type;
    if (type == metric_type::histogram || type == metric_type::summary) {
      const bool histogram = type == metric_type::histogram;
      const std::string_view key = histogram ? "le" : "quantile";
      for (std::size_t k = first_label; k < out_.labels_.size(); ++k) {
        const label& l = out_.labels_[k];
        double bound = 0;
        if (l.name == key && (l.escaped || parse_float(l.value, bound) != parse_errc::none))
          return fail(
              static_cast<std::size_t>(l.value.data() - line_.data()),
              histogram ? parse_errc::invalid_bucket_bound : parse_errc::invalid_quantile_label);
      }
    }
    if (options_.max_series_per_page != 0 && out_.samples_.size() >= options_.max_series_per_page)
      return fail(name_at, parse_errc::too_many_series);
    if (f == npos) f = new_family(name, name_hash);
    if (f == npos) return fail(name_at, parse_errc::too_many_families);
    ++out_.families_[f].samples;
    last_name_ = name;
    last_family_ = f;
    out_.samples_.push_back(sample{name, value, timestamp, f, first_label,
                                   out_.labels_.size() - first_label, line_no_});
    return parse_errc::none;
  }

  // The index in the page's label store of the first label from `first` on whose name an
  // earlier label of the same sample already has, or npos. Linear in the labels: a pairwise
  // scan up to 16 of them, beyond that a table of the names under the page's keyed hash.
  [[nodiscard]] std::size_t first_duplicate(std::size_t first) {
    const std::vector<label>& labels = out_.labels_;
    const std::size_t count = labels.size() - first;
    if (count <= 16) {
      for (std::size_t k = first + 1; k < labels.size(); ++k)
        for (std::size_t j = first; j < k; ++j)
          if (labels[j].name == labels[k].name) return k;
      return npos;
    }
    // Open addressing at load <= 1/2. An entry is the label's position k + 1 in its low 40
    // bits and the top 24 bits of its name's hash above them, so that a probe reads a label
    // only when those bits match (a line of 2^40 labels, 5 TB of text, would go untagged).
    std::vector<std::uint64_t>& table = out_.scratch_;
    table.assign(std::bit_ceil(2 * count), 0);
    const std::size_t mask = table.size() - 1;
    constexpr std::uint64_t position_mask = (std::uint64_t{1} << 40) - 1;
    const bool tagged = count < position_mask;
    for (std::size_t k = 0; k < count; ++k) {
      const std::string_view name = labels[first + k].name;
      const std::uint64_t h = out_.hash(name);
      const std::uint64_t tag = tagged ? h & ~position_mask : 0;
      std::size_t i = static_cast<std::size_t>(h) & mask;
      for (; table[i] != 0; i = (i + 1) & mask)
        if ((table[i] & ~position_mask) == tag &&
            labels[first + static_cast<std::size_t>(table[i] & position_mask) - 1].name == name)
          return first + k;
      table[i] = tag | (static_cast<std::uint64_t>(k) + 1);
    }
    return npos;
  }

  // Reads `name="value", ...}` from i (just after '{'); leaves end just after '}'.
  parse_errc parse_labels(std::size_t i, std::size_t& end) {
    const std::size_t size = line_.size();
    const std::size_t first_label = out_.labels_.size();
    for (;;) {
      skip_blanks(i);
      if (i < size && line_[i] == '}') {
        end = i + 1;
        return parse_errc::none;
      }
      const std::size_t name_at = i;
      if (i >= size || !is_alpha_(line_[i])) return fail(i, parse_errc::invalid_label_name);
      while (i < size && is_label_char(line_[i])) ++i;
      const std::string_view name = line_.substr(name_at, i - name_at);
      if (name == "__name__") return fail(name_at, parse_errc::reserved_label_name);
      skip_blanks(i);
      if (i >= size || line_[i] != '=') return fail(i, parse_errc::expected_equals);
      ++i;
      skip_blanks(i);
      if (i >= size || line_[i] != '"') return fail(i, parse_errc::expected_quote);
      const std::size_t value_at = ++i;
      bool escaped = false;
      bool high = false;
      for (;;) {
        if (i >= size) return fail(i, parse_errc::unterminated_label_value);
        const char c = line_[i];
        if (c == '"') break;
        if (c == '\\') {
          if (i + 1 >= size) return fail(i + 1, parse_errc::unterminated_label_value);
          const char next = line_[i + 1];
          if (next != '\\' && next != '"' && next != 'n')
            return fail(i, parse_errc::invalid_escape);
          escaped = true;
          i += 2;
          continue;
        }
        high = high || static_cast<unsigned char>(c) >= 0x80;
        ++i;
      }
      const std::string_view value = line_.substr(value_at, i - value_at);
      ++i;
      if (high && !valid_utf8(value)) return fail(value_at, parse_errc::invalid_utf8);
      if (options_.max_labels_per_series != 0 &&
          out_.labels_.size() - first_label >= options_.max_labels_per_series)
        return fail(name_at, parse_errc::too_many_labels);
      out_.labels_.push_back(label{name, value, escaped});
      skip_blanks(i);
      if (i < size && line_[i] == ',') {
        ++i;
        continue;
      }
      if (i < size && line_[i] == '}') {
        end = i + 1;
        return parse_errc::none;
      }
      return fail(i, parse_errc::expected_label_separator);
    }
  }

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

inline void parse_into(std::string_view text, page& out, parse_options options) {
  detail::text_parser(text, out, options).run();
}

// ---- aggregation and histogram quantiles ----------------------------------------------------

/// Why a reading has no value.
enum class missing_reason : unsigned char {
  none,                ///< the reading has a value
  page_invalid,        ///< the page failed a strict parse: nothing on it is used
  metric_absent,       ///< no sample of this metric on the page
  no_matching_series,  ///< the metric is there, but no series carries the requested label value
  not_finite,          ///< a matching series is NaN or infinite
};

/// A one-line English reason for a missing reading.
[[nodiscard]] constexpr std::string_view describe(missing_reason reason) noexcept {
  switch (reason) {
    case missing_reason::none:
      return "present";
    case missing_reason::page_invalid:
      return "the page failed to parse";
    case missing_reason::metric_absent:
      return "the metric is not on the page";
    case missing_reason::no_matching_series:
      return "no series of the metric matches the filter";
    case missing_reason::not_finite:
      return "a matching series is NaN or infinite";
  }
  return "unknown";
}

/// Sum, maximum and mean of one metric over the series that pass a label filter.
struct series_aggregate {
  std::size_t series = 0;  ///< matching samples (label sets)
  double sum = 0;          ///< meaningful when missing == none
  double max = 0;
  double mean = 0;
  missing_reason missing = missing_reason::metric_absent;
};

namespace detail {
inline void check_filter(std::string_view label_name, std::string_view label_value) {
  if (label_name.empty() && !label_value.empty())
    headroom::detail::fail("label_name", label_name, "must name a label when label_value is given");
}
[[nodiscard]] inline bool passes(const page& p, const sample& s, std::string_view label_name,
                                 std::string_view label_value) noexcept {
  if (label_value.empty()) return true;
  const auto v = p.label_value(s, label_name);
  return v.has_value() && raw_equals(*v, label_value);
}
}  // namespace detail

/// Aggregates the samples named exactly `metric` whose label `label_name` equals `label_value`
/// (every sample when label_value is empty). A NaN or infinite match makes it not_finite.
/// Throws invalid_argument for an empty metric, or a label_value without a label_name.
[[nodiscard]] inline series_aggregate aggregate(const page& p, std::string_view metric,
                                                std::string_view label_name = {},
                                                std::string_view label_value = {}) {
  if (metric.empty()) headroom::detail::fail("metric", metric, "must not be empty");
  detail::check_filter(label_name, label_value);
  series_aggregate out;
  if (!p.ok()) {
    out.missing = missing_reason::page_invalid;
    return out;
  }
  bool seen = false;
  bool finite = true;
  for (const sample& s : p.samples()) {
    if (s.name != metric) continue;
    seen = true;
    if (!detail::passes(p, s, label_name, label_value)) continue;
    if (!std::isfinite(s.value)) finite = false;
    out.max = out.series == 0 ? s.value : std::max(out.max, s.value);
    out.sum += s.value;
    ++out.series;
  }
  if (!seen) {
    out.missing = missing_reason::metric_absent;
  } else if (out.series == 0) {
    out.missing = missing_reason::no_matching_series;
  } else if (!finite) {
    out.missing = missing_reason::not_finite;
  } else {
    out.missing = missing_reason::none;
    out.mean = out.sum / static_cast<double>(out.series);
  }
  return out;
}

/// One cumulative histogram bucket: observations <= upper_bound.
struct histogram_bucket {
  double upper_bound = 0;
  double cumulative_count = 0;
};

/// The q-quantile of a classic histogram, as PromQL's histogram_quantile computes it: sorts
/// the buckets (in place), merges equal bounds, forces the counts monotonic, then interpolates
/// linearly inside the bucket holding rank q*count. The lowest bucket starts at 0 (or its
/// bound is returned if <= 0); a rank in the +Inf bucket returns the second-highest bound.
/// NaN when there is no +Inf bucket, fewer than 2 buckets, no observations, or a NaN bound.
/// Throws invalid_argument unless 0 <= q <= 1 (PromQL would return -Inf, +Inf or NaN).
[[nodiscard]] inline double bucket_quantile(double q, std::span<histogram_bucket> buckets) {
  headroom::detail::require_unit("q", q);
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (const histogram_bucket& b : buckets)
    if (std::isnan(b.upper_bound)) return nan;
  if (buckets.empty()) return nan;
  std::sort(buckets.begin(), buckets.end(),
            [](const histogram_bucket& a, const histogram_bucket& b) {
              return a.upper_bound < b.upper_bound;
            });
  if (!(std::isinf(buckets.back().upper_bound) && buckets.back().upper_bound > 0)) return nan;
  std::size_t n = 0;  // coalesce equal bounds by summing their counts
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (n > 0 && buckets[n - 1].upper_bound == buckets[i].upper_bound) {
      buckets[n - 1].cumulative_count += buckets[i].cumulative_count;
    } else {
      buckets[n++] = buckets[i];
    }
  }
  for (std::size_t i = 1; i < n; ++i)  // force monotonic
    buckets[i].cumulative_count =
        std::max(buckets[i].cumulative_count, buckets[i - 1].cumulative_count);
  if (n < 2) return nan;
  const double observations = buckets[n - 1].cumulative_count;
  if (!(observations > 0)) return nan;
  double rank = q * observations;
  std::size_t b = 0;  // first bucket (excluding +Inf) whose count reaches rank; n-1 if none
  while (b < n - 1 && !(buckets[b].cumulative_count >= rank)) ++b;
  if (b == n - 1) return buckets[n - 2].upper_bound;
  if (b == 0 && buckets[0].upper_bound <= 0) return buckets[0].upper_bound;
  double start = 0;
  double count = buckets[b].cumulative_count;
  if (b > 0) {
    start = buckets[b - 1].upper_bound;
    count -= buckets[b - 1].cumulative_count;
    rank -= buckets[b - 1].cumulative_count;
  }
  return start + (buckets[b].upper_bound - start) * (rank / count);
}

/// The q-quantile of histogram `histogram` (its x_bucket samples) over the series that pass
/// the label filter, their buckets summed by le first (PromQL's
/// histogram_quantile(q, sum by (le) (x_bucket{label_name="label_value"}))). nullopt when the
/// page failed, no bucket matches, or the quantile is undefined (NaN). Buckets without a
/// float le are ignored. Throws invalid_argument for an empty name or q outside [0, 1].
[[nodiscard]] inline std::optional<double> histogram_quantile(const page& p,
                                                              std::string_view histogram, double q,
                                                              std::string_view label_name = {},
                                                              std::string_view label_value = {}) {
  if (histogram.empty()) headroom::detail::fail("histogram", histogram, "must not be empty");
  headroom::detail::require_unit("q", q);
  detail::check_filter(label_name, label_value);
  if (!p.ok()) return std::nullopt;
  constexpr std::string_view suffix = "_bucket";
  std::vector<histogram_bucket> buckets;
  for (const sample& s : p.samples()) {
    if (s.name.size() != histogram.size() + suffix.size() || !s.name.starts_with(histogram) ||
        !s.name.ends_with(suffix))
      continue;
    if (!detail::passes(p, s, label_name, label_value)) continue;
    const auto le = p.label_value(s, "le");
    double bound = 0;
    if (!le || detail::parse_float(*le, bound) != parse_errc::none) continue;
    buckets.push_back(histogram_bucket{bound, s.value});
  }
  if (buckets.empty()) return std::nullopt;
  const double result = bucket_quantile(q, buckets);
  if (std::isnan(result)) return std::nullopt;
  return result;
}

// ---- engine presets -------------------------------------------------------------------------

/// The metric names one serving engine exposes, for read_replica_load(). All names are
/// sample names as they appear on the page.
struct engine_preset {
  std::string_view engine;             ///< "vllm", "sglang"
  std::string_view running;            ///< gauge: requests being decoded/prefilled
  std::string_view waiting;            ///< gauge: requests queued
  std::string_view kv_usage;           ///< gauge: KV-cache occupancy, fraction 0..1
  std::string_view kv_usage_fallback;  ///< older name read when kv_usage is absent; may be empty
  std::string_view ttft;               ///< histogram: time to first token, seconds
  std::string_view model_label;        ///< the label that names the served model
};

/// vLLM (V0 and V1): vllm:kv_cache_usage_perc, formerly vllm:gpu_cache_usage_perc (both 0..1).
inline constexpr engine_preset vllm_preset{"vllm",
                                           "vllm:num_requests_running",
                                           "vllm:num_requests_waiting",
                                           "vllm:kv_cache_usage_perc",
                                           "vllm:gpu_cache_usage_perc",
                                           "vllm:time_to_first_token_seconds",
                                           "model_name"};

/// SGLang: sglang:token_usage is the fraction of the KV token pool in use (0..1).
inline constexpr engine_preset sglang_preset{"sglang",
                                             "sglang:num_running_reqs",
                                             "sglang:num_queue_reqs",
                                             "sglang:token_usage",
                                             {},
                                             "sglang:time_to_first_token_seconds",
                                             "model_name"};

/// One metric read off a page: its value, or why there is none.
struct metric_reading {
  std::optional<double> value;  ///< set iff missing == none
  missing_reason missing = missing_reason::metric_absent;
  std::string_view metric;  ///< the metric read (the fallback's name when it was used)
  std::size_t series = 0;   ///< label sets (engines) that contributed
};

/// One replica's load, as an autoscaler observes it. Plain data, independent of the autoscaler.
struct replica_load {
  metric_reading running;               ///< sum over the replica's engines
  metric_reading waiting;               ///< sum over the replica's engines
  metric_reading kv_usage;              ///< max over the replica's engines, fraction 0..1
  std::optional<double> kv_usage_mean;  ///< mean over the engines, when kv_usage has a value
  /// In-flight requests L = running + waiting, when both are present.
  [[nodiscard]] constexpr std::optional<double> in_flight() const noexcept {
    if (!running.value || !waiting.value) return std::nullopt;
    return *running.value + *waiting.value;
  }
};

namespace detail {
[[nodiscard]] inline metric_reading read_metric(const page& p, std::string_view metric,
                                                std::string_view label_name,
                                                std::string_view label_value, bool use_max,
                                                std::optional<double>* mean = nullptr) {
  metric_reading r;
  r.metric = metric;
  const series_aggregate a = aggregate(p, metric, label_name, label_value);
  r.missing = a.missing;
  r.series = a.series;
  if (a.missing == missing_reason::none) {
    r.value = use_max ? a.max : a.sum;
    if (mean != nullptr) *mean = a.mean;
  }
  return r;
}
}  // namespace detail

/// Reads one replica's running, waiting and KV usage off its page with an engine preset,
/// keeping the series whose model label equals model_name (all series when it is empty).
/// running and waiting are summed over the series (a data-parallel replica has one per
/// engine); KV usage is their maximum, because an engine preempts when its own cache is full.
[[nodiscard]] inline replica_load read_replica_load(const page& p, const engine_preset& preset,
                                                    std::string_view model_name = {}) {
  if (preset.running.empty() || preset.waiting.empty() || preset.kv_usage.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name the running, waiting and kv_usage metrics");
  if (!model_name.empty() && preset.model_label.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label to filter by model_name");
  const std::string_view label = model_name.empty() ? std::string_view{} : preset.model_label;
  replica_load out;
  out.running = detail::read_metric(p, preset.running, label, model_name, false);
  out.waiting = detail::read_metric(p, preset.waiting, label, model_name, false);
  out.kv_usage =
      detail::read_metric(p, preset.kv_usage, label, model_name, true, &out.kv_usage_mean);
  if (!out.kv_usage.value && !preset.kv_usage_fallback.empty() &&
      out.kv_usage.missing != missing_reason::page_invalid) {
    std::optional<double> mean;
    metric_reading fallback =
        detail::read_metric(p, preset.kv_usage_fallback, label, model_name, true, &mean);
    if (fallback.value) {
      out.kv_usage = fallback;
      out.kv_usage_mean = mean;
    }
  }
  return out;
}

/// The q-quantile of the preset's time-to-first-token histogram (seconds) for model_name
/// (all series when empty), buckets summed over engines. See histogram_quantile().
[[nodiscard]] inline std::optional<double> ttft_quantile(const page& p, const engine_preset& preset,
                                                         double q,
                                                         std::string_view model_name = {}) {
  if (preset.ttft.empty())
    headroom::detail::fail("preset", preset.engine, "must name the ttft histogram");
  if (!model_name.empty() && preset.model_label.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label to filter by model_name");
  const std::string_view label = model_name.empty() ? std::string_view{} : preset.model_label;
  return histogram_quantile(p, preset.ttft, q, label, model_name);
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

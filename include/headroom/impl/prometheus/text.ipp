// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/text.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/text.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL parse_errc parse_float(std::string_view s, double& out) noexcept {
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
        if (e < exponent_clamp) e = e * 10 + (body[i] - '0');
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

HEADROOM_DECL bool parse_int64(std::string_view s, std::int64_t& out) noexcept {
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

HEADROOM_DECL auto text_parser::run() -> void {
  out_.clear();
  out_.text_ = text_;
  if (out_.samples_.capacity() == 0) {  // first use: a rough guess from the page size
    constexpr std::size_t bytes_per_sample = 96, bytes_per_label = 48, at_least = 8;
    out_.samples_.reserve(text_.size() / bytes_per_sample + at_least);
    out_.labels_.reserve(text_.size() / bytes_per_label + at_least);
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
      const parse_error e{.line = line_no, .column = column_ + 1, .code = ec};
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

HEADROOM_DECL auto text_parser::count_lines(std::string_view s) noexcept -> std::size_t {
  const auto newlines = static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
  return newlines + ((!s.empty() && s.back() != '\n') ? 1 : 0);
}

HEADROOM_DECL auto text_parser::fail(std::size_t column, parse_errc code) noexcept -> parse_errc {
  column_ = column;
  return code;
}

HEADROOM_DECL auto text_parser::parse_line() -> parse_errc {
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

HEADROOM_DECL auto text_parser::parse_comment(std::size_t i) -> parse_errc {
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

HEADROOM_DECL auto text_parser::new_family(std::string_view name, std::uint64_t h) -> std::size_t {
  if (options_.max_families_per_page != 0 &&
      out_.families_.size() >= options_.max_families_per_page)
    return npos;
  last_name_ = {};  // a new family may capture names the cache maps elsewhere
  last_family_ = npos;
  return out_.add_family(name, h);
}

HEADROOM_DECL auto text_parser::resolve_family(std::string_view name,
                                               std::uint64_t& h) const noexcept -> std::size_t {
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

HEADROOM_DECL auto text_parser::parse_sample(std::size_t i) -> parse_errc {
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
  if (const parse_errc ec = check_bound_label(type, first_label); ec != parse_errc::none) return ec;
  if (options_.max_series_per_page != 0 && out_.samples_.size() >= options_.max_series_per_page)
    return fail(name_at, parse_errc::too_many_series);
  if (f == npos) f = new_family(name, name_hash);
  if (f == npos) return fail(name_at, parse_errc::too_many_families);
  ++out_.families_[f].samples;
  last_name_ = name;
  last_family_ = f;
  out_.samples_.push_back(sample{.name = name,
                                 .value = value,
                                 .timestamp_ms = timestamp,
                                 .family = f,
                                 .first_label = first_label,
                                 .label_count = out_.labels_.size() - first_label,
                                 .line = line_no_});
  return parse_errc::none;
}

HEADROOM_DECL auto text_parser::check_bound_label(metric_type type,
                                                  std::size_t first_label) noexcept -> parse_errc {
  if (type != metric_type::histogram && type != metric_type::summary) return parse_errc::none;
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
  return parse_errc::none;
}

HEADROOM_DECL auto text_parser::first_duplicate(std::size_t first) -> std::size_t {
  const std::vector<label>& labels = out_.labels_;
  const std::size_t count = labels.size() - first;
  constexpr std::size_t pairwise_limit = 16;  // below it a pairwise scan beats hashing
  if (count <= pairwise_limit) {
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

HEADROOM_DECL auto text_parser::parse_labels(std::size_t i, std::size_t& end) -> parse_errc {
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
    if (options_.max_label_name_bytes != 0 && name.size() > options_.max_label_name_bytes)
      return fail(name_at, parse_errc::label_name_too_long);
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
        if (next != '\\' && next != '"' && next != 'n') return fail(i, parse_errc::invalid_escape);
        escaped = true;
        i += 2;
        continue;
      }
      high = high || static_cast<unsigned char>(c) >= 0x80;
      ++i;
    }
    const std::string_view value = line_.substr(value_at, i - value_at);
    ++i;
    if (high && !headroom::detail::valid_utf8(value))
      return fail(value_at, parse_errc::invalid_utf8);
    if (options_.max_labels_per_series != 0 &&
        out_.labels_.size() - first_label >= options_.max_labels_per_series)
      return fail(name_at, parse_errc::too_many_labels);
    out_.labels_.push_back(label{.name = name, .value = value, .escaped = escaped});
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

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL page parse(std::string_view text, parse_options options) {
  page out;
  parse_into(text, out, options);
  return out;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

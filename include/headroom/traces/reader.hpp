// SPDX-License-Identifier: Apache-2.0
// The streaming trace reader: one buffer, one trace_request per row, line-numbered errors.
// Part of the trace readers (include/headroom/traces.hpp); formats and a worked example:
// docs/traces.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "options.hpp"
#include "parsing.hpp"
#include "sources.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Public traces (Azure, BurstGPT, Mooncake) read into requests, rates and lengths
/// (docs/traces.md).
namespace traces {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

/// Pulls the requests of a trace one at a time: while (reader.next(r)) use(r). S is a
/// TraceSource held by value (trace_file, trace_text, trace_stream, a lambda) or a reference
/// to one. Reads the header at construction. Memory: one buffer of options.buffer_bytes;
/// nothing is allocated per row. A malformed line throws invalid_argument naming `source`
/// with "file:line: reason"; rows are sorted by time (equal times allowed) or the first row
/// earlier than the one before it is such an error.
template <class S>
requires TraceSource<std::remove_reference_t<S>>
class trace_reader {
 public:
  /// Validates options (invalid_argument naming options.<field>), then reads the header.
  trace_reader(trace_format format, S source, const trace_options& options = {})
      : source_(std::forward<S>(source)), format_(format), options_(options) {
    detail::require_positive("options.speed", options.speed);
    const double from_s = options.from.count();
    if (!(from_s >= 0.0 && from_s <= time_limit_s))
      detail::fail("options.from", options.from, "must lie in [0 s, 4.6e9 s]");
    from_ns_ = static_cast<std::int64_t>(std::round(from_s * 1e9));
    if (options.to) {
      const double to_s = options.to->count();
      if (!(to_s > from_s && to_s <= time_limit_s))
        detail::fail("options.to", *options.to, "must lie in (options.from, 4.6e9 s]");
      to_ns_ = static_cast<std::int64_t>(std::round(to_s * 1e9));
    }
    if (format != trace_format::burstgpt && !options.model.empty())
      detail::fail("options.model", options.model, "is a BurstGPT column: leave it empty");
    if (format != trace_format::burstgpt && !options.log_type.empty())
      detail::fail("options.log_type", options.log_type, "is a BurstGPT column: leave it empty");
    if (options.buffer_bytes < 64 || options.buffer_bytes > (std::size_t{1} << 30))
      detail::fail("options.buffer_bytes", options.buffer_bytes, "must lie in [64, 2^30]");
    if (!options.name.empty()) {
      name_ = options.name;
    } else if constexpr (requires(const source_type& s) { std::string_view(s.name()); }) {
      name_ = std::string_view(source_.name());
    }
    if (name_.empty()) name_ = "trace";
    divisor_ = 1e9 * options.speed;
    buffer_.resize(options.buffer_bytes);
    read_header();
  }

  /// The next request of the window into `out`; false at the end of the trace or the window.
  [[nodiscard]] bool next(trace_request& out) {
    std::string_view line;
    while (!done_ && next_line(line)) {
      if (line.empty() ||
          ((line.front() == ' ' || line.front() == '\t') && detail::trim_blanks(line).empty()))
        continue;  // a blank line
      row r;
      switch (format_) {
        case trace_format::azure:
          parse_azure(line, r);
          break;
        case trace_format::burstgpt:
          parse_burstgpt(line, r);
          break;
        case trace_format::mooncake:
          parse_mooncake(line, r);
          break;
      }
      ++summary_.rows;
      if (have_row_ && r.time_ns < previous_ns_)
        detail::trace_line_error(name_, line_, "the time is earlier than the previous row's",
                                 time_text_);
      if (!have_row_) {
        constexpr std::int64_t day_ns = 86'400'000'000'000;
        origin_ns_ = 0;
        if (options_.origin == trace_origin::first_row) {
          origin_ns_ = r.time_ns;
        } else if (format_ == trace_format::azure) {
          const std::int64_t q = r.time_ns / day_ns;
          origin_ns_ = (r.time_ns % day_ns < 0 ? q - 1 : q) * day_ns;  // floor: 00:00 UTC
        }
      }
      have_row_ = true;
      previous_ns_ = r.time_ns;
      if (r.filtered) {
        ++summary_.filtered;
        continue;
      }
      if (r.failed) {
        ++summary_.failed;
        if (options_.failed == failed_rows::skip) continue;
      }
      const std::int64_t t = r.time_ns - origin_ns_;
      if (t < from_ns_) {
        ++summary_.before_window;
        continue;
      }
      if (options_.to && t >= to_ns_) {
        summary_.reached_window_end = true;
        done_ = true;
        break;
      }
      out.arrival = std::chrono::duration<double>(static_cast<double>(t - from_ns_) / divisor_);
      out.prompt_tokens = r.prompt;
      out.output_tokens = r.output;
      if (summary_.requests == 0) summary_.first_arrival = out.arrival;
      summary_.last_arrival = out.arrival;
      ++summary_.requests;
      summary_.prompt_tokens += r.prompt;
      summary_.output_tokens += r.output;
      return true;
    }
    done_ = true;
    return false;
  }

  /// What was read so far (all of it once next() returned false).
  [[nodiscard]] const trace_summary& summary() const noexcept { return summary_; }
  /// The number of the line read last (1-based; 0 before any).
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  /// The name errors are reported under.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Bytes taken from the source so far.
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  using source_type = std::remove_reference_t<S>;
  static constexpr double time_limit_s = 4.6e9;  // < 2^62 ns

  struct row {
    std::int64_t time_ns = 0;
    std::size_t prompt = 0;
    std::size_t output = 0;
    bool failed = false;
    bool filtered = false;
  };

  // ---- lines ---------------------------------------------------------------------------

  /// The next line without its '\n' (and '\r'); false at the end of the source.
  bool next_line(std::string_view& line) {
    char* const data = buffer_.data();
    for (;;) {
      if (begin_ < end_) {
        const auto* nl = static_cast<const char*>(std::memchr(data + begin_, '\n', end_ - begin_));
        if (nl != nullptr) {
          const auto stop = static_cast<std::size_t>(nl - data);
          line = std::string_view(data + begin_, stop - begin_);
          begin_ = stop + 1;
          return finish_line(line);
        }
      }
      if (eof_) {
        if (begin_ == end_) return false;
        line = std::string_view(data + begin_, end_ - begin_);  // no final newline
        begin_ = end_;
        return finish_line(line);
      }
      if (begin_ > 0) {
        std::memmove(data, data + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (end_ == buffer_.size()) {
        std::string reason = "the line is longer than the ";
        char digits[24];
        reason.append(digits, std::to_chars(digits, digits + sizeof digits, buffer_.size()).ptr);
        reason += "-byte buffer (trace_options::buffer_bytes)";
        detail::trace_line_error(name_, line_ + 1, reason);
      }
      const std::size_t room = buffer_.size() - end_;
      const std::size_t got = static_cast<std::size_t>(source_(data + end_, room));
      if (got > room)
        detail::fail("source", got, "returned more bytes than the buffer it was given holds");
      if (got == 0) {
        if constexpr (requires(source_type & s) { static_cast<bool>(s.failed()); }) {
          if (source_.failed()) detail::trace_line_error(name_, line_ + 1, "read error");
        }
        eof_ = true;
      }
      end_ += got;
      bytes_ += got;
    }
  }

  bool finish_line(std::string_view& line) noexcept {
    ++line_;
    ++summary_.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_ == 1 && line.size() >= 3 && std::memcmp(line.data(), "\xEF\xBB\xBF", 3) == 0)
      line.remove_prefix(3);  // a UTF-8 byte-order mark
    return true;
  }

  // ---- headers -------------------------------------------------------------------------

  void read_header() {
    if (format_ == trace_format::mooncake) return;  // JSON lines: no header
    std::string_view line;
    bool found = false;
    while (next_line(line)) {
      if (!detail::trim_blanks(line).empty()) {
        found = true;
        break;
      }
    }
    const char* expected = format_ == trace_format::azure
                               ? "the header TIMESTAMP,ContextTokens,GeneratedTokens"
                               : "a header naming Timestamp, Request tokens and Response tokens";
    if (!found)
      detail::trace_line_error(name_, line_ == 0 ? 1 : line_,
                               std::string("empty: expected ") + expected);
    if (format_ == trace_format::azure) {
      std::string_view fields[4];
      const std::size_t n = split(line, fields, 4);
      if (n != 3 || detail::trim_blanks(fields[0]) != "TIMESTAMP" ||
          detail::trim_blanks(fields[1]) != "ContextTokens" ||
          detail::trim_blanks(fields[2]) != "GeneratedTokens")
        detail::trace_line_error(name_, line_, std::string("expected ") + expected, line);
      columns_ = 3;
      return;
    }
    // BurstGPT: columns by name, in any order, others ignored.
    std::size_t column = 0;
    std::string_view rest = line;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string_view field = detail::trim_blanks(rest.substr(0, comma));
      const auto claim = [&](std::size_t& index) {
        if (index != npos) detail::trace_line_error(name_, line_, "a column is named twice", field);
        index = column;
      };
      if (field == "Timestamp") claim(time_column_);
      if (field == "Request tokens") claim(prompt_column_);
      if (field == "Response tokens") claim(output_column_);
      if (field == "Model") claim(model_column_);
      if (field == "Log Type") claim(log_type_column_);
      ++column;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    columns_ = column;
    if (time_column_ == npos || prompt_column_ == npos || output_column_ == npos)
      detail::trace_line_error(name_, line_, std::string("expected ") + expected, line);
    if (!options_.model.empty() && model_column_ == npos)
      detail::trace_line_error(name_, line_, "options.model is set but no column is named Model",
                               line);
    if (!options_.log_type.empty() && log_type_column_ == npos)
      detail::trace_line_error(name_, line_,
                               "options.log_type is set but no column is named Log Type", line);
  }

  /// Splits at commas into at most `most` fields (the last takes the rest); returns the
  /// number of commas + 1, which may exceed `most`.
  static std::size_t split(std::string_view line, std::string_view* fields, std::size_t most) {
    std::size_t n = 0;
    for (;;) {
      const auto* comma = static_cast<const char*>(std::memchr(line.data(), ',', line.size()));
      if (comma == nullptr) {
        if (n < most) fields[n] = line;
        return n + 1;
      }
      const auto length = static_cast<std::size_t>(comma - line.data());
      if (n < most) fields[n] = line.substr(0, length);
      ++n;
      line.remove_prefix(length + 1);
    }
  }

  // ---- rows ----------------------------------------------------------------------------

  void field_count_error(std::size_t found, std::string_view line) const {
    std::string reason = "expected ";
    char digits[24];
    reason.append(digits, std::to_chars(digits, digits + sizeof digits, columns_).ptr);
    reason += " comma-separated fields, found ";
    reason.append(digits, std::to_chars(digits, digits + sizeof digits, found).ptr);
    detail::trace_line_error(name_, line_, reason, line);
  }

  void token_field(std::string_view field, const char* column, std::size_t& out) const {
    field = detail::trim_blanks(field);
    if (!detail::parse_token_count(field, out))
      detail::trace_line_error(
          name_, line_, std::string(column) + " is not a token count (an integer 0 to 2^32 - 1)",
          field);
  }

  void parse_azure(std::string_view line, row& r) {
    std::string_view fields[3];
    const std::size_t n = split(line, fields, 3);
    if (n != 3) field_count_error(n, line);
    const std::string_view stamp = detail::trim_blanks(fields[0]);
    if (const char* why = datetime_.parse(stamp, r.time_ns))
      detail::trace_line_error(name_, line_, std::string("TIMESTAMP ") + why, stamp);
    time_text_ = stamp;
    token_field(fields[1], "ContextTokens", r.prompt);
    token_field(fields[2], "GeneratedTokens", r.output);
  }

  void parse_burstgpt(std::string_view line, row& r) {
    std::size_t column = 0;
    std::string_view rest = line;
    std::string_view stamp, prompt, output;
    bool more = true;
    while (more) {
      const auto* comma = static_cast<const char*>(std::memchr(rest.data(), ',', rest.size()));
      std::string_view field = rest;
      if (comma == nullptr) {
        more = false;
      } else {
        field = rest.substr(0, static_cast<std::size_t>(comma - rest.data()));
        rest.remove_prefix(field.size() + 1);
      }
      if (column == time_column_) {
        stamp = field;
      } else if (column == prompt_column_) {
        prompt = field;
      } else if (column == output_column_) {
        output = field;
      } else if (column == model_column_) {
        if (!options_.model.empty() && detail::trim_blanks(field) != options_.model)
          r.filtered = true;
      } else if (column == log_type_column_) {
        if (!options_.log_type.empty() && detail::trim_blanks(field) != options_.log_type)
          r.filtered = true;
      }
      ++column;
    }
    if (column != columns_) field_count_error(column, line);
    stamp = detail::trim_blanks(stamp);
    if (const char* why = detail::parse_time_field(stamp, 1'000'000'000, r.time_ns))
      detail::trace_line_error(name_, line_, std::string("Timestamp ") + why, stamp);
    time_text_ = stamp;
    token_field(prompt, "Request tokens", r.prompt);
    token_field(output, "Response tokens", r.output);
    r.failed = r.output == 0;  // BurstGPT's README: failures have Response tokens 0
  }

  void parse_mooncake(std::string_view line, row& r) {
    std::size_t i = 0;
    const auto skip_space = [&] {
      while (i < line.size() && detail::is_json_space(line[i])) ++i;
    };
    const auto bad = [&](std::string_view reason) {
      detail::trace_line_error(name_, line_, reason, line);
    };
    skip_space();
    if (i == line.size() || line[i] != '{') bad("not a JSON object");
    ++i;
    bool have_time = false, have_input = false, have_output = false;
    skip_space();
    if (i < line.size() && line[i] == '}') {
      ++i;
    } else {
      for (;;) {
        skip_space();
        if (i >= line.size() || line[i] != '"') bad("expected a quoted key in the JSON object");
        const std::size_t key_begin = ++i;
        while (i < line.size() && line[i] != '"' && line[i] != '\\') ++i;
        if (i >= line.size() || line[i] != '"')
          bad("a key in the JSON object is not a plain string");
        const std::string_view key = line.substr(key_begin, i - key_begin);
        ++i;
        skip_space();
        if (i >= line.size() || line[i] != ':') bad("expected ':' after a key");
        ++i;
        skip_space();
        const std::size_t value_begin = i;
        if (!detail::skip_json_value(line, i)) bad("a value is not JSON");
        const std::string_view value = line.substr(value_begin, i - value_begin);
        const auto once = [&](bool& seen) {
          if (seen) bad("a key appears twice");
          seen = true;
        };
        if (key == "timestamp") {
          once(have_time);
          if (const char* why = detail::parse_time_field(value, 1'000'000, r.time_ns))
            detail::trace_line_error(name_, line_, std::string("timestamp ") + why, value);
          time_text_ = value;
        } else if (key == "input_length") {
          once(have_input);
          token_field(value, "input_length", r.prompt);
        } else if (key == "output_length") {
          once(have_output);
          token_field(value, "output_length", r.output);
        }
        skip_space();
        if (i < line.size() && line[i] == ',') {
          ++i;
          continue;
        }
        if (i < line.size() && line[i] == '}') {
          ++i;
          break;
        }
        bad("expected ',' or '}' in the JSON object");
      }
    }
    skip_space();
    if (i != line.size()) bad("text after the JSON object");
    if (!have_time) bad("the object has no \"timestamp\"");
    if (!have_input) bad("the object has no \"input_length\"");
    if (!have_output) bad("the object has no \"output_length\"");
  }

  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  S source_;
  trace_format format_;
  trace_options options_;
  std::string name_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool done_ = false;
  std::size_t line_ = 0;
  std::uint64_t bytes_ = 0;
  std::size_t columns_ = 0;
  std::size_t time_column_ = npos, prompt_column_ = npos, output_column_ = npos;
  std::size_t model_column_ = npos, log_type_column_ = npos;
  detail::datetime_parser datetime_;
  std::string_view time_text_{};
  bool have_row_ = false;
  std::int64_t previous_ns_ = 0;
  std::int64_t origin_ns_ = 0;
  std::int64_t from_ns_ = 0;
  std::int64_t to_ns_ = 0;
  double divisor_ = 1e9;
  trace_summary summary_{};
};

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

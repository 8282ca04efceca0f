// SPDX-License-Identifier: Apache-2.0
// Streaming readers of public LLM production traces into arrival schedules with lengths:
//  - the Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_code.csv
//    and _conv.csv; Patel et al., "Splitwise", ISCA 2024): CSV TIMESTAMP,ContextTokens,
//    GeneratedTokens, TIMESTAMP a date-time "2023-11-16 18:15:46.6805900";
//  - BurstGPT (HPMLL/BurstGPT; Wang et al., KDD 2025): CSV Timestamp,Model,Request tokens,
//    Response tokens,Total tokens,Log Type, Timestamp in seconds from 0:00 of the first day;
//  - Mooncake's traces (kvcache-ai/Mooncake, FAST25-release/traces; Qin et al., FAST 2025):
//    JSON lines {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}.
// A reader pulls bytes from a source (a file, a std::istream, a string, or any callable that
// fills a buffer) through one fixed buffer and yields one trace_request per row: its arrival
// (seconds from the window's start, divided by the replay speed) and its prompt and output
// tokens. Memory is constant in the file's size and nothing is allocated per row. A
// malformed row is the caller's error: headroom::invalid_argument naming `source`, whose
// message is "file:line: reason". Adapters give the fleet day its per-minute traffic and the
// replica simulator its requests. Formats, units and a worked example: docs/traces.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checks.hpp"
#include "detail/from_chars.hpp"
#include "error.hpp"

namespace headroom {
inline namespace v0 {

// ============================================================================================
// Formats, options and what a reader yields
// ============================================================================================

/// The trace formats the readers understand.
enum class trace_format : std::uint8_t {
  azure,     ///< Azure LLM inference CSV: TIMESTAMP (date-time), ContextTokens, GeneratedTokens
  burstgpt,  ///< BurstGPT CSV: Timestamp (s), Request tokens, Response tokens (+ other columns)
  mooncake,  ///< Mooncake JSON lines: timestamp (ms), input_length, output_length (+ hash_ids)
};

/// Where trace time 0 lies; the window (from, to) is measured from it.
enum class trace_origin : std::uint8_t {
  first_row,   ///< the time of the file's first data row
  trace_zero,  ///< the trace's own zero: 00:00 of the first row's day (Azure), 0 s, 0 ms
};

/// What becomes of BurstGPT's failed requests (rows with Response tokens 0, per its README).
enum class failed_rows : std::uint8_t {
  skip,  ///< left out (as in BurstGPT's own *_without_fails_* files); counted in the summary
  keep,  ///< yielded with output_tokens 0 (they arrived: count them in the traffic)
};

/// How to read a trace. The reader keeps the rows whose time t (from the origin) lies in
/// [from, to) and yields each at arrival (t − from) / speed.
struct trace_options {
  double speed = 1.0;  ///< replay at speed× the recorded pace (2: twice as fast); finite, > 0
  std::chrono::duration<double> from{0};              ///< window start, trace time, >= 0
  std::optional<std::chrono::duration<double>> to{};  ///< window end (excluded), > from
  trace_origin origin = trace_origin::first_row;      ///< where trace time 0 lies
  failed_rows failed = failed_rows::skip;             ///< BurstGPT rows with Response tokens 0
  std::string_view model{};     ///< BurstGPT only: keep rows of this Model ("GPT-4"); empty: all
  std::string_view log_type{};  ///< BurstGPT only: keep rows of this Log Type; empty: all
  std::string_view name{};  ///< the file's name in error messages; empty: the source's or "trace"
  std::size_t buffer_bytes = std::size_t{1} << 18;  ///< the read buffer, the longest line; >= 64
};

/// One request of a trace.
struct trace_request {
  std::chrono::duration<double> arrival{};  ///< seconds from the window's start, after speed
  std::size_t prompt_tokens = 0;            ///< input tokens (ContextTokens, Request tokens, ...)
  std::size_t output_tokens = 0;            ///< generated tokens (0 only for a kept failure)
};

/// What a read saw. Counts are rows; token sums are over the requests yielded.
struct trace_summary {
  std::size_t lines = 0;          ///< lines read, header and blank lines included
  std::size_t rows = 0;           ///< data rows parsed
  std::size_t requests = 0;       ///< rows yielded
  std::size_t failed = 0;         ///< BurstGPT failures seen (yielded only with failed_rows::keep)
  std::size_t filtered = 0;       ///< BurstGPT rows of another model or log type
  std::size_t before_window = 0;  ///< rows before options.from
  bool reached_window_end = false;  ///< stopped at a row at or after options.to (rest unread)
  std::uint64_t prompt_tokens = 0;  ///< Σ prompt tokens yielded
  std::uint64_t output_tokens = 0;  ///< Σ output tokens yielded
  std::chrono::duration<double> first_arrival{};  ///< of the first request yielded (0 if none)
  std::chrono::duration<double> last_arrival{};   ///< of the last request yielded (0 if none)

  /// Mean prompt tokens per request yielded (0 when none).
  [[nodiscard]] double mean_prompt_tokens() const noexcept {
    return requests == 0 ? 0.0 : static_cast<double>(prompt_tokens) / static_cast<double>(requests);
  }
  /// Mean output tokens per request yielded (0 when none).
  [[nodiscard]] double mean_output_tokens() const noexcept {
    return requests == 0 ? 0.0 : static_cast<double>(output_tokens) / static_cast<double>(requests);
  }
  /// The mean rate of the requests yielded, (n − 1)/(last − first) req/s (arrivals.hpp's
  /// observed_rate_per_s); empty with fewer than two distinct arrival times.
  [[nodiscard]] std::optional<double> rate_per_second() const noexcept {
    const double span = (last_arrival - first_arrival).count();
    if (requests < 2 || !(span > 0.0)) return std::nullopt;
    return static_cast<double>(requests - 1) / span;
  }
};

// ============================================================================================
// Sources of bytes
// ============================================================================================

/// A source of trace bytes: s(buffer, capacity) writes at most capacity bytes to buffer and
/// returns how many, 0 at the end. Optional members: failed() (true after a read error, asked
/// when 0 comes back) and name() (the file's name in error messages).
template <class S>
concept TraceSource = requires(S& source, char* buffer, std::size_t capacity) {
  { source(buffer, capacity) } -> std::convertible_to<std::size_t>;
};

/// An in-memory trace (tests, embedded data). Holds a view: keep the text alive.
class trace_text {
 public:
  /// The whole trace, as it would be in a file.
  explicit constexpr trace_text(std::string_view text) noexcept : text_(text) {}
  /// Copies the next bytes.
  std::size_t operator()(char* buffer, std::size_t capacity) noexcept {
    const std::size_t n = capacity < text_.size() ? capacity : text_.size();
    if (n > 0) std::memcpy(buffer, text_.data(), n);
    text_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view text_;
};

/// A trace file, opened for binary reading (line ends are the reader's business); closes on
/// destruction. Move-only.
class trace_file {
 public:
  /// Opens path; throws invalid_argument naming `path` (with the system's reason) if it cannot.
  explicit trace_file(std::string path) : path_(std::move(path)) {
    errno = 0;
    file_ = std::fopen(path_.c_str(), "rb");
    if (file_ == nullptr) {
      const int error = errno;
      std::string why = "cannot be opened for reading";
      if (error != 0) why += ": " + std::generic_category().message(error);
      detail::fail("path", path_, why);
    }
  }
  trace_file(const trace_file&) = delete;
  trace_file& operator=(const trace_file&) = delete;
  /// Takes the other's file; the other is left closed.
  trace_file(trace_file&& other) noexcept
      : file_(std::exchange(other.file_, nullptr)), path_(std::move(other.path_)) {}
  /// Closes this file, then takes the other's.
  trace_file& operator=(trace_file&& other) noexcept {
    if (this != &other) {
      close();
      file_ = std::exchange(other.file_, nullptr);
      path_ = std::move(other.path_);
    }
    return *this;
  }
  ~trace_file() { close(); }

  /// Reads the next bytes (0 at the end, or after an error: see failed()).
  std::size_t operator()(char* buffer, std::size_t capacity) noexcept {
    return file_ == nullptr ? 0 : std::fread(buffer, 1, capacity, file_);
  }
  /// True after a read error.
  [[nodiscard]] bool failed() const noexcept { return file_ == nullptr || std::ferror(file_) != 0; }
  /// The path, for error messages.
  [[nodiscard]] std::string_view name() const noexcept { return path_; }

 private:
  void close() noexcept {
    if (file_ != nullptr) static_cast<void>(std::fclose(file_));
    file_ = nullptr;
  }
  std::FILE* file_ = nullptr;
  std::string path_;
};

/// A stream with read(char*, n), gcount() and bad(): std::istream, std::ifstream and the like.
template <class S>
concept TraceStream = requires(S& stream, char* buffer) {
  stream.read(buffer, 1);
  { stream.gcount() } -> std::integral;
  { stream.bad() } -> std::convertible_to<bool>;
};

/// A TraceSource over a stream (std::ifstream opened in binary mode, std::istringstream).
/// Holds a reference: keep the stream alive.
template <TraceStream Stream>
class trace_stream {
 public:
  /// Reads from stream.
  explicit trace_stream(Stream& stream) noexcept : stream_(&stream) {}
  /// Reads the next bytes.
  std::size_t operator()(char* buffer, std::size_t capacity) {
    using count = decltype(stream_->gcount());
    stream_->read(buffer, static_cast<count>(capacity));
    const count got = stream_->gcount();
    return got > 0 ? static_cast<std::size_t>(got) : 0;
  }
  /// True after a read error (badbit; reaching the end is not an error).
  [[nodiscard]] bool failed() const { return static_cast<bool>(stream_->bad()); }

 private:
  Stream* stream_;
};

// ============================================================================================
// Parsing helpers (private)
// ============================================================================================

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
  [[nodiscard]] const char* parse(std::string_view s, std::int64_t& ns) noexcept {
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
[[nodiscard]] inline bool parse_token_count(std::string_view s, std::size_t& out) noexcept {
  std::uint64_t v = 0;
  const char* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), last, v);
  if (s.empty() || ec != std::errc{} || ptr != last || v > trace_token_limit) return false;
  out = static_cast<std::size_t>(v);
  return true;
}

/// A whole field as a non-negative time in `unit_ns` nanoseconds (an integer, or a decimal
/// number through from_chars_double), converted to ns within ±2^62. nullptr or a reason.
[[nodiscard]] inline const char* parse_time_field(std::string_view s, std::int64_t unit_ns,
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

/// JSON whitespace.
[[nodiscard]] constexpr bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// Skips one JSON value at s[i] (string, number, literal, array or object, nested up to 64
/// deep); i ends past it. false if it is not one.
[[nodiscard]] inline bool skip_json_value(std::string_view s, std::size_t& i) noexcept {
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

/// Throws invalid_argument naming `source`: "name:line: reason".
[[noreturn]] inline void trace_line_error(std::string_view name, std::size_t line,
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

/// The same, quoting the offending text (its first 80 bytes): "name:line: reason: \"text\"".
[[noreturn]] inline void trace_line_error(std::string_view name, std::size_t line,
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

// ============================================================================================
// The reader
// ============================================================================================

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

// ============================================================================================
// Reading a whole trace
// ============================================================================================

namespace detail {

/// A reader over any accepted source argument: a TraceSource (by reference) or a stream.
template <class Src>
[[nodiscard]] auto make_trace_reader(trace_format format, Src& source,
                                     const trace_options& options) {
  if constexpr (TraceSource<Src>) {
    return trace_reader<Src&>(format, source, options);
  } else {
    static_assert(TraceStream<Src>,
                  "a trace source is a TraceSource (trace_file, trace_text, a callable "
                  "filling a buffer) or a stream with read(), gcount() and bad()");
    return trace_reader<trace_stream<Src>>(format, trace_stream<Src>(source), options);
  }
}

}  // namespace detail

/// Streams a trace: calls visit(const trace_request&) for each request of the window, in
/// order; a visitor returning bool stops the read by returning false. source: a TraceSource
/// (trace_file{"conv.csv"}, trace_text{...}, a callable) or a std::istream. Constant memory.
/// Returns what was read. Errors as trace_reader.
template <class Src, class Visitor>
trace_summary read_trace(trace_format format, Src&& source, const trace_options& options,
                         Visitor&& visit) {
  auto reader = detail::make_trace_reader(format, source, options);
  trace_request r;
  while (reader.next(r)) {
    if constexpr (std::is_convertible_v<std::invoke_result_t<Visitor&, const trace_request&>,
                                        bool>) {
      if (!static_cast<bool>(visit(static_cast<const trace_request&>(r)))) break;
    } else {
      visit(static_cast<const trace_request&>(r));
    }
  }
  return reader.summary();
}

/// The summary of a whole read (counts, token sums, first and last arrival) in constant memory.
template <class Src>
[[nodiscard]] trace_summary summarize_trace(trace_format format, Src&& source,
                                            const trace_options& options = {}) {
  return read_trace(format, source, options, [](const trace_request&) noexcept {});
}

/// The fleet day's traffic: requests per second in consecutive steps of `step` from the
/// window's start (after the speed-up), element m = (arrivals in [m·step, (m+1)·step)) / step.
/// With options.to, the window's ceil((to − from)/speed/step) steps, empty ones 0; without,
/// up to the step of the last request (none: empty). At most 2^24 steps; step > 0, finite.
/// The memory is one double per step, whatever the file's size.
template <class Src>
[[nodiscard]] std::vector<double> read_trace_rates(
    trace_format format, Src&& source, const trace_options& options = {},
    std::chrono::duration<double> step = std::chrono::minutes{1}) {
  const double step_s = detail::require_positive("step", step.count());
  constexpr double most_steps = 16777216.0;                          // 2^24
  auto reader = detail::make_trace_reader(format, source, options);  // checks the options
  std::vector<double> counts;
  if (options.to) {
    const double window_steps =
        std::ceil((options.to->count() - options.from.count()) / options.speed / step_s);
    if (!(window_steps <= most_steps))
      detail::fail("step", step, "the window holds more than 2^24 steps of it");
    counts.assign(static_cast<std::size_t>(window_steps), 0.0);
  }
  trace_request r;
  while (reader.next(r)) {
    const double index = std::floor(r.arrival.count() / step_s);
    if (!(index < most_steps))
      detail::trace_line_error(reader.name(), reader.line(),
                               "the arrival lies more than 2^24 steps of `step` from the start");
    const auto m = static_cast<std::size_t>(index);
    if (m >= counts.size()) counts.resize(m + 1, 0.0);
    counts[m] += 1.0;
  }
  for (double& c : counts) c /= step_s;
  return counts;
}

/// Every request of the window as a Request{arrival, prompt, output}, for the replica
/// simulator: read_trace_requests<sim::request>(...) feeds sim::simulate. Token counts of 0
/// become 1 (the simulator's minimum: a request reads a token and generates one). Memory
/// grows with the requests kept (use read_trace to stream).
template <class Request, class Src>
requires requires(std::chrono::duration<double> t, std::size_t n) { Request{t, n, n}; }
[[nodiscard]] std::vector<Request> read_trace_requests(trace_format format, Src&& source,
                                                       const trace_options& options = {}) {
  std::vector<Request> requests;
  read_trace(format, source, options, [&requests](const trace_request& r) {
    requests.push_back(Request{r.arrival, r.prompt_tokens > 0 ? r.prompt_tokens : 1,
                               r.output_tokens > 0 ? r.output_tokens : 1});
  });
  return requests;
}

/// The window's prompt and output lengths as Lengths{prompt, output}, in order:
/// read_trace_lengths<sim::request_lengths>(...) feeds sim::replayed_lengths (and through it
/// make_requests and sweep_capacity). Counts of 0 become 1, as read_trace_requests.
template <class Lengths, class Src>
requires requires(std::size_t n) { Lengths{n, n}; }
[[nodiscard]] std::vector<Lengths> read_trace_lengths(trace_format format, Src&& source,
                                                      const trace_options& options = {}) {
  std::vector<Lengths> lengths;
  read_trace(format, source, options, [&lengths](const trace_request& r) {
    lengths.push_back(Lengths{r.prompt_tokens > 0 ? r.prompt_tokens : 1,
                              r.output_tokens > 0 ? r.output_tokens : 1});
  });
  return lengths;
}

}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

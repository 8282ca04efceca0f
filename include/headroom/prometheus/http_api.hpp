// SPDX-License-Identifier: Apache-2.0
// The answer of Prometheus's HTTP API to an expression query (GET/POST /api/v1/query and
// /api/v1/query_range): a strict, bounded reader of its JSON into an api_response (vector,
// scalar, matrix or string result; status "error" with errorType and error; warnings and
// infos), and what an autoscaler reads off it in one call: the value KEDA's Prometheus
// scaler takes, as a metric_observation for autoscaler_input.
//
// Sources: the response envelope and encodings as documented in prometheus/docs
// content/docs/prometheus/latest/querying/api.md ("Format overview", "Expression query
// result formats") and as written by prometheus/prometheus web/api/v1/api.go (Response) and
// util/jsonutil (timestamps as seconds with at most three decimals, values as strings:
// "1", "0.5", "NaN", "+Inf", "-Inf"); KEDA's reading of it: kedacore/keda
// pkg/scalers/prometheus_scaler.go, ExecutePromQuery. docs/prometheus.md.
//
// Errors: a malformed answer is a value (api_response::parse_error, with the byte offset and
// a fixed reason), never an exception. The reader keeps no view into the input.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../autoscaler/inputs.hpp"
#include "../detail/utf8.hpp"
#include "text.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// The "resultType" of a successful answer (none: an error answer, or a failed parse).
enum class api_result_type : unsigned char { none, vector, scalar, matrix, string };

/// Prometheus's spelling: "vector", "scalar", "matrix", "string" ("" for none).
[[nodiscard]] constexpr std::string_view to_string(api_result_type type) noexcept {
  switch (type) {
    case api_result_type::vector:
      return "vector";
    case api_result_type::scalar:
      return "scalar";
    case api_result_type::matrix:
      return "matrix";
    case api_result_type::string:
      return "string";
    case api_result_type::none:
      break;
  }
  return "";
}

/// The "status" field: success, or error (then errorType and error say why).
enum class api_status : unsigned char { success, error };

/// Why an answer could not be read. Each code has a fixed English reason (describe()).
enum class api_errc : unsigned char {
  none,
  empty_input,          ///< nothing but white space
  syntax,               ///< not JSON at this byte (a missing ',', ':', quote, bracket, ...)
  invalid_string,       ///< a raw control character, a bad escape or a lone surrogate
  invalid_utf8,         ///< a string that is not well-formed UTF-8
  trailing_characters,  ///< something after the JSON value
  too_deep,             ///< nesting deeper than api_max_depth
  duplicate_key,        ///< the same key twice in one object
  wrong_type,           ///< a field of the wrong JSON type (a number where a string belongs, ...)
  missing_field,        ///< a required field is absent (status, data, resultType, result, ...)
  unknown_status,       ///< "status" other than "success" or "error"
  unknown_result_type,  ///< "resultType" other than vector, scalar, matrix, string
  invalid_timestamp,    ///< not seconds with at most three decimals (Prometheus's millisecond form)
  invalid_value,        ///< a sample value that is not a float in a string ("1", "NaN", "+Inf")
  invalid_point,        ///< a sample pair that is not [timestamp, "value"]
  duplicate_label,      ///< the same label name twice in one series
  native_histogram,     ///< a "histogram"/"histograms" sample: native histograms are not read
  too_large,            ///< the input is longer than api_limits::max_bytes
  too_many_series,      ///< more series than api_limits::max_series
  too_many_points,      ///< more samples in all than api_limits::max_points
  too_many_labels,      ///< a series with more labels than api_limits::max_labels_per_series
  string_too_long,      ///< a string longer than api_limits::max_string_bytes
  too_many_messages,    ///< more warnings plus infos than api_limits::max_messages
};

/// A one-line English reason for an api_errc.
[[nodiscard]] constexpr std::string_view describe(api_errc code) noexcept {
  switch (code) {
    case api_errc::none:
      return "no error";
    case api_errc::empty_input:
      return "the answer is empty";
    case api_errc::syntax:
      return "not valid JSON here";
    case api_errc::invalid_string:
      return "a string with a raw control character, a bad escape or a lone surrogate";
    case api_errc::invalid_utf8:
      return "a string that is not valid UTF-8";
    case api_errc::trailing_characters:
      return "characters after the JSON value";
    case api_errc::too_deep:
      return "nesting too deep";
    case api_errc::duplicate_key:
      return "a key repeated in one object";
    case api_errc::wrong_type:
      return "a field of the wrong JSON type";
    case api_errc::missing_field:
      return "a required field is missing";
    case api_errc::unknown_status:
      return "status is neither \"success\" nor \"error\"";
    case api_errc::unknown_result_type:
      return "resultType is not vector, scalar, matrix or string";
    case api_errc::invalid_timestamp:
      return "a timestamp that is not seconds with at most three decimals";
    case api_errc::invalid_value:
      return "a sample value that is not a float in a string";
    case api_errc::invalid_point:
      return "a sample that is not [timestamp, \"value\"]";
    case api_errc::duplicate_label:
      return "a label name repeated in one series";
    case api_errc::native_histogram:
      return "a native histogram sample (not read)";
    case api_errc::too_large:
      return "the answer is longer than max_bytes";
    case api_errc::too_many_series:
      return "more series than max_series";
    case api_errc::too_many_points:
      return "more samples than max_points";
    case api_errc::too_many_labels:
      return "a series with more labels than max_labels_per_series";
    case api_errc::string_too_long:
      return "a string longer than max_string_bytes";
    case api_errc::too_many_messages:
      return "more warnings and infos than max_messages";
  }
  return "unknown error";
}

/// Where and why a read failed: the byte offset into the input and the code.
struct api_parse_error {
  api_errc code = api_errc::none;  ///< none when the answer was read
  std::size_t offset = 0;          ///< byte offset of the offending character or field
  std::string_view field{};        ///< the field being read ("resultType", "value", ...), if any
  /// "byte 123 (field \"value\"): a sample value that is not a float in a string".
  [[nodiscard]] std::string message() const {
    std::string out = "byte " + std::to_string(offset);
    if (!field.empty()) {
      out += " (field \"";
      out += field;
      out += "\")";
    }
    out += ": ";
    out += describe(code);
    return out;
  }
};

/// The deepest JSON nesting read (an answer nests 5 deep; unknown fields may nest more).
inline constexpr std::size_t api_max_depth = 64;

/// The reader's limits; 0 means no limit (the default for all). An answer past one fails with
/// its own code, so a hostile or runaway server costs at most what the limits allow.
struct api_limits {
  std::size_t max_bytes = 0;              ///< longest input; past it: too_large (nothing read)
  std::size_t max_series = 0;             ///< most series in a vector or matrix
  std::size_t max_points = 0;             ///< most samples over all series
  std::size_t max_labels_per_series = 0;  ///< most labels one series may carry
  std::size_t max_string_bytes = 0;       ///< longest string (decoded bytes)
  std::size_t max_messages = 0;           ///< most warnings plus infos
};

/// One label of a series ("__name__" included when the server returns it).
struct api_label {
  std::string name{};   ///< the label name, decoded
  std::string value{};  ///< the label value, decoded
  friend bool operator==(const api_label&, const api_label&) = default;
};

/// One sample: its time (milliseconds since the Unix epoch, as Prometheus stores it) and
/// value (NaN and the infinities as Prometheus wrote them).
struct api_point {
  std::chrono::milliseconds timestamp{0};  ///< ms since 1970-01-01T00:00:00Z
  double value = 0;                        ///< the sample value
};

/// One series of a vector (exactly one point) or a matrix (its points in the server's order).
struct api_series {
  std::vector<api_label> labels{};  ///< sorted by name, names unique
  std::vector<api_point> points{};  ///< vector: one; matrix: zero or more
  /// The value of label `name`, or nullopt when the series does not carry it.
  [[nodiscard]] std::optional<std::string_view> label(std::string_view name) const noexcept {
    for (const api_label& l : labels)
      if (l.name == name) return std::string_view(l.value);
    return std::nullopt;
  }
};

/// A read answer. ok() when it parsed and the server reported success.
struct api_response {
  api_parse_error parse_error{};                 ///< code none when the answer was read
  api_status status = api_status::error;         ///< the server's status
  api_result_type type = api_result_type::none;  ///< data.resultType
  std::vector<api_series> series{};              ///< vector and matrix results
  api_point scalar{};                            ///< scalar: the value; string: the time
  std::string string_value{};                    ///< string results
  std::string error_type{};                      ///< errorType ("bad_data", "timeout", ...)
  std::string error{};                           ///< error, the server's message
  std::vector<std::string> warnings{};           ///< "warnings", in order
  std::vector<std::string> infos{};              ///< "infos", in order (Prometheus 2.52+)
  /// True when the answer was read and status is "success".
  [[nodiscard]] bool ok() const noexcept {
    return parse_error.code == api_errc::none && status == api_status::success;
  }
  /// True when the answer was read (success or a server-reported error).
  [[nodiscard]] bool parsed() const noexcept { return parse_error.code == api_errc::none; }
};

namespace detail {

/// The JSON reader behind parse_api_response: a cursor, the limits and the first error.
class api_reader {
 public:
  api_reader(std::string_view text, const api_limits& limits, api_response& out) noexcept
      : s_(text), limits_(limits), out_(out) {}

  void run() {
    skip_ws();
    if (i_ == s_.size()) return fail(api_errc::empty_input);
    read_top();
    if (failed()) return;
    skip_ws();
    if (i_ != s_.size()) fail(api_errc::trailing_characters);
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  const api_limits& limits_;
  api_response& out_;
  std::string_view field_{};
  std::size_t points_ = 0;

  [[nodiscard]] bool failed() const noexcept { return out_.parse_error.code != api_errc::none; }
  void fail(api_errc code) { fail_at(code, i_); }
  void fail_at(api_errc code, std::size_t offset) {
    if (failed()) return;
    out_.parse_error = {.code = code, .offset = offset, .field = field_};
  }

  void skip_ws() noexcept {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  [[nodiscard]] char peek() noexcept {
    skip_ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool expect(char c) {
    if (peek() != c) {
      fail(api_errc::syntax);
      return false;
    }
    ++i_;
    return true;
  }
  /// Reads a JSON literal word (true, false, null) at the cursor.
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) {
      fail(api_errc::syntax);
      return false;
    }
    i_ += word.size();
    return true;
  }

  static int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool read_hex4(char32_t& out) {
    if (s_.size() - i_ < 4) return false;
    out = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int d = hex_digit(s_[i_ + k]);
      if (d < 0) return false;
      out = (out << 4) | static_cast<char32_t>(d);
    }
    i_ += 4;
    return true;
  }
  static void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  /// Reads a JSON string at the cursor into out (decoded). Strict: raw control characters,
  /// unknown escapes, lone surrogates and ill-formed UTF-8 fail.
  bool read_string(std::string& out) {
    if (peek() != '"') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    out.clear();
    while (true) {
      if (i_ >= s_.size()) {
        fail(api_errc::syntax);
        return false;
      }
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (limits_.max_string_bytes != 0 && out.size() >= limits_.max_string_bytes) {
        fail(api_errc::string_too_long);
        return false;
      }
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20) {
        fail(api_errc::invalid_string);
        return false;
      }
      if (byte >= 0x80) {
        const ::headroom::detail::utf8_char u = ::headroom::detail::decode_utf8(s_, i_);
        if (u.length == 0) {
          fail(api_errc::invalid_utf8);
          return false;
        }
        out.append(s_.substr(i_, u.length));
        i_ += u.length;
        continue;
      }
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      const std::size_t escape_at = i_;
      ++i_;
      if (i_ >= s_.size()) {
        fail(api_errc::syntax);
        return false;
      }
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          char32_t code = 0;
          if (!read_hex4(code)) {
            fail_at(api_errc::invalid_string, escape_at);
            return false;
          }
          if (code >= 0xDC00 && code <= 0xDFFF) {
            fail_at(api_errc::invalid_string, escape_at);
            return false;
          }
          if (code >= 0xD800 && code <= 0xDBFF) {
            char32_t low = 0;
            if (s_.substr(i_, 2) != "\\u") {
              fail_at(api_errc::invalid_string, escape_at);
              return false;
            }
            i_ += 2;
            if (!read_hex4(low) || low < 0xDC00 || low > 0xDFFF) {
              fail_at(api_errc::invalid_string, escape_at);
              return false;
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail_at(api_errc::invalid_string, escape_at);
          return false;
      }
    }
  }

  /// The extent of a JSON number at the cursor (RFC 8259 grammar); empty when there is none.
  std::string_view number_token() noexcept {
    const std::size_t start = i_;
    std::size_t k = i_;
    const auto digit = [&](std::size_t at) {
      return at < s_.size() && s_[at] >= '0' && s_[at] <= '9';
    };
    if (k < s_.size() && s_[k] == '-') ++k;
    if (!digit(k)) return {};
    if (s_[k] == '0') {
      ++k;
    } else {
      while (digit(k)) ++k;
    }
    if (k < s_.size() && s_[k] == '.') {
      ++k;
      if (!digit(k)) return {};
      while (digit(k)) ++k;
    }
    if (k < s_.size() && (s_[k] == 'e' || s_[k] == 'E')) {
      ++k;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (!digit(k)) return {};
      while (digit(k)) ++k;
    }
    i_ = k;
    return s_.substr(start, k - start);
  }

  /// Skips any JSON value (unknown fields), iteratively, at most api_max_depth deep.
  bool skip_value() {
    std::vector<char> stack;  // the closers expected
    std::string scratch;
    bool need_value = true;
    while (true) {
      if (need_value) {
        const char c = peek();
        if (c == '{' || c == '[') {
          if (stack.size() >= api_max_depth) {
            fail(api_errc::too_deep);
            return false;
          }
          ++i_;
          stack.push_back(c == '{' ? '}' : ']');
          if (peek() == stack.back()) {
            ++i_;
            stack.pop_back();
            need_value = false;
          } else if (c == '{') {
            if (peek() != '"' || !read_string(scratch) || !expect(':')) return fail_syntax();
          }
          if (need_value) continue;
        } else if (c == '"') {
          if (!read_string(scratch)) return false;
        } else if (c == 't') {
          if (!literal("true")) return false;
        } else if (c == 'f') {
          if (!literal("false")) return false;
        } else if (c == 'n') {
          if (!literal("null")) return false;
        } else if (number_token().empty()) {
          fail(api_errc::syntax);
          return false;
        }
        need_value = false;
      }
      if (stack.empty()) return true;
      const char c = peek();
      if (c == ',') {
        ++i_;
        if (stack.back() == '}' && (peek() != '"' || !read_string(scratch) || !expect(':')))
          return fail_syntax();
        need_value = true;
      } else if (c == stack.back()) {
        ++i_;
        stack.pop_back();
      } else {
        fail(api_errc::syntax);
        return false;
      }
    }
  }
  bool fail_syntax() {
    fail(api_errc::syntax);
    return false;
  }

  /// Iterates the members of an object at the cursor: calls on_member(key, key_offset) with
  /// the cursor at the value, which must consume it. Keys repeated in one object fail.
  template <class F>
  bool read_object(F&& on_member) {
    if (peek() != '{') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    if (peek() == '}') {
      ++i_;
      return true;
    }
    std::string key;
    while (true) {
      skip_ws();
      const std::size_t key_at = i_;
      if (peek() != '"') return fail_syntax();
      if (!read_string(key) || !expect(':')) return false;
      if (!on_member(key, key_at)) return false;
      const char c = peek();
      if (c == '}') {
        ++i_;
        return true;
      }
      if (c != ',') return fail_syntax();
      ++i_;
    }
  }

  /// Iterates the elements of an array at the cursor: on_element() consumes each.
  template <class F>
  bool read_array(F&& on_element) {
    if (peek() != '[') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    if (peek() == ']') {
      ++i_;
      return true;
    }
    while (true) {
      if (!on_element()) return false;
      const char c = peek();
      if (c == ']') {
        ++i_;
        return true;
      }
      if (c != ',') return fail_syntax();
      ++i_;
    }
  }

  /// A timestamp: seconds since the epoch with at most three decimals, into milliseconds.
  bool read_timestamp(std::chrono::milliseconds& out) {
    skip_ws();
    const std::size_t at = i_;
    const char c = peek();
    if (!(c == '-' || (c >= '0' && c <= '9'))) {
      fail(c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n'
               ? api_errc::invalid_timestamp
               : api_errc::syntax);
      return false;
    }
    const std::string_view tok = number_token();
    if (tok.empty()) {
      fail_at(api_errc::syntax, at);
      return false;
    }
    std::size_t k = 0;
    const bool negative = tok[0] == '-';
    if (negative) ++k;
    // The largest whole seconds whose milliseconds fit in int64 with room: 9.2e15 s.
    constexpr std::int64_t max_seconds = 9'200'000'000'000'000;
    std::int64_t seconds = 0;
    for (; k < tok.size() && tok[k] >= '0' && tok[k] <= '9'; ++k) {
      if (seconds > max_seconds / 10) {
        fail_at(api_errc::invalid_timestamp, at);
        return false;
      }
      seconds = seconds * 10 + (tok[k] - '0');
    }
    std::int64_t millis = 0;
    if (k < tok.size() && tok[k] == '.') {
      ++k;
      std::size_t digits = 0;
      for (; k < tok.size() && tok[k] >= '0' && tok[k] <= '9'; ++k, ++digits) {
        if (digits >= 3) {
          fail_at(api_errc::invalid_timestamp, at);
          return false;
        }
        millis = millis * 10 + (tok[k] - '0');
      }
      for (; digits < 3; ++digits) millis *= 10;
    }
    if (k != tok.size() || seconds > max_seconds) {  // an exponent
      fail_at(api_errc::invalid_timestamp, at);
      return false;
    }
    const std::int64_t total = seconds * 1000 + millis;
    out = std::chrono::milliseconds(negative ? -total : total);
    return true;
  }

  /// A sample value: a string holding a float as Go's strconv.ParseFloat reads it.
  bool read_value_string(double& out) {
    skip_ws();
    const std::size_t at = i_;
    std::string text;
    if (peek() != '"') {
      fail(api_errc::invalid_value);
      return false;
    }
    if (!read_string(text)) return false;
    if (parse_float(text, out) != parse_errc::none) {
      fail_at(api_errc::invalid_value, at);
      return false;
    }
    return true;
  }

  /// A [timestamp, "value"] pair.
  bool read_point(api_point& p) {
    skip_ws();
    const std::size_t at = i_;
    if (peek() != '[') {
      fail(api_errc::invalid_point);
      return false;
    }
    ++i_;
    if (!read_timestamp(p.timestamp)) return false;
    if (peek() != ',') {
      fail_at(api_errc::invalid_point, at);
      return false;
    }
    ++i_;
    if (!read_value_string(p.value)) return false;
    if (peek() != ']') {
      fail_at(api_errc::invalid_point, at);
      return false;
    }
    ++i_;
    return true;
  }

  bool count_point() {
    ++points_;
    if (limits_.max_points != 0 && points_ > limits_.max_points) {
      fail(api_errc::too_many_points);
      return false;
    }
    return true;
  }

  bool read_labels(api_series& s) {
    const std::size_t at = i_;
    const bool ok = read_object([&](const std::string& key, std::size_t) {
      if (limits_.max_labels_per_series != 0 && s.labels.size() >= limits_.max_labels_per_series) {
        fail(api_errc::too_many_labels);
        return false;
      }
      api_label l{.name = key, .value = {}};
      if (peek() != '"') {
        fail(api_errc::wrong_type);
        return false;
      }
      if (!read_string(l.value)) return false;
      s.labels.push_back(std::move(l));
      return true;
    });
    if (!ok) return false;
    std::sort(s.labels.begin(), s.labels.end(),
              [](const api_label& a, const api_label& b) { return a.name < b.name; });
    for (std::size_t k = 1; k < s.labels.size(); ++k)
      if (s.labels[k].name == s.labels[k - 1].name) {
        fail_at(api_errc::duplicate_label, at);
        return false;
      }
    return true;
  }

  /// One element of a vector (want_matrix false) or matrix result.
  bool read_series(bool want_matrix) {
    if (limits_.max_series != 0 && out_.series.size() >= limits_.max_series) {
      fail(api_errc::too_many_series);
      return false;
    }
    skip_ws();
    const std::size_t at = i_;
    api_series s;
    bool seen_metric = false, seen_value = false;
    const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
      if (key == "metric") {
        if (seen_metric) return dup(key_at);
        seen_metric = true;
        field_ = "metric";
        return read_labels(s);
      }
      if (key == (want_matrix ? "values" : "value")) {
        if (seen_value) return dup(key_at);
        seen_value = true;
        field_ = want_matrix ? "values" : "value";
        if (!want_matrix) {
          s.points.emplace_back();
          return count_point() && read_point(s.points.back());
        }
        return read_array([&] {
          s.points.emplace_back();
          return count_point() && read_point(s.points.back());
        });
      }
      if (key == "histogram" || key == "histograms") {
        fail_at(api_errc::native_histogram, key_at);
        return false;
      }
      if (key == (want_matrix ? "value" : "values")) {
        fail_at(api_errc::wrong_type, key_at);
        return false;
      }
      return skip_value();  // a field a later Prometheus may add
    });
    if (!ok) return false;
    if (!seen_metric || !seen_value) {
      field_ = !seen_metric ? "metric" : (want_matrix ? "values" : "value");
      fail_at(api_errc::missing_field, at);
      return false;
    }
    out_.series.push_back(std::move(s));
    return true;
  }

  bool dup(std::size_t key_at) {
    fail_at(api_errc::duplicate_key, key_at);
    return false;
  }

  bool read_result(api_result_type type) {
    field_ = "result";
    switch (type) {
      case api_result_type::vector:
      case api_result_type::matrix:
        return read_array([&] { return read_series(type == api_result_type::matrix); });
      case api_result_type::scalar:
        return count_point() && read_point(out_.scalar);
      case api_result_type::string: {
        skip_ws();
        const std::size_t at = i_;
        if (peek() != '[') {
          fail(api_errc::invalid_point);
          return false;
        }
        ++i_;
        if (!read_timestamp(out_.scalar.timestamp)) return false;
        if (peek() != ',') {
          fail_at(api_errc::invalid_point, at);
          return false;
        }
        ++i_;
        if (!read_string(out_.string_value)) return false;
        if (peek() != ']') {
          fail_at(api_errc::invalid_point, at);
          return false;
        }
        ++i_;
        return true;
      }
      case api_result_type::none:
        break;
    }
    return false;
  }

  /// data: {"resultType": ..., "result": ...}. The result may come before its type (JSON
  /// objects are unordered): then the reader comes back to it once the type is known.
  bool read_data() {
    bool seen_type = false, seen_result = false, result_read = false;
    std::size_t result_at = 0;
    const std::size_t at = i_;
    std::string type_text;
    const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
      if (key == "resultType") {
        if (seen_type) return dup(key_at);
        seen_type = true;
        field_ = "resultType";
        skip_ws();
        const std::size_t value_at = i_;
        if (!read_string(type_text)) return false;
        if (type_text == "vector") {
          out_.type = api_result_type::vector;
        } else if (type_text == "scalar") {
          out_.type = api_result_type::scalar;
        } else if (type_text == "matrix") {
          out_.type = api_result_type::matrix;
        } else if (type_text == "string") {
          out_.type = api_result_type::string;
        } else {
          fail_at(api_errc::unknown_result_type, value_at);
          return false;
        }
        return true;
      }
      if (key == "result") {
        if (seen_result) return dup(key_at);
        seen_result = true;
        skip_ws();
        result_at = i_;
        if (seen_type) {
          result_read = true;
          return read_result(out_.type);
        }
        field_ = "result";
        return skip_value();
      }
      field_ = {};
      return skip_value();  // "stats" (stats=all) and fields a later Prometheus may add
    });
    if (!ok) return false;
    if (!seen_type || !seen_result) {
      field_ = seen_type ? "result" : "resultType";
      fail_at(api_errc::missing_field, at);
      return false;
    }
    if (!result_read) {
      // The result came first: read it now that the type is known, then come back.
      const std::size_t resume = i_;
      i_ = result_at;
      if (!read_result(out_.type)) return false;
      i_ = resume;
    }
    return true;
  }

  bool read_messages(std::vector<std::string>& into) {
    return read_array([&] {
      const std::size_t total = out_.warnings.size() + out_.infos.size();
      if (limits_.max_messages != 0 && total >= limits_.max_messages) {
        fail(api_errc::too_many_messages);
        return false;
      }
      std::string m;
      if (!read_string(m)) return false;
      into.push_back(std::move(m));
      return true;
    });
  }

  void read_top() {
    bool seen_status = false, seen_data = false, seen_type = false, seen_error = false;
    bool seen_warnings = false, seen_infos = false;
    std::size_t data_at = 0;
    const std::size_t at = i_;
    const bool ok = read_object([&](const std::string& key, std::size_t key_at) {
      if (key == "status") {
        if (seen_status) return dup(key_at);
        seen_status = true;
        field_ = "status";
        skip_ws();
        const std::size_t value_at = i_;
        std::string v;
        if (!read_string(v)) return false;
        if (v == "success") {
          out_.status = api_status::success;
        } else if (v == "error") {
          out_.status = api_status::error;
        } else {
          fail_at(api_errc::unknown_status, value_at);
          return false;
        }
        return true;
      }
      if (key == "data") {
        if (seen_data) return dup(key_at);
        seen_data = true;
        skip_ws();
        data_at = i_;
        field_ = "data";
        if (peek() == 'n') return literal("null");
        return skip_value();  // read once the status is known (an error's data is not read)
      }
      if (key == "errorType") {
        if (seen_type) return dup(key_at);
        seen_type = true;
        field_ = "errorType";
        return read_string(out_.error_type);
      }
      if (key == "error") {
        if (seen_error) return dup(key_at);
        seen_error = true;
        field_ = "error";
        return read_string(out_.error);
      }
      if (key == "warnings") {
        if (seen_warnings) return dup(key_at);
        seen_warnings = true;
        field_ = "warnings";
        return read_messages(out_.warnings);
      }
      if (key == "infos") {
        if (seen_infos) return dup(key_at);
        seen_infos = true;
        field_ = "infos";
        return read_messages(out_.infos);
      }
      field_ = {};
      return skip_value();  // fields a later Prometheus may add
    });
    if (!ok) return;
    if (!seen_status) {
      field_ = "status";
      return fail_at(api_errc::missing_field, at);
    }
    if (out_.status == api_status::error) {
      if (!seen_type || !seen_error) {
        field_ = seen_type ? "error" : "errorType";
        fail_at(api_errc::missing_field, at);
      }
      return;
    }
    if (!seen_data || s_[data_at] != '{') {
      field_ = "data";
      return fail_at(seen_data ? api_errc::wrong_type : api_errc::missing_field,
                     seen_data ? data_at : at);
    }
    const std::size_t resume = i_;
    i_ = data_at;
    if (!read_data()) return;
    i_ = resume;
    field_ = {};
  }
};

}  // namespace detail

/// Reads the JSON answer of /api/v1/query or /api/v1/query_range. Never throws for bad
/// input: a malformed answer has parse_error set (offset, field, reason) and is not ok().
/// Strict: RFC 8259 JSON, well-formed UTF-8, no repeated key or label, the fields and
/// encodings Prometheus writes; fields it does not know are skipped (a later Prometheus may
/// add some). Time O(n log n) in the input; at most api_limits' series, points and strings.
[[nodiscard]] inline api_response parse_api_response(std::string_view json,
                                                     const api_limits& limits = {}) {
  api_response out;
  if (limits.max_bytes != 0 && json.size() > limits.max_bytes) {
    out.parse_error = {.code = api_errc::too_large, .offset = limits.max_bytes, .field = {}};
    return out;
  }
  detail::api_reader reader(json, limits, out);
  reader.run();
  if (!out.parsed()) {
    out.type = api_result_type::none;
    out.series.clear();
    out.string_value.clear();
  }
  return out;
}

// ---- what an autoscaler reads off an answer ------------------------------------------------

/// Why a query answer gives no value.
enum class query_missing : unsigned char {
  none,               ///< there is a value
  malformed,          ///< the answer did not parse (api_response::parse_error)
  query_failed,       ///< the server answered status "error" (errorType, error)
  no_series,          ///< an empty vector, and the policy says an empty result is no value
  multiple_series,    ///< a vector of more than one series (KEDA: "returned multiple elements")
  not_finite,         ///< NaN or an infinity, and the policy says that is no value
  not_instant_value,  ///< a matrix or string result (an instant vector or scalar is needed)
};

/// A one-line English reason for a query_missing.
[[nodiscard]] constexpr std::string_view describe(query_missing reason) noexcept {
  switch (reason) {
    case query_missing::none:
      return "present";
    case query_missing::malformed:
      return "the answer is not a Prometheus API response";
    case query_missing::query_failed:
      return "the server reported an error";
    case query_missing::no_series:
      return "the query returned no series";
    case query_missing::multiple_series:
      return "the query returned more than one series";
    case query_missing::not_finite:
      return "the query returned NaN or an infinity";
    case query_missing::not_instant_value:
      return "the result is a matrix or a string, not an instant vector or scalar";
  }
  return "unknown";
}

/// What an empty result or a NaN/infinite value means. keda_ignore_null: 0, as KEDA's
/// Prometheus trigger does with its default ignoreNullValues: true. no_value: no value
/// (the controller holds and says why), as KEDA with ignoreNullValues: false.
enum class null_values : unsigned char { keda_ignore_null, no_value };

/// The value of an instant query answer, or why there is none.
struct query_reading {
  std::optional<double> value{};                     ///< set iff missing == none
  query_missing missing = query_missing::malformed;  ///< none, or why there is no value
};

/// The value KEDA's Prometheus scaler reads off an answer (ExecutePromQuery): a vector of
/// exactly one series gives its value; a scalar its value (KEDA itself fails on a scalar;
/// an operator reading the API directly takes it); an empty vector and NaN/±Inf are 0 or
/// no value as `nulls` says; more than one series, a matrix or a string are no value.
[[nodiscard]] inline query_reading read_query_value(
    const api_response& r, null_values nulls = null_values::keda_ignore_null) {
  if (!r.parsed()) return {.missing = query_missing::malformed};
  if (r.status == api_status::error) return {.missing = query_missing::query_failed};
  double v = 0;
  switch (r.type) {
    case api_result_type::vector:
      if (r.series.empty())
        return nulls == null_values::keda_ignore_null
                   ? query_reading{.value = 0.0, .missing = query_missing::none}
                   : query_reading{.missing = query_missing::no_series};
      if (r.series.size() > 1) return {.missing = query_missing::multiple_series};
      v = r.series.front().points.front().value;
      break;
    case api_result_type::scalar:
      v = r.scalar.value;
      break;
    case api_result_type::matrix:
    case api_result_type::string:
    case api_result_type::none:
      return {.missing = query_missing::not_instant_value};
  }
  if (!std::isfinite(v))
    return nulls == null_values::keda_ignore_null
               ? query_reading{.value = 0.0, .missing = query_missing::none}
               : query_reading{.missing = query_missing::not_finite};
  return {.value = v, .missing = query_missing::none};
}

/// The answer as one External/Object metric's observation for autoscaler_input: its value
/// (read_query_value) in milli-units, or a missing observation (the controller holds and
/// reports the metric failed). One call from a query answer to the controller's input.
[[nodiscard]] inline metric_observation observe_query(
    const api_response& r, null_values nulls = null_values::keda_ignore_null) {
  const query_reading reading = read_query_value(r, nulls);
  if (!reading.value) return {};
  return observe_value(*reading.value);
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

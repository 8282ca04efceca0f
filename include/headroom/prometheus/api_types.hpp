// SPDX-License-Identifier: Apache-2.0
// The values parse_api_response (http_api.hpp) reads an answer of Prometheus's HTTP API
// into: the result type and status, the reasons a read fails (api_errc, api_parse_error),
// the reader's limits, and the answer itself (api_response: its series, points and labels).
// Sources: prometheus/docs content/docs/prometheus/latest/querying/api.md ("Format
// overview"); docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "label_names.hpp"

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
  invalid_label_name,   ///< a label name that api_limits::label_names refuses (an empty one always)
  label_name_too_long,  ///< a label name longer than api_limits::max_label_name_bytes
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
    case api_errc::invalid_label_name:
      return "a label name the label_names rule refuses";
    case api_errc::label_name_too_long:
      return "a label name longer than max_label_name_bytes";
  }
  return "unknown error";
}

/// Where and why a read failed: the byte offset into the input and the code.
struct api_parse_error {
  api_errc code = api_errc::none;  ///< none when the answer was read
  std::size_t offset = 0;          ///< byte offset of the offending character or field
  std::string_view field{};        ///< the field being read ("resultType", "value", ...), if any
  /// "byte 123 (field \"value\"): a sample value that is not a float in a string".
  [[nodiscard]] HEADROOM_DECL std::string message() const;
};

/// The deepest JSON nesting read (an answer nests 5 deep; unknown fields may nest more).
inline constexpr std::size_t api_max_depth = 64;

/// The reader's limits; 0 means no limit (the default for all but the label names, which
/// follow the text parser's rules: classic names of at most 1024 bytes). An answer past one
/// fails with its own code, so a hostile or runaway server costs at most what the limits allow.
struct api_limits {
  std::size_t max_bytes = 0;              ///< longest input; past it: too_large (nothing read)
  std::size_t max_series = 0;             ///< most series in a vector or matrix
  std::size_t max_points = 0;             ///< most samples over all series
  std::size_t max_labels_per_series = 0;  ///< most labels one series may carry
  std::size_t max_string_bytes = 0;       ///< longest string (decoded bytes)
  std::size_t max_messages = 0;           ///< most warnings plus infos
  /// Longest label name, bytes; past it: label_name_too_long. 0: no limit.
  std::size_t max_label_name_bytes = default_max_label_name_bytes;
  /// Which label names are read (legacy by default; utf8 for a Prometheus 3 storing UTF-8
  /// names); any other, or an empty one: invalid_label_name.
  label_name_rule label_names = label_name_rule::legacy;
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
  [[nodiscard]] HEADROOM_DECL std::optional<std::string_view> label(
      std::string_view name) const noexcept;
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

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/api_types.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The reader of Prometheus's HTTP API answers behind parse_api_response (http_api.hpp): the
// envelope (status, data, errorType, error, warnings, infos), the result of each type, the
// series with their labels and points, timestamps and sample values, within api_limits.
// Sources: prometheus/prometheus web/api/v1/api.go (Response) and util/jsonutil
// (timestamps as seconds with at most three decimals, values as strings). docs/prometheus.md.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../api_types.hpp"
#include "../text.hpp"
#include "api_json.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

/// The reader behind parse_api_response: the answer's fields over an api_json_cursor.
class api_reader : private api_json_cursor {
 public:
  api_reader(std::string_view text, const api_limits& limits, api_response& out) noexcept
      : api_json_cursor(text, limits, out) {}

  HEADROOM_DECL void run();

 private:
  std::size_t points_ = 0;

  /// A timestamp: seconds since the epoch with at most three decimals, into milliseconds.
  HEADROOM_DECL bool read_timestamp(std::chrono::milliseconds& out);

  /// A sample value: a string holding a float as Go's strconv.ParseFloat reads it.
  HEADROOM_DECL bool read_value_string(double& out);

  /// A [timestamp, second] pair; read_second() reads the second element.
  template <class Timestamp, class ReadSecond>
  bool read_pair(Timestamp& timestamp, ReadSecond read_second) {
    skip_ws();
    const std::size_t at = i_;
    if (peek() != '[') {
      fail(api_errc::invalid_point);
      return false;
    }
    ++i_;
    if (!read_timestamp(timestamp)) return false;
    if (peek() != ',') {
      fail_at(api_errc::invalid_point, at);
      return false;
    }
    ++i_;
    if (!read_second()) return false;
    if (peek() != ']') {
      fail_at(api_errc::invalid_point, at);
      return false;
    }
    ++i_;
    return true;
  }

  /// A [timestamp, "value"] pair.
  bool read_point(api_point& p) {
    return read_pair(p.timestamp, [&] { return read_value_string(p.value); });
  }

  HEADROOM_DECL bool count_point();

  HEADROOM_DECL bool read_labels(api_series& s);

  /// One element of a vector (want_matrix false) or matrix result.
  HEADROOM_DECL bool read_series(bool want_matrix);

  HEADROOM_DECL bool dup(std::size_t key_at);

  HEADROOM_DECL bool read_result(api_result_type type);

  /// data: {"resultType": ..., "result": ...}. The result may come before its type (JSON
  /// objects are unordered): then the reader comes back to it once the type is known.
  HEADROOM_DECL bool read_data();

  HEADROOM_DECL bool read_messages(std::vector<std::string>& into);

  /// The "status" field's value: "success" or "error".
  HEADROOM_DECL bool read_status();

  HEADROOM_DECL void read_top();
};

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../../impl/prometheus/detail/api_reader.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// What an autoscaler reads off an answer of Prometheus's HTTP API (api_response, read by
// parse_api_response in http_api.hpp): the value KEDA's Prometheus scaler takes, or why
// there is none, and that value as a metric_observation for autoscaler_input.
// Source: kedacore/keda pkg/scalers/prometheus_scaler.go, ExecutePromQuery. docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cmath>
#include <optional>
#include <string_view>

#include "../autoscaler/inputs.hpp"
#include "api_types.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

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
[[nodiscard]] HEADROOM_DECL query_reading
read_query_value(const api_response& r, null_values nulls = null_values::keda_ignore_null);

/// The answer as one External/Object metric's observation for autoscaler_input: its value
/// (read_query_value) in milli-units, or a missing observation (the controller holds and
/// reports the metric failed). One call from a query answer to the controller's input.
[[nodiscard]] HEADROOM_DECL autoscaling::metric_observation observe_query(
    const api_response& r, null_values nulls = null_values::keda_ignore_null);

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/query_value.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

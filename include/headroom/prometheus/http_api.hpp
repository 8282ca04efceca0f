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
// Pieces: api_types.hpp (api_response and its parts, api_errc, api_limits), detail/api_json.hpp
// and detail/api_reader.hpp (the reader), query_value.hpp (read_query_value, observe_query).
//
// Errors: a malformed answer is a value (api_response::parse_error, with the byte offset and
// a fixed reason), never an exception. The reader keeps no view into the input.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <string_view>

#include "api_types.hpp"
#include "detail/api_reader.hpp"
#include "query_value.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// Reads the JSON answer of /api/v1/query or /api/v1/query_range. Never throws for bad
/// input: a malformed answer has parse_error set (offset, field, reason) and is not ok().
/// Strict: RFC 8259 JSON, well-formed UTF-8, no repeated key or label, the fields and
/// encodings Prometheus writes; fields it does not know are skipped (a later Prometheus may
/// add some). Time O(n log n) in the input; at most api_limits' series, points and strings.
[[nodiscard]] HEADROOM_DECL api_response parse_api_response(std::string_view json,
                                                            const api_limits& limits = {});

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/http_api.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// One metric read off a parsed page: the sum, maximum and mean of its series that pass a
// label filter, or why there is no value (the page failed, the metric or the series is
// absent, a value is not finite). docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "page.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// Why a reading has no value.
enum class missing_reason : unsigned char {
  none,                ///< the reading has a value
  page_invalid,        ///< the page failed a strict parse: nothing on it is used
  metric_absent,       ///< no sample of this metric on the page
  no_matching_series,  ///< the metric is there, but no series carries the requested label value
  not_finite,          ///< a matching series is NaN or infinite
  not_exposed,         ///< the engine has no such metric (the preset says why)
  no_observations,     ///< the histogram or counter has counted nothing (in the window)
  invalid_histogram,   ///< the histogram has no +Inf bucket, a single bucket, or a NaN bound
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
    case missing_reason::not_exposed:
      return "the engine does not expose this metric";
    case missing_reason::no_observations:
      return "nothing was observed";
    case missing_reason::invalid_histogram:
      return "the histogram has no +Inf bucket, a single bucket, or a NaN bound";
  }
  return "unknown";
}

/// Sum, maximum and mean of one metric over the series that pass a label filter.
struct series_aggregate {
  std::size_t series = 0;                                  ///< matching samples (label sets)
  double sum = 0;                                          ///< meaningful when missing == none
  double max = 0;                                          ///< the largest matching value
  double mean = 0;                                         ///< sum / series
  missing_reason missing = missing_reason::metric_absent;  ///< none, or why there is no value
};

namespace detail {
HEADROOM_DECL void check_filter(std::string_view label_name, std::string_view label_value);
[[nodiscard]] HEADROOM_DECL bool passes(const page& p, const sample& s, std::string_view label_name,
                                        std::string_view label_value) noexcept;
/// Sum, max and mean of the samples named `metric` for which keep(sample) holds; the reason
/// when there is none (no such metric, no series kept, or a kept value not finite).
template <class Keep>
[[nodiscard]] series_aggregate aggregate_where(const page& p, std::string_view metric, Keep keep) {
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
    if (!keep(s)) continue;
    if (!std::isfinite(s.value)) finite = false;
    out.max = out.series == 0 ? s.value : std::max(out.max, s.value);
    out.sum += s.value;
    ++out.series;
  }
  out.missing = !seen             ? missing_reason::metric_absent
                : out.series == 0 ? missing_reason::no_matching_series
                : !finite         ? missing_reason::not_finite
                                  : missing_reason::none;
  if (out.missing == missing_reason::none) out.mean = out.sum / static_cast<double>(out.series);
  return out;
}
}  // namespace detail

/// Aggregates the samples named exactly `metric` whose label `label_name` equals `label_value`
/// (every sample when label_value is empty). A NaN or infinite match makes it not_finite.
/// Throws invalid_argument for an empty metric, or a label_value without a label_name.
[[nodiscard]] HEADROOM_DECL series_aggregate aggregate(const page& p, std::string_view metric,
                                                       std::string_view label_name = {},
                                                       std::string_view label_value = {});

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/aggregate.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

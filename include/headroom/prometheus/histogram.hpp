// SPDX-License-Identifier: Apache-2.0
// Quantiles of a classic Prometheus histogram (its cumulative x_bucket series), with the
// semantics of PromQL's histogram_quantile as prometheus/prometheus promql/quantile.go
// implements it (bucketQuantile: sorting, merging equal bounds, forcing monotonic counts,
// linear interpolation). docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "aggregate.hpp"
#include "page.hpp"
#include "text.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

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
    buckets.push_back(histogram_bucket{.upper_bound = bound, .cumulative_count = s.value});
  }
  if (buckets.empty()) return std::nullopt;
  const double result = bucket_quantile(q, buckets);
  if (std::isnan(result)) return std::nullopt;
  return result;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

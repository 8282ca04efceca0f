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
[[nodiscard]] HEADROOM_DECL double bucket_quantile(double q, std::span<histogram_bucket> buckets);

/// The q-quantile of histogram `histogram` (its x_bucket samples) over the series that pass
/// the label filter, their buckets summed by le first (PromQL's
/// histogram_quantile(q, sum by (le) (x_bucket{label_name="label_value"}))). nullopt when the
/// page failed, no bucket matches, or the quantile is undefined (NaN). Buckets without a
/// float le are ignored. Throws invalid_argument for an empty name or q outside [0, 1].
[[nodiscard]] HEADROOM_DECL std::optional<double> histogram_quantile(
    const page& p, std::string_view histogram, double q, std::string_view label_name = {},
    std::string_view label_value = {});

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/histogram.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/histogram.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/histogram.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL double bucket_quantile(double q, std::span<histogram_bucket> buckets) {
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

HEADROOM_DECL std::optional<double> histogram_quantile(const page& p, std::string_view histogram,
                                                       double q, std::string_view label_name,
                                                       std::string_view label_value) {
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

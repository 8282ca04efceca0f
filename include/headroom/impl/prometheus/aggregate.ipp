// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/aggregate.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/aggregate.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL void check_filter(std::string_view label_name, std::string_view label_value) {
  if (label_name.empty() && !label_value.empty())
    headroom::detail::fail("label_name", label_name, "must name a label when label_value is given");
}

HEADROOM_DECL bool passes(const page& p, const sample& s, std::string_view label_name,
                          std::string_view label_value) noexcept {
  if (label_value.empty()) return true;
  const auto v = p.label_value(s, label_name);
  return v.has_value() && raw_equals(*v, label_value);
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL series_aggregate aggregate(const page& p, std::string_view metric,
                                         std::string_view label_name,
                                         std::string_view label_value) {
  if (metric.empty()) headroom::detail::fail("metric", metric, "must not be empty");
  detail::check_filter(label_name, label_value);
  return detail::aggregate_where(
      p, metric, [&](const sample& s) { return detail::passes(p, s, label_name, label_value); });
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

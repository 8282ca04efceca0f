// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/kubernetes/target.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../kubernetes/target.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL double floor_to(double value, double scale) noexcept {
  const double scaled = value * scale;
  const double nearest = std::round(scaled);
  const double snapped =
      std::abs(scaled - nearest) <= snap_tolerance * std::max(1.0, std::abs(nearest))
          ? nearest
          : std::floor(scaled);
  return snapped / scale;
}

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace kubernetes {

HEADROOM_DECL double in_flight_target(const in_flight_target_inputs& inputs) {
  const std::chrono::duration<double> mean_sojourn = inputs.mean_sojourn;
  if (!(mean_sojourn.count() > 0.0 && headroom::detail::is_finite(mean_sojourn.count())))
    headroom::detail::fail("mean_sojourn", mean_sojourn, "must be a finite duration > 0");
  headroom::detail::require_unit_positive("target_utilization", inputs.target_utilization);
  headroom::detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  const double exact =
      queueing::target_concurrency({.target_utilization = inputs.target_utilization,
                                    .capacity_per_second = inputs.capacity_per_second,
                                    .mean_sojourn = mean_sojourn});
  const double scale = inputs.rounding == target_rounding::whole
                           ? 1.0
                           : static_cast<double>(autoscaling::milli_per_unit);
  const double rounded = detail::floor_to(exact, scale);
  if (!(rounded > 0.0))
    headroom::detail::fail("rounding", exact,
                           "the target rho*mu*W rounds down to 0 in-flight requests per replica");
  if (!(rounded <= detail::largest_quantity))
    headroom::detail::fail("capacity_per_second", exact, "target too large");
  return rounded;
}

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL void append_selector(std::string& out, std::string_view metric,
                                   std::string_view label, std::string_view value) {
  out += "sum(";
  out += metric;
  if (!value.empty()) {
    out += '{';
    out += label;
    out += '=';
    append_double_quoted(out, value);
    out += '}';
  }
  out += ')';
}

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace kubernetes {

HEADROOM_DECL std::string in_flight_query(std::string_view running_metric,
                                          std::string_view waiting_metric,
                                          std::string_view label_name,
                                          std::string_view label_value) {
  if (!detail::is_promql_metric_name(running_metric))
    headroom::detail::fail("running_metric", running_metric, "must be a PromQL metric name");
  if (!detail::is_promql_metric_name(waiting_metric))
    headroom::detail::fail("waiting_metric", waiting_metric, "must be a PromQL metric name");
  if (!label_value.empty() && !detail::is_promql_label_name(label_name))
    headroom::detail::fail("label_name", label_name, "must be a PromQL label name");
  if (!headroom::detail::valid_utf8(label_value))
    headroom::detail::fail("label_value", label_value, "must be valid UTF-8");
  std::string q;
  q.reserve(running_metric.size() + waiting_metric.size() + 2 * label_value.size() + 40);
  detail::append_selector(q, running_metric, label_name, label_value);
  q += " + ";
  detail::append_selector(q, waiting_metric, label_name, label_value);
  return q;
}

HEADROOM_DECL std::string in_flight_query(const prometheus::engine_preset& preset,
                                          std::string_view model_name) {
  if (!detail::is_promql_metric_name(preset.running) ||
      !detail::is_promql_metric_name(preset.waiting))
    headroom::detail::fail("preset", preset.engine,
                           "must name its running and waiting metrics (PromQL metric names)");
  if (!preset.running_where.label.empty() || !preset.waiting_where.label.empty())
    headroom::detail::fail("preset", preset.engine,
                           "selects its running or waiting series by a label: write that query "
                           "by hand");
  if (!model_name.empty() && !detail::is_promql_label_name(preset.model_label))
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label (a PromQL label name) to filter by model");
  return in_flight_query(preset.running, preset.waiting, preset.model_label, model_name);
}

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

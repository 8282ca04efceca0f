// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/latency.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/latency.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL histogram_totals collect_histogram(const page& p, std::string_view family,
                                                 std::string_view label_name,
                                                 std::string_view label_value,
                                                 double seconds_per_unit) {
  histogram_totals out;
  if (!p.ok()) {
    out.missing = missing_reason::page_invalid;
    return out;
  }
  bool seen = false;
  for (const sample& s : p.samples()) {
    const bool bucket = names_part(s.name, family, "_bucket");
    const bool sum = !bucket && names_part(s.name, family, "_sum");
    const bool count = !bucket && !sum && names_part(s.name, family, "_count");
    if (!bucket && !sum && !count) continue;
    seen = true;
    if (!passes(p, s, label_name, label_value)) continue;
    out.missing = missing_reason::none;
    if (sum) {
      out.sum += s.value * seconds_per_unit;
      out.has_sum = true;
    } else if (count) {
      out.count += s.value;
      out.has_count = true;
    } else if (const auto le = p.label_value(s, "le")) {
      double bound = 0;
      if (parse_float(*le, bound) != parse_errc::none) continue;
      if (std::isfinite(bound)) bound *= seconds_per_unit;
      out.buckets.push_back({.upper_bound = bound, .cumulative_count = s.value});
    }
  }
  if (out.missing != missing_reason::none)
    out.missing = seen ? missing_reason::no_matching_series : missing_reason::metric_absent;
  std::sort(out.buckets.begin(), out.buckets.end(),
            [](const histogram_bucket& a, const histogram_bucket& b) {
              return a.upper_bound < b.upper_bound;
            });
  std::size_t n = 0;  // sum by le
  for (std::size_t i = 0; i < out.buckets.size(); ++i) {
    if (n > 0 && out.buckets[n - 1].upper_bound == out.buckets[i].upper_bound)
      out.buckets[n - 1].cumulative_count += out.buckets[i].cumulative_count;
    else
      out.buckets[n++] = out.buckets[i];
  }
  out.buckets.resize(n);
  return out;
}

HEADROOM_DECL double observations_of(const histogram_totals& h) noexcept {
  if (!h.buckets.empty() && std::isinf(h.buckets.back().upper_bound)) {
    return h.buckets.back().cumulative_count;
  }
  return h.count;
}

HEADROOM_DECL histogram_totals window_of(const histogram_totals& earlier, histogram_totals later) {
  if (earlier.missing != missing_reason::none || later.missing != missing_reason::none)
    return later;
  if (observations_of(later) < observations_of(earlier) || later.count < earlier.count)
    return later;
  for (histogram_bucket& b : later.buckets) {
    const auto it =
        std::find_if(earlier.buckets.begin(), earlier.buckets.end(),
                     [&b](const histogram_bucket& e) { return e.upper_bound == b.upper_bound; });
    if (it != earlier.buckets.end()) b.cumulative_count -= it->cumulative_count;
  }
  later.sum -= earlier.sum;
  later.count -= earlier.count;
  return later;
}

HEADROOM_DECL std::string_view histogram_name(const page& p, const latency_metric& m,
                                              std::string_view label_name,
                                              std::string_view label_value) {
  if (m.fallback.empty()) return m.histogram;
  const auto primary = collect_histogram(p, m.histogram, label_name, label_value, 1.0);
  if (primary.missing != missing_reason::metric_absent) return m.histogram;
  const auto older = collect_histogram(p, m.fallback, label_name, label_value, 1.0);
  return older.missing == missing_reason::metric_absent ? m.histogram : m.fallback;
}

HEADROOM_DECL const latency_metric& checked_latency(const engine_preset& preset,
                                                    latency_kind kind) {
  const latency_metric& m = preset.latency(kind);
  if (!m.exposed() && m.absent.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name the " + std::string(to_string(kind)) +
                               " histogram or say why the engine has none");
  if (!(m.seconds_per_unit > 0) || !std::isfinite(m.seconds_per_unit))
    headroom::detail::fail("preset", preset.engine, "must have a finite seconds_per_unit > 0");
  return m;
}

HEADROOM_DECL histogram_totals read_latency_histogram(const page* earlier, const page& later,
                                                      const latency_metric& m,
                                                      std::string_view label_name,
                                                      std::string_view model_name,
                                                      std::string_view& name) {
  name = histogram_name(later, m, label_name, model_name);
  histogram_totals h = collect_histogram(later, name, label_name, model_name, m.seconds_per_unit);
  if (earlier != nullptr)
    h = window_of(collect_histogram(*earlier, name, label_name, model_name, m.seconds_per_unit),
                  std::move(h));
  return h;
}

HEADROOM_DECL latency_reading quantile_of(const page* earlier, const page& later,
                                          const engine_preset& preset, latency_kind kind, double q,
                                          std::string_view model_name) {
  headroom::detail::require_unit("q", q);
  const latency_metric& m = checked_latency(preset, kind);
  const std::string_view label = model_filter(preset, model_name);
  if (m.histogram.empty())
    return {.missing = missing_reason::not_exposed,
            .metric = m.time_total,
            .note = m.absent.empty() ? std::string_view("only a mean is exposed") : m.absent};
  latency_reading out;
  histogram_totals h = read_latency_histogram(earlier, later, m, label, model_name, out.metric);
  out.missing = h.missing;
  if (h.missing != missing_reason::none) return out;
  out.observations = observations_of(h);
  if (!(out.observations > 0)) {
    out.missing = missing_reason::no_observations;
    return out;
  }
  const double value = bucket_quantile(q, h.buckets);
  out.missing = std::isnan(value) ? missing_reason::invalid_histogram : missing_reason::none;
  if (out.missing == missing_reason::none) out.value = value;
  return out;
}

HEADROOM_DECL latency_reading mean_reading(std::string_view metric, double total,
                                           double observations) {
  latency_reading out{.missing = missing_reason::none, .metric = metric};
  out.observations = observations;
  if (!std::isfinite(total) || !std::isfinite(observations)) {
    out.missing = missing_reason::not_finite;
  } else if (!(observations > 0)) {
    out.missing = missing_reason::no_observations;
  } else {
    out.value = total / observations;
  }
  return out;
}

HEADROOM_DECL latency_reading counter_mean(const page* earlier, const page& later,
                                           const latency_metric& m, std::string_view label_name,
                                           std::string_view model_name) {
  const auto total = aggregate(later, m.time_total, label_name, model_name);
  const auto count = aggregate(later, m.observations, label_name, model_name);
  const auto& failed = total.missing != missing_reason::none ? total : count;
  if (failed.missing != missing_reason::none)
    return {.missing = failed.missing, .metric = &failed == &total ? m.time_total : m.observations};
  double sum = total.sum;
  double n = count.sum;
  if (earlier != nullptr) {
    const auto total0 = aggregate(*earlier, m.time_total, label_name, model_name);
    const auto count0 = aggregate(*earlier, m.observations, label_name, model_name);
    const bool usable = total0.missing == missing_reason::none &&
                        count0.missing == missing_reason::none && count0.sum <= n &&
                        total0.sum <= sum;  // else a reset: the later totals alone
    if (usable) {
      sum -= total0.sum;
      n -= count0.sum;
    }
  }
  return mean_reading(m.time_total, sum * m.seconds_per_unit, n);
}

HEADROOM_DECL latency_reading mean_of(const page* earlier, const page& later,
                                      const engine_preset& preset, latency_kind kind,
                                      std::string_view model_name) {
  const latency_metric& m = checked_latency(preset, kind);
  const std::string_view label = model_filter(preset, model_name);
  if (!m.exposed()) return {.missing = missing_reason::not_exposed, .note = m.absent};
  if (m.histogram.empty()) return counter_mean(earlier, later, m, label, model_name);
  std::string_view name;
  const histogram_totals h = read_latency_histogram(earlier, later, m, label, model_name, name);
  if (h.missing != missing_reason::none) return {.missing = h.missing, .metric = name};
  if (!h.has_sum || !h.has_count) return {.missing = missing_reason::metric_absent, .metric = name};
  return mean_reading(name, h.sum, h.count);
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL latency_reading latency_quantile(const page& p, const engine_preset& preset,
                                               latency_kind kind, double q,
                                               std::string_view model_name) {
  return detail::quantile_of(nullptr, p, preset, kind, q, model_name);
}

HEADROOM_DECL latency_reading latency_quantile(const page& earlier, const page& later,
                                               const engine_preset& preset, latency_kind kind,
                                               double q, std::string_view model_name) {
  return detail::quantile_of(&earlier, later, preset, kind, q, model_name);
}

HEADROOM_DECL latency_reading latency_mean(const page& p, const engine_preset& preset,
                                           latency_kind kind, std::string_view model_name) {
  return detail::mean_of(nullptr, p, preset, kind, model_name);
}

HEADROOM_DECL latency_reading latency_mean(const page& earlier, const page& later,
                                           const engine_preset& preset, latency_kind kind,
                                           std::string_view model_name) {
  return detail::mean_of(&earlier, later, preset, kind, model_name);
}

HEADROOM_DECL std::optional<double> ttft_quantile(const page& p, const engine_preset& preset,
                                                  double q, std::string_view model_name) {
  return latency_quantile(p, preset, latency_kind::ttft, q, model_name).value;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

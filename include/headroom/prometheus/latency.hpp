// SPDX-License-Identifier: Apache-2.0
// The latencies users set SLOs on (time to first token, inter-token latency, time per output
// token, end-to-end and queue time) read off an engine's page with its preset: quantiles with
// PromQL's histogram_quantile semantics and means (sum / count), over everything the engine
// has counted since it started (one page) or over the window between two scrapes of it (two
// pages, as PromQL's rate() would). docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "aggregate.hpp"
#include "engine_preset.hpp"
#include "engines.hpp"
#include "histogram.hpp"
#include "page.hpp"
#include "text.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// One latency read off a page: seconds, or why there is none.
struct latency_reading {
  std::optional<double> value{};                           ///< seconds; set iff missing == none
  missing_reason missing = missing_reason::metric_absent;  ///< none, or why there is no value
  std::string_view metric{};  ///< the histogram or counter read (the fallback's when used)
  std::string_view note{};    ///< not_exposed: the preset's sentence saying why
  double observations = 0;    ///< how many observations the value rests on
};

namespace detail {

/// One histogram of one page under a label filter: buckets summed by le, and _sum, _count.
struct histogram_totals {
  std::vector<histogram_bucket> buckets{};                 ///< sorted by bound, equal bounds merged
  double sum = 0;                                          ///< the matching _sum series, summed
  double count = 0;                                        ///< the matching _count series, summed
  bool has_sum = false;                                    ///< a matching _sum series was seen
  bool has_count = false;                                  ///< a matching _count series was seen
  missing_reason missing = missing_reason::metric_absent;  ///< none once a series matched
};

/// True when name is family + suffix.
[[nodiscard]] constexpr bool names_part(std::string_view name, std::string_view family,
                                        std::string_view suffix) noexcept {
  return name.size() == family.size() + suffix.size() && name.starts_with(family) &&
         name.ends_with(suffix);
}

/// Collects histogram `family` from p (bounds and sum scaled by seconds_per_unit).
[[nodiscard]] inline histogram_totals collect_histogram(const page& p, std::string_view family,
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

/// The observations of a histogram: its +Inf bucket, else its _count.
[[nodiscard]] inline double observations_of(const histogram_totals& h) noexcept {
  if (!h.buckets.empty() && std::isinf(h.buckets.back().upper_bound)) {
    return h.buckets.back().cumulative_count;
  }
  return h.count;
}

/// later − earlier, bucket by bucket (by bound), and for _sum and _count: what was observed
/// between two scrapes. A histogram that went down (the engine restarted) is later alone, as
/// PromQL's increase() counts a counter reset.
[[nodiscard]] inline histogram_totals window_of(const histogram_totals& earlier,
                                                histogram_totals later) {
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

/// The histogram name to read on `p`: the preset's, or its fallback when the page has no
/// sample of it.
[[nodiscard]] inline std::string_view histogram_name(const page& p, const latency_metric& m,
                                                     std::string_view label_name,
                                                     std::string_view label_value) {
  if (m.fallback.empty()) return m.histogram;
  const auto primary = collect_histogram(p, m.histogram, label_name, label_value, 1.0);
  if (primary.missing != missing_reason::metric_absent) return m.histogram;
  const auto older = collect_histogram(p, m.fallback, label_name, label_value, 1.0);
  return older.missing == missing_reason::metric_absent ? m.histogram : m.fallback;
}

/// The preset's latency_metric of `kind`, checked: a metric neither exposed nor explained is
/// a caller mistake.
[[nodiscard]] inline const latency_metric& checked_latency(const engine_preset& preset,
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

/// The histogram of `kind` on `later`, minus what `earlier` had (earlier may be null).
[[nodiscard]] inline histogram_totals read_latency_histogram(const page* earlier, const page& later,
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

[[nodiscard]] inline latency_reading quantile_of(const page* earlier, const page& later,
                                                 const engine_preset& preset, latency_kind kind,
                                                 double q, std::string_view model_name) {
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

/// total / observations as a reading (no_observations when nothing was counted).
[[nodiscard]] inline latency_reading mean_reading(std::string_view metric, double total,
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

/// The mean from a pair of counters (Triton's *_duration_us over request_success).
[[nodiscard]] inline latency_reading counter_mean(const page* earlier, const page& later,
                                                  const latency_metric& m,
                                                  std::string_view label_name,
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

[[nodiscard]] inline latency_reading mean_of(const page* earlier, const page& later,
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

/// The q-quantile (seconds) of the preset's `kind` latency histogram for model_name (all
/// series when empty), buckets summed over engines: PromQL's
/// histogram_quantile(q, sum by (le) (x_bucket{model_label="model_name"})), over everything
/// the engine observed since it started. not_exposed (with the preset's note) when the engine
/// has no histogram of it. Throws invalid_argument for q outside [0, 1], or a preset that
/// neither names the metric nor says why it has none.
[[nodiscard]] inline latency_reading latency_quantile(const page& p, const engine_preset& preset,
                                                      latency_kind kind, double q,
                                                      std::string_view model_name = {}) {
  return detail::quantile_of(nullptr, p, preset, kind, q, model_name);
}

/// The same over the window between two scrapes of one replica (earlier, then later): the
/// quantile of the observations made in between, PromQL's
/// histogram_quantile(q, sum by (le) (increase(x_bucket[window]))). An engine restart
/// between them (counts going down) leaves the later page's counts.
[[nodiscard]] inline latency_reading latency_quantile(const page& earlier, const page& later,
                                                      const engine_preset& preset,
                                                      latency_kind kind, double q,
                                                      std::string_view model_name = {}) {
  return detail::quantile_of(&earlier, later, preset, kind, q, model_name);
}

/// The mean (seconds) of the preset's `kind` latency: the histogram's _sum / _count, or the
/// engine's pair of counters (total time, observations) when it has no histogram.
[[nodiscard]] inline latency_reading latency_mean(const page& p, const engine_preset& preset,
                                                  latency_kind kind,
                                                  std::string_view model_name = {}) {
  return detail::mean_of(nullptr, p, preset, kind, model_name);
}

/// The same over the window between two scrapes of one replica (earlier, then later).
[[nodiscard]] inline latency_reading latency_mean(const page& earlier, const page& later,
                                                  const engine_preset& preset, latency_kind kind,
                                                  std::string_view model_name = {}) {
  return detail::mean_of(&earlier, later, preset, kind, model_name);
}

/// The q-quantile of the preset's time-to-first-token histogram (seconds) for model_name
/// (all series when empty): latency_quantile(p, preset, latency_kind::ttft, q, model_name)'s
/// value, nullopt when there is none.
[[nodiscard]] inline std::optional<double> ttft_quantile(const page& p, const engine_preset& preset,
                                                         double q,
                                                         std::string_view model_name = {}) {
  return latency_quantile(p, preset, latency_kind::ttft, q, model_name).value;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

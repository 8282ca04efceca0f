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
[[nodiscard]] HEADROOM_DECL histogram_totals collect_histogram(const page& p,
                                                               std::string_view family,
                                                               std::string_view label_name,
                                                               std::string_view label_value,
                                                               double seconds_per_unit);

/// The observations of a histogram: its +Inf bucket, else its _count.
[[nodiscard]] HEADROOM_DECL double observations_of(const histogram_totals& h) noexcept;

/// later − earlier, bucket by bucket (by bound), and for _sum and _count: what was observed
/// between two scrapes. A histogram that went down (the engine restarted) is later alone, as
/// PromQL's increase() counts a counter reset.
[[nodiscard]] HEADROOM_DECL histogram_totals window_of(const histogram_totals& earlier,
                                                       histogram_totals later);

/// The histogram name to read on `p`: the preset's, or its fallback when the page has no
/// sample of it.
[[nodiscard]] HEADROOM_DECL std::string_view histogram_name(const page& p, const latency_metric& m,
                                                            std::string_view label_name,
                                                            std::string_view label_value);

/// The preset's latency_metric of `kind`, checked: a metric neither exposed nor explained is
/// a caller mistake.
[[nodiscard]] HEADROOM_DECL const latency_metric& checked_latency(const engine_preset& preset,
                                                                  latency_kind kind);

/// The histogram of `kind` on `later`, minus what `earlier` had (earlier may be null).
[[nodiscard]] HEADROOM_DECL histogram_totals read_latency_histogram(
    const page* earlier, const page& later, const latency_metric& m, std::string_view label_name,
    std::string_view model_name, std::string_view& name);

[[nodiscard]] HEADROOM_DECL latency_reading quantile_of(const page* earlier, const page& later,
                                                        const engine_preset& preset,
                                                        latency_kind kind, double q,
                                                        std::string_view model_name);

/// total / observations as a reading (no_observations when nothing was counted).
[[nodiscard]] HEADROOM_DECL latency_reading mean_reading(std::string_view metric, double total,
                                                         double observations);

/// The mean from a pair of counters (Triton's *_duration_us over request_success).
[[nodiscard]] HEADROOM_DECL latency_reading counter_mean(const page* earlier, const page& later,
                                                         const latency_metric& m,
                                                         std::string_view label_name,
                                                         std::string_view model_name);

[[nodiscard]] HEADROOM_DECL latency_reading mean_of(const page* earlier, const page& later,
                                                    const engine_preset& preset, latency_kind kind,
                                                    std::string_view model_name);

}  // namespace detail

/// The q-quantile (seconds) of the preset's `kind` latency histogram for model_name (all
/// series when empty), buckets summed over engines: PromQL's
/// histogram_quantile(q, sum by (le) (x_bucket{model_label="model_name"})), over everything
/// the engine observed since it started. not_exposed (with the preset's note) when the engine
/// has no histogram of it. Throws invalid_argument for q outside [0, 1], or a preset that
/// neither names the metric nor says why it has none.
[[nodiscard]] HEADROOM_DECL latency_reading latency_quantile(const page& p,
                                                             const engine_preset& preset,
                                                             latency_kind kind, double q,
                                                             std::string_view model_name = {});

/// The same over the window between two scrapes of one replica (earlier, then later): the
/// quantile of the observations made in between, PromQL's
/// histogram_quantile(q, sum by (le) (increase(x_bucket[window]))). An engine restart
/// between them (counts going down) leaves the later page's counts.
[[nodiscard]] HEADROOM_DECL latency_reading latency_quantile(const page& earlier, const page& later,
                                                             const engine_preset& preset,
                                                             latency_kind kind, double q,
                                                             std::string_view model_name = {});

/// The mean (seconds) of the preset's `kind` latency: the histogram's _sum / _count, or the
/// engine's pair of counters (total time, observations) when it has no histogram.
[[nodiscard]] HEADROOM_DECL latency_reading latency_mean(const page& p, const engine_preset& preset,
                                                         latency_kind kind,
                                                         std::string_view model_name = {});

/// The same over the window between two scrapes of one replica (earlier, then later).
[[nodiscard]] HEADROOM_DECL latency_reading latency_mean(const page& earlier, const page& later,
                                                         const engine_preset& preset,
                                                         latency_kind kind,
                                                         std::string_view model_name = {});

/// The q-quantile of the preset's time-to-first-token histogram (seconds) for model_name
/// (all series when empty): latency_quantile(p, preset, latency_kind::ttft, q, model_name)'s
/// value, nullopt when there is none.
[[nodiscard]] HEADROOM_DECL std::optional<double> ttft_quantile(const page& p,
                                                                const engine_preset& preset,
                                                                double q,
                                                                std::string_view model_name = {});

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/latency.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

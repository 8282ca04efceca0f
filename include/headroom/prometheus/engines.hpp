// SPDX-License-Identifier: Apache-2.0
// Engine presets: the metric names vLLM and SGLang expose on /metrics, and what an
// autoscaler reads with them off one replica's page: running and waiting requests (summed
// over the replica's engines), KV-cache usage (their maximum) and time-to-first-token
// quantiles. docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <optional>
#include <string_view>

#include "../error.hpp"
#include "aggregate.hpp"
#include "histogram.hpp"
#include "page.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// The metric names one serving engine exposes, for read_replica_load(). All names are
/// sample names as they appear on the page.
struct engine_preset {
  std::string_view engine{};             ///< "vllm", "sglang"
  std::string_view running{};            ///< gauge: requests being decoded/prefilled
  std::string_view waiting{};            ///< gauge: requests queued
  std::string_view kv_usage{};           ///< gauge: KV-cache occupancy, fraction 0..1
  std::string_view kv_usage_fallback{};  ///< older name read when kv_usage is absent; may be empty
  std::string_view ttft{};               ///< histogram: time to first token, seconds
  std::string_view model_label{};        ///< the label that names the served model
};

/// vLLM (V0 and V1): vllm:kv_cache_usage_perc, formerly vllm:gpu_cache_usage_perc (both 0..1).
inline constexpr engine_preset vllm_preset{.engine = "vllm",
                                           .running = "vllm:num_requests_running",
                                           .waiting = "vllm:num_requests_waiting",
                                           .kv_usage = "vllm:kv_cache_usage_perc",
                                           .kv_usage_fallback = "vllm:gpu_cache_usage_perc",
                                           .ttft = "vllm:time_to_first_token_seconds",
                                           .model_label = "model_name"};

/// SGLang: sglang:token_usage is the fraction of the KV token pool in use (0..1).
inline constexpr engine_preset sglang_preset{.engine = "sglang",
                                             .running = "sglang:num_running_reqs",
                                             .waiting = "sglang:num_queue_reqs",
                                             .kv_usage = "sglang:token_usage",
                                             .kv_usage_fallback = {},
                                             .ttft = "sglang:time_to_first_token_seconds",
                                             .model_label = "model_name"};

/// One metric read off a page: its value, or why there is none.
struct metric_reading {
  std::optional<double> value{};  ///< set iff missing == none
  missing_reason missing = missing_reason::metric_absent;
  std::string_view metric{};  ///< the metric read (the fallback's name when it was used)
  std::size_t series = 0;     ///< label sets (engines) that contributed
};

/// One replica's load, as an autoscaler observes it. Plain data, independent of the autoscaler.
struct replica_load {
  metric_reading running{};               ///< sum over the replica's engines
  metric_reading waiting{};               ///< sum over the replica's engines
  metric_reading kv_usage{};              ///< max over the replica's engines, fraction 0..1
  std::optional<double> kv_usage_mean{};  ///< mean over the engines, when kv_usage has a value
  /// In-flight requests L = running + waiting, when both are present.
  [[nodiscard]] constexpr std::optional<double> in_flight() const noexcept {
    if (!running.value || !waiting.value) return std::nullopt;
    return *running.value + *waiting.value;
  }
};

namespace detail {

/// How read_metric combines the matching series into one value.
enum class series_combination : unsigned char { sum, max };

/// A reading and the mean over its series (set when the reading has a value).
struct reading_and_mean {
  metric_reading reading{};
  std::optional<double> mean{};
};

[[nodiscard]] inline reading_and_mean read_metric(const page& p, std::string_view metric,
                                                  std::string_view label_name,
                                                  std::string_view label_value,
                                                  series_combination combination) {
  const series_aggregate a = aggregate(p, metric, label_name, label_value);
  reading_and_mean out{.reading = {.missing = a.missing, .metric = metric, .series = a.series}};
  if (a.missing == missing_reason::none) {
    out.reading.value = combination == series_combination::max ? a.max : a.sum;
    out.mean = a.mean;
  }
  return out;
}

/// The label that selects model_name's series: none when model_name is empty. Throws when
/// a model is named and the preset has no model label.
[[nodiscard]] inline std::string_view model_filter(const engine_preset& preset,
                                                   std::string_view model_name) {
  if (model_name.empty()) return {};
  if (preset.model_label.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label to filter by model_name");
  return preset.model_label;
}

}  // namespace detail

/// Reads one replica's running, waiting and KV usage off its page with an engine preset,
/// keeping the series whose model label equals model_name (all series when it is empty).
/// running and waiting are summed over the series (a data-parallel replica has one per
/// engine); KV usage is their maximum, because an engine preempts when its own cache is full.
[[nodiscard]] inline replica_load read_replica_load(const page& p, const engine_preset& preset,
                                                    std::string_view model_name = {}) {
  if (preset.running.empty() || preset.waiting.empty() || preset.kv_usage.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name the running, waiting and kv_usage metrics");
  const std::string_view label = detail::model_filter(preset, model_name);
  constexpr auto sum = detail::series_combination::sum;
  constexpr auto max = detail::series_combination::max;
  replica_load out;
  out.running = detail::read_metric(p, preset.running, label, model_name, sum).reading;
  out.waiting = detail::read_metric(p, preset.waiting, label, model_name, sum).reading;
  auto kv = detail::read_metric(p, preset.kv_usage, label, model_name, max);
  if (!kv.reading.value && !preset.kv_usage_fallback.empty() &&
      kv.reading.missing != missing_reason::page_invalid) {
    auto fallback = detail::read_metric(p, preset.kv_usage_fallback, label, model_name, max);
    if (fallback.reading.value) kv = fallback;
  }
  out.kv_usage = kv.reading;
  out.kv_usage_mean = kv.mean;
  return out;
}

/// The q-quantile of the preset's time-to-first-token histogram (seconds) for model_name
/// (all series when empty), buckets summed over engines. See histogram_quantile().
[[nodiscard]] inline std::optional<double> ttft_quantile(const page& p, const engine_preset& preset,
                                                         double q,
                                                         std::string_view model_name = {}) {
  if (preset.ttft.empty())
    headroom::detail::fail("preset", preset.engine, "must name the ttft histogram");
  return histogram_quantile(p, preset.ttft, q, detail::model_filter(preset, model_name),
                            model_name);
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

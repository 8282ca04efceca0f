// SPDX-License-Identifier: Apache-2.0
// Engine presets and what an autoscaler reads with them off one replica's /metrics page:
// running and waiting requests (summed over the replica's engines), KV-cache usage (their
// maximum), and the token counters. The presets: prometheus/engines/ (vLLM, SGLang, TGI,
// llama.cpp, TensorRT-LLM behind Triton, trtllm-serve, the Dynamo frontend); latency
// quantiles and means: prometheus/latency.hpp. docs/prometheus.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>

#include "../error.hpp"
#include "aggregate.hpp"
#include "engine_preset.hpp"
#include "engines/llamacpp.hpp"
#include "engines/nvidia.hpp"
#include "engines/tgi.hpp"
#include "engines/vllm.hpp"
#include "page.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// One metric read off a page: its value, or why there is none.
struct metric_reading {
  std::optional<double> value{};  ///< set iff missing == none
  missing_reason missing = missing_reason::metric_absent;
  std::string_view metric{};  ///< the metric read (the fallback's name when it was used)
  std::size_t series = 0;     ///< label sets (engines) that contributed
  std::string_view note{};    ///< not_exposed: the preset's sentence saying why
};

/// One replica's load, as an autoscaler observes it. Plain data, independent of the autoscaler.
struct replica_load {
  metric_reading running{};               ///< sum over the replica's engines
  metric_reading waiting{};               ///< sum over the replica's engines
  metric_reading kv_usage{};              ///< max over the replica's engines, fraction 0..1
  std::optional<double> kv_usage_mean{};  ///< mean over the engines, when kv_usage has a value
  /// In-flight requests L = running + waiting, when both are present; running alone when the
  /// engine has no waiting gauge because running counts queued requests too (not_exposed).
  [[nodiscard]] constexpr std::optional<double> in_flight() const noexcept {
    if (running.value && waiting.missing == missing_reason::not_exposed) return running.value;
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

/// Sum, max and mean of `metric` over the series carrying selector's label value (if any) and
/// label_name = label_value (if any); aggregate() with two filters.
[[nodiscard]] inline series_aggregate aggregate_selected(const page& p, std::string_view metric,
                                                         series_selector selector,
                                                         std::string_view label_name,
                                                         std::string_view label_value) {
  if (selector.label.empty()) return aggregate(p, metric, label_name, label_value);
  return prometheus::detail::aggregate_where(p, metric, [&](const sample& s) {
    return passes(p, s, selector.label, selector.value) && passes(p, s, label_name, label_value);
  });
}

[[nodiscard]] inline reading_and_mean read_metric(const page& p, std::string_view metric,
                                                  series_selector selector,
                                                  std::string_view label_name,
                                                  std::string_view label_value,
                                                  series_combination combination) {
  const series_aggregate a = aggregate_selected(p, metric, selector, label_name, label_value);
  reading_and_mean out{.reading = {.missing = a.missing, .metric = metric, .series = a.series}};
  if (a.missing == missing_reason::none) {
    out.reading.value = combination == series_combination::max ? a.max : a.sum;
    out.mean = a.mean;
  }
  return out;
}

/// The reading of a metric the engine does not expose: not_exposed, with the preset's reason.
[[nodiscard]] constexpr reading_and_mean not_exposed(std::string_view why) noexcept {
  return {.reading = {.missing = missing_reason::not_exposed, .note = why}};
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
/// A reading the engine does not expose is missing (not_exposed) with the preset's reason.
[[nodiscard]] inline replica_load read_replica_load(const page& p, const engine_preset& preset,
                                                    std::string_view model_name = {}) {
  if (preset.running.empty() || (preset.waiting.empty() && preset.waiting_absent.empty()) ||
      (preset.kv_usage.empty() && preset.kv_usage_absent.empty()))
    headroom::detail::fail("preset", preset.engine,
                           "must name the running, waiting and kv_usage metrics (or say why "
                           "the engine has none)");
  const std::string_view label = detail::model_filter(preset, model_name);
  constexpr auto sum = detail::series_combination::sum;
  constexpr auto max = detail::series_combination::max;
  replica_load out;
  out.running =
      detail::read_metric(p, preset.running, preset.running_where, label, model_name, sum).reading;
  out.waiting =
      preset.waiting.empty()
          ? detail::not_exposed(preset.waiting_absent).reading
          : detail::read_metric(p, preset.waiting, preset.waiting_where, label, model_name, sum)
                .reading;
  if (preset.kv_usage.empty()) {
    out.kv_usage = detail::not_exposed(preset.kv_usage_absent).reading;
    return out;
  }
  auto kv = detail::read_metric(p, preset.kv_usage, preset.kv_usage_where, label, model_name, max);
  if (!kv.reading.value && !preset.kv_usage_fallback.empty() &&
      kv.reading.missing != missing_reason::page_invalid) {
    auto fallback = detail::read_metric(p, preset.kv_usage_fallback, preset.kv_usage_where, label,
                                        model_name, max);
    if (fallback.reading.value) kv = fallback;
  }
  out.kv_usage = kv.reading;
  out.kv_usage_mean = kv.mean;
  return out;
}

/// The prompt and output tokens an engine has counted so far (its counters, summed over the
/// replica's series). Throughput is the difference of two readings over the time between them.
struct token_totals {
  metric_reading prompt{};      ///< prompt (prefill) tokens
  metric_reading generation{};  ///< output (generated) tokens
};

/// Reads the preset's token counters for model_name (all series when empty). A counter the
/// engine lacks is missing (not_exposed) with the preset's tokens_absent sentence.
[[nodiscard]] inline token_totals read_token_totals(const page& p, const engine_preset& preset,
                                                    std::string_view model_name = {}) {
  const std::string_view label = detail::model_filter(preset, model_name);
  constexpr auto sum = detail::series_combination::sum;
  const auto read = [&](std::string_view metric) {
    return metric.empty() ? detail::not_exposed(preset.tokens_absent).reading
                          : detail::read_metric(p, metric, {}, label, model_name, sum).reading;
  };
  return {.prompt = read(preset.prompt_tokens), .generation = read(preset.generation_tokens)};
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

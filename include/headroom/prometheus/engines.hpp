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
[[nodiscard]] HEADROOM_DECL series_aggregate aggregate_selected(const page& p,
                                                                std::string_view metric,
                                                                series_selector selector,
                                                                std::string_view label_name,
                                                                std::string_view label_value);

[[nodiscard]] HEADROOM_DECL reading_and_mean read_metric(const page& p, std::string_view metric,
                                                         series_selector selector,
                                                         std::string_view label_name,
                                                         std::string_view label_value,
                                                         series_combination combination);

/// The reading of a metric the engine does not expose: not_exposed, with the preset's reason.
[[nodiscard]] constexpr reading_and_mean not_exposed(std::string_view why) noexcept {
  return {.reading = {.missing = missing_reason::not_exposed, .note = why}};
}

/// The label that selects model_name's series: none when model_name is empty. Throws when
/// a model is named and the preset has no model label.
[[nodiscard]] HEADROOM_DECL std::string_view model_filter(const engine_preset& preset,
                                                          std::string_view model_name);

}  // namespace detail

/// Reads one replica's running, waiting and KV usage off its page with an engine preset,
/// keeping the series whose model label equals model_name (all series when it is empty).
/// running and waiting are summed over the series (a data-parallel replica has one per
/// engine); KV usage is their maximum, because an engine preempts when its own cache is full.
/// A reading the engine does not expose is missing (not_exposed) with the preset's reason.
[[nodiscard]] HEADROOM_DECL replica_load read_replica_load(const page& p,
                                                           const engine_preset& preset,
                                                           std::string_view model_name = {});

/// The prompt and output tokens an engine has counted so far (its counters, summed over the
/// replica's series). Throughput is the difference of two readings over the time between them.
struct token_totals {
  metric_reading prompt{};      ///< prompt (prefill) tokens
  metric_reading generation{};  ///< output (generated) tokens
};

/// Reads the preset's token counters for model_name (all series when empty). A counter the
/// engine lacks is missing (not_exposed) with the preset's tokens_absent sentence.
[[nodiscard]] HEADROOM_DECL token_totals read_token_totals(const page& p,
                                                           const engine_preset& preset,
                                                           std::string_view model_name = {});

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/engines.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

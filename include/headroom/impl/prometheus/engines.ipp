// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/engines.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/engines.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL series_aggregate aggregate_selected(const page& p, std::string_view metric,
                                                  series_selector selector,
                                                  std::string_view label_name,
                                                  std::string_view label_value) {
  if (selector.label.empty()) return aggregate(p, metric, label_name, label_value);
  return prometheus::detail::aggregate_where(p, metric, [&](const sample& s) {
    return passes(p, s, selector.label, selector.value) && passes(p, s, label_name, label_value);
  });
}

HEADROOM_DECL reading_and_mean read_metric(const page& p, std::string_view metric,
                                           series_selector selector, std::string_view label_name,
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

HEADROOM_DECL std::string_view model_filter(const engine_preset& preset,
                                            std::string_view model_name) {
  if (model_name.empty()) return {};
  if (preset.model_label.empty())
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label to filter by model_name");
  return preset.model_label;
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL replica_load read_replica_load(const page& p, const engine_preset& preset,
                                             std::string_view model_name) {
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

HEADROOM_DECL token_totals read_token_totals(const page& p, const engine_preset& preset,
                                             std::string_view model_name) {
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

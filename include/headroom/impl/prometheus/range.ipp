// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/range.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/range.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL std::string deployment_query(const engine_preset& preset, std::string_view model) {
  std::vector<std::string> names;
  for (const latency_metric* m : {&preset.ttft, &preset.tpot, &preset.e2e}) {
    for (const std::string_view family : {m->histogram, m->fallback}) {
      if (family.empty()) continue;
      names.push_back(std::string(family) + "_bucket");
      names.push_back(std::string(family) + "_count");
    }
  }
  for (const std::string_view n :
       {preset.running, preset.waiting, preset.prompt_tokens, preset.generation_tokens})
    if (!n.empty()) names.emplace_back(n);
  std::string q = "{__name__=~\"";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) q += '|';
    for (const char c : names[i]) {
      // A regular-expression character (RE2) escaped with a backslash, itself escaped for
      // the PromQL string; a quote escaped for the string alone.
      if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) q += "\\\\";
      if (c == '"') q += '\\';
      q += c;
    }
  }
  q += '"';
  if (!model.empty() && !preset.model_label.empty()) {
    q += ',';
    q += preset.model_label;
    q += "=\"";
    for (const char c : model) {
      if (c == '\\' || c == '"') q += '\\';
      q += c;
    }
    q += '"';
  }
  q += '}';
  return q;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL double counter_increase(const std::vector<api_point>& points, std::size_t& resets) {
  double total = 0.0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const double before = points[i - 1].value, now = points[i].value;
    if (!(before >= 0.0 && now >= 0.0 && std::isfinite(before) && std::isfinite(now))) continue;
    if (now >= before) {
      total += now - before;
    } else {
      total += now;
      ++resets;
    }
  }
  return total;
}

HEADROOM_DECL std::vector<histogram_bucket> sorted_buckets(
    const std::map<double, double>& by_bound) {
  std::vector<histogram_bucket> out;
  out.reserve(by_bound.size());
  for (const auto& [bound, count] : by_bound)
    out.push_back({.upper_bound = bound, .cumulative_count = count});
  return out;
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL deployment_reading read_deployment_window(const api_response& r,
                                                        const engine_preset& preset) {
  if (!r.parsed()) return {.missing = range_missing::malformed};
  if (r.status == api_status::error) return {.missing = range_missing::query_failed};
  if (r.type != api_result_type::matrix) return {.missing = range_missing::not_a_matrix};
  deployment_window w;
  std::map<double, double> ttft, tpot, e2e;  // bound (seconds) → increase
  double e2e_count = 0.0, ttft_count = 0.0, prompt = 0.0, generated = 0.0;
  bool has_e2e_count = false, has_ttft_count = false, has_prompt = false, has_generated = false;
  std::map<std::int64_t, double> running, waiting;  // sample time → sum over series
  bool any = false;
  std::int64_t first = 0, last = 0;
  const auto family_of = [](const latency_metric& m, std::string_view name,
                            std::string_view suffix) {
    for (const std::string_view f : {m.histogram, m.fallback})
      if (!f.empty() && name.size() == f.size() + suffix.size() && name.starts_with(f) &&
          name.ends_with(suffix))
        return true;
    return false;
  };
  for (const api_series& s : r.series) {
    const auto name = s.label("__name__");
    if (!name) return {.missing = range_missing::not_raw};
    const bool running_gauge = *name == preset.running, waiting_gauge = *name == preset.waiting;
    std::map<double, double>* buckets = nullptr;
    double seconds_per_unit = 1.0;
    for (const auto& [metric, target] :
         {std::pair{&preset.ttft, &ttft}, std::pair{&preset.tpot, &tpot},
          std::pair{&preset.e2e, &e2e}})
      if (family_of(*metric, *name, "_bucket")) {
        buckets = target;
        seconds_per_unit = metric->seconds_per_unit;
      }
    const bool e2e_counter = family_of(preset.e2e, *name, "_count");
    const bool ttft_counter = family_of(preset.ttft, *name, "_count");
    const bool prompt_counter = !preset.prompt_tokens.empty() && *name == preset.prompt_tokens;
    const bool generated_counter =
        !preset.generation_tokens.empty() && *name == preset.generation_tokens;
    if (!running_gauge && !waiting_gauge && !buckets && !e2e_counter && !ttft_counter &&
        !prompt_counter && !generated_counter)
      continue;  // another series the selector matched (a _count of TPOT, say)
    for (const api_point& p : s.points) {
      const std::int64_t t = p.timestamp.count();
      first = any ? std::min(first, t) : t;
      last = any ? std::max(last, t) : t;
      any = true;
      if (running_gauge && std::isfinite(p.value)) running[t] += p.value;
      if (waiting_gauge && std::isfinite(p.value)) waiting[t] += p.value;
    }
    if (running_gauge || waiting_gauge) continue;
    const double increase = detail::counter_increase(s.points, w.counter_resets);
    if (buckets) {
      const auto le = s.label("le");
      double bound = 0.0;
      if (!le || detail::parse_float(*le, bound) != parse_errc::none || std::isnan(bound)) continue;
      if (std::isfinite(bound)) bound *= seconds_per_unit;
      (*buckets)[bound] += increase;
    } else if (e2e_counter) {
      e2e_count += increase;
      has_e2e_count = true;
    } else if (ttft_counter) {
      ttft_count += increase;
      has_ttft_count = true;
    } else if (prompt_counter) {
      prompt += increase;
      has_prompt = true;
    } else {
      generated += increase;
      has_generated = true;
    }
  }
  if (!any) return {.missing = range_missing::no_samples};
  w.start = std::chrono::milliseconds(first);
  w.end = std::chrono::milliseconds(last);
  w.ttft = detail::sorted_buckets(ttft);
  w.tpot = detail::sorted_buckets(tpot);
  w.e2e = detail::sorted_buckets(e2e);
  w.requests = has_e2e_count ? e2e_count : has_ttft_count ? ttft_count : 0.0;
  if (!has_e2e_count && !has_ttft_count && !w.ttft.empty() && std::isinf(w.ttft.back().upper_bound))
    w.requests = w.ttft.back().cumulative_count;
  if (last > first)
    w.request_rate_per_second = w.requests / (static_cast<double>(last - first) / 1000.0);
  if (w.requests > 0.0) {
    if (has_prompt) w.prompt_tokens_per_request = prompt / w.requests;
    if (has_generated) w.output_tokens_per_request = generated / w.requests;
  }
  for (auto& [sums, out] : {std::pair{&running, &w.running}, std::pair{&waiting, &w.waiting}}) {
    if (sums->empty()) continue;
    double total = 0.0, most = sums->begin()->second;
    for (const auto& [t, v] : *sums) {
      total += v;
      most = std::max(most, v);
    }
    out->samples = sums->size();
    out->mean = total / static_cast<double>(sums->size());
    out->max = most;
  }
  return {.window = std::move(w), .missing = range_missing::none};
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL bool share_within(const std::vector<histogram_bucket>& buckets, double bound,
                                double& lower, double& upper, double& n) {
  if (buckets.empty() || !std::isinf(buckets.back().upper_bound)) return false;
  n = buckets.back().cumulative_count;
  if (!(n > 0.0) || !std::isfinite(n)) return false;
  double below = 0.0, above = n;  // counts at the edges at or below and at or above `bound`
  for (const histogram_bucket& b : buckets) {
    if (b.upper_bound <= bound) below = std::max(below, b.cumulative_count);
    if (b.upper_bound >= bound) above = std::min(above, b.cumulative_count);
  }
  lower = std::clamp(below / n, 0.0, 1.0);
  upper = std::clamp(std::max(above, below) / n, 0.0, 1.0);
  return true;
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL conformance_bounds window_conformance(const deployment_window& w,
                                                    const capacity::slo& objective) {
  validate(objective);
  conformance_bounds out;
  double sum_lower = 0.0, min_upper = 1.0;
  int k = 0;
  bool counted = false;
  const auto add = [&](const std::vector<histogram_bucket>* buckets, double bound) {
    double lower = 0.0, upper = 1.0, n = 0.0;
    if (buckets && detail::share_within(*buckets, bound, lower, upper, n)) {
      out.requests = counted ? std::min(out.requests, n) : n;
      counted = true;
    } else {
      lower = 0.0;
      upper = 1.0;
    }
    sum_lower += lower;
    min_upper = std::min(min_upper, upper);
    ++k;
  };
  add(&w.ttft, objective.ttft.count());
  add(objective.tpot_kind == capacity::tpot_definition::vllm ? &w.tpot : nullptr,
      objective.tpot.count());
  if (objective.e2e) add(&w.e2e, objective.e2e->count());
  // Σ aᵢ − (k − 1) ≤ min aᵢ exactly, but not always once rounded (1 + x − 1 can exceed x).
  out.upper = min_upper;
  out.lower = std::clamp(sum_lower - static_cast<double>(k - 1), 0.0, out.upper);
  return out;
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

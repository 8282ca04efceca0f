// SPDX-License-Identifier: Apache-2.0
// What a running deployment did over a window, read from one Prometheus range query of its
// engine's raw series (/api/v1/query_range): requests finished and their rate, tokens per
// request, the running and waiting gauges, and the TTFT, TPOT and end-to-end histograms'
// observations in the window; and the share of the window's requests meeting an SLO, bounded
// as far as histograms allow. docs/prometheus.md, "A deployment over a window".
//
// Sources: the increase of a counter between two samples, a drop read as a restart (PromQL's
// increase(), prometheus/prometheus promql/functions.go extrapolatedRate, without its
// extrapolation to the range's edges); a histogram's cumulative buckets (le) and what vLLM
// observes in them (vllm-project/vllm vllm/v1/metrics/loggers.py, record(): one TTFT per
// request's first token, one e2e latency and one request_time_per_output_token per finished
// request, the latter its decode time over its output tokens less one, 0 for a single
// token; vllm/v1/metrics/stats.py, update_from_finished_request); Fréchet's bounds on a
// joint probability from its marginals (M. Fréchet, "Sur les tableaux de corrélation dont
// les marges sont données", 1951).
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../capacity/outcome.hpp"
#include "api_types.hpp"
#include "engine_preset.hpp"
#include "histogram.hpp"
#include "text.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// The PromQL of the range query read_deployment_window reads: one selector of the raw series
/// of `preset`'s engine it uses (the TTFT, TPOT and end-to-end histograms' buckets and counts,
/// the running and waiting gauges, the token counters), of one served model when `model` is
/// not empty (`preset.model_label` = model). Ask /api/v1/query_range with it over the window
/// and a step no longer than the scrape interval.
[[nodiscard]] inline std::string deployment_query(const engine_preset& preset,
                                                  std::string_view model = {}) {
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

/// A gauge over a window: at each sample time, the sum over its series (replicas); the mean
/// and the largest of those sums.
struct gauge_window {
  std::optional<double> mean{};  ///< mean over the sample times; nullopt: no sample
  std::optional<double> max{};   ///< the largest
  std::size_t samples = 0;       ///< sample times read
};

/// What a deployment did over the window of one range query, from its raw series.
struct deployment_window {
  std::chrono::milliseconds start{0};  ///< the earliest sample read, ms since the epoch
  std::chrono::milliseconds end{0};    ///< the latest sample read
  /// Requests finished in the window: the end-to-end histogram's count increase (else the
  /// TTFT histogram's, one a request).
  double requests = 0.0;
  std::optional<double> request_rate_per_second{};    ///< requests / (end − start)
  std::optional<double> prompt_tokens_per_request{};  ///< the prompt counter's increase / requests
  std::optional<double> output_tokens_per_request{};  ///< the generation counter's / requests
  gauge_window running{};                             ///< requests running
  gauge_window waiting{};                             ///< requests waiting
  /// Observations per bucket in the window, cumulative, bounds in seconds ascending, +Inf
  /// last (all series summed by bound); empty when the answer has no such histogram.
  std::vector<histogram_bucket> ttft{}, tpot{}, e2e{};
  std::size_t counter_resets = 0;  ///< series that went down in the window (a restart)
};

/// Why a range answer gives no window.
enum class range_missing : unsigned char {
  none,          ///< there is a window
  malformed,     ///< the answer did not parse (api_response::parse_error)
  query_failed,  ///< the server answered status "error"
  not_a_matrix,  ///< not a range query's matrix result
  not_raw,       ///< a series without __name__: the query computed something (rate(), sum())
  no_samples,    ///< no series of the preset's names, or no sample in them
};

/// A one-line English reason for a range_missing.
[[nodiscard]] constexpr std::string_view describe(range_missing reason) noexcept {
  switch (reason) {
    case range_missing::none:
      return "present";
    case range_missing::malformed:
      return "the answer is not a Prometheus API response";
    case range_missing::query_failed:
      return "the server reported an error";
    case range_missing::not_a_matrix:
      return "the result is not a matrix (ask /api/v1/query_range)";
    case range_missing::not_raw:
      return "a series has no __name__: ask for the raw series (deployment_query)";
    case range_missing::no_samples:
      return "no sample of the engine's series in the window";
  }
  return "unknown";
}

/// A deployment's window, or why there is none.
struct deployment_reading {
  std::optional<deployment_window> window{};  ///< set iff missing == none
  range_missing missing = range_missing::malformed;
};

namespace detail {

// A counter's increase over its samples: the sum of the rises, a drop read as a restart from 0
// (the value after it counts whole). `resets` counts the drops. A pair with a value no
// counter holds (NaN, an infinity, a negative) adds nothing.
[[nodiscard]] inline double counter_increase(const std::vector<api_point>& points,
                                             std::size_t& resets) {
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

// Sums bucket increases by bound, ascending: a histogram's cumulative buckets in the window.
[[nodiscard]] inline std::vector<histogram_bucket> sorted_buckets(
    const std::map<double, double>& by_bound) {
  std::vector<histogram_bucket> out;
  out.reserve(by_bound.size());
  for (const auto& [bound, count] : by_bound)
    out.push_back({.upper_bound = bound, .cumulative_count = count});
  return out;
}

}  // namespace detail

/// Reads the answer of /api/v1/query_range for deployment_query(preset, …): every series
/// summed over replicas, counters as their increase between the first and last sample of the
/// window (a drop is a restart), gauges at each sample time. Never throws for bad input: a
/// failed, computed or empty answer is a reading with `missing` set.
[[nodiscard]] inline deployment_reading read_deployment_window(const api_response& r,
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

/// The share of a window's requests meeting an SLO, as far as histograms tell it: a bound
/// between two bucket edges gives an interval (the counts at the edges below and above it),
/// and the joint share of several bounds lies between Fréchet's bounds on the marginals,
/// max(0, Σ aᵢ − (k − 1)) and min aᵢ. Not a confidence interval: the requests' own
/// randomness is not in it.
struct conformance_bounds {
  double lower = 0.0;     ///< no fewer than this share conformed
  double upper = 1.0;     ///< no more than this share
  double requests = 0.0;  ///< the observations the shares rest on (0: no bound holds)
};

namespace detail {

// The share of `buckets`' observations at or below `bound`: [lower, upper] from the buckets'
// edges around it; false when the histogram has no +Inf bucket or no observation.
[[nodiscard]] inline bool share_within(const std::vector<histogram_bucket>& buckets, double bound,
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

/// The share of the window's requests meeting `objective`'s TTFT, TPOT and end-to-end bounds,
/// per the engine's own histograms: TTFT from the request's arrival at the engine (not the
/// client's intended send), TPOT vLLM's per-request mean (tpot_definition::vllm; 0 for a
/// single token). A bound whose histogram the window lacks, or a guidellm-style TPOT, is
/// unknown, [0, 1], and so the joint lower bound is 0. Throws invalid_argument for a bad SLO
/// (validate).
[[nodiscard]] inline conformance_bounds window_conformance(const deployment_window& w,
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

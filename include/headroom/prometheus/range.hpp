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
[[nodiscard]] HEADROOM_DECL std::string deployment_query(const engine_preset& preset,
                                                         std::string_view model = {});

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
[[nodiscard]] HEADROOM_DECL double counter_increase(const std::vector<api_point>& points,
                                                    std::size_t& resets);

// Sums bucket increases by bound, ascending: a histogram's cumulative buckets in the window.
[[nodiscard]] HEADROOM_DECL std::vector<histogram_bucket> sorted_buckets(
    const std::map<double, double>& by_bound);

}  // namespace detail

/// Reads the answer of /api/v1/query_range for deployment_query(preset, …): every series
/// summed over replicas, counters as their increase between the first and last sample of the
/// window (a drop is a restart), gauges at each sample time. Never throws for bad input: a
/// failed, computed or empty answer is a reading with `missing` set.
[[nodiscard]] HEADROOM_DECL deployment_reading read_deployment_window(const api_response& r,
                                                                      const engine_preset& preset);

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
[[nodiscard]] HEADROOM_DECL bool share_within(const std::vector<histogram_bucket>& buckets,
                                              double bound, double& lower, double& upper,
                                              double& n);

}  // namespace detail

/// The share of the window's requests meeting `objective`'s TTFT, TPOT and end-to-end bounds,
/// per the engine's own histograms: TTFT from the request's arrival at the engine (not the
/// client's intended send), TPOT vLLM's per-request mean (tpot_definition::vllm; 0 for a
/// single token). A bound whose histogram the window lacks, or a guidellm-style TPOT, is
/// unknown, [0, 1], and so the joint lower bound is 0. Throws invalid_argument for a bad SLO
/// (validate).
[[nodiscard]] HEADROOM_DECL conformance_bounds window_conformance(const deployment_window& w,
                                                                  const capacity::slo& objective);

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/range.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

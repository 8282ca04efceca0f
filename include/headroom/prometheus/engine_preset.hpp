// SPDX-License-Identifier: Apache-2.0
// What an engine preset is: the names one serving engine gives, on its /metrics page, to the
// readings an autoscaler needs (requests running and waiting, KV-cache usage, the latency
// histograms users set SLOs on, the token counters), and, where the engine has no such
// metric, a sentence saying so. The presets themselves are in prometheus/engines/;
// docs/prometheus.md has the engine × metric table.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <string_view>

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// A label a metric's series must also carry to count (Triton's nv_trt_llm_request_metrics
/// holds running and waiting requests in one family, told apart by request_type). Empty
/// name: no extra condition.
struct series_selector {
  std::string_view label{};  ///< label name, e.g. "request_type"
  std::string_view value{};  ///< the value it must have, e.g. "active"
};

/// The latencies a preset can read (all in seconds once read).
enum class latency_kind : unsigned char {
  ttft,   ///< time to first token: arrival to the first output token
  itl,    ///< inter-token latency: one observation per gap between output tokens
  tpot,   ///< time per output token: one observation per request (its mean token gap)
  e2e,    ///< end-to-end request latency: arrival to the last token
  queue,  ///< time a request waited before the engine scheduled it
};

/// "ttft", "itl", "tpot", "e2e", "queue".
[[nodiscard]] constexpr std::string_view to_string(latency_kind kind) noexcept {
  switch (kind) {
    case latency_kind::ttft:
      return "ttft";
    case latency_kind::itl:
      return "itl";
    case latency_kind::tpot:
      return "tpot";
    case latency_kind::e2e:
      return "e2e";
    case latency_kind::queue:
      return "queue";
  }
  return "unknown";
}

/// Where one latency is on an engine's page: a histogram (quantiles and mean), or only a pair
/// of counters (total time, observations: the mean alone), or nowhere (`absent` says why).
struct latency_metric {
  std::string_view histogram{};     ///< family name: samples <name>_bucket, _sum, _count
  std::string_view fallback{};      ///< older family name, read when `histogram` has no sample
  std::string_view time_total{};    ///< without a histogram: counter of the summed latencies
  std::string_view observations{};  ///< the counter of observations time_total sums over
  double seconds_per_unit = 1.0;    ///< 1 for seconds, 1e-3 for ms, 1e-6 for µs; > 0
  std::string_view absent{};        ///< when the engine has none: why, and the nearest proxy
  /// True when the engine exposes this latency (a histogram or a counter pair).
  [[nodiscard]] constexpr bool exposed() const noexcept {
    return !histogram.empty() || (!time_total.empty() && !observations.empty());
  }
};

/// The metric names one serving engine exposes, for read_replica_load(), latency_quantile(),
/// latency_mean() and read_token_totals(). Names are sample names as they appear on the page
/// (histograms: the family name). An empty name with a non-empty `*_absent` sentence means
/// the engine does not expose that reading; an empty name without one is a caller mistake.
struct engine_preset {
  std::string_view engine{};        ///< "vllm", "sglang", "tgi", ...
  std::string_view running{};       ///< gauge: requests being decoded/prefilled
  series_selector running_where{};  ///< extra label the running series carry
  std::string_view waiting{};       ///< gauge: requests queued; see waiting_absent
  series_selector waiting_where{};  ///< extra label the waiting series carry
  /// Why there is no waiting gauge. Only for an engine whose running gauge already counts
  /// every request in flight, queued ones included (replica_load::in_flight() is then running).
  std::string_view waiting_absent{};
  std::string_view kv_usage{};           ///< gauge: KV-cache occupancy, fraction 0..1
  std::string_view kv_usage_fallback{};  ///< older name read when kv_usage is absent; may be empty
  series_selector kv_usage_where{};      ///< extra label the KV usage series carry
  std::string_view kv_usage_absent{};    ///< when the engine has no KV gauge: why, and a proxy
  latency_metric ttft{};                 ///< time to first token
  latency_metric itl{};                  ///< inter-token latency (per token gap)
  latency_metric tpot{};                 ///< time per output token (per request)
  latency_metric e2e{};                  ///< end-to-end request latency
  latency_metric queue{};                ///< queue time
  std::string_view prompt_tokens{};      ///< counter (or histogram _sum): prompt tokens so far
  std::string_view generation_tokens{};  ///< counter (or histogram _sum): output tokens so far
  std::string_view tokens_absent{};      ///< when a token counter is missing: why
  std::string_view model_label{};        ///< the label that names the served model; may be empty
  /// The latency_metric of `kind`.
  [[nodiscard]] constexpr const latency_metric& latency(latency_kind kind) const noexcept {
    switch (kind) {
      case latency_kind::ttft:
        return ttft;
      case latency_kind::itl:
        return itl;
      case latency_kind::tpot:
        return tpot;
      case latency_kind::e2e:
        return e2e;
      case latency_kind::queue:
        break;
    }
    return queue;
  }
};

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

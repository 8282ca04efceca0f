// SPDX-License-Identifier: Apache-2.0
// Reading Prometheus /metrics pages: includes every header of prometheus/, and nothing else.
//   prometheus/page.hpp       a parsed page: families, samples, labels, errors, unescaping
//   prometheus/text.hpp       the text exposition format 0.0.4 parser, its options and limits
//   prometheus/label_names.hpp  the label-name rule and bound the parser and the API reader share
//   prometheus/aggregate.hpp  one metric's series summed, maximised, averaged, or why not
//   prometheus/histogram.hpp  PromQL's histogram_quantile over a page's buckets
//   prometheus/engine_preset.hpp  what an engine preset names (and what it says is missing)
//   prometheus/engines.hpp    the presets (prometheus/engines/): one replica's load, tokens
//   prometheus/latency.hpp    TTFT, ITL, TPOT, e2e and queue time: quantiles and means
//   prometheus/http_api.hpp   the HTTP API's query answers (JSON) and the value KEDA reads
//   prometheus/api_types.hpp  api_response and its parts (read by http_api.hpp)
//   prometheus/query_value.hpp  the value KEDA reads off an answer (with http_api.hpp)
//   prometheus/range.hpp      a deployment over a window (one range query of its raw series):
//                             requests, tokens, gauges, histograms; SLO conformance bounds
//   prometheus/exposition.hpp decisions, capacity and placements as a /metrics page (0.0.4)
// Guide: docs/prometheus.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "prometheus/aggregate.hpp"
#include "prometheus/api_types.hpp"
#include "prometheus/engine_preset.hpp"
#include "prometheus/engines.hpp"
#include "prometheus/exposition.hpp"
#include "prometheus/histogram.hpp"
#include "prometheus/http_api.hpp"
#include "prometheus/label_names.hpp"
#include "prometheus/latency.hpp"
#include "prometheus/page.hpp"
#include "prometheus/query_value.hpp"
#include "prometheus/range.hpp"
#include "prometheus/text.hpp"

#endif  // HEADROOM_HAS_CXX20

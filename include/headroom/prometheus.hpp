// SPDX-License-Identifier: Apache-2.0
// Reading Prometheus /metrics pages: includes every header of prometheus/, and nothing else.
//   prometheus/page.hpp       a parsed page: families, samples, labels, errors, unescaping
//   prometheus/text.hpp       the text exposition format 0.0.4 parser, its options and limits
//   prometheus/aggregate.hpp  one metric's series summed, maximised, averaged, or why not
//   prometheus/histogram.hpp  PromQL's histogram_quantile over a page's buckets
//   prometheus/engines.hpp    vLLM and SGLang presets: one replica's load, TTFT quantiles
// Guide: docs/prometheus.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "prometheus/aggregate.hpp"
#include "prometheus/engines.hpp"
#include "prometheus/histogram.hpp"
#include "prometheus/page.hpp"
#include "prometheus/text.hpp"

#endif  // HEADROOM_HAS_CXX20

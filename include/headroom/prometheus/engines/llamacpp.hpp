// SPDX-License-Identifier: Apache-2.0
// The llama.cpp server preset: names from its server's metrics handler
// (tools/server, formerly examples/server/server.cpp), checked on a real page in
// tests/data/metrics. docs/prometheus.md.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "../engine_preset.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// llama.cpp's server (run with --metrics). Running: busy slots; waiting: deferred tasks. KV:
/// llamacpp:kv_cache_usage_ratio, which upstream removed in 2025 (forks and older builds still
/// have it: elsewhere the reading is metric_absent). No latency histograms at all: the only
/// latency is the mean time per output token, decode seconds over tokens predicted.
inline constexpr engine_preset llamacpp_preset{
    .engine = "llamacpp",
    .running = "llamacpp:requests_processing",
    .waiting = "llamacpp:requests_deferred",
    .kv_usage = "llamacpp:kv_cache_usage_ratio",
    .ttft = {.absent = "llama.cpp exposes no latency histogram"},
    .itl = {.absent = "llama.cpp exposes no latency histogram; see tpot for the mean"},
    .tpot = {.time_total = "llamacpp:tokens_predicted_seconds_total",
             .observations = "llamacpp:tokens_predicted_total",
             .absent = "only a mean: no per-request histogram"},
    .e2e = {.absent = "llama.cpp exposes no request latency"},
    .queue = {.absent = "llama.cpp exposes no queue time"},
    .prompt_tokens = "llamacpp:prompt_tokens_total",
    .generation_tokens = "llamacpp:tokens_predicted_total"};

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

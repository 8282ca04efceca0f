// SPDX-License-Identifier: Apache-2.0
// The vLLM and SGLang presets: names from their metrics code (vllm/v1/metrics/loggers.py,
// sglang/srt/metrics/collector.py) and checked on real pages in tests/data/metrics.
// docs/prometheus.md.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "../engine_preset.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// vLLM, V0 and V1. KV: vllm:kv_cache_usage_perc, formerly vllm:gpu_cache_usage_perc (both
/// 0..1). ITL: vllm:inter_token_latency_seconds, V0's vllm:time_per_output_token_seconds (the
/// same per-token observation) when absent. TPOT: one observation per request.
inline constexpr engine_preset vllm_preset{
    .engine = "vllm",
    .running = "vllm:num_requests_running",
    .waiting = "vllm:num_requests_waiting",
    .kv_usage = "vllm:kv_cache_usage_perc",
    .kv_usage_fallback = "vllm:gpu_cache_usage_perc",
    .ttft = {.histogram = "vllm:time_to_first_token_seconds"},
    .itl = {.histogram = "vllm:inter_token_latency_seconds",
            .fallback = "vllm:time_per_output_token_seconds"},
    .tpot = {.histogram = "vllm:request_time_per_output_token_seconds"},
    .e2e = {.histogram = "vllm:e2e_request_latency_seconds"},
    .queue = {.histogram = "vllm:request_queue_time_seconds"},
    .prompt_tokens = "vllm:prompt_tokens_total",
    .generation_tokens = "vllm:generation_tokens_total",
    .model_label = "model_name"};

/// SGLang: sglang:token_usage is the fraction of the KV token pool in use (0..1). ITL:
/// sglang:inter_token_latency_seconds; TPOT: sglang:time_per_output_token_seconds, which
/// releases before the ITL histogram observed once per token (then it is an ITL).
inline constexpr engine_preset sglang_preset{
    .engine = "sglang",
    .running = "sglang:num_running_reqs",
    .waiting = "sglang:num_queue_reqs",
    .kv_usage = "sglang:token_usage",
    .ttft = {.histogram = "sglang:time_to_first_token_seconds"},
    .itl = {.histogram = "sglang:inter_token_latency_seconds"},
    .tpot = {.histogram = "sglang:time_per_output_token_seconds"},
    .e2e = {.histogram = "sglang:e2e_request_latency_seconds"},
    .queue = {.histogram = "sglang:queue_time_seconds"},
    .prompt_tokens = "sglang:prompt_tokens_total",
    .generation_tokens = "sglang:generation_tokens_total",
    .model_label = "model_name"};

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

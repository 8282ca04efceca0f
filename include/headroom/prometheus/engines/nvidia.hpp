// SPDX-License-Identifier: Apache-2.0
// The NVIDIA presets: TensorRT-LLM behind Triton (the tensorrtllm backend's nv_trt_llm_*
// gauges and Triton's nv_inference_* counters), TensorRT-LLM's own server (trtllm_*), and the
// NVIDIA Dynamo frontend (dynamo_frontend_*). Names from their code and docs, checked on real
// pages in tests/data/metrics. docs/prometheus.md.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "../engine_preset.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// TensorRT-LLM behind Triton (inflight-batcher model). Running, waiting and KV usage are
/// series of two gauge families told apart by a label. No ITL or TPOT; TTFT only with Triton's
/// opt-in latency histograms (--metrics-config histogram_latencies=true), in milliseconds;
/// end-to-end and queue times only as cumulative microsecond counters (means).
inline constexpr engine_preset triton_trtllm_preset{
    .engine = "triton-trtllm",
    .running = "nv_trt_llm_request_metrics",
    .running_where = {.label = "request_type", .value = "active"},
    .waiting = "nv_trt_llm_request_metrics",
    .waiting_where = {.label = "request_type", .value = "waiting"},
    .kv_usage = "nv_trt_llm_kv_cache_block_metrics",
    .kv_usage_where = {.label = "kv_cache_block_type", .value = "fraction"},
    .ttft = {.histogram = "nv_inference_first_response_histogram_ms", .seconds_per_unit = 1e-3},
    .itl = {.absent = "the Triton TensorRT-LLM backend exposes no token latency"},
    .tpot = {.absent = "the Triton TensorRT-LLM backend exposes no token latency"},
    .e2e = {.time_total = "nv_inference_request_duration_us",
            .observations = "nv_inference_request_success",
            .seconds_per_unit = 1e-6,
            .absent = "only a mean: Triton sums request durations in a counter"},
    .queue = {.time_total = "nv_inference_queue_duration_us",
              .observations = "nv_inference_request_success",
              .seconds_per_unit = 1e-6,
              .absent = "only a mean, and Triton's queue, not the batcher's waiting time"},
    .tokens_absent =
        "no token counters: nv_llm_input_token_len and nv_llm_output_token_len "
        "are per-request histograms with a response_metric_type label",
    .model_label = "model"};

/// TensorRT-LLM's own server (trtllm-serve, PyTorch flow; also behind Dynamo). The gauges and
/// token counters are those of tensorrt_llm/metrics/collector.py; older releases have only
/// the latency histograms. No ITL histogram separate from TPOT.
inline constexpr engine_preset trtllm_preset{
    .engine = "trtllm",
    .running = "trtllm_num_requests_running",
    .waiting = "trtllm_num_requests_waiting",
    .kv_usage = "trtllm_kv_cache_utilization",
    .ttft = {.histogram = "trtllm_time_to_first_token_seconds"},
    .itl = {.absent = "TensorRT-LLM's server exposes time per output token only; see tpot"},
    .tpot = {.histogram = "trtllm_time_per_output_token_seconds"},
    .e2e = {.histogram = "trtllm_e2e_request_latency_seconds"},
    .queue = {.histogram = "trtllm_request_queue_time_seconds"},
    .prompt_tokens = "trtllm_prompt_tokens_total",
    .generation_tokens = "trtllm_generation_tokens_total",
    .model_label = "model_name"};

/// The NVIDIA Dynamo HTTP frontend. dynamo_frontend_inflight_requests counts a request from
/// its arrival to its last byte, queued ones included, so it alone is the in-flight count
/// (dynamo_frontend_queued_requests counts requests before their first token, prefill
/// included: not a waiting count). KV usage is on the workers' pages. No queue-time histogram.
/// The model label is lower-cased on request metrics ("qwen/qwen3-0.6b").
inline constexpr engine_preset dynamo_frontend_preset{
    .engine = "dynamo",
    .running = "dynamo_frontend_inflight_requests",
    .waiting_absent = "counted in dynamo_frontend_inflight_requests",
    .kv_usage_absent =
        "on the workers' pages: dynamo_component_kvstats_gpu_cache_usage_percent "
        "(0..1)",
    .ttft = {.histogram = "dynamo_frontend_time_to_first_token_seconds"},
    .itl = {.histogram = "dynamo_frontend_inter_token_latency_seconds"},
    .tpot = {.absent = "the Dynamo frontend observes token gaps only; see itl"},
    .e2e = {.histogram = "dynamo_frontend_request_duration_seconds"},
    .queue = {.absent = "the Dynamo frontend has no queue-time histogram (the engines' own "
                        "metrics on the workers' pages do)"},
    .prompt_tokens = "dynamo_frontend_input_sequence_tokens_sum",
    .generation_tokens = "dynamo_frontend_output_tokens_total",
    .tokens_absent =
        "no input-token counter: the presets read the _sum of "
        "dynamo_frontend_input_sequence_tokens",
    .model_label = "model"};

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

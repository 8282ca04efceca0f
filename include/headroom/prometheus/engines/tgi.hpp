// SPDX-License-Identifier: Apache-2.0
// The Hugging Face Text Generation Inference preset: names from its router
// (router/src/server.rs, backends/v3/src/queue.rs), checked on a real page in
// tests/data/metrics. docs/prometheus.md.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "../engine_preset.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// Hugging Face TGI (router 2.x/3.x). Running: the size of the batch being decoded; waiting:
/// the router's queue. No KV-cache gauge, no time-to-first-token and no inter-token histogram;
/// its time per token is a per-request mean that includes the prefill. Token totals are the
/// _sum series of its per-request length histograms. Its series carry no model label.
inline constexpr engine_preset tgi_preset{
    .engine = "tgi",
    .running = "tgi_batch_current_size",
    .waiting = "tgi_queue_size",
    .kv_usage_absent =
        "TGI exposes no KV-cache occupancy; tgi_batch_current_max_tokens over "
        "tgi_batch_max_total_tokens is a proxy (tokens reserved by the batch)",
    .ttft = {.absent = "TGI records no first-token time; tgi_request_queue_duration plus "
                       "tgi_batch_forward_duration{method=\"prefill\"} is a batch-level proxy"},
    .itl = {.absent = "TGI has no per-token histogram; see tpot"},
    .tpot = {.histogram = "tgi_request_mean_time_per_token_duration"},
    .e2e = {.histogram = "tgi_request_duration"},
    .queue = {.histogram = "tgi_request_queue_duration"},
    .prompt_tokens = "tgi_request_input_length_sum",
    .generation_tokens = "tgi_request_generated_tokens_sum",
    .tokens_absent =
        "TGI has no token counters: the presets read the _sum of its "
        "per-request length histograms (successful requests only)"};

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

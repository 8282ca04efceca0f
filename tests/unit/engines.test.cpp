// SPDX-License-Identifier: Apache-2.0
// Tests for the engine presets (headroom/prometheus/engines.hpp, engines/*.hpp) and the
// latency readers (headroom/prometheus/latency.hpp), each on real pages under
// tests/data/metrics (origins in its README). Expected values are read by eye off the pages
// (the line is quoted) or computed by hand from their buckets with PromQL's
// histogram_quantile rules (prometheus/prometheus promql/quantile.go bucketQuantile): rank
// q × count; linear interpolation inside the first bucket whose cumulative count reaches the
// rank; the lowest bucket starts at 0; a rank in the +Inf bucket returns the highest finite
// bound.
#include <headroom/autoscaler.hpp>
#include <headroom/error.hpp>
#include <headroom/prometheus.hpp>

#include <doctest/doctest.h>

#include "support.hpp"
#include "test_data.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

namespace prom = headroom::prometheus;
using prom::latency_kind;
using prom::missing_reason;

std::string read_page(const std::string& relative) {
  return headroom::test::read_test_data("metrics/" + relative);
}

// The value of a reading that must have one.
double value_of(const prom::latency_reading& r) {
  REQUIRE_MESSAGE(r.value.has_value(), r.metric << ": " << prom::describe(r.missing));
  return *r.value;
}

constexpr std::string_view deepseek = "deepseek-v4-flash-vision-exp-ablit-dual";

}  // namespace

TEST_SUITE("engines") {
  TEST_CASE("engines: vLLM V1 page ITL and TPOT quantiles by hand") {
    const std::string text = read_page("vllm_v1_deepseek_specdecode.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const auto itl = [&](double q) {
      return value_of(prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, q, deepseek));
    };
    // vllm:inter_token_latency_seconds_bucket, lines 365-384: le=0.05 -> 0, 0.075 -> 4827,
    // 0.1 -> 17233, 0.15 -> 17416, 0.2 -> 17807, ... +Inf -> 17807.
    // p50: rank 8903.5 in (0.075, 0.1] holding 4827..17233:
    //      0.075 + 0.025 × (8903.5 − 4827) / 12406 = 0.0832147751...
    CHECK(itl(0.5) == doctest::Approx(0.0832147751088183).epsilon(1e-12));
    // p90: rank 16026.3 in the same bucket: 0.075 + 0.025 × 11199.3 / 12406 = 0.0975683137...
    CHECK(itl(0.9) == doctest::Approx(0.0975683137191682).epsilon(1e-12));
    // p99: rank 17628.93 in (0.15, 0.2] holding 17416..17807:
    //      0.15 + 0.05 × 212.93 / 391 = 0.1772289002...
    CHECK(itl(0.99) == doctest::Approx(0.1772289002557545).epsilon(1e-12));
    const prom::latency_reading p90 =
        prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, 0.9);
    CHECK(p90.metric == "vllm:inter_token_latency_seconds");
    CHECK(p90.observations == 17807.0);
    // Mean: _sum / _count (lines 385-386) = 1419.8547863351414 / 17807.
    CHECK(value_of(prom::latency_mean(p, prom::vllm_preset, latency_kind::itl)) ==
          doctest::Approx(1419.8547863351414 / 17807.0));

    // vllm:request_time_per_output_token_seconds_bucket, lines 392-411 (one per request):
    // le=0.01 -> 0, 0.025 -> 14, 0.05 -> 25, 0.075 -> 26, ... +Inf -> 26.
    const auto tpot = [&](double q) {
      return value_of(prom::latency_quantile(p, prom::vllm_preset, latency_kind::tpot, q));
    };
    // p50: rank 13 in (0.01, 0.025] holding 0..14: 0.01 + 0.015 × 13 / 14.
    CHECK(tpot(0.5) == doctest::Approx(0.01 + 0.015 * 13.0 / 14.0));
    // p90: rank 23.4 in (0.025, 0.05] holding 14..25: 0.025 + 0.025 × 9.4 / 11.
    CHECK(tpot(0.9) == doctest::Approx(0.025 + 0.025 * 9.4 / 11.0));
    // p99: rank 25.74 in (0.05, 0.075] holding 25..26: 0.05 + 0.025 × 0.74 = 0.0685.
    CHECK(tpot(0.99) == doctest::Approx(0.0685));

    // The other latencies: means from _sum / _count (lines 358-359, 441-442, 470-471).
    CHECK(value_of(prom::latency_mean(p, prom::vllm_preset, latency_kind::ttft)) ==
          doctest::Approx(417.90156173706055 / 26.0));
    CHECK(value_of(prom::latency_mean(p, prom::vllm_preset, latency_kind::e2e)) ==
          doctest::Approx(1837.7475888729095 / 26.0));
    CHECK(value_of(prom::latency_mean(p, prom::vllm_preset, latency_kind::queue)) ==
          doctest::Approx(0.006842203612904996 / 26.0));
    // TTFT p50 as before: rank 13 in (1.0, 2.5] holding 9..14: 1.0 + 1.5 × 4 / 5 = 2.2.
    CHECK(value_of(prom::latency_quantile(p, prom::vllm_preset, latency_kind::ttft, 0.5)) ==
          doctest::Approx(2.2));
    CHECK(prom::ttft_quantile(p, prom::vllm_preset, 0.5) ==
          prom::latency_quantile(p, prom::vllm_preset, latency_kind::ttft, 0.5).value);
  }

  TEST_CASE("engines: vLLM V0 page - the first bucket starts at 0 and the old ITL name") {
    const std::string text = read_page("vllm_v0_mixed_datadog.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    // Both names are on this page; the V1 name wins. vllm:inter_token_latency_seconds_bucket,
    // lines 244-246: le=0.01 -> 141, 0.1 -> 144, +Inf -> 144.
    // p50: rank 72 in the lowest bucket, which starts at 0: 0 + 0.01 × 72 / 141.
    const prom::latency_reading p50 =
        prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, 0.5, "facebook/opt-125m");
    CHECK(p50.metric == "vllm:inter_token_latency_seconds");
    CHECK(value_of(p50) == doctest::Approx(0.01 * 72.0 / 141.0));
    // p99: rank 142.56 in (0.01, 0.1] holding 141..144: 0.01 + 0.09 × 1.56 / 3 = 0.0568.
    CHECK(value_of(prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, 0.99)) ==
          doctest::Approx(0.0568));

    // A V0 page with only vllm:time_per_output_token_seconds (the same per-token histogram)
    // is read under that name.
    const prom::page old = prom::parse(
        "vllm:time_per_output_token_seconds_bucket{le=\"0.05\",model_name=\"m\"} 3.0\n"
        "vllm:time_per_output_token_seconds_bucket{le=\"0.1\",model_name=\"m\"} 4.0\n"
        "vllm:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 4.0\n"
        "vllm:time_per_output_token_seconds_sum{model_name=\"m\"} 0.2\n"
        "vllm:time_per_output_token_seconds_count{model_name=\"m\"} 4.0\n");
    const prom::latency_reading fallback =
        prom::latency_quantile(old, prom::vllm_preset, latency_kind::itl, 0.5, "m");
    CHECK(fallback.metric == "vllm:time_per_output_token_seconds");
    CHECK(value_of(fallback) == doctest::Approx(0.05 * 2.0 / 3.0));  // rank 2 in (0, 0.05]
    CHECK(value_of(prom::latency_mean(old, prom::vllm_preset, latency_kind::itl)) ==
          doctest::Approx(0.05));
  }

  TEST_CASE("engines: SGLang latencies") {
    const std::string docs = read_page("sglang_llama31_8b_docs.txt");
    const prom::page p = prom::parse(docs);
    REQUIRE(p.ok());
    // The docs page predates the ITL histogram: its time_per_output_token_seconds counts
    // 7,400,757 observations for 11,228 requests (lines 57, 80), one per token.
    const prom::latency_reading itl =
        prom::latency_quantile(p, prom::sglang_preset, latency_kind::itl, 0.5);
    CHECK(itl.missing == missing_reason::metric_absent);
    CHECK(itl.metric == "sglang:inter_token_latency_seconds");
    // TPOT buckets (lines 61-79): le=0.075 -> 433413, 0.1 -> 4.950195e+06, +Inf -> 7.400757e+06.
    // p50: rank 3700378.5 in (0.075, 0.1]: 0.075 + 0.025 × 3266965.5 / 4516782 = 0.0930823...
    CHECK(value_of(prom::latency_quantile(p, prom::sglang_preset, latency_kind::tpot, 0.5)) ==
          doctest::Approx(0.0930823731364498).epsilon(1e-12));
    // e2e (lines 41-57): le=60 -> 1513, +Inf -> 11228. The p99 rank 11115.72 lies in the +Inf
    // bucket: histogram_quantile returns the highest finite bound, 60.
    CHECK(value_of(prom::latency_quantile(p, prom::sglang_preset, latency_kind::e2e, 0.99)) ==
          60.0);
    CHECK(value_of(prom::latency_mean(p, prom::sglang_preset, latency_kind::e2e)) ==
          doctest::Approx(3.116093850019932e+06 / 11228.0));

    const std::string gorgo = read_page("sglang_qwen35_moe_gorgo.txt");
    const prom::page q = prom::parse(gorgo);
    REQUIRE(q.ok());
    // sglang:queue_time_seconds (lines 214-216): le=0.0 -> 0, 0.1 -> 2, ... +Inf -> 2.
    // p50: rank 1 in (0, 0.1] holding 0..2: 0.05.
    CHECK(value_of(prom::latency_quantile(q, prom::sglang_preset, latency_kind::queue, 0.5)) ==
          doctest::Approx(0.05));
    CHECK(value_of(prom::latency_mean(q, prom::sglang_preset, latency_kind::queue)) ==
          doctest::Approx(0.0018174989999977242 / 2.0));
    // sglang:prompt_tokens_total 92.0, sglang:generation_tokens_total 9.0 (lines 16, 19).
    const prom::token_totals tokens = prom::read_token_totals(q, prom::sglang_preset);
    CHECK(tokens.prompt.value == 92.0);
    CHECK(tokens.generation.value == 9.0);
  }

  TEST_CASE("engines: TGI page") {
    const std::string text = read_page("tgi_datadog_payload.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const prom::replica_load load = prom::read_replica_load(p, prom::tgi_preset);
    CHECK(load.running.value == 0.0);  // line 35: tgi_batch_current_size 0
    CHECK(load.waiting.value == 0.0);  // line 27: tgi_queue_size 0
    CHECK(load.in_flight() == 0.0);
    CHECK(load.kv_usage.missing == missing_reason::not_exposed);
    CHECK(load.kv_usage.note.find("tgi_batch_current_max_tokens") != std::string_view::npos);
    CHECK_FALSE(load.kv_usage_mean.has_value());
    CHECK(prom::latency_quantile(p, prom::tgi_preset, latency_kind::ttft, 0.5).missing ==
          missing_reason::not_exposed);
    CHECK(prom::latency_mean(p, prom::tgi_preset, latency_kind::itl).missing ==
          missing_reason::not_exposed);
    // tgi_request_duration (lines 405-420): le=3.787675244106352 -> 51,
    // 5.681512866159528 -> 77, 8.52226929923929 -> 104, +Inf -> 109.
    // p50: rank 54.5: 3.787675244106352 + 1.893837622053176 × 3.5 / 26 = 4.0426149...
    CHECK(value_of(prom::latency_quantile(p, prom::tgi_preset, latency_kind::e2e, 0.5)) ==
          doctest::Approx(4.0426149239981255).epsilon(1e-12));
    // p90: rank 98.1: 5.681512866159528 + 2.840756433079762 × 21.1 / 27 = 7.9015114...
    CHECK(value_of(prom::latency_quantile(p, prom::tgi_preset, latency_kind::e2e, 0.9)) ==
          doctest::Approx(7.90151141201075).epsilon(1e-12));
    // tgi_request_mean_time_per_token_duration (lines 679-680): le=0.0656840835571289 -> 9,
    // 0.09852612533569335 -> 109. p90: rank 98.1: 0.0656840835571289 + 0.0328420417785644 ×
    // 89.1 / 100 = 0.0949463...
    CHECK(value_of(prom::latency_quantile(p, prom::tgi_preset, latency_kind::tpot, 0.9)) ==
          doctest::Approx(0.09494634278182983).epsilon(1e-12));
    CHECK(value_of(prom::latency_mean(p, prom::tgi_preset, latency_kind::queue)) ==
          doctest::Approx(295.275961956 / 109.0));  // lines 501-502
    // Token totals from the histograms' _sum: lines 140 and 846.
    const prom::token_totals tokens = prom::read_token_totals(p, prom::tgi_preset);
    CHECK(tokens.prompt.value == 662.0);
    CHECK(tokens.generation.value == 3423.0);
    // TGI's series carry no model label: naming a model is a caller mistake.
    CHECK(headroom::test::rejected(
              [&] { (void)prom::read_replica_load(p, prom::tgi_preset, "m"); }) == "preset");
  }

  TEST_CASE("engines: llama.cpp page") {
    const std::string text = read_page("llamacpp_ik_fork_pr695_comment.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const prom::replica_load load = prom::read_replica_load(p, prom::llamacpp_preset);
    CHECK(load.running.value == 0.0);        // llamacpp:requests_processing 0
    CHECK(load.waiting.value == 0.0);        // llamacpp:requests_deferred 0
    CHECK(load.kv_usage.value == 0.491063);  // llamacpp:kv_cache_usage_ratio 0.491063
    for (const latency_kind kind :
         {latency_kind::ttft, latency_kind::itl, latency_kind::e2e, latency_kind::queue}) {
      const prom::latency_reading r = prom::latency_mean(p, prom::llamacpp_preset, kind);
      CHECK(r.missing == missing_reason::not_exposed);
      CHECK_FALSE(r.note.empty());
    }
    // The mean time per output token: tokens_predicted_seconds_total 3544.27 over
    // tokens_predicted_total 3469 = 1.0217 s; the page's own average,
    // predicted_tokens_seconds 0.978764 tokens/s, is its reciprocal to 6 digits.
    const double tpot = value_of(prom::latency_mean(p, prom::llamacpp_preset, latency_kind::tpot));
    CHECK(tpot == doctest::Approx(3544.27 / 3469.0));
    CHECK(1.0 / tpot == doctest::Approx(0.978764).epsilon(1e-6));
    CHECK(prom::latency_quantile(p, prom::llamacpp_preset, latency_kind::tpot, 0.9).missing ==
          missing_reason::not_exposed);
    const prom::token_totals tokens = prom::read_token_totals(p, prom::llamacpp_preset);
    CHECK(tokens.prompt.value == 6886.0);      // llamacpp:prompt_tokens_total 6886
    CHECK(tokens.generation.value == 3469.0);  // llamacpp:tokens_predicted_total 3469
  }

  TEST_CASE("engines: TensorRT-LLM behind Triton pages") {
    const std::string ifb = read_page("trtllm_triton_readme_ifb.txt");
    const prom::page p = prom::parse(ifb);
    REQUIRE(p.ok());
    const prom::replica_load load =
        prom::read_replica_load(p, prom::triton_trtllm_preset, "tensorrt_llm");
    // nv_trt_llm_request_metrics{...request_type="active"...} 0, {...="waiting"...} 1,
    // nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="fraction",...} 0.4875.
    CHECK(load.running.value == 0.0);
    CHECK(load.running.series == 1);
    CHECK(load.waiting.value == 1.0);
    CHECK(load.in_flight() == 1.0);
    CHECK(load.kv_usage.value == 0.4875);
    CHECK(prom::latency_mean(p, prom::triton_trtllm_preset, latency_kind::itl).missing ==
          missing_reason::not_exposed);
    // Triton's first-response histogram is opt-in: not on this page.
    CHECK(prom::latency_quantile(p, prom::triton_trtllm_preset, latency_kind::ttft, 0.5).missing ==
          missing_reason::metric_absent);

    const std::string core = read_page("triton_nv_inference_readme.txt");
    const prom::page c = prom::parse(core);
    REQUIRE(c.ok());
    // nv_inference_request_duration_us 0 over nv_inference_request_success 0: nothing yet.
    const prom::latency_reading e2e =
        prom::latency_mean(c, prom::triton_trtllm_preset, latency_kind::e2e, "tensorrt_llm");
    CHECK(e2e.missing == missing_reason::no_observations);
    CHECK(e2e.metric == "nv_inference_request_duration_us");
    CHECK(prom::latency_mean(c, prom::triton_trtllm_preset, latency_kind::queue).missing ==
          missing_reason::no_observations);  // nv_inference_queue_duration_us 0 over 0
    CHECK(prom::latency_quantile(c, prom::triton_trtllm_preset, latency_kind::e2e, 0.5).missing ==
          missing_reason::not_exposed);
    CHECK(prom::read_token_totals(c, prom::triton_trtllm_preset).generation.missing ==
          missing_reason::not_exposed);

    // The same counters after 4 requests that took 2.5 s in all, 0.1 s of it queued (µs).
    const prom::page later = prom::parse(
        "nv_inference_request_success{model=\"tensorrt_llm\",version=\"1\"} 4\n"
        "nv_inference_request_duration_us{model=\"tensorrt_llm\",version=\"1\"} 2500000\n"
        "nv_inference_queue_duration_us{model=\"tensorrt_llm\",version=\"1\"} 100000\n");
    CHECK(value_of(prom::latency_mean(c, later, prom::triton_trtllm_preset, latency_kind::e2e)) ==
          doctest::Approx(0.625));
    CHECK(value_of(prom::latency_mean(later, prom::triton_trtllm_preset, latency_kind::queue)) ==
          doctest::Approx(0.025));
  }

  TEST_CASE("engines: TensorRT-LLM server histograms on a Dynamo worker page") {
    const std::string text = read_page("dynamo_trtllm_worker_qwen3_docs.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    constexpr std::string_view model = "Qwen/Qwen3-0.6B";
    // trtllm_time_to_first_token_seconds_bucket: le=0.02 -> 0, 0.04 -> 1, 0.06 -> 2.
    // p50: rank 1 in (0.02, 0.04] holding 0..1: 0.04. p90: rank 1.8 in (0.04, 0.06]: 0.056.
    CHECK(value_of(prom::latency_quantile(p, prom::trtllm_preset, latency_kind::ttft, 0.5,
                                          model)) == doctest::Approx(0.04));
    CHECK(value_of(prom::latency_quantile(p, prom::trtllm_preset, latency_kind::ttft, 0.9,
                                          model)) == doctest::Approx(0.056));
    CHECK(value_of(prom::latency_mean(p, prom::trtllm_preset, latency_kind::ttft, model)) ==
          doctest::Approx(0.06795299984514713 / 2.0));
    // trtllm_time_per_output_token_seconds: both observations <= 0.01 (the lowest bucket):
    // p50 rank 1 in (0, 0.01] holding 0..2: 0.005.
    CHECK(value_of(prom::latency_quantile(p, prom::trtllm_preset, latency_kind::tpot, 0.5)) ==
          doctest::Approx(0.005));
    CHECK(value_of(prom::latency_mean(p, prom::trtllm_preset, latency_kind::e2e)) ==
          doctest::Approx(1.7300310004502535 / 2.0));
    CHECK(value_of(prom::latency_mean(p, prom::trtllm_preset, latency_kind::queue)) ==
          doctest::Approx(0.01181500032544136 / 2.0));
    // This release predates the server's load gauges and token counters.
    const prom::replica_load load = prom::read_replica_load(p, prom::trtllm_preset, model);
    CHECK(load.running.missing == missing_reason::metric_absent);
    CHECK(load.kv_usage.missing == missing_reason::metric_absent);
    CHECK(prom::latency_quantile(p, prom::trtllm_preset, latency_kind::itl, 0.5).missing ==
          missing_reason::not_exposed);
  }

  TEST_CASE("engines: Dynamo frontend page") {
    const std::string text = read_page("dynamo_frontend_qwen3_docs.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    constexpr std::string_view model = "qwen/qwen3-0.6b";  // lower-cased on request metrics
    const prom::replica_load load = prom::read_replica_load(p, prom::dynamo_frontend_preset, model);
    CHECK(load.running.value == 0.0);  // dynamo_frontend_inflight_requests{...} 0
    CHECK(load.waiting.missing == missing_reason::not_exposed);
    CHECK(load.in_flight() == 0.0);  // the in-flight gauge counts queued requests too
    CHECK(load.kv_usage.missing == missing_reason::not_exposed);
    // dynamo_frontend_inter_token_latency_seconds_bucket: le=0 -> 0, 0.0019 -> 21,
    // 0.0035 -> 298, 0.0067 -> 299, +Inf -> 299 (299 gaps for 300 tokens).
    // p90: rank 269.1 in (0.0019, 0.0035] holding 21..298: 0.0019 + 0.0016 × 248.1 / 277.
    CHECK(value_of(prom::latency_quantile(p, prom::dynamo_frontend_preset, latency_kind::itl, 0.9,
                                          model)) ==
          doctest::Approx(0.0019 + 0.0016 * 248.1 / 277.0));
    CHECK(value_of(prom::latency_mean(p, prom::dynamo_frontend_preset, latency_kind::itl)) ==
          doctest::Approx(0.6126917290000005 / 299.0));
    // TTFT: le=1 -> 0, 2.2 -> 1: p50 rank 0.5 in (1, 2.2]: 1.6. The mean is the one request's.
    CHECK(value_of(prom::latency_quantile(p, prom::dynamo_frontend_preset, latency_kind::ttft,
                                          0.5)) == doctest::Approx(1.6));
    CHECK(value_of(prom::latency_mean(p, prom::dynamo_frontend_preset, latency_kind::ttft)) ==
          doctest::Approx(1.5625701570000001));
    // dynamo_frontend_request_duration_seconds: le=1.9 -> 0, 3.4 -> 1: p50 rank 0.5 in
    // (1.9, 3.4]: 1.9 + 1.5 × 0.5 = 2.65. The mean is the one request's 2.177646729 s.
    CHECK(value_of(prom::latency_quantile(p, prom::dynamo_frontend_preset, latency_kind::e2e,
                                          0.5)) == doctest::Approx(2.65));
    CHECK(value_of(prom::latency_mean(p, prom::dynamo_frontend_preset, latency_kind::e2e)) ==
          doctest::Approx(2.177646729));
    CHECK(prom::latency_mean(p, prom::dynamo_frontend_preset, latency_kind::queue).missing ==
          missing_reason::not_exposed);
    CHECK(
        prom::latency_quantile(p, prom::dynamo_frontend_preset, latency_kind::tpot, 0.5).missing ==
        missing_reason::not_exposed);
    const prom::token_totals tokens = prom::read_token_totals(p, prom::dynamo_frontend_preset);
    CHECK(tokens.prompt.value == 33.0);       // dynamo_frontend_input_sequence_tokens_sum 33
    CHECK(tokens.generation.value == 300.0);  // dynamo_frontend_output_tokens_total 300
  }

  TEST_CASE("engines: latency over the window between two scrapes") {
    const prom::page earlier = prom::parse(
        "vllm:inter_token_latency_seconds_bucket{le=\"0.05\",model_name=\"m\"} 100\n"
        "vllm:inter_token_latency_seconds_bucket{le=\"0.1\",model_name=\"m\"} 150\n"
        "vllm:inter_token_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 160\n"
        "vllm:inter_token_latency_seconds_sum{model_name=\"m\"} 8\n"
        "vllm:inter_token_latency_seconds_count{model_name=\"m\"} 160\n");
    const prom::page later = prom::parse(
        "vllm:inter_token_latency_seconds_bucket{le=\"0.05\",model_name=\"m\"} 110\n"
        "vllm:inter_token_latency_seconds_bucket{le=\"0.1\",model_name=\"m\"} 190\n"
        "vllm:inter_token_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 260\n"
        "vllm:inter_token_latency_seconds_sum{model_name=\"m\"} 23\n"
        "vllm:inter_token_latency_seconds_count{model_name=\"m\"} 260\n");
    // In between: le=0.05 -> 10, 0.1 -> 40, +Inf -> 100. p50: rank 50 in the +Inf bucket ->
    // 0.1. p25: rank 25 in (0.05, 0.1] holding 10..40: 0.05 + 0.05 × 15 / 30 = 0.075.
    const prom::latency_reading p50 =
        prom::latency_quantile(earlier, later, prom::vllm_preset, latency_kind::itl, 0.5);
    CHECK(value_of(p50) == 0.1);
    CHECK(p50.observations == 100.0);
    CHECK(value_of(prom::latency_quantile(earlier, later, prom::vllm_preset, latency_kind::itl,
                                          0.25)) == doctest::Approx(0.075));
    // Since start: rank 130 of 260 in (0.05, 0.1] holding 110..190: 0.05 + 0.05 × 20 / 80.
    CHECK(value_of(prom::latency_quantile(later, prom::vllm_preset, latency_kind::itl, 0.5)) ==
          doctest::Approx(0.0625));
    // Mean in between: (23 − 8) / (260 − 160) = 0.15 s.
    CHECK(value_of(prom::latency_mean(earlier, later, prom::vllm_preset, latency_kind::itl)) ==
          doctest::Approx(0.15));
    // Nothing observed in between.
    CHECK(prom::latency_quantile(later, later, prom::vllm_preset, latency_kind::itl, 0.5).missing ==
          missing_reason::no_observations);
    // A restart (counts down): the later page alone.
    CHECK(value_of(prom::latency_mean(later, earlier, prom::vllm_preset, latency_kind::itl)) ==
          doctest::Approx(8.0 / 160.0));
  }

  TEST_CASE("engines: the autoscaler targets p90 ITL") {
    // "p90 inter-token latency below 50 ms" as an HPA External metric with a Value target:
    // the HPA scales by ratio = value / target (replica_calculator.go
    // GetExternalMetricReplicas). Milliseconds, because quantities round up to milli-units.
    const std::string text = read_page("vllm_v1_deepseek_specdecode.txt");
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const prom::latency_reading p90 =
        prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, 0.9);
    const double p90_ms = 1000.0 * value_of(p90);  // 97.568 ms, as computed by hand above
    const headroom::autoscaling::autoscaler controller({
        .min_replicas = 1,
        .max_replicas = 20,
        .metrics = {{.name = "p90 inter-token latency (ms)",
                     .source = headroom::autoscaling::metric_source::external,
                     .target_type = headroom::autoscaling::metric_target_type::value,
                     .target = 50.0}},
        .behavior = headroom::autoscaling::scaling_behavior{},
    });
    auto state = controller.initial_state();
    const headroom::autoscaling::metric_observation seen =
        headroom::autoscaling::observe_value(p90_ms);
    const auto decision =
        controller.step(state, std::chrono::milliseconds{0},
                        {.replicas = {.spec = 3, .status = 3, .ready = 3}, .metrics = {&seen, 1}});
    // 97.568 ms -> 97569m; ratio 97569 / 50000 = 1.95138, outside the 0.1 tolerance;
    // ceil(1.95138 × 3 ready) = ceil(5.854) = 6, within the default scale-up limit
    // max(3 + 4, 2 × 3) = 7.
    CHECK(decision.desired_replicas == 6);

    // Under a 100 ms target the ratio 0.976 is within the tolerance: hold at 3.
    const headroom::autoscaling::autoscaler relaxed({
        .min_replicas = 1,
        .max_replicas = 20,
        .metrics = {{.name = "p90 inter-token latency (ms)",
                     .source = headroom::autoscaling::metric_source::external,
                     .target_type = headroom::autoscaling::metric_target_type::value,
                     .target = 100.0}},
    });
    auto relaxed_state = relaxed.initial_state();
    CHECK(relaxed
              .step(relaxed_state, std::chrono::milliseconds{0},
                    {.replicas = {.spec = 3, .status = 3, .ready = 3}, .metrics = {&seen, 1}})
              .desired_replicas == 3);
  }

  TEST_CASE("engines: a preset that names nothing is a caller mistake") {
    const prom::page p = prom::parse("x 1\n");
    prom::engine_preset blank{.engine = "blank", .running = "r", .waiting = "w"};
    CHECK(headroom::test::rejected([&] { (void)prom::read_replica_load(p, blank); }) == "preset");
    blank.kv_usage_absent = "none";
    CHECK(prom::read_replica_load(p, blank).kv_usage.missing == missing_reason::not_exposed);
    CHECK(headroom::test::rejected(
              [&] { (void)prom::latency_mean(p, blank, latency_kind::itl); }) == "preset");
    CHECK(headroom::test::rejected([&] {
            (void)prom::latency_quantile(p, prom::vllm_preset, latency_kind::itl, 1.5);
          }) == "q");
    blank.itl.absent = "no token latency";
    const prom::latency_reading r = prom::latency_quantile(p, blank, latency_kind::itl, 0.5);
    CHECK(r.missing == missing_reason::not_exposed);
    CHECK(r.note == "no token latency");
    CHECK(prom::describe(missing_reason::not_exposed) == "the engine does not expose this metric");
    CHECK(prom::to_string(latency_kind::itl) == "itl");
    // A failed page: nothing read.
    const prom::page broken = prom::parse("vllm:num_requests_running 1\nbad line\n");
    CHECK(prom::latency_mean(broken, prom::vllm_preset, latency_kind::e2e).missing ==
          missing_reason::page_invalid);
  }
}

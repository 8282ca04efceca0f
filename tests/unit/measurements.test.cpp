// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/measurements.hpp: vLLM's benchmark results and guidellm's reports read into
// request outcomes. Files: tests/data/benchmarks (origins and licences in its README): a
// published vLLM request-rate sweep saved without --save-detailed, a five-request file in
// --save-detailed's layout, guidellm's own report fixture (its 0.2/0.3 layout) and a
// four-request report in its version-2 layout; outcomes are computed by hand below or taken
// from the fields the tools computed themselves. Hostile inputs each give one named error.
#include <headroom/capacity.hpp>
#include <headroom/measurements.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "test_data.hpp"

namespace {
namespace m = headroom::measurements;
using namespace std::chrono_literals;

m::benchmark_file read(const std::string& name) {
  return m::read_vllm_bench(headroom::test::read_test_data("benchmarks/vllm/" + name));
}

std::string genai_text(const std::string& name) {
  return headroom::test::read_test_data("benchmarks/genai_perf/" + name);
}

// The hand-written genai-perf export with `from` replaced by `to` once (it must exist).
std::string genai_edited(std::string_view from, std::string_view to) {
  std::string text = genai_text("streaming_cases_layout.json");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

std::string guidellm_text(const std::string& name) {
  return headroom::test::read_test_data("benchmarks/guidellm/" + name);
}

// The version-2 report with `from` replaced by `to` once (the replacement must exist).
std::string guidellm_edited(std::string_view from, std::string_view to) {
  std::string text = guidellm_text("report_v2_layout.json");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

// The detailed file with `from` replaced by `to` once (the replacement must exist).
std::string edited(std::string_view from, std::string_view to) {
  std::string text =
      headroom::test::read_test_data("benchmarks/vllm/detailed_layout_009e6d4a.json");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_SUITE("measurements") {
  TEST_CASE("vllm: a published rate sweep, summaries only") {
    // The files' own numbers, in ms, read as seconds; "inf" is every request at once.
    const struct {
      const char* file;
      double rate;  // 0: "inf"
      double mean_ttft_ms, p99_itl_ms, median_tpot_ms;
    } sweep[] = {
        {"serving_llama8B_tp1_sharegpt_qps_1.json", 1.0, 163.63046600483358, 119.94087621569633,
         62.01311618097231},
        {"serving_llama8B_tp1_sharegpt_qps_4.json", 4.0, 189.12410335615277, 263.0033450573683,
         87.8718727761697},
        {"serving_llama8B_tp1_sharegpt_qps_16.json", 16.0, 333.35649558342993, 540.683873668313,
         131.5868797753837},
        {"serving_llama8B_tp1_sharegpt_qps_inf.json", 0.0, 10484.147438658401, 172.05664217472076,
         124.06945742569125},
    };
    for (const auto& s : sweep) {
      CAPTURE(s.file);
      const m::benchmark_file f = read(s.file);
      REQUIRE(f.ok());
      REQUIRE(f.runs.size() == 1);
      const m::benchmark_run& r = f.runs[0];
      CHECK(r.tool == "vllm bench serve");
      if (s.rate > 0) {
        CHECK(r.load.request_rate_per_second == s.rate);
      } else {
        CHECK_FALSE(r.load.request_rate_per_second.has_value());
      }
      CHECK(r.load.burstiness == 1.0);
      CHECK(r.load.pattern ==
            (s.rate > 0 ? m::load_pattern::open_loop : m::load_pattern::all_at_once));
      CHECK_FALSE(r.load.max_concurrency.has_value());
      CHECK(*r.ttft.mean == doctest::Approx(s.mean_ttft_ms / 1000).epsilon(1e-15));
      CHECK(*r.itl.p99 == doctest::Approx(s.p99_itl_ms / 1000).epsilon(1e-15));
      CHECK(*r.tpot.median == doctest::Approx(s.median_tpot_ms / 1000).epsilon(1e-15));
      CHECK(r.requests.empty());  // saved without --save-detailed
      CHECK_FALSE(r.duration.has_value());
      CHECK_FALSE(r.completed.has_value());
    }
  }

  TEST_CASE("vllm: per-request outcomes from --save-detailed's arrays") {
    const m::benchmark_file f = read("detailed_layout_009e6d4a.json");
    REQUIRE(f.ok());
    const m::benchmark_run& r = f.runs.at(0);
    CHECK(r.load.request_rate_per_second == 2.0);
    CHECK(r.duration == std::chrono::duration<double>(2.6));
    CHECK(r.completed == 4u);
    CHECK(r.failed == 1u);
    REQUIRE(r.requests.size() == 5);
    CHECK(r.send_times_known);
    CHECK(r.intended_times_known);  // queue_times
    CHECK(r.token_counts_known);
    // By hand: the origin is the earliest start − queue time, 1000.0. Request 2 started at
    // 1001.1 after 0.1 s in the client's queue: intended 1.0, sent 1.1, first token 1.1 + 0.3,
    // finished 1.1 + 1.2 (its latency).
    const auto& r2 = r.requests[2];
    CHECK(r2.intended_arrival.count() == doctest::Approx(1.0));
    CHECK(r2.sent.count() == doctest::Approx(1.1));
    CHECK(r2.first_token.count() == doctest::Approx(1.4));
    CHECK(r2.finished.count() == doctest::Approx(2.3));
    CHECK(r2.prompt_tokens == 100);
    CHECK(r2.output_tokens == 10);
    CHECK_FALSE(r2.error);
    CHECK(r.requests[0].finished.count() == doctest::Approx(0.65));
    CHECK(r.requests[4].error);  // ttft 0, output 0, an error text
    // Against TTFT <= 0.4 s and TPOT <= 80 ms (vLLM's, (finished − first) / (out − 1)):
    // request 0: 0.2 s, 50 ms; 1: 0.25 s, 33 ms (three chunks); 2: 0.3 s, 100 ms (fails);
    // 3: TTFT 0.5 s (fails); 4: failed. Two of five conform.
    const headroom::capacity::slo objective{.ttft = 400ms, .tpot = 80ms};
    const auto e = headroom::capacity::measure_conformance(r.requests, objective);
    CHECK(e.n == 5);
    CHECK(e.share == doctest::Approx(0.4));
  }

  TEST_CASE("vllm: without latencies the end is TTFT plus the chunk gaps; JSON Lines") {
    std::string text = edited("\"latencies\": [0.65, 0.55, 1.2, 0.95, 0.0], ", "");
    m::benchmark_file f = m::read_vllm_bench(text);
    REQUIRE(f.ok());
    // Request 1: 0.25 s to the first chunk, then three gaps of 0.1 s.
    CHECK(f.runs[0].requests[1].finished.count() == doctest::Approx(0.4 + 0.25 + 0.3));
    // Without start_times the sends are unknown: all at 0, latencies kept.
    text = edited("\"start_times\": [1000.0, 1000.4, 1001.1, 1001.5, 1002.0], ", "");
    f = m::read_vllm_bench(text);
    REQUIRE(f.ok());
    CHECK_FALSE(f.runs[0].send_times_known);
    CHECK_FALSE(f.runs[0].intended_times_known);
    CHECK(f.runs[0].requests[2].sent.count() == 0.0);
    CHECK(f.runs[0].requests[2].finished.count() == doctest::Approx(1.2));
    // --append-result: one object per line.
    const std::string one =
        headroom::test::read_test_data("benchmarks/vllm/serving_llama8B_tp1_sharegpt_qps_1.json");
    const std::string four =
        headroom::test::read_test_data("benchmarks/vllm/serving_llama8B_tp1_sharegpt_qps_4.json");
    f = m::read_vllm_bench(one + "\n" + four + "\n");
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 2);
    CHECK(f.runs[1].load.request_rate_per_second == 4.0);
  }

  TEST_CASE("vllm: intended sends never before the first nor after their own send") {
    // start 1000.4 less queue 0.4 is the earliest intended send (1000.0 in decimal, not in
    // binary): sent − queue computed after the origin came out −2.3e-14 (a fuzzer's input).
    const m::benchmark_file f = m::read_vllm_bench(
        edited("\"queue_times\": [0.0, 0.0, 0.1", "\"queue_times\": [0.0, 0.4, 0.1"));
    REQUIRE(f.ok());
    for (const auto& q : f.runs.at(0).requests) {
      CHECK(q.intended_arrival.count() >= 0.0);
      CHECK(q.intended_arrival <= q.sent);
    }
  }

  TEST_CASE("vllm: hostile and broken files give one named error") {
    const auto error_of = [](const std::string& text) {
      const m::benchmark_file f = m::read_vllm_bench(text);
      REQUIRE_FALSE(f.ok());
      CHECK(f.runs.empty());
      return *f.error;
    };
    const std::string good =
        headroom::test::read_test_data("benchmarks/vllm/detailed_layout_009e6d4a.json");
    // Truncated: not JSON where it stops.
    auto e = error_of(good.substr(0, 300));
    CHECK(e.offset == 300);
    CHECK(e.reason == "not JSON");
    // A field missing, of the wrong type, NaN, negative, infinite, or arrays that disagree.
    e = error_of(edited("\"request_rate\": 2.0, ", ""));
    CHECK(e.field == "request_rate");
    CHECK(e.reason == "is missing");
    e = error_of(edited("\"request_rate\": 2.0", "\"request_rate\": \"fast\""));
    CHECK(e.field == "request_rate");
    e = error_of(edited("\"ttfts\": [0.2, 0.25, 0.3,", "\"ttfts\": [0.2, 0.25, NaN,"));
    CHECK(e.field == "ttfts[2]");
    CHECK(e.reason == "must be a finite number >= 0");
    CHECK(e.message().starts_with("byte "));
    e = error_of(
        edited("[0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05], [0.1, 0.1, 0.1]",
               "[0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05], [0.1, -0.1, 0.1]"));
    CHECK(e.field == "itls[1][1]");
    e = error_of(edited("\"latencies\": [0.65,", "\"latencies\": [Infinity,"));
    CHECK(e.field == "latencies[0]");
    // A latency shorter than its own TTFT (found by tests/fuzz/vllm_bench.fuzz.cpp).
    e = error_of(edited("\"latencies\": [0.65,", "\"latencies\": [0.1,"));
    CHECK(e.field == "latencies[0]");
    e = error_of(
        edited("\"output_lens\": [10, 10, 10, 10, 0]", "\"output_lens\": [10, 10, 10, 10]"));
    CHECK(e.field == "output_lens");
    e = error_of(edited("\"output_lens\": [10, 10,", "\"output_lens\": [10.5, 10,"));
    CHECK(e.field == "output_lens[0]");
    e = error_of(edited("\"ttfts\": [0.2, 0.25, 0.3, 0.5, 0.0], ", ""));
    CHECK(e.field == "ttfts");
    e = error_of("[1, 2]");
    CHECK(e.reason == "a vLLM result is a JSON object");
    CHECK(error_of("").reason == "the text is empty");
    // A 100 MB string (a generated text) is refused at the bound, 16 MiB by default.
    std::string huge = edited("\"generated_texts\": [\"a\"",
                              "\"generated_texts\": [\"" + std::string(100'000'000, 'x') + "\"");
    e = error_of(huge);
    CHECK(e.reason == "a string longer than max_string_bytes");
    CHECK(e.offset > 16'000'000);
  }

  TEST_CASE("guidellm: guidellm's own report fixture, the 0.2/0.3 layout") {
    const m::benchmark_file f =
        m::read_guidellm(guidellm_text("benchmarks_stripped_a1fe883a.json"));
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 1);
    const m::benchmark_run& r = f.runs[0];
    CHECK(r.tool == "guidellm");
    // args.strategy {"type_": "synchronous"}: one stream, a closed loop, no rate.
    CHECK(r.load.pattern == m::load_pattern::closed_loop);
    CHECK(r.load.max_concurrency == 1u);
    CHECK_FALSE(r.load.request_rate_per_second.has_value());
    // request_totals: 46 successful, 0 errored, 1 incomplete; one request object kept.
    CHECK(r.completed == 46u);
    CHECK(r.failed == 0u);
    CHECK(r.incomplete == 1u);
    CHECK(r.requests_sampled);
    CHECK(r.duration->count() == 29.997201442718506);
    // The file's summaries in ms, read as seconds.
    CHECK(*r.ttft.mean == doctest::Approx(16.792535781860348 / 1000).epsilon(1e-15));
    CHECK(*r.ttft.median == doctest::Approx(16.38054847717285 / 1000).epsilon(1e-15));
    CHECK(*r.ttft.p99 == doctest::Approx(21.281957626342773 / 1000).epsilon(1e-15));
    CHECK(*r.itl.mean == doctest::Approx(4.941609043733832 / 1000).epsilon(1e-15));
    CHECK(*r.tpot.mean == doctest::Approx(4.90300272307966 / 1000).epsilon(1e-15));
    REQUIRE(r.requests.size() == 1);
    const auto& q = r.requests[0];
    CHECK(r.send_times_known);
    CHECK(q.prompt_tokens == 257);
    CHECK(q.output_tokens == 128);
    CHECK_FALSE(q.error);
    // By hand from its Unix times: targeted 1749157168.179883 (the origin), start
    // 1749157168.1827004, so sent 0.0028174 s after it.
    CHECK(q.intended_arrival.count() == 0.0);
    CHECK(q.sent.count() == doctest::Approx(0.0028174).epsilon(1e-4));
    // TTFT from the send and TPOT (vLLM's definition) equal the fields guidellm computed from
    // the same times: time_to_first_token_ms and inter_token_latency_ms.
    CHECK(headroom::capacity::time_to_first_token_from_send(q).count() ==
          doctest::Approx(21.281957626342773 / 1000).epsilon(1e-6));
    CHECK(headroom::capacity::tpot_vllm(q).count() ==
          doctest::Approx(5.258346167136365 / 1000).epsilon(1e-6));
  }

  TEST_CASE("guidellm: a version-2 report, its four requests by hand") {
    const m::benchmark_file f = m::read_guidellm(guidellm_text("report_v2_layout.json"));
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 1);
    const m::benchmark_run& r = f.runs[0];
    CHECK(r.load.pattern == m::load_pattern::open_loop);  // "constant" at 2 req/s
    CHECK(r.load.request_rate_per_second == 2.0);
    CHECK_FALSE(r.load.burstiness.has_value());  // evenly spaced, not Poisson
    CHECK_FALSE(r.load.max_concurrency.has_value());
    CHECK(r.duration->count() == 2.5);
    CHECK(r.completed == 3u);
    CHECK(r.failed == 1u);
    CHECK(r.incomplete == 1u);
    CHECK(r.requests_sampled);      // two of three successful requests kept (sample_size 2)
    CHECK(r.intended_times_known);  // every request's targeted_start
    CHECK(r.token_counts_known);    // b's output count from its usage
    CHECK(*r.ttft.mean == 0.375);
    CHECK(*r.ttft.p99 == 0.5);
    CHECK(*r.tpot.mean == 0.225);
    CHECK(*r.itl.median == 0.18);
    REQUIRE(r.requests.size() == 4);
    // In send order, times from the first targeted start (T = 1780000000):
    // a: targeted T, sent T + 0.125, first token T + 0.375, last token T + 1.375, 100 in, 9 out.
    const auto& a = r.requests[0];
    CHECK(a.intended_arrival.count() == 0.0);
    CHECK(a.sent.count() == 0.125);
    CHECK(a.first_token.count() == 0.375);
    CHECK(a.finished.count() == 1.375);
    CHECK(a.prompt_tokens == 100);
    CHECK(a.output_tokens == 9);
    CHECK_FALSE(a.error);
    // b: targeted and sent T + 0.5, first token T + 1.0, last token T + 1.875; output_tokens
    // null, so the output usage's total, 5.
    const auto& b = r.requests[1];
    CHECK(b.intended_arrival.count() == 0.5);
    CHECK(b.first_token.count() == 1.0);
    CHECK(b.finished.count() == 1.875);
    CHECK(b.output_tokens == 5);
    // c errored at T + 1.0; d was still in flight when the benchmark ended (incomplete).
    CHECK(r.requests[2].error);
    CHECK(r.requests[2].intended_arrival.count() == 1.0);
    CHECK(r.requests[3].error);
    CHECK(r.requests[3].sent.count() == 1.625);
    // TTFT <= 0.4 s from the intended send, TPOT <= 0.15 s: a (0.375 s; (1.375 − 0.375) / 8 =
    // 0.125 s) conforms; b (TTFT 0.5 s) does not; c and d are errors. One of four.
    const auto e =
        headroom::capacity::measure_conformance(r.requests, {.ttft = 400ms, .tpot = 150ms});
    CHECK(e.n == 4);
    CHECK(e.share == 0.25);
  }

  TEST_CASE("guidellm: the strategies as loads") {
    const auto load_of = [](std::string_view strategy) {
      const m::benchmark_file f = m::read_guidellm(guidellm_edited(
          R"({"type_": "constant", "worker_count": 1, "max_concurrency": null, "rate": 2.0, "rampup_duration": 0.0})",
          strategy));
      REQUIRE(f.ok());
      return f.runs.at(0).load;
    };
    auto l = load_of(R"({"type_": "poisson", "rate": 4.5, "max_concurrency": 64})");
    CHECK(l.pattern == m::load_pattern::open_loop);
    CHECK(l.request_rate_per_second == 4.5);
    CHECK(l.burstiness == 1.0);
    CHECK(l.max_concurrency == 64u);
    l = load_of(R"({"type_": "concurrent", "streams": 8})");
    CHECK(l.pattern == m::load_pattern::closed_loop);
    CHECK(l.max_concurrency == 8u);
    CHECK_FALSE(l.request_rate_per_second.has_value());
    l = load_of(R"({"type_": "throughput", "max_concurrency": null})");
    CHECK(l.pattern == m::load_pattern::all_at_once);
    CHECK_FALSE(l.max_concurrency.has_value());
    CHECK(load_of(R"({"type_": "trace", "time_scale": 1.0})").pattern == m::load_pattern::trace);
    CHECK(load_of(R"({"type_": "synchronous"})").max_concurrency == 1u);
  }

  TEST_CASE("guidellm: hostile and broken reports give one named error") {
    const auto error_of = [](const std::string& text) {
      const m::benchmark_file f = m::read_guidellm(text);
      REQUIRE_FALSE(f.ok());
      CHECK(f.runs.empty());
      return *f.error;
    };
    const std::string good = guidellm_text("report_v2_layout.json");
    auto e = error_of(good.substr(0, 500));  // truncated
    CHECK(e.offset == 500);
    CHECK(e.reason == "not JSON");
    e = error_of(R"({"metadata": {"version": 2}})");
    CHECK(e.field == "benchmarks");
    CHECK(e.reason == "is missing");
    e = error_of(guidellm_edited("\"version\": 2", "\"version\": 3"));
    CHECK(e.field == "metadata.version");
    e = error_of(guidellm_edited("\"strategy\": {", "\"strategy_\": {"));
    CHECK(e.field == "benchmarks[0].config.strategy");
    CHECK(e.reason == "is missing");
    e = error_of(guidellm_edited("\"type_\": \"constant\"", "\"type_\": \"bursty\""));
    CHECK(e.field == "benchmarks[0].config.strategy.type_");
    e = error_of(guidellm_edited("\"rate\": 2.0", "\"rate\": 0"));
    CHECK(e.field == "benchmarks[0].config.strategy.rate");
    e = error_of(guidellm_edited("\"request_start\": 1780000000.125", "\"request_start\": NaN"));
    CHECK(e.field == "benchmarks[0].requests.successful[0].info.timings.request_start");
    e = error_of(guidellm_edited("\"request_start\": 1780000000.125", "\"request_start\": -1"));
    CHECK(e.field == "benchmarks[0].requests.successful[0].info.timings.request_start");
    // A first token before the send.
    e = error_of(
        guidellm_edited("\"request_start\": 1780000000.125", "\"request_start\": 1780000000.5"));
    CHECK(e.field == "benchmarks[0].requests.successful[0]");
    e = error_of(guidellm_edited("\"prompt_tokens\": 100", "\"prompt_tokens\": 1.5"));
    CHECK(e.field == "benchmarks[0].requests.successful[0].prompt_tokens");
    e = error_of(guidellm_edited("\"successful\": [", "\"successful\": {\"x\": ["));
    CHECK(e.reason == "not JSON");  // the edit unbalances the brackets
    e = error_of(guidellm_edited("\"requests_made\": {\"successful\": 3",
                                 "\"requests_made\": {\"successful\": \"3\""));
    CHECK(e.field == "benchmarks[0].scheduler_metrics.requests_made.successful");
    CHECK(error_of("[]").reason == "a guidellm report is a JSON object");
    // A 100 MB string (a generated output) is refused at the bound, 16 MiB by default.
    e = error_of(guidellm_edited("\"output\": null",
                                 "\"output\": \"" + std::string(100'000'000, 'x') + "\""));
    CHECK(e.reason == "a string longer than max_string_bytes");
  }

  TEST_CASE("genai-perf: genai-perf's own streaming fixture, as genai-perf reads it") {
    const m::benchmark_file f =
        m::read_genai_perf(genai_text("openai_chat_streaming_263c5f6e.json"));
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 1);
    const m::benchmark_run& r = f.runs[0];
    CHECK(r.tool == "genai-perf");
    CHECK(r.load.pattern == m::load_pattern::closed_loop);  // mode "concurrency", value 10
    CHECK(r.load.max_concurrency == 10u);
    CHECK(r.send_times_known);
    CHECK_FALSE(r.intended_times_known);
    CHECK_FALSE(r.token_counts_known);  // no usage: the chunks with text are counted
    REQUIRE(r.requests.size() == 2);
    // genai-perf's own expected values in its test (timestamps in ns, from the first send at
    // 1): request latencies 12 − 1 and 15 − 2, TTFT 5 − 1 and 7 − 2 (the role chunk, the
    // empty delta and [DONE] carry no text and are left out).
    const auto ns = [](double x) { return x * 1e-9; };
    const auto& a = r.requests[0];
    const auto& b = r.requests[1];
    CHECK(a.sent.count() == 0.0);
    CHECK(b.sent.count() == doctest::Approx(ns(1)).scale(0.0).epsilon(1e-12));
    CHECK(headroom::capacity::time_to_first_token_from_send(a).count() ==
          doctest::Approx(ns(4)).scale(0.0).epsilon(1e-12));
    CHECK(headroom::capacity::time_to_first_token_from_send(b).count() ==
          doctest::Approx(ns(5)).scale(0.0).epsilon(1e-12));
    CHECK((a.finished - a.sent).count() == doctest::Approx(ns(11)).scale(0.0).epsilon(1e-12));
    CHECK((b.finished - b.sent).count() == doctest::Approx(ns(13)).scale(0.0).epsilon(1e-12));
    // Three chunks with text each ("I", " like", " dogs"; "I", "don't", "cook food"), where
    // genai-perf's tokenizer counts 3 and 6 tokens; no usage, so no prompt count.
    CHECK(a.output_tokens == 3);
    CHECK(b.output_tokens == 3);
    CHECK(a.prompt_tokens == 0);
    CHECK_FALSE(a.error);
    CHECK_FALSE(b.error);
  }

  TEST_CASE("genai-perf: the documentation's export, nanoseconds read exactly") {
    const m::benchmark_file f = m::read_genai_perf(genai_text("docs_nonstreaming_263c5f6e.json"));
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 1);
    const m::benchmark_run& r = f.runs[0];
    // "request_rate" 0.0: perf_analyzer's own schedule (sessions here), not a rate.
    CHECK(r.load.pattern == m::load_pattern::trace);
    CHECK_FALSE(r.load.request_rate_per_second.has_value());
    REQUIRE(r.requests.size() == 1);
    const auto& q = r.requests[0];
    // Not streamed: the whole answer at 1741134590728534586 ns, sent at 1741134590669919999:
    // 58 614 587 ns by integer subtraction (as doubles both round to a multiple of 256 ns).
    CHECK(q.first_token.count() == doctest::Approx(0.058614587).scale(0.0).epsilon(1e-15));
    CHECK(q.finished == q.first_token);
    // The server's usage: 33 prompt and 32 completion tokens.
    CHECK(q.prompt_tokens == 33);
    CHECK(q.output_tokens == 32);
    CHECK(r.token_counts_known);
  }

  TEST_CASE("genai-perf: streams split, merged, cut and failed, by hand") {
    const m::benchmark_file f = m::read_genai_perf(genai_text("streaming_cases_layout.json"));
    REQUIRE(f.ok());
    REQUIRE(f.runs.size() == 2);
    const m::benchmark_run& r = f.runs[0];
    CHECK(r.load.pattern == m::load_pattern::open_loop);
    CHECK(r.load.request_rate_per_second == 2.0);
    CHECK_FALSE(r.load.burstiness.has_value());  // the export does not say constant or Poisson
    CHECK_FALSE(r.completed.has_value());        // the export keeps no counts of its own
    REQUIRE(r.requests.size() == 5);
    // In send order (the file lists the second first), seconds from the first send T:
    // a: a role chunk at 0.1 (no text), "a" at 0.25, "b" and "c" in one response at 0.5, "d"
    // split across the responses at 0.75 and 0.8 (joined to the first), the usage chunk at
    // 0.9 (100 prompt, 5 completion tokens), [DONE] at 0.95.
    const auto& a = r.requests[0];
    CHECK(a.sent.count() == 0.0);
    CHECK(a.intended_arrival.count() == 0.0);
    CHECK(a.first_token.count() == doctest::Approx(0.25).epsilon(1e-12));
    CHECK(a.finished.count() == doctest::Approx(0.75).epsilon(1e-12));
    CHECK(a.prompt_tokens == 100);
    CHECK(a.output_tokens == 5);
    CHECK_FALSE(a.error);
    // b: a completion stream sent at 0.5, "e" at 0.7, "f" at 0.9, no usage: two chunks.
    const auto& b = r.requests[1];
    CHECK(b.sent.count() == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(b.first_token.count() == doctest::Approx(0.7).epsilon(1e-12));
    CHECK(b.finished.count() == doctest::Approx(0.9).epsilon(1e-12));
    CHECK(b.output_tokens == 2);
    CHECK(b.prompt_tokens == 0);
    CHECK_FALSE(b.error);
    CHECK_FALSE(r.token_counts_known);  // b has no usage
    // c: an SSE error event; d: no response at all; e: vLLM's error object. Errors, kept.
    CHECK(r.requests[2].error);
    CHECK(r.requests[2].sent.count() == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(r.requests[3].error);
    CHECK(r.requests[3].sent.count() == doctest::Approx(1.5).epsilon(1e-12));
    CHECK(r.requests[4].error);
    // TTFT <= 0.3 s from the send and TPOT <= 0.3 s: a (0.25 s; (0.75 − 0.25) / 4 = 0.125 s)
    // conforms, b (TTFT 0.2 s, TPOT 0.2 s) conforms, the three errors do not: two of five.
    const auto e =
        headroom::capacity::measure_conformance(r.requests, {.ttft = 300ms, .tpot = 300ms});
    CHECK(e.n == 5);
    CHECK(e.share == doctest::Approx(0.4));
    // The second experiment: a closed loop of 4, one answer not streamed, 0.4 s after its
    // send, with its usage (20 in, 3 out).
    const m::benchmark_run& c = f.runs[1];
    CHECK(c.load.pattern == m::load_pattern::closed_loop);
    CHECK(c.load.max_concurrency == 4u);
    REQUIRE(c.requests.size() == 1);
    CHECK(c.requests[0].sent.count() == 0.0);
    CHECK(c.requests[0].first_token.count() == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(c.requests[0].output_tokens == 3);
    CHECK(c.token_counts_known);
  }

  TEST_CASE("genai-perf: hostile and broken exports give one named error") {
    const auto error_of = [](const std::string& text) {
      const m::benchmark_file f = m::read_genai_perf(text);
      REQUIRE_FALSE(f.ok());
      CHECK(f.runs.empty());
      return *f.error;
    };
    const std::string good = genai_text("streaming_cases_layout.json");
    auto e = error_of(good.substr(0, 700));  // truncated
    CHECK(e.offset == 700);
    CHECK(e.reason == "not JSON");
    e = error_of(genai_edited("\"service_kind\": \"openai\"", "\"service_kind\": \"triton\""));
    CHECK(e.field == "service_kind");
    e = error_of(genai_edited("\"experiments\": [", "\"experiment_list\": ["));
    CHECK(e.field == "experiments");
    CHECK(e.reason == "is missing");
    e = error_of(genai_edited("\"mode\": \"request_rate\"", "\"mode\": \"sessions\""));
    CHECK(e.field == "experiments[0].experiment.mode");
    e = error_of(genai_edited("\"value\": 4", "\"value\": 0.5"));
    CHECK(e.field == "experiments[1].experiment.value");
    // A fractional, negative or too large timestamp, a string for one.
    e = error_of(genai_edited("\"timestamp\": 1780000000500000000", "\"timestamp\": 1.5e18"));
    CHECK(e.field == "experiments[0].requests[0].timestamp");
    e = error_of(genai_edited("\"timestamp\": 1780000000500000000", "\"timestamp\": -1"));
    CHECK(e.field == "experiments[0].requests[0].timestamp");
    e = error_of(
        genai_edited("\"timestamp\": 1780000000500000000", "\"timestamp\": 99999999999999999999"));
    CHECK(e.field == "experiments[0].requests[0].timestamp");
    e = error_of(genai_edited("\"timestamp\": 1780000000500000000", "\"timestamp\": \"now\""));
    CHECK(e.field == "experiments[0].requests[0].timestamp");
    // A response before its request, responses out of order.
    e = error_of(genai_edited("1780000000700000000", "1780000000400000000"));
    CHECK(e.field == "experiments[0].requests[0].response_timestamps[0]");
    CHECK(e.reason == "must not precede the request's timestamp (its send)");
    e = error_of(genai_edited("1780000000900000000,\n            1780000000950000000",
                              "1780000000900000000,\n            1780000000850000000"));
    CHECK(e.field == "experiments[0].requests[0].response_timestamps[2]");
    // A timestamp without its response, a response that is not a string.
    e = error_of(
        genai_edited("1780000000950000000\n", "1780000000950000000, 1780000000960000000\n"));
    CHECK(e.field == "experiments[0].requests[0].response_outputs");
    e = error_of(genai_edited("\"response\": \"data: [DONE]", "\"response_\": \"data: [DONE]"));
    CHECK(e.field == "experiments[0].requests[0].response_outputs[2].response");
    CHECK(error_of("[]").reason == "a genai-perf profile export is a JSON object");
    CHECK(error_of(R"({"service_kind": "openai", "experiments": [{"experiment": {"mode": )"
                   R"("concurrency", "value": NaN}, "requests": []}]})")
              .reason == "not JSON");  // RFC 8259 has no NaN, and rapidjson writes none
    // A 100 MB response (a generated output) is refused at the bound, 16 MiB by default.
    e = error_of(genai_edited("\"payload\": \"{}\"",
                              "\"payload\": \"" + std::string(100'000'000, 'x') + "\""));
    CHECK(e.reason == "a string longer than max_string_bytes");
  }

  TEST_CASE("measurements: the format of a file, told from its content") {
    const std::string guidellm = guidellm_text("report_v2_layout.json");
    const std::string vllm =
        headroom::test::read_test_data("benchmarks/vllm/detailed_layout_009e6d4a.json");
    CHECK(m::detect_benchmark_format(guidellm) == m::benchmark_format::guidellm);
    CHECK(m::detect_benchmark_format(vllm) == m::benchmark_format::vllm_bench);
    CHECK(m::detect_benchmark_format(vllm + "\n" + vllm) == m::benchmark_format::vllm_bench);
    CHECK(m::read_benchmark_file(guidellm).runs.at(0).tool == "guidellm");
    CHECK(m::read_benchmark_file(vllm).runs.at(0).tool == "vllm bench serve");
    const std::string genai = genai_text("streaming_cases_layout.json");
    CHECK(m::detect_benchmark_format(genai) == m::benchmark_format::genai_perf);
    CHECK(m::read_benchmark_file(genai).runs.at(0).tool == "genai-perf");
    CHECK(m::to_string(m::benchmark_format::genai_perf) == "genai_perf");
    CHECK(m::to_string(m::benchmark_format::vllm_bench) == "vllm_bench");
    CHECK(m::to_string(m::benchmark_format::guidellm) == "guidellm");
    CHECK(m::to_string(m::load_pattern::closed_loop) == "closed_loop");
    // Neither: the vLLM reader says what is wrong.
    CHECK(m::read_benchmark_file("{}").error->field == "request_rate");
  }
}

// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/measurements.hpp: vLLM's benchmark results read into request outcomes.
// Files: tests/data/benchmarks (origins and licences in its README): a published request-rate
// sweep saved without --save-detailed, and a five-request file in --save-detailed's layout
// whose outcomes are computed by hand below. Hostile inputs each give one named error.
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
    const headroom::slo objective{.ttft = 400ms, .tpot = 80ms};
    const auto e = headroom::measure_conformance(r.requests, objective);
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
}

// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/prometheus/range.hpp: a deployment over a window from one range query's
// raw series. The answer is written here in the HTTP API's matrix encoding (values as strings,
// times in seconds): two vLLM replicas sampled at 0, 15 and 30 s, the second restarting
// between 15 and 30 s; every expected figure is summed by hand in the comments. The real
// Prometheus round trip is tests/integration (integration.deployment_window).
#include <headroom/prometheus/engines.hpp>
#include <headroom/prometheus/http_api.hpp>
#include <headroom/prometheus/range.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

namespace prom = headroom::prometheus;
using namespace std::chrono_literals;

// One series of a matrix answer: its labels ("name", "value" pairs) and values at 0, 15, 30 s
// after T = 1780000000 s.
std::string series(const std::string& name, const std::string& instance, const std::string& le,
                   const std::vector<double>& values) {
  std::string s = R"({"metric":{"__name__":")" + name + R"(","instance":")" + instance +
                  R"(","model_name":"m")";
  if (!le.empty()) s += R"(,"le":")" + le + '"';
  s += R"(},"values":[)";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ',';
    char v[64];
    std::snprintf(v, sizeof v, R"([%d,"%g"])", 1780000000 + 15 * static_cast<int>(i), values[i]);
    s += v;
  }
  return s + "]}";
}

std::string answer(const std::vector<std::string>& all) {
  std::string s = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  for (std::size_t i = 0; i < all.size(); ++i) s += (i > 0 ? "," : "") + all[i];
  return s + "]}}";
}

// Replica a counts on; replica b restarts between 15 and 30 s (its counters drop).
std::vector<std::string> two_replicas() {
  const std::string ttft = "vllm:time_to_first_token_seconds_bucket";
  const std::string tpot = "vllm:request_time_per_output_token_seconds_bucket";
  return {
      // TTFT buckets. a: +30, +50, +60, +70. b: 5→15→4: 10 + 4 = 14; 10→30→8: 28; 10→35→9:
      // 34; 12→40→10: 38. Sums: le 0.1: 44, 0.5: 78, 1: 94, +Inf: 108.
      series(ttft, "a", "0.1", {10, 20, 40}),
      series(ttft, "a", "0.5", {20, 40, 70}),
      series(ttft, "a", "1.0", {25, 50, 85}),
      series(ttft, "a", "+Inf", {30, 60, 100}),
      series(ttft, "b", "0.1", {5, 15, 4}),
      series(ttft, "b", "0.5", {10, 30, 8}),
      series(ttft, "b", "1.0", {10, 35, 9}),
      series(ttft, "b", "+Inf", {12, 40, 10}),
      // TPOT buckets. a: 45, 45, 69, 70; b: 8 + 3, 14 + 6, 24 + 9, 28 + 10. Sums: le 0.025:
      // 56, 0.05: 65, 0.1: 102, +Inf: 108.
      series(tpot, "a", "0.025", {10, 30, 55}),
      series(tpot, "a", "0.05", {20, 45, 65}),
      series(tpot, "a", "0.1", {28, 58, 97}),
      series(tpot, "a", "+Inf", {30, 60, 100}),
      series(tpot, "b", "0.025", {2, 10, 3}),
      series(tpot, "b", "0.05", {6, 20, 6}),
      series(tpot, "b", "0.1", {11, 35, 9}),
      series(tpot, "b", "+Inf", {12, 40, 10}),
      // Finished requests: a 70, b 28 + 10: 108.
      series("vllm:e2e_request_latency_seconds_count", "a", "", {30, 60, 100}),
      series("vllm:e2e_request_latency_seconds_count", "b", "", {12, 40, 10}),
      // Tokens: prompt a 7000, b 2800 + 1000: 10800, 100 a request; output a 14000, b 5600 +
      // 2000: 21600, 200 a request.
      series("vllm:prompt_tokens_total", "a", "", {3000, 6000, 10000}),
      series("vllm:prompt_tokens_total", "b", "", {1200, 4000, 1000}),
      series("vllm:generation_tokens_total", "a", "", {6000, 12000, 20000}),
      series("vllm:generation_tokens_total", "b", "", {2400, 8000, 2000}),
      // Gauges: running 5+3, 7+1, 9+2 = 8, 8, 11 (mean 9, max 11); waiting 0+1, 2+0, 4+0 =
      // 1, 2, 4 (mean 7/3, max 4).
      series("vllm:num_requests_running", "a", "", {5, 7, 9}),
      series("vllm:num_requests_running", "b", "", {3, 1, 2}),
      series("vllm:num_requests_waiting", "a", "", {0, 2, 4}),
      series("vllm:num_requests_waiting", "b", "", {1, 0, 0}),
  };
}

}  // namespace

TEST_SUITE("prometheus_range") {
  TEST_CASE("deployment_window: two replicas, one restarting, summed by hand") {
    const prom::api_response r = prom::parse_api_response(answer(two_replicas()));
    REQUIRE(r.ok());
    const prom::deployment_reading reading = prom::read_deployment_window(r, prom::vllm_preset);
    REQUIRE(reading.missing == prom::range_missing::none);
    const prom::deployment_window& w = *reading.window;
    CHECK(w.start == std::chrono::milliseconds(1780000000000));
    CHECK(w.end == std::chrono::milliseconds(1780000030000));
    CHECK(w.requests == 108.0);
    CHECK(*w.request_rate_per_second == doctest::Approx(108.0 / 30.0).epsilon(1e-15));
    CHECK(*w.prompt_tokens_per_request == doctest::Approx(100.0).epsilon(1e-15));
    CHECK(*w.output_tokens_per_request == doctest::Approx(200.0).epsilon(1e-15));
    CHECK(*w.running.mean == doctest::Approx(9.0).epsilon(1e-15));
    CHECK(*w.running.max == 11.0);
    CHECK(w.running.samples == 3);
    CHECK(*w.waiting.mean == doctest::Approx(7.0 / 3.0).epsilon(1e-15));
    CHECK(*w.waiting.max == 4.0);
    // b's 11 counters each dropped once (4 + 4 buckets, the count, two token counters).
    CHECK(w.counter_resets == 11);
    REQUIRE(w.ttft.size() == 4);
    CHECK(w.ttft[0].upper_bound == 0.1);
    CHECK(w.ttft[0].cumulative_count == 44.0);
    CHECK(w.ttft[1].cumulative_count == 78.0);
    CHECK(w.ttft[2].upper_bound == 1.0);
    CHECK(w.ttft[2].cumulative_count == 94.0);
    CHECK(std::isinf(w.ttft[3].upper_bound));
    CHECK(w.ttft[3].cumulative_count == 108.0);
    REQUIRE(w.tpot.size() == 4);
    CHECK(w.tpot[1].cumulative_count == 65.0);
    CHECK(w.e2e.empty());  // the answer holds the e2e count, not its buckets
  }

  TEST_CASE("window_conformance: edges, a bound between edges, and Fréchet's joint bounds") {
    const prom::deployment_window w =
        *prom::read_deployment_window(prom::parse_api_response(answer(two_replicas())),
                                      prom::vllm_preset)
             .window;
    // TTFT <= 0.5 s at an edge: 78/108 exactly; TPOT <= 0.05 s: 65/108. Jointly between
    // 78/108 + 65/108 − 1 = 35/108 and 65/108.
    auto b = prom::window_conformance(w, {.ttft = 500ms, .tpot = 50ms});
    CHECK(b.requests == 108.0);
    CHECK(b.lower == doctest::Approx(35.0 / 108.0).epsilon(1e-12));
    CHECK(b.upper == doctest::Approx(65.0 / 108.0).epsilon(1e-12));
    // TTFT <= 0.3 s falls between the edges 0.1 and 0.5: [44/108, 78/108]; TPOT <= 1 s is
    // above every finite edge (0.1: 102 of 108): [102/108, 1]. Jointly [38/108, 78/108].
    b = prom::window_conformance(w, {.ttft = 300ms, .tpot = 1s});
    CHECK(b.lower == doctest::Approx(38.0 / 108.0).epsilon(1e-12));
    CHECK(b.upper == doctest::Approx(78.0 / 108.0).epsilon(1e-12));
    // An end-to-end bound without its histogram, or a TPOT of another definition: unknown,
    // so the joint share is only bounded above.
    b = prom::window_conformance(w, {.ttft = 500ms, .tpot = 50ms, .e2e = 10s});
    CHECK(b.lower == 0.0);
    CHECK(b.upper == doctest::Approx(65.0 / 108.0).epsilon(1e-12));
    b = prom::window_conformance(
        w,
        {.ttft = 500ms, .tpot = 50ms, .tpot_kind = headroom::capacity::tpot_definition::guidellm});
    CHECK(b.lower == 0.0);
    CHECK(b.upper == doctest::Approx(78.0 / 108.0).epsilon(1e-12));
    CHECK(headroom::test::rejected([&] {
            (void)prom::window_conformance(w, {.ttft = 0s, .tpot = 50ms});
          }) == "slo.ttft");
  }

  TEST_CASE("window_conformance: the joint lower bound never exceeds the upper once rounded") {
    // Every TTFT within its bound (a = 1) and TPOT 21 of 38: Fréchet's bounds are both 21/38,
    // but 1 + 21/38 − 1 rounds above 21/38 in binary64.
    prom::deployment_window w;
    w.ttft = {{.upper_bound = 0.1, .cumulative_count = 38.0},
              {.upper_bound = std::numeric_limits<double>::infinity(), .cumulative_count = 38.0}};
    w.tpot = {{.upper_bound = 0.05, .cumulative_count = 21.0},
              {.upper_bound = std::numeric_limits<double>::infinity(), .cumulative_count = 38.0}};
    REQUIRE(1.0 + 21.0 / 38.0 - 1.0 > 21.0 / 38.0);  // the rounding the bound must absorb
    const auto b = prom::window_conformance(w, {.ttft = 500ms, .tpot = 50ms});
    CHECK(b.upper == 21.0 / 38.0);
    CHECK(b.lower == b.upper);
    CHECK(b.requests == 38.0);
  }

  TEST_CASE("deployment_window: answers that are not a window say why") {
    const auto missing = [](const std::string& json) {
      return prom::read_deployment_window(prom::parse_api_response(json), prom::vllm_preset)
          .missing;
    };
    CHECK(missing("{") == prom::range_missing::malformed);
    CHECK(missing(R"({"status":"error","errorType":"bad_data","error":"parse error"})") ==
          prom::range_missing::query_failed);
    CHECK(missing(R"({"status":"success","data":{"resultType":"vector","result":[]}})") ==
          prom::range_missing::not_a_matrix);
    // sum(rate(...)) drops __name__: the raw series are needed.
    CHECK(missing(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                  R"({"metric":{},"values":[[1780000000,"1"]]}]}})") ==
          prom::range_missing::not_raw);
    CHECK(missing(answer({})) == prom::range_missing::no_samples);
    CHECK(missing(answer({series("up", "a", "", {1, 1, 1})})) == prom::range_missing::no_samples);
    CHECK(prom::describe(prom::range_missing::not_raw).find("__name__") != std::string::npos);
  }

  TEST_CASE("deployment_query: one selector of the engine's raw series") {
    CHECK(prom::deployment_query(prom::vllm_preset, "m") ==
          "{__name__=~\"vllm:time_to_first_token_seconds_bucket|vllm:time_to_first_token_seconds_"
          "count|vllm:request_time_per_output_token_seconds_bucket|vllm:request_time_per_output_"
          "token_seconds_count|vllm:e2e_request_latency_seconds_bucket|vllm:e2e_request_latency_"
          "seconds_count|vllm:num_requests_running|vllm:num_requests_waiting|vllm:prompt_tokens_"
          "total|vllm:generation_tokens_total\",model_name=\"m\"}");
    // A model name's quote and backslash escaped for the PromQL string; no model: no matcher.
    CHECK(prom::deployment_query(prom::vllm_preset, "a\"b\\c")
              .ends_with(",model_name=\"a\\\"b\\\\c\"}"));
    CHECK(prom::deployment_query(prom::vllm_preset).ends_with("total\"}"));
  }
}

// SPDX-License-Identifier: Apache-2.0
// The error policy of traces.hpp (docs/errors.md): one TEST_CASE per row of its table.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <headroom/sim/requests.hpp>
#include <headroom/traces.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::traces;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  // Throws headroom::invalid_argument naming `source` whose what() starts with "file:line: ".
#define CHECK_REJECTS_LINE(expr, prefix)                                   \
  CHECK_THROWS_WITH_AS(static_cast<void>(expr), doctest::Contains(prefix), \
                       headroom::invalid_argument)

  TEST_CASE("errors: traces trace_file") {
    CHECK_REJECTS(trace_file("/nonexistent/headroom/trace.csv"), "path");
  }

  TEST_CASE("errors: traces options") {
    const auto read = [](const trace_options& options, trace_format format = trace_format::azure) {
      return summarize_trace(format, trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"),
                             options);
    };
    CHECK_REJECTS(read({.speed = not_a_number}), "options.speed");
    CHECK_REJECTS(read({.speed = inf}), "options.speed");
    CHECK_REJECTS(read({.speed = -1.0}), "options.speed");
    CHECK_REJECTS(read({.speed = 0.0}), "options.speed");
    CHECK_REJECTS(read({.from = nan_s}), "options.from");
    CHECK_REJECTS(read({.from = -1s}), "options.from");
    CHECK_REJECTS(read({.from = 5e9s}), "options.from");
    CHECK_REJECTS(read({.to = inf_s}), "options.to");
    CHECK_REJECTS(read({.from = 2s, .to = 1s}), "options.to");
    CHECK_REJECTS(read({.to = 0s}), "options.to");
    CHECK_REJECTS(read({.buffer_bytes = 63}), "options.buffer_bytes");
    CHECK_REJECTS(read({.model = "GPT-4"}), "options.model");
    CHECK_REJECTS(read({.log_type = "API log"}, trace_format::mooncake), "options.log_type");
    CHECK(read({}).requests == 0);  // a header alone: no request, no error
  }

  TEST_CASE("errors: traces rows") {
    const auto azure = [](const char* rows) {
      return summarize_trace(
          trace_format::azure,
          trace_text(std::string("TIMESTAMP,ContextTokens,GeneratedTokens\n") + rows),
          {.name = "a.csv"});
    };
    const auto burst = [](const char* rows) {
      return summarize_trace(
          trace_format::burstgpt,
          trace_text(std::string("Timestamp,Request tokens,Response tokens\n") + rows),
          {.name = "b.csv"});
    };
    const auto moon = [](const char* rows) {
      return summarize_trace(trace_format::mooncake, trace_text(rows), {.name = "m.jsonl"});
    };
    // NaN, ±Inf, negative, out of range.
    CHECK_REJECTS_LINE(burst("nan,1,1\n"), "b.csv:2: Timestamp is not finite");
    CHECK_REJECTS_LINE(burst("inf,1,1\n"), "b.csv:2: Timestamp is not finite");
    CHECK_REJECTS_LINE(burst("-1,1,1\n"), "b.csv:2: Timestamp is negative");
    CHECK_REJECTS_LINE(burst("5e9,1,1\n"), "b.csv:2: Timestamp is out of range");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": -5, \"input_length\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: timestamp is negative");
    CHECK_REJECTS_LINE(burst("1,-1,1\n"), "b.csv:2: Request tokens is not a token count");
    CHECK_REJECTS_LINE(burst("1,1,4294967296\n"), "b.csv:2: Response tokens is not a token count");
    CHECK_REJECTS_LINE(azure("1969-12-31 23:59:59,1,1\n"), "a.csv:2: TIMESTAMP has a year outside");
    CHECK_REJECTS_LINE(azure("2023-13-01 00:00:00,1,1\n"), "a.csv:2: TIMESTAMP has a month");
    CHECK_REJECTS_LINE(azure("2023-01-01 24:00:00,1,1\n"), "a.csv:2: TIMESTAMP has a time of day");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00.1234567890,1,1\n"),
                       "a.csv:2: TIMESTAMP has more than 9 fractional digits");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00+24:00,1,1\n"),
                       "a.csv:2: TIMESTAMP has an offset");
    // Shape: field counts, order, JSON.
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:00,1,1,1\n"), "a.csv:2: expected 3 comma-separated");
    CHECK_REJECTS_LINE(azure("2023-01-01 00:00:01,1,1\n2023-01-01 00:00:00,1,1\n"),
                       "a.csv:3: the time is earlier than the previous row's");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1, \"input_length\": 1}"),
                       "m.jsonl:1: the object has no \"output_length\"");
    CHECK_REJECTS_LINE(moon("{\"input_length\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: the object has no \"timestamp\"");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1, \"output_length\": 1}"),
                       "m.jsonl:1: the object has no \"input_length\"");
    CHECK_REJECTS_LINE(moon("{\"timestamp\" 1}"), "m.jsonl:1: expected ':' after a key");
    CHECK_REJECTS_LINE(moon("{timestamp: 1}"), "m.jsonl:1: expected a quoted key");
    CHECK_REJECTS_LINE(moon("{\"timestamp\": 1 \"input_length\": 1}"),
                       "m.jsonl:1: expected ',' or '}'");
    CHECK_REJECTS_LINE(moon("{\"a\\\"b\": 1}"),
                       "m.jsonl:1: a key in the JSON object is not a plain");
    // Empty: a CSV needs its header; blank lines are skipped; empty JSON lines are no request.
    CHECK_REJECTS_LINE(summarize_trace(trace_format::burstgpt, trace_text(""), {.name = "b.csv"}),
                       "b.csv:1: empty: expected a header");
    CHECK_REJECTS_LINE(
        summarize_trace(trace_format::burstgpt, trace_text("Timestamp,Model\n"), {.name = "b.csv"}),
        "b.csv:1: expected a header naming");
    CHECK_REJECTS_LINE(
        summarize_trace(trace_format::burstgpt, trace_text("Timestamp,Timestamp,Request tokens\n"),
                        {.name = "b.csv"}),
        "b.csv:1: a column is named twice");
    CHECK(azure("\n\n2023-01-01 00:00:00,1,1\n\n").requests == 1);
    CHECK(moon("").requests == 0);
    CHECK(moon("\n  \n").requests == 0);
    // Zero token counts are valid; BurstGPT's zero responses are failures.
    CHECK(azure("2023-01-01 00:00:00,0,0\n").requests == 1);
    const auto failed = burst("1,5,0\n2,5,1\n");
    CHECK(failed.requests == 1);
    CHECK(failed.failed == 1);
  }

  TEST_CASE("errors: traces read_trace_rates") {
    const char* header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, nan_s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, -1s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {}, 0s), "step");
    CHECK_REJECTS(read_trace_rates(trace_format::azure, trace_text(header), {.to = 1000h}, 1ms),
                  "step");
    CHECK(read_trace_rates(trace_format::azure, trace_text(header)).empty());
    CHECK(read_trace_rates(trace_format::azure, trace_text(header), {.to = 3min}).size() == 3);
  }

  TEST_CASE("errors: traces read_trace_requests and read_trace_lengths") {
    const char* text = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:00,0,0\n";
    const auto requests = read_trace_requests<sim::request>(trace_format::azure, trace_text(text));
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].prompt_tokens == 1);
    CHECK(requests[0].output_tokens == 1);
    const auto lengths =
        read_trace_lengths<sim::request_lengths>(trace_format::azure, trace_text(text));
    CHECK(lengths[0].prompt_tokens == 1);
    CHECK(read_trace_requests<sim::request>(trace_format::azure,
                                            trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"))
              .empty());
    CHECK_REJECTS_LINE(
        read_trace_lengths<sim::request_lengths>(
            trace_format::azure, trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\nx"),
            {.name = "a.csv"}),
        "a.csv:2: expected 3 comma-separated fields, found 1");
  }
}

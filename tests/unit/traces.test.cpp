// SPDX-License-Identifier: Apache-2.0
// The trace readers on the committed slices of the public traces (tests/data/traces/README.md).
// Every expected number was computed outside the library, by the one-off command quoted
// beside it, run in tests/data/traces/.
#include <headroom/sim/fleet_day.hpp>
#include <headroom/sim/replica.hpp>
#include <headroom/traces.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "test_data.hpp"

namespace {
using namespace std::chrono_literals;
using headroom::test::rejected;
using headroom::test::rejection_message;
using headroom::traces::trace_format;
using headroom::traces::trace_options;
using headroom::traces::trace_request;

std::string data(const char* file) {
  return headroom::test::test_data_path(std::string("traces/") + file);
}

std::string contents(const char* file) {
  return headroom::test::read_test_data(std::string("traces/") + file);
}

std::vector<trace_request> all(trace_format format, headroom::traces::trace_text text,
                               const trace_options& options = {}) {
  std::vector<trace_request> out;
  headroom::traces::read_trace(format, text, options,
                               [&](const trace_request& r) { out.push_back(r); });
  return out;
}

bool same(const std::vector<trace_request>& a, const std::vector<trace_request>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].arrival != b[i].arrival || a[i].prompt_tokens != b[i].prompt_tokens ||
        a[i].output_tokens != b[i].output_tokens)
      return false;
  return true;
}

// Requests per second in each minute from integer counts per minute.
std::vector<double> per_second(const std::vector<double>& counts, double step_s = 60.0) {
  std::vector<double> rates;
  for (const double c : counts) rates.push_back(c / step_s);
  return rates;
}

// Azure: counts, token sums and per-minute counts from the first row, by
//   tr -d '\r' < FILE | awk -F'[ :,]' 'NR>1{t=$2*3600+$3*60+$4; if(NR==2)t0=t;
//     m=int((t-t0)/60); c[m]++; if(m>x)x=m; p+=$5; o+=$6; n++}
//     END{print n,p,o; for(m=0;m<=x;m++)printf "%d ",c[m]; print ""}'
const std::vector<double> conv_minutes = {191, 265, 329, 353, 307, 273, 268, 261, 322,
                                          298, 301, 302, 345, 326, 283, 279, 280, 17};
const std::vector<double> code_minutes = {63,  0,  0,   531, 187, 130, 15,  42, 38,  476,
                                          421, 63, 0,   0,   632, 299, 0,   20, 396, 315,
                                          116, 78, 306, 447, 252, 34,  128, 11};
// Mooncake, by
//   python3 -c "import json;r=[json.loads(l) for l in open('mooncake_fast25_conversation.jsonl')]
//     c={}; [c.__setitem__(x['timestamp']//60000,c.get(x['timestamp']//60000,0)+1) for x in r]
//     print(len(r),sum(x['input_length'] for x in r),sum(x['output_length'] for x in r),
//     [c.get(m,0) for m in range(max(c)+1)])"
const std::vector<double> mooncake_minutes = {162, 177, 217, 175, 187, 164, 144, 183, 91};
}  // namespace

TEST_SUITE("traces") {
  TEST_CASE("traces: the Azure conversation slice") {
    const headroom::traces::trace_summary s = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")));
    // awk above: 5000 5805639 1287511.
    CHECK(s.rows == 5000);
    CHECK(s.requests == 5000);
    CHECK(s.lines == 5001);
    CHECK(s.prompt_tokens == 5805639);
    CHECK(s.output_tokens == 1287511);
    CHECK(s.mean_prompt_tokens() == doctest::Approx(1161.1278));
    CHECK(s.mean_output_tokens() == doctest::Approx(257.5022));
    // First row 18:15:46.6805900, last 18:32:50.0000000 (one hour's slice): 1023.316984 s.
    CHECK(s.first_arrival.count() == 0.0);
    CHECK(s.last_arrival.count() == 1023.316984);
    // (5000 − 1) / 1023.316984 s.
    REQUIRE(s.rate_per_second());
    CHECK(*s.rate_per_second() == doctest::Approx(4.8850943335853).epsilon(1e-12));
    CHECK_FALSE(s.reached_window_end);

    const std::vector<double> rates = headroom::traces::read_trace_rates(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")));
    CHECK(rates == per_second(conv_minutes));
  }

  TEST_CASE("traces: the Azure code slice has empty minutes") {
    headroom::traces::trace_file file(data("azure_llm_2023_code.csv"));
    const auto s = headroom::traces::summarize_trace(trace_format::azure, file);
    // awk above: 5000 10263587 137118; 18:17:03.9799600 to 18:44:14.8593320.
    CHECK(s.requests == 5000);
    CHECK(s.prompt_tokens == 10263587);
    CHECK(s.output_tokens == 137118);
    CHECK(s.mean_prompt_tokens() == doctest::Approx(2052.7174));
    CHECK(s.mean_output_tokens() == doctest::Approx(27.4236));
    CHECK(s.last_arrival.count() == 1630.879372);
    CHECK(headroom::traces::read_trace_rates(
              trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_code.csv"))) ==
          per_second(code_minutes));
  }

  TEST_CASE("traces: the Mooncake slice") {
    const auto s = headroom::traces::summarize_trace(
        trace_format::mooncake,
        headroom::traces::trace_file(data("mooncake_fast25_conversation.jsonl")));
    // python above: 1500 20981721 528172; timestamps 0 to 509999 ms.
    CHECK(s.requests == 1500);
    CHECK(s.lines == 1500);
    CHECK(s.prompt_tokens == 20981721);
    CHECK(s.output_tokens == 528172);
    CHECK(s.mean_prompt_tokens() == doctest::Approx(13987.814));
    CHECK(s.mean_output_tokens() == doctest::Approx(352.1146667));
    CHECK(s.last_arrival.count() == 509.999);
    CHECK(headroom::traces::read_trace_rates(
              trace_format::mooncake,
              headroom::traces::trace_file(data("mooncake_fast25_conversation.jsonl"))) ==
          per_second(mooncake_minutes));
    // The first line: {"timestamp": 0, "input_length": 6758, "output_length": 500, ...}.
    trace_request first;
    headroom::traces::read_trace(
        trace_format::mooncake,
        headroom::traces::trace_file(data("mooncake_fast25_conversation.jsonl")), {},
        [&](const trace_request& r) {
          first = r;
          return false;
        });
    CHECK(first.prompt_tokens == 6758);
    CHECK(first.output_tokens == 500);
  }

  TEST_CASE("traces: the BurstGPT slice and its failed request") {
    // python3 -c "import csv;b=list(csv.DictReader(open('burstgpt_1_first30.csv')))
    //   ok=[r for r in b if r['Response tokens']!='0']; print(len(b),len(ok),
    //   sum(int(r['Request tokens']) for r in ok),sum(int(r['Response tokens']) for r in ok))"
    // → 30 29 17722 10280. Row 21 (line 22) is "1106,ChatGPT,0,0,0": a failure.
    headroom::traces::trace_file file(data("burstgpt_1_first30.csv"));
    const auto s = headroom::traces::summarize_trace(trace_format::burstgpt, file);
    CHECK(s.rows == 30);
    CHECK(s.requests == 29);
    CHECK(s.failed == 1);
    CHECK(s.prompt_tokens == 17722);
    CHECK(s.output_tokens == 10280);
    CHECK(s.mean_prompt_tokens() == doctest::Approx(611.1034483));
    // Timestamps 5 s to 2293 s: the first row is the origin.
    CHECK(s.last_arrival.count() == 2288.0);

    const auto kept = headroom::traces::summarize_trace(
        trace_format::burstgpt, headroom::traces::trace_file(data("burstgpt_1_first30.csv")),
        {.failed = headroom::traces::failed_rows::keep});
    CHECK(kept.requests == 30);
    CHECK(kept.failed == 1);
    CHECK(kept.mean_output_tokens() == doctest::Approx(10280.0 / 30.0));

    // GPT-4 rows: timestamps 118 233 560 686 771 1611 2273; Request Σ 5514, Response Σ 1972.
    const auto gpt4 = headroom::traces::summarize_trace(
        trace_format::burstgpt, headroom::traces::trace_file(data("burstgpt_1_first30.csv")),
        {.model = "GPT-4"});
    CHECK(gpt4.requests == 7);
    CHECK(gpt4.filtered == 23);
    CHECK(gpt4.prompt_tokens == 5514);
    CHECK(gpt4.output_tokens == 1972);
    CHECK(gpt4.first_arrival.count() == 113.0);  // 118 − 5: the origin is the file's first row
    const auto api = headroom::traces::summarize_trace(
        trace_format::burstgpt, headroom::traces::trace_file(data("burstgpt_1_first30.csv")),
        {.log_type = "API log"});
    CHECK(api.requests == 0);
    CHECK(api.filtered == 30);
    CHECK_FALSE(api.rate_per_second());

    // Per minute from the first row (5 s): python's Counter of (t − 5) // 60 over the 29.
    const std::vector<double> minutes = {2, 1, 0, 3, 2, 0, 1, 0, 1, 1, 1, 1, 2, 1, 0, 0, 2, 2, 1, 0,
                                         0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1};
    CHECK(headroom::traces::read_trace_rates(
              trace_format::burstgpt,
              headroom::traces::trace_file(data("burstgpt_1_first30.csv"))) == per_second(minutes));
  }

  TEST_CASE("traces: a window keeps the rows in from to and starts at zero") {
    // python3 (datetime + integer ns) and awk: rows with 300 s <= t − t0 < 600 s of the
    // conversation slice: 1422 rows, Σ 1759634 / 379124 tokens, first at 0.163427 s and last at
    // 299.971336 s from the window's start; 191+265+329+353+307 = 1445 rows before it.
    const auto s = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.from = 5min, .to = 10min});
    CHECK(s.requests == 1422);
    CHECK(s.before_window == 1445);
    CHECK(s.rows == 1445 + 1422 + 1);  // the first row at or after `to` ends the read
    CHECK(s.reached_window_end);
    CHECK(s.prompt_tokens == 1759634);
    CHECK(s.output_tokens == 379124);
    CHECK(s.first_arrival.count() == doctest::Approx(0.163427).epsilon(1e-12));
    CHECK(s.last_arrival.count() == doctest::Approx(299.971336).epsilon(1e-12));
    // The window's rates cover it whole: five minutes.
    const auto rates = headroom::traces::read_trace_rates(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.from = 5min, .to = 10min});
    CHECK(rates == per_second({273, 268, 261, 322, 298}));
    // A window past the end: no request, but its steps are there, all zero.
    const auto late = headroom::traces::read_trace_rates(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.from = 2h, .to = 2h + 3min});
    CHECK(late == std::vector<double>{0.0, 0.0, 0.0});
  }

  TEST_CASE("traces: speed replays k times faster") {
    // At speed 2 a minute of replay holds two of the trace:
    //   awk as above with m=int((t-t0)/120) → 456 682 580 529 620 603 671 562 297.
    const auto fast = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.speed = 2.0});
    CHECK(fast.requests == 5000);
    CHECK(fast.last_arrival.count() == doctest::Approx(1023.316984 / 2).epsilon(1e-15));
    CHECK(*fast.rate_per_second() == doctest::Approx(2 * 4.8850943335853).epsilon(1e-12));
    CHECK(headroom::traces::read_trace_rates(
              trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
              {.speed = 2.0}) == per_second({456, 682, 580, 529, 620, 603, 671, 562, 297}));
    // The window is in trace time; the speed applies after it: (t − from) / speed.
    const auto both = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.speed = 0.5, .from = 5min, .to = 10min});
    CHECK(both.requests == 1422);
    CHECK(both.last_arrival.count() == doctest::Approx(2 * 299.971336).epsilon(1e-12));
  }

  TEST_CASE("traces: the trace's own zero") {
    // Azure: 00:00 of the first row's day; 18:15:46.6805900 is 65746.68059 s after it.
    const auto conv = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.origin = headroom::traces::trace_origin::trace_zero});
    CHECK(conv.first_arrival.count() == 65746.68059);
    // 18:20 to 18:25 of the day: awk (t of day in s) → 1197 before, 1441 rows, Σ 1758651 /
    // 398763 tokens, first 0.0961180 s and last 299.9106090 s into the window.
    const auto window = headroom::traces::summarize_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.from = 18h + 20min,
         .to = 18h + 25min,
         .origin = headroom::traces::trace_origin::trace_zero});
    CHECK(window.before_window == 1197);
    CHECK(window.requests == 1441);
    CHECK(window.prompt_tokens == 1758651);
    CHECK(window.output_tokens == 398763);
    CHECK(window.first_arrival.count() == doctest::Approx(0.096118).epsilon(1e-12));
    CHECK(window.last_arrival.count() == doctest::Approx(299.910609).epsilon(1e-12));
    // A day of the fleet: 1440 minutes, the trace's hour in minutes 1095 to 1112.
    const auto day = headroom::traces::read_trace_rates(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.to = 24h, .origin = headroom::traces::trace_origin::trace_zero});
    REQUIRE(day.size() == 1440);
    CHECK(day[1094] == 0.0);
    CHECK(day[1113] == 0.0);
    double total = 0.0;
    for (const double r : day) total += r * 60.0;
    CHECK(total == doctest::Approx(5000.0).epsilon(1e-12));
    // BurstGPT's zero is 0:00 of its first day: the first row arrives at 5 s.
    const auto burst = headroom::traces::summarize_trace(
        trace_format::burstgpt, headroom::traces::trace_file(data("burstgpt_1_first30.csv")),
        {.origin = headroom::traces::trace_origin::trace_zero});
    CHECK(burst.first_arrival.count() == 5.0);
    CHECK(burst.last_arrival.count() == 2293.0);
  }

  TEST_CASE("traces: CRLF and LF and a missing final newline read the same") {
    const std::string crlf = contents("azure_llm_2023_conv.csv");
    REQUIRE(crlf.find("\r\n") != std::string::npos);  // as the source file
    std::string lf;
    for (const char c : crlf)
      if (c != '\r') lf += c;
    const auto a = all(trace_format::azure, headroom::traces::trace_text(crlf));
    const auto b = all(trace_format::azure, headroom::traces::trace_text(lf));
    const auto c = all(trace_format::azure,
                       headroom::traces::trace_text(std::string_view(lf).substr(0, lf.size() - 1)));
    CHECK(a.size() == 5000);
    CHECK(same(a, b));
    CHECK(same(a, c));
    // A UTF-8 byte-order mark before the header is skipped.
    const auto d = all(trace_format::azure, headroom::traces::trace_text("\xEF\xBB\xBF" + lf));
    CHECK(same(a, d));
  }

  TEST_CASE("traces: streams and chunked sources read the same as a file") {
    const std::string text = contents("mooncake_fast25_conversation.jsonl");
    const auto from_text = all(trace_format::mooncake, headroom::traces::trace_text(text));
    std::istringstream in(text);
    std::vector<trace_request> from_stream;
    headroom::traces::read_trace(trace_format::mooncake, in, {},
                                 [&](const trace_request& r) { from_stream.push_back(r); });
    CHECK(from_text.size() == 1500);
    CHECK(same(from_text, from_stream));
    // Seven bytes at a time through a 2048-byte buffer (the longest line is 1765 bytes):
    // lines split across reads are put back together.
    std::size_t at = 0;
    auto trickle = [&](char* buffer, std::size_t capacity) {
      const std::size_t n = std::min({capacity, std::size_t{7}, text.size() - at});
      std::copy_n(text.data() + at, n, buffer);
      at += n;
      return n;
    };
    std::vector<trace_request> trickled;
    headroom::traces::read_trace(trace_format::mooncake, trickle, {.buffer_bytes = 2048},
                                 [&](const trace_request& r) { trickled.push_back(r); });
    CHECK(same(from_text, trickled));
    // The pull reader yields the same.
    headroom::traces::trace_reader reader(trace_format::mooncake,
                                          headroom::traces::trace_text(text));
    trace_request r;
    std::size_t n = 0;
    bool equal = true;
    while (reader.next(r)) equal = equal && r.prompt_tokens == from_text[n++].prompt_tokens;
    CHECK(n == 1500);
    CHECK(equal);
    CHECK(reader.bytes() == text.size());
    CHECK(reader.summary().requests == 1500);
  }

  TEST_CASE("traces: Azure timestamps with a T and an offset") {
    // ISO 8601 forms: 'T', 'Z', ±HH:MM (UTC = local − offset), 1 to 9 fractional digits.
    const auto r = all(trace_format::azure,
                       headroom::traces::trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                    "2024-05-10 00:00:00.009930+00:00,10,1\n"
                                                    "2024-05-10T00:00:01Z,20,2\n"
                                                    "2024-05-10 02:00:01.5+02:00,30,3\n"
                                                    "2024-05-09 23:00:02.123456789-01:00,40,4\n"));
    REQUIRE(r.size() == 4);
    CHECK(r[1].arrival.count() == doctest::Approx(1.0 - 0.00993).epsilon(1e-15));
    CHECK(r[2].arrival.count() == doctest::Approx(1.5 - 0.00993).epsilon(1e-15));
    CHECK(r[3].arrival.count() == doctest::Approx(2.123456789 - 0.00993).epsilon(1e-15));
    // Leap day, and the day after the last of February in a common year.
    const auto leap = all(trace_format::azure,
                          headroom::traces::trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                       "2024-02-28 23:59:59,1,1\n"
                                                       "2024-02-29 00:00:00,1,1\n"
                                                       "2024-03-01 00:00:00,1,1\n"));
    CHECK(leap[1].arrival.count() == 1.0);
    CHECK(leap[2].arrival.count() == 86401.0);
  }

  TEST_CASE("traces: decimal seconds and milliseconds") {
    // BurstGPT's and Mooncake's times may be decimals (read by detail::from_chars_double):
    // 0.5 s → 1.75 s is 1.25 s; 2.25 ms → 1002.25 ms is 1 s; 1e3 s is 1000 s.
    const auto burst = all(trace_format::burstgpt,
                           headroom::traces::trace_text("Timestamp,Request tokens,Response tokens\n"
                                                        "0.5,1,1\n1.75,1,1\n1e3,1,1\n"));
    REQUIRE(burst.size() == 3);
    CHECK(burst[1].arrival.count() == 1.25);
    CHECK(burst[2].arrival.count() == 999.5);
    const auto moon = all(trace_format::mooncake,
                          headroom::traces::trace_text(
                              "{\"timestamp\": 2.25, \"input_length\": 1, \"output_length\": 1}\n"
                              "{\"output_length\": 1, \"timestamp\": 1002.25, \"input_length\": 1, "
                              "\"extra\": {\"a\": [1, \"]\"]}}\n"));
    REQUIRE(moon.size() == 2);
    CHECK(moon[1].arrival.count() == 1.0);
  }

  TEST_CASE("traces: the replica simulator and the fleet day take the output") {
    namespace sim = headroom::sim;
    // The first minute of the conversation slice: awk (t − t0 < 60) → 191 requests,
    // Σ prompt 171999, Σ output 44229.
    const auto requests = headroom::traces::read_trace_requests<sim::request>(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.to = 1min});
    REQUIRE(requests.size() == 191);
    CHECK(requests.front().prompt_tokens == 374);  // the first row: ...46.6805900,374,44
    CHECK(requests.front().output_tokens == 44);
    const auto run = sim::simulate(sim::replica_config{}, std::span<const sim::request>(requests),
                                   sim::constant_step_time{20ms});
    CHECK(run.stats.finished == 191);
    // Every prompt token is prefilled once (nothing is preempted when admission reserves the
    // whole sequence); the first output token comes with the prefill, the rest one per step.
    CHECK(run.stats.prefill_tokens == 171999);
    CHECK(run.stats.decode_tokens == 44229 - 191);

    // The lengths, cycled by replayed_lengths.
    const auto lengths = headroom::traces::read_trace_lengths<sim::request_lengths>(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")),
        {.to = 1min});
    REQUIRE(lengths.size() == 191);
    sim::replayed_lengths replay{std::span<const sim::request_lengths>(lengths)};
    std::mt19937_64 engine(1);
    CHECK(replay(engine).prompt_tokens == 374);

    // The fleet day: a fixed fleet with room for everything serves every request of the slice.
    const auto traffic = headroom::traces::read_trace_rates(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_conv.csv")));
    sim::fleet_day_simulator day({.capacity_per_replica = 8.0});
    const auto summary = day.run(traffic, sim::fixed_fleet(2));  // 16 req/s > 353/60
    CHECK(summary.requests_served == doctest::Approx(5000.0).epsilon(1e-12));
    CHECK(summary.short_steps == 0);
  }

  TEST_CASE("traces: zero-token rows become one token for the simulator") {
    const char* text =
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:00:00.0,0,5\n"
        "2023-11-16 18:00:01.0,7,0\n";
    const auto raw = all(trace_format::azure, headroom::traces::trace_text(text));
    CHECK(raw[0].prompt_tokens == 0);
    CHECK(raw[1].output_tokens == 0);
    const auto requests = headroom::traces::read_trace_requests<headroom::sim::request>(
        trace_format::azure, headroom::traces::trace_text(text));
    CHECK(requests[0].prompt_tokens == 1);
    CHECK(requests[1].output_tokens == 1);
  }

  TEST_CASE("traces: a visitor returning false stops the read") {
    std::size_t seen = 0;
    const auto s = headroom::traces::read_trace(
        trace_format::azure, headroom::traces::trace_file(data("azure_llm_2023_code.csv")), {},
        [&](const trace_request&) { return ++seen < 10; });
    CHECK(seen == 10);
    CHECK(s.requests == 10);
  }

  TEST_CASE("traces: a bad line is reported as file and line and reason") {
    const auto message = [](trace_format format, const char* text,
                            const trace_options& options = {.name = "t.csv"}) {
      return rejection_message([&] {
        static_cast<void>(
            headroom::traces::summarize_trace(format, headroom::traces::trace_text(text), options));
      });
    };
    const char* header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
    // Azure.
    CHECK(
        message(trace_format::azure, (std::string(header) + "2023-11-16 18:15:46.6805900,374,44\r\n"
                                                            "2023-11-16 18:15:47.0,abc,44\r\n")
                                         .c_str()) ==
        "t.csv:3: ContextTokens is not a token count (an integer 0 to 2^32 - 1): \"abc\"");
    CHECK(
        message(trace_format::azure, (std::string(header) + "2023-11-16 18:15:47.0,1\n").c_str()) ==
        "t.csv:2: expected 3 comma-separated fields, found 2: \"2023-11-16 18:15:47.0,1\"");
    CHECK(message(trace_format::azure, (std::string(header) + "2023-11-16,1,1\n").c_str()) ==
          "t.csv:2: TIMESTAMP is not a date-time YYYY-MM-DD HH:MM:SS[.fffffff]: \"2023-11-16\"");
    CHECK(
        message(trace_format::azure, (std::string(header) + "2023-02-29 00:00:00,1,1\n").c_str()) ==
        "t.csv:2: TIMESTAMP has a day outside its month: \"2023-02-29 00:00:00\"");
    CHECK(message(trace_format::azure, (std::string(header) + "2023-11-16 18:00:01,1,1\n\n"
                                                              "2023-11-16 18:00:00.5,1,1\n")
                                           .c_str()) ==
          "t.csv:4: the time is earlier than the previous row's: \"2023-11-16 18:00:00.5\"");
    CHECK(
        message(trace_format::azure,
                (std::string(header) + "2023-11-16 18:00:01,1,5000000000\n").c_str()) ==
        "t.csv:2: GeneratedTokens is not a token count (an integer 0 to 2^32 - 1): \"5000000000\"");
    CHECK(message(trace_format::azure, "Timestamp,Model,Request tokens\n5,ChatGPT,1\n") ==
          "t.csv:1: expected the header TIMESTAMP,ContextTokens,GeneratedTokens: "
          "\"Timestamp,Model,Request tokens\"");
    CHECK(message(trace_format::azure, "\r\n\r\n") ==
          "t.csv:2: empty: expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
    // BurstGPT.
    const char* burst_header =
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
    CHECK(message(trace_format::burstgpt,
                  (std::string(burst_header) + "5,ChatGPT,472,18,490,Conversation log\n"
                                               "-3,ChatGPT,1,1,2,API log\n")
                      .c_str()) == "t.csv:3: Timestamp is negative: \"-3\"");
    CHECK(message(trace_format::burstgpt,
                  (std::string(burst_header) + "5,ChatGPT,472,18\n").c_str()) ==
          "t.csv:2: expected 6 comma-separated fields, found 4: \"5,ChatGPT,472,18\"");
    CHECK(message(trace_format::burstgpt, "Timestamp,Model,Request tokens\n") ==
          "t.csv:1: expected a header naming Timestamp, Request tokens and Response tokens: "
          "\"Timestamp,Model,Request tokens\"");
    CHECK(message(trace_format::burstgpt, "Timestamp,Request tokens,Response tokens\n1,2,3\n",
                  {.model = "GPT-4", .name = "t.csv"}) ==
          "t.csv:1: options.model is set but no column is named Model: "
          "\"Timestamp,Request tokens,Response tokens\"");
    // Mooncake.
    CHECK(message(trace_format::mooncake,
                  "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 2}\n"
                  "{\"timestamp\": 3, \"input_length\": 4}\n") ==
          "t.csv:2: the object has no \"output_length\": "
          "\"{\"timestamp\": 3, \"input_length\": 4}\"");
    CHECK(message(trace_format::mooncake, "[1, 2]\n") == "t.csv:1: not a JSON object: \"[1, 2]\"");
    CHECK(message(
              trace_format::mooncake,
              "{\"timestamp\": 0, \"timestamp\": 1, \"input_length\": 1, \"output_length\": 2}") ==
          "t.csv:1: a key appears twice: "
          "\"{\"timestamp\": 0, \"timestamp\": 1, \"input_length\": 1, "
          "\"output_length\": 2}\"");
    CHECK(message(trace_format::mooncake,
                  "{\"timestamp\": 1.5, \"input_length\": 1, \"output_length\": 2} x") ==
          "t.csv:1: text after the JSON object: "
          "\"{\"timestamp\": 1.5, \"input_length\": 1, \"output_length\": 2} x\"");
    CHECK(message(trace_format::mooncake,
                  "{\"timestamp\": \"soon\", \"input_length\": 1, \"output_length\": 2}") ==
          "t.csv:1: timestamp is not a number: \"\"soon\"\"");
    CHECK(
        message(
            trace_format::mooncake,
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 2, \"hash_ids\": [1, 2}") ==
        "t.csv:1: a value is not JSON: "
        "\"{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 2, "
        "\"hash_ids\": [1, 2}\"");
    // A line longer than the buffer; the name defaults to "trace".
    CHECK(message(trace_format::mooncake, std::string(100, ' ').c_str(), {.buffer_bytes = 64}) ==
          "trace:1: the line is longer than the 64-byte buffer (trace_options::buffer_bytes)");
    // An arrival past 2^24 steps of the rates' step (0 s and 2·10^9 s, 1 s steps).
    CHECK(rejection_message([] {
            static_cast<void>(headroom::traces::read_trace_rates(
                trace_format::burstgpt,
                headroom::traces::trace_text("Timestamp,Request tokens,Response tokens\n0,1,1\n"
                                             "2000000000,1,1\n"),
                {}, 1s));
          }) == "trace:3: the arrival lies more than 2^24 steps of `step` from the start");
    // A source that fails (failed() true when it returns 0) and one that overfills its buffer.
    struct failing {
      std::size_t operator()(char*, std::size_t) const noexcept { return 0; }
      bool failed() const noexcept { return true; }
    };
    CHECK(rejection_message([] {
            static_cast<void>(headroom::traces::summarize_trace(trace_format::mooncake, failing{}));
          }) == "trace:1: read error");
    CHECK(rejected([] {
            static_cast<void>(headroom::traces::summarize_trace(
                trace_format::mooncake,
                [](char*, std::size_t capacity) noexcept { return capacity + 1; }));
          }) == "source");
    // All of them name the parameter `source`.
    CHECK(rejected([] {
            static_cast<void>(headroom::traces::summarize_trace(
                trace_format::mooncake, headroom::traces::trace_text("{}")));
          }) == "source");
    // A file's errors carry its path.
    const std::string path = data("burstgpt_1_first30.csv");
    CHECK(rejection_message([&] {
            static_cast<void>(headroom::traces::summarize_trace(
                trace_format::azure, headroom::traces::trace_file(path)));
          }) == path +
                    ":1: expected the header TIMESTAMP,ContextTokens,GeneratedTokens: "
                    "\"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\"");
  }

  TEST_CASE("traces: bad options and a missing file") {
    const auto reads = [](const trace_options& options) {
      return [options] {
        static_cast<void>(headroom::traces::summarize_trace(
            trace_format::azure,
            headroom::traces::trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"), options));
      };
    };
    CHECK(rejected(reads({.speed = 0.0})) == "options.speed");
    CHECK(rejected(reads({.speed = -1.0})) == "options.speed");
    CHECK(rejected(reads({.from = -1s})) == "options.from");
    CHECK(rejected(reads({.from = 10s, .to = 10s})) == "options.to");
    CHECK(rejected(reads({.model = "GPT-4"})) == "options.model");
    CHECK(rejected(reads({.log_type = "API log"})) == "options.log_type");
    CHECK(rejected(reads({.buffer_bytes = 10})) == "options.buffer_bytes");
    CHECK(rejected([] {
            static_cast<void>(headroom::traces::read_trace_rates(
                trace_format::azure,
                headroom::traces::trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"), {}, 0s));
          }) == "step");
    CHECK(rejected([] {
            static_cast<void>(headroom::traces::read_trace_rates(
                trace_format::azure,
                headroom::traces::trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"),
                {.to = 24h * 365}, 1ms));
          }) == "step");
    const std::string missing = data("no_such_trace.csv");
    CHECK(rejected([&] { headroom::traces::trace_file file(missing); }) == "path");
    CHECK(rejection_message([&] { headroom::traces::trace_file file(missing); }) ==
          "path = \"" + missing + "\": cannot be opened for reading: No such file or directory");
  }
}

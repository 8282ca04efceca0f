// SPDX-License-Identifier: Apache-2.0
// examples/measure_endpoint against a real server with a known answer: a local engine on
// 127.0.0.1 (fake_engine.hpp) that serves in wall time as an M/M/c or M/D/1 queue, so μ* for
// a TTFT bound follows from the library's closed forms (mmc_queue, md1_queue); the example,
// a separate process talking over real sockets, must bracket it. Then the engine misbehaves
// (stalls, closes early, malformed events, a 10 MB line, 429, 500) and each failure must be
// counted as its kind, within the request timeout; and a schedule the client cannot keep
// must be reported invalid.
#include <headroom/capacity.hpp>
#include <headroom/measurements/vllm_bench.hpp>
#include <headroom/queueing.hpp>

#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "integration/fake_engine.hpp"

#ifndef HEADROOM_MEASURE_ENDPOINT
#error "HEADROOM_MEASURE_ENDPOINT must name the measure_endpoint example's path"
#endif

extern char** environ;

namespace {

using headroom::test::fake_engine;
using headroom::test::misbehaviour;
using headroom::test::service_law;

struct ran {
  int status = -1;
  std::string out, err;
  double seconds = 0.0;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the example with `args`, its stdout and stderr to files; waits for it.
ran run_example(const std::vector<std::string>& args) {
  static int serial = 0;
  const std::string base = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/headroom-endpoint-" + std::to_string(::getpid()) + "-" +
                           std::to_string(serial++);
  const std::string out_path = base + ".out", err_path = base + ".err";
  std::vector<std::string> all{HEADROOM_MEASURE_ENDPOINT};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  ran r;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}

std::string url_of(const fake_engine& e) {
  return "http://127.0.0.1:" + std::to_string(e.port()) + "/v1/completions";
}

// Runs a search; up to three times more while its run is invalid (exit 3: a client behind its
// schedule on a busy machine measures the machine, not the method; with two other processes
// spinning on this 2-core machine, two invalid searches in a row were seen). The searches
// below allow a p99 lag of 10 ms instead of 5: their SLOs are at the 0.9 quantile, and on a
// busy machine the lag stays small for most sends (p50 0.13-0.14 ms in the runs seen), its
// tail in the slowest few per cent, which moves a 0.9 quantile little.
ran run_search(const std::vector<std::string>& args) {
  ran r = run_example(args);
  for (int retry = 0; retry < 3 && r.status == 3; ++retry) {
    MESSAGE("an invalid run (the machine was busy); the search runs once more:\n" << r.out);
    r = run_example(args);
  }
  return r;
}

// The bracket the example printed: "mu* in [a, b) req/s".
std::pair<double, double> bracket_of(const std::string& out) {
  const std::regex pattern(R"(mu\* in \[([0-9.]+), ([0-9.inf]+)\) req/s)");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(out, m, pattern), out);
  return {std::stod(m[1].str()), m[2].str() == "inf" ? INFINITY : std::stod(m[2].str())};
}

// The fixed path every request takes besides the queue (connect, the request, the first
// event): the median TTFT from the intended send at 20 req/s, where nothing waits (a slot is
// busy 3 % of the time at most), read back from the run's vLLM-layout JSON.
double zero_load_path_seconds(const fake_engine& e, const std::string& json_path) {
  const ran r = run_example({"--url", url_of(e), "--model", "m", "--rate", "20", "--requests", "30",
                             "--output-tokens", "2", "--save-result", json_path});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto file = headroom::measurements::read_vllm_bench(slurp(json_path));
  REQUIRE_MESSAGE(file.ok(), file.error->message());
  REQUIRE(file.runs.size() == 1);
  std::vector<double> ttft;
  for (const auto& o : file.runs[0].requests) {
    REQUIRE_FALSE(o.error);
    ttft.push_back(headroom::capacity::time_to_first_token(o).count());
  }
  std::sort(ttft.begin(), ttft.end());
  std::remove(json_path.c_str());
  return ttft[ttft.size() / 2];
}

// The largest λ in (0, bound) with conformance(λ) >= q, by bisection (conformance falls with λ).
template <class F>
double solve_capacity(F conformance, double q, double bound) {
  double lo = 0.0, hi = bound;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (conformance(mid) >= q ? lo : hi) = mid;
  }
  return lo;
}

// What differs between the two searches; both hold the SLO at the 0.9 quantile with 99 %
// intervals (TPOT unbounded), stop at a bracket 10 % wide, and ask for 4 tokens a request.
struct search_case {
  const char* law;           // the engine's queue, for the message
  const char* low;           // --low, req/s
  const char* high;          // --high, req/s
  const char* requests;      // --requests, a run
  const char* ttft_seconds;  // --ttft
  const char* max_runs;      // --max-runs
};

// The search ran, its bracket holds `truth`, is a passing and a failing rate within a factor
// of two, and took under a minute. The bracket must hold the truth on every search; its width
// and time depend on how quiet the machine was, so a search that misses only those is run
// once more. A disturbed first probe (an M/D/1 search in CI: 400 req/s undecided over two
// runs, its first run's p99 TTFT 10 ms where a quiet run has 7) sends the bisection below
// it, and seven runs then end at [300, 700): correct, but 2.3 times wide.
void search_bracketed(const fake_engine& engine, double truth, const search_case& c) {
  // clang-format off
  const std::vector<std::string> args{
      "--url", url_of(engine), "--model", "m", "--search", "--low", c.low, "--high", c.high,
      "--requests", c.requests, "--ttft", c.ttft_seconds, "--tpot", "3600", "--quantile", "0.9",
      "--confidence", "0.99", "--tolerance", "0.1", "--max-runs", c.max_runs,
      "--output-tokens", "4", "--max-lag-ms", "10"};
  // clang-format on
  for (int attempt = 1;; ++attempt) {
    const ran r = run_search(args);
    INFO(r.out, r.err);
    REQUIRE(r.status == 0);
    const auto [low, high] = bracket_of(r.out);
    MESSAGE(c.law << ": truth " << truth << " req/s, bracket [" << low << ", " << high << ") in "
                  << r.seconds << " s (search " << attempt << ")");
    REQUIRE(low <= truth);
    REQUIRE(truth < high);
    const bool narrow = high <= 2.0 * low, quick = r.seconds < 60.0;
    if ((narrow && quick) || attempt == 2) {
      CHECK(narrow);
      CHECK(quick);
      return;
    }
  }
}

}  // namespace

TEST_SUITE("integration/endpoint") {
  TEST_CASE("endpoint: mu* of an M/M/8 engine, bracketed over real sockets") {
    // Eight slots, exponential service of mean 8 ms (μ = 125/s each); SLO: TTFT <= 16 ms for
    // 90 % of requests. The wait is M/M/8's: P(W_q <= t) = 1 − C(8, λ/μ)·e^{−(8μ − λ)t}, with t
    // the bound less the fixed path measured at zero load: about 880 req/s, where the curve
    // is steep (0.98 at 0.9·μ*, 0.45 at 1.1·μ*).
    fake_engine engine({.slots = 8,
                        .law = service_law::exponential,
                        .mean_service_seconds = 0.008,
                        .token_interval_seconds = 0.002,
                        .seed = 7});
    const double path = zero_load_path_seconds(engine, "/tmp/headroom-endpoint-mm8.json");
    CHECK(path < 0.004);
    const double t = 0.016 - path;
    const double truth = solve_capacity(
        [&](double lambda) {
          return headroom::queueing::mmc_queue{
              .arrival_rate_per_second = lambda, .service_rate_per_second = 125.0, .servers = 8}
              .wait_conformance(std::chrono::duration<double>(t));
        },
        0.9, 1000.0);
    CHECK(truth > 800.0);
    CHECK(truth < 890.0);
    // Ten runs at most. With eight, a quiet search ended at [725, 1100) in 29 s, but one whose
    // first probe the machine disturbed (600 req/s undecided twice, its p99 TTFT 19 ms where
    // a quiet run has 6 ms) went down to 300 and ran out at [450, 975). The two more runs let
    // it probe between those; a quiet search now ends at [725, 1037.5) in 36-37 s.
    search_bracketed(engine, truth,
                     {.law = "M/M/8",
                      .low = "600",
                      .high = "1100",
                      .requests = "3000",
                      .ttft_seconds = "0.016",
                      .max_runs = "10"});
  }

  TEST_CASE("endpoint: mu* of an M/D/1 engine, bracketed over real sockets") {
    // One slot, constant service of 1.5 ms (μ = 666.7/s); SLO: TTFT <= 8.5 ms for 90 %. The
    // wait is M/D/1's, Erlang's formula (md1_queue::wait_conformance) at the bound less the
    // fixed path: about 540 req/s (0.97 at 0.9·μ*, 0.70 at 1.1·μ*).
    fake_engine engine({.slots = 1,
                        .law = service_law::deterministic,
                        .mean_service_seconds = 0.0015,
                        .token_interval_seconds = 0.0005,
                        .seed = 11});
    const double path = zero_load_path_seconds(engine, "/tmp/headroom-endpoint-md1.json");
    CHECK(path < 0.004);
    const double t = 0.0085 - path;
    const double truth = solve_capacity(
        [&](double lambda) {
          return headroom::queueing::md1_queue{.arrival_rate_per_second = lambda,
                                               .service_rate_per_second = 1.0 / 0.0015}
              .wait_conformance(std::chrono::duration<double>(t));
        },
        0.9, 1.0 / 0.0015);
    CHECK(truth > 450.0);
    CHECK(truth < 550.0);
    search_bracketed(engine, truth,
                     {.law = "M/D/1",
                      .low = "400",
                      .high = "700",
                      .requests = "2500",
                      .ttft_seconds = "0.0085",
                      .max_runs = "7"});
  }

  TEST_CASE("endpoint: the saved run reads back, as vLLM's, to the same conformance") {
    fake_engine engine({.slots = 2,
                        .law = service_law::exponential,
                        .mean_service_seconds = 0.005,
                        .token_interval_seconds = 0.001,
                        .seed = 3});
    const std::string json = "/tmp/headroom-endpoint-saved.json";
    const ran r =
        run_example({"--url", url_of(engine), "--model", "m", "--rate", "200", "--requests", "400",
                     "--ttft", "0.01", "--tpot", "0.002", "--max-lag-ms", "100", "--output-tokens",
                     "6", "--save-result", json});
    INFO(r.out, r.err);
    REQUIRE(r.status == 0);
    const auto file = headroom::measurements::read_vllm_bench(slurp(json));
    REQUIRE_MESSAGE(file.ok(), file.error->message());
    REQUIRE(file.runs.size() == 1);
    const auto& run = file.runs[0];
    CHECK(run.tool == "vllm bench serve");
    CHECK(run.load.request_rate_per_second == 200.0);
    CHECK(run.intended_times_known);
    CHECK(run.requests.size() == 400);
    // The window, SLO and z the example used: 10 % warm-up and cool-down of the intended span,
    // and for its default --confidence 0.95 the normal quantile itself, not the library's
    // default 1.96 (with the engine's fixed seed a bound of 0.5425 recurs, and 1.96 printed it
    // 0.542 where the example printed 0.543).
    double span = 0.0;
    for (const auto& o : run.requests) span = std::max(span, o.intended_arrival.count());
    const auto c = headroom::capacity::measure_conformance(
        run.requests, {.ttft = std::chrono::milliseconds(10), .tpot = std::chrono::milliseconds(2)},
        {.warm_up = std::chrono::duration<double>(0.1 * span),
         .cool_down = std::chrono::duration<double>(0.1 * span)},
        1.959963984540054);
    char printed[64];
    std::snprintf(printed, sizeof printed, "conformance %.3f [%.3f, %.3f] over %zu", c.share,
                  c.lower, c.upper, c.n);
    CHECK_MESSAGE(r.out.find(printed) != std::string::npos, printed);
    std::remove(json.c_str());
  }

  TEST_CASE("endpoint: the chat API, a trace's schedule, a prompt file, the curve's files") {
    fake_engine engine({.slots = 4,
                        .law = service_law::deterministic,
                        .mean_service_seconds = 0.004,
                        .token_interval_seconds = 0.001,
                        .seed = 5});
    const std::string chat =
        "http://127.0.0.1:" + std::to_string(engine.port()) + "/v1/chat/completions";
    // Chat: the first event carries only the role; four tokens follow (at 0, 1, 2 and 3 ms of
    // the 4 ms service), and the usage chunk says 4.
    const std::string json = "/tmp/headroom-endpoint-chat.json";
    const std::string prompt = "/tmp/headroom-endpoint-prompt.txt";
    std::ofstream(prompt) << "Say something long.\n";
    const ran r =
        run_example({"--url", chat, "--model", "m", "--rate", "50", "--requests", "20",
                     "--prompt-file", prompt, "--max-lag-ms", "100", "--save-result", json});
    INFO(r.out, r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("failures: none") != std::string::npos);
    const auto file = headroom::measurements::read_vllm_bench(slurp(json));
    REQUIRE(file.ok());
    for (const auto& o : file.runs.at(0).requests) {
      CHECK_FALSE(o.error);
      CHECK(o.output_tokens == 4);
    }
    CHECK(slurp(json).find("\"backend\": \"openai-chat\"") != std::string::npos);
    // A public trace's arrivals, scaled to 100 req/s, its lengths asked for; the curve as CSV
    // and SVG.
    const std::string csv = "/tmp/headroom-endpoint-curve.csv",
                      svg = "/tmp/headroom-endpoint-curve.svg";
    const ran t = run_example(
        {"--url", url_of(engine), "--model", "m", "--rate", "100", "--requests", "200", "--trace",
         "azure-conv", std::string(HEADROOM_TEST_DATA_DIR) + "/traces/azure_llm_2023_conv.csv",
         "--csv", csv, "--svg", svg, "--max-lag-ms", "100"});
    INFO(t.out, t.err);
    REQUIRE(t.status == 0);
    CHECK(t.out.find("rate  100.000 req/s: 200 requests") != std::string::npos);
    CHECK(slurp(csv).rfind("rate_per_second,conformance,lower,upper,n,requests,failed,", 0) == 0);
    CHECK(slurp(svg).find("</svg>") != std::string::npos);
    for (const auto& path : {json, prompt, csv, svg}) std::remove(path.c_str());
  }

  TEST_CASE("endpoint: a misbehaving engine's failures are counted by kind, never hung on") {
    struct expected {
      misbehaviour mode;
      const char* counted;
    };
    for (const expected e : {expected{misbehaviour::stall, "failures: 6 timeout"},
                             expected{misbehaviour::close_early, "failures: 6 broken_stream"},
                             expected{misbehaviour::malformed, "failures: 6 malformed"},
                             expected{misbehaviour::huge_line, "failures: 6 line_too_long"},
                             expected{misbehaviour::status_429, "failures: 6 http_status"},
                             expected{misbehaviour::status_500, "failures: 6 http_status"}}) {
      fake_engine engine({.slots = 4, .mode = e.mode});
      const std::string json = "/tmp/headroom-endpoint-hostile.json";
      const ran r =
          run_example({"--url", url_of(engine), "--model", "m", "--rate", "20", "--requests", "6",
                       "--timeout", "1", "--max-lag-ms", "1000", "--save-result", json});
      INFO(static_cast<int>(e.mode), r.out, r.err);
      CHECK(r.status == 0);
      CHECK(r.out.find(e.counted) != std::string::npos);
      CHECK(r.out.find("conformance 0.000") != std::string::npos);
      CHECK(r.seconds < 10.0);  // a stalled stream ends at the 1 s timeout
      if (e.mode == misbehaviour::status_429)
        CHECK(slurp(json).find("\"http_status 429\"") != std::string::npos);
      std::remove(json.c_str());
    }
  }

  TEST_CASE("endpoint: a schedule the client cannot keep is reported invalid") {
    // 500,000 req/s: far beyond what one thread can send on any machine; nothing listens on
    // port 1, so every request fails at once, and the client still falls behind.
    const ran r = run_example({"--url", "http://127.0.0.1:1/v1/completions", "--model", "m",
                               "--rate", "500000", "--requests", "50000"});
    INFO(r.out, r.err);
    CHECK(r.status == 3);
    CHECK(r.out.find("INVALID: the client fell behind its schedule") != std::string::npos);
    const ran s =
        run_example({"--url", "http://127.0.0.1:1/v1/completions", "--model", "m", "--search",
                     "--low", "250000", "--high", "500000", "--requests", "50000"});
    CHECK(s.status == 3);
    CHECK(s.out.find("search stopped: a run was invalid, so no capacity is reported") !=
          std::string::npos);
  }
}

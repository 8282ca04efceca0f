// SPDX-License-Identifier: Apache-2.0
#include <headroom/sim/replica.hpp>

#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>
#include <headroom/queueing.hpp>
#include <headroom/roofline.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;
namespace sim = headroom::sim;

// One request at a time, one output token, whole prefill: every step serves one request and
// its length is that request's service time (the M/M/1 and M/D/1 reductions).
constexpr sim::replica_config single_server{.max_batch = 1,
                                            .kv_budget_tokens = 16,
                                            .max_batched_tokens = 16,
                                            .prefill = sim::prefill_mode::whole,
                                            .kv = sim::kv_policy::reserve_full};

// One prompt token and one output token per request.
constexpr sim::fixed_lengths one_token{.lengths = {.prompt_tokens = 1, .output_tokens = 1}};

std::vector<sim::request> poisson_requests(double rate, std::size_t n, std::uint64_t seed,
                                           sim::request_lengths lengths = {1, 1}) {
  std::mt19937_64 engine(seed);
  const auto schedule = headroom::arrivals::poisson_schedule(rate, n, engine);
  return sim::make_requests(schedule, sim::fixed_lengths{lengths}, engine);
}

// Mean of xs[skip:] and its standard error by batch means (batches of `batch` consecutive
// values, so the queue's autocorrelation is inside the batches).
struct batch_mean {
  double mean = 0.0;
  double standard_error = 0.0;
};
batch_mean batch_means(const std::vector<double>& xs, std::size_t skip, std::size_t batch) {
  std::vector<double> means;
  for (std::size_t b = skip; b + batch <= xs.size(); b += batch) {
    double s = 0.0;
    for (std::size_t i = b; i < b + batch; ++i) s += xs[i];
    means.push_back(s / static_cast<double>(batch));
  }
  const double k = static_cast<double>(means.size());
  double m = 0.0;
  for (double x : means) m += x;
  m /= k;
  double v = 0.0;
  for (double x : means) v += (x - m) * (x - m);
  v /= (k - 1.0);
  return {m, std::sqrt(v / k)};
}

std::vector<double> sojourns(const sim::replica_result& r) {
  std::vector<double> xs;
  xs.reserve(r.outcomes.size());
  for (const auto& o : r.outcomes) xs.push_back(headroom::capacity::end_to_end_latency(o).count());
  return xs;
}

// Two doubles equal, NaN equal to NaN (the times that never happened).
bool same_time(seconds_d a, seconds_d b) {
  return a == b || (std::isnan(a.count()) && std::isnan(b.count()));
}

// Two results equal in every outcome, status, trace record and total.
bool same_result(const sim::replica_result& a, const sim::replica_result& b) {
  if (a.outcomes.size() != b.outcomes.size() || a.status != b.status ||
      a.trace.size() != b.trace.size())
    return false;
  for (std::size_t i = 0; i < a.outcomes.size(); ++i) {
    const auto& x = a.outcomes[i];
    const auto& y = b.outcomes[i];
    if (!same_time(x.intended_arrival, y.intended_arrival) || !same_time(x.sent, y.sent) ||
        !same_time(x.first_token, y.first_token) || !same_time(x.finished, y.finished) ||
        x.prompt_tokens != y.prompt_tokens || x.output_tokens != y.output_tokens ||
        x.error != y.error)
      return false;
  }
  for (std::size_t i = 0; i < a.trace.size(); ++i) {
    const auto& x = a.trace[i];
    const auto& y = b.trace[i];
    if (x.start != y.start || x.length != y.length || x.batch != y.batch ||
        x.queue_length != y.queue_length || x.prefill_tokens != y.prefill_tokens ||
        x.decode_tokens != y.decode_tokens || x.kv_tokens_used != y.kv_tokens_used ||
        x.kv_tokens_committed != y.kv_tokens_committed)
      return false;
  }
  const auto& s = a.stats;
  const auto& t = b.stats;
  return s.finished == t.finished && s.unfinished == t.unfinished &&
         s.not_arrived == t.not_arrived && s.rejected == t.rejected && s.steps == t.steps &&
         s.preemptions == t.preemptions && s.prefill_tokens == t.prefill_tokens &&
         s.decode_tokens == t.decode_tokens && s.kv_token_steps == t.kv_token_steps &&
         s.max_batch_seen == t.max_batch_seen && s.max_queue_seen == t.max_queue_seen &&
         s.busy == t.busy && s.end == t.end && s.first_arrival == t.first_arrival;
}

double quantile(std::vector<double> xs, double q) {
  const auto k = static_cast<std::size_t>(q * static_cast<double>(xs.size() - 1));
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
  return xs[k];
}

}  // namespace

TEST_SUITE("replica") {
  TEST_CASE("replica: batch size 1 with exponential service reproduces M/M/1") {
    // μ = 10/s (mean service 0.1 s), λ = 5/s, ρ = 0.5. Closed forms: W = 1/(μ − λ) = 0.2 s;
    // P(W <= 0.3 s) = 1 − e^{−(10−5)·0.3} = 1 − e^{−1.5} ≈ 0.7769. Bound: 5 standard errors
    // by batch means (40 batches of 1000 after 1000 discarded).
    const double mu = 10.0;
    const double lambda = 5.0;
    const auto requests = poisson_requests(lambda, 41000, 7);
    const auto run = sim::simulate(single_server, requests, sim::exponential_step_time(0.1s, 11));
    REQUIRE(run.stats.finished == requests.size());
    const auto xs = sojourns(run);
    const auto w = batch_means(xs, 1000, 1000);
    const double expected_w = headroom::queueing::mm1_queue{.arrival_rate_per_second = lambda,
                                                            .service_rate_per_second = mu}
                                  .mean_sojourn()
                                  .count();
    CHECK(expected_w == doctest::Approx(0.2));
    CHECK(std::abs(w.mean - expected_w) <= 5.0 * w.standard_error);
    CHECK(w.standard_error < 0.01);  // the bound is tight enough to mean something

    const double tau = 0.3;
    std::vector<double> hits;
    for (double x : xs) hits.push_back(x <= tau ? 1.0 : 0.0);
    const auto share = batch_means(hits, 1000, 1000);
    const double expected_share = headroom::queueing::mm1_queue{.arrival_rate_per_second = lambda,
                                                                .service_rate_per_second = mu}
                                      .sojourn_conformance(seconds_d(tau));
    CHECK(expected_share == doctest::Approx(1.0 - std::exp(-1.5)));
    CHECK(std::abs(share.mean - expected_share) <= 5.0 * share.standard_error);
    // The same through capacity.hpp (TTFT = sojourn with one output token).
    const headroom::capacity::slo objective{.ttft = seconds_d(tau), .tpot = 1s};
    headroom::capacity::measurement_window window;
    window.warm_up = requests[1000].arrival;
    const auto measured = headroom::capacity::measure_conformance(run.outcomes, objective, window);
    CHECK(measured.n == 40000);
    CHECK(measured.share == doctest::Approx(share.mean).epsilon(1e-12));
  }

  TEST_CASE("replica: batch size 1 with constant service reproduces M/D/1 mean sojourn") {
    // Service 0.1 s (μ = 10/s), λ = 6/s, ρ = 0.6: W = 1/μ + ρ/(2μ(1 − ρ)) = 0.1 + 0.075.
    const auto requests = poisson_requests(6.0, 41000, 3);
    const auto run = sim::simulate(single_server, requests, sim::constant_step_time{.step = 0.1s});
    REQUIRE(run.stats.finished == requests.size());
    const auto w = batch_means(sojourns(run), 1000, 1000);
    const double expected = headroom::queueing::md1_queue{.arrival_rate_per_second = 6.0,
                                                          .service_rate_per_second = 10.0}
                                .mean_sojourn()
                                .count();
    CHECK(expected == doctest::Approx(0.175));
    CHECK(std::abs(w.mean - expected) <= 5.0 * w.standard_error);
    CHECK(w.standard_error < 0.005);
  }

  TEST_CASE("replica: M/M/1 capacity from a simulated sweep matches mu - ln10/tau") {
    // μ* = μ − ln(1/(1−q))/τ = 10 − ln 10 ≈ 7.697 req/s for τ = 1 s, q = 0.9. Near μ* the
    // conformance falls by τ·e^{−(μ−λ)τ} = 0.1 per req/s; at 10^4 requests its batch-means
    // error is ~0.01, i.e. 0.1 req/s: allow 0.5 req/s.
    std::vector<double> rates;
    for (double r = 6.5; r <= 9.01; r += 0.25) rates.push_back(r);
    const headroom::capacity::slo objective{.ttft = 1s, .tpot = 1s};
    const sim::sweep_options options{.requests_per_point = 10000, .seed = 5};
    const auto sweep = sim::sweep_capacity(single_server, sim::exponential_step_time(0.1s, 9),
                                           rates, one_token, objective, options);
    REQUIRE(sweep.curve.size() == rates.size());
    const auto found = headroom::capacity::find_capacity(sweep.curve, {.interpolate = true});
    REQUIRE(found.capacity_per_second.has_value());
    const double expected = headroom::queueing::mm1_capacity(
        {.service_rate_per_second = 10.0, .threshold = 1s, .quota = 0.9});
    CHECK(expected == doctest::Approx(10.0 - std::log(10.0)));
    CHECK(std::abs(*found.capacity_per_second - expected) < 0.5);
    CHECK(found.saturated);
  }

  TEST_CASE("replica: sweep replications are independent runs with a t interval") {
    // M/M/1, μ = 10/s, λ = 7/s, τ = 1 s: true conformance 1 − e^{−3} = 0.9502. Ten
    // replications of 4000 requests: replication 0 uses the sweep's seed and the model as
    // given, replication r >= 1 seeds replication_seed(seed, r) and a model reseeded with
    // replication_seed(~that, r); the point is replicated_conformance of the ten runs.
    const headroom::capacity::slo objective{.ttft = 1s, .tpot = 1s};
    const sim::sweep_options options{.requests_per_point = 4000, .seed = 5, .replications = 10};
    const std::vector<double> rate{7.0};
    const sim::exponential_step_time model(0.1s, 9);
    const auto sweep =
        sim::sweep_capacity(single_server, model, rate, one_token, objective, options);
    REQUIRE(sweep.curve.size() == 1);
    CHECK(sweep.stats.size() == 1);
    const auto& e = sweep.curve[0].conformance;
    CHECK(e.basis == headroom::capacity::interval_basis::replications);
    CHECK(e.batches == 10);
    CHECK(e.degrees_of_freedom == 9.0);
    const double truth = headroom::queueing::mm1_queue{.arrival_rate_per_second = 7.0,
                                                       .service_rate_per_second = 10.0}
                             .sojourn_conformance(1s);
    CHECK(truth == doctest::Approx(1.0 - std::exp(-3.0)));
    CHECK(e.lower <= truth);
    CHECK(truth <= e.upper);
    // The seeding contract, rebuilt by hand for two replications.
    std::vector<headroom::capacity::conformance_estimate> runs;
    for (std::size_t r = 0; r < 2; ++r) {
      const std::uint64_t seed = r == 0 ? 5 : sim::replication_seed(5, r);
      std::mt19937_64 engine(seed);
      const auto schedule = headroom::arrivals::poisson_schedule(7.0, 4000, engine);
      const auto requests = sim::make_requests(schedule, one_token, engine);
      auto fresh = model;
      if (r > 0) fresh.reseed(sim::replication_seed(~seed, r));
      const auto run = sim::simulate(single_server, requests, fresh);
      const headroom::capacity::measurement_window window{.warm_up = 0.1 * schedule.back(),
                                                          .cool_down = 0.1 * schedule.back(),
                                                          .run_end = schedule.back()};
      runs.push_back(headroom::capacity::measure_conformance(run.outcomes, objective, window));
    }
    auto two_runs = options;
    two_runs.replications = 2;
    const auto two =
        sim::sweep_capacity(single_server, model, rate, one_token, objective, two_runs);
    const auto expected = headroom::capacity::replicated_conformance(runs);
    CHECK(runs[0].share != runs[1].share);
    CHECK(two.curve[0].conformance.share == expected.share);
    CHECK(two.curve[0].conformance.lower == expected.lower);
    CHECK(two.curve[0].conformance.upper == expected.upper);
  }

  TEST_CASE("replica: batch size 1 throughput is one over the service time") {
    // 1000 requests all at t = 0, 10 ms steps: one output token = one step each, so the last
    // finishes at 1000 × 10 ms = 10 s; four output tokens = four steps (prefill + 3 decodes):
    // 40 s. Throughput n/end = 1/service time.
    std::vector<sim::request> one(
        1000, sim::request{.arrival = 0s, .prompt_tokens = 8, .output_tokens = 1});
    const auto r1 = sim::simulate(single_server, one, sim::constant_step_time{.step = 0.01s});
    CHECK(r1.stats.end.count() == doctest::Approx(10.0));
    CHECK(1000.0 / r1.stats.end.count() == doctest::Approx(1.0 / 0.01));
    CHECK(r1.stats.steps == 1000);
    std::vector<sim::request> four(
        1000, sim::request{.arrival = 0s, .prompt_tokens = 8, .output_tokens = 4});
    const auto r4 = sim::simulate(single_server, four, sim::constant_step_time{.step = 0.01s});
    CHECK(r4.stats.end.count() == doctest::Approx(40.0));
    CHECK(r4.outcomes[0].first_token.count() == doctest::Approx(0.01));
    CHECK(r4.outcomes[0].finished.count() == doctest::Approx(0.04));
    CHECK(r4.outcomes[999].finished.count() == doctest::Approx(40.0));
  }

  TEST_CASE("replica: roofline step times / chunked and whole prefill / by hand") {
    // N_p = 1e9 (2e9 bytes bf16), m_kv = 1e5 B/token, P = 1e14 FLOP/s, B = 1e12 B/s, 1 ms.
    // Prefill of 1000 tokens: max(2·1e9·1000/1e14, (2e9 + 1000·1e5)/1e12) + 1 ms
    //   = max(20 ms, 2.1 ms) + 1 ms = 21 ms.
    // Decode with 1001 then 1002 KV tokens: max(0.02 ms, 2.1001 ms) + 1 ms = 3.1001 ms, then
    // 3.1002 ms. One request, prompt 1000, output 3: first token 21 ms, done 27.2003 ms.
    constexpr headroom::roofline::accelerator_spec spec{.name = "test",
                                                        .peak_flops_per_second = 1e14,
                                                        .peak_bytes_per_second = 1e12,
                                                        .memory_bytes = 80e9};
    const auto model = sim::make_roofline_step_time(spec, {.parameters = 1e9,
                                                           .bytes_per_parameter = 2.0,
                                                           .kv_bytes_per_token = 1e5,
                                                           .flops_efficiency = 1.0,
                                                           .bandwidth_efficiency = 1.0,
                                                           .overhead = 1ms});
    CHECK(model.weight_bytes == doctest::Approx(2e9));
    const sim::step_shape prefill{
        .batch = 1, .prefill_tokens = 1000, .decode_tokens = 0, .kv_tokens = 1000};
    CHECK(model(prefill).count() == doctest::Approx(0.021));
    CHECK(model(prefill).count() ==
          doctest::Approx(
              seconds_d(headroom::roofline::roofline_time({.flops = 2e12, .bytes = 2.1e9}, spec) +
                        1ms)
                  .count()));
    sim::replica_config whole{.max_batch = 4,
                              .kv_budget_tokens = 4096,
                              .max_batched_tokens = 2048,
                              .prefill = sim::prefill_mode::whole};
    const std::vector<sim::request> one{{.arrival = 0s, .prompt_tokens = 1000, .output_tokens = 3}};
    const auto r = sim::simulate(whole, one, model, {.record_trace = true});
    REQUIRE(r.trace.size() == 3);
    CHECK(r.outcomes[0].first_token.count() == doctest::Approx(0.021));
    CHECK(r.outcomes[0].finished.count() == doctest::Approx(0.021 + 0.0031001 + 0.0031002));
    CHECK(r.trace[1].kv_tokens_used == 1001);
    CHECK(r.trace[2].kv_tokens_used == 1002);

    // Chunked with a 400-token budget: chunks 400, 400, 200. Chunk steps:
    // max(2e9·400/1e14 = 8 ms, (2e9 + 400·1e5)/1e12 = 2.04 ms) + 1 ms = 9 ms, again 9 ms (800
    // KV: 2.08 ms < 8 ms), then max(4 ms, 2.1 ms) + 1 ms = 5 ms: first token at 23 ms.
    sim::replica_config chunked = whole;
    chunked.prefill = sim::prefill_mode::chunked;
    chunked.max_batched_tokens = 400;
    const auto c = sim::simulate(chunked, one, model, {.record_trace = true});
    REQUIRE(c.trace.size() == 5);
    CHECK(c.trace[0].prefill_tokens == 400);
    CHECK(c.trace[2].prefill_tokens == 200);
    CHECK(c.outcomes[0].first_token.count() == doctest::Approx(0.023));
    CHECK(c.outcomes[0].finished.count() == doctest::Approx(0.023 + 0.0031001 + 0.0031002));

    // MFU over the whole-prefill run: 1002 tokens in 27.2003 ms on a 1e14 peak:
    // 2·1e9·1002/0.0272003/1e14 ≈ 0.7368; busy all the time.
    const auto u = sim::utilization_of(r.stats, model, spec);
    CHECK(u.busy_fraction == doctest::Approx(1.0));
    CHECK(u.mfu == doctest::Approx(2e9 * 1002.0 / 0.0272003 / 1e14));
    // MBU: bytes (2e9 + 1000e5) + (2e9 + 1001e5) + (2e9 + 1002e5) over 27.2003 ms, / 1e12.
    CHECK(u.mbu == doctest::Approx((6e9 + 3003e5) / 0.0272003 / 1e12));
  }

  TEST_CASE("replica: a mixture of experts' step reads its routed experts, by hand") {
    // 10e9 parameters, 4 experts of 2e9 (8e9 routed, 2e9 dense), 1 a token, 1 byte each; P =
    // 1e14 FLOP/s, B = 1e12 B/s, no overhead, no KV. Active: 10e9 − 3 × 2e9 = 4e9.
    constexpr headroom::roofline::accelerator_spec spec{.name = "test",
                                                        .peak_flops_per_second = 1e14,
                                                        .peak_bytes_per_second = 1e12,
                                                        .memory_bytes = 80e9};
    const headroom::roofline::mixture_of_experts moe{
        .experts = 4, .experts_per_token = 1, .parameters_per_expert = 2e9};
    const auto model = sim::make_roofline_step_time(spec, {.parameters = 10e9,
                                                           .bytes_per_parameter = 1.0,
                                                           .kv_bytes_per_token = 0.0,
                                                           .flops_efficiency = 1.0,
                                                           .bandwidth_efficiency = 1.0,
                                                           .overhead = 0ms,
                                                           .moe = moe});
    CHECK(model.parameters == 4e9);
    CHECK(model.weight_bytes == 2e9);      // the dense part, read every step
    CHECK(model.bytes_per_expert == 2e9);  // one expert over its layers
    // One decode token reads the dense part and its one expert: 4e9 bytes, 4 ms (FLOPs 8e9,
    // 0.08 ms). Two read 4 × (1 − (3/4)²) = 1.75 experts on average: 2e9 + 3.5e9 = 5.5e9.
    const sim::step_shape one{.batch = 1, .prefill_tokens = 0, .decode_tokens = 1, .kv_tokens = 0};
    CHECK(model.bytes(one) == doctest::Approx(4e9).epsilon(1e-14));
    CHECK(model.flops(one) == 8e9);
    CHECK(model(one).count() == doctest::Approx(4e-3).epsilon(1e-14));
    const sim::step_shape two{.batch = 2, .prefill_tokens = 0, .decode_tokens = 2, .kv_tokens = 0};
    CHECK(model.bytes(two) == doctest::Approx(5.5e9).epsilon(1e-14));
    // A prefill of 4096 tokens reads every expert (10e9 bytes, 10 ms) and does 2 × 4e9 × 4096
    // FLOPs (327.68 ms): compute-bound on the active parameters, not on all 10e9.
    const sim::step_shape prefill{
        .batch = 1, .prefill_tokens = 4096, .decode_tokens = 0, .kv_tokens = 0};
    CHECK(model.bytes(prefill) == doctest::Approx(10e9).epsilon(1e-12));
    CHECK(model(prefill).count() == doctest::Approx(0.32768).epsilon(1e-14));
    // The same model read as dense reads and computes all 10e9 a token.
    const auto dense = sim::make_roofline_step_time(spec, {.parameters = 10e9,
                                                           .bytes_per_parameter = 1.0,
                                                           .kv_bytes_per_token = 0.0,
                                                           .flops_efficiency = 1.0,
                                                           .bandwidth_efficiency = 1.0,
                                                           .overhead = 0ms});
    CHECK(dense.bytes(one) == 10e9);
    CHECK(dense.flops(one) == 20e9);
  }

  TEST_CASE("replica: conservation at a horizon") {
    // Overloaded (λ = 20/s against μ = 10/s) and stopped at 50 s: each request is finished,
    // unfinished (arrived, not done) or not arrived, and the counts add up.
    const auto requests = poisson_requests(20.0, 2000, 17);
    const auto run = sim::simulate(single_server, requests, sim::constant_step_time{.step = 0.1s},
                                   {.horizon = seconds_d(50.0)});
    const auto& s = run.stats;
    CHECK(s.finished + s.unfinished + s.not_arrived + s.rejected == requests.size());
    CHECK(s.finished > 0);
    CHECK(s.unfinished > 0);
    CHECK(s.not_arrived > 0);
    // A step starts only before the horizon: 500 steps of 0.1 s fit in [0, 50).
    CHECK(s.finished <= 501);
    std::size_t unfinished = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const auto& o = run.outcomes[i];
      switch (run.status[i]) {
        case sim::request_status::finished:
          CHECK_FALSE(o.error);
          CHECK(o.finished.count() <= 50.0 + 0.1 + 1e-9);
          break;
        case sim::request_status::unfinished:
          ++unfinished;
          CHECK(o.error);
          CHECK(o.intended_arrival.count() <= 50.0);
          CHECK(std::isnan(o.finished.count()));
          break;
        case sim::request_status::not_arrived:
          CHECK(o.error);
          CHECK(o.intended_arrival.count() > 50.0);
          break;
        case sim::request_status::rejected:
          FAIL("nothing is too large here");
          break;
      }
    }
    CHECK(unfinished == s.unfinished);
    // Without a horizon everything finishes.
    const auto all = sim::simulate(single_server, requests, sim::constant_step_time{.step = 0.1s});
    CHECK(all.stats.finished == requests.size());
  }

  TEST_CASE("replica: KV budget never exceeded on the trace / both policies") {
    std::mt19937_64 engine(21);
    const auto schedule = headroom::arrivals::poisson_schedule(40.0, 3000, engine);
    const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                      .prompt_sigma = 1.0,
                                      .output_median = 150.0,
                                      .output_sigma = 0.9,
                                      .min = {4, 1},
                                      .max = {2000, 1000}});
    const auto requests = sim::make_requests(schedule, mix, engine);
    std::size_t prompts = 0;
    std::size_t outputs = 0;
    for (const auto& r : requests) {
      prompts += r.prompt_tokens;
      outputs += r.output_tokens;
    }
    constexpr headroom::roofline::accelerator_spec spec{.name = "test",
                                                        .peak_flops_per_second = 1e14,
                                                        .peak_bytes_per_second = 1e12,
                                                        .memory_bytes = 80e9};
    const auto model = sim::make_roofline_step_time(spec, {.parameters = 1e9,
                                                           .bytes_per_parameter = 2.0,
                                                           .kv_bytes_per_token = 1e5,
                                                           .flops_efficiency = 1.0,
                                                           .bandwidth_efficiency = 1.0,
                                                           .overhead = 1ms});
    for (const auto policy : {sim::kv_policy::reserve_full, sim::kv_policy::preempt_youngest}) {
      for (const auto mode : {sim::prefill_mode::chunked, sim::prefill_mode::whole}) {
        CAPTURE(static_cast<int>(policy));
        CAPTURE(static_cast<int>(mode));
        const sim::replica_config config{.max_batch = 64,
                                         .kv_budget_tokens = 6000,
                                         .max_batched_tokens = 512,
                                         .prefill = mode,
                                         .kv = policy};
        const auto run = sim::simulate(config, requests, model, {.record_trace = true});
        CHECK(run.stats.finished == requests.size());
        CHECK(run.trace.size() == run.stats.steps);
        bool within = true;
        for (const auto& step : run.trace) {
          within = within && step.kv_tokens_committed <= config.kv_budget_tokens &&
                   step.kv_tokens_used <= step.kv_tokens_committed && step.batch >= 1 &&
                   step.batch <= config.max_batch && step.decode_tokens + step.prefill_tokens >= 1;
          if (mode == sim::prefill_mode::chunked)
            within = within && step.decode_tokens + step.prefill_tokens <= 512;
        }
        CHECK(within);
        if (policy == sim::kv_policy::reserve_full) {
          // Every prompt token is prefilled once; every output token but the first (which
          // the prefill emits) is one decode token.
          CHECK(run.stats.preemptions == 0);
          CHECK(run.stats.prefill_tokens == prompts);
          CHECK(run.stats.decode_tokens == outputs - requests.size());
        } else {
          CHECK(run.stats.preemptions > 0);           // the budget is tight enough to exercise it
          CHECK(run.stats.prefill_tokens > prompts);  // recompute
        }
        // First token before the finish, both after the arrival.
        bool ordered = true;
        for (const auto& o : run.outcomes)
          ordered = ordered && o.intended_arrival <= o.first_token && o.first_token <= o.finished;
        CHECK(ordered);
      }
    }
  }

  TEST_CASE("replica: same seed / same outcomes") {
    auto once = [] {
      std::mt19937_64 engine(99);
      const auto schedule = headroom::arrivals::poisson_schedule(60.0, 2000, engine);
      const auto requests = sim::make_requests(schedule,
                                               sim::lognormal_lengths({.prompt_median = 200.0,
                                                                       .prompt_sigma = 1.0,
                                                                       .output_median = 150.0,
                                                                       .output_sigma = 0.9}),
                                               engine);
      const sim::replica_config config{.max_batch = 32,
                                       .kv_budget_tokens = 20000,
                                       .max_batched_tokens = 1024,
                                       .kv = sim::kv_policy::preempt_youngest};
      return sim::simulate(config, requests, sim::exponential_step_time(5ms, 4));
    };
    const auto a = once();
    const auto b = once();
    REQUIRE(a.outcomes.size() == b.outcomes.size());
    bool same = a.stats.steps == b.stats.steps && a.stats.preemptions == b.stats.preemptions;
    for (std::size_t i = 0; i < a.outcomes.size(); ++i)
      same = same && a.outcomes[i].first_token == b.outcomes[i].first_token &&
             a.outcomes[i].finished == b.outcomes[i].finished &&
             a.outcomes[i].output_tokens == b.outcomes[i].output_tokens;
    CHECK(same);
  }

  TEST_CASE("replica: a reused workspace gives what a fresh run gives") {
    // One workspace through runs of different sizes, policies, traces, horizons and loops:
    // nothing of an earlier run (a longer trace, more outcomes, a queue left at the horizon,
    // preempted sequences) leaks into a later one.
    std::mt19937_64 engine(31);
    const auto schedule = headroom::arrivals::poisson_schedule(80.0, 3000, engine);
    const sim::lognormal_lengths mix({.prompt_median = 200.0,
                                      .prompt_sigma = 1.0,
                                      .output_median = 150.0,
                                      .output_sigma = 0.9,
                                      .min = {4, 1},
                                      .max = {2000, 1000}});
    const auto big = sim::make_requests(schedule, mix, engine);
    const std::vector<sim::request> small(big.begin(), big.begin() + 200);
    const sim::replica_config tight{.max_batch = 32,
                                    .kv_budget_tokens = 6000,
                                    .max_batched_tokens = 512,
                                    .kv = sim::kv_policy::preempt_youngest};
    const sim::replica_config roomy{
        .max_batch = 8, .kv_budget_tokens = 20000, .max_batched_tokens = 4096};
    const sim::run_options traced{.horizon = seconds_d(20.0), .record_trace = true};
    sim::replica_workspace ws;

    const auto& first = sim::simulate(tight, big, sim::exponential_step_time(5ms, 7), ws, traced);
    CHECK(first.stats.preemptions > 0);  // the run exercises preemption
    CHECK(first.stats.unfinished > 0);   // and leaves work at the horizon
    CHECK(
        same_result(first, sim::simulate(tight, big, sim::exponential_step_time(5ms, 7), traced)));

    const auto& second = sim::simulate(roomy, small, sim::constant_step_time{.step = 2ms}, ws);
    CHECK(&second == &first);  // the same storage, overwritten
    CHECK(second.trace.empty());
    CHECK(second.outcomes.size() == small.size());
    CHECK(same_result(second, sim::simulate(roomy, small, sim::constant_step_time{.step = 2ms})));

    const headroom::arrivals::closed_loop_population users(8, 0.05s);
    std::mt19937_64 a(5);
    std::mt19937_64 b(5);
    const auto& third = sim::simulate_closed_loop(
        tight, users, 500, mix, a, sim::exponential_step_time(5ms, 9), ws, {.record_trace = true});
    CHECK(third.stats.finished == 500);
    CHECK(same_result(third, sim::simulate_closed_loop(tight, users, 500, mix, b,
                                                       sim::exponential_step_time(5ms, 9),
                                                       {.record_trace = true})));

    const auto again = sim::simulate(tight, big, sim::exponential_step_time(5ms, 7), ws, traced);
    CHECK(
        same_result(again, sim::simulate(tight, big, sim::exponential_step_time(5ms, 7), traced)));
  }

  TEST_CASE("replica: a request larger than the KV budget is rejected / the rest served") {
    // Budget 100 tokens: prompt 90 + output 20 − 1 = 109 > 100 can never fit.
    const sim::replica_config config{
        .max_batch = 4, .kv_budget_tokens = 100, .max_batched_tokens = 128};
    const std::vector<sim::request> requests{
        {.arrival = 0s, .prompt_tokens = 10, .output_tokens = 5},
        {.arrival = 0.1s, .prompt_tokens = 90, .output_tokens = 20},
        {.arrival = 0.2s, .prompt_tokens = 50, .output_tokens = 51}};
    const auto run = sim::simulate(config, requests, sim::constant_step_time{.step = 0.01s});
    CHECK(run.status[0] == sim::request_status::finished);
    CHECK(run.status[1] == sim::request_status::rejected);
    CHECK(run.outcomes[1].error);
    CHECK(run.status[2] == sim::request_status::finished);  // 50 + 51 − 1 = 100 fits exactly
    CHECK(run.stats.rejected == 1);
  }

  TEST_CASE("replica: closed loop holds at most N requests and follows N/(W + Z)") {
    const headroom::arrivals::closed_loop_population users(8, 0.5s);
    std::mt19937_64 engine(12);
    const auto run =
        sim::simulate_closed_loop(single_server, users, 6000, one_token, engine,
                                  sim::exponential_step_time(0.1s, 13), {.record_trace = true});
    REQUIRE(run.stats.finished == 6000);
    bool bounded = true;
    for (const auto& step : run.trace) bounded = bounded && step.batch + step.queue_length <= 8;
    CHECK(bounded);
    // Interactive response-time law: throughput X = N/(W + Z) with the run's mean sojourn.
    double w = 0.0;
    for (const auto& o : run.outcomes) w += headroom::capacity::end_to_end_latency(o).count();
    w /= 6000.0;
    const double throughput = 6000.0 / (run.stats.end.count() - run.stats.first_arrival.count());
    CHECK(throughput == doctest::Approx(users.offered_rate_per_second(seconds_d(w))).epsilon(0.03));
  }

  TEST_CASE("replica: coordinated omission / closed-loop tail far below the open-loop one") {
    // 8 users thinking 0.4 s on average against μ = 10/s push the server near saturation. An
    // open loop at the rate they achieved has, by M/M/1, a p99 sojourn of
    // ln(100)/(μ − λ): the closed loop's is far smaller (never more than 8 in the system).
    const headroom::arrivals::closed_loop_population users(8, 0.4s);
    std::mt19937_64 engine(31);
    const auto closed = sim::simulate_closed_loop(single_server, users, 20000, one_token, engine,
                                                  sim::exponential_step_time(0.1s, 32));
    const double rate = 20000.0 / (closed.stats.end - closed.stats.first_arrival).count();
    CHECK(rate > 8.5);
    CHECK(rate < 10.0);
    const double closed_p99 = quantile(sojourns(closed), 0.99);
    const double open_p99_theory = headroom::queueing::mm1_queue{.arrival_rate_per_second = rate,
                                                                 .service_rate_per_second = 10.0}
                                       .sojourn_quantile(0.99)
                                       .count();
    CHECK(closed_p99 < 0.5 * open_p99_theory);
    // And the simulated open loop at that rate agrees with the closed form's order.
    const auto open = sim::simulate(single_server, poisson_requests(rate, 20000, 33),
                                    sim::exponential_step_time(0.1s, 34));
    CHECK(quantile(sojourns(open), 0.99) > 2.0 * closed_p99);
  }

  TEST_CASE("replica: caller mistakes throw invalid_argument") {
    const std::vector<sim::request> ok{{.arrival = 0s, .prompt_tokens = 1, .output_tokens = 1}};
    const sim::constant_step_time step{0.01s};
    CHECK_THROWS_AS(static_cast<void>(sim::simulate(sim::replica_config{.max_batch = 0}, ok, step)),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(sim::simulate(
                        sim::replica_config{.max_batch = 8, .max_batched_tokens = 4}, ok, step)),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(
        static_cast<void>(sim::simulate(sim::replica_config{.kv_budget_tokens = 0}, ok, step)),
        headroom::invalid_argument);
    const std::vector<sim::request> unsorted{
        {.arrival = 1s, .prompt_tokens = 1, .output_tokens = 1},
        {.arrival = 0s, .prompt_tokens = 1, .output_tokens = 1}};
    CHECK_THROWS_AS(static_cast<void>(sim::simulate({}, unsorted, step)),
                    headroom::invalid_argument);
    const std::vector<sim::request> no_output{
        {.arrival = 0s, .prompt_tokens = 1, .output_tokens = 0}};
    CHECK_THROWS_AS(static_cast<void>(sim::simulate({}, no_output, step)),
                    headroom::invalid_argument);
    const std::vector<sim::request> nan_arrival{
        {seconds_d(std::numeric_limits<double>::quiet_NaN()), 1, 1}};
    CHECK_THROWS_AS(static_cast<void>(sim::simulate({}, nan_arrival, step)),
                    headroom::invalid_argument);
    // A model that returns NaN, and a roofline with zero bandwidth (an infinite step).
    auto nan_model = [](const sim::step_shape&) {
      return seconds_d(std::numeric_limits<double>::quiet_NaN());
    };
    CHECK_THROWS_AS(static_cast<void>(sim::simulate({}, ok, nan_model)),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(sim::simulate({}, ok, sim::roofline_step_time{})),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(sim::make_roofline_step_time(
                        headroom::roofline::accelerators::h100_sxm, {.parameters = 8e9,
                                                                     .bytes_per_parameter = 2.0,
                                                                     .kv_bytes_per_token = 131072.0,
                                                                     .flops_efficiency = 1.5,
                                                                     .bandwidth_efficiency = 0.8,
                                                                     .overhead = 1ms})),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(sim::lognormal_lengths({.prompt_median = 0.0,
                                            .prompt_sigma = 1.0,
                                            .output_median = 100.0,
                                            .output_sigma = 1.0}),
                    headroom::invalid_argument);
    CHECK_THROWS_AS(static_cast<void>(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                                             .memory_fraction = 0.9,
                                                             .weight_bytes = 100e9,
                                                             .kv_bytes_per_token = 131072.0})),
                    headroom::invalid_argument);
    // 80 GB × 0.9 − 16 GB = 56 GB at 128 KiB per token: floor(56e9 / 131072) = 427246.
    CHECK(sim::kv_budget_tokens({.memory_bytes = 80e9,
                                 .memory_fraction = 0.9,
                                 .weight_bytes = 16e9,
                                 .kv_bytes_per_token = 131072.0}) == 427246);
  }

  TEST_CASE("replica: replayed lengths cycle and log-normal medians hold") {
    const std::vector<sim::request_lengths> list{{.prompt_tokens = 10, .output_tokens = 2},
                                                 {.prompt_tokens = 20, .output_tokens = 3}};
    sim::replayed_lengths replay(list);
    std::mt19937_64 engine(1);
    CHECK(replay(engine).prompt_tokens == 10);
    CHECK(replay(engine).prompt_tokens == 20);
    CHECK(replay(engine).output_tokens == 2);
    // The median of round(200·e^{Z}) is 200: about half the draws fall below it
    // (binomial, 4000 draws: standard error 0.8 %; allow 4 %).
    const sim::lognormal_lengths mix(
        {.prompt_median = 200.0, .prompt_sigma = 1.0, .output_median = 150.0, .output_sigma = 0.9});
    std::size_t below = 0;
    for (int i = 0; i < 4000; ++i) below += mix(engine).prompt_tokens < 200 ? 1U : 0U;
    CHECK(std::abs(static_cast<double>(below) / 4000.0 - 0.5) < 0.04);
    // The ShareGPT-like preset is these parameters: unclipped means median·e^{σ²/2},
    // 200·e^{0.5} = 329.744 and 150·e^{0.405} = 224.895 tokens; clipped to [1, 32768].
    const sim::lognormal_lengths preset(sim::sharegpt_like_lengths);
    CHECK(preset.prompt_mean_unclipped() == doctest::Approx(329.744254).epsilon(1e-8));
    CHECK(preset.output_mean_unclipped() == doctest::Approx(224.895375).epsilon(1e-8));
    CHECK(sim::sharegpt_like_lengths.min.prompt_tokens == 1);
    CHECK(sim::sharegpt_like_lengths.max.output_tokens == 32768);
  }
}

// SPDX-License-Identifier: Apache-2.0
// Property tests across components: each runs a few hundred seeded random inputs and checks
// an invariant against something the code under test does not compute itself (a law of
// queueing theory, a monotonicity the formula must have, an integer inequality).
// The autoscaler's bounds, stabilization windows and rate limits on random streams are
// covered in tests/unit/autoscaler.test.cpp ("autoscaler: properties over random streams
// (range / windows / rates)"), and the scheduler's kept-vs-fresh and static-vs-dynamic
// properties in tests/unit/scheduler.test.cpp and tests/fuzz/scheduler.fuzz.cpp; not here.
#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <headroom/coldstart.hpp>
#include <headroom/cost.hpp>
#include <headroom/error.hpp>
#include <headroom/queueing.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/replica.hpp>

#include <array>
#include <limits>
#include <string>

namespace {
using namespace headroom;
using namespace headroom::coldstart;
using namespace headroom::cost;
using namespace headroom::queueing;
using namespace headroom::roofline;
using namespace headroom::capacity;
using sec = std::chrono::duration<double>;

/// Uniform draw in [lo, hi), from the engine's raw bits (the same on every standard library).
double uniform(std::mt19937_64& rng, double lo, double hi) {
  return headroom::test::uniform_draw(rng, lo, hi);
}
#if defined(__cpp_exceptions)
/// Finite values from 0 to the largest double, the subnormal and overflow edges among them.
constexpr std::array<double, 11> extremes = {0.0,
                                             5e-324,
                                             1e-300,
                                             1e-150,
                                             1e-10,
                                             0.5,
                                             1.0,
                                             1e10,
                                             1e150,
                                             1e300,
                                             std::numeric_limits<double>::max()};

/// Calls f on every tuple of N values of `extremes`; counts the calls that return NaN (those
/// the library rejects with invalid_argument are fine: a mistake named is no silent NaN).
template <std::size_t N, class F>
std::size_t nan_results(F f, std::array<double, N>& args, std::size_t depth = 0) {
  if (depth == N) {
    try {
      return std::isnan(f(args)) ? 1 : 0;
    } catch (const headroom::invalid_argument&) {
      return 0;
    }
  }
  std::size_t count = 0;
  for (const double x : extremes) {
    args[depth] = x;
    count += nan_results<N>(f, args, depth + 1);
  }
  return count;
}
template <std::size_t N, class F>
std::size_t nan_results(F f) {
  std::array<double, N> args{};
  return nan_results<N>(f, args, 0);
}
#endif

/// Two distinct values in [lo, hi), ascending.
std::pair<double, double> ordered(std::mt19937_64& rng, double lo, double hi) {
  double a = uniform(rng, lo, hi), b = uniform(rng, lo, hi);
  if (a > b) std::swap(a, b);
  return {a, b};
}
}  // namespace

TEST_SUITE("properties") {
  TEST_CASE("properties: Little's law holds on the replica simulator's outcomes") {
    // Over a window [t0, t1] inside the run: L = (1/τ)∫N(t)dt, N(t) swept from the outcomes'
    // [arrival, finished] intervals clipped to the window; λ = arrivals in the window / τ;
    // W = their mean sojourn. L = λW up to the edge terms (requests straddling t0 or t1),
    // about 2W/τ relative. Tolerance: 10 % relative, or 0.05 absolute for a nearly empty
    // system. Configurations: batch 1..16, outputs 1..6 tokens, exponential or constant
    // step times, Poisson arrivals (our own draws) at ρ in [0.1, 0.7] of the single-request
    // service rate, so the run is stable.
    std::mt19937_64 rng(20240701);
    std::size_t checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
      sim::replica_config cfg;
      cfg.max_batch = std::size_t{1} << (rng() % 5);  // 1, 2, 4, 8, 16
      cfg.max_batched_tokens = std::max<std::size_t>(cfg.max_batch, 64);
      cfg.kv_budget_tokens = 4096;
      const std::size_t output = 1 + rng() % 6;
      const std::size_t prompt = 1 + rng() % 32;
      const double step = uniform(rng, 0.01, 0.1);  // s per step
      // One request alone takes `output` steps; keep the offered load below 0.7 of that.
      const double rho = uniform(rng, 0.1, 0.7);
      const double lambda = rho / (static_cast<double>(output) * step);
      std::vector<sim::request> reqs;
      double t = 0;
      for (int k = 0; k < 150; ++k) {
        t += headroom::test::exponential_draw(rng, lambda);
        reqs.push_back({sec(t), prompt, output});
      }
      const sim::replica_result r =
          rng() % 2 ? sim::simulate(cfg, reqs, sim::exponential_step_time(sec(step), rng()))
                    : sim::simulate(cfg, reqs, sim::constant_step_time{sec(step)});
      REQUIRE(r.stats.finished == reqs.size());
      // Window: the middle 80 % of the arrival span.
      const double t0 = 0.1 * t, t1 = 0.9 * t, tau = t1 - t0;
      double area = 0, sojourn = 0;
      std::size_t arrivals = 0;
      for (const request_outcome& o : r.outcomes) {
        const double a = o.intended_arrival.count(), f = o.finished.count();
        REQUIRE(f >= a);
        area += std::max(0.0, std::min(f, t1) - std::max(a, t0));
        if (a >= t0 && a < t1) {
          ++arrivals;
          sojourn += f - a;
        }
      }
      if (arrivals < 20) continue;
      const double L = area / tau;
      const double lambda_hat = static_cast<double>(arrivals) / tau;
      const double W = sojourn / static_cast<double>(arrivals);
      CHECK(std::abs(L - lambda_hat * W) <= std::max(0.1 * lambda_hat * W, 0.05));
      ++checked;
    }
    CHECK(checked >= 150);
  }

  TEST_CASE("properties: M/M/1 conformance falls as the arrival rate rises") {
    // P(W <= τ) = 1 − e^{−(μ−λ)τ} and P(W_q <= τ) = 1 − ρe^{−(μ−λ)τ} are non-increasing in
    // λ (a busier server answers later); the means rise; beyond λ = μ both are 0.
    std::mt19937_64 rng(20240702);
    for (int trial = 0; trial < 400; ++trial) {
      const double mu = uniform(rng, 0.5, 50);
      const auto [l1, l2] = ordered(rng, 0, 1.2 * mu);
      const sec tau(uniform(rng, 0, 5));
      CHECK(mm1_queue{.arrival_rate_per_second = l1, .service_rate_per_second = mu}
                .sojourn_conformance(tau) >=
            mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                .sojourn_conformance(tau));
      CHECK(
          mm1_queue{.arrival_rate_per_second = l1, .service_rate_per_second = mu}.wait_conformance(
              tau) >=
          mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}.wait_conformance(
              tau));
      for (double c : {mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                           .sojourn_conformance(tau),
                       mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                           .wait_conformance(tau)}) {
        CHECK(c >= 0.0);
        CHECK(c <= 1.0);
      }
      if (l2 < mu) {
        CHECK(
            mm1_queue{.arrival_rate_per_second = l1, .service_rate_per_second = mu}
                .mean_sojourn() <=
            mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}.mean_sojourn());
        CHECK(mm1_queue{.arrival_rate_per_second = l1, .service_rate_per_second = mu}.mean_wait() <=
              mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}.mean_wait());
        // the wait is part of the sojourn
        CHECK(mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                  .wait_conformance(tau) >=
              mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                      .sojourn_conformance(tau) -
                  1e-12);
      } else {
        CHECK(mm1_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu}
                  .sojourn_conformance(tau) == 0.0);
      }
    }
  }

  TEST_CASE("properties: Erlang C falls with servers and rises with load") {
    // The probability of waiting C(c, a) is non-increasing in c and non-decreasing in the
    // offered load a = λ/μ; 1 when a >= c. The smallest c meeting a waiting-time quota is
    // non-decreasing in λ, stable (c > a), and c − 1 servers miss the quota (checked with
    // mmc_wait_conformance, a separate function). Slack 1e-12 (1e-9 on the quota boundary)
    // for rounding between the carried and the fresh recurrences.
    std::mt19937_64 rng(20240703);
    for (int trial = 0; trial < 300; ++trial) {
      const auto c = static_cast<std::int64_t>(1 + rng() % 40);
      const auto [a1, a2] = ordered(rng, 0, 1.2 * static_cast<double>(c));
      CHECK(erlang_c({.servers = c, .offered_load = a1}) <=
            erlang_c({.servers = c, .offered_load = a2}) + 1e-12);
      CHECK(erlang_c({.servers = c + 1, .offered_load = a2}) <=
            erlang_c({.servers = c, .offered_load = a2}) + 1e-12);
      if (a2 >= static_cast<double>(c)) CHECK(erlang_c({.servers = c, .offered_load = a2}) == 1.0);
      CHECK(erlang_c({.servers = c, .offered_load = a1}) >= 0.0);
      const double mu = uniform(rng, 0.2, 5);
      const sec t(uniform(rng, 0, 2));
      const double q = uniform(rng, 0.5, 0.99);
      const auto [l1, l2] = ordered(rng, 0, 60 * mu);
      const std::int64_t n1 = mmc_servers_needed({.arrival_rate_per_second = l1,
                                                  .service_rate_per_second = mu,
                                                  .threshold = t,
                                                  .quota = q});
      const std::int64_t n2 = mmc_servers_needed({.arrival_rate_per_second = l2,
                                                  .service_rate_per_second = mu,
                                                  .threshold = t,
                                                  .quota = q});
      CHECK(n1 <= n2);
      CHECK(static_cast<double>(n2) > l2 / mu);
      CHECK(mmc_queue{.arrival_rate_per_second = l2, .service_rate_per_second = mu, .servers = n2}
                .wait_conformance(t) >= q - 1e-9);
      if (n2 > 1)
        CHECK(mmc_queue{
                  .arrival_rate_per_second = l2, .service_rate_per_second = mu, .servers = n2 - 1}
                  .wait_conformance(t) < q + 1e-9);
    }
  }

  TEST_CASE("properties: cost per token never rises with utilization") {
    // price/(3600·ν·ρ̄): a busier replica spreads the same hourly price over more tokens.
    std::mt19937_64 rng(20240704);
    for (int trial = 0; trial < 400; ++trial) {
      const double price = uniform(rng, 0, 100), nu = uniform(rng, 1, 10000);
      const auto [r1, r2] = ordered(rng, 1e-3, 1);
      CHECK(
          cost_per_token({.hourly_cost = price, .tokens_per_second = nu, .mean_utilization = r2}) <=
          cost_per_token({.hourly_cost = price, .tokens_per_second = nu, .mean_utilization = r1}));
      CHECK(
          cost_per_token({.hourly_cost = price, .tokens_per_second = nu, .mean_utilization = r2}) >=
          cost_per_token({.hourly_cost = price, .tokens_per_second = nu, .mean_utilization = 1.0}));
      // ...and is the full-utilization cost scaled by 1/ρ̄ (within rounding)
      CHECK(
          cost_per_token({.hourly_cost = price, .tokens_per_second = nu, .mean_utilization = r1}) *
              r1 ==
          doctest::Approx(cost_per_token({.hourly_cost = price, .tokens_per_second = nu}))
              .epsilon(1e-12));
    }
  }

  TEST_CASE("properties: the spot factor falls with the discount and rises with lost work") {
    // (1 − d)/(1 − ω): non-increasing in d, non-decreasing in ω; below 1 exactly when
    // spot pays (d > ω).
    std::mt19937_64 rng(20240705);
    for (int trial = 0; trial < 400; ++trial) {
      const auto [d1, d2] = ordered(rng, 0, 0.999);
      const auto [w1, w2] = ordered(rng, 0, 0.999);
      CHECK(spot_factor({.discount = d2, .lost_work = w1}) <=
            spot_factor({.discount = d1, .lost_work = w1}));
      CHECK(spot_factor({.discount = d1, .lost_work = w1}) <=
            spot_factor({.discount = d1, .lost_work = w2}));
      CHECK((spot_factor({.discount = d2, .lost_work = w1}) < 1.0) ==
            spot_pays({.discount = d2, .lost_work = w1}));
    }
  }

  TEST_CASE("properties: replicas needed is monotone in the rate and a true ceiling") {
    // N = ceil(λ/(ρ·μ)): N·ρμ >= λ > (N − 1)·ρμ (compared with a relative slack of 1e-12
    // for the rounding of ρμ), and N is non-decreasing in λ.
    std::mt19937_64 rng(20240706);
    for (int trial = 0; trial < 400; ++trial) {
      const double rho = uniform(rng, 0.05, 1), mu = uniform(rng, 0.1, 100);
      const auto [l1, l2] = ordered(rng, 0, 5000);
      const std::int64_t n1 = replicas_needed({.arrival_rate_per_second = l1,
                                               .target_utilization = rho,
                                               .capacity_per_second = mu}),
                         n2 = replicas_needed({.arrival_rate_per_second = l2,
                                               .target_utilization = rho,
                                               .capacity_per_second = mu});
      CHECK(n1 <= n2);
      const double per = rho * mu;
      for (auto [n, l] : {std::pair{n1, l1}, std::pair{n2, l2}}) {
        CHECK(n >= 0);
        CHECK(static_cast<double>(n) * per >= l * (1 - 1e-12));
        CHECK(static_cast<double>(n - 1) * per < l * (1 + 1e-12));
      }
      // an exact multiple needs exactly that many
      const auto k = static_cast<std::int64_t>(1 + rng() % 50);
      CHECK(replicas_needed({.arrival_rate_per_second = static_cast<double>(k),
                             .target_utilization = 0.5,
                             .capacity_per_second = 4.0}) == (k + 1) / 2);
    }
    CHECK(replicas_needed({.arrival_rate_per_second = 0.0,
                           .target_utilization = 0.5,
                           .capacity_per_second = 1.0}) == 0);
  }

#if defined(__cpp_exceptions)
  TEST_CASE("properties: finite inputs never give NaN") {
    // Every closed-form formula of queueing, coldstart, cost and roofline, fed every tuple of
    // finite values from 0 to the largest double: each either names a rejected parameter or
    // returns a number (possibly +inf where the true value exceeds a double, as docs/errors.md
    // says), never NaN. Products such as 2·N_p·ν with ν = 0 and N_p near the top, sums that
    // overflow while their quotient does not, and 0/0 from underflow all gave NaN here.
    using a1 = std::array<double, 1>;
    using a2 = std::array<double, 2>;
    using a3 = std::array<double, 3>;
    using a4 = std::array<double, 4>;
    using a5 = std::array<double, 5>;
    // roofline.hpp
    CHECK(nan_results<2>([](const a2& a) {
            return weight_bytes({.parameters = a[0], .bytes_per_parameter = a[1]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return kv_cache_bytes(
                {.batch = a[0], .context_tokens = a[1], .kv_bytes_per_token = a[2]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return mfu(
                {.parameters = a[0], .tokens_per_second = a[1], .peak_flops_per_second = a[2]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return decode_bandwidth({.weight_bytes = a[0], .kv_bytes = a[1], .tpot = sec(a[2])});
          }) == 0);
    CHECK(nan_results<4>([](const a4& a) {
            return mbu({.weight_bytes = a[0],
                        .kv_bytes = a[1],
                        .tpot = sec(a[2]),
                        .peak_bytes_per_second = a[3]});
          }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return ridge_point({.peak_flops_per_second = a[0], .peak_bytes_per_second = a[1]});
          }) == 0);
    CHECK(nan_results<5>([](const a5& a) {
            return decode_intensity({.parameters = a[0],
                                     .weight_bytes = a[1],
                                     .batch = a[2],
                                     .context_tokens = a[3],
                                     .kv_bytes_per_token = a[4]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return decode_intensity_limit(
                {.parameters = a[0], .context_tokens = a[1], .kv_bytes_per_token = a[2]});
          }) == 0);
    CHECK(nan_results<2>(
              [](const a2& a) { return mfu_ceiling({.intensity = a[0], .ridge = a[1]}); }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return attainable_flops_per_second(a[0], accelerator_spec{.name = "x",
                                                                      .peak_flops_per_second = a[1],
                                                                      .peak_bytes_per_second = a[2],
                                                                      .memory_bytes = 1.0});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return max_compute_bound_context(
                {.parameters = a[0], .kv_bytes_per_token = a[1], .ridge = a[2]});
          }) == 0);
    CHECK(nan_results<5>([](const a5& a) {
            return max_compute_bound_context_at_batch({.parameters = a[0],
                                                       .weight_bytes = a[1],
                                                       .batch = a[2],
                                                       .kv_bytes_per_token = a[3],
                                                       .ridge = a[4]})
                .value_or(0.0);
          }) == 0);
    CHECK(nan_results<4>([](const a4& a) {
            return roofline_time({.flops = a[0], .bytes = a[1]},
                                 {.peak_flops_per_second = a[2], .peak_bytes_per_second = a[3]})
                .count();
          }) == 0);
    // cost.hpp
    CHECK(nan_results<2>([](const a2& a) {
            return replica_token_rate({.capacity_per_second = a[0], .mean_output_tokens = a[1]});
          }) == 0);
    CHECK(nan_results<1>([](const a1& a) { return tokens_per_hour(a[0]); }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return mean_utilization({.served = a[0], .servable = a[1]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return cost_per_token(
                {.hourly_cost = a[0], .tokens_per_second = a[1], .mean_utilization = a[2]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return cost_per_million_tokens(
                {.hourly_cost = a[0], .tokens_per_second = a[1], .mean_utilization = a[2]});
          }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return replica_hours(std::array<double, 2>{a[0], a[0]}, sec(a[1]));
          }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return fleet_hourly_cost({.replicas = a[0], .price_per_replica_hour = a[1]});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return spot_cost({.on_demand_cost = a[0], .discount = a[1], .lost_work = a[2]});
          }) == 0);
    for (const std::int64_t replicas : {std::int64_t{1}, std::int64_t{1} << 62}) {
      CHECK(nan_results<4>([replicas](const a4& a) {
              const two_tier_plan p =
                  two_tier_split(two_tier_inputs{.replicas = replicas,
                                                 .minimum_replicas = 0,
                                                 .non_interruptible_share = a[0],
                                                 .on_demand_price_per_hour = a[1],
                                                 .spot_discount = a[2],
                                                 .lost_work = a[3]});
              return p.hourly_cost + p.all_on_demand_hourly_cost + p.blended_factor;
            }) == 0);
    }
    CHECK(nan_results<5>([](const a5& a) {
            const phase_costs p = split_cost_by_gpu_time({.hourly_cost = a[0],
                                                          .prefill_tokens = a[1],
                                                          .prefill_gpu_time = sec(a[2]),
                                                          .decode_tokens = a[3],
                                                          .decode_gpu_time = sec(a[4])});
            return p.prefill_share + p.decode_share + p.prefill_cost_per_token +
                   p.decode_cost_per_token;
          }) == 0);
    // queueing.hpp
    CHECK(nan_results<2>([](const a2& a) { return littles_law_in_flight(a[0], sec(a[1])); }) == 0);
    CHECK(nan_results<2>([](const a2& a) { return littles_law_rate(a[0], sec(a[1])); }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return target_concurrency({.target_utilization = a[0],
                                       .capacity_per_second = a[1],
                                       .mean_sojourn = sec(a[2])});
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return static_cast<double>(replicas_needed({.arrival_rate_per_second = a[0],
                                                        .target_utilization = a[1],
                                                        .capacity_per_second = a[2]}));
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return closed_loop{.users = a[0], .think_time = sec(a[2])}.rate(sec(a[1]));
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return closed_loop{.users = a[0], .think_time = sec(a[2])}.response_time(a[1]).count();
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .sojourn_conformance(sec(a[2])) +
                   mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .wait_conformance(sec(a[2]));
          }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .mean_sojourn()
                       .count() +
                   mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .mean_wait()
                       .count() +
                   mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .mean_in_system() +
                   mm1_queue{.arrival_rate_per_second = a[0], .service_rate_per_second = a[1]}
                       .mean_queue_length();
          }) == 0);
    // M/M/c costs O(c) for an offered load a = λ/μ (up to 2^53 accepted): loads kept small.
    const auto small_load = [](const auto& a) { return a[0] <= 1e3 * a[1]; };
    for (const std::int64_t c : {std::int64_t{1}, std::int64_t{2}, std::int64_t{100}}) {
      CHECK(nan_results<3>([&](const a3& a) {
              return small_load(a) ? mmc_queue{.arrival_rate_per_second = a[0],
                                               .service_rate_per_second = a[1],
                                               .servers = c}
                                         .wait_conformance(sec(a[2]))
                                   : 0.0;
            }) == 0);
      CHECK(nan_results<2>([&](const a2& a) {
              return small_load(a) ? mmc_queue{.arrival_rate_per_second = a[0],
                                               .service_rate_per_second = a[1],
                                               .servers = c}
                                             .mean_sojourn()
                                             .count() +
                                         mmc_queue{.arrival_rate_per_second = a[0],
                                                   .service_rate_per_second = a[1],
                                                   .servers = c}
                                             .mean_queue_length()
                                   : 0.0;
            }) == 0);
    }
    CHECK(nan_results<3>([&](const a3& a) {
            return small_load(a)
                       ? static_cast<double>(mmc_servers_needed({.arrival_rate_per_second = a[0],
                                                                 .service_rate_per_second = a[1],
                                                                 .threshold = sec(a[2]),
                                                                 .quota = 0.9}))
                       : 0.0;
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return mg1_queue{.arrival_rate_per_second = a[0],
                             .service_rate_per_second = a[1],
                             .service_cv = a[2]}
                .mean_sojourn()
                .count();
          }) == 0);
    // coldstart.hpp
    CHECK(nan_results<4>([](const a4& a) {
            return static_cast<double>(ramp_reserve({.max_ramp_per_second = a[0],
                                                     .start_time = sec(a[1]),
                                                     .target_utilization = a[2],
                                                     .capacity_per_second = a[3]}));
          }) == 0);
    CHECK(nan_results<3>([](const a3& a) {
            return static_cast<double>(step_reserve({.step_rate_per_second = a[0],
                                                     .target_utilization = a[1],
                                                     .capacity_per_second = a[2]}));
          }) == 0);
    CHECK(nan_results<2>([](const a2& a) {
            return weight_load_time({.weight_bytes = a[0],
                                     .channel_bytes_per_second = a[1],
                                     .gpus = 8,
                                     .sharing = channel_sharing::independent})
                .count();
          }) == 0);
  }
#endif
}

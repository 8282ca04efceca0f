// SPDX-License-Identifier: Apache-2.0
// Property tests across components: each runs a few hundred seeded random inputs and checks
// an invariant against something the code under test does not compute itself (a law of
// queueing theory, a monotonicity the formula must have, an integer inequality).
// The autoscaler's bounds, stabilization windows and rate limits on random streams are
// covered in tests/unit/autoscaler.test.cpp ("autoscaler: properties over random streams
// (range / windows / rates)"), and the scheduler's kept-vs-fresh and static-vs-dynamic
// properties in tests/unit/scheduler.test.cpp and tests/fuzz/scheduler.fuzz.cpp; not here.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <headroom/cost.hpp>
#include <headroom/queueing.hpp>
#include <headroom/sim/replica.hpp>

namespace {
using namespace headroom;
using sec = std::chrono::duration<double>;

/// Uniform draw in [lo, hi).
double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
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
      std::exponential_distribution<double> gap(lambda);
      std::vector<sim::request> reqs;
      double t = 0;
      for (int k = 0; k < 150; ++k) {
        t += gap(rng);
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
      CHECK(mm1_sojourn_conformance(l1, mu, tau) >= mm1_sojourn_conformance(l2, mu, tau));
      CHECK(mm1_wait_conformance(l1, mu, tau) >= mm1_wait_conformance(l2, mu, tau));
      for (double c : {mm1_sojourn_conformance(l2, mu, tau), mm1_wait_conformance(l2, mu, tau)}) {
        CHECK(c >= 0.0);
        CHECK(c <= 1.0);
      }
      if (l2 < mu) {
        CHECK(mm1_mean_sojourn(l1, mu) <= mm1_mean_sojourn(l2, mu));
        CHECK(mm1_mean_wait(l1, mu) <= mm1_mean_wait(l2, mu));
        // the wait is part of the sojourn
        CHECK(mm1_wait_conformance(l2, mu, tau) >= mm1_sojourn_conformance(l2, mu, tau) - 1e-12);
      } else {
        CHECK(mm1_sojourn_conformance(l2, mu, tau) == 0.0);
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
      CHECK(erlang_c(c, a1) <= erlang_c(c, a2) + 1e-12);
      CHECK(erlang_c(c + 1, a2) <= erlang_c(c, a2) + 1e-12);
      if (a2 >= static_cast<double>(c)) CHECK(erlang_c(c, a2) == 1.0);
      CHECK(erlang_c(c, a1) >= 0.0);
      const double mu = uniform(rng, 0.2, 5);
      const sec t(uniform(rng, 0, 2));
      const double q = uniform(rng, 0.5, 0.99);
      const auto [l1, l2] = ordered(rng, 0, 60 * mu);
      const std::int64_t n1 = mmc_servers_needed(l1, mu, t, q);
      const std::int64_t n2 = mmc_servers_needed(l2, mu, t, q);
      CHECK(n1 <= n2);
      CHECK(static_cast<double>(n2) > l2 / mu);
      CHECK(mmc_wait_conformance(l2, mu, n2, t) >= q - 1e-9);
      if (n2 > 1) CHECK(mmc_wait_conformance(l2, mu, n2 - 1, t) < q + 1e-9);
    }
  }

  TEST_CASE("properties: cost per token never rises with utilisation") {
    // price/(3600·ν·ρ̄): a busier replica spreads the same hourly price over more tokens.
    std::mt19937_64 rng(20240704);
    for (int trial = 0; trial < 400; ++trial) {
      const double price = uniform(rng, 0, 100), nu = uniform(rng, 1, 10000);
      const auto [r1, r2] = ordered(rng, 1e-3, 1);
      CHECK(cost_per_token(price, nu, r2) <= cost_per_token(price, nu, r1));
      CHECK(cost_per_token(price, nu, r2) >= cost_per_token(price, nu, 1.0));
      // ...and is the full-utilisation cost scaled by 1/ρ̄ (within rounding)
      CHECK(cost_per_token(price, nu, r1) * r1 ==
            doctest::Approx(cost_per_token(price, nu)).epsilon(1e-12));
    }
  }

  TEST_CASE("properties: the spot factor falls with the discount and rises with lost work") {
    // (1 − d)/(1 − ω): non-increasing in d, non-decreasing in ω; below 1 exactly when
    // spot pays (d > ω).
    std::mt19937_64 rng(20240705);
    for (int trial = 0; trial < 400; ++trial) {
      const auto [d1, d2] = ordered(rng, 0, 0.999);
      const auto [w1, w2] = ordered(rng, 0, 0.999);
      CHECK(spot_factor(d2, w1) <= spot_factor(d1, w1));
      CHECK(spot_factor(d1, w1) <= spot_factor(d1, w2));
      CHECK((spot_factor(d2, w1) < 1.0) == spot_pays(d2, w1));
    }
  }

  TEST_CASE("properties: replicas needed is monotone in the rate and a true ceiling") {
    // N = ceil(λ/(ρ·μ)): N·ρμ >= λ > (N − 1)·ρμ (compared with a relative slack of 1e-12
    // for the rounding of ρμ), and N is non-decreasing in λ.
    std::mt19937_64 rng(20240706);
    for (int trial = 0; trial < 400; ++trial) {
      const double rho = uniform(rng, 0.05, 1), mu = uniform(rng, 0.1, 100);
      const auto [l1, l2] = ordered(rng, 0, 5000);
      const std::int64_t n1 = replicas_needed(l1, rho, mu), n2 = replicas_needed(l2, rho, mu);
      CHECK(n1 <= n2);
      const double per = rho * mu;
      for (auto [n, l] : {std::pair{n1, l1}, std::pair{n2, l2}}) {
        CHECK(n >= 0);
        CHECK(static_cast<double>(n) * per >= l * (1 - 1e-12));
        CHECK(static_cast<double>(n - 1) * per < l * (1 + 1e-12));
      }
      // an exact multiple needs exactly that many
      const auto k = static_cast<std::int64_t>(1 + rng() % 50);
      CHECK(replicas_needed(static_cast<double>(k), 0.5, 4.0) == (k + 1) / 2);
    }
    CHECK(replicas_needed(0.0, 0.5, 1.0) == 0);
  }
}

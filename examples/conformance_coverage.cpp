// SPDX-License-Identifier: Apache-2.0
// Does a 95 % conformance interval cover the truth 95 % of the time? A coverage experiment
// on an M/M/1 replica built with the library's own simulator (sim/replica.hpp: one
// sequence at a time, one output token, exponential steps of mean 1 s, so μ = 1 req/s),
// offered Poisson load ρ, with the SLO threshold τ = ln 10/(μ − λ) on the sojourn time so
// that the true conformance is exactly 1 − e^{−(μ−λ)τ} = 0.9 at every ρ. Each replication is
// an independent run (its own seeds), measured as capacity_sweep measures (10 % warm-up,
// 10 % cool-down); the table counts how often the interval holds 0.9.
//
// Then the μ* search: q = 0.9, τ = ln 10/0.1, so μ* = μ − ln 10/τ = 0.9 req/s exactly, over
// independent seeds: how often the reported bracket holds 0.9 and how often μ* is overstated.
//
// Usage: conformance_coverage [--full] [--replications R] [--requests N,N,...]
//                             [--rho r,r,...] [--search-seeds S] [--search-requests N,...]
//                             [--compare]
//   default: a quick look (20 replications of 5·10³ requests at ρ = 0.5 and 0.9, one
//            search of 10⁴ requests a run): too few to read coverage from
//   --full: the tables of docs/capacity.md: 400 replications of 10⁴ and 10⁵ requests at
//           ρ = 0.5, 0.8, 0.9, 0.95, the alternatives (--compare), 50 search seeds with
//           10⁴ and 10⁵ requests a run
//   --compare: also the intervals the library did not choose, on the same runs
#include <headroom/arrivals.hpp>
#include <headroom/capacity.hpp>
#include <headroom/sim/replica.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flags.hpp"

namespace {

using seconds_d = std::chrono::duration<double>;
using namespace std::chrono_literals;
namespace sim = headroom::sim;

constexpr double mu = 1.0;     // service rate, req/s
constexpr double truth = 0.9;  // the true conformance (and the quota)

// One sequence at a time, one output token, whole prefill: each step is one request's
// exponential service time (the M/M/1 reduction, docs/simulation.md).
constexpr sim::replica_config single_server{.max_batch = 1,
                                            .kv_budget_tokens = 16,
                                            .max_batched_tokens = 16,
                                            .prefill = sim::prefill_mode::whole,
                                            .kv = sim::kv_policy::reserve_full};

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): independent-looking seeds from a counter.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct run {
  headroom::capacity::conformance_estimate estimate;  // the library's, via measure_conformance
  std::vector<std::uint8_t> hits;                     // the window's outcomes in arrival order
  std::vector<std::pair<double, double>> cycles;      // regenerative cycles: (conforming, requests)
};

// One open-loop run of `requests` Poisson arrivals at λ, measured against TTFT <= τ.
run simulate_mm1(double lambda, double tau_s, std::size_t requests, std::uint64_t seed,
                 bool keep_hits) {
  std::mt19937_64 engine(mix(seed));
  const auto schedule = headroom::arrivals::poisson_schedule(lambda, requests, engine);
  const auto offered = sim::make_requests(
      schedule, sim::fixed_lengths{.lengths = {.prompt_tokens = 1, .output_tokens = 1}}, engine);
  const auto result = sim::simulate(single_server, std::span<const sim::request>(offered),
                                    sim::exponential_step_time(seconds_d(1.0 / mu), mix(~seed)));
  const double span_s = schedule.back().count();
  const headroom::capacity::measurement_window window{.warm_up = seconds_d(0.1 * span_s),
                                                      .cool_down = seconds_d(0.1 * span_s),
                                                      .run_end = schedule.back()};
  const headroom::capacity::slo objective{.ttft = seconds_d(tau_s), .tpot = 1s};
  run r{headroom::capacity::measure_conformance(result.outcomes, objective, window), {}, {}};
  if (keep_hits) {
    r.hits.reserve(requests);
    // A request that arrives to an empty system starts a regeneration cycle (the queue
    // forgets its past): cycles that start and end inside the window.
    double busy_until = -1.0;
    bool open = false;
    std::pair<double, double> cycle{0.0, 0.0};
    for (const auto& o : result.outcomes) {
      const double t = o.intended_arrival.count();
      const bool inside = t >= window.warm_up.count() && t <= span_s - window.cool_down.count();
      const bool hit = headroom::capacity::meets_slo(objective, o);
      if (t >= busy_until) {  // regeneration
        if (open) r.cycles.push_back(cycle);
        open = inside;
        cycle = {0.0, 0.0};
      }
      if (open) {
        cycle.first += hit ? 1.0 : 0.0;
        cycle.second += 1.0;
      }
      busy_until = std::max(busy_until, o.finished.count());
      if (inside) r.hits.push_back(hit ? 1 : 0);
    }
  }
  return r;
}

// ---- the alternatives (for --compare), computed from the same hits ----------------------
// Each is a classical interval the library could have used; the library's own is
// conformance_series::estimate. t quantiles from the library's (internal) implementation.

struct interval {
  double lower = 0.0;
  double upper = 1.0;
};

double t_quantile(double df) { return headroom::detail::student_t_quantile_matching(1.96, df); }

std::vector<double> batch_means(std::span<const std::uint8_t> x, std::size_t size) {
  const std::size_t k = x.size() / size;
  const std::size_t first = x.size() - k * size;  // drop the leading remainder
  std::vector<double> means(k);
  for (std::size_t i = 0; i < k; ++i) {
    std::size_t sum = 0;
    for (std::size_t j = 0; j < size; ++j) sum += x[first + i * size + j];
    means[i] = static_cast<double>(sum) / static_cast<double>(size);
  }
  return means;
}

double share_of(std::span<const std::uint8_t> x) {
  std::size_t sum = 0;
  for (const auto v : x) sum += v;
  return static_cast<double>(sum) / static_cast<double>(x.size());
}

// Classical batch means: k batches, p̂ ± t_{k−1}·s/√k (Law, Simulation Modeling and
// Analysis, §9.5.3; Schmeiser, Oper. Res. 30 (1982) recommends 10–30 batches).
interval fixed_batches(std::span<const std::uint8_t> x, std::size_t k) {
  const auto means = batch_means(x, x.size() / k);
  const auto m = headroom::capacity::detail::moments_of(means);
  const double half = t_quantile(static_cast<double>(means.size() - 1)) *
                      std::sqrt(m.variance / static_cast<double>(means.size()));
  const double p = share_of(x);
  return {p - half, p + half};
}

// LBATCH-like: from 128 batches, double the batch size while von Neumann's test finds
// lag-1 correlation at 10 % (Fishman & Yarberry, INFORMS J. Comput. 9, 1997; at least 5
// batches); then p̂ ± t·s/√k.
interval lbatch(std::span<const std::uint8_t> x) {
  std::size_t size = std::max<std::size_t>(1, x.size() / 128);
  std::vector<double> means;
  headroom::capacity::detail::series_moments m;
  for (;;) {
    means = batch_means(x, size);
    m = headroom::capacity::detail::moments_of(means);
    const double k = static_cast<double>(means.size());
    const bool correlated = m.von_neumann > 1.2816 * std::sqrt((k - 2.0) / (k * k - 1.0));
    if (!(m.variance > 0.0) || !correlated || means.size() / 2 < 5) break;
    size *= 2;
  }
  const double k = static_cast<double>(means.size());
  const double half = t_quantile(k - 1.0) * std::sqrt(m.variance / k);
  const double p = share_of(x);
  return {p - half, p + half};
}

// The regenerative method (Crane & Iglehart, Oper. Res. 23, 1975): cycles between arrivals
// to an empty system are i.i.d.; the ratio estimator ΣY/ΣN with its delta-method standard
// error sqrt(Σ(Y − p̂N)²/(C − 1)/C)/N̄, and a t interval on C − 1 degrees of freedom.
interval regenerative(std::span<const std::pair<double, double>> cycles) {
  if (cycles.size() < 2) return {0.0, 1.0};
  double conforming = 0.0;
  double requests = 0.0;
  for (const auto& [y, n] : cycles) {
    conforming += y;
    requests += n;
  }
  const double p = conforming / requests;
  double squares = 0.0;
  for (const auto& [y, n] : cycles) squares += (y - p * n) * (y - p * n);
  const double c = static_cast<double>(cycles.size());
  const double se = std::sqrt(squares / (c - 1.0) / c) / (requests / c);
  const double half = t_quantile(c - 1.0) * se;
  return {p - half, p + half};
}

// The library's own pieces, from its estimate (batches chosen with Sokal's rule, variance
// inflated for lag-1 correlation): the plain t interval, Wilson's score at the effective
// sample size, Willink's skewness-adjusted t; the library reports the hull of the last two.
interval plain_t(const headroom::capacity::conformance_estimate& e) {
  const double half = t_quantile(e.degrees_of_freedom) * e.standard_error;
  return {e.share - half, e.share + half};
}
interval score(const headroom::capacity::conformance_estimate& e) {
  const auto w = headroom::capacity::detail::wilson_bounds(e.share, e.effective_sample_size,
                                                           t_quantile(e.degrees_of_freedom));
  return {w.lower, w.upper};
}
interval willink(const headroom::capacity::conformance_estimate& e) {
  const double t = t_quantile(e.degrees_of_freedom);
  const double beta = e.skewness / 6.0;
  const auto g = [beta](double zeta) {
    if (std::abs(beta) < 1e-12) return zeta;
    return (std::cbrt(1.0 + 6.0 * beta * (zeta - beta)) - 1.0) / (2.0 * beta);
  };
  return {e.share - g(t) * e.standard_error, e.share - g(-t) * e.standard_error};
}

// ---- tallies -------------------------------------------------------------------------------

struct tally {
  std::size_t covered = 0;
  std::size_t above = 0;  // lower > truth: the interval overstates conformance
  std::size_t below = 0;  // upper < truth
  double width = 0.0;
  double ess = 0.0;
  double batches = 0.0;
  std::size_t count = 0;
  void add(double lower, double upper, double effective = 0.0, double batch_count = 0.0) {
    ++count;
    if (lower > truth)
      ++above;
    else if (upper < truth)
      ++below;
    else
      ++covered;
    width += upper - lower;
    ess += effective;
    batches += batch_count;
  }
  [[nodiscard]] double coverage() const {
    return static_cast<double>(covered) / static_cast<double>(count);
  }
  [[nodiscard]] double mean(double sum) const { return sum / static_cast<double>(count); }
};

std::string power_of_ten(std::size_t n) {
  std::size_t e = 0;
  std::size_t m = n;
  while (m % 10 == 0 && m >= 10) {
    m /= 10;
    ++e;
  }
  if (m == 1) return "10^" + std::to_string(e);
  if (m < 10) return std::to_string(m) + "·10^" + std::to_string(e);
  return std::to_string(n);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replications = 20;
  std::vector<double> request_counts{5e3};
  std::vector<double> loads{0.5, 0.9};
  std::size_t search_seeds = 1;
  std::vector<double> search_requests{1e4};
  bool compare = false;
  bool full = false;
  example::flags flags(
      "conformance_coverage",
      "How often the conformance interval covers the truth: M/M/1 replicas (mu = 1) "
      "simulated\nat loads rho, an interval per run, coverage over replications; "
      "and the mu* search over seeds.");
  flags
      .toggle("--full", full,
              "the tables of docs/capacity.md: 400 replications of 1e4 and 1e5 requests at rho = "
              "0.5, 0.8, 0.9, 0.95, --compare, 50 search seeds (overrides the other flags)")
      .whole("--replications", replications, {.low = 2, .high = 1e6}, "runs",
             "independent runs per cell")
      .numbers("--requests", request_counts, {.low = 100, .high = 1e9}, "requests",
               "requests per run, one cell each")
      .numbers("--rho", loads, {.low = 0, .high = 1, .low_open = true, .high_open = true}, "",
               "loads lambda/mu, one cell each")
      .whole("--search-seeds", search_seeds, {.low = 0, .high = 1e6}, "seeds",
             "mu* searches, one per seed (0: none)")
      .numbers("--search-requests", search_requests, {.low = 100, .high = 1e9}, "requests",
               "requests per run in the mu* search")
      .toggle("--compare", compare,
              "also the intervals the library did not choose, on the same runs");
  flags.parse(argc, argv);
  if (full) {
    replications = 400;
    request_counts = {1e4, 1e5};
    loads = {0.5, 0.8, 0.9, 0.95};
    search_seeds = 50;
    search_requests = {1e4, 1e5};
    compare = true;
  }
  const auto started = std::chrono::steady_clock::now();

  // ---- 1. coverage of one run's interval ------------------------------------------------
  std::printf(
      "Coverage of the nominal 95 %% interval, M/M/1 (mu = 1), true conformance 0.9,\n"
      "%zu independent replications per row (10 %% warm-up, 10 %% cool-down).\n\n",
      replications);
  std::printf(
      "| rho | requests | coverage | misses above / below | mean width | mean ESS | mean "
      "batches | Wilson coverage | 10 runs of n/10: coverage, width "
      "|\n|---|---|---|---|---|---|---|---|---|\n");
  struct alternatives {
    std::string label;
    tally wilson, twenty, lbatch, regen, plain, skewed, scored, library;
  };
  std::vector<alternatives> compared;
  std::uint64_t cell = 0;
  for (const double n_requests : request_counts) {
    const auto n = static_cast<std::size_t>(n_requests);
    for (const double rho : loads) {
      ++cell;
      const double tau_s = std::log(10.0) / (mu - rho * mu);
      tally library;
      tally wilson;
      tally replicated;
      alternatives alt;
      alt.label = "| " + std::to_string(rho).substr(0, 4) + " | " + power_of_ten(n) + " |";
      for (std::size_t r = 0; r < replications; ++r) {
        const std::uint64_t seed = (cell << 40) ^ (static_cast<std::uint64_t>(r) << 8);
        const auto one = simulate_mm1(rho * mu, tau_s, n, seed, compare);
        const auto& e = one.estimate;
        library.add(e.lower, e.upper, e.effective_sample_size, static_cast<double>(e.batches));
        wilson.add(e.wilson_lower, e.wilson_upper);
        // The same requests spent as 10 independent runs of n/10: replicated_conformance.
        std::vector<headroom::capacity::conformance_estimate> runs;
        for (std::uint64_t j = 0; j < 10; ++j)
          runs.push_back(simulate_mm1(rho * mu, tau_s, n / 10, seed ^ (j + 1), false).estimate);
        const auto rep = headroom::capacity::replicated_conformance(runs);
        replicated.add(rep.lower, rep.upper, rep.effective_sample_size);
        if (compare) {
          const std::span<const std::uint8_t> x(one.hits);
          const auto w = headroom::capacity::wilson_interval(
              {.successes =
                   static_cast<std::size_t>(std::count(x.begin(), x.end(), std::uint8_t{1})),
               .trials = x.size()});
          alt.wilson.add(w.lower, w.upper);
          const auto f = fixed_batches(x, 20);
          alt.twenty.add(f.lower, f.upper);
          const auto l = lbatch(x);
          alt.lbatch.add(l.lower, l.upper);
          const auto g = regenerative(one.cycles);
          alt.regen.add(g.lower, g.upper);
          const auto t = plain_t(e);
          alt.plain.add(t.lower, t.upper);
          const auto k = willink(e);
          alt.skewed.add(k.lower, k.upper);
          const auto c = score(e);
          alt.scored.add(c.lower, c.upper);
          alt.library.add(e.lower, e.upper);
        }
      }
      std::printf("| %.2f | %s | %.3f | %.3f / %.3f | %.4f | %.0f | %.1f | %.3f | %.3f, %.4f |\n",
                  rho, power_of_ten(n).c_str(), library.coverage(),
                  static_cast<double>(library.above) / static_cast<double>(library.count),
                  static_cast<double>(library.below) / static_cast<double>(library.count),
                  library.mean(library.width), library.mean(library.ess),
                  library.mean(library.batches), wilson.coverage(), replicated.coverage(),
                  replicated.mean(replicated.width));
      std::fflush(stdout);
      if (compare) compared.push_back(alt);
    }
  }

  if (compare) {
    std::printf(
        "\nThe alternatives on the same runs: coverage (misses above, where the interval "
        "overstates conformance) and mean width.\n\n"
        "| rho | requests | Wilson | 20 batches, t | LBATCH-like, t | regenerative | library's "
        "batches, t | skewness-adjusted t | Wilson at the ESS | library: hull of the last two "
        "|\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& a : compared) {
      std::printf("%s", a.label.c_str());
      for (const tally* t :
           {&a.wilson, &a.twenty, &a.lbatch, &a.regen, &a.plain, &a.skewed, &a.scored, &a.library})
        std::printf(" %.3f (%.3f), %.4f |", t->coverage(),
                    static_cast<double>(t->above) / static_cast<double>(t->count),
                    t->mean(t->width));
      std::printf("\n");
    }
  }

  // ---- 2. the μ* search ----------------------------------------------------------------
  if (search_seeds > 0) {
    const double tau_s = std::log(10.0) / 0.1;
    const double mu_star = headroom::queueing::mm1_capacity(
        {.service_rate_per_second = mu, .threshold = seconds_d(tau_s), .quota = truth});
    std::printf(
        "\nmu* search, M/M/1 (mu = 1, tau = ln 10/0.1 s, q = 0.9, true mu* = %.4f), %zu seeds,\n"
        "bracket from 0.5 and 1.0 req/s, relative tolerance 0.01, at most 40 runs.\n\n",
        mu_star, search_seeds);
    std::printf(
        "| requests per run | decided by | bracket holds mu* | mu* > true + 0.005 | mean mu* | "
        "median bracket | mean runs | mean requests | ends undecided |\n"
        "|---|---|---|---|---|---|---|---|---|\n");
    for (const double per_run : search_requests) {
      const auto n = static_cast<std::size_t>(per_run);
      for (int variant = 0; variant < 2; ++variant) {
        std::size_t holds = 0;
        std::size_t overstated = 0;
        std::size_t undecided = 0;
        std::size_t reported = 0;
        double runs = 0.0;
        double requests = 0.0;
        double mu_sum = 0.0;
        std::vector<double> widths;
        for (std::size_t s = 0; s < search_seeds; ++s) {
          std::uint64_t calls = 0;
          const std::uint64_t base = (0xC0FFEEULL << 32) ^ (static_cast<std::uint64_t>(s) << 12) ^
                                     (static_cast<std::uint64_t>(n) << 20);
          headroom::capacity::capacity_search_result found;
          headroom::capacity::capacity_search_options options{.quota = truth,
                                                              .rate_low_per_second = 0.5,
                                                              .rate_high_per_second = 1.0,
                                                              .relative_tolerance = 0.01,
                                                              .max_measurements = 40,
                                                              .max_runs_per_rate = 4};
          if (variant == 0) {
            // The library: each call a new independent run; undecided rates get more runs
            // and stay inside the bracket, which narrows from both sides.
            auto measure = [&](headroom::capacity::capacity_probe p) {
              return simulate_mm1(p.rate_per_second, tau_s, n, base + ++calls, false).estimate;
            };
            found = headroom::capacity::search_capacity(measure, options);
          } else {
            // Before: Wilson's interval (independent requests), one run per rate, stop at the
            // first undecided point.
            options.when_undecided = headroom::capacity::undecided_policy::stop;
            auto measure = [&](double rate) {
              const auto e = simulate_mm1(rate, tau_s, n, base + ++calls, false).estimate;
              auto wilson = headroom::capacity::conformance_from_counts(
                  {.successes = e.conforming, .trials = e.n});
              wilson.discarded = e.discarded;
              return wilson;
            };
            found = headroom::capacity::search_capacity(measure, options);
          }
          if (found.bracket_low_per_second <= mu_star && mu_star <= found.bracket_high_per_second)
            ++holds;
          if (found.capacity_per_second) {
            ++reported;
            mu_sum += *found.capacity_per_second;
            if (*found.capacity_per_second > mu_star + 0.005) ++overstated;
          }
          if (found.reason == headroom::capacity::search_stop::undecided) ++undecided;
          runs += static_cast<double>(found.runs);
          requests += static_cast<double>(found.requests);
          widths.push_back(found.bracket_high_per_second - found.bracket_low_per_second);
        }
        std::sort(widths.begin(), widths.end());
        const double seeds = static_cast<double>(search_seeds);
        std::printf("| %s | %s | %.2f | %.2f | %.4f | %.4f | %.1f | %.2g | %.2f |\n",
                    power_of_ten(n).c_str(),
                    variant == 0 ? "library interval, up to 4 runs a rate"
                                 : "Wilson (independence), 1 run a rate",
                    static_cast<double>(holds) / seeds, static_cast<double>(overstated) / seeds,
                    reported > 0 ? mu_sum / static_cast<double>(reported) : 0.0,
                    widths[widths.size() / 2], runs / seeds, requests / seeds,
                    static_cast<double>(undecided) / seeds);
        std::fflush(stdout);
      }
    }
  }
  std::printf("\n(%.1f s)\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return 0;
}

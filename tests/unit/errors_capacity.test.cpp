// SPDX-License-Identifier: Apache-2.0
// The error policy of capacity.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/capacity.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::capacity;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: capacity outcome accessors and meets_slo") {
    // No validation by design (noexcept, per outcome): NaN times compare false and fail.
    const slo objective{.ttft = 1s, .tpot = 100ms};
    request_outcome o{.intended_arrival = 0s,
                      .sent = 0s,
                      .first_token = nan_s,
                      .finished = 1s,
                      .prompt_tokens = 10,
                      .output_tokens = 10};
    CHECK(std::isnan(time_to_first_token(o).count()));
    CHECK_FALSE(meets_slo(objective, o));
    o.first_token = 100ms;
    o.error = true;
    CHECK_FALSE(meets_slo(objective, o));
  }

  TEST_CASE("errors: capacity validate slo") {
    CHECK_REJECTS((validate(slo{.ttft = nan_s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((validate(slo{.ttft = 0s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((validate(slo{.ttft = 1s, .tpot = -1s})), "slo.tpot");
    CHECK_REJECTS((validate(slo{.ttft = 1s, .tpot = 1s, .e2e = inf_s})), "slo.e2e");
  }

  TEST_CASE("errors: capacity wilson_interval") {
    CHECK_REJECTS((wilson_interval({.successes = 0, .trials = 0})), "trials");
    CHECK_REJECTS((wilson_interval({.successes = 5, .trials = 4})), "successes");
    CHECK_REJECTS((wilson_interval({.successes = 1, .trials = 4}, not_a_number)), "z");
    CHECK_REJECTS((wilson_interval({.successes = 1, .trials = 4}, 0.0)), "z");
  }

  TEST_CASE("errors: capacity conformance_from_counts and exact_conformance") {
    CHECK_REJECTS((conformance_from_counts({.successes = 5, .trials = 4})), "successes");
    CHECK_REJECTS((conformance_from_counts({.successes = 1, .trials = 4}, -1.0)), "z");
    CHECK_REJECTS(exact_conformance(not_a_number), "share");
    CHECK_REJECTS(exact_conformance(1.5), "share");
    CHECK(
        conformance_from_counts({.successes = 0, .trials = 0}).empty());  // no information: a value
  }

  TEST_CASE("errors: capacity conformance_series") {
    conformance_series series;
    CHECK_REJECTS(series.estimate(not_a_number), "z");
    CHECK_REJECTS(series.estimate(0.0), "z");
    // No request yet: an empty estimate; fewer than five: Wilson for independent requests.
    CHECK(series.estimate().empty());
    series.add(true);
    CHECK(series.estimate().basis == interval_basis::independent_requests);
  }

  TEST_CASE("errors: capacity replicated_conformance and pooled_conformance") {
    const auto run = conformance_from_counts({.successes = 90, .trials = 100});
    auto bad = run;
    const std::vector<conformance_estimate> exact{run, exact_conformance(0.9)};
    CHECK_REJECTS(replicated_conformance(exact), "runs[i].exact");
    CHECK_REJECTS(pooled_conformance(exact), "runs[i].exact");
    bad.conforming = 101;
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].conforming");
    bad = run;
    bad.standard_error = not_a_number;
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].standard_error");
    bad = run;
    bad.degrees_of_freedom = 0.5;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].degrees_of_freedom");
    bad = run;
    bad.skewness = inf;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].skewness");
    bad = run;
    bad.share = 1.5;
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, bad})),
                  "runs[i].share");
    CHECK_REJECTS((replicated_conformance(std::vector<conformance_estimate>{run, run}, 0.0)), "z");
    CHECK_REJECTS((pooled_conformance(std::vector<conformance_estimate>{run, run}, not_a_number)),
                  "z");
    // Nothing to combine: an empty estimate, not an error.
    CHECK(pooled_conformance(std::vector<conformance_estimate>{}).empty());
    CHECK(replicated_conformance(std::vector<conformance_estimate>{
                                     conformance_from_counts({.successes = 0, .trials = 0})})
              .empty());
  }

  TEST_CASE("errors: capacity measure_conformance") {
    const slo objective{.ttft = 1s, .tpot = 100ms};
    const std::vector<request_outcome> one{{.intended_arrival = 0s,
                                            .sent = 0s,
                                            .first_token = 100ms,
                                            .finished = 200ms,
                                            .prompt_tokens = 10,
                                            .output_tokens = 2}};
    const std::vector<request_outcome> none{};
    CHECK_REJECTS(measure_conformance(none, objective), "outcomes.size()");
    CHECK_REJECTS((measure_conformance(one, slo{.ttft = 0s, .tpot = 1s})), "slo.ttft");
    CHECK_REJECTS((measure_conformance(one, objective, {}, not_a_number)), "z");
    CHECK_REJECTS((measure_conformance(one, objective, {.warm_up = -1s})), "window.warm_up");
    CHECK_REJECTS((measure_conformance(one, objective, {.cool_down = nan_s})), "window.cool_down");
    CHECK_REJECTS((measure_conformance(one, objective, {.run_end = inf_s})), "window.run_end");
    std::vector<request_outcome> bad = one;
    bad[0].intended_arrival = nan_s;
    CHECK_REJECTS(measure_conformance(bad, objective), "outcome.intended_arrival");
    bad = one;
    bad[0].finished = inf_s;
    CHECK_REJECTS(measure_conformance(bad, objective), "outcome.finished");
    // Everything discarded by the window: an empty estimate, not an error.
    CHECK(measure_conformance(one, objective, {.warm_up = 10s}).empty());
  }

  TEST_CASE("errors: capacity find_capacity") {
    const std::vector<capacity_point> none{};
    std::vector<capacity_point> curve{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 95, .trials = 100})},
        {.rate_per_second = 2.0,
         .conformance = conformance_from_counts({.successes = 50, .trials = 100})}};
    CHECK_REJECTS(find_capacity(none), "curve.size()");
    CHECK_REJECTS((find_capacity(curve, {.quota = not_a_number})), "options.quota");
    CHECK_REJECTS((find_capacity(curve, {.quota = 1.0})), "options.quota");
    auto bad = curve;
    bad[1].rate_per_second = 0.0;
    CHECK_REJECTS(find_capacity(bad), "curve[i].rate_per_second");
    bad = curve;
    bad[1].rate_per_second = 1.0;
    CHECK_REJECTS(find_capacity(bad), "curve[i].rate_per_second");  // duplicate rate
    bad = curve;
    bad[1].conformance.share = not_a_number;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.share");
    bad = curve;
    bad[0].conformance.wilson_upper = 1.5;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.wilson_upper");
    bad = curve;
    bad[0].conformance.lower = not_a_number;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.lower");
    bad = curve;
    bad[1].conformance.upper = -0.5;
    CHECK_REJECTS(find_capacity(bad), "curve[i].conformance.upper");
    // No point reaches the quota: nullopt, saturated.
    const std::vector<capacity_point> failing{
        {.rate_per_second = 1.0,
         .conformance = conformance_from_counts({.successes = 10, .trials = 100})}};
    const auto r = find_capacity(failing);
    CHECK_FALSE(r.capacity_per_second.has_value());
    CHECK(r.saturated);
  }

  TEST_CASE("errors: capacity search_capacity") {
    const auto model = [](double rate) { return rate < 10.0 ? 0.95 : 0.5; };
    capacity_search_options good;
    auto o = good;
    o.quota = 0.0;
    CHECK_REJECTS(search_capacity(model, o), "options.quota");
    o = good;
    o.rate_low_per_second = not_a_number;
    CHECK_REJECTS(search_capacity(model, o), "options.rate_low_per_second");
    o = good;
    o.rate_high_per_second = 0.5;
    CHECK_REJECTS(search_capacity(model, o), "options.rate_high_per_second");
    o = good;
    o.relative_tolerance = 0.0;
    CHECK_REJECTS(search_capacity(model, o), "options.relative_tolerance");
    o = good;
    o.growth_factor = 1.0;
    CHECK_REJECTS(search_capacity(model, o), "options.growth_factor");
    o = good;
    o.max_measurements = 1;
    CHECK_REJECTS(search_capacity(model, o), "options.max_measurements");
    o = good;
    o.max_runs_per_rate = 0;
    CHECK_REJECTS(search_capacity(model, o), "options.max_runs_per_rate");
    o = good;
    o.request_budget = 0;
    CHECK_REJECTS(search_capacity(model, o), "options.request_budget");
    CHECK_REJECTS((search_capacity(
                      [](double) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.lower = not_a_number;
                        return e;
                      },
                      good)),
                  "measure(rate).lower");
    CHECK_REJECTS((search_capacity(
                      [](capacity_probe) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.z = 0.0;
                        return e;
                      },
                      good)),
                  "measure(rate).z");
    CHECK_REJECTS((search_capacity([](double) { return not_a_number; }, good)), "measure(rate)");
    CHECK_REJECTS((search_capacity([](double) { return 1.5; }, good)), "measure(rate)");
    CHECK_REJECTS((search_capacity(
                      [](double) {
                        auto e = conformance_from_counts({.successes = 9, .trials = 10});
                        e.share = not_a_number;
                        return e;
                      },
                      good)),
                  "measure(rate).share");
    // Nothing passes within the budget: a reason, not an exception.
    o = good;
    o.max_measurements = 3;
    const auto r = search_capacity([](double) { return 0.0; }, o);
    CHECK(r.reason == search_stop::no_passing_rate);
    CHECK_FALSE(r.capacity_per_second.has_value());
  }
}

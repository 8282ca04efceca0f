// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/prometheus/exposition.hpp and headroom/autoscaler/proposals.hpp.
// Expected text follows the exposition format's rules (prometheus/docs exposition_formats.md:
// HELP and TYPE lines, the escapes of '\\', '"' and newline, "+Inf"/"-Inf"/"NaN"); pages
// are read back with headroom's strict text parser, and `promtool check metrics` runs on
// every decision kind in the ctest test prometheus.promtool_check_metrics.
#include <headroom/autoscaler.hpp>
#include <headroom/autoscaler/proposals.hpp>
#include <headroom/prometheus.hpp>
#include <headroom/prometheus/exposition.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {
namespace prom = headroom::prometheus;

double value_of(const prom::page& p, std::string_view name, std::string_view label,
                std::string_view value) {
  const auto a = prom::aggregate(p, name, label, value);
  REQUIRE(a.missing == prom::missing_reason::none);
  REQUIRE(a.series == 1);
  return a.sum;
}
}  // namespace

TEST_SUITE("prometheus_exposition") {
  TEST_CASE("a family with escaped help and label values") {
    prom::exposition_page page;
    page.family("headroom_test_ratio", "back\\slash and\nnewline", "gauge");
    page.sample({{.name = "a", .value = "q\"u\\o\nte"}}, 0.5);
    page.sample({}, std::numeric_limits<double>::infinity());
    page.sample({{.name = "b", .value = ""}}, -std::numeric_limits<double>::infinity());
    page.sample({}, std::numeric_limits<double>::quiet_NaN());
    page.sample({}, 0.1);
    page.sample({}, 1e21);
    CHECK(page.text() ==
          "# HELP headroom_test_ratio back\\\\slash and\\nnewline\n"
          "# TYPE headroom_test_ratio gauge\n"
          "headroom_test_ratio{a=\"q\\\"u\\\\o\\nte\"} 0.5\n"
          "headroom_test_ratio +Inf\n"
          "headroom_test_ratio{b=\"\"} -Inf\n"
          "headroom_test_ratio NaN\n"
          "headroom_test_ratio 0.1\n"
          "headroom_test_ratio 1e+21\n");
    // Read back strictly: the escaped value decodes to the original.
    const prom::page p = prom::parse(page.text());
    REQUIRE(p.ok());
    CHECK(value_of(p, "headroom_test_ratio", "a", "q\"u\\o\nte") == 0.5);
  }

  TEST_CASE("names types and labels are checked") {
    using headroom::test::rejected;
    prom::exposition_page page;
    CHECK(rejected([&] { page.sample({}, 1.0); }) == "family");
    CHECK(rejected([&] { page.family("1abc", "h", "gauge"); }) == "name");
    CHECK(rejected([&] { page.family("a_b", "h", "histogram"); }) == "type");
    CHECK(rejected([&] { page.family("requests", "h", "counter"); }) == "name");
    CHECK(rejected([&] { page.family("a_b", "", "gauge"); }) == "help");
    page.family("a_b", "h", "gauge");
    CHECK(rejected([&] { page.family("a_b", "h", "gauge"); }) == "name");
    CHECK(rejected([&] { page.sample({{.name = "__x", .value = "v"}}, 1.0); }) == "label.name");
    CHECK(rejected([&] { page.sample({{.name = "a:b", .value = "v"}}, 1.0); }) == "label.name");
    CHECK(rejected([&] {
            page.sample({{.name = "a", .value = "1"}, {.name = "a", .value = "2"}}, 1.0);
          }) == "label.name");
    CHECK(rejected([&] { page.sample({{.name = "a", .value = "\xff"}}, 1.0); }) == "label.value");
  }

  TEST_CASE("a controller step on the page") {
    // Two External AverageValue metrics with targets 10 and 0.5 at 3 replicas: the first
    // sees 42.25 -> ceil(4.225) = 5; the second is missing. With one metric failed and the
    // other asking for more than the current 3, the HPA scales on the valid one (5).
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = 1,
        .max_replicas = 10,
        .metrics = {{.name = "in_flight",
                     .source = headroom::autoscaling::metric_source::external,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = 10.0},
                    {.name = "kv_usage",
                     .source = headroom::autoscaling::metric_source::external,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = 0.5}}};
    const headroom::autoscaling::autoscaler hpa(config);
    headroom::autoscaling::autoscaler_state state;
    const headroom::autoscaling::metric_observation obs[] = {
        headroom::autoscaling::observe_value(42.25), {}};
    const headroom::autoscaling::autoscaler_input in{
        .replicas = {.spec = 3, .status = 3, .ready = 3}, .metrics = obs};
    const auto d = hpa.step(state, std::chrono::milliseconds(0), in);
    REQUIRE(d.desired_replicas == 5);
    const auto proposals = headroom::autoscaling::metric_proposals(config, in, d.current_replicas);
    REQUIRE(proposals.size() == 2);
    CHECK(proposals[0] == 5);
    CHECK(!proposals[1].has_value());
    prom::exposition_page page;
    prom::append_decision(page, d,
                          {.autoscaler = "ns/llm",
                           .metrics = config.metrics,
                           .proposals = proposals,
                           .steps = 1,
                           .rescales = 1});
    const prom::page p = prom::parse(page.text());
    REQUIRE(p.ok());
    CHECK(value_of(p, "headroom_autoscaler_desired_replicas", "autoscaler", "ns/llm") == 5);
    CHECK(value_of(p, "headroom_autoscaler_current_replicas", "autoscaler", "ns/llm") == 3);
    CHECK(value_of(p, "headroom_autoscaler_raw_recommendation_replicas", "autoscaler", "ns/llm") ==
          5);
    CHECK(value_of(p, "headroom_autoscaler_reason", "reason", "DesiredWithinRange") == 1);
    CHECK(prom::aggregate(p, "headroom_autoscaler_reason").sum == 1);  // exactly one reason
    CHECK(prom::aggregate(p, "headroom_autoscaler_reason").series ==
          std::size(headroom::autoscaling::all_scale_reasons));
    CHECK(value_of(p, "headroom_autoscaler_failed_metrics", "autoscaler", "ns/llm") == 1);
    CHECK(value_of(p, "headroom_autoscaler_metric_proposal_replicas", "metric", "in_flight") == 5);
    CHECK(prom::aggregate(p, "headroom_autoscaler_metric_proposal_replicas", "metric", "kv_usage")
              .missing == prom::missing_reason::no_matching_series);
    CHECK(value_of(p, "headroom_autoscaler_metric_failed", "metric", "kv_usage") == 1);
    CHECK(value_of(p, "headroom_autoscaler_steps_total", "autoscaler", "ns/llm") == 1);
    const auto steps = p.find_family("headroom_autoscaler_steps_total");
    REQUIRE(steps.has_value());
    CHECK(p.families()[*steps].type == prom::metric_type::counter);
    using headroom::test::rejected;
    const std::vector<std::optional<std::int32_t>> one = {5};
    CHECK(rejected([&] {
            prom::exposition_page again;
            prom::append_decision(again, d, {.metrics = config.metrics, .proposals = one});
          }) == "what.proposals.size()");
  }

  TEST_CASE("capacity and placement families") {
    prom::exposition_page page;
    prom::append_capacity(page, {.model = "m",
                                 .capacity_per_second = 8.25,
                                 .conformance = 0.99,
                                 .conformance_lower = 0.98,
                                 .conformance_upper = 0.995,
                                 .confidence_level = 0.95,
                                 .requests = 4000});
    prom::append_placement(page, {.model = "m", .placed = false, .reason = "no workers"});
    const prom::page p = prom::parse(page.text());
    REQUIRE(p.ok());
    CHECK(value_of(p, "headroom_capacity_requests_per_second", "model", "m") == 8.25);
    CHECK(value_of(p, "headroom_capacity_conformance_lower_ratio", "model", "m") == 0.98);
    CHECK(value_of(p, "headroom_capacity_measured_requests", "model", "m") == 4000);
    CHECK(value_of(p, "headroom_scheduler_placed", "strategy", "none") == 0);
    CHECK(!p.find_family("headroom_scheduler_score").has_value());  // unplaced: no score
    using headroom::test::rejected;
    prom::exposition_page bad;
    CHECK(rejected([&] { prom::append_capacity(bad, {.conformance = 1.5}); }) ==
          "capacity.conformance");
    CHECK(rejected([&] {
            prom::append_capacity(bad, {.conformance_lower = 0.9, .conformance_upper = 0.8});
          }) == "capacity.conformance_lower");
  }

#if defined(__cpp_exceptions)
  // The strong guarantee: a refused call leaves the page exactly as it was, and the page
  // goes on to accept valid calls (without exceptions the handler never returns).
  TEST_CASE("a refused label takes its half-written line back") {
    prom::exposition_page page;
    page.family("x", "h", "gauge");
    const std::string before = page.text();
    CHECK_THROWS_AS(page.sample({{.name = "a", .value = "1"}, {.name = "__b", .value = "2"}}, 1),
                    headroom::invalid_argument);
    CHECK(page.text() == before);
    page.sample({}, 2);
    CHECK(page.text() == "# HELP x h\n# TYPE x gauge\nx 2\n");
    CHECK(prom::parse(page.text()).ok());
  }

  TEST_CASE("a refused family or writer leaves no family behind") {
    prom::exposition_page page;
    page.family("kept", "h", "gauge");
    page.sample({}, 1);
    const std::string before = page.text();
    CHECK_THROWS_AS(page.family("kept", "again", "gauge"), headroom::invalid_argument);
    CHECK(page.text() == before);
    // The model label is not UTF-8: the first family is begun before its sample is refused.
    CHECK_THROWS_AS(prom::append_capacity(page, {.model = "\xff", .conformance = 0.5}),
                    headroom::invalid_argument);
    CHECK(page.text() == before);
    prom::append_placement(page, {.model = "m", .placed = false, .reason = "r"});
    const std::string with_placement = page.text();
    // The same families again: refused at the first, nothing of the second call stays.
    CHECK_THROWS_AS(prom::append_placement(page, {.model = "m", .placed = false, .reason = "r"}),
                    headroom::invalid_argument);
    CHECK(page.text() == with_placement);
    // The families the refused call began are forgotten: the capacity ones can be written.
    prom::append_capacity(page, {.model = "m", .conformance = 0.5});
    const prom::page p = prom::parse(page.text());
    REQUIRE(p.ok());
    CHECK(value_of(p, "headroom_capacity_conformance_ratio", "model", "m") == 0.5);
    // A decision whose metric name is not UTF-8: refused after several families were written.
    const std::string before_decision = page.text();
    const std::vector<headroom::autoscaling::metric_spec> metrics{{.name = "\xfe", .target = 1.0}};
    const std::vector<std::optional<std::int32_t>> proposals{3};
    CHECK_THROWS_AS(
        prom::append_decision(page, headroom::autoscaling::autoscaler_decision{},
                              {.autoscaler = "a", .metrics = metrics, .proposals = proposals}),
        headroom::invalid_argument);
    CHECK(page.text() == before_decision);
  }
#endif
}

// SPDX-License-Identifier: Apache-2.0
// The error policy of prometheus.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/prometheus.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: prometheus parse") {
    // Never throws: a malformed page is a value with a reason.
    const auto p = prometheus::parse("metric{ 1\n");
    CHECK_FALSE(p.ok());
    REQUIRE(p.error().has_value());
    CHECK_FALSE(p.error()->reason().empty());
    CHECK(prometheus::parse("").ok());
    const auto lenient =
        prometheus::parse("bad{ 1\ngood 2\n", {.mode = prometheus::parse_mode::lenient});
    CHECK(lenient.ok());
    CHECK(lenient.skipped().size() == 1);
    // Past a limit: a value with its own code, strict and lenient alike.
    prometheus::parse_options limited;
    limited.max_series_per_page = 1;
    const auto over = prometheus::parse("a 1\nb 2\n", limited);
    REQUIRE_FALSE(over.ok());
    CHECK(over.error()->code == prometheus::parse_errc::too_many_series);
  }

  TEST_CASE("errors: prometheus aggregate") {
    const auto p = prometheus::parse("a{m=\"x\"} 1\nb NaN\n");
    CHECK_REJECTS(prometheus::aggregate(p, ""), "metric");
    CHECK_REJECTS(prometheus::aggregate(p, "a", "", "x"), "label_name");
    CHECK(prometheus::aggregate(p, "zzz").missing == prometheus::missing_reason::metric_absent);
    CHECK(prometheus::aggregate(p, "a", "m", "y").missing ==
          prometheus::missing_reason::no_matching_series);
    CHECK(prometheus::aggregate(p, "b").missing == prometheus::missing_reason::not_finite);
    CHECK(prometheus::aggregate(prometheus::parse("a{ 1\n"), "a").missing ==
          prometheus::missing_reason::page_invalid);
  }

  TEST_CASE("errors: prometheus bucket_quantile") {
    std::vector<prometheus::histogram_bucket> b{{.upper_bound = 1.0, .cumulative_count = 5.0},
                                                {.upper_bound = inf, .cumulative_count = 10.0}};
    CHECK_REJECTS(prometheus::bucket_quantile(not_a_number, b), "q");
    CHECK_REJECTS(prometheus::bucket_quantile(1.5, b), "q");
    CHECK_REJECTS(prometheus::bucket_quantile(-0.1, b), "q");
    std::vector<prometheus::histogram_bucket> empty{};
    CHECK(std::isnan(prometheus::bucket_quantile(0.5, empty)));
    std::vector<prometheus::histogram_bucket> no_inf{
        {.upper_bound = 1.0, .cumulative_count = 5.0},
        {.upper_bound = 2.0, .cumulative_count = 10.0}};
    CHECK(std::isnan(prometheus::bucket_quantile(0.5, no_inf)));
  }

  TEST_CASE("errors: prometheus histogram_quantile") {
    const auto p = prometheus::parse("h_bucket{le=\"1\"} 5\nh_bucket{le=\"+Inf\"} 10\n");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "", 0.5), "histogram");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "h", not_a_number), "q");
    CHECK_REJECTS(prometheus::histogram_quantile(p, "h", 0.5, "", "x"), "label_name");
    CHECK_FALSE(prometheus::histogram_quantile(p, "absent", 0.5).has_value());
    CHECK_FALSE(prometheus::histogram_quantile(prometheus::parse("h{ 1\n"), "h", 0.5));
  }

  TEST_CASE("errors: prometheus read_replica_load") {
    const auto p = prometheus::parse("vllm:num_requests_running 3\n");
    auto preset = prometheus::vllm_preset;
    preset.waiting = {};
    CHECK_REJECTS(prometheus::read_replica_load(p, preset), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(prometheus::read_replica_load(p, preset, "m"), "preset");
    const auto load = prometheus::read_replica_load(p, prometheus::vllm_preset);
    CHECK(load.running.value == 3.0);
    CHECK(load.waiting.missing == prometheus::missing_reason::metric_absent);
    CHECK_FALSE(load.in_flight().has_value());
  }

  TEST_CASE("errors: prometheus ttft_quantile") {
    const auto p = prometheus::parse("x 1\n");
    auto preset = prometheus::vllm_preset;
    preset.ttft = {};
    CHECK_REJECTS(prometheus::ttft_quantile(p, preset, 0.5), "preset");
    preset = prometheus::vllm_preset;
    preset.model_label = {};
    CHECK_REJECTS(prometheus::ttft_quantile(p, preset, 0.5, "m"), "preset");
    CHECK_REJECTS(prometheus::ttft_quantile(p, prometheus::vllm_preset, 2.0), "q");
    CHECK_FALSE(prometheus::ttft_quantile(p, prometheus::vllm_preset, 0.5).has_value());
  }
}

// SPDX-License-Identifier: Apache-2.0
// The compiled mode, first of two translation units that include every public header and link
// headroom::compiled (HEADROOM_SEPARATE_COMPILATION): the program links, so no function is
// defined twice (here, in the second unit and in the compiled part) and none the headers only
// declare is missing; each unit calls functions the compiled part defines.
#include <headroom/headroom.hpp>

#include <doctest/doctest.h>

#include <string>

#ifndef HEADROOM_SEPARATE_COMPILATION
#error "this test is built in the compiled mode (it links headroom::compiled)"
#endif

namespace prom = headroom::prometheus;

TEST_SUITE("compiled") {
  TEST_CASE("compiled: the first unit parses an exposition page with the compiled parser") {
    const std::string text =
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{model_name=\"m\"} 7\n"
        "vllm:num_requests_running{model_name=\"n\"} 2.5\n";
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.find_family("vllm:num_requests_running") == std::optional<std::size_t>(0));
    const auto samples = p.samples();
    REQUIRE(samples.size() == 2);
    CHECK(samples[0].value == 7.0);
    CHECK(samples[1].value == 2.5);
    CHECK(p.label_value(samples[1], "model_name") == std::optional<std::string_view>("n"));
    CHECK(prom::unescape(R"(a\"b\\c)") == "a\"b\\c");
  }
}

// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/detail/json.hpp, the strict JSON under the benchmark readers (and whose
// lexer the Prometheus HTTP API reader uses): RFC 8259's grammar on both sides of each rule,
// exact numbers, decoded strings, limits, and the error's byte.
#include <headroom/detail/json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace {
using headroom::detail::json_document;
using headroom::detail::json_errc;
using headroom::detail::json_kind;
using headroom::detail::json_limits;

json_errc code_of(const std::string& text, const json_limits& limits = {}) {
  return json_document::parse(text, limits).error().code;
}
}  // namespace

TEST_SUITE("detail/json") {
  TEST_CASE("json: values, nesting and lookups") {
    const auto d = json_document::parse(
        R"( {"a": [1, -2.5e3, 0, true, false, null, "x"], "b": {"c": "d", "e": []}} )");
    REQUIRE(d.ok());
    const auto root = d.root();
    CHECK(root.kind() == json_kind::object);
    CHECK(root.size() == 2);
    CHECK(root.key_at(1) == "b");
    const auto a = root["a"];
    REQUIRE(a.size() == 7);
    double sum = 0;
    std::size_t count = 0;
    for (const auto v : a.children()) {
      if (v.is(json_kind::number)) sum += v.number();
      ++count;
    }
    CHECK(count == 7);
    CHECK(sum == -2499.0);
    CHECK(a.at(3).boolean() == true);
    CHECK(a.at(4).boolean() == false);
    CHECK(a.at(5).kind() == json_kind::null);
    CHECK(a.at(6).string() == "x");
    CHECK(root["b"]["c"].string() == "d");
    CHECK(root["b"]["e"].size() == 0);
    CHECK_FALSE(root["missing"].present());
    CHECK_FALSE(root["a"]["not an object"].present());
    CHECK(std::isnan(root["b"].number()));
    CHECK(root["a"].offset() == 7);  // its '['
  }

  TEST_CASE("json: numbers are read exactly, and only RFC 8259's") {
    const auto d = json_document::parse("[0.1, 1e-400, 9007199254740993, -0, 1E+2, 2.5e-324]");
    REQUIRE(d.ok());
    CHECK(d.root().at(0).number() == 0.1);                 // the nearest double, as strtod
    CHECK(d.root().at(1).number() == 0.0);                 // underflows to 0
    CHECK(d.root().at(2).number() == 9007199254740992.0);  // ties to even
    CHECK(std::signbit(d.root().at(3).number()));
    CHECK(d.root().at(4).number() == 100.0);
    CHECK(d.root().at(5).number() == std::numeric_limits<double>::denorm_min());
    for (const char* bad : {"1.", ".5", "+1", "1e", "-", "1.e3", "NaN", "Infinity"})
      CHECK_MESSAGE(code_of(bad) == json_errc::syntax, bad);
    // A leading zero ends the number: what follows is refused.
    for (const char* bad : {"01", "0x10", "-01"})
      CHECK_MESSAGE(code_of(bad) == json_errc::trailing_characters, bad);
    CHECK(code_of("1e400") == json_errc::number_out_of_range);
    CHECK(code_of("-1e400") == json_errc::number_out_of_range);
    CHECK(json_document::parse("[0.00001e310, 1000e-330, -1e-400]").ok());
    CHECK(std::signbit(json_document::parse("-1e-400").root().number()));
    // Python's words, when asked for.
    const json_limits python{.non_finite = headroom::detail::json_non_finite::python};
    const auto p = json_document::parse("[NaN, Infinity, -Infinity]", python);
    REQUIRE(p.ok());
    CHECK(std::isnan(p.root().at(0).number()));
    CHECK(p.root().at(1).number() == std::numeric_limits<double>::infinity());
    CHECK(p.root().at(2).number() == -std::numeric_limits<double>::infinity());
    CHECK(code_of("[Nan]", python) == json_errc::syntax);
  }

  TEST_CASE("json: strings decoded, and refused where RFC 8259 refuses them") {
    const auto d = json_document::parse(R"(["\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "é"])");
    REQUIRE(d.ok());
    CHECK(d.root().at(0).string() == "\"\\/\b\f\n\r\t");
    CHECK(d.root().at(1).string() == "\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(d.root().at(2).string() == "\xc3\xa9");
    CHECK(code_of("\"\\ud800\"") == json_errc::invalid_string);         // a lone high half
    CHECK(code_of("\"\\udc00\\ud800\"") == json_errc::invalid_string);  // reversed
    CHECK(code_of("\"\\x41\"") == json_errc::invalid_string);
    CHECK(code_of(std::string("\"a\x01\"")) == json_errc::invalid_string);
    CHECK(code_of("\"\xc3\x28\"") == json_errc::invalid_utf8);
    CHECK(code_of("\"\xed\xa0\x80\"") == json_errc::invalid_utf8);  // an encoded surrogate
    CHECK(code_of("\"open") == json_errc::syntax);
  }

  TEST_CASE("json: structure errors name their byte") {
    const auto at = [](const std::string& text) {
      const auto d = json_document::parse(text);
      return std::make_pair(d.error().code, d.error().offset);
    };
    CHECK(at("") == std::make_pair(json_errc::empty_input, std::size_t{0}));
    CHECK(at("[1,]") == std::make_pair(json_errc::syntax, std::size_t{3}));
    CHECK(at("{\"a\" 1}") == std::make_pair(json_errc::syntax, std::size_t{5}));
    CHECK(at("{\"a\":1,}") == std::make_pair(json_errc::syntax, std::size_t{7}));
    CHECK(at("[1] x") == std::make_pair(json_errc::trailing_characters, std::size_t{4}));
    CHECK(at("{\"b\":1,\"a\":2,\"b\":3}") ==
          std::make_pair(json_errc::duplicate_key, std::size_t{13}));
    CHECK(at("tru") == std::make_pair(json_errc::syntax, std::size_t{0}));
    CHECK_FALSE(json_document::parse("[1,]").root().present());
  }

  TEST_CASE("json: limits bound what a text may cost") {
    CHECK(code_of("[[[1]]]", {.max_depth = 2}) == json_errc::too_deep);
    CHECK(code_of("[[[1]]]", {.max_depth = 3}) == json_errc::none);
    CHECK(code_of(std::string(200, '['), {}) == json_errc::too_deep);  // 64 by default
    CHECK(code_of("[1,2,3]", {.max_values = 3}) == json_errc::too_many_values);
    CHECK(code_of("[1,2,3]", {.max_values = 4}) == json_errc::none);
    CHECK(code_of("\"abcd\"", {.max_string_bytes = 3}) == json_errc::string_too_long);
    CHECK(code_of("\"abc\"", {.max_string_bytes = 3}) == json_errc::none);
    CHECK(code_of("[1]  ", {.max_bytes = 4}) == json_errc::too_large);
  }
}

// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/prometheus/http_api.hpp. The answers under tests/data/prometheus_api are
// the HTTP API documentation's examples (prometheus/docs querying/api.md), answers captured
// from a real Prometheus 2.42 (Debian 12's package) and a few written by hand from the
// documented envelope; tests/data/prometheus_api/README.md says which is which. Expected
// values are read by eye from those files (the text is quoted) or follow from the JSON and
// Go strconv rules shown in comments.
#include <headroom/autoscaler.hpp>
#include <headroom/prometheus/http_api.hpp>

#include <doctest/doctest.h>

#include "test_data.hpp"

#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace {

namespace prom = headroom::prometheus;
using std::chrono::milliseconds;

std::string read_answer(const std::string& name) {
  return headroom::test::read_test_data("prometheus_api/" + name);
}

prom::api_errc error_of(std::string_view json, const prom::api_limits& limits = {}) {
  return prom::parse_api_response(json, limits).parse_error.code;
}

}  // namespace

TEST_SUITE("prometheus_http_api") {
  TEST_CASE("the documented instant query example is a vector of two series") {
    const auto r = prom::parse_api_response(read_answer("docs_query_vector.json"));
    REQUIRE(r.ok());
    CHECK(r.type == prom::api_result_type::vector);
    REQUIRE(r.series.size() == 2);
    // "instance" : "localhost:9090" ... "value": [ 1435781451.781, "1" ]
    CHECK(r.series[0].label("instance") == "localhost:9090");
    CHECK(r.series[0].label("__name__") == "up");
    CHECK(!r.series[0].label("absent").has_value());
    REQUIRE(r.series[0].points.size() == 1);
    CHECK(r.series[0].points[0].timestamp == milliseconds(1435781451781));
    CHECK(r.series[0].points[0].value == 1.0);
    CHECK(r.series[1].points[0].value == 0.0);
    // Labels come back sorted by name whatever the server's order.
    CHECK(r.series[0].labels[0].name == "__name__");
    CHECK(r.series[0].labels[1].name == "instance");
    CHECK(r.series[0].labels[2].name == "job");
    CHECK(r.warnings.empty());
    CHECK(r.infos.empty());
  }

  TEST_CASE("the documented range query example is a matrix") {
    const auto r = prom::parse_api_response(read_answer("docs_query_range_matrix.json"));
    REQUIRE(r.ok());
    CHECK(r.type == prom::api_result_type::matrix);
    REQUIRE(r.series.size() == 2);
    REQUIRE(r.series[1].points.size() == 3);
    // [ 1435781460.781, "1" ] is the node job's last sample, after two "0".
    CHECK(r.series[1].points[0].value == 0.0);
    CHECK(r.series[1].points[2].timestamp == milliseconds(1435781460781));
    CHECK(r.series[1].points[2].value == 1.0);
    CHECK(r.series[1].label("instance") == "localhost:9091");
  }

  TEST_CASE("answers captured from a real Prometheus") {
    SUBCASE("an instant vector") {
      const auto r = prom::parse_api_response(read_answer("vector_by_code.json"));
      REQUIRE(r.ok());
      REQUIRE(r.series.size() == 2);
      // {"metric":{"code":"200"},"value":[1796123139.545,"135"]}
      CHECK(r.series[0].label("code") == "200");
      CHECK(r.series[0].points[0].value == 135.0);
      CHECK(r.series[0].points[0].timestamp == milliseconds(1796123139545));
      CHECK(r.series[1].points[0].value == 4.0);
    }
    SUBCASE("a scalar and its special values") {
      const auto two = prom::parse_api_response(read_answer("scalar_two.json"));
      REQUIRE(two.ok());
      CHECK(two.type == prom::api_result_type::scalar);
      CHECK(two.scalar.value == 2.0);
      CHECK(two.scalar.timestamp == milliseconds(1796123139564));
      CHECK(std::isnan(prom::parse_api_response(read_answer("scalar_nan.json")).scalar.value));
      CHECK(prom::parse_api_response(read_answer("scalar_minus_inf.json")).scalar.value ==
            -std::numeric_limits<double>::infinity());
      const auto inf = prom::parse_api_response(read_answer("vector_plus_inf.json"));
      REQUIRE(inf.ok());
      CHECK(inf.series[0].labels.empty());
      CHECK(inf.series[0].points[0].value == std::numeric_limits<double>::infinity());
      // 1e-320, written by Go's 'f' format as 0.000...0001 (320 decimals): a subnormal.
      const auto tiny = prom::parse_api_response(read_answer("scalar_subnormal.json"));
      REQUIRE(tiny.ok());
      CHECK(tiny.scalar.value == 1e-320);
    }
    SUBCASE("a string result") {
      const auto r = prom::parse_api_response(read_answer("string_hello.json"));
      REQUIRE(r.ok());
      CHECK(r.type == prom::api_result_type::string);
      CHECK(r.string_value == "hello");
      CHECK(r.scalar.timestamp == milliseconds(1796123139652));
    }
    SUBCASE("matrices from a range selector and from query_range") {
      const auto sel = prom::parse_api_response(read_answer("matrix_up_range_selector.json"));
      REQUIRE(sel.ok());
      REQUIRE(sel.series.size() == 1);
      REQUIRE(sel.series[0].points.size() == 3);
      // [1796123138.520,"1"]: Prometheus keeps the trailing zero of the milliseconds.
      CHECK(sel.series[0].points[1].timestamp == milliseconds(1796123138520));
      const auto range = prom::parse_api_response(read_answer("matrix_query_range.json"));
      REQUIRE(range.ok());
      REQUIRE(range.series[0].points.size() == 4);
      // [1796123136,"1"]: whole seconds are written without a fraction.
      CHECK(range.series[0].points[0].timestamp == milliseconds(1796123136000));
    }
    SUBCASE("an empty vector") {
      const auto r = prom::parse_api_response(read_answer("vector_empty.json"));
      REQUIRE(r.ok());
      CHECK(r.type == prom::api_result_type::vector);
      CHECK(r.series.empty());
    }
    SUBCASE("escaped label values are decoded") {
      const auto r = prom::parse_api_response(read_answer("vector_escaped_label.json"));
      REQUIRE(r.ok());
      // {"a":"q\"u\\o\nte é"}
      CHECK(r.series[0].label("a") == "q\"u\\o\nte \xc3\xa9");
    }
    SUBCASE("errors the server reports") {
      const auto r = prom::parse_api_response(read_answer("error_bad_data.json"));
      REQUIRE(r.parsed());
      CHECK_FALSE(r.ok());
      CHECK(r.status == prom::api_status::error);
      CHECK(r.error_type == "bad_data");
      CHECK(r.error == "invalid parameter \"query\": 1:6: parse error: unclosed left parenthesis");
      CHECK(r.type == prom::api_result_type::none);
      const auto range = prom::parse_api_response(read_answer("error_end_before_start.json"));
      CHECK(range.error ==
            "invalid parameter \"end\": end timestamp must not be before start time");
    }
  }

  TEST_CASE("warnings infos and an error with data") {
    const auto r = prom::parse_api_response(read_answer("hand_warnings_infos.json"));
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0] ==
          "PromQL warning: encountered a mix of histograms and floats for metric name \"x\"");
    REQUIRE(r.infos.size() == 1);
    CHECK(r.series[0].points[0].value == 42.25);
    CHECK(r.series[0].points[0].timestamp == milliseconds(1700000000500));
    const auto e = prom::parse_api_response(read_answer("hand_error_timeout_with_data.json"));
    REQUIRE(e.parsed());
    CHECK(e.error_type == "timeout");
    CHECK(e.series.empty());
  }

  TEST_CASE("JSON details the reader accepts") {
    // Keys in any order: the result before its type, unknown fields skipped, white space.
    const auto r = prom::parse_api_response(
        " {\"data\":{\"result\":[{\"value\":[-1.5,\"1e3\"],\"extra\":{\"a\":[1,true,null]},"
        "\"metric\":{\"b\":\"\\u00e9\\ud83d\\ude00\\/\"}}],\"stats\":{},\"resultType\":\"vector\"},"
        "\"status\":\"success\",\"future\":[[],{}]}\r\n");
    REQUIRE(r.ok());
    REQUIRE(r.series.size() == 1);
    CHECK(r.series[0].points[0].timestamp == milliseconds(-1500));
    CHECK(r.series[0].points[0].value == 1000.0);  // Go's ParseFloat reads "1e3"
    // \u00e9 = é (C3 A9), the surrogate pair D83D DE00 = U+1F600 (F0 9F 98 80), \/ = '/'.
    CHECK(r.series[0].label("b") == "\xc3\xa9\xf0\x9f\x98\x80/");
    // A scalar with a whole-second timestamp, and "Inf" spelt as Go also reads it.
    const auto s = prom::parse_api_response(
        R"({"status":"success","data":{"resultType":"scalar","result":[0,"-inf"]}})");
    REQUIRE(s.ok());
    CHECK(s.scalar.value == -std::numeric_limits<double>::infinity());
  }

  TEST_CASE("malformed answers name the byte and the reason") {
    using E = prom::api_errc;
    CHECK(error_of("") == E::empty_input);
    CHECK(error_of("  \n") == E::empty_input);
    CHECK(error_of("[]") == E::wrong_type);
    CHECK(error_of(R"({"status":"success"})") == E::missing_field);
    CHECK(error_of(R"({"status":"ok","data":{}})") == E::unknown_status);
    CHECK(error_of(R"({"status":"error","error":"x"})") == E::missing_field);
    CHECK(error_of(R"({"status":"success","data":null})") == E::wrong_type);
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector"}})") == E::missing_field);
    CHECK(error_of(R"({"status":"success","data":{"resultType":"streams","result":[]}})") ==
          E::unknown_result_type);
    CHECK(error_of(R"({"status":"success","status":"success","data":{}})") == E::duplicate_key);
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":[]}} x)") ==
          E::trailing_characters);
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":[],}})") ==
          E::syntax);
    // Values: a number where Prometheus writes a string; a non-float string; an exponent or a
    // fourth decimal in a timestamp (Prometheus writes milliseconds).
    const std::string head = R"({"status":"success","data":{"resultType":"scalar","result":)";
    CHECK(error_of(head + R"([1,1]}})") == E::invalid_value);
    CHECK(error_of(head + R"([1,"one"]}})") == E::invalid_value);
    CHECK(error_of(head + R"([1,"0x10"]}})") == E::invalid_value);
    CHECK(error_of(head + R"([1e3,"1"]}})") == E::invalid_timestamp);
    CHECK(error_of(head + R"([1.0001,"1"]}})") == E::invalid_timestamp);
    CHECK(error_of(head + R"(["1","1"]}})") == E::invalid_timestamp);
    CHECK(error_of(head + R"([1,"1",2]}})") == E::invalid_point);
    CHECK(error_of(head + R"([01,"1"]}})") == E::syntax);
    CHECK(error_of(head + R"([99999999999999999999,"1"]}})") == E::invalid_timestamp);
    // Strings: raw control characters, bad escapes, lone surrogates, ill-formed UTF-8.
    const std::string vec = R"({"status":"success","data":{"resultType":"vector","result":[)";
    CHECK(error_of(vec + "{\"metric\":{\"a\":\"x\ty\"},\"value\":[1,\"1\"]}]}}") ==
          E::invalid_string);
    CHECK(error_of(vec + R"({"metric":{"a":"\x"},"value":[1,"1"]}]}})") == E::invalid_string);
    CHECK(error_of(vec + R"({"metric":{"a":"\ud800"},"value":[1,"1"]}]}})") == E::invalid_string);
    CHECK(error_of(vec + R"({"metric":{"a":"\udc00"},"value":[1,"1"]}]}})") == E::invalid_string);
    CHECK(error_of(vec + "{\"metric\":{\"a\":\"\xc3\x28\"},\"value\":[1,\"1\"]}]}}") ==
          E::invalid_utf8);
    // Series: a repeated label, a missing value, a matrix field in a vector, a native histogram.
    CHECK(error_of(vec + R"({"metric":{"a":"1","a":"2"},"value":[1,"1"]}]}})") ==
          E::duplicate_label);
    CHECK(error_of(vec + R"({"metric":{}}]}})") == E::missing_field);
    CHECK(error_of(vec + R"({"metric":{},"values":[[1,"1"]]}]}})") == E::wrong_type);
    CHECK(error_of(vec + R"({"metric":{},"histogram":[1,{"count":"1"}]}]}})") ==
          E::native_histogram);
    CHECK(error_of(vec + R"({"metric":{"a":1},"value":[1,"1"]}]}})") == E::wrong_type);
    // Nesting past api_max_depth inside an unknown field.
    CHECK(error_of(R"({"x":)" + std::string(100, '[') + std::string(100, ']') + "}") ==
          E::too_deep);
    // The message names the byte, the field and the reason: byte 67 is the '"' of "one".
    const auto r = prom::parse_api_response(head + R"([1,"one"]}})");
    CHECK(r.parse_error.offset == head.size() + 3);
    CHECK(r.parse_error.message() ==
          "byte " + std::to_string(head.size() + 3) +
              " (field \"result\"): a sample value that is not a float in a string");
    CHECK_FALSE(r.ok());
    CHECK(r.type == prom::api_result_type::none);
  }

  TEST_CASE("limits bound what one answer may hold") {
    const std::string range = read_answer("docs_query_range_matrix.json");  // 2 series, 6 points
    CHECK(error_of(range, {.max_bytes = 100}) == prom::api_errc::too_large);
    CHECK(error_of(range, {.max_series = 1}) == prom::api_errc::too_many_series);
    CHECK(error_of(range, {.max_series = 2}) == prom::api_errc::none);
    CHECK(error_of(range, {.max_points = 5}) == prom::api_errc::too_many_points);
    CHECK(error_of(range, {.max_points = 6}) == prom::api_errc::none);
    CHECK(error_of(range, {.max_labels_per_series = 2}) == prom::api_errc::too_many_labels);
    CHECK(error_of(range, {.max_labels_per_series = 3}) == prom::api_errc::none);
    // "localhost:9090" is the longest string: 14 bytes.
    CHECK(error_of(range, {.max_string_bytes = 13}) == prom::api_errc::string_too_long);
    CHECK(error_of(range, {.max_string_bytes = 14}) == prom::api_errc::none);
    const std::string msgs = read_answer("hand_warnings_infos.json");  // 1 warning + 1 info
    CHECK(error_of(msgs, {.max_messages = 1}) == prom::api_errc::too_many_messages);
    CHECK(error_of(msgs, {.max_messages = 2}) == prom::api_errc::none);
  }

  TEST_CASE("label names follow the text parser's rules and bound") {
    // A vector answer whose one series carries the label `name`.
    const auto answer = [](std::string_view name) {
      return std::string(R"({"status":"success","data":{"resultType":"vector","result":[)") +
             R"({"metric":{")" + std::string(name) + R"(":"v"},"value":[1.5,"2"]}]}})";
    };
    CHECK(error_of(answer("instance")) == prom::api_errc::none);
    CHECK(error_of(answer("__name__")) == prom::api_errc::none);  // the API returns it
    CHECK(error_of(answer("")) == prom::api_errc::invalid_label_name);
    CHECK(error_of(answer("1abc")) == prom::api_errc::invalid_label_name);
    CHECK(error_of(answer("service.name")) == prom::api_errc::invalid_label_name);
    // Prometheus 3 with UTF-8 names: any non-empty UTF-8 name, but never an empty one.
    const prom::api_limits utf8{.label_names = prom::label_name_rule::utf8};
    CHECK(error_of(answer("service.name"), utf8) == prom::api_errc::none);
    CHECK(error_of(answer(""), utf8) == prom::api_errc::invalid_label_name);
    // 1024 bytes by default: a 10 MB name is refused, at the name.
    CHECK(prom::api_limits{}.max_label_name_bytes == 1024);
    CHECK(error_of(answer(std::string(1024, 'a'))) == prom::api_errc::none);
    const std::string huge = answer(std::string(10'000'000, 'a'));
    const auto r = prom::parse_api_response(huge);
    CHECK(r.parse_error.code == prom::api_errc::label_name_too_long);
    CHECK(r.parse_error.offset == huge.find("aaaa") - 1);  // the name's opening quote
    CHECK(error_of(answer(std::string(1025, 'a'))) == prom::api_errc::label_name_too_long);
    CHECK(error_of(answer(std::string(2000, 'a')), {.max_label_name_bytes = 0}) ==
          prom::api_errc::none);  // 0: no limit
  }

  TEST_CASE("the value KEDA reads off an answer") {
    using M = prom::query_missing;
    const auto read = [](const std::string& name, prom::null_values nulls) {
      return prom::read_query_value(prom::parse_api_response(read_answer(name)), nulls);
    };
    constexpr auto keda = prom::null_values::keda_ignore_null;
    constexpr auto strict = prom::null_values::no_value;
    CHECK(read("scalar_two.json", keda).value == 2.0);
    CHECK(read("vector_up.json", strict).value == 1.0);
    // KEDA's ExecutePromQuery: an empty result is 0 with ignoreNullValues (its default) ...
    CHECK(read("vector_empty.json", keda).value == 0.0);
    CHECK(read("vector_empty.json", strict).missing == M::no_series);
    // ... so are NaN and the infinities; more than one element is an error either way.
    CHECK(read("scalar_nan.json", keda).value == 0.0);
    CHECK(read("vector_plus_inf.json", strict).missing == M::not_finite);
    CHECK(read("vector_by_code.json", keda).missing == M::multiple_series);
    CHECK(read("matrix_query_range.json", keda).missing == M::not_instant_value);
    CHECK(read("string_hello.json", keda).missing == M::not_instant_value);
    CHECK(read("error_bad_data.json", keda).missing == M::query_failed);
    CHECK(prom::read_query_value(prom::parse_api_response("{")).missing == M::malformed);
    CHECK(prom::describe(M::multiple_series) == "the query returned more than one series");
  }

  TEST_CASE("one call from an answer to the controller") {
    // An External AverageValue metric with a target of 10 in-flight requests per replica:
    // 42.25 in flight over 3 replicas -> ceil(42.25 / 10) = 5 (the HPA's External AverageValue
    // rule: ceil(42250m / 10000m) = 5; the ratio 42.25 / 30 = 1.41 is outside the 0.1
    // tolerance, and the default scale-up limit max(2 x 3, 4) = 6 does not bind).
    const headroom::autoscaling::autoscaler hpa(
        {.min_replicas = 1,
         .max_replicas = 10,
         .metrics = {{.name = "in_flight",
                      .source = headroom::autoscaling::metric_source::external,
                      .target_type = headroom::autoscaling::metric_target_type::average_value,
                      .target = 10.0}}});
    headroom::autoscaling::autoscaler_state state;
    const auto answer = prom::parse_api_response(read_answer("hand_warnings_infos.json"));
    const headroom::autoscaling::metric_observation obs[] = {prom::observe_query(answer)};
    REQUIRE(obs[0].value.has_value());
    CHECK(obs[0].value->milli == 42250);
    const auto d = hpa.step(state, std::chrono::milliseconds(0),
                            {.replicas = {.spec = 3, .status = 3, .ready = 3}, .metrics = obs});
    CHECK(d.desired_replicas == 5);
    // A failed query is a missing metric: the controller holds and says why.
    const auto failed = prom::parse_api_response(read_answer("error_bad_data.json"));
    const headroom::autoscaling::metric_observation none[] = {prom::observe_query(failed)};
    CHECK_FALSE(none[0].value.has_value());
    headroom::autoscaling::autoscaler_state fresh;
    const auto held = hpa.step(fresh, std::chrono::milliseconds(0),
                               {.replicas = {.spec = 2, .status = 2, .ready = 2}, .metrics = none});
    CHECK(held.desired_replicas == 2);
    CHECK(held.reason == headroom::autoscaling::scale_reason::metric_missing);
    CHECK(held.failed_metrics == 1);
  }
}

// SPDX-License-Identifier: Apache-2.0
// The error policy of error.hpp and detail/checks.hpp (docs/errors.md): one TEST_CASE per row of
// its table.
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

#include <headroom/detail/checks.hpp>
#include <headroom/error.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::test::errors;
}  // namespace

// The checks are usable in constant expressions when they pass.
static_assert(headroom::detail::require_positive("x", 3.0) == 3.0);
static_assert(headroom::detail::require_open_unit("q", 0.5) == 0.5);
static_assert(!headroom::detail::is_finite(std::numeric_limits<double>::infinity()));
static_assert(headroom::detail::is_nan(std::numeric_limits<double>::quiet_NaN()));

TEST_SUITE("errors") {
  TEST_CASE("errors: invalid_argument names the parameter and the value") {
    const auto r = headroom::test::rejection_of(
        [] { headroom::detail::fail("quota", 1.5, "must lie in the open interval (0, 1)"); });
    CHECK(r.parameter == "quota");
    CHECK(r.message == "quota = 1.5: must lie in the open interval (0, 1)");
  }

  TEST_CASE("errors: invalid_argument is a std::invalid_argument") {
    CHECK_THROWS_AS(headroom::detail::fail("n", 3, "x"), std::invalid_argument);
  }

  TEST_CASE("errors: values render: NaN / infinities / integers / durations / strings / booleans") {
    auto message_of = [](auto value) {
      return headroom::test::rejection_message([&] { headroom::detail::fail("p", value, "r"); });
    };
    CHECK(message_of(std::numeric_limits<double>::quiet_NaN()) == "p = nan: r");
    CHECK(message_of(std::numeric_limits<double>::infinity()) == "p = inf: r");
    CHECK(message_of(-std::numeric_limits<double>::infinity()) == "p = -inf: r");
    CHECK(message_of(-7) == "p = -7: r");
    CHECK(message_of(std::chrono::milliseconds(1500)) == "p = 1.5 s: r");
    CHECK(message_of("abc") == "p = \"abc\": r");
    CHECK(message_of(true) == "p = true: r");
  }

  TEST_CASE(
      "errors: checks accept good values and reject NaN / infinities and out-of-range values") {
    using namespace headroom::detail;
    CHECK(require_positive("x", 2.0) == 2.0);
    CHECK_THROWS_AS(require_positive("x", 0.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_positive("x", not_a_number), headroom::invalid_argument);
    CHECK_THROWS_AS(require_positive("x", inf), headroom::invalid_argument);
    CHECK(require_non_negative("x", 0.0) == 0.0);
    CHECK_THROWS_AS(require_non_negative("x", -1e-300), headroom::invalid_argument);
    CHECK_THROWS_AS(require_finite("x", -inf), headroom::invalid_argument);
    CHECK(require_open_unit("q", 0.9) == 0.9);
    CHECK_THROWS_AS(require_open_unit("q", 1.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_open_unit("q", 0.0), headroom::invalid_argument);
    CHECK_THROWS_AS(require_open_unit("q", not_a_number), headroom::invalid_argument);
    CHECK(require_unit_positive("rho", 1.0) == 1.0);
    CHECK_THROWS_AS(require_unit_positive("rho", 0.0), headroom::invalid_argument);
    CHECK(require_unit("s", 0.0) == 0.0);
    CHECK_THROWS_AS(require_unit("s", 1.0000001), headroom::invalid_argument);
    CHECK(require_unit_below_one("d", 0.0) == 0.0);
    CHECK_THROWS_AS(require_unit_below_one("d", 1.0), headroom::invalid_argument);
  }
}

// SPDX-License-Identifier: Apache-2.0
// What every tests/unit/errors_*.test.cpp shares: the error policy (docs/errors.md) is tested
// one TEST_CASE per row of its table, a file per module, every public entry point fed each
// kind of bad input it can receive. A caller's mistake throws headroom::invalid_argument whose
// what() names the parameter ("name = value: rule"); a domain outcome is a value with a
// reason. Rows for autoscaler.hpp, scheduler*.hpp and sim/fleet_day.hpp pin today's
// behaviour; their known gaps are listed under the table.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string_view>

#include <headroom/error.hpp>

#include "support.hpp"

namespace headroom::test::errors {
using seconds_d = std::chrono::duration<double>;
using headroom::test::not_a_number;
constexpr double inf = headroom::test::infinity;
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
inline const seconds_d nan_s{not_a_number};
inline const seconds_d inf_s{inf};
}  // namespace headroom::test::errors

// Rejects the call with headroom::invalid_argument naming the parameter `name` (exactly: the
// field as the caller wrote it), with a what() that starts with "name = ". In both build
// modes (tests/support.hpp runs the call in a child process without exceptions).
#define CHECK_REJECTS(expr, name)                                                          \
  do {                                                                                     \
    const auto rejection = headroom::test::rejection_of([&] { static_cast<void>(expr); }); \
    CHECK(rejection.parameter == (name));                                                  \
    CHECK(std::string_view(rejection.message).starts_with(name " = "));                    \
  } while (false)

// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the unit tests: what a call rejects, in both build modes.
//
// With exceptions, rejected(f) calls f and returns the parameter named by the
// headroom::invalid_argument it throws. Built with -fno-exceptions (the `no-exceptions`
// preset), the library reports a caller mistake to the handler installed with
// headroom::set_error_handler instead, which must not return: rejected(f) then runs f in a
// forked child whose handler sends the parameter and the message back through a pipe and
// exits. Either way a test that says CHECK(rejected(...) == "quota") checks the same thing.
#pragma once

#include <headroom/error.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#if !defined(__cpp_exceptions)
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#endif

namespace headroom::test {

/// A quiet NaN and +infinity, the bad values every error test feeds.
inline constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
inline constexpr double infinity = std::numeric_limits<double>::infinity();

// Draws for test inputs, from a 64-bit engine's raw bits. std::*_distribution is not specified
// algorithmically (libstdc++ and libc++ draw different numbers from one engine), so a seeded
// test would see different inputs on each standard library; these are the same everywhere.
template <class Engine>
concept engine64 = (Engine::min() == 0) &&
                   (Engine::max() == std::numeric_limits<std::uint64_t>::max());

/// A double in [0, 1): the top 53 bits of one draw, times 2^-53.
template <engine64 Engine>
double unit_draw(Engine& engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

/// A double in [lo, hi).
template <engine64 Engine>
double uniform_draw(Engine& engine, double lo, double hi) {
  return lo + (hi - lo) * unit_draw(engine);
}

/// An integer in [lo, hi] by the remainder (bias below 2^-58 for the small ranges tests use).
template <engine64 Engine>
int integer_draw(Engine& engine, int lo, int hi) {
  const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
  return static_cast<int>(lo + static_cast<std::int64_t>(engine() % span));
}

/// An exponential variate of rate `rate` (mean 1/rate) by inverse transform: −ln(1 − U)/rate.
template <engine64 Engine>
double exponential_draw(Engine& engine, double rate) {
  return -std::log1p(-unit_draw(engine)) / rate;
}

/// |a − b| <= tolerance, usable in static_assert (std::abs is not constexpr in C++20).
constexpr bool near(double a, double b, double tolerance) {
  return (a > b ? a - b : b - a) <= tolerance;
}

/// What a call rejected: the parameter and the full message; both empty when it returned.
struct rejection {
  std::string parameter;
  std::string message;
};

#if defined(__cpp_exceptions)

/// Runs f; returns what the headroom::invalid_argument it threw names (empty if none).
template <class F>
rejection rejection_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const headroom::invalid_argument& e) {
    return {e.parameter(), e.what()};
  }
  return {};
}

#else

namespace detail {
inline int& report_fd() {
  static int fd = -1;
  return fd;
}
[[noreturn]] inline void report_and_exit(const char* parameter, const char* message) noexcept {
  const int fd = report_fd();
  const std::size_t p = std::strlen(parameter), m = std::strlen(message);
  // parameter '\0' message: a short write only loses the test, never the process.
  if (write(fd, parameter, p + 1) < 0 || write(fd, message, m) < 0) _exit(2);
  _exit(0);
}
}  // namespace detail

/// Runs f in a forked child with a handler that reports the rejection through a pipe.
template <class F>
rejection rejection_of(F&& f) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t child = fork();
  if (child < 0) std::abort();
  if (child == 0) {
    close(fds[0]);
    detail::report_fd() = fds[1];
    headroom::set_error_handler(&detail::report_and_exit);
    std::forward<F>(f)();
    _exit(0);  // returned: nothing was rejected, nothing was written
  }
  close(fds[1]);
  std::string received;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  const std::size_t split = received.find('\0');
  if (split == std::string::npos) return {};
  return {received.substr(0, split), received.substr(split + 1)};
}

#endif

/// The parameter named by the invalid_argument f raises ("" when f returns normally).
template <class F>
std::string rejected(F&& f) {
  return rejection_of(std::forward<F>(f)).parameter;
}

/// The full message of the invalid_argument f raises ("" when f returns normally).
template <class F>
std::string rejection_message(F&& f) {
  return rejection_of(std::forward<F>(f)).message;
}

}  // namespace headroom::test

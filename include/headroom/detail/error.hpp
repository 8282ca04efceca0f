// SPDX-License-Identifier: Apache-2.0
// The definitions behind headroom/error.hpp, kept under detail/ so that every detail header
// (detail/checks.hpp first) depends on nothing outside detail/. The library's one error path.
// Three tiers (docs/errors.md):
//  - a broken internal precondition -> HEADROOM_ASSERT (aborts with file and line);
//  - a caller's invalid argument or configuration -> headroom::invalid_argument,
//    whose message names the parameter and its offending value;
//  - a domain outcome (unstable queue, no feasible worker, missing metric) -> a value.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace headroom {
inline namespace v0 {

/// Thrown for an invalid argument or configuration. parameter() is the name of the
/// offending parameter as the caller knows it (e.g. "quota", "config.max_replicas").
class invalid_argument : public std::invalid_argument {
 public:
  invalid_argument(std::string parameter, const std::string& message)
      : std::invalid_argument(message), parameter_(std::move(parameter)) {}
  /// The name of the parameter that was rejected.
  [[nodiscard]] const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string parameter_;
};

/// Called instead of throwing when the library is built without exceptions
/// (-fno-exceptions). Receives the parameter name and the full message; must not return.
using error_handler_fn = void (*)(const char* parameter, const char* message) noexcept;

namespace detail {
[[noreturn]] inline void default_error_handler(const char* parameter,
                                               const char* message) noexcept {
  std::fprintf(stderr, "headroom: invalid argument '%s': %s\n", parameter, message);
  std::abort();
}
inline error_handler_fn& error_handler_slot() noexcept {
  static error_handler_fn handler = nullptr;
  return handler;
}
}  // namespace detail

/// Installs the handler used when exceptions are disabled; returns the previous one
/// (nullptr means the default, which prints the message to stderr and aborts).
inline error_handler_fn set_error_handler(error_handler_fn handler) noexcept {
  error_handler_fn previous = detail::error_handler_slot();
  detail::error_handler_slot() = handler;
  return previous;
}

namespace detail {

/// The single throw site. Builds nothing itself: callers format the message first.
[[noreturn]] inline void raise_invalid_argument(const char* parameter, const std::string& message) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw headroom::invalid_argument(parameter, message);
#else
  if (auto handler = error_handler_slot()) handler(parameter, message.c_str());
  default_error_handler(parameter, message.c_str());
#endif
}

template <class>
inline constexpr bool is_duration_v = false;
template <class Rep, class Period>
inline constexpr bool is_duration_v<std::chrono::duration<Rep, Period>> = true;

/// Appends a human-readable rendering of value (numbers, durations in seconds, strings).
template <class T>
void append_value(std::string& out, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    out += value ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    char buffer[64];
    if constexpr (std::is_floating_point_v<T>) {
      if (value != value) {
        out += "nan";
        return;
      }
    }
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
  } else if constexpr (is_duration_v<T>) {
    append_value(out, std::chrono::duration<double>(value).count());
    out += " s";
  } else {
    out += '"';
    out += std::string_view(value);
    out += '"';
  }
}

/// Throws headroom::invalid_argument "parameter = value: requirement".
template <class T>
[[noreturn]] void fail(const char* parameter, const T& value, std::string_view requirement) {
  std::string message;
  message.reserve(96);
  message += parameter;
  message += " = ";
  append_value(message, value);
  message += ": ";
  message += requirement;
  raise_invalid_argument(parameter, message);
}

[[noreturn]] inline void assertion_failed(const char* file, int line, const char* condition,
                                          const char* message) noexcept {
  std::fprintf(stderr, "%s:%d: headroom assertion failed: %s (%s)\n", file, line, condition,
               message);
  std::abort();
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

/// Checks an internal invariant of the library (not the caller's input). Active unless
/// NDEBUG or HEADROOM_DISABLE_ASSERTS is defined; on failure prints file:line and aborts.
#if defined(NDEBUG) || defined(HEADROOM_DISABLE_ASSERTS)
#define HEADROOM_ASSERT(condition, message) static_cast<void>(sizeof(!(condition)))
#else
#define HEADROOM_ASSERT(condition, message) \
  ((condition) ? static_cast<void>(0)       \
               : ::headroom::detail::assertion_failed(__FILE__, __LINE__, #condition, message))
#endif

#endif  // HEADROOM_HAS_CXX20

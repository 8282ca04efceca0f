// SPDX-License-Identifier: Apache-2.0
// Built only with -fno-exceptions: a caller mistake must reach the handler installed with
// headroom::set_error_handler, with the parameter's name and the full message, and the
// library must never return to the caller after it.
#include <headroom/headroom.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__cpp_exceptions)
#error "this test must be built with -fno-exceptions"
#endif

namespace {
[[noreturn]] void on_error(const char* parameter, const char* message) noexcept {
  std::printf("handler: parameter '%s', message '%s'\n", parameter, message);
  std::fflush(stdout);
  // The expected end of the program: exit 0 only if the parameter is the one we broke.
  std::_Exit(std::strcmp(parameter, "arrival_rate_per_second") == 0 ? 0 : 3);
}
}  // namespace

int main() {
  // A valid call works as usual: ceil(60 / (0.8 × 8)) = 10.
  if (headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                           .target_utilization = 0.8,
                                           .capacity_per_second = 8.0}) != 10)
    return 4;
  headroom::set_error_handler(&on_error);
  volatile double rate = -1.0;
  const auto replicas =
      headroom::queueing::replicas_needed({.arrival_rate_per_second = static_cast<double>(rate),
                                           .target_utilization = 0.8,
                                           .capacity_per_second = 8.0});
  std::printf("returned %lld after a caller mistake: the handler was bypassed\n",
              static_cast<long long>(replicas));
  return 5;
}

// SPDX-License-Identifier: Apache-2.0
// Must not compile: rate and capacity swapped in the positional call, which used to compile
// and return ceil(8 / (0.8 × 60)) = 1 instead of 10. Built with -DHEADROOM_NAMED it is the
// named call, which compiles (tests/static/misuse.cmake checks both).
// first error names: replicas_needed
#include <headroom/queueing.hpp>

int main() {
  const double rate = 60.0;     // req/s
  const double capacity = 8.0;  // req/s
#if defined(HEADROOM_NAMED)
  const auto replicas = headroom::queueing::replicas_needed({.arrival_rate_per_second = rate,
                                                             .target_utilization = 0.8,
                                                             .capacity_per_second = capacity});
#else
  const auto replicas = headroom::queueing::replicas_needed(capacity, 0.8, rate);
#endif
  return replicas == 10 ? 0 : 1;
}

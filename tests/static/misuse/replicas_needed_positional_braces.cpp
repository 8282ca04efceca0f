// SPDX-License-Identifier: Apache-2.0
// Must not compile: the same swap in a positional brace list. The inputs aggregate accepts
// designated initializers only (its first member is detail::designated_initializers_only).
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
  const auto replicas = headroom::queueing::replicas_needed({capacity, 0.8, rate});
#endif
  return replicas == 10 ? 0 : 1;
}

// SPDX-License-Identifier: Apache-2.0
// Must not compile: a queue built with positional braces, λ and μ swapped (a stable queue
// at ρ = 0.8 read as an unstable one at ρ = 1.25).
// first error names: designated_initializers_only
#include <headroom/queueing.hpp>

int main() {
  const double arrivals = 8.0;  // req/s
  const double service = 10.0;  // req/s
#if defined(HEADROOM_NAMED)
  const headroom::queueing::mm1_queue queue{.arrival_rate_per_second = arrivals,
                                            .service_rate_per_second = service};
#else
  const headroom::queueing::mm1_queue queue{service, arrivals};
#endif
  return queue.is_stable() ? 0 : 1;
}

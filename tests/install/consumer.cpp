// SPDX-License-Identifier: Apache-2.0
// Built against an installed headroom: the umbrella header must be found and usable.
#include <headroom/headroom.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>

int main() {
  // Little's law: 6.4 req/s at 8 s each keeps L = 6.4 x 8 = 51.2 requests in flight.
  const double in_flight = headroom::queueing::littles_law_in_flight(6.4, std::chrono::seconds(8));
  std::printf("headroom %s: L = %.1f\n", headroom::version_string, in_flight);
  const bool version_ok = std::strcmp(headroom::version_string, "0.1.0") == 0;
  return version_ok && in_flight > 51.19 && in_flight < 51.21 ? 0 : 1;
}

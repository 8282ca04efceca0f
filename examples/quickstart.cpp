// headroom quick start: from a measured capacity to a fleet size, a target and a price.
#include <headroom/headroom.hpp>

#include <chrono>
#include <cstdio>

#include "flags.hpp"  // the examples' --help and flag checks (examples/flags.hpp)

int main(int argc, char** argv) {
  example::flags("quickstart", "From a measured capacity to a fleet size, a target and a price.")
      .parse(argc, argv);
  using namespace std::chrono_literals;
  const double capacity = 8.0;  // μ*: req/s one replica serves within the SLO (measured)
  const double target = 0.8;    // ρ*: run each replica at 80 % of it
  const long long replicas = headroom::replicas_needed(60.0, target, capacity);  // at 60 req/s
  const double in_flight = headroom::target_concurrency(target, capacity, 8s);   // L* = ρ*μ*W̄
  const double per_million =  // 2 per hour, 8 req/s × 320 tokens, 74 % mean use
      headroom::cost_per_million_tokens(2.0, capacity * 320.0, 0.74);
  const bool spot = headroom::spot_pays(0.6, 0.1);  // 60 % discount, 10 % work lost
  std::printf("replicas %lld, target %.1f in flight each, %.3f per Mtok, spot %s\n", replicas,
              in_flight, per_million, spot ? "pays" : "does not pay");
  return 0;
}

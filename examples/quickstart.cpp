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
  const long long replicas = headroom::queueing::replicas_needed({.arrival_rate_per_second = 60.0,
                                                                  .target_utilization = target,
                                                                  .capacity_per_second = capacity});
  const double in_flight = headroom::queueing::target_concurrency(  // L* = ρ*μ*W̄
      {.target_utilization = target, .capacity_per_second = capacity, .mean_sojourn = 8s});
  const double per_million = headroom::cost::cost_per_million_tokens(  // 8 req/s × 320 tokens
      {.hourly_cost = 2.0, .tokens_per_second = capacity * 320.0, .mean_utilization = 0.74});
  const bool spot = headroom::cost::spot_pays({.discount = 0.6, .lost_work = 0.1});
  std::printf("replicas %lld, target %.1f in flight each, %.3f per Mtok, spot %s\n", replicas,
              in_flight, per_million, spot ? "pays" : "does not pay");
  return 0;
}

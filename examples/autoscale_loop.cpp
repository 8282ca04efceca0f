// SPDX-License-Identifier: Apache-2.0
// An operator's control loop around headroom::autoscaling::autoscaler: every sync it reads a
// metric, asks for a decision, logs the decision and its reason, and starts or stops replicas. Here
// the cluster is simulated: replicas take 2 minutes to start, the load is a morning ramp with a
// spike, and the controller reads vLLM-style in-flight requests per replica.
#include <headroom/autoscaler.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "flags.hpp"

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  example::flags f(
      "autoscale_loop",
      "An operator's control loop around headroom::autoscaling::autoscaler over 15 minutes of "
      "simulated load\n(a morning ramp and a spike; replicas take 2 minutes to "
      "start). No flags.");
  f.parse(argc, argv);
  example::output_buffer out;

  // HPA-like configuration: target 51 in flight per replica (rho* mu* W = 0.8 x 8 req/s x 8 s
  // = 51.2), the Kubernetes default behavior (fast up, 300 s down window), 1..20 replicas.
  const headroom::autoscaling::autoscaler controller(headroom::autoscaling::autoscaler_config{
      .min_replicas = 1,
      .max_replicas = 20,
      .metrics = {{.name = "vllm:num_requests_running",
                   .source = headroom::autoscaling::metric_source::pods,
                   .target_type = headroom::autoscaling::metric_target_type::average_value,
                   .target = 51.0}},
      .behavior = headroom::autoscaling::scaling_behavior{},
      .sync_period = 15s,
  });
  headroom::autoscaling::autoscaler_state state =
      controller.initial_state();  // persist this to restart

  const auto start_delay = 120s;
  std::int32_t ready = 2;
  std::vector<std::chrono::seconds> starting;  // when each requested replica becomes ready
  std::vector<headroom::autoscaling::pod_sample> samples;

  out.printf("%6s %8s %6s %9s %8s  %s\n", "t [s]", "load", "ready", "starting", "desired",
             "reason");
  for (auto t = 0s; t <= 900s; t += 15s) {
    // Replicas whose start delay has elapsed become ready.
    for (auto it = starting.begin(); it != starting.end();) {
      if (*it <= t) {
        ++ready;
        it = starting.erase(it);
      } else {
        ++it;
      }
    }
    // The load (requests in flight across the fleet), spread over the ready replicas.
    const double load = (t < 300s ? 80.0 + 0.6 * static_cast<double>(t.count()) : 260.0) +
                        (t >= 450s && t < 540s ? 200.0 : 0.0);
    samples.assign(static_cast<std::size_t>(ready),
                   headroom::autoscaling::pod_sample{
                       .value = headroom::autoscaling::to_quantity(load / ready)});
    // Replicas still starting are Pending pods: no sample, counted as 0 on a scale-up.
    for (std::size_t i = 0; i < starting.size(); ++i)
      samples.push_back({.status = headroom::autoscaling::pod_status::pending});
    const headroom::autoscaling::metric_observation observation =
        headroom::autoscaling::observe_pods(samples);

    const auto requested = ready + static_cast<std::int32_t>(starting.size());
    const auto decision =
        controller.step(state, t,
                        {.replicas = {.spec = requested, .status = requested, .ready = ready},
                         .metrics = {&observation, 1}});
    out.printf("%6lld %8.1f %6d %9zu %8d  %s\n", static_cast<long long>(t.count()), load, ready,
               starting.size(), decision.desired_replicas,
               std::string(headroom::autoscaling::to_string(decision.reason)).c_str());

    // Act: start replicas (ready after the delay) or stop ready ones.
    for (std::int32_t i = 0; i < decision.delta(); ++i) starting.push_back(t + start_delay);
    for (std::int32_t i = 0; i > decision.delta(); --i) {
      if (!starting.empty())
        starting.pop_back();  // cancel one not yet ready first
      else
        --ready;
    }
  }
  out.print(f.program());
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Misuse: an instance type without ram_bytes, ranked for scale down.
// expect: `ram_bytes`
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <cstdint>
#include <vector>

struct instance {
  std::uint64_t id, model_id, worker_id;
  headroom::scheduling::instance_state state;
  std::vector<headroom::scheduling::gpu_claim> gpus;
};

int main() {
  auto down = headroom::scheduling::gpustack_scale_down_ranker();
  headroom::scheduling::workspace down_ws;
  (void)down.rank(down_ws, std::vector<headroom::scheduling::archetypes::worker>{},
                  std::vector<instance>{}, headroom::scheduling::archetypes::model(7));
}

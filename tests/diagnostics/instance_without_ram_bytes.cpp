// SPDX-License-Identifier: Apache-2.0
// Misuse: an instance type without ram_bytes, ranked for scale down.
// expect: `ram_bytes`
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <cstdint>
#include <vector>

struct instance {
  std::uint64_t id, model_id, worker_id;
  headroom::instance_state state;
  std::vector<headroom::gpu_claim> gpus;
};

int main() {
  auto down = headroom::gpustack_scale_down_ranker();
  headroom::workspace down_ws;
  (void)down.rank(down_ws, std::vector<headroom::archetypes::worker>{}, std::vector<instance>{},
                  headroom::archetypes::model(7));
}

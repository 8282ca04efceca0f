// SPDX-License-Identifier: Apache-2.0
// Misuse: a worker type without ram_total_bytes, placed by a scheduler.
// expect: `ram_total_bytes`
#include <headroom/scheduler.hpp>

#include <cstdint>
#include <vector>

struct gpu {
  std::uint32_t index;
  std::uint64_t vram_total_bytes;
};
struct worker {
  std::uint64_t id;
  int cluster;
  headroom::scheduling::worker_state state;
  std::vector<gpu> gpus;
};
struct model {
  std::uint64_t id;
  int cluster;
};
struct instance {
  std::uint64_t id, model_id, worker_id;
  headroom::scheduling::instance_state state;
  std::uint64_t ram_bytes;
  std::vector<headroom::scheduling::gpu_claim> gpus;
};

int main() {
  auto up = headroom::scheduling::default_scheduler(
      headroom::scheduling::vllm_estimator(16ull << 30, 0.9, 32));
  headroom::scheduling::workspace up_ws;
  const std::vector<worker> workers;
  const std::vector<instance> instances;
  return static_cast<bool>(up.place(up_ws, workers, instances, model{7, 0})) ? 0 : 1;
}

// SPDX-License-Identifier: Apache-2.0
// Misuse: a GPU type without vram_total_bytes, indexed by a workspace.
// expect: `vram_total_bytes`
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <cstdint>
#include <vector>

struct gpu {
  std::uint32_t index;
  std::uint64_t bytes;
};
struct worker {
  std::uint64_t id;
  int cluster;
  headroom::scheduling::worker_state state;
  std::uint64_t ram_total_bytes;
  std::vector<gpu> gpus;
};
struct model {
  std::uint64_t id;
  int cluster;
};

int main() {
  headroom::scheduling::workspace ws;
  ws.index(std::vector<worker>{}, std::vector<headroom::scheduling::archetypes::instance>{},
           model{7, 0});
}

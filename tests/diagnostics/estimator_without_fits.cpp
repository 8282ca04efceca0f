// SPDX-License-Identifier: Apache-2.0
// Misuse: an estimator without fits(claims_bytes, gpu_count).
// expect: `fits(claims_bytes, gpu_count)`
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <cstdint>
#include <vector>

struct estimator {
  headroom::scheduling::backend_capabilities capabilities() const noexcept { return {}; }
  std::uint64_t ram_bytes() const noexcept { return 0; }
  std::uint64_t gpu_claim_bytes(std::uint64_t, std::int64_t) const noexcept { return 0; }
};

int main() {
  auto up = headroom::scheduling::default_scheduler(estimator{});
  headroom::scheduling::workspace up_ws;
  (void)up.place(up_ws, std::vector<headroom::scheduling::archetypes::worker>{},
                 std::vector<headroom::scheduling::archetypes::instance>{},
                 headroom::scheduling::archetypes::model(7));
}

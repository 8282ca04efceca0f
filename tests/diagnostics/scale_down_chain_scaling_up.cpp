// SPDX-License-Identifier: Apache-2.0
// Misuse: a scale-down chain (its scorers read instance records) given to a scheduler.
// expect: scale-up chain cannot score candidates
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <vector>

int main() {
  auto up = headroom::scheduler(headroom::basic_filters(), headroom::archetypes::estimator(1),
                                headroom::gpustack_scale_down_chain());
  headroom::workspace up_ws;
  (void)up.place(up_ws, std::vector<headroom::archetypes::worker>{},
                 std::vector<headroom::archetypes::instance>{}, headroom::archetypes::model(7));
}

// SPDX-License-Identifier: Apache-2.0
// Misuse: a scale-down chain (its scorers read instance records) given to a scheduler.
// expect: scale-up chain cannot score candidates
#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include <vector>

int main() {
  auto up = headroom::scheduling::scheduler(headroom::scheduling::basic_filters(),
                                            headroom::scheduling::archetypes::estimator(1),
                                            headroom::scheduling::gpustack_scale_down_chain());
  headroom::scheduling::workspace up_ws;
  (void)up.place(up_ws, std::vector<headroom::scheduling::archetypes::worker>{},
                 std::vector<headroom::scheduling::archetypes::instance>{},
                 headroom::scheduling::archetypes::model(7));
}

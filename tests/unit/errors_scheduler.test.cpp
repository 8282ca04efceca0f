// SPDX-License-Identifier: Apache-2.0
// The error policy of scheduler.hpp and scheduler/ (docs/errors.md): one TEST_CASE per row of its
// table.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::scheduling;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: scheduler estimators") {
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 0.0, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 1.5, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, not_a_number, 32), "gpu_memory_utilization");
    CHECK_REJECTS(vllm_estimator(16 * gib_bytes, 0.9, 0), "attention_heads");
    CHECK_REJECTS(layered_estimator({.total_layers = 0,
                                     .layer_vram_bytes = 1,
                                     .fixed_vram_bytes = 1,
                                     .layer_ram_bytes = 1,
                                     .fixed_ram_bytes = 1}),
                  "total_layers");
    CHECK_REJECTS((vllm_estimator(vllm_options{.gpu_memory_utilization = 0.0})),
                  "options.gpu_memory_utilization");
    CHECK_REJECTS((vllm_estimator(vllm_options{.attention_heads = 32, .tensor_parallel_size = 3})),
                  "options.tensor_parallel_size");
    vllm_options bad_ratio;
    bad_ratio.kv_cache.ram_ratio = not_a_number;
    CHECK_REJECTS(vllm_estimator(bad_ratio), "options.kv_cache.ram_ratio");
  }

  TEST_CASE("errors: scheduler scorer chain weights") {
    dynamic_scorer_chain<candidate> chain;
    CHECK_REJECTS((chain.add("x", -1.0, placement_scorer{})), "weight");
    CHECK_REJECTS((chain.add("x", not_a_number, placement_scorer{})), "weight");
    chain.add("x", 1.0, placement_scorer{});
    CHECK_REJECTS(chain.set_weight("x", inf), "weight");
    CHECK_FALSE(chain.set_weight("absent", 1.0));
  }

  TEST_CASE("errors: scheduler place") {
    // No feasible worker is a value with a reason, never an exception.
    const std::vector<archetypes::worker> none{};
    const std::vector<archetypes::instance> no_instances{};
    const archetypes::model m(1);
    auto up = gpustack_scheduler(vllm_estimator(16 * gib_bytes, 0.9, 32));
    headroom::scheduling::workspace up_ws;
    const auto empty = up.place(up_ws, none, no_instances, m);
    CHECK_FALSE(empty);
    CHECK(empty.reason == no_placement_reason::no_workers);
    const std::vector<archetypes::worker> small{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    const auto r = up.place(up_ws, small, no_instances, m);
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::insufficient_resources);
    // A decision on a kept index is for the indexed model, over the indexed workers.
    CHECK_REJECTS(up.place(up_ws, small, archetypes::model(2)), "model");
    CHECK_REJECTS(up.place(up_ws, none, m), "workers");
  }

  TEST_CASE("errors: scheduler index") {
    // Ids name one worker, an index one GPU of a worker, an id one recorded instance.
    const std::vector<archetypes::instance> no_instances{};
    const archetypes::model m(1);
    workspace ws;
    const std::vector<archetypes::worker> twins{
        archetypes::worker(5, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)}),
        archetypes::worker(5, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    CHECK_REJECTS(ws.index(twins, no_instances, m), "workers");
    const std::vector<archetypes::worker> same_gpu{archetypes::worker(
        1, 64 * gib_bytes, {archetypes::gpu(2, 8 * gib_bytes), archetypes::gpu(2, 8 * gib_bytes)})};
    CHECK_REJECTS(ws.index(same_gpu, no_instances, m), "workers");
    const std::vector<archetypes::worker> one{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)})};
    const std::vector<archetypes::instance> same_id{archetypes::instance(3, 1, 1, {}),
                                                    archetypes::instance(3, 1, 1, {})};
    CHECK_REJECTS(ws.index(one, same_id, m, index_for::scale_down), "instances");
    ws.index(one, std::vector<archetypes::instance>{same_id[0]}, m, index_for::scale_down);
    CHECK_REJECTS(ws.add_instance(same_id[1]), "instances");
  }

  TEST_CASE("errors: scheduler decisions on workers changed without update_worker") {
    std::vector<archetypes::worker> workers{
        archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 80 * gib_bytes)})};
    const archetypes::model m(1);
    auto up = gpustack_scheduler(vllm_estimator(16 * gib_bytes, 0.9, 32), basic_filters(),
                                 stale_check::refuse);
    headroom::scheduling::workspace up_ws;
    up.index(up_ws, workers, std::vector<archetypes::instance>{}, m);
    workers[0] = archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(0, 8 * gib_bytes)});
    CHECK_REJECTS(up.place(up_ws, workers, m), "workers");
    workers[0] = archetypes::worker(1, 64 * gib_bytes, {archetypes::gpu(7, 8 * gib_bytes)});
    up.options().stale = stale_check::refresh;  // another GPU index: not updatable in place
    CHECK_REJECTS(up.place(up_ws, workers, m), "workers");
    auto down = gpustack_scale_down_ranker(stale_check::refuse);
    headroom::scheduling::workspace down_ws;
    down.index(down_ws, workers, std::vector<archetypes::instance>{}, m);
    workers[0] = archetypes::worker(1, 32 * gib_bytes, {archetypes::gpu(7, 8 * gib_bytes)});
    CHECK_REJECTS(down.rank(down_ws, workers), "workers");
  }
}

// SPDX-License-Identifier: Apache-2.0
// Concept checks for the scheduler: static_asserts, and the public entry points instantiated
// with nothing but the archetypes of <headroom/scheduler/archetypes.hpp> (they compile: the
// scheduler needs nothing undocumented). The misuse diagnostics (a type missing a member
// fails with one line naming it) are checked by tests/diagnostics/first_error.cmake.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

namespace {
using namespace headroom;
using namespace headroom::scheduling;

struct plain_gpu {
  std::uint32_t index;
  std::uint64_t vram_total_bytes;
};
struct plain_worker {
  std::uint64_t id;
  int cluster;
  worker_state state;
  std::uint64_t ram_total_bytes;
  std::vector<plain_gpu> gpus;
};
struct plain_model {
  std::uint64_t id;
  int cluster;
};
struct plain_instance {
  std::uint64_t id, model_id, worker_id;
  instance_state state;
  std::uint64_t ram_bytes;
  std::vector<gpu_claim> gpus;
};
struct not_a_worker {
  std::uint64_t id;
};
struct string_cluster_model {
  std::uint64_t id;
  std::string cluster;
};
// Text identities (GPUStack names its models), GPU types, optional layer counts.
struct named_model {
  std::string id;
  int cluster;
};
struct named_instance {
  std::uint64_t id;
  std::string model_id;
  std::optional<std::uint64_t> worker_id;
  instance_state state;
  std::uint64_t ram_bytes;
  std::vector<gpu_claim> gpus;
  std::string gpu_type;
  std::optional<std::uint32_t> total_layers, offload_layers;
};
struct typed_gpu {
  std::uint32_t index;
  std::uint64_t vram_total_bytes;
  std::string type;
};
struct file_row {
  std::uint64_t worker_id, key;
  bool ready;
};
struct proposal {
  std::uint64_t worker_id;
  std::vector<gpu_claim> gpus;
};
struct float_id_model {
  double id;
  int cluster;
};

// Archetypes satisfy the concepts through their specializations alone.
static_assert(Gpu<archetypes::gpu>);
static_assert(Worker<archetypes::worker>);
static_assert(ModelRequest<archetypes::model>);
static_assert(ModelRequestFor<archetypes::model, archetypes::worker>);
static_assert(Instance<archetypes::instance>);
static_assert(ModelFile<archetypes::model_file>);
static_assert(Placement<archetypes::placement>);
static_assert(Estimator<archetypes::estimator>);
static_assert(!GpustackEstimator<archetypes::estimator>);
static_assert(FilterFor<archetypes::filter, archetypes::worker, archetypes::model>);
static_assert(ScorerFor<archetypes::scorer, candidate>);
static_assert(ScorerFor<archetypes::instance_scorer, instance_record>);
static_assert(!ScorerFor<archetypes::scorer, instance_record>);
static_assert(EstimatorSourceFor<archetypes::estimator, archetypes::model>);
static_assert(
    EstimatorSourceFor<archetypes::estimator (*)(const archetypes::model&), archetypes::model>);
// Plain structs satisfy them through the primary templates (optional members absent).
static_assert(Gpu<plain_gpu>);
static_assert(Worker<plain_worker>);
static_assert(ModelRequestFor<plain_model, plain_worker>);
static_assert(Instance<plain_instance>);
static_assert(ModelRequestFor<named_model, plain_worker>);
static_assert(Instance<named_instance>);
static_assert(Gpu<typed_gpu>);
static_assert(ModelFile<file_row>);
static_assert(Placement<proposal>);
static_assert(GpustackEstimator<vllm_estimator>);
static_assert(!GpustackEstimator<layered_estimator>);
// Negative cases.
static_assert(!ModelRequest<float_id_model>);  // an identity is an integer or text
static_assert(!Worker<not_a_worker>);
static_assert(!Gpu<int>);
static_assert(!ModelRequestFor<string_cluster_model, plain_worker>);
// Filters, estimators, scorers, chains.
static_assert(FilterFor<cluster_filter, archetypes::worker, archetypes::model>);
static_assert(FilterFor<state_filter, archetypes::worker, archetypes::model>);
static_assert(FilterFor<label_filter, plain_worker, plain_model>);
static_assert(FilterChainFor<decltype(basic_filters()), archetypes::worker, archetypes::model>);
static_assert(
    FilterChainFor<dynamic_filter_chain<plain_worker, plain_model>, plain_worker, plain_model>);
static_assert(Estimator<vllm_estimator>);
static_assert(Estimator<layered_estimator>);
static_assert(ScorerFor<binpack_scorer, candidate>);
static_assert(ScorerFor<placement_retention_scorer, instance_record>);
static_assert(!ScorerFor<state_scorer, candidate>);
static_assert(ScorerFor<gated<best_fit_scorer>, candidate>);
static_assert(ScorerChainFor<decltype(gpustack_scale_up_chain()), candidate>);
static_assert(ScorerChainFor<decltype(default_scale_down_chain()), instance_record>);
static_assert(ScorerChainFor<dynamic_scale_up_chain, candidate>);
static_assert(ScorerChainFor<dynamic_scale_down_chain, instance_record>);
// Compile-time use of the vLLM estimator: 14 GiB weights → 14·1.2 + 2 = 18.8 GiB; a 24 GiB
// GPU at gmu 0.9 claims 21.6 GiB and fits alone.
static_assert(vllm_estimator(14 * gib_bytes, 0.9, 32)
                  .fits(vllm_estimator(14 * gib_bytes, 0.9, 32)
                            .gpu_claim_bytes(24 * gib_bytes, 24 * gib_bytes),
                        1));
static_assert(layered_estimator({.total_layers = 10,
                                 .layer_vram_bytes = 100,
                                 .fixed_vram_bytes = 50,
                                 .layer_ram_bytes = 10,
                                 .fixed_ram_bytes = 0})
                  .max_layers(1050) == 10);
}  // namespace

// Every entry point, instantiated with the archetypes alone (compiled, never run).
namespace scheduler_archetype_check {
using namespace headroom;
using namespace headroom::scheduling;
using archetype_chain = scorer_chain<archetypes::scorer>;
using archetype_down = scorer_chain<archetypes::instance_scorer>;

void instantiate(const std::vector<archetypes::worker>& workers,
                 const std::vector<archetypes::instance>& instances, const archetypes::model& m) {
  auto up =
      scheduler(filter_chain<archetypes::filter>(archetypes::filter{}), archetypes::estimator(1),
                archetype_chain(normalization::min_max, weighted<archetypes::scorer>{}));
  workspace up_ws;
  const placement_result r = up.place(up_ws, workers, instances, m);
  up.commit(up_ws, r);
  (void)up.place(up_ws, workers, m);
  (void)up.explain(up_ws, workers, instances, m);
  (void)up.explain(up_ws, workers, m);
  workspace& ws = up_ws;
  ws.add_instance(instances.front());
  ws.remove_instance(instances.front());
  (void)ws.update_worker(workers.front());
  ws.index_files(std::vector<archetypes::model_file>{});
  ws.set_candidates(std::vector<archetypes::placement>{});
  (void)score_candidates(up.chain(), ws);
  (void)fit(ws, archetypes::estimator(1));
  auto down = scale_down_ranker(
      archetype_down(normalization::none, weighted<archetypes::instance_scorer>{}));
  workspace down_ws;
  (void)down.rank(down_ws, workers, instances, m);
  (void)down.rank(down_ws, workers);
}
}  // namespace scheduler_archetype_check

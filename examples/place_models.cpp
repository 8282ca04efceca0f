// SPDX-License-Identifier: Apache-2.0
// Placing models on a small heterogeneous cluster described with the caller's own structs:
// a 4090 worker, a 2×4080 worker and an 8×H100 worker. One scheduler, configured once
// (filters, an estimator made from each model's own sizes, the default chain), places the
// models one after another, each decision explained; each placement becomes one of the
// caller's instances, which the next model's decision counts. Two more replicas of one
// model are then placed on the index kept in the caller's workspace, each committed to it. Last,
// the replicas of that model are ranked for scale down, and the first model's decision is shown
// with the gpustack preset (GPUStack's own candidate list, scores and pick). Runs with no
// arguments (--help says so).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>

#include "flags.hpp"

namespace {
using namespace headroom;
using namespace headroom::scheduling;
constexpr std::uint64_t GiB = gib_bytes;

// The caller's own types: the primary traits read these member names as they are.
struct my_gpu {
  std::uint32_t index = 0;
  std::string product{};  // for display; not read by the scheduler
  std::string type{};     // the runtime type, as GPUStack groups GPUs ("cuda")
  std::uint64_t vram_total_bytes = 0;
};
struct my_worker {
  std::uint64_t id = 0;
  std::string name{};
  std::string cluster{};
  std::vector<std::pair<std::string, std::string>> labels{};
  worker_state state = worker_state::ready;
  std::uint64_t ram_total_bytes = 0;
  std::uint64_t ram_reserved_bytes = 0;
  std::vector<my_gpu> gpus{};
  std::vector<std::uint64_t> ready_files{};  // file keys of models already downloaded
};
struct my_model {
  std::uint64_t id = 0;
  std::string name{};
  std::string cluster{};
  placement_policy placement = placement_policy::binpack;
  std::uint64_t files = 0;
  std::uint64_t weights_bytes = 0;
  std::uint32_t attention_heads = 0;
};
struct my_instance {
  std::uint64_t id = 0;
  std::uint64_t model_id = 0;
  std::optional<std::uint64_t> worker_id{};
  instance_state state = instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<gpu_claim> gpus{};
};

/// What one replica of m needs: GPUStack's vLLM estimate from its weights, 90 % of each GPU,
/// 8 GiB of RAM for an extended KV cache.
// A scorer of ours: the candidate's main worker's RAM left, bytes (the chain normalises it).
struct free_ram_scorer {
  [[nodiscard]] double score(const cluster_view& v, const candidate& c) const noexcept {
    const worker_record& w = v.main_worker(c);
    return static_cast<double>(std::max<std::int64_t>(0, w.ram_alloc_bytes));
  }
};

vllm_estimator size_of(const my_model& m) {
  return vllm_estimator(m.weights_bytes, 0.9, m.attention_heads, 8 * GiB);
}

/// The caller's record of the instance a placement starts (main worker only: these models
/// never span workers).
my_instance instance_of(const placement_result& r, const my_model& m, std::uint64_t id) {
  my_instance inst{
      .id = id, .model_id = m.id, .worker_id = r.worker_id, .ram_bytes = r.parts[0].ram_bytes};
  for (const claim_record& c : r.claims_of(r.parts[0]))
    inst.gpus.push_back({.index = c.index, .vram_bytes = c.vram_bytes});
  return inst;
}

void print_placement(example::output_buffer& out, const std::vector<my_worker>& workers,
                     const my_model& m, const placement_result& r, const explanation& why) {
  out.printf("\n%s (%s):\n", m.name.c_str(),
             m.placement == placement_policy::spread ? "spread" : "binpack");
  for (const rejection& x : why.rejected)
    out.printf("  - %-10s rejected by %-14s %.*s\n", workers[x.worker_position].name.c_str(),
               std::string(x.filter).c_str(), static_cast<int>(x.reason.size()), x.reason.data());
  if (!r) {
    const std::string_view reason = to_string(r.reason);
    out.printf("  no placement: %.*s\n", static_cast<int>(reason.size()), reason.data());
    return;
  }
  const std::string_view strategy = to_string(r.strategy);
  out.printf("  -> %s, GPUs", workers[r.worker_position].name.c_str());
  for (const claim_record& c : r.claims_of(r.parts[0]))
    out.printf(" %u (%.1f GiB)", c.index,
               static_cast<double>(c.vram_bytes) / static_cast<double>(GiB));
  out.printf("; %.*s, %zu candidates, score %.3f\n", static_cast<int>(strategy.size()),
             strategy.data(), r.candidates, r.score);
}

std::vector<my_worker> lab_cluster() {
  std::vector<my_worker> workers{
      {.id = 1,
       .name = "rtx4090",
       .cluster = "lab",
       .labels = {{"tier", "dev"}},
       .ram_total_bytes = 64 * GiB,
       .ram_reserved_bytes = 4 * GiB,
       .gpus = {{.index = 0, .product = "RTX 4090", .type = "cuda", .vram_total_bytes = 24 * GiB}}},
      {.id = 2,
       .name = "rtx4080x2",
       .cluster = "lab",
       .labels = {{"tier", "dev"}},
       .ram_total_bytes = 128 * GiB,
       .ram_reserved_bytes = 4 * GiB,
       .gpus = {{.index = 0, .product = "RTX 4080", .type = "cuda", .vram_total_bytes = 16 * GiB},
                {.index = 1, .product = "RTX 4080", .type = "cuda", .vram_total_bytes = 16 * GiB}},
       .ready_files = {101}},
      {.id = 3,
       .name = "h100x8",
       .cluster = "lab",
       .labels = {{"tier", "prod"}},
       .ram_total_bytes = 1024 * GiB,
       .ram_reserved_bytes = 16 * GiB,
       .ready_files = {102}},
  };
  for (std::uint32_t g = 0; g < 8; ++g)
    workers[2].gpus.push_back(
        {.index = g, .product = "H100", .type = "cuda", .vram_total_bytes = 80 * GiB});
  return workers;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("place_models",
                   "Places four models on a small heterogeneous cluster described with the "
                   "caller's own structs,\nexplains each placement, then ranks one model's "
                   "replicas for scale-down. No flags.");
  f.parse(argc, argv);
  example::output_buffer out;
  const std::vector<my_worker> workers = lab_cluster();
  const std::vector<my_model> models{
      {.id = 11,
       .name = "qwen2.5-7b",
       .cluster = "lab",
       .files = 101,
       .weights_bytes = 15 * GiB,
       .attention_heads = 28},
      {.id = 12,
       .name = "llama-3.2-3b",
       .cluster = "lab",
       .placement = placement_policy::spread,
       .weights_bytes = 13 * GiB / 2,
       .attention_heads = 24},
      {.id = 13,
       .name = "llama-3.1-70b",
       .cluster = "lab",
       .files = 102,
       .weights_bytes = 140 * GiB,
       .attention_heads = 64},
      {.id = 14,
       .name = "deepseek-v3",
       .cluster = "lab",
       .weights_bytes = 1300 * GiB,
       .attention_heads = 128},
  };
  // The backend needs an NVIDIA runtime everywhere here; a real caller checks its own data.
  const auto nvidia = [](const my_worker& w, const my_model&) { return !w.gpus.empty(); };
  const auto up = default_scheduler(&size_of, basic_filters(nvidia));
  headroom::scheduling::workspace up_ws;  // the policy is const; its index and results live here
  std::vector<my_instance> instances;     // the cluster's instances: none yet
  std::uint64_t next_id = 1;

  out.printf("Placing models with the default chain (best fit / anti-affinity, normalised):\n");
  for (const my_model& m : models) {
    const auto [r, why] = up.explain(up_ws, workers, instances, m);
    print_placement(out, workers, m, r, why);
    if (r) instances.push_back(instance_of(r, m, next_id++));
  }
  // Two more replicas of the spread model on the kept index (indexed by the last decision
  // for another model: index it for this one, then commit each placement to it).
  const my_model& spread = models[1];
  up.index(up_ws, workers, instances, spread);
  for (int k = 0; k < 2; ++k) {
    const auto [r, why] = up.explain(up_ws, workers, spread);
    print_placement(out, workers, spread, r, why);
    if (!r) continue;
    instances.push_back(instance_of(r, spread, next_id++));
    up.commit(up_ws, r);  // anti-affinity sends the next replica elsewhere
  }
  instances.back().state = instance_state::starting;

  // The default chain plus a scorer of ours (prefer the worker with the most RAM left):
  // one statement, the preset's scorers and weights kept.
  const auto ours = up.with(weighted<free_ram_scorer>{.weight = 0.5, .name = "free_ram"});
  headroom::scheduling::workspace ours_ws;
  if (const placement_result r = ours.place(ours_ws, workers, instances, models[0]))
    out.printf("\n%s with the default chain plus free_ram (weight 0.5): worker %llu\n",
               models[0].name.c_str(), static_cast<unsigned long long>(r.worker_id));

  // Scale llama-3.2-3b down from 3 replicas to 1.
  const auto down = gpustack_scale_down_ranker();
  headroom::scheduling::workspace down_ws;
  const auto ranked = down.rank(down_ws, workers, instances, spread);
  out.printf("\nScale down %s from %zu to 1 replica (lowest score removed first):\n",
             spread.name.c_str(), ranked.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const my_instance& inst = instances[ranked[i].position];
    std::string where = "?";
    for (const my_worker& w : workers)
      if (inst.worker_id && w.id == *inst.worker_id) where = w.name;
    out.printf("  %s instance %llu on %s, score %.4f\n",
               i + 1 < ranked.size() ? "remove" : "keep  ",
               static_cast<unsigned long long>(inst.id), where.c_str(), ranked[i].score);
  }

  // The gpustack preset on the empty cluster: GPUStack lists every GPU that fits, in its
  // order, and the first highest total wins (the default listing groups equivalent GPUs).
  const my_model& first = models[0];
  const auto gpustack = gpustack_scheduler(&size_of, basic_filters(nvidia));
  headroom::scheduling::workspace gpustack_ws;
  const placement_result r =
      gpustack.place(gpustack_ws, workers, std::vector<my_instance>{}, first);
  out.printf("\n%s with the gpustack preset (GPUStack's candidates, scores and pick):\n",
             first.name.c_str());
  const scored_candidates scored = score_candidates(gpustack.chain(), gpustack_ws);
  const cluster_view v = gpustack_ws.view();
  for (std::size_t i = 0; i < gpustack_ws.candidates().size(); ++i) {
    const placement_part& p = v.parts_of(gpustack_ws.candidates()[i])[0];
    out.printf("  %s %s GPU %u, score %.3f\n", i == scored.best ? "->" : "  ",
               workers[p.worker_position].name.c_str(), v.claims_of(p)[0].index, scored.totals[i]);
  }
  if (r)
    out.printf("  picked %s (%zu candidates)\n", workers[r.worker_position].name.c_str(),
               r.candidates);
  out.print(f.program());
  return 0;
}

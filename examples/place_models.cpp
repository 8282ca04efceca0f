// SPDX-License-Identifier: Apache-2.0
// Placing models on a small heterogeneous cluster described with the caller's own structs:
// a 4090 worker, a 2×4080 worker and an 8×H100 worker. Models are placed one after another
// (each placement committed to the workspace), with the explanation printed; then the
// replicas of one model are ranked for scale down; last, the first model's decision with the
// gpustack preset (GPUStack's own candidate list, scores and pick). Runs with no arguments.
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
constexpr std::uint64_t GiB = gib_bytes;

// The caller's own types: the primary traits read these member names as they are.
struct my_gpu {
  std::uint32_t index;
  std::string product;  // for display; not read by the scheduler
  std::string type;     // the runtime type, as GPUStack groups GPUs ("cuda")
  std::uint64_t vram_total_bytes;
};
struct my_worker {
  std::uint64_t id;
  std::string name;
  std::string cluster;
  std::vector<std::pair<std::string, std::string>> labels;
  worker_state state;
  std::uint64_t ram_total_bytes;
  std::uint64_t ram_reserved_bytes;
  std::vector<my_gpu> gpus;
  std::vector<std::uint64_t> ready_files;  // file keys of models already downloaded
};
struct my_model {
  std::uint64_t id;
  std::string name;
  std::string cluster;
  placement_policy placement;
  std::uint64_t files;
  std::uint64_t weights_bytes;
  std::uint32_t attention_heads;
};
struct my_instance {
  std::uint64_t id;
  std::uint64_t model_id;
  std::optional<std::uint64_t> worker_id;
  instance_state state;
  std::uint64_t ram_bytes;
  std::vector<gpu_claim> gpus;
};

void print_placement(example::output_buffer& out, const std::vector<my_worker>& workers,
                     const my_model& m, const placement_result& r, const explanation& why) {
  out.printf("\n%s (%s):\n", m.name.c_str(),
             m.placement == placement_policy::spread ? "spread" : "binpack");
  for (const rejection& x : why.rejected)
    out.printf("  - %-10s rejected by %-14s %.*s\n", workers[x.worker].name.c_str(),
               std::string(x.filter).c_str(), static_cast<int>(x.reason.size()), x.reason.data());
  if (!r) {
    const std::string_view reason = to_string(r.reason);
    out.printf("  no placement: %.*s\n", static_cast<int>(reason.size()), reason.data());
    return;
  }
  const std::string_view strategy = to_string(r.strategy);
  out.printf("  -> %s, GPUs", workers[r.worker].name.c_str());
  for (const claim_record& c : r.claims_of(r.parts[0]))
    out.printf(" %u (%.1f GiB)", c.index,
               static_cast<double>(c.vram_bytes) / static_cast<double>(GiB));
  out.printf("; %.*s, %zu candidates, score %.3f\n", static_cast<int>(strategy.size()),
             strategy.data(), r.candidates, r.score);
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("place_models",
                   "Places four models on a small heterogeneous cluster described with the "
                   "caller's own structs,\nexplains each placement, then ranks one model's "
                   "replicas for scale-down. No flags.");
  f.parse(argc, argv);
  example::output_buffer out;
  std::vector<my_worker> workers{
      {1,
       "rtx4090",
       "lab",
       {{"tier", "dev"}},
       worker_state::ready,
       64 * GiB,
       4 * GiB,
       {{0, "RTX 4090", "cuda", 24 * GiB}},
       {}},
      {2,
       "rtx4080x2",
       "lab",
       {{"tier", "dev"}},
       worker_state::ready,
       128 * GiB,
       4 * GiB,
       {{0, "RTX 4080", "cuda", 16 * GiB}, {1, "RTX 4080", "cuda", 16 * GiB}},
       {101}},
      {3,
       "h100x8",
       "lab",
       {{"tier", "prod"}},
       worker_state::ready,
       1024 * GiB,
       16 * GiB,
       {},
       {102}},
  };
  for (std::uint32_t g = 0; g < 8; ++g) workers[2].gpus.push_back({g, "H100", "cuda", 80 * GiB});

  std::vector<my_model> models{
      {11, "qwen2.5-7b", "lab", placement_policy::binpack, 101, 15 * GiB, 28},
      {12, "llama-3.2-3b", "lab", placement_policy::spread, 0, 13 * GiB / 2, 24},
      {13, "llama-3.1-70b", "lab", placement_policy::binpack, 102, 140 * GiB, 64},
      {14, "deepseek-v3", "lab", placement_policy::binpack, 0, 1300 * GiB, 128},
  };
  // The backend needs an NVIDIA runtime everywhere here; a real caller checks its own data.
  auto filters = basic_filters([](const my_worker& w, const my_model&) { return !w.gpus.empty(); });
  auto chain = default_scale_up_chain();
  std::vector<my_instance> instances;  // none yet: the workspace commits each placement
  workspace ws;
  explanation why;
  std::uint64_t next_id = 1;

  out.printf("Placing models with the default chain (best fit / anti-affinity, normalised):\n");
  for (const my_model& m : models) {
    const vllm_estimator estimator(m.weights_bytes, 0.9, m.attention_heads, 8 * GiB);
    const placement_result r = place(workers, instances, m, filters, estimator, chain, ws, &why);
    print_placement(out, workers, m, r, why);
    if (!r) continue;
    my_instance inst{next_id++, m.id, r.worker_id, instance_state::running, r.parts[0].ram_bytes,
                     {}};
    for (const claim_record& c : r.claims_of(r.parts[0]))
      inst.gpus.push_back({c.index, c.vram_bytes});
    instances.push_back(std::move(inst));
  }
  // Two more replicas of the spread model: anti-affinity sends them to other workers.
  for (int k = 0; k < 2; ++k) {
    const my_model& m = models[1];
    const placement_result r =
        place(workers, instances, m, filters,
              vllm_estimator(m.weights_bytes, 0.9, m.attention_heads, 8 * GiB), chain, ws, &why);
    print_placement(out, workers, m, r, why);
    if (!r) continue;
    my_instance inst{next_id++, m.id, r.worker_id, instance_state::running, r.parts[0].ram_bytes,
                     {}};
    for (const claim_record& c : r.claims_of(r.parts[0]))
      inst.gpus.push_back({c.index, c.vram_bytes});
    instances.push_back(std::move(inst));
  }
  instances.back().state = instance_state::starting;

  // Scale llama-3.2-3b down from 3 replicas to 1.
  auto down = gpustack_scale_down_chain();
  const auto ranked = rank_for_removal(workers, instances, models[1], down, ws);
  out.printf("\nScale down %s from %zu to 1 replica (lowest score removed first):\n",
             models[1].name.c_str(), ranked.size());
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
  const vllm_estimator estimator(first.weights_bytes, 0.9, first.attention_heads, 8 * GiB);
  auto gpustack = gpustack_scale_up_chain();
  const placement_result r = place(workers, std::vector<my_instance>{}, first, filters, estimator,
                                   gpustack, ws, nullptr, gpustack_fit_options());
  out.printf("\n%s with the gpustack preset (GPUStack's candidates, scores and pick):\n",
             first.name.c_str());
  const scored_candidates scored = score_candidates(gpustack, ws);
  const cluster_view v = ws.view();
  for (std::size_t i = 0; i < ws.candidates().size(); ++i) {
    const placement_part& p = v.parts_of(ws.candidates()[i])[0];
    out.printf("  %s %s GPU %u, score %.3f\n", i == scored.best ? "->" : "  ",
               workers[p.worker].name.c_str(), v.claims_of(p)[0].index, scored.totals[i]);
  }
  if (r) out.printf("  picked %s (%zu candidates)\n", workers[r.worker].name.c_str(), r.candidates);
  out.print(f.program());
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// The gpustack preset against GPUStack's own scheduler code: every scenario committed in
// tests/data/gpustack/ (see its README: random clusters run through GPUStack's selector,
// scorers and pick, pinned upstream commit) is decided by headroom and compared decision
// for decision: the candidate list in GPUStack's order with the same main worker, GPUs (in
// order), VRAM and RAM claims and subordinates; placement score and total equal to 1e-9
// relative; the same pick; for scale down the same removal order, totals and deletions.
// Test-only dependency: nlohmann-json (Debian's nlohmann-json3-dev).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>

namespace {
using namespace headroom;
using json = nlohmann::json;

// The scenario's shapes, as a caller of GPUStack would hold them: text model identities and
// GPU types, worker-level reserved VRAM, optional layer counts, a model-file table.
struct gs_gpu {
  std::uint32_t index = 0;
  std::string type;
  std::uint64_t vram_total_bytes = 0;
};
struct gs_worker {
  std::uint64_t id = 0;
  int cluster = 0;
  worker_state state = worker_state::ready;
  std::uint64_t ram_total_bytes = 0, ram_reserved_bytes = 0, vram_reserved_bytes = 0;
  std::vector<gs_gpu> gpus;
};
struct gs_sub {
  std::uint64_t worker_id = 0;
  std::vector<gpu_claim> gpus;
  std::uint64_t ram_bytes = 0;
};
struct gs_instance {
  std::uint64_t id = 0;
  std::string model_id;
  std::optional<std::uint64_t> worker_id;
  std::string gpu_type;
  instance_state state = instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<gpu_claim> gpus;
  std::vector<gs_sub> subordinates;
  std::optional<std::uint32_t> total_layers, offload_layers;
};
struct gs_model {
  std::string id = "current";
  int cluster = 0;
  placement_policy placement = placement_policy::binpack;
  std::uint64_t files = 1, draft_files = 0;
};
struct gs_file {
  std::uint64_t worker_id = 0;
  std::uint64_t key = 0;
  bool ready = true;
};
static_assert(Worker<gs_worker> && Instance<gs_instance> && ModelRequestFor<gs_model, gs_worker> &&
              ModelFile<gs_file>);

constexpr std::uint64_t GiB = gib_bytes;

worker_state worker_state_of(const std::string& s) {
  static const std::map<std::string, worker_state> m{
      {"NOT_READY", worker_state::not_ready},       {"READY", worker_state::ready},
      {"UNREACHABLE", worker_state::unreachable},   {"PENDING", worker_state::pending},
      {"PROVISIONING", worker_state::provisioning}, {"INITIALIZING", worker_state::initializing},
      {"DELETING", worker_state::deleting},         {"ERROR", worker_state::error},
      {"MAINTENANCE", worker_state::maintenance}};
  return m.at(s);
}
instance_state instance_state_of(const std::string& s) {
  static const std::map<std::string, instance_state> m{
      {"INITIALIZING", instance_state::initializing}, {"PENDING", instance_state::pending},
      {"STARTING", instance_state::starting},         {"RUNNING", instance_state::running},
      {"SCHEDULED", instance_state::scheduled},       {"ERROR", instance_state::error},
      {"DOWNLOADING", instance_state::downloading},   {"ANALYZING", instance_state::analyzing},
      {"UNREACHABLE", instance_state::unreachable}};
  return m.at(s);
}
std::uint64_t bytes_or_zero(const json& j) { return j.is_null() ? 0 : j.get<std::uint64_t>(); }

std::vector<gpu_claim> claims_of(const json& indexes, const json& claim) {
  std::vector<gpu_claim> out;
  const json& vram = claim.contains("vram") ? claim["vram"] : json::object();
  for (const auto& i : indexes) {
    const auto index = i.get<std::uint32_t>();
    const std::string key = std::to_string(index);
    out.push_back({index, vram.contains(key) ? vram[key].get<std::uint64_t>() : 0});
  }
  return out;
}

std::vector<gs_worker> workers_of(const json& sc) {
  std::vector<gs_worker> out;
  for (const auto& w : sc["workers"]) {
    gs_worker r;
    r.id = w["id"].get<std::uint64_t>();
    r.state = worker_state_of(w["state"].get<std::string>());
    r.ram_total_bytes = w["ram_total"].get<std::uint64_t>();
    r.ram_reserved_bytes = w["system_reserved"]["ram"].get<std::uint64_t>();
    r.vram_reserved_bytes = w["system_reserved"]["vram_per_gpu"].get<std::uint64_t>();
    for (const auto& g : w["gpus"])
      r.gpus.push_back({g["index"].get<std::uint32_t>(), g["type"].get<std::string>(),
                        g["vram_total"].get<std::uint64_t>()});
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<gs_instance> instances_of(const json& sc) {
  std::vector<gs_instance> out;
  for (const auto& i : sc["instances"]) {
    gs_instance r;
    r.id = i["id"].get<std::uint64_t>();
    r.model_id = i["model"].get<std::string>();
    if (!i["worker_id"].is_null()) r.worker_id = i["worker_id"].get<std::uint64_t>();
    if (!i["gpu_type"].is_null()) r.gpu_type = i["gpu_type"].get<std::string>();
    r.state = instance_state_of(i["state"].get<std::string>());
    const json& claim = i["claim"];
    r.ram_bytes = bytes_or_zero(claim.value("ram", json()));
    r.gpus = claims_of(i["gpu_indexes"], claim);
    if (claim.contains("total_layers") && !claim["total_layers"].is_null())
      r.total_layers = claim["total_layers"].get<std::uint32_t>();
    if (claim.contains("offload_layers") && !claim["offload_layers"].is_null())
      r.offload_layers = claim["offload_layers"].get<std::uint32_t>();
    for (const auto& s : i["subordinates"])
      r.subordinates.push_back({s["worker_id"].get<std::uint64_t>(),
                                claims_of(s["gpu_indexes"], s["claim"]),
                                bytes_or_zero(s["claim"].value("ram", json()))});
    out.push_back(std::move(r));
  }
  return out;
}

vllm_options options_of(const json& sc) {
  const json& m = sc["model"];
  vllm_options o;
  o.required_vram_bytes = m["vram_need"].get<std::uint64_t>();
  o.attention_heads = m["num_attention_heads"].get<std::uint32_t>();
  if (m.contains("vocab_size") && !m["vocab_size"].is_null())
    o.vocab_size = m["vocab_size"].get<std::uint32_t>();
  o.tensor_parallel_size = m.value("tensor_parallel_size", 0u);
  o.gpu_memory_utilization = m.value("gpu_memory_utilization", 0.9);
  o.distributed = m.value("distributed_inference_across_workers", false)
                      ? distributed_inference::across_workers
                      : distributed_inference::single_worker;
  if (m.contains("extended_kv_cache")) {
    const json& k = m["extended_kv_cache"];
    o.kv_cache.enabled = k.value("enabled", true);
    if (k.contains("ram_size_gib") && !k["ram_size_gib"].is_null())
      o.kv_cache.ram_size_bytes = k["ram_size_gib"].get<std::uint64_t>() * GiB;
    o.kv_cache.ram_ratio = k.value("ram_ratio", 1.2);
  }
  return o;
}

std::vector<gs_file> files_of(const json& sc) {
  std::vector<gs_file> out;
  for (const auto& w : sc.value("model_files_ready_on", json::array()))
    out.push_back({w.get<std::uint64_t>(), 1, true});
  if (sc.contains("draft_files_ready_on"))
    for (const auto& w : sc["draft_files_ready_on"])
      out.push_back({w.get<std::uint64_t>(), 2, true});
  return out;
}

json load(const char* name) {
  std::ifstream in(std::string(HEADROOM_TEST_DATA_DIR) + "/gpustack/" + name);
  REQUIRE_MESSAGE(in.good(), name);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

/// |a − b| <= 1e-9 · max(|a|, |b|).
bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

std::map<std::string, std::uint64_t> vram_map(const json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [k, v] : j.items()) out[k] = v.get<std::uint64_t>();
  return out;
}
std::vector<std::uint32_t> indexes_of(const cluster_view& v, const placement_part& p) {
  std::vector<std::uint32_t> out;
  for (const claim_record& c : v.claims_of(p)) out.push_back(c.index);
  return out;
}
std::map<std::string, std::uint64_t> vram_map(const cluster_view& v, const placement_part& p) {
  std::map<std::string, std::uint64_t> out;
  for (const claim_record& c : v.claims_of(p)) out[std::to_string(c.index)] = c.vram_bytes;
  return out;
}

struct tally {
  int scenarios = 0, agreed = 0;
};

/// Decides one scale-up scenario; true iff every decision agrees (CHECKs say where not).
bool scale_up_agrees(const json& sc, const json& expected) {
  const std::vector<gs_worker> workers = workers_of(sc);
  const std::vector<gs_instance> instances = instances_of(sc);
  gs_model m;
  m.placement = sc["strategy"] == "spread" ? placement_policy::spread : placement_policy::binpack;
  m.draft_files = sc.contains("draft_files_ready_on") ? 2 : 0;
  const vllm_estimator estimator(options_of(sc));
  workspace ws;
  ws.index(workers, instances, m);
  ws.index_files(files_of(sc));
  auto chain = gpustack_scale_up_chain();
  const auto filters = basic_filters();
  const placement_result r =
      place_indexed(workers, m, filters, estimator, chain, ws, nullptr, gpustack_fit_options());
  const json& want = expected["candidates"];
  bool ok = true;
  const auto expect = [&](bool cond) {
    if (!cond) ok = false;
    return cond;
  };
  const std::span<const candidate> cands = ws.candidates();
  if (!expect(cands.size() == want.size())) {
    MESSAGE(sc["id"].get<std::string>(), ": ", cands.size(), " candidates, GPUStack ", want.size());
    return false;
  }
  // The placement scorer alone, then the chain's totals.
  std::vector<double> placement(cands.size());
  {
    auto alone = scorer_chain<placement_scorer>(normalization::none,
                                                weighted<placement_scorer>{{100}, 1, "placement"});
    const scored_candidates s = score_candidates(alone, ws);
    std::copy(s.totals.begin(), s.totals.end(), placement.begin());
  }
  const scored_candidates totals = score_candidates(chain, ws);
  const cluster_view v = ws.view();
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const json& c = want[i];
    const auto parts = v.parts_of(cands[i]);
    expect(v.workers[parts[0].worker].id == c["worker_id"].get<std::uint64_t>());
    expect(indexes_of(v, parts[0]) == c["gpu_indexes"].get<std::vector<std::uint32_t>>());
    expect(vram_map(v, parts[0]) == vram_map(c["vram"]));
    expect(parts[0].ram_bytes == bytes_or_zero(c["ram"]));
    expect(close(placement[i], c["placement_score"].get<double>()));
    expect(close(totals.totals[i], c["score"].get<double>()));
    const json& subs = c["subordinates"];
    if (!expect(parts.size() == subs.size() + 1)) continue;
    for (std::size_t k = 0; k < subs.size(); ++k) {
      expect(v.workers[parts[k + 1].worker].id == subs[k]["worker_id"].get<std::uint64_t>());
      expect(indexes_of(v, parts[k + 1]) ==
             subs[k]["gpu_indexes"].get<std::vector<std::uint32_t>>());
      expect(vram_map(v, parts[k + 1]) == vram_map(subs[k]["vram"]));
      expect(parts[k + 1].ram_bytes == bytes_or_zero(subs[k]["ram"]));
    }
  }
  if (expected["pick_index"].is_null()) {
    expect(!r);
  } else {
    const auto pick = expected["pick_index"].get<std::size_t>();
    expect(static_cast<bool>(r) && totals.best == pick &&
           r.chosen.part_begin == cands[pick].part_begin);
  }
  if (!ok) MESSAGE(sc["id"].get<std::string>(), " disagrees");
  return ok;
}

bool scale_down_agrees(const json& sc, const json& expected) {
  const std::vector<gs_worker> workers = workers_of(sc);
  const std::vector<gs_instance> instances = instances_of(sc);
  gs_model m;
  m.placement = sc["strategy"] == "spread" ? placement_policy::spread : placement_policy::binpack;
  workspace ws;
  auto chain = gpustack_scale_down_chain();
  const auto ranked = rank_for_removal(workers, instances, m, chain, ws);
  const auto order = expected["ascending_order"].get<std::vector<std::uint64_t>>();
  bool ok = ranked.size() == order.size();
  for (std::size_t i = 0; ok && i < order.size(); ++i) {
    ok = ok && ranked[i].id == order[i];
    ok = ok && close(ranked[i].score, expected["totals"][std::to_string(order[i])].get<double>());
  }
  const auto replicas = sc["model"]["replicas"].get<std::size_t>();
  const std::size_t deletions = ranked.size() > replicas ? ranked.size() - replicas : 0;
  const auto want = expected["delete_ids"].get<std::vector<std::uint64_t>>();
  ok = ok && deletions == want.size();
  for (std::size_t i = 0; ok && i < deletions; ++i) ok = ranked[i].id == want[i];
  if (!ok) MESSAGE(sc["id"].get<std::string>(), " disagrees");
  return ok;
}
}  // namespace

TEST_SUITE("scheduler") {
  TEST_CASE("scheduler: the gpustack preset decides as GPUStack on every committed scenario") {
    const json scenarios = load("scenarios.json");
    const json decisions = load("decisions.json");
    tally up, down;
    REQUIRE(scenarios["scale_up"].size() == decisions["scale_up"].size());
    REQUIRE(scenarios["scale_down"].size() == decisions["scale_down"].size());
    for (std::size_t i = 0; i < scenarios["scale_up"].size(); ++i) {
      const json& expected = decisions["scale_up"][i];
      REQUIRE(expected["id"] == scenarios["scale_up"][i]["id"]);
      REQUIRE_FALSE(expected.contains("error"));
      ++up.scenarios;
      if (scale_up_agrees(scenarios["scale_up"][i], expected)) ++up.agreed;
    }
    for (std::size_t i = 0; i < scenarios["scale_down"].size(); ++i) {
      const json& expected = decisions["scale_down"][i];
      REQUIRE(expected["id"] == scenarios["scale_down"][i]["id"]);
      REQUIRE_FALSE(expected.contains("error"));
      ++down.scenarios;
      if (scale_down_agrees(scenarios["scale_down"][i], expected)) ++down.agreed;
    }
    MESSAGE("scale up ", up.agreed, "/", up.scenarios, ", scale down ", down.agreed, "/",
            down.scenarios);
    CHECK(up.scenarios + down.scenarios >= 300);
    CHECK(up.agreed == up.scenarios);
    CHECK(down.agreed == down.scenarios);
  }
}

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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>

#include "support.hpp"
#include "test_data.hpp"

// A caller's own types that the primary traits cannot read: other member names, its own
// state enums, claims named {gpu, bytes}, reserved VRAM per card on the node, a file table.
namespace theirs {
enum class node_status { up, down, draining, lost };
enum class phase { queued, booting, serving, failed };
struct card {
  std::uint32_t slot;
  std::uint64_t bytes;
  std::string kind;
};
struct card_claim {
  std::uint32_t gpu;
  std::uint64_t bytes;
};
struct node {
  std::uint64_t uid;
  node_status status;
  std::uint64_t mem;
  std::uint64_t reserved_per_card;
  std::vector<card> cards;
};
struct helper {
  std::uint64_t node;
  std::vector<card_claim> cards;
};
struct replica {
  std::uint64_t uid;
  std::string model_name;
  std::optional<std::uint64_t> node;
  phase state;
  std::uint64_t mem;
  std::vector<card_claim> cards;
  std::vector<helper> helpers{};
};
struct file_row {
  std::uint64_t node;
  std::uint64_t source;
  int state;  // 1 = READY
};
struct proposal {
  std::uint64_t node;
  std::vector<card_claim> cards;
};
}  // namespace theirs

// Only the members whose names differ; vram_reserved_bytes (absent: 0) is the default's.
template <>
struct headroom::scheduling::gpu_traits<theirs::card>
    : headroom::scheduling::default_gpu_traits<theirs::card> {
  static std::uint32_t index(const theirs::card& c) noexcept { return c.slot; }
  static std::uint64_t vram_total_bytes(const theirs::card& c) noexcept { return c.bytes; }
  static std::string_view type(const theirs::card& c) noexcept { return c.kind; }
};
template <>
struct headroom::scheduling::claim_traits<theirs::card_claim> {
  static std::uint32_t index(const theirs::card_claim& c) noexcept { return c.gpu; }
  static std::uint64_t vram_bytes(const theirs::card_claim& c) noexcept { return c.bytes; }
};
template <>
struct headroom::scheduling::worker_traits<theirs::node> {
  using W = theirs::node;
  static std::uint64_t id(const W& w) noexcept { return w.uid; }
  static int cluster(const W&) noexcept { return 0; }
  static std::span<const std::pair<int, int>> labels(const W&) noexcept { return {}; }
  static worker_state state(const W& w) noexcept {
    switch (w.status) {
      case theirs::node_status::up:
        return worker_state::ready;
      case theirs::node_status::draining:
        return worker_state::maintenance;
      case theirs::node_status::lost:
        return worker_state::unreachable;
      default:
        return worker_state::not_ready;
    }
  }
  static std::uint64_t ram_total_bytes(const W& w) noexcept { return w.mem; }
  static std::uint64_t ram_reserved_bytes(const W&) noexcept { return 0; }
  static std::uint64_t vram_reserved_bytes(const W& w) noexcept { return w.reserved_per_card; }
  static const std::vector<theirs::card>& gpus(const W& w) noexcept { return w.cards; }
  static bool files_ready(const W&, std::uint64_t) noexcept { return false; }
};
template <>
struct headroom::scheduling::subordinate_traits<theirs::helper> {
  static std::uint64_t worker_id(const theirs::helper& h) noexcept { return h.node; }
  static const std::vector<theirs::card_claim>& gpus(const theirs::helper& h) noexcept {
    return h.cards;
  }
  static std::uint64_t ram_bytes(const theirs::helper&) noexcept { return 0; }
};
template <>
struct headroom::scheduling::instance_traits<theirs::replica> {
  using I = theirs::replica;
  static std::uint64_t id(const I& i) noexcept { return i.uid; }
  static const std::string& model_id(const I& i) noexcept { return i.model_name; }
  static std::optional<std::uint64_t> worker_id(const I& i) noexcept { return i.node; }
  static instance_state state(const I& i) noexcept {
    constexpr instance_state map[] = {instance_state::pending, instance_state::starting,
                                      instance_state::running, instance_state::error};
    return map[static_cast<int>(i.state)];
  }
  static std::uint64_t ram_bytes(const I& i) noexcept { return i.mem; }
  static const std::vector<theirs::card_claim>& gpus(const I& i) noexcept { return i.cards; }
  static const std::vector<theirs::helper>& subordinates(const I& i) noexcept { return i.helpers; }
  static std::string_view gpu_type(const I&) noexcept { return {}; }
  static std::optional<std::uint32_t> total_layers(const I&) noexcept { return std::nullopt; }
  static std::optional<std::uint32_t> offload_layers(const I&) noexcept { return std::nullopt; }
};
template <>
struct headroom::scheduling::model_file_traits<theirs::file_row> {
  static std::optional<std::uint64_t> worker_id(const theirs::file_row& f) noexcept {
    return f.node;
  }
  static std::uint64_t key(const theirs::file_row& f) noexcept { return f.source; }
  static bool ready(const theirs::file_row& f) noexcept { return f.state == 1; }
};
template <>
struct headroom::scheduling::placement_traits<theirs::proposal> {
  static std::uint64_t worker_id(const theirs::proposal& p) noexcept { return p.node; }
  static const std::vector<theirs::card_claim>& gpus(const theirs::proposal& p) noexcept {
    return p.cards;
  }
  static std::uint64_t ram_bytes(const theirs::proposal&) noexcept { return 0; }
  static std::span<const headroom::scheduling::no_subordinate> subordinates(
      const theirs::proposal&) noexcept {
    return {};
  }
};
static_assert(headroom::scheduling::Worker<theirs::node> &&
              headroom::scheduling::Instance<theirs::replica> &&
              headroom::scheduling::ModelFile<theirs::file_row> &&
              headroom::scheduling::Placement<theirs::proposal>);

namespace {
using namespace headroom;
using namespace headroom::scheduling;
using json = nlohmann::json;

// The scenario's shapes, as a caller of GPUStack would hold them: text model identities and
// GPU types, worker-level reserved VRAM, optional layer counts, a model-file table.
struct gs_gpu {
  std::uint32_t index = 0;
  std::string type{};
  std::uint64_t vram_total_bytes = 0;
};
struct gs_worker {
  std::uint64_t id = 0;
  int cluster = 0;
  worker_state state = worker_state::ready;
  std::uint64_t ram_total_bytes = 0, ram_reserved_bytes = 0, vram_reserved_bytes = 0;
  std::vector<gs_gpu> gpus{};
};
struct gs_sub {
  std::uint64_t worker_id = 0;
  std::vector<gpu_claim> gpus{};
  std::uint64_t ram_bytes = 0;
};
struct gs_instance {
  std::uint64_t id = 0;
  std::string model_id{};
  std::optional<std::uint64_t> worker_id{};
  std::string gpu_type{};
  instance_state state = instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<gpu_claim> gpus{};
  std::vector<gs_sub> subordinates{};
  std::optional<std::uint32_t> total_layers{}, offload_layers{};
};
struct gs_model {
  std::string id = "current";
  int cluster = 0;
  placement_policy placement = placement_policy::binpack;
  std::uint64_t files = 1, draft_files = 0;
  std::vector<gpu_ref> gpu_selection{};
  std::uint32_t gpus_per_replica = 0, replicas = 1;
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
    out.push_back(
        {.index = index, .vram_bytes = vram.contains(key) ? vram[key].get<std::uint64_t>() : 0});
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
      r.gpus.push_back({.index = g["index"].get<std::uint32_t>(),
                        .type = g["type"].get<std::string>(),
                        .vram_total_bytes = g["vram_total"].get<std::uint64_t>()});
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
      r.subordinates.push_back({.worker_id = s["worker_id"].get<std::uint64_t>(),
                                .gpus = claims_of(s["gpu_indexes"], s["claim"]),
                                .ram_bytes = bytes_or_zero(s["claim"].value("ram", json()))});
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
    out.push_back({.worker_id = w.get<std::uint64_t>(), .key = 1, .ready = true});
  if (sc.contains("draft_files_ready_on"))
    for (const auto& w : sc["draft_files_ready_on"])
      out.push_back({.worker_id = w.get<std::uint64_t>(), .key = 2, .ready = true});
  return out;
}

json load(const char* name) {
  return json::parse(headroom::test::read_test_data(std::string("gpustack/") + name));
}

/// A candidate as GPUStack's decision lists it, copied out of the workspace.
struct listed {
  std::uint64_t worker_id = 0;
  std::vector<std::uint32_t> gpus{};
  std::vector<std::uint64_t> vram{};  // per GPU, same order
  std::uint64_t ram = 0;
  std::vector<std::uint64_t> subordinates{};  // worker ids
  double total = 0;
  bool operator==(const listed&) const = default;
};
using gs_scheduler =
    scheduler<decltype(basic_filters()), vllm_estimator, decltype(gpustack_scale_up_chain())>;
struct decision {
  std::unique_ptr<gs_scheduler> owner;  // the policy
  std::unique_ptr<workspace> ws;        // the workspace result points into
  std::vector<listed> candidates;
  std::size_t pick = 0;
  placement_result result;
};
/// Decides a scale up with the gpustack preset (or the given fit options) and lists it.
decision decide(const std::vector<gs_worker>& workers, const std::vector<gs_instance>& instances,
                const gs_model& m, const vllm_estimator& e,
                const fit_options& fit = gpustack_fit_options()) {
  decision d;
  d.owner = std::make_unique<gs_scheduler>(basic_filters(), e, gpustack_scale_up_chain(),
                                           scheduler_options{.fit = fit});
  d.ws = std::make_unique<workspace>();
  workspace& ws = *d.ws;
  d.result = d.owner->place(ws, workers, instances, m);
  const scored_candidates sc = score_candidates(d.owner->chain(), ws, fit.ties);
  const cluster_view v = ws.view();
  for (std::size_t i = 0; i < ws.candidates().size(); ++i) {
    const auto parts = v.parts_of(ws.candidates()[i]);
    listed l{.worker_id = v.workers[parts[0].worker_position].id,
             .ram = parts[0].ram_bytes,
             .total = sc.totals[i]};
    for (const claim_record& c : v.claims_of(parts[0])) {
      l.gpus.push_back(c.index);
      l.vram.push_back(c.vram_bytes);
    }
    for (std::size_t k = 1; k < parts.size(); ++k)
      l.subordinates.push_back(v.workers[parts[k].worker_position].id);
    d.candidates.push_back(std::move(l));
  }
  d.pick = sc.best;
  return d;
}
std::vector<gs_gpu> gpus_of(std::initializer_list<std::uint32_t> indexes, std::uint64_t total,
                            const char* type = "cuda") {
  std::vector<gs_gpu> out;
  for (std::uint32_t i : indexes)
    out.push_back({.index = i, .type = type, .vram_total_bytes = total});
  return out;
}
/// The bytes GPUStack claims on a GPU of total bytes at gmu 0.9: int(total * 0.9).
constexpr std::uint64_t claim90(std::uint64_t total) {
  return static_cast<std::uint64_t>(static_cast<double>(total) * 0.9);
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
  auto up = gpustack_scheduler(vllm_estimator(options_of(sc)));
  workspace up_ws;
  up.index(up_ws, workers, instances, m);
  workspace& ws = up_ws;
  ws.index_files(files_of(sc));
  const placement_result r = up.place(up_ws, workers, m);
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
    auto alone = scorer_chain<placement_scorer>(
        normalization::none,
        weighted<placement_scorer>{.scorer = {.max_score = 100}, .weight = 1, .name = "placement"});
    const scored_candidates s = score_candidates(alone, ws);
    std::copy(s.totals.begin(), s.totals.end(), placement.begin());
  }
  const scored_candidates totals = score_candidates(up.chain(), ws);
  const cluster_view v = ws.view();
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const json& c = want[i];
    const auto parts = v.parts_of(cands[i]);
    expect(v.workers[parts[0].worker_position].id == c["worker_id"].get<std::uint64_t>());
    expect(indexes_of(v, parts[0]) == c["gpu_indexes"].get<std::vector<std::uint32_t>>());
    expect(vram_map(v, parts[0]) == vram_map(c["vram"]));
    expect(parts[0].ram_bytes == bytes_or_zero(c["ram"]));
    expect(close(placement[i], c["placement_score"].get<double>()));
    expect(close(totals.totals[i], c["score"].get<double>()));
    const json& subs = c["subordinates"];
    if (!expect(parts.size() == subs.size() + 1)) continue;
    for (std::size_t k = 0; k < subs.size(); ++k) {
      expect(v.workers[parts[k + 1].worker_position].id ==
             subs[k]["worker_id"].get<std::uint64_t>());
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
  auto down = gpustack_scale_down_ranker();
  workspace down_ws;
  const auto ranked = down.rank(down_ws, workers, instances, m);
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
  // ---- regression tests: each difference from GPUStack found before the preset was exact,
  // derived by hand from upstream's code (GPUStack commit 47277d79, cited per case). ------

  TEST_CASE(
      "scheduler: gpustack lists one candidate per GPU in listed order even for identical GPUs") {
    // vllm_resource_fit_selector.py::_find_single_worker_single_gpu_full_offloading_candidates
    // walks worker.status.gpu_devices and appends a candidate for every GPU that fits. Four
    // idle 80 GiB GPUs listed 2, 0, 3, 1; need 20 GiB: four candidates in that order, each
    // claiming int(80 GiB × 0.9) = 72 GiB and scoring binpack (0 + 72/80·100·2)/3 = 60; the
    // first maximum (GPU 2) wins. The grouped listing drops a GPU equivalent to an earlier
    // one with a lower index (GPUs 3 and 1 here) and its tie rule picks GPU 0.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({2, 0, 3, 1}, 80 * GiB)}};
    const vllm_estimator e(vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32});
    const decision d = decide(workers, {}, gs_model{}, e);
    REQUIRE(d.candidates.size() == 4);
    const std::uint32_t order[] = {2, 0, 3, 1};
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(d.candidates[i].gpus == std::vector<std::uint32_t>{order[i]});
      CHECK(d.candidates[i].vram == std::vector<std::uint64_t>{72 * GiB});
      CHECK(d.candidates[i].total == doctest::Approx(60.0));
    }
    CHECK(d.pick == 0);
    CHECK(d.result.claims_of(d.result.parts[0])[0].index == 2);
    const decision grouped = decide(workers, {}, gs_model{}, e, fit_options{});
    CHECK(grouped.candidates.size() == 2);
    CHECK(grouped.result.claims_of(grouped.result.parts[0])[0].index == 0);
  }

  TEST_CASE(
      "scheduler: gpustack multi-GPU keeps the fewest GPUs, largest allocatable first, strictly "
      "above gmu") {
    // vllm_resource_fit_selector.py::_find_single_worker_multi_gpu_full_offloading_candidates:
    // a GPU joins when allocatable/total > gmu (strict), the list is sorted by allocatable
    // VRAM, largest first, and claims accumulate in that order; its caller
    // find_single_worker_multi_gpu_full_offloading_candidates keeps the candidates with the
    // fewest GPUs. Worker 1: 4 × 80 GiB with 4, 8, 2, 6 GiB claimed by another model →
    // allocatable 76, 72, 78, 74 (GPU 1 at exactly 0.9: out). Need 140 GiB: GPU 2 (78) then
    // GPU 0 (76): 2 × 72 = 144 >= 140, 2 divides 32 heads. Worker 2: 4 × 48 GiB idle needs
    // 4 GPUs (43.2 GiB each; 3 does not divide 32): dropped (more GPUs). Binpack: max over
    // GPU 2 (72/78) and GPU 0 (72/76) of (0 + c/a·200)/3 = 200·72/76/3 = 63.1579.
    std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1, 2, 3}, 80 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1, 2, 3}, 48 * GiB)}};
    std::vector<gs_instance> others;
    const std::uint64_t used[] = {4, 8, 2, 6};
    for (std::uint32_t g = 0; g < 4; ++g)
      others.push_back({.id = g + 1,
                        .model_id = "other-1",
                        .worker_id = 1,
                        .gpu_type = "cuda",
                        .gpus = {{.index = g, .vram_bytes = used[g] * GiB}}});
    const vllm_estimator e(vllm_options{.required_vram_bytes = 140 * GiB, .attention_heads = 32});
    const decision d = decide(workers, others, gs_model{}, e);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].worker_id == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{2, 0});
    CHECK(d.candidates[0].vram == std::vector<std::uint64_t>{72 * GiB, 72 * GiB});
    CHECK(d.candidates[0].total == doctest::Approx(200.0 * 72 / 76 / 3));
    CHECK(d.result.strategy == fit_strategy::multi_gpu);
    // The grouped listing takes GPU 1 (72 >= its 72 GiB claim), in index order, and keeps
    // worker 2's 4-GPU candidate too.
    const decision grouped = decide(workers, others, gs_model{}, e, fit_options{});
    REQUIRE(grouped.candidates.size() == 2);
    CHECK(grouped.candidates[0].gpus == std::vector<std::uint32_t>{0, 1});
  }

  TEST_CASE("scheduler: gpustack distributed stage yields exactly one candidate") {
    // vllm_resource_fit_selector.py::auto_select_multi_worker_multi_gpu_candidates returns
    // [candidate] for the first worker combination that covers the need (per GPU type).
    // Three workers of 2 × 24 GiB: claims int(24 GiB × 0.9) each, 2 per worker = 43.2 GiB;
    // need 60 GiB: workers 1 + 2 (86.4) → one candidate, main 1, subordinate 2. Binpack:
    // every GPU 2·c/24 GiB·100/3, main and subordinate alike, so (5·S + 1·S)/6 = S.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1}, 24 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1}, 24 * GiB)},
        {.id = 3, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1}, 24 * GiB)}};
    const vllm_estimator e(vllm_options{.required_vram_bytes = 60 * GiB,
                                        .attention_heads = 32,
                                        .distributed = distributed_inference::across_workers});
    const decision d = decide(workers, {}, gs_model{}, e);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].worker_id == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{0, 1});
    CHECK(d.candidates[0].subordinates == std::vector<std::uint64_t>{2});
    const double s =
        2.0 * static_cast<double>(claim90(24 * GiB)) / static_cast<double>(24 * GiB) * 100 / 3;
    CHECK(d.candidates[0].total == doctest::Approx(s));
    CHECK(d.result.strategy == fit_strategy::distributed);
    const decision grouped = decide(workers, {}, gs_model{}, e, fit_options{});
    CHECK(grouped.candidates.size() == 3);  // ours: one per main worker
  }

  TEST_CASE(
      "scheduler: gpustack lists candidates grouped by GPU type in order of first appearance") {
    // policies/utils.py::group_workers_by_gpu_type: a dict keyed by GPU type in order of
    // first appearance; the selectors walk it type by type. Workers cuda, rocm, cuda →
    // candidates 1, 3, then 2.
    std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB, "rocm")},
        {.id = 3, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)}};
    const vllm_estimator e(vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32});
    decision d = decide(workers, {}, gs_model{}, e);
    REQUIRE(d.candidates.size() == 3);
    CHECK(d.candidates[0].worker_id == 1);
    CHECK(d.candidates[1].worker_id == 3);
    CHECK(d.candidates[2].worker_id == 2);
    // A worker mixing types: group_workers_by_gpu_type gives each type a shallow copy of the
    // worker and assigns the copy's (shared) status its GPUs, so every copy ends with the
    // GPUs of the type that first appears last (rocm for cuda, rocm, cuda); the worker still
    // opens the cuda group. Worker 1 [cuda 0, rocm 1, cuda 2]: candidates 3 (cuda), then
    // 1 GPU 1 and 2 (rocm).
    workers[0].gpus = {{0, "cuda", 80 * GiB}, {1, "rocm", 80 * GiB}, {2, "cuda", 80 * GiB}};
    workers[1].gpus = gpus_of({0}, 80 * GiB, "rocm");
    d = decide(workers, {}, gs_model{}, e);
    REQUIRE(d.candidates.size() == 3);
    CHECK(d.candidates[0].worker_id == 3);
    CHECK(d.candidates[1].worker_id == 1);
    CHECK(d.candidates[1].gpus == std::vector<std::uint32_t>{1});
    CHECK(d.candidates[2].worker_id == 2);
  }

  TEST_CASE("scheduler: gpustack picks the first maximum in its order, the default the lowest id") {
    // scheduler.py::pick_highest_score_candidate replaces the pick only on a strictly higher
    // score. Workers listed 9 then 3, identical: totals equal (60), so worker 9 wins under
    // the preset; our rule (tie_break::lowest_worker_id) picks worker 3.
    const std::vector<gs_worker> workers{
        {.id = 9, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 3, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)}};
    const vllm_estimator e(vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32});
    const decision d = decide(workers, {}, gs_model{}, e);
    REQUIRE(d.candidates.size() == 2);
    CHECK(d.candidates[0].total == d.candidates[1].total);
    CHECK(d.result.worker_id == 9);
    fit_options ours = gpustack_fit_options();
    ours.ties = tie_break::lowest_worker_id;
    CHECK(decide(workers, {}, gs_model{}, e, ours).result.worker_id == 3);
  }

  TEST_CASE("scheduler: gpustack scale-down placement sees only the model's own instances") {
    // server/controllers.py::find_scale_down_candidates builds PlacementScorer(model,
    // instances) with the model's own instances, so another model's claims do not count.
    // GPU 0 of worker 1 (80 GiB): ours 20 GiB + another model's 40; worker 2: ours 20.
    // Own view: a = 80 − 20 = 60 on both → retention 20/(60 + 20) → (0 + 0.25·2)/3 = 1/6,
    // totals 100 + 1/6 tied → the earlier (instance 1) goes first. Counting the other model
    // (a = 20 on worker 1: 20/40 → 1/3) would send instance 3 first.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)}};
    const std::vector<gs_instance> instances{{.id = 1,
                                              .model_id = "current",
                                              .worker_id = 1,
                                              .gpus = {{.index = 0, .vram_bytes = 20 * GiB}}},
                                             {.id = 2,
                                              .model_id = "other-1",
                                              .worker_id = 1,
                                              .gpus = {{.index = 0, .vram_bytes = 40 * GiB}}},
                                             {.id = 3,
                                              .model_id = "current",
                                              .worker_id = 2,
                                              .gpus = {{.index = 0, .vram_bytes = 20 * GiB}}}};
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, workers, instances, gs_model{});
    REQUIRE(ranked.size() == 2);
    CHECK(ranked[0].id == 1);
    CHECK(ranked[0].score == doctest::Approx(100 + 1.0 / 6));
    CHECK(ranked[1].score == doctest::Approx(100 + 1.0 / 6));
    auto all = scale_down_ranker(
        scorer_chain<state_scorer, offload_layer_scorer, placement_retention_scorer>(
            normalization::none,
            weighted<state_scorer>{.scorer = {.max_score = 100}, .weight = 1, .name = "state"},
            weighted<offload_layer_scorer>{
                .scorer = {.max_score = 10}, .weight = 1, .name = "offload"},
            weighted<placement_retention_scorer>{
                .scorer = {.max_score = 1, .view = instance_view::all_instances},
                .weight = 1,
                .name = "placement"}));
    workspace all_ws;
    CHECK(all.rank(all_ws, workers, instances, gs_model{})[0].id == 3);
  }

  TEST_CASE("scheduler: gpustack status score is 0 only for NOT_READY workers") {
    // status_scorer.py: NOT_READY → 0; instance ERROR → 0; READY and RUNNING → M; anything
    // else (UNREACHABLE, MAINTENANCE, a starting instance...) → M·0.5. Placement (own view):
    // worker 1 holds instances 1, 5, 6 (20 GiB each: a = 80 − 60 = 20 → 20/40 → 1/3); the
    // others one each (a = 60 → 1/6).
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 2,
         .state = worker_state::not_ready,
         .ram_total_bytes = 64 * GiB,
         .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 3,
         .state = worker_state::unreachable,
         .ram_total_bytes = 64 * GiB,
         .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 4,
         .state = worker_state::maintenance,
         .ram_total_bytes = 64 * GiB,
         .gpus = gpus_of({0}, 80 * GiB)}};
    std::vector<gs_instance> instances;
    const std::uint64_t on[] = {1, 2, 3, 4, 1, 1};
    const instance_state st[] = {instance_state::running, instance_state::running,
                                 instance_state::running, instance_state::running,
                                 instance_state::error,   instance_state::starting};
    for (std::uint64_t k = 0; k < 6; ++k)
      instances.push_back({.id = k + 1,
                           .model_id = "current",
                           .worker_id = on[k],
                           .state = st[k],
                           .gpus = {{.index = 0, .vram_bytes = 20 * GiB}}});
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, workers, instances, gs_model{});
    const std::uint64_t order[] = {2, 5, 3, 4, 6, 1};
    const double totals[] = {1.0 / 6,      1.0 / 3,      50 + 1.0 / 6,
                             50 + 1.0 / 6, 50 + 1.0 / 3, 100 + 1.0 / 3};
    REQUIRE(ranked.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) {
      CHECK(ranked[i].id == order[i]);
      CHECK(ranked[i].score == doctest::Approx(totals[i]));
    }
  }

  TEST_CASE("scheduler: gpustack clamps allocatable memory at 0 before scoring") {
    // policies/utils.py::get_worker_allocatable_resource: max(total − allocated − reserved,
    // 0). Two of the model's instances of 20 GiB on one 24 GiB GPU: a = max(24 − 40, 0) = 0,
    // retention 20/(0 + 20) = 1 → (0 + 1·2)/3 = 2/3 each, within M = 1 (unclamped: a = −16,
    // 20/4 = 5 → 10/3 > M).
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 24 * GiB)}};
    const std::vector<gs_instance> instances{{.id = 1,
                                              .model_id = "current",
                                              .worker_id = 1,
                                              .gpus = {{.index = 0, .vram_bytes = 20 * GiB}}},
                                             {.id = 2,
                                              .model_id = "current",
                                              .worker_id = 1,
                                              .gpus = {{.index = 0, .vram_bytes = 20 * GiB}}}};
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, workers, instances, gs_model{});
    const workspace& ws = down_ws;
    REQUIRE(ranked.size() == 2);
    CHECK(ranked[0].score == doctest::Approx(100 + 2.0 / 3));
    CHECK(ranked[1].score == doctest::Approx(100 + 2.0 / 3));
    // The binpack scorers clamp the same way for any view (scale up and the default chain).
    const cluster_view v = ws.view();
    CHECK(placement_retention_scorer{.max_score = 1}.score(v, ws.instances()[0]) ==
          doctest::Approx(2.0 / 3));
  }

  TEST_CASE("scheduler: gpustack spread GPU term counts the main worker's GPUs only") {
    // placement_scorer.py::score_spread → _score_spread_item(candidate.gpu_indexes, ...):
    // the GPU term averages over the main worker's GPUs only. Need 30 GiB across two
    // 1 × 24 GiB workers; worker 2 already runs our model on its GPU (1 GiB: still
    // allocatable above 0.9). Candidate main 1, subordinate 2; worker term over the
    // candidates' main worker (cur 0): W = 0.85 + 0.15·1 = 1; G = 1/(1 + 0) = 1 →
    // 100·1·0.85 + 100·1·0.15 = 100 (averaging the subordinate's 1/(1 + 1) too: 96.25).
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 24 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 24 * GiB)}};
    const std::vector<gs_instance> instances{{.id = 1,
                                              .model_id = "current",
                                              .worker_id = 2,
                                              .gpu_type = "cuda",
                                              .gpus = {{.index = 0, .vram_bytes = GiB}}}};
    gs_model m;
    m.placement = placement_policy::spread;
    const vllm_estimator e(vllm_options{.required_vram_bytes = 30 * GiB,
                                        .attention_heads = 32,
                                        .distributed = distributed_inference::across_workers});
    const decision d = decide(workers, instances, m, e);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].subordinates == std::vector<std::uint64_t>{2});
    CHECK(d.candidates[0].total == doctest::Approx(100.0));
  }

  TEST_CASE("scheduler: vllm_estimator distributed inference is named and off by default") {
    // GPUStack's model.distributed_inference_across_workers defaults to False.
    const vllm_estimator e(14 * GiB, 0.9, 32);
    CHECK_FALSE(e.capabilities().distributed);
    CHECK(vllm_estimator(14 * GiB, 0.9, 32, 0, distributed_inference::across_workers)
              .capabilities()
              .distributed);
    CHECK_FALSE(vllm_estimator(vllm_options{}).capabilities().distributed);
  }

  // ---- the inputs GPUStack's selector takes -------------------------------------------------

  TEST_CASE("scheduler: a caller's own types adapt through traits without copies") {
    // Claims named {gpu, bytes}, the caller's node and replica states mapped to GPUStack's,
    // text model identities, reserved VRAM per card kept on the node, model files in a
    // table beside the nodes. Node 1: one 80 GiB card, 8 GiB reserved per card → 72 GiB
    // allocatable, exactly gmu 0.9 of 80 (>= passes): claim 72 GiB; binpack
    // (0 + 72/72·200)/3 = 66.67; the table says the files (key 5) are READY on node 1:
    // locality 5 → 71.67. Node 2 is draining (MAINTENANCE): filtered out.
    const std::vector<theirs::node> nodes{
        {.uid = 1,
         .status = theirs::node_status::up,
         .mem = 64 * GiB,
         .reserved_per_card = 8 * GiB,
         .cards = {{.slot = 0, .bytes = 80 * GiB, .kind = "cuda"}}},
        {.uid = 2,
         .status = theirs::node_status::draining,
         .mem = 64 * GiB,
         .reserved_per_card = 0,
         .cards = {{.slot = 0, .bytes = 80 * GiB, .kind = "cuda"}}}};
    const std::vector<theirs::file_row> files{{.node = 1, .source = 5, .state = 1},
                                              {.node = 2, .source = 5, .state = 0},
                                              {.node = 7, .source = 9, .state = 1}};
    struct named_model {
      std::string id;
      int cluster;
      std::uint64_t files;
    } m{"llama", 0, 5};
    auto up = gpustack_scheduler(
        vllm_estimator(vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32}));
    workspace up_ws;
    up.index(up_ws, nodes, std::vector<theirs::replica>{}, m);
    up_ws.index_files(files);
    const auto r = up.place(up_ws, nodes, m);
    REQUIRE(r);
    CHECK(r.worker_id == 1);
    CHECK(r.filtered_out == 1);
    CHECK(r.claims_of(r.parts[0])[0].vram_bytes == 72 * GiB);
    CHECK(r.score == doctest::Approx(200.0 / 3 + 5));
    // Scale down: replicas of "llama" on node 1 (serving → RUNNING, READY: 100) and node 2
    // (MAINTENANCE: 50); another model's replica (text id "qwen") is not ranked.
    const std::vector<theirs::replica> replicas{{.uid = 10,
                                                 .model_name = "llama",
                                                 .node = 2,
                                                 .state = theirs::phase::serving,
                                                 .mem = 0,
                                                 .cards = {{.gpu = 0, .bytes = 8 * GiB}}},
                                                {.uid = 11,
                                                 .model_name = "llama",
                                                 .node = 1,
                                                 .state = theirs::phase::serving,
                                                 .mem = 0,
                                                 .cards = {{.gpu = 0, .bytes = 8 * GiB}}},
                                                {.uid = 12,
                                                 .model_name = "qwen",
                                                 .node = 1,
                                                 .state = theirs::phase::serving,
                                                 .mem = 0,
                                                 .cards = {{.gpu = 0, .bytes = 8 * GiB}}}};
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, nodes, replicas, m);
    REQUIRE(ranked.size() == 2);
    CHECK(ranked[0].id == 10);
    CHECK(ranked[0].score > 50);
    CHECK(ranked[0].score < 51);
    CHECK(ranked[1].id == 11);
  }

  TEST_CASE("scheduler: score_candidates scores and picks a caller's own candidate list") {
    // GPUStack's CandidateScoreChain.score then pick_highest_score_candidate over a list the
    // caller built. Node 1 (80 GiB card, 72 allocatable): proposals claim 36 and 72 GiB:
    // binpack 36/72·200/3 = 33.33 and 66.67, + locality 0 → the second wins; two equal
    // proposals → the first listed wins.
    const std::vector<theirs::node> nodes{
        {.uid = 1,
         .status = theirs::node_status::up,
         .mem = 64 * GiB,
         .reserved_per_card = 8 * GiB,
         .cards = {{.slot = 0, .bytes = 80 * GiB, .kind = "cuda"}}}};
    struct named_model {
      std::string id;
      int cluster;
    } m{"llama", 0};
    workspace ws;
    ws.index(nodes, std::vector<theirs::replica>{}, m);
    auto chain = gpustack_scale_up_chain();
    using theirs::proposal;
    ws.set_candidates(std::vector<proposal>{{.node = 1, .cards = {{.gpu = 0, .bytes = 36 * GiB}}},
                                            {.node = 1, .cards = {{.gpu = 0, .bytes = 72 * GiB}}}});
    scored_candidates s = score_candidates(chain, ws);
    REQUIRE(s.totals.size() == 2);
    CHECK(s.totals[0] == doctest::Approx(100.0 / 3));
    CHECK(s.totals[1] == doctest::Approx(200.0 / 3));
    CHECK(s.best == 1);
    CHECK(ws.candidates()[1].strategy == fit_strategy::given);
    ws.set_candidates(std::vector<proposal>{{.node = 1, .cards = {{.gpu = 0, .bytes = 36 * GiB}}},
                                            {.node = 1, .cards = {{.gpu = 0, .bytes = 36 * GiB}}}});
    s = score_candidates(chain, ws);
    CHECK(s.best == 0);
    // A proposal on a node or card that is not indexed is refused by name.
    CHECK(test::rejected([&] {
            ws.set_candidates(
                std::vector<proposal>{{.node = 9, .cards = {{.gpu = 0, .bytes = GiB}}}});
          }) == "placements");
    CHECK(test::rejected([&] {
            ws.set_candidates(
                std::vector<proposal>{{.node = 1, .cards = {{.gpu = 3, .bytes = GiB}}}});
          }) == "placements");
    ws.set_candidates(std::vector<proposal>{});
    CHECK_FALSE(score_candidates(chain, ws));
  }

  TEST_CASE("scheduler: basic filters keep what GPUStack's worker filters keep") {
    // policies/worker_filters/status_filter.py: READY only, every other WorkerStateEnum out.
    gs_worker w{.id = 1, .ram_total_bytes = 64 * GiB};
    const gs_model m;
    for (std::uint8_t s = 0; s <= static_cast<std::uint8_t>(worker_state::maintenance); ++s) {
      w.state = static_cast<worker_state>(s);
      CHECK(state_filter{}(w, m).pass == (w.state == worker_state::ready));
    }
    // cluster_filter.py drops workers of another cluster; gpu_matching_filter.py keeps the
    // workers a manual selection names (GPUStack by name, here by id); local_path_filter.py
    // applies only to a local-path model with a manual selection.
    w.state = worker_state::ready;
    gs_model other = m;
    other.cluster = 1;
    CHECK_FALSE(cluster_filter{}(w, other).pass);
    gs_model manual = m;
    manual.gpu_selection = {{.worker_id = 2, .index = 0}};
    CHECK_FALSE(gpu_matching_filter{}(w, manual).pass);
    manual.gpu_selection.push_back({.worker_id = 1, .index = 3});
    CHECK(gpu_matching_filter{}(w, manual).pass);
  }

  TEST_CASE(
      "scheduler: vllm_options take the need directly with tensor and pipeline sizes and "
      "vocabulary") {
    // vllm_resource_fit_selector.py::get_world_size_from_backend_parameters: world = tp × pp;
    // with a world size the single-GPU stage is skipped and the multi-GPU stage stops at
    // that many GPUs (when that count divides the heads: below). One worker, 8 × 24 GiB
    // (claims 21.6 GiB), need 40 GiB: no world size → 2 GPUs (43.2 >= 40); tp 2 × pp 2 → 4 GPUs.
    const std::vector<gs_worker> workers{{.id = 1,
                                          .ram_total_bytes = 64 * GiB,
                                          .gpus = gpus_of({0, 1, 2, 3, 4, 5, 6, 7}, 24 * GiB)}};
    vllm_options o{.required_vram_bytes = 40 * GiB, .attention_heads = 32};
    CHECK(decide(workers, {}, gs_model{}, vllm_estimator(o)).candidates[0].gpus.size() == 2);
    o.tensor_parallel_size = 2;
    o.pipeline_parallel_size = 2;
    const vllm_estimator tp_pp(o);
    CHECK(tp_pp.world_size() == 4);
    const decision d = decide(workers, {}, gs_model{}, tp_pp);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{0, 1, 2, 3});
    // A world size the heads do not divide (pp 2, 5 heads; only the tensor-parallel size is
    // validated): _find_single_worker_multi_gpu_full_offloading_candidates skips the counts
    // that fail _is_tp_size_divisible (2, 3, 4) before it compares with the world size, and
    // stops at the first count at or above it that passes: 5 GPUs, 5 × 21.6 GiB >= 40 GiB.
    const vllm_estimator pp_only(
        {.required_vram_bytes = 40 * GiB, .attention_heads = 5, .pipeline_parallel_size = 2});
    CHECK(pp_only.world_size() == 2);
    const decision five = decide(workers, {}, gs_model{}, pp_only);
    REQUIRE(five.candidates.size() == 1);
    CHECK(five.candidates[0].gpus == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
    // headroom's own ladder takes exactly the world size, which no count of 2 satisfies.
    CHECK(decide(workers, {}, gs_model{}, pp_only, fit_options{}).candidates.empty());
    // _is_tp_size_divisible: the GPU count must divide the vocabulary too. 49155 is odd, so
    // no count above 1 divides it and 4 × 24 GiB cannot hold 40 GiB on one GPU: none.
    const std::vector<gs_worker> four{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1, 2, 3}, 24 * GiB)}};
    o = {.required_vram_bytes = 40 * GiB, .attention_heads = 32, .vocab_size = 49155};
    CHECK(decide(four, {}, gs_model{}, vllm_estimator(o)).candidates.empty());
    // _validate_arguments: a tensor-parallel size that does not divide heads or vocabulary.
    o.tensor_parallel_size = 2;
    CHECK(test::rejected([&] { (void)vllm_estimator(o); }) == "options.tensor_parallel_size");
    // From weights: ⌊weights × 1.2⌋ + 2 GiB (policies/utils.py::estimate_model_vram).
    CHECK(vllm_required_vram_bytes(10 * GiB) == 14 * GiB);
  }

  TEST_CASE(
      "scheduler: extended KV cache claims fixed RAM on workers that hold it or RAM by ratio") {
    // policies/utils.py::get_model_ram_claim / ram_not_enough / get_computed_ram_claim.
    // ram_size 16 GiB: worker 2 (32 − 20 reserved = 12 GiB) is skipped; worker 1's candidate
    // claims 16 GiB: binpack (16/64·100 + 72/80·200)/3 = (25 + 180)/3 = 68.33.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 2,
         .ram_total_bytes = 32 * GiB,
         .ram_reserved_bytes = 20 * GiB,
         .gpus = gpus_of({0}, 80 * GiB)}};
    vllm_options o{.required_vram_bytes = 20 * GiB, .attention_heads = 32};
    o.kv_cache = {.enabled = true, .ram_size_bytes = 16 * GiB};
    decision d = decide(workers, {}, gs_model{}, vllm_estimator(o));
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].worker_id == 1);
    CHECK(d.candidates[0].ram == 16 * GiB);
    CHECK(d.candidates[0].total == doctest::Approx(205.0 / 3));
    // ram_ratio 0.5: RAM = int(72 GiB × 0.5) = 36 GiB, never checked against RAM; worker 2
    // (12 GiB allocatable) scores (36/12·100 + 180)/3 = 160 and wins.
    o.kv_cache = {.enabled = true, .ram_size_bytes = 0, .ram_ratio = 0.5};
    d = decide(workers, {}, gs_model{}, vllm_estimator(o));
    REQUIRE(d.candidates.size() == 2);
    CHECK(d.candidates[1].ram == 36 * GiB);
    CHECK(d.candidates[1].total == doctest::Approx(160.0));
    CHECK(d.result.worker_id == 2);
    // Disabled: no RAM at all.
    o.kv_cache.enabled = false;
    CHECK(decide(workers, {}, gs_model{}, vllm_estimator(o)).candidates[0].ram == 0);
  }

  TEST_CASE("scheduler: gpustack manual GPU selection with one GPU per replica") {
    // base_candidate_selector.py::_find_manual_gpu_selection_candidates with
    // policies/utils.py::sort_selected_workers_by_gpu_type_and_resource: per selected type,
    // the selected workers (most selected GPUs first), each one's selected GPUs by
    // allocatable rate, highest first; with gpus_per_replica 1 one candidate per GPU
    // (_manual_select_single_worker_multi_gpu_candidates), then
    // _get_non_overcommit_and_best_overcommit_candidates drops those that over-commit.
    // Worker 1: GPU 0 half taken by another model (rate 0.5), GPU 1 idle; worker 2 idle;
    // worker 3 not selected (GPU matching filter). Candidates (1, GPU 1), (1, GPU 0:
    // unsatisfied → over-commits, dropped), (2, GPU 0); both kept score 60: the first wins.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1}, 80 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 3, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)}};
    const std::vector<gs_instance> others{{.id = 1,
                                           .model_id = "other-1",
                                           .worker_id = 1,
                                           .gpu_type = "cuda",
                                           .gpus = {{.index = 0, .vram_bytes = 40 * GiB}}}};
    gs_model m;
    m.gpu_selection = {
        {.worker_id = 1, .index = 0}, {.worker_id = 1, .index = 1}, {.worker_id = 2, .index = 0}};
    m.gpus_per_replica = 1;
    const vllm_estimator e(vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32});
    const decision d = decide(workers, others, m, e);
    REQUIRE(d.candidates.size() == 2);
    CHECK(d.candidates[0].worker_id == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{1});
    CHECK(d.candidates[1].worker_id == 2);
    CHECK(d.candidates[0].total == doctest::Approx(60.0));
    CHECK(d.result.strategy == fit_strategy::manual);
    CHECK(d.result.worker_id == 1);
    CHECK(d.result.filtered_out == 1);
  }

  TEST_CASE("scheduler: gpustack manual selection over several GPUs and its over-commit rule") {
    // _manual_select_single_worker_multi_gpu_candidates: satisfied GPUs (allocatable rate
    // >= gmu) first, then unsatisfied ones up to gpus_per_replica. Worker 1: 4 × 80 GiB,
    // another model holds 40 GiB of GPU 0 (rate 0.5) and 20 of GPU 2 (0.75); selected GPUs
    // 0, 1, 2 → order 1, 2, 0; 2 per replica → GPUs 1 (satisfied) and 2 (not): claims
    // 2 × 72 >= 100 GiB but 1 of 2 GPUs unsatisfied → over-commits. Nothing else fits, the
    // model has 1 replica: the best over-commit is kept, flagged. Binpack: GPU 2 72/60 →
    // (0 + 1.2·200)/3 = 80. With 2 replicas, no candidate.
    const std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1, 2, 3}, 80 * GiB)}};
    const std::vector<gs_instance> others{{.id = 1,
                                           .model_id = "other-1",
                                           .worker_id = 1,
                                           .gpu_type = "cuda",
                                           .gpus = {{.index = 0, .vram_bytes = 40 * GiB}}},
                                          {.id = 2,
                                           .model_id = "other-1",
                                           .worker_id = 1,
                                           .gpu_type = "cuda",
                                           .gpus = {{.index = 2, .vram_bytes = 20 * GiB}}}};
    gs_model m;
    m.gpu_selection = {
        {.worker_id = 1, .index = 0}, {.worker_id = 1, .index = 1}, {.worker_id = 1, .index = 2}};
    m.gpus_per_replica = 2;
    const vllm_estimator e(vllm_options{.required_vram_bytes = 100 * GiB, .attention_heads = 32});
    decision d = decide(workers, others, m, e);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{1, 2});
    CHECK(d.candidates[0].total == doctest::Approx(80.0));
    CHECK(d.result.chosen.overcommit);
    m.replicas = 2;
    d = decide(workers, others, m, e);
    CHECK(d.candidates.empty());
    CHECK_FALSE(d.result);
  }

  TEST_CASE("scheduler: gpustack manual selection across workers and its refusals") {
    // _manual_select_multi_worker_multi_gpu_candidates: when no selected worker holds
    // gpus_per_replica GPUs, the one with the most is the main worker (its selected GPUs
    // in index order) and the others subordinates, as many GPUs as still needed. Worker 1:
    // 2 × 80 GiB, worker 2: 1 × 80; 3 selected GPUs, need 150 GiB: main 1 [0, 1], sub 2 [0]
    // (216 GiB, all satisfied); binpack 60 everywhere → (5·60 + 60)/6 = 60.
    std::vector<gs_worker> workers{
        {.id = 1, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0, 1}, 80 * GiB)},
        {.id = 2, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)},
        {.id = 3, .ram_total_bytes = 64 * GiB, .gpus = gpus_of({0}, 80 * GiB)}};
    gs_model m;
    m.gpu_selection = {
        {.worker_id = 1, .index = 0}, {.worker_id = 1, .index = 1}, {.worker_id = 2, .index = 0}};
    const vllm_estimator e(vllm_options{.required_vram_bytes = 150 * GiB, .attention_heads = 32});
    decision d = decide(workers, {}, m, e);
    REQUIRE(d.candidates.size() == 1);
    CHECK(d.candidates[0].gpus == std::vector<std::uint32_t>{0, 1});
    CHECK(d.candidates[0].subordinates == std::vector<std::uint64_t>{2});
    CHECK(d.candidates[0].total == doctest::Approx(60.0));
    // _validate_distributed_limit_per_worker: a worker already serving a distributed
    // instance (here as another model's subordinate) is no subordinate: no candidate.
    const std::vector<gs_instance> busy{{.id = 1,
                                         .model_id = "other-1",
                                         .worker_id = 3,
                                         .gpu_type = "cuda",
                                         .gpus = {{.index = 0, .vram_bytes = 10 * GiB}},
                                         .subordinates = {{2, {{0, GiB}}}}}};
    CHECK(decide(workers, busy, m, e).candidates.empty());
    // Heterogeneous types are refused when a replica takes every selected GPU; with one GPU
    // per replica each type lists its own, in the selection's order (rocm first here).
    workers[1].gpus = gpus_of({0}, 80 * GiB, "rocm");
    m.gpu_selection = {{.worker_id = 1, .index = 0}, {.worker_id = 2, .index = 0}};
    const vllm_estimator small(
        vllm_options{.required_vram_bytes = 20 * GiB, .attention_heads = 32});
    CHECK(decide(workers, {}, m, small).candidates.empty());
    m.gpu_selection = {{.worker_id = 2, .index = 0}, {.worker_id = 1, .index = 0}};
    m.gpus_per_replica = 1;
    d = decide(workers, {}, m, small);
    REQUIRE(d.candidates.size() == 2);
    CHECK(d.candidates[0].worker_id == 2);
    CHECK(d.candidates[1].worker_id == 1);
    // _set_gpu_count: a world size (tp × pp) that differs from the GPUs per replica.
    m.gpus_per_replica = 0;
    const vllm_estimator tp4(vllm_options{
        .required_vram_bytes = 20 * GiB, .attention_heads = 32, .tensor_parallel_size = 4});
    CHECK(test::rejected([&] { (void)decide(workers, {}, m, tp4); }) == "gpus_per_replica");
  }

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

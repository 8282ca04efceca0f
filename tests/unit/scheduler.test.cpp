// SPDX-License-Identifier: Apache-2.0
// Scheduler tests. Expected numbers are GPUStack's scorer formulas
// (gpustack/policies/scorers/*.py) worked by hand in the comments (GiB throughout; M = max
// score). The differential test against GPUStack's own code is scheduler_gpustack.test.cpp.
#include <doctest/doctest.h>

#include "support.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <headroom/scheduler.hpp>
#include <headroom/scheduler/archetypes.hpp>

namespace {
using namespace headroom;
using namespace headroom::scheduling;
constexpr std::uint64_t GiB = gib_bytes;

struct G {
  std::uint32_t index;
  std::uint64_t vram_total_bytes;
  std::uint64_t vram_reserved_bytes = 0;
};
struct Wk {
  std::uint64_t id;
  int cluster = 1;
  std::vector<std::pair<std::string, std::string>> labels{};
  worker_state state = worker_state::ready;
  std::uint64_t ram_total_bytes = 64 * GiB;
  std::uint64_t ram_reserved_bytes = 0;
  std::vector<G> gpus{};
  std::vector<std::uint64_t> ready_files{};
};
struct Sub {
  std::uint64_t worker_id;
  std::vector<gpu_claim> gpus;
  std::uint64_t ram_bytes = 0;
};
struct Inst {
  std::uint64_t id;
  std::uint64_t model_id;
  std::optional<std::uint64_t> worker_id;
  instance_state state = instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<gpu_claim> gpus{};
  std::vector<Sub> subordinates{};
  std::uint32_t total_layers = 0, offload_layers = 0;
};
struct Model {
  std::uint64_t id = 7;
  int cluster = 1;
  std::vector<std::pair<std::string, std::string>> selectors{};
  std::vector<gpu_ref> gpu_selection{};
  placement_policy placement = placement_policy::binpack;
  bool local_path = false;
  std::uint64_t files = 0, draft_files = 0;
};

/// A fixed-size estimator: per_gpu bytes on each of exactly `gpus` GPUs.
struct fixed_estimator {
  std::uint64_t per_gpu;
  std::uint32_t gpus = 1;
  std::uint64_t ram = 0;
  backend_capabilities caps{.multi_gpu = true, .distributed = true};
  backend_capabilities capabilities() const noexcept { return caps; }
  std::uint64_t ram_bytes() const noexcept { return ram; }
  std::uint64_t gpu_claim_bytes(std::uint64_t, std::int64_t alloc) const noexcept {
    return alloc >= static_cast<std::int64_t>(per_gpu) ? per_gpu : 0;
  }
  bool fits(std::uint64_t sum, std::uint32_t n) const noexcept {
    return n == gpus && sum >= per_gpu * n;
  }
};

/// Hand-built cluster views for formula tests.
struct view_builder {
  std::vector<worker_record> workers;
  std::vector<gpu_record> gpus;
  std::vector<placement_part> parts;
  std::vector<claim_record> claims;
  placement_policy policy = placement_policy::binpack;
  bool has_draft = false, draft_ready_somewhere = false;
  static std::int64_t bytes(double gib) {
    return static_cast<std::int64_t>(gib * static_cast<double>(GiB));
  }
  std::uint32_t worker(std::uint64_t id, double ram_alloc_gib, std::uint32_t model_instances = 0,
                       std::uint32_t other_instances = 0, double ram_total_gib = 64) {
    workers.push_back({.id = id,
                       .ram_total_bytes = static_cast<std::uint64_t>(bytes(ram_total_gib)),
                       .ram_alloc_bytes = bytes(ram_alloc_gib),
                       .model_instances = model_instances,
                       .other_instances = other_instances,
                       .state = worker_state::ready});
    return static_cast<std::uint32_t>(workers.size() - 1);
  }
  std::uint32_t gpu(std::uint32_t w, double alloc_gib, std::uint32_t model_instances = 0,
                    std::uint32_t other_instances = 0, double total_gib = 80) {
    gpus.push_back({.index = static_cast<std::uint32_t>(gpus.size()),
                    .worker_position = w,
                    .total_bytes = static_cast<std::uint64_t>(bytes(total_gib)),
                    .alloc_bytes = bytes(alloc_gib),
                    .model_instances = model_instances,
                    .other_instances = other_instances});
    return gpus.back().index;
  }
  // Adds a part with RAM and VRAM claims (GiB) on GPU positions; returns its position.
  std::uint32_t part(std::uint32_t w, double ram_gib,
                     std::vector<std::pair<std::uint32_t, double>> vram) {
    parts.push_back({.worker_position = w,
                     .claim_begin = static_cast<std::uint32_t>(claims.size()),
                     .claim_count = static_cast<std::uint32_t>(vram.size()),
                     .ram_bytes = static_cast<std::uint64_t>(bytes(ram_gib))});
    for (auto [g, gib] : vram)
      claims.push_back({.gpu_position = g,
                        .index = gpus[g].index,
                        .vram_bytes = static_cast<std::uint64_t>(bytes(gib))});
    return static_cast<std::uint32_t>(parts.size() - 1);
  }
  cluster_view view() const {
    return {.workers = workers,
            .gpus = gpus,
            .parts = parts,
            .claims = claims,
            .policy = policy,
            .has_draft = has_draft,
            .draft_ready_somewhere = draft_ready_somewhere};
  }
};

/// The instance a placement result describes, as the caller records it.
Inst instance_from(const placement_result& r, const std::vector<Wk>& workers, std::uint64_t id,
                   std::uint64_t model_id) {
  Inst placed{.id = id,
              .model_id = model_id,
              .worker_id = r.worker_id,
              .ram_bytes = r.parts[0].ram_bytes,
              .total_layers = r.chosen.total_layers,
              .offload_layers = r.chosen.offload_layers};
  for (const claim_record& c : r.claims_of(r.parts[0]))
    placed.gpus.push_back({.index = c.index, .vram_bytes = c.vram_bytes});
  for (const placement_part& p : r.parts.subspan(1)) {
    Sub sub{.worker_id = workers[p.worker_position].id, .gpus = {}, .ram_bytes = 0};
    for (const claim_record& c : r.claims_of(p))
      sub.gpus.push_back({.index = c.index, .vram_bytes = c.vram_bytes});
    placed.subordinates.push_back(std::move(sub));
  }
  return placed;
}

/// A scheduler with the six basic filters and estimator e that borrows chain (tests share
/// one chain between schedulers, and compare static chains with dynamic ones).
template <class E, class Chain>
auto scheduler_with(const E& e, Chain& chain, scheduler_options options = {}) {
  return scheduler<decltype(basic_filters()), E, Chain&>(basic_filters(), e, chain, options);
}
/// Scorer S with its score() and prepare() alone (no score_all: scored item by item from
/// the records, as a plugin of a user's would be).
template <class S>
struct per_item {
  S s;
  template <class Item>
  void prepare(const cluster_view& v, std::span<const Item> items) {
    if constexpr (requires { s.prepare(v, items); }) s.prepare(v, items);
  }
  template <class Item>
  requires ScorerFor<S, Item>
  double score(const cluster_view& v, const Item& item) const { return s.score(v, item); }
};
}  // namespace

TEST_SUITE("scheduler") {
  TEST_CASE("scheduler: each built-in filter alone") {
    Wk w{.id = 3, .cluster = 1, .labels = {{"zone", "a"}, {"gpu", "h100"}}};
    Model m;
    CHECK(cluster_filter{}(w, m).pass);
    m.cluster = 2;
    CHECK_FALSE(cluster_filter{}(w, m).pass);
    m = {};
    CHECK(gpu_matching_filter{}(w, m).pass);  // no explicit selection: keeps everyone
    m.gpu_selection = {{.worker_id = 5, .index = 0}};
    CHECK_FALSE(gpu_matching_filter{}(w, m).pass);
    m.gpu_selection = {{.worker_id = 5, .index = 0}, {.worker_id = 3, .index = 1}};
    CHECK(gpu_matching_filter{}(w, m).pass);
    m = {};
    m.selectors = {{"zone", "a"}};
    CHECK(label_filter{}(w, m).pass);
    m.selectors = {{"zone", "a"}, {"gpu", "a100"}};
    CHECK_FALSE(label_filter{}(w, m).pass);
    m = {};
    CHECK(state_filter{}(w, m).pass);
    w.state = worker_state::maintenance;
    CHECK_FALSE(state_filter{}(w, m).pass);
    auto no_rocm = backend_filter{[](const Wk& wk, const Model&) { return wk.id != 3; }};
    CHECK_FALSE(no_rocm(w, m).pass);
    auto missing = local_path_filter{[](const Wk&, const Model&) { return false; }};
    CHECK(missing(w, m).pass);  // not a local-path model
    m.local_path = true;
    CHECK(missing(w, m).pass);  // local path but no explicit GPU selection
    m.gpu_selection = {{.worker_id = 3, .index = 0}};
    CHECK_FALSE(missing(w, m).pass);
    CHECK(missing.name() == "local_path");
  }

  TEST_CASE("scheduler: filter chain runs in GPUStack's order and stops at the first rejection") {
    // Worker 1 fails cluster AND state: the cluster filter (first) is the one reported.
    std::vector<Wk> workers{
        {.id = 1,
         .cluster = 2,
         .state = worker_state::not_ready,
         .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
        {.id = 2, .labels = {{"zone", "b"}}, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
        {.id = 3, .labels = {{"zone", "a"}}, .state = worker_state::not_ready},
        {.id = 4, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    Model m;
    m.selectors = {{"zone", "a"}};
    auto filters = basic_filters();
    CHECK(filters(workers[0], m).filter == 0);  // cluster
    CHECK(filters(workers[1], m).filter == 2);  // label_matching
    CHECK(filters(workers[2], m).filter == 3);  // state
    CHECK(filters(workers[3], m).passed());
    CHECK(filters.name(4) == "backend_framework");
    auto up = scheduler(filters, fixed_estimator{.per_gpu = 10 * GiB}, gpustack_scale_up_chain());
    workspace up_ws;
    const auto [r, why] = up.explain(up_ws, workers, std::vector<Inst>{}, m);
    REQUIRE(r);
    CHECK(r.worker_id == 4);
    CHECK(r.filtered_out == 3);
    REQUIRE(why.rejected.size() == 3);
    CHECK(why.rejected[0].filter == "cluster");
    CHECK(why.rejected[1].filter == "label_matching");
    CHECK(why.rejected[2].filter == "state");
    CHECK(why.rejected[2].reason == "worker is not READY");
    // The same chain configured at run time, plus a user filter at the end.
    struct odd_ids_only {
      filter_verdict operator()(const Wk& w, const Model&) const {
        return w.id % 2 ? filter_verdict::keep() : filter_verdict::reject(7);
      }
      std::string_view name() const { return "odd_ids"; }
      std::string_view why(std::uint8_t code) const { return code == 7 ? "even id" : "?"; }
    };
    dynamic_filter_chain<Wk, Model> dyn;
    dyn.add(cluster_filter{})
        .add(gpu_matching_filter{})
        .add(label_filter{})
        .add(state_filter{})
        .add(odd_ids_only{});
    CHECK(dyn(workers[0], m).filter == 0);
    CHECK(dyn(workers[1], m).filter == 2);
    CHECK(dyn(workers[3], m).filter == 4);
    CHECK(dyn.why(4, dyn(workers[3], m).reason) == "even id");
    auto dyn_up = scheduler<dynamic_filter_chain<Wk, Model>&, fixed_estimator,
                            decltype(gpustack_scale_up_chain())>(
        dyn, fixed_estimator{.per_gpu = 10 * GiB}, gpustack_scale_up_chain());
    workspace dyn_up_ws;
    const auto none = dyn_up.place(dyn_up_ws, workers, std::vector<Inst>{}, m);
    CHECK_FALSE(none);
    CHECK(none.reason == no_placement_reason::all_filtered);
  }

  TEST_CASE(
      "scheduler: allocatable view subtracts claims (VRAM per GPU, RAM on the main worker only)") {
    std::vector<Wk> workers{
        {.id = 1,
         .ram_total_bytes = 64 * GiB,
         .ram_reserved_bytes = 4 * GiB,
         .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB, .vram_reserved_bytes = 1 * GiB},
                  {.index = 1, .vram_total_bytes = 24 * GiB}}},
        {.id = 2,
         .ram_total_bytes = 32 * GiB,
         .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}}};
    std::vector<Inst> instances{
        {.id = 1,
         .model_id = 7,
         .worker_id = 1,
         .ram_bytes = 8 * GiB,
         .gpus = {{.index = 0, .vram_bytes = 10 * GiB}}},
        {.id = 2,
         .model_id = 9,
         .worker_id = 2,
         .ram_bytes = 4 * GiB,
         .gpus = {{.index = 0, .vram_bytes = 20 * GiB}},
         .subordinates = {{.worker_id = 1,
                           .gpus = {{.index = 1, .vram_bytes = 6 * GiB}},
                           .ram_bytes = 2 * GiB}}},
        {.id = 3, .model_id = 7, .worker_id = std::nullopt, .ram_bytes = 100 * GiB}};
    workspace ws;
    ws.index(workers, instances, Model{});
    const auto w = ws.workers();
    const auto g = ws.gpus();
    // w1 RAM: 64 − 4 reserved − 8 (instance 1) = 52; the subordinate's 2 GiB is not counted.
    CHECK(w[0].ram_alloc_bytes == static_cast<std::int64_t>(52 * GiB));
    // w1 GPU0: 24 − 1 reserved − 10 = 13; GPU1: 24 − 6 (subordinate) = 18; w2 GPU0: 80 − 20.
    CHECK(g[0].alloc_bytes == static_cast<std::int64_t>(13 * GiB));
    CHECK(g[1].alloc_bytes == static_cast<std::int64_t>(18 * GiB));
    CHECK(w[1].ram_alloc_bytes == static_cast<std::int64_t>(28 * GiB));
    CHECK(g[2].alloc_bytes == static_cast<std::int64_t>(60 * GiB));
    // Counts for model 7: on w1 one of its own (one GPU) and one other (the subordinate
    // GPU); on w2 one other.
    CHECK(w[0].model_instances == 1);
    CHECK(w[0].other_instances == 1);
    CHECK(w[1].model_instances == 0);
    CHECK(w[1].other_instances == 1);
    CHECK(g[0].model_instances == 1);
    CHECK(g[1].other_instances == 1);
  }

  TEST_CASE("scheduler: vLLM estimator arithmetic and validation") {
    // 14 GiB weights: 14·1.2 + 2 = 18.8 GiB needed.
    const vllm_estimator e(14 * GiB, 0.9, 32);
    CHECK(e.required_vram_bytes() == doctest::Approx(18.8 * static_cast<double>(GiB)));
    // A 24 GiB GPU claims 0.9·24 = 21.6 GiB, eligible only with >= 21.6 GiB free.
    CHECK(static_cast<double>(e.gpu_claim_bytes(24 * GiB, 24 * GiB)) ==
          doctest::Approx(21.6 * static_cast<double>(GiB)));
    CHECK(e.gpu_claim_bytes(24 * GiB, 20 * GiB) == 0);
    // 2 × 14.4 = 28.8 >= 18.8 and 32 % 2 == 0; 3 GPUs never divide 32 heads.
    CHECK(e.fits(2 * e.gpu_claim_bytes(16 * GiB, 16 * GiB), 2));
    CHECK_FALSE(e.fits(3 * e.gpu_claim_bytes(16 * GiB, 16 * GiB), 3));
    CHECK_FALSE(e.fits(e.gpu_claim_bytes(16 * GiB, 16 * GiB), 1));  // 14.4 < 18.8
    CHECK_THROWS_AS(vllm_estimator(GiB, 0.0, 32), headroom::invalid_argument);
    const auto bad = headroom::test::rejection_of([] { (void)vllm_estimator(GiB, 1.5, 32); });
    CHECK(bad.parameter == "gpu_memory_utilization");
    CHECK(bad.message.find("1.5") != std::string::npos);
    CHECK_THROWS_AS(vllm_estimator(GiB, 0.9, 0), headroom::invalid_argument);
  }

  TEST_CASE("scheduler: the fit ladder stops at the first strategy that yields candidates") {
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
                            {.id = 2,
                             .gpus = {{.index = 0, .vram_total_bytes = 16 * GiB},
                                      {.index = 1, .vram_total_bytes = 16 * GiB}}},
                            {.id = 3,
                             .gpus = {{.index = 0, .vram_total_bytes = 8 * GiB},
                                      {.index = 1, .vram_total_bytes = 8 * GiB},
                                      {.index = 2, .vram_total_bytes = 8 * GiB},
                                      {.index = 3, .vram_total_bytes = 8 * GiB}}}};
    std::vector<Inst> none;
    std::optional<vllm_estimator> size;  // the model's size, changed from step to step
    auto chain = gpustack_scale_up_chain();
    auto up = scheduler_with([&](const Model&) { return *size; }, chain);
    workspace up_ws;
    const workspace& ws = up_ws;
    // Need 18.8 GiB: only worker 1's 24 GiB GPU (claim 21.6) fits alone; stage 1 stops there
    // although worker 2 (2 × 14.4) and worker 3 (4 × 7.2) would fit with several GPUs.
    size.emplace(14 * GiB, 0.9, 32);
    const auto [first, why] = up.explain(up_ws, workers, none, Model{});
    REQUIRE(first);
    CHECK(first.strategy == fit_strategy::single_gpu);
    CHECK(first.candidates == 1);
    CHECK(first.worker_id == 1);
    REQUIRE(why.rejected.size() == 2);
    CHECK(why.rejected[0].filter == "resource_fit");
    // Worker 1 busy (10 GiB used: 14 free < 21.6): stage 2. Worker 2 uses 2 GPUs (28.8);
    // worker 3: 2 → 14.4 short, 3 → 21.6 but 32 % 3 ≠ 0, 4 → 28.8.
    std::vector<Inst> busy{
        {.id = 1, .model_id = 9, .worker_id = 1, .gpus = {{.index = 0, .vram_bytes = 10 * GiB}}}};
    auto r = up.place(up_ws, workers, busy, Model{});
    REQUIRE(r);
    CHECK(r.strategy == fit_strategy::multi_gpu);
    REQUIRE(ws.candidates().size() == 2);
    CHECK(ws.view().parts_of(ws.candidates()[0])[0].claim_count == 2);
    CHECK(ws.view().parts_of(ws.candidates()[1])[0].claim_count == 4);
    // 30 heads: 3 GPUs divide them, so worker 3 needs only 3.
    size.emplace(14 * GiB, 0.9, 30);
    r = up.place(up_ws, workers, busy, Model{});
    CHECK(ws.view().parts_of(ws.candidates()[1])[0].claim_count == 3);
    // 40 GiB weights: 40·1.2 + 2 = 50 GiB. No worker alone (21.6, 28.8, 28.8); 12 heads.
    // Distributed, subordinates by largest claim sum then id (w2 28.8, w3 28.8, w1 21.6):
    // main w1 + w2 = 50.4 GiB on 3 GPUs (12 % 3 = 0); main w2 + w3 = 57.6 on 6; w3 + w2 likewise.
    size.emplace(40 * GiB, 0.9, 12, 0, distributed_inference::across_workers);
    r = up.place(up_ws, workers, none, Model{});
    REQUIRE(r);
    CHECK(r.strategy == fit_strategy::distributed);
    REQUIRE(ws.candidates().size() == 3);
    const auto v = ws.view();
    const auto c0 = v.parts_of(ws.candidates()[0]);
    REQUIRE(c0.size() == 2);
    CHECK(v.workers[c0[0].worker_position].id == 2);
    CHECK(v.workers[c0[1].worker_position].id == 3);
    // the helpers follow the same positions: main worker w2 (id 2), subordinate w3 (id 3)
    CHECK(v.main_worker(ws.candidates()[0]).id == 2);
    CHECK(v.worker_of(c0[1]).id == 3);
    for (const claim_record& cl : v.claims_of(c0[1]))
      CHECK(v.gpu_of(cl).worker_position == c0[1].worker_position);
    CHECK(c0[1].ram_bytes == 0);  // subordinates claim VRAM only
    // Nothing fits: a value with a reason, never an exception.
    size.emplace(400 * GiB, 0.9, 12);
    const auto [nothing, why_nothing] = up.explain(up_ws, workers, none, Model{});
    CHECK_FALSE(nothing);
    CHECK(nothing.reason == no_placement_reason::insufficient_resources);
    CHECK(why_nothing.rejected.size() == 3);
    // Distributed disabled (GPUStack's default): same request has no candidate.
    size.emplace(40 * GiB, 0.9, 12);
    CHECK_FALSE(up.place(up_ws, workers, none, Model{}));
    size.emplace(40 * GiB, 0.9, 12, 0, distributed_inference::single_worker);
    CHECK_FALSE(up.place(up_ws, workers, none, Model{}));
    size.emplace(GiB, 0.9, 12);
    CHECK(up.place(up_ws, std::vector<Wk>{}, none, Model{}).reason ==
          no_placement_reason::no_workers);
  }

  TEST_CASE("scheduler: explicit GPU selection is honoured in filtering and fitting") {
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
                            {.id = 3,
                             .gpus = {{.index = 0, .vram_total_bytes = 8 * GiB},
                                      {.index = 1, .vram_total_bytes = 8 * GiB},
                                      {.index = 2, .vram_total_bytes = 8 * GiB},
                                      {.index = 3, .vram_total_bytes = 8 * GiB}}}};
    Model m;
    m.gpu_selection = {{.worker_id = 3, .index = 3}, {.worker_id = 3, .index = 2}};
    auto chain = gpustack_scale_up_chain();
    auto up = scheduler_with(vllm_estimator(4 * GiB, 0.9, 32), chain);
    workspace up_ws;
    const workspace& ws = up_ws;
    // 4 GiB weights: 6.8 GiB needed, a 7.2 GiB claim fits on any 8 GiB GPU — only the
    // selected GPUs 2 and 3 of worker 3 become candidates; worker 1 is filtered out.
    const auto [r, why] = up.explain(up_ws, workers, std::vector<Inst>{}, m);
    REQUIRE(r);
    CHECK(r.worker_id == 3);
    // GPUs 2 and 3 are equivalent (same free memory, claim and counts): one candidate
    // stands for both, the lowest index, exactly as the tie-break would choose.
    REQUIRE(ws.candidates().size() == 1);
    CHECK(r.claims_of(r.parts[0])[0].index == 2);
    // With GPU 2 partly used they differ: two candidates; binpack prefers the fuller GPU 2
    // (claim 7.2 of 7.5 free) over GPU 3 (7.2 of 8).
    std::vector<Inst> used{
        {.id = 1, .model_id = 9, .worker_id = 3, .gpus = {{.index = 2, .vram_bytes = GiB / 2}}}};
    const auto r2 = up.place(up_ws, workers, used, m);
    REQUIRE(ws.candidates().size() == 2);
    CHECK(r2.claims_of(r2.parts[0])[0].index == 2);
    CHECK(why.rejected[0].filter == "gpu_matching");
  }

  TEST_CASE("scheduler: binpack reference formula (scale up / CPU / distributed / scale down)") {
    view_builder b;
    const auto w0 = b.worker(1, 48);  // a_ram = 48 GiB
    const auto g0 = b.gpu(w0, 20), g1 = b.gpu(w0, 40);
    const auto w1 = b.worker(2, 64), w2 = b.worker(3, 64);
    const auto g2 = b.gpu(w1, 50), g3 = b.gpu(w2, 25), g4 = b.gpu(w2, 0);
    // Two GPUs, 12 GiB RAM + 10 GiB on each:
    //   GPU0: (100·12/48 + 200·10/20)/3 = (25 + 100)/3 = 41.667
    //   GPU1: (25 + 200·10/40)/3 = (25 + 50)/3 = 25 → max = 41.667
    const auto p_two = b.part(w0, 12, {{g0, 10}, {g1, 10}});
    const auto p_one = b.part(w0, 12, {{g1, 10}});  // 25
    const auto p_cpu = b.part(w0, 12, {});          // 100·12/48 = 25
    // Distributed: main on GPU0 (41.667); subordinates without RAM claim:
    //   (0 + 200·10/50)/3 = 13.333 and (0 + 200·10/25)/3 = 26.667
    //   (5·41.667 + 2·(13.333 + 26.667))/(5 + 2) = (208.333 + 80)/7 = 41.190
    const auto p_main = b.part(w0, 12, {{g0, 10}});
    b.part(w1, 0, {{g2, 10}});
    b.part(w2, 0, {{g3, 10}});
    const auto p_zero = b.part(w2, 0, {{g4, 10}});  // a = 0: the term is 0
    const auto v = b.view();
    const binpack_scorer s{100};
    CHECK(s.score(v, candidate{.part_begin = p_two, .part_count = 1}) ==
          doctest::Approx(125.0 / 3));
    CHECK(s.score(v, candidate{.part_begin = p_one, .part_count = 1}) == doctest::Approx(25.0));
    CHECK(s.score(v, candidate{.part_begin = p_cpu, .part_count = 1}) == doctest::Approx(25.0));
    CHECK(s.score(v, candidate{.part_begin = p_main, .part_count = 3}) ==
          doctest::Approx((5 * 125.0 / 3 + 2 * 40.0) / 7));
    CHECK(s.score(v, candidate{.part_begin = p_zero, .part_count = 1}) == 0.0);
    // Scale down (retention): the claim goes back into the denominator, c/(a + c), M = 1:
    //   RAM 12/(48 + 12) = 0.2; GPU0 10/(20 + 10) = 1/3 → (0.2 + 2/3)/3 = 0.28889
    instance_record r;
    r.part_begin = p_main;
    r.part_count = 1;
    CHECK(placement_retention_scorer{1}.score(v, r) == doctest::Approx((0.2 + 2.0 / 3) / 3));
    r.part_begin = p_cpu;  // CPU: 12/(48 + 12) = 0.2
    CHECK(placement_retention_scorer{1}.score(v, r) == doctest::Approx(0.2));
  }

  TEST_CASE("scheduler: spread reference formula with instance counts") {
    view_builder b;
    b.policy = placement_policy::spread;
    const auto wa = b.worker(1, 64, 0, 2), wb = b.worker(2, 64, 1, 0), wc = b.worker(3, 64, 2, 4);
    const auto ga = b.gpu(wa, 80, 0, 2);
    const auto gb0 = b.gpu(wb, 80, 1, 0), gb1 = b.gpu(wb, 80, 0, 0);
    const auto gc = b.gpu(wc, 80, 1, 1);
    const auto pa = b.part(wa, 0, {{ga, 10}});
    const auto pb = b.part(wb, 0, {{gb0, 10}, {gb1, 10}});
    const auto pc = b.part(wc, 1, {});
    const auto pb1 = b.part(wb, 0, {{gb0, 10}});
    const auto pc1 = b.part(wc, 0, {{gc, 10}});
    const auto v = b.view();
    // Candidates A, B, C: own ∈ [0, 2], other ∈ [0, 4] (instances of the model, of others);
    // some worker has none of the model.
    std::vector<candidate> cands{{.part_begin = pa, .part_count = 1},
                                 {.part_begin = pb, .part_count = 1},
                                 {.part_begin = pc, .part_count = 1}};
    spread_scorer s{100};
    s.prepare(v, cands);
    // A (own 0, other 2): W = 0.85 + 0.15·inv(2) = 0.85 + 0.15·0.5 = 0.925;
    //   G = 1/(1 + 0 + 0.2·2) = 1/1.4 → 100·(0.85·0.925 + 0.15/1.4) = 89.339
    CHECK(s.score(v, cands[0]) == doctest::Approx(100 * (0.85 * 0.925 + 0.15 / 1.4)));
    // B (own 1, other 0): W = 0.45 + 0.35·inv(1) + 0.20·inv(0) = 0.45 + 0.175 + 0.2 = 0.825;
    //   G = mean(1/(1 + 1), 1/1) = 0.75 → 100·(0.70125 + 0.1125) = 81.375
    CHECK(s.score(v, cands[1]) == doctest::Approx(81.375));
    // C (own 2, other 4), CPU: W = 0.45 + 0 + 0 → 100·0.45 = 45
    CHECK(s.score(v, cands[2]) == doctest::Approx(45.0));
    // Only B and C as candidates: every own > 0, own ∈ [1, 2], other ∈ [0, 4].
    //   B: W = 0.50 + 0.25·1 + 0.15·1 = 0.9, G = 1/(1 + 1) = 0.5 → 100·(0.765 + 0.075) = 84
    //   C: W = 0.50, G = 1/(1 + 1 + 0.2) → 100·(0.425 + 0.15/2.2) = 49.318
    std::vector<candidate> cands2{{.part_begin = pb1, .part_count = 1},
                                  {.part_begin = pc1, .part_count = 1}};
    s.prepare(v, cands2);
    CHECK(s.score(v, cands2[0]) == doctest::Approx(84.0));
    CHECK(s.score(v, cands2[1]) == doctest::Approx(100 * (0.425 + 0.15 / 2.2)));
    // The placement scorer dispatches on the policy.
    placement_scorer p{100};
    p.prepare(v, cands2);
    CHECK(p.score(v, cands2[0]) == doctest::Approx(84.0));
  }

  TEST_CASE("scheduler: model-file locality with subordinates and a draft model") {
    view_builder b;
    const auto w0 = b.worker(1, 64), w1 = b.worker(2, 64), w2 = b.worker(3, 64);
    b.workers[w0].main_files = true;
    b.workers[w1].main_files = true;
    b.workers[w1].draft_files = true;
    const auto p = b.part(w0, 0, {});
    b.part(w1, 0, {});
    b.part(w2, 0, {});
    const locality_scorer s{5};
    // P = {w0, w1, w2}: r_main = 2/3, r_draft = 1/3; the draft has a READY copy → w = 0.5:
    //   5·(2/3 + 0.5·1/3)/(1 + 0.5) = 5·(5/6)/1.5 = 2.7778
    b.has_draft = b.draft_ready_somewhere = true;
    CHECK(s.score(b.view(), candidate{.part_begin = p, .part_count = 3}) ==
          doctest::Approx(5.0 * (5.0 / 6) / 1.5));
    // Draft configured but nowhere READY → w = 0: 5·(2/3) = 3.3333
    b.draft_ready_somewhere = false;
    CHECK(s.score(b.view(), candidate{.part_begin = p, .part_count = 3}) ==
          doctest::Approx(10.0 / 3));
    // Main worker alone: r_main = 1 → 5
    CHECK(s.score(b.view(), candidate{.part_begin = p, .part_count = 1}) == doctest::Approx(5.0));
    // w2 alone: both ratios 0 → 0
    CHECK(s.score(b.view(), candidate{.part_begin = p + 2, .part_count = 1}) == 0.0);
  }

  TEST_CASE("scheduler: state and offloaded-layer scorers") {
    view_builder b;
    const auto w0 = b.worker(1, 64), w1 = b.worker(2, 64);
    b.workers[w1].state = worker_state::not_ready;
    const auto p0 = b.part(w0, 0, {}), p1 = b.part(w1, 0, {});
    const auto v = b.view();
    const state_scorer st{100};
    auto rec = [](std::uint32_t part, std::uint32_t count, instance_state s) {
      instance_record r;
      r.part_begin = part;
      r.part_count = count;
      r.state = s;
      return r;
    };
    CHECK(st.score(v, rec(p0, 1, instance_state::running)) == 100.0);
    CHECK(st.score(v, rec(p0, 1, instance_state::starting)) == 50.0);
    CHECK(st.score(v, rec(p0, 1, instance_state::error)) == 0.0);
    CHECK(st.score(v, rec(p1, 1, instance_state::running)) == 0.0);  // worker not ready
    CHECK(st.score(v, rec(0, 0, instance_state::running)) == 0.0);   // no worker
    const offload_layer_scorer ol{10};
    instance_record r;
    CHECK(ol.score(v, r) == 0.0);  // no metadata
    r.has_layers = true;
    r.total_layers = 40;
    r.offload_layers = 40;
    CHECK(ol.score(v, r) == 10.0);
    r.offload_layers = 30;  // 10·30/40 = 7.5
    CHECK(ol.score(v, r) == doctest::Approx(7.5));
    // offload_layer_scorer.py: M when offload == total, even 0 of 0 layers; a count above the
    // total is scored by the ratio (10·50/40 = 12.5), not capped.
    r.total_layers = r.offload_layers = 0;
    CHECK(ol.score(v, r) == 10.0);
    r.total_layers = 40;
    r.offload_layers = 50;
    CHECK(ol.score(v, r) == 12.5);
  }

  TEST_CASE("scheduler: scale-down order with the gpustack chain") {
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
                            {.id = 2, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
                            {.id = 3,
                             .state = worker_state::not_ready,
                             .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    std::vector<Inst> instances{
        // state 100 + layers 10 + VRAM 12/(12 + 12) = 0.5 → 2·0.5/3 = 0.3333 → 110.3333
        {.id = 10,
         .model_id = 7,
         .worker_id = 1,
         .gpus = {{.index = 0, .vram_bytes = 12 * GiB}},
         .total_layers = 40,
         .offload_layers = 40},
        // 100 + 10·20/40 = 5 + VRAM: GPUStack's scale down counts the model's own claims only
        // (model 9's 6 GiB is not seen): a = 24 − 6 = 18, 6/(18 + 6) = 0.25 → 2·0.25/3 → 105.1667
        {.id = 11,
         .model_id = 7,
         .worker_id = 2,
         .gpus = {{.index = 0, .vram_bytes = 6 * GiB}},
         .total_layers = 40,
         .offload_layers = 20},
        // worker not ready: 0 + 0 + 0.3333
        {.id = 12, .model_id = 7, .worker_id = 3, .gpus = {{.index = 0, .vram_bytes = 12 * GiB}}},
        // starting, CPU: 50 + 0 + RAM 16/(48 + 16) = 0.25 → 50.25
        {.id = 13,
         .model_id = 7,
         .worker_id = 1,
         .state = instance_state::starting,
         .ram_bytes = 16 * GiB},
        // error: 0 + 10 + CPU without claim 0 → 10
        {.id = 14,
         .model_id = 7,
         .worker_id = 2,
         .state = instance_state::error,
         .total_layers = 40,
         .offload_layers = 40},
        // unscheduled: 0
        {.id = 15, .model_id = 7, .worker_id = std::nullopt},
        {.id = 20, .model_id = 9, .worker_id = 2, .gpus = {{.index = 0, .vram_bytes = 6 * GiB}}}};
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, workers, instances, Model{});
    REQUIRE(ranked.size() == 6);
    const std::uint64_t order[] = {15, 12, 14, 13, 11, 10};
    const double scores[] = {0, 1.0 / 3, 10, 50.25, 105 + 1.0 / 6, 110 + 1.0 / 3};
    for (std::size_t i = 0; i < 6; ++i) {
      CHECK(ranked[i].id == order[i]);
      CHECK(ranked[i].score == doctest::Approx(scores[i]));
    }
    // The default chain keeps the same priorities here.
    auto def = default_scale_down_ranker();
    workspace def_ws;
    const auto ranked2 = def.rank(def_ws, workers, instances, Model{});
    for (std::size_t i = 0; i < 6; ++i) CHECK(ranked2[i].id == order[i]);
  }

  TEST_CASE("scheduler: gpustack chain totals on a placed model (placement + locality)") {
    // One worker, GPU 24 GiB with 4 GiB claimed (a = 20), RAM 64 with 16 claimed (a = 48),
    // files READY. Claim 12 GiB RAM + 10 GiB VRAM:
    //   binpack (100·12/48 + 200·10/20)/3 = 41.667; locality 5·1 = 5 → 46.667
    std::vector<Wk> workers{
        {.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}, .ready_files = {42}}};
    std::vector<Inst> instances{{.id = 1,
                                 .model_id = 9,
                                 .worker_id = 1,
                                 .ram_bytes = 16 * GiB,
                                 .gpus = {{.index = 0, .vram_bytes = 4 * GiB}}}};
    Model m;
    m.files = 42;
    auto up = scheduler(basic_filters(), fixed_estimator{.per_gpu = 10 * GiB, .ram = 12 * GiB},
                        gpustack_scale_up_chain());
    workspace up_ws;
    const auto r = up.place(up_ws, workers, instances, m);
    REQUIRE(r);
    CHECK(r.score == doctest::Approx(125.0 / 3 + 5));
  }

  TEST_CASE("scheduler: Kubernetes MostAllocated / LeastAllocated formulas") {
    view_builder b;
    const auto w = b.worker(1, 32, 0, 0, 64);  // RAM total 64, a = 32
    const auto g = b.gpu(w, 30, 0, 0, 80);     // VRAM total 80, a = 30
    const auto p = b.part(w, 8, {{g, 20}});
    const auto v = b.view();
    // VRAM after: 80 − 30 + 20 = 70 → 87.5 %; RAM after: 64 − 32 + 8 = 40 → 62.5 %.
    //   MostAllocated (2·87.5 + 1·62.5)/3 = 79.1667; LeastAllocated (2·12.5 + 37.5)/3 = 20.8333
    CHECK(most_allocated_scorer{}.score(v, candidate{.part_begin = p, .part_count = 1}) ==
          doctest::Approx(237.5 / 3));
    CHECK(least_allocated_scorer{}.score(v, candidate{.part_begin = p, .part_count = 1}) ==
          doctest::Approx(62.5 / 3));
    // Best fit: leftover 30 − 20 = 10 GiB → −10.
    CHECK(best_fit_scorer{}.score(v, candidate{.part_begin = p, .part_count = 1}) ==
          doctest::Approx(-10.0));
  }

  TEST_CASE("scheduler: the default chain beats binpack-by-free-memory on fragmentation") {
    // Worker 1: 2 × 80 GiB, another model holds 70 GiB of GPU0 → free {10, 80}.
    // Worker 2: 2 × 24 GiB, 12 GiB used on each → free {12, 12}.
    std::vector<Wk> workers{{.id = 1,
                             .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB},
                                      {.index = 1, .vram_total_bytes = 80 * GiB}}},
                            {.id = 2,
                             .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB},
                                      {.index = 1, .vram_total_bytes = 24 * GiB}}}};
    std::vector<Inst> instances{
        {.id = 1, .model_id = 9, .worker_id = 1, .gpus = {{.index = 0, .vram_bytes = 70 * GiB}}},
        {.id = 2,
         .model_id = 9,
         .worker_id = 2,
         .gpus = {{.index = 0, .vram_bytes = 12 * GiB}, {.index = 1, .vram_bytes = 12 * GiB}}}};
    // Model X: 10 GiB on each of exactly 2 GPUs. Then model Y: 72 GiB on one GPU.
    const fixed_estimator x{.per_gpu = 10 * GiB, .gpus = 2}, y{.per_gpu = 72 * GiB, .gpus = 1};
    // X (model 7) is placed; then Y (model 8) on the cluster with X's new instance.
    auto run = [&](auto& chain) {
      auto up = scheduler_with([&](const Model& m) { return m.id == 8 ? y : x; }, chain);
      workspace up_ws;
      const auto rx = up.place(up_ws, workers, instances, Model{});
      REQUIRE(rx);
      std::vector<Inst> with_x = instances;
      with_x.push_back(instance_from(rx, workers, 3, 7));
      const auto ry = up.place(up_ws, workers, with_x, Model{.id = 8});
      return std::pair{rx.worker_id, static_cast<bool>(ry)};
    };
    // GPUStack binpack, max over GPUs: worker 1 (200·10/10)/3 = 66.7 beats worker 2
    // (200·10/12)/3 = 55.6 — the 10 GiB claim lands on worker 1, leaving {0, 70}: Y (72) fits
    // nowhere.
    auto gp = gpustack_scale_up_chain();
    const auto [gx, gy] = run(gp);
    CHECK(gx == 1);
    CHECK_FALSE(gy);
    // Best fit: leftover worker 1 = 0 + 70 = 70 GiB, worker 2 = 2 + 2 = 4 GiB → worker 2;
    // worker 1 keeps its 80 GiB GPU whole and Y fits.
    auto def = default_scale_up_chain();
    workspace def_ws;
    const auto [dx, dy] = run(def);
    CHECK(dx == 2);
    CHECK(dy);
  }

  TEST_CASE("scheduler: layered estimator / binary search and partial offload / CPU fallback") {
    // 40 layers of 0.5 GiB + 1 GiB fixed VRAM: full offload needs 21 GiB.
    // RAM(L) = 2 GiB + (40 − L)·0.5 GiB.
    const layered_estimator e({.total_layers = 40,
                               .layer_vram_bytes = GiB / 2,
                               .fixed_vram_bytes = GiB,
                               .layer_ram_bytes = GiB / 2,
                               .fixed_ram_bytes = 2 * GiB});
    CHECK(e.vram_bytes(40) == 21 * GiB);
    // 16 GiB free: 1 + 0.5·L <= 16 → L = 30; RAM = 2 + 10·0.5 = 7 GiB.
    CHECK(e.max_layers(static_cast<std::int64_t>(16 * GiB)) == 30);
    CHECK(e.max_layers(static_cast<std::int64_t>(GiB)) == 0);  // 1 + 0.5 > 1
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 16 * GiB}}},
                            {.id = 2}};
    const std::vector<Inst> none;
    auto up = default_scheduler(e);
    workspace up_ws;
    auto r = up.place(up_ws, workers, none, Model{});
    REQUIRE(r);
    CHECK(r.strategy == fit_strategy::partial_offload);
    CHECK(r.chosen.offload_layers == 30);
    CHECK(r.parts[0].ram_bytes == 7 * GiB);
    CHECK(r.claims_of(r.parts[0])[0].vram_bytes == 16 * GiB);
    // No GPU anywhere: CPU only, RAM(0) = 2 + 20 = 22 GiB.
    std::vector<Wk> cpus{{.id = 2}};
    r = up.place(up_ws, cpus, none, Model{});
    REQUIRE(r);
    CHECK(r.strategy == fit_strategy::cpu_only);
    CHECK(r.parts[0].ram_bytes == 22 * GiB);
    // A 24 GiB GPU takes every layer: stage 1.
    std::vector<Wk> big{{.id = 3, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    r = up.place(up_ws, big, none, Model{});
    CHECK(r.strategy == fit_strategy::single_gpu);
  }

  TEST_CASE("scheduler: the estimator may be a function of the model or a member of it") {
    // 40 layers of 0.5 GiB + 1 GiB fixed: 21 GiB fits a 24 GiB GPU whole (single GPU) but
    // not a 16 GiB one (30 layers offloaded), so each spelling is seen to read the model.
    struct Sized {
      std::uint64_t id = 7;
      int cluster = 1;
      std::uint32_t layers = 40;
      layered_estimator estimator() const {
        return layered_estimator({.total_layers = layers,
                                  .layer_vram_bytes = GiB / 2,
                                  .fixed_vram_bytes = GiB,
                                  .layer_ram_bytes = GiB / 2,
                                  .fixed_ram_bytes = 2 * GiB});
      }
      layered_estimator small_estimator{{.total_layers = 10,
                                         .layer_vram_bytes = GiB / 2,
                                         .fixed_vram_bytes = GiB,
                                         .layer_ram_bytes = GiB / 2,
                                         .fixed_ram_bytes = 2 * GiB}};
    };
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 16 * GiB}}}};
    const std::vector<Inst> none;
    const Sized model;
    auto by_lambda = default_scheduler([](const Sized& m) { return m.estimator(); });
    workspace by_lambda_ws;
    auto by_member_function = default_scheduler(&Sized::estimator);
    workspace by_member_function_ws;
    auto by_member = default_scheduler(&Sized::small_estimator);
    workspace by_member_ws;
    const auto a = by_lambda.place(by_lambda_ws, workers, none, model);
    const auto b = by_member_function.place(by_member_function_ws, workers, none, model);
    const auto c = by_member.place(by_member_ws, workers, none, model);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    // 16 GiB free: 1 + 0.5·L <= 16 → 30 layers on the GPU (hand calculation above).
    CHECK(a.strategy == fit_strategy::partial_offload);
    CHECK(a.chosen.offload_layers == 30);
    CHECK(b.strategy == fit_strategy::partial_offload);
    CHECK(b.chosen.offload_layers == 30);
    // 10 layers: 1 + 5 = 6 GiB fits the GPU whole.
    CHECK(c.strategy == fit_strategy::single_gpu);
  }

  TEST_CASE("scheduler: byte quantities beyond int64 never overcommit RAM or VRAM") {
    // Found by tests/fuzz/scheduler.fuzz.cpp: the index converted byte counts to int64 by a
    // plain cast, so a RAM need of 2^63 + 2^40 read as negative and "fit" a 64 GiB worker;
    // a reservation of 2^64 − 1 read as −1 and made a GPU one byte larger; a claim of 2^63
    // overflowed the allocatable sum (undefined behaviour); and the layered estimator's
    // VRAM(L) wrapped to a small need. Quantities now count up to 8 PiB, sums are exact and
    // read saturated, and needs compare unsigned; VRAM(L)/RAM(L) saturate.
    const std::uint64_t huge = (std::uint64_t{1} << 63) + (std::uint64_t{1} << 40);
    std::vector<Wk> workers{
        {.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}}};  // 64 GiB RAM
    const std::vector<Inst> none;
    workspace ws;  // one for the temporaries below
    // A RAM need above 2^63 fits nowhere (GPU, offload or CPU).
    auto r = default_scheduler(layered_estimator({.total_layers = 10,
                                                  .layer_vram_bytes = GiB,
                                                  .fixed_vram_bytes = GiB,
                                                  .layer_ram_bytes = 0,
                                                  .fixed_ram_bytes = huge}))
                 .place(ws, workers, none, Model{});
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::insufficient_resources);
    CHECK_FALSE(
        default_scheduler(vllm_estimator(GiB, 0.9, 8, huge)).place(ws, workers, none, Model{}));
    // A reservation of 2^64 − 1 bytes leaves nothing allocatable.
    std::vector<Wk> reserved{{.id = 1,
                              .gpus = {{.index = 0,
                                        .vram_total_bytes = 80 * GiB,
                                        .vram_reserved_bytes = ~std::uint64_t{0}}}}};
    CHECK_FALSE(default_scheduler(vllm_estimator(GiB, 0.5, 8)).place(ws, reserved, none, Model{}));
    // VRAM(8) = 1 GiB + 8·2^62 saturates instead of wrapping to 1 GiB: CPU only.
    const layered_estimator wrap({.total_layers = 8,
                                  .layer_vram_bytes = std::uint64_t{1} << 62,
                                  .fixed_vram_bytes = GiB,
                                  .layer_ram_bytes = 0,
                                  .fixed_ram_bytes = GiB});
    CHECK(wrap.vram_bytes(8) == ~std::uint64_t{0});
    auto wrapped = default_scheduler(wrap);
    workspace wrapped_ws;
    r = wrapped.place(wrapped_ws, workers, none, Model{});
    REQUIRE(r);
    CHECK(r.strategy == fit_strategy::cpu_only);
    // A claim of 2^63 bytes makes the GPU full; removing it restores the index exactly.
    const Inst big{.id = 1,
                   .model_id = 9,
                   .worker_id = 1,
                   .gpus = {{.index = 0, .vram_bytes = std::uint64_t{1} << 63}}};
    ws.index(workers, none, Model{});
    const std::int64_t before = ws.gpus()[0].alloc_bytes;
    ws.add_instance(big);
    CHECK(ws.gpus()[0].alloc_bytes < 0);
    ws.remove_instance(big);
    CHECK(ws.gpus()[0].alloc_bytes == before);
  }

  TEST_CASE("scheduler: chains reject invalid weights") {
    dynamic_scale_up_chain d;
    CHECK_THROWS_AS(d.add("x", -1.0, binpack_scorer{}), headroom::invalid_argument);
    CHECK(headroom::test::rejected([] {
            (void)scorer_chain<binpack_scorer>(
                normalization::none,
                weighted<binpack_scorer>{.scorer = {}, .weight = -2.0, .name = "b"});
          }) == "weight");
    d.add("binpack", 1.0, binpack_scorer{});
    CHECK(d.set_weight("binpack", 2.0));
    CHECK_FALSE(d.set_weight("nope", 2.0));
    CHECK(d.weight(0) == 2.0);
  }

  TEST_CASE("scheduler: static and dynamic chains decide identically on random clusters") {
    std::mt19937_64 rng(20240607);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    const std::uint64_t sizes[] = {16, 24, 40, 80};
    for (int trial = 0; trial < 60; ++trial) {
      std::vector<Wk> workers;
      std::vector<Inst> instances;
      const auto n = 3 + pick(20);
      std::uint64_t next_instance = 1;
      for (std::uint64_t w = 0; w < n; ++w) {
        Wk wk{.id = 100 + w * 3};
        wk.ram_total_bytes = (32 + pick(4) * 32) * GiB;
        const auto gpus = pick(9);
        const auto size = sizes[pick(4)] * GiB;
        for (std::uint32_t g = 0; g < gpus; ++g)
          wk.gpus.push_back({.index = g, .vram_total_bytes = size});
        if (pick(3) == 0) wk.ready_files.push_back(42);
        if (pick(10) == 0) wk.state = worker_state::not_ready;
        for (std::uint32_t g = 0; g < gpus; ++g)
          if (pick(3) == 0)
            instances.push_back(
                {.id = next_instance++,
                 .model_id = pick(2) ? 7u : 9u,
                 .worker_id = wk.id,
                 .state = pick(5) ? instance_state::running : instance_state::starting,
                 .ram_bytes = pick(4) * GiB,
                 .gpus = {{.index = g, .vram_bytes = size * (1 + pick(5)) / 10}},
                 .total_layers = pick(2) ? 40u : 0u,
                 .offload_layers = static_cast<std::uint32_t>(pick(41))});
        workers.push_back(std::move(wk));
      }
      Model m;
      m.files = 42;
      m.placement = pick(2) ? placement_policy::spread : placement_policy::binpack;
      const vllm_estimator e((1 + pick(60)) * GiB, 0.5 + 0.1 * static_cast<double>(pick(5)), 32,
                             pick(8) * GiB);
      // the gpustack chain vs the same scorers as dynamic plugins
      auto sa = gpustack_scale_up_chain();
      dynamic_scale_up_chain da(normalization::none);
      da.add("placement", 1, placement_scorer{.max_score = 100})
          .add("model_file_locality", 1, locality_scorer{.max_score = 5});
      auto up_a = scheduler_with(e, sa);
      workspace up_a_ws;
      auto up_b = scheduler_with(e, da);
      workspace up_b_ws;
      const auto ra = up_a.place(up_a_ws, workers, instances, m);
      const auto rb = up_b.place(up_b_ws, workers, instances, m);
      REQUIRE(static_cast<bool>(ra) == static_cast<bool>(rb));
      // invariant: a placement never overcommits a GPU
      if (ra)
        for (const auto& part : ra.parts)
          for (const auto& cl : ra.claims_of(part))
            CHECK(static_cast<std::int64_t>(cl.vram_bytes) <=
                  up_a_ws.gpus()[cl.gpu_position].alloc_bytes);
      if (ra) {
        CHECK(ra.worker_position == rb.worker_position);
        CHECK(ra.chosen.part_begin == rb.chosen.part_begin);
        CHECK(ra.score == rb.score);  // bit for bit
      }
      // default preset vs dynamic
      auto sd = default_scale_up_chain();
      dynamic_scale_up_chain dd(normalization::min_max);
      dd.add("best_fit", 1, gated<best_fit_scorer>{.when = placement_policy::binpack})
          .add("anti_affinity", 1, gated<anti_affinity_scorer>{.when = placement_policy::spread})
          .add("least_allocated", 0.5,
               gated<least_allocated_scorer>{.when = placement_policy::spread})
          .add("model_file_locality", 0.1, locality_scorer{.max_score = 100});
      auto up_c = scheduler_with(e, sd);
      workspace up_c_ws;
      auto up_d = scheduler_with(e, dd);
      workspace up_d_ws;
      const auto rc = up_c.place(up_c_ws, workers, instances, m);
      const auto rd = up_d.place(up_d_ws, workers, instances, m);
      REQUIRE(static_cast<bool>(rc) == static_cast<bool>(rd));
      if (rc) {
        CHECK(rc.chosen.part_begin == rd.chosen.part_begin);
        CHECK(rc.score == rd.score);
      }
      // scale down
      auto ss = gpustack_scale_down_chain();
      dynamic_scale_down_chain ds(normalization::none);
      ds.add("state", 1, state_scorer{.max_score = 100})
          .add("offload", 1, offload_layer_scorer{.max_score = 10})
          .add("placement", 1,
               placement_retention_scorer{.max_score = 1, .view = instance_view::model_only});
      auto down_a = scale_down_ranker<decltype(ss)&>(ss);
      workspace down_a_ws;
      auto down_b = scale_down_ranker<dynamic_scale_down_chain&>(ds);
      workspace down_b_ws;
      const auto ka = down_a.rank(down_a_ws, workers, instances, m);
      const auto kb = down_b.rank(down_b_ws, workers, instances, m);
      REQUIRE(ka.size() == kb.size());
      for (std::size_t i = 0; i < ka.size(); ++i) {
        CHECK(ka[i].id == kb[i].id);
        CHECK(ka[i].score == kb[i].score);
      }
      // invariant: scores ascending
      for (std::size_t i = 1; i < ka.size(); ++i) CHECK(ka[i - 1].score <= ka[i].score);
    }
  }

  TEST_CASE("scheduler: static chains score clusters of many tiles as scorer by scorer") {
    // A static chain scores more than one tile of items (512) tile by tile, every scorer
    // on a tile before the next, and best fit and locality read the fit's dense
    // per-candidate copies; a dynamic chain of the same scorers hidden behind a plain
    // score() scores one scorer after the other from the records. Totals must agree bit
    // for bit, for both normalisations, both policies, with and without a draft model,
    // and for scale down.
    const auto hide = [](auto s) { return per_item<decltype(s)>{s}; };
    std::size_t tied_at_top = 0;  // candidates at the winner's total, over every decision
    std::mt19937_64 rng(20261201);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    const std::uint64_t sizes[] = {16, 24, 40, 80};
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<Wk> workers;
      std::vector<Inst> instances;
      std::uint64_t next_instance = 1;
      for (std::uint64_t w = 0; w < 1000 + pick(300); ++w) {
        Wk wk{.id = 10 + w * 7, .ram_total_bytes = (32 + pick(4) * 32) * GiB};
        for (std::uint32_t g = 0; g < 1 + pick(8); ++g)
          wk.gpus.push_back({.index = g, .vram_total_bytes = sizes[pick(4)] * GiB});
        if (pick(3) == 0) wk.ready_files.push_back(42);
        if (pick(4) == 0) wk.ready_files.push_back(43);
        for (std::uint32_t g = 0; g < wk.gpus.size(); ++g)
          if (pick(3) == 0)
            instances.push_back(
                {.id = next_instance++,
                 .model_id = pick(2) ? 7u : 9u,
                 .worker_id = wk.id,
                 .state = pick(5) ? instance_state::running : instance_state::starting,
                 .ram_bytes = pick(4) * GiB,
                 .gpus = {{.index = g,
                           .vram_bytes = wk.gpus[g].vram_total_bytes * (1 + pick(5)) / 10}},
                 .total_layers = pick(2) ? 40u : 0u,
                 .offload_layers = static_cast<std::uint32_t>(pick(41))});
        workers.push_back(std::move(wk));
      }
      Model m{.placement = trial % 2 ? placement_policy::spread : placement_policy::binpack,
              .files = 42,
              .draft_files = trial % 4 >= 2 ? 43u : 0u};
      const vllm_estimator e((1 + pick(12)) * GiB, 0.5 + 0.1 * static_cast<double>(pick(5)), 32,
                             pick(4) * GiB);
      auto sd = default_scale_up_chain();
      dynamic_scale_up_chain dd(normalization::min_max);
      dd.add("best_fit", 1, hide(gated<best_fit_scorer>{.when = placement_policy::binpack}))
          .add("anti_affinity", 1,
               hide(gated<anti_affinity_scorer>{.when = placement_policy::spread}))
          .add("least_allocated", 0.5,
               hide(gated<least_allocated_scorer>{.when = placement_policy::spread}))
          .add("model_file_locality", 0.1, hide(locality_scorer{.max_score = 100}));
      auto sg = gpustack_scale_up_chain();
      dynamic_scale_up_chain dg(normalization::none);
      dg.add("placement", 1, hide(placement_scorer{.max_score = 100}))
          .add("model_file_locality", 1, hide(locality_scorer{.max_score = 5}));
      auto up = scheduler_with(e, sd);
      workspace up_ws;
      const auto placed = up.place(up_ws, workers, instances, m);
      REQUIRE(placed);
      CHECK(placed.strategy == fit_strategy::single_gpu);  // the stage with dense copies
      const auto cands = up_ws.candidates();
      REQUIRE(cands.size() > 1024);  // several tiles
      const auto compare = [&](auto& static_chain, auto& dynamic_chain) {
        const scored_candidates a =
            score_candidates(static_chain, up_ws, tie_break::lowest_worker_id);
        const std::vector<double> kept(a.totals.begin(), a.totals.end());
        const std::size_t best = a.best;
        const scored_candidates b =
            score_candidates(dynamic_chain, up_ws, tie_break::lowest_worker_id);
        REQUIRE(kept.size() == b.totals.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < kept.size(); ++i) differ += kept[i] != b.totals[i] ? 1u : 0u;
        CHECK(differ == 0);  // bit for bit
        CHECK(best == b.best);
        // the winner by the tie rule, scanned plainly: highest total, then lowest main
        // worker id, then lowest first GPU index, then earliest
        const cluster_view v = up_ws.view();
        const auto key = [&](std::size_t i) {
          const placement_part& p = v.parts[cands[i].part_begin];
          return std::pair{v.workers[p.worker_position].id,
                           p.claim_count ? v.claims[p.claim_begin].index : 0u};
        };
        std::size_t expected = 0;
        for (std::size_t i = 1; i < kept.size(); ++i)
          if (kept[i] > kept[expected] || (kept[i] == kept[expected] && key(i) < key(expected)))
            expected = i;
        CHECK(best == expected);
        for (const double t : kept) tied_at_top += t == kept[expected] ? 1u : 0u;
      };
      compare(sd, dd);
      compare(sg, dg);
      // a raw scorer in a min-max chain (its own normalisation), tile by tile and not
      auto sm = default_scale_up_chain().with(
          weighted<locality_scorer>{.scorer = {.max_score = 5},
                                    .weight = 1,
                                    .name = "raw",
                                    .normalize = normalization::none});
      dynamic_scale_up_chain dm(normalization::min_max);
      dm.add("best_fit", 1, hide(gated<best_fit_scorer>{.when = placement_policy::binpack}))
          .add("anti_affinity", 1,
               hide(gated<anti_affinity_scorer>{.when = placement_policy::spread}))
          .add("least_allocated", 0.5,
               hide(gated<least_allocated_scorer>{.when = placement_policy::spread}))
          .add("model_file_locality", 0.1, hide(locality_scorer{.max_score = 100}))
          .add("raw", 1, hide(locality_scorer{.max_score = 5}), normalization::none);
      compare(sm, dm);
      // committed, the same candidates score from the records (their GPUs' free VRAM moved)
      up_ws.commit(placed.chosen);
      compare(sd, dd);
      // scale down: more than one tile of the model's instances
      auto ss = default_scale_down_chain();
      dynamic_scale_down_chain ds(normalization::min_max);
      ds.add("state", 1, state_scorer{.max_score = 100})
          .add("offload_layers", 0.1, offload_layer_scorer{.max_score = 100})
          .add("placement", 0.01, placement_retention_scorer{.max_score = 100});
      auto down_a = scale_down_ranker<decltype(ss)&>(ss);
      workspace down_a_ws;
      auto down_b = scale_down_ranker<dynamic_scale_down_chain&>(ds);
      workspace down_b_ws;
      const auto ka = down_a.rank(down_a_ws, workers, instances, m);
      const std::vector<ranked_instance> kept(ka.begin(), ka.end());
      const auto kb = down_b.rank(down_b_ws, workers, instances, m);
      REQUIRE(kept.size() > 512);
      REQUIRE(kept.size() == kb.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < kept.size(); ++i)
        differ += kept[i].id != kb[i].id || kept[i].score != kb[i].score ? 1u : 0u;
      CHECK(differ == 0);
    }
    CHECK(tied_at_top > 2 * 8 * 2);  // ties the rule had to break
  }

  TEST_CASE("scheduler: a kept index / updated incrementally / decides like a fresh index") {
    // Property: on seeded random clusters mutated step by step (instances added, removed,
    // placed; workers changed), a scheduler deciding on its kept index, kept current with
    // add_instance / remove_instance / update_worker / commit, gives the same decision,
    // score bit for bit, as one indexing the cluster afresh; a ranker on its kept index gives
    // the same ranking as a fresh one, and its partial form the same prefix.
    std::mt19937_64 rng(20240611);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    const std::uint64_t sizes[] = {16, 24, 40, 80};
    auto same = [](const placement_result& a, const placement_result& b) {
      REQUIRE(static_cast<bool>(a) == static_cast<bool>(b));
      CHECK(a.reason == b.reason);
      CHECK(a.filtered_out == b.filtered_out);
      if (!a) return;
      CHECK(a.strategy == b.strategy);
      CHECK(a.worker_id == b.worker_id);
      CHECK(a.score == b.score);  // bit for bit
      CHECK(a.candidates == b.candidates);
      REQUIRE(a.parts.size() == b.parts.size());
      for (std::size_t p = 0; p < a.parts.size(); ++p) {
        CHECK(a.parts[p].worker_position == b.parts[p].worker_position);
        CHECK(a.parts[p].ram_bytes == b.parts[p].ram_bytes);
        const auto ca = a.claims_of(a.parts[p]), cb = b.claims_of(b.parts[p]);
        REQUIRE(ca.size() == cb.size());
        for (std::size_t k = 0; k < ca.size(); ++k) {
          CHECK(ca[k].index == cb[k].index);
          CHECK(ca[k].vram_bytes == cb[k].vram_bytes);
        }
      }
    };
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<Wk> workers;
      std::vector<Inst> instances;
      const auto n = 2 + pick(16);
      std::uint64_t next_instance = 1;
      auto random_instance = [&](const Wk& wk) {
        const auto g = static_cast<std::uint32_t>(pick(wk.gpus.size()));
        const std::uint64_t size = wk.gpus[g].vram_total_bytes;
        return Inst{.id = next_instance++,
                    .model_id = pick(2) ? 7u : 9u,
                    .worker_id = wk.id,
                    .state = pick(4) ? instance_state::running : instance_state::starting,
                    .ram_bytes = pick(4) * GiB,
                    .gpus = {{.index = g, .vram_bytes = size * (1 + pick(5)) / 10}},
                    .total_layers = pick(2) ? 40u : 0u,
                    .offload_layers = static_cast<std::uint32_t>(pick(41))};
      };
      for (std::uint64_t w = 0; w < n; ++w) {
        Wk wk{.id = pick(3) ? 100 + w * 3 : 900 - w * 5};  // sometimes unsorted ids
        wk.ram_total_bytes = (32 + pick(4) * 32) * GiB;
        const auto gpus = 1 + pick(8);
        const auto size = sizes[pick(4)] * GiB;
        for (std::uint32_t g = 0; g < gpus; ++g)
          wk.gpus.push_back({.index = g, .vram_total_bytes = size});
        if (pick(3) == 0) wk.ready_files.push_back(42);
        if (pick(10) == 0) wk.state = worker_state::not_ready;
        if (pick(5)) wk.labels.push_back({"zone", pick(3) ? "a" : "b"});
        for (std::uint32_t k = 0; k < gpus; ++k)
          if (pick(3) == 0) instances.push_back(random_instance(wk));
        workers.push_back(std::move(wk));
      }
      if (pick(3) == 0 && workers.size() > 1)  // a distributed instance
        instances.push_back({.id = next_instance++,
                             .model_id = 7,
                             .worker_id = workers[0].id,
                             .ram_bytes = GiB,
                             .gpus = {{.index = 0, .vram_bytes = 4 * GiB}},
                             .subordinates = {{.worker_id = workers[1].id,
                                               .gpus = {{.index = 0, .vram_bytes = 3 * GiB}},
                                               .ram_bytes = 0}}});
      Model m;
      m.files = 42;
      m.placement = pick(2) ? placement_policy::spread : placement_policy::binpack;
      if (pick(2)) m.selectors.push_back({"zone", "a"});
      const vllm_estimator e((1 + pick(60)) * GiB, 0.5 + 0.1 * static_cast<double>(pick(5)), 8,
                             pick(8) * GiB);
      // Kept: by add_instance (kept), by commit (committed, and the gpustack chain's by
      // add_instance of what it committed); fresh: indexed anew for every decision.
      auto kept = default_scheduler(e), committed = default_scheduler(e),
           fresh = default_scheduler(e);
      workspace kept_ws;
      workspace committed_ws;
      workspace fresh_ws;
      auto kept_gs = scheduler(basic_filters(), e, gpustack_scale_up_chain());
      workspace kept_gs_ws;
      auto fresh_gs = scheduler(basic_filters(), e, gpustack_scale_up_chain());
      workspace fresh_gs_ws;
      auto kept_down = gpustack_scale_down_ranker(), fresh_down = gpustack_scale_down_ranker();
      workspace kept_down_ws;
      workspace fresh_down_ws;
      kept.index(kept_ws, workers, instances, m);
      committed.index(committed_ws, workers, instances, m);
      kept_gs.index(kept_gs_ws, workers, instances, m);
      kept_down.index(kept_down_ws, workers, instances, m);
      const auto all_kept = [&](auto&& change) {
        change(kept_ws);
        change(committed_ws);
        change(kept_gs_ws);
        change(kept_down_ws);
      };
      for (int step = 0; step < 16; ++step) {
        switch (pick(5)) {
          case 0: {  // a new instance appears
            instances.push_back(random_instance(workers[pick(workers.size())]));
            all_kept([&](workspace& ws) { ws.add_instance(instances.back()); });
            break;
          }
          case 1: {  // an instance goes away
            if (instances.empty()) break;
            const auto k = pick(instances.size());
            all_kept([&](workspace& ws) { ws.remove_instance(instances[k]); });
            instances.erase(instances.begin() + static_cast<std::ptrdiff_t>(k));
            break;
          }
          case 2: {  // a worker changes state, cluster, labels, reserved memory or files
            Wk& wk = workers[pick(workers.size())];
            wk.state = pick(3) ? worker_state::ready : worker_state::maintenance;
            wk.cluster = pick(6) ? 1 : 2;
            wk.labels.clear();
            if (pick(4)) wk.labels.push_back({"zone", pick(2) ? "a" : "b"});
            wk.ram_reserved_bytes = pick(3) * GiB;
            wk.gpus[pick(wk.gpus.size())].vram_reserved_bytes = pick(3) * GiB;
            wk.ready_files.clear();
            if (pick(2)) wk.ready_files.push_back(42);
            all_kept([&](workspace& ws) { CHECK(ws.update_worker(wk)); });
            break;
          }
          default: {  // place: one kept index commits, the others add the placed instance
            const auto r = committed.place(committed_ws, workers, m);
            same(r, fresh.place(fresh_ws, workers, instances, m));
            if (!r) break;
            const Inst placed = instance_from(r, workers, next_instance++, m.id);
            committed.commit(committed_ws, r);
            for (workspace* ws : {&kept_ws, &kept_gs_ws, &kept_down_ws}) ws->add_instance(placed);
            instances.push_back(placed);
            break;
          }
        }
        same(kept.place(kept_ws, workers, m), fresh.place(fresh_ws, workers, instances, m));
        same(committed.place(committed_ws, workers, m),
             fresh.place(fresh_ws, workers, instances, m));
        same(kept_gs.place(kept_gs_ws, workers, m),
             fresh_gs.place(fresh_gs_ws, workers, instances, m));
        const auto a = kept_down.rank(kept_down_ws, workers);
        const std::vector<ranked_instance> full(a.begin(), a.end());
        const auto b = fresh_down.rank(fresh_down_ws, workers, instances, m);
        REQUIRE(full.size() == b.size());
        for (std::size_t i = 0; i < b.size(); ++i) {
          CHECK(full[i].id == b[i].id);
          CHECK(full[i].score == b[i].score);
        }
        const std::size_t count = full.empty() ? 0 : pick(full.size() + 1);
        const auto part = kept_down.rank(kept_down_ws, workers, count);
        REQUIRE(part.size() == count);
        for (std::size_t i = 0; i < count; ++i) {
          CHECK(part[i].id == full[i].id);
          CHECK(part[i].score == full[i].score);
        }
      }
    }
    // A worker whose GPUs changed cannot be updated in place: nothing changes, re-index.
    std::vector<Wk> ws{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    workspace w;
    w.index(ws, std::vector<Inst>{}, Model{});
    ws[0].gpus.push_back({.index = 1, .vram_total_bytes = 24 * GiB});
    CHECK_FALSE(w.update_worker(ws[0]));
    CHECK(w.gpus().size() == 1);
    CHECK_FALSE(w.update_worker(Wk{.id = 2}));
  }

  TEST_CASE("scheduler: a worker list that is not the indexed one is refused by name") {
    // The workspace's records are the indexed workers, position for position: a longer or
    // shorter list (the caller forgot to index() again) must not be read past its records.
    std::vector<Wk> workers{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
                            {.id = 2, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    const std::vector<Inst> none;
    for (const stale_check stale : {stale_check::none, stale_check::refuse}) {
      auto up = default_scheduler(fixed_estimator{.per_gpu = 8 * GiB}, basic_filters(), stale);
      workspace up_ws;
      up.index(up_ws, workers, none, Model{});
      workers.push_back({.id = 3, .gpus = {{.index = 0, .vram_total_bytes = 48 * GiB}}});
      // An explanation always runs the filters over the list it is given.
      CHECK(headroom::test::rejected([&] { (void)up.explain(up_ws, workers, Model{}); }) ==
            "workers");
      workers.resize(1);
      CHECK(headroom::test::rejected([&] { (void)up.explain(up_ws, workers, Model{}); }) ==
            "workers");
      // Indexed again, the same list is fine.
      up.index(up_ws, workers, none, Model{});
      CHECK(up.explain(up_ws, workers, Model{}).result);
      workers.push_back({.id = 2, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}});
    }
    // A decision on a kept index is for the model indexed.
    auto up = default_scheduler(fixed_estimator{.per_gpu = 8 * GiB});
    workspace up_ws;
    up.index(up_ws, workers, none, Model{});
    CHECK(headroom::test::rejected([&] { (void)up.place(up_ws, workers, Model{.id = 8}); }) ==
          "model");
  }

  TEST_CASE("scheduler: the defaults plus a scorer of one's own, in one statement") {
    // A scorer preferring the main worker with the most RAM left, appended to the default
    // chain with .with(): the chain restated by hand, with the scorer last, decides the same.
    struct free_ram {
      double score(const cluster_view& v, const candidate& c) const noexcept {
        return static_cast<double>(v.main_worker(c).ram_alloc_bytes);
      }
    };
    using best_fit = gated<best_fit_scorer>;
    using anti_affinity = gated<anti_affinity_scorer>;
    using least_allocated = gated<least_allocated_scorer>;
    const auto extended =
        default_scale_up_chain().with(weighted<free_ram>{.weight = 2, .name = "free_ram"});
    static_assert(decltype(extended)::scratch_columns == 5);
    const auto by_hand =
        scorer_chain<best_fit, anti_affinity, least_allocated, locality_scorer, free_ram>(
            normalization::min_max,
            weighted<best_fit>{
                .scorer = {.when = placement_policy::binpack}, .weight = 1, .name = "best_fit"},
            weighted<anti_affinity>{
                .scorer = {.when = placement_policy::spread}, .weight = 1, .name = "anti_affinity"},
            weighted<least_allocated>{.scorer = {.when = placement_policy::spread},
                                      .weight = 0.5,
                                      .name = "least_allocated"},
            weighted<locality_scorer>{
                .scorer = {.max_score = 100}, .weight = 0.1, .name = "model_file_locality"},
            weighted<free_ram>{.weight = 2, .name = "free_ram"});
    std::vector<Wk> workers{{.id = 1,
                             .ram_total_bytes = 64 * GiB,
                             .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}},
                            {.id = 2,
                             .ram_total_bytes = 512 * GiB,
                             .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}}};
    const std::vector<Inst> none;
    const fixed_estimator e{.per_gpu = 16 * GiB};
    const auto plain = default_scheduler(e);
    const auto mine = plain.with(weighted<free_ram>{.weight = 2, .name = "free_ram"});
    const auto hand = scheduler(basic_filters(), e, by_hand);
    workspace a, b, c;
    const placement_result p = plain.place(a, workers, none, Model{});
    const placement_result m = mine.place(b, workers, none, Model{});
    const placement_result h = hand.place(c, workers, none, Model{});
    REQUIRE(p);
    REQUIRE(m);
    CHECK(p.worker_id == 1);  // best fit alone: 8 GiB left on the 24 GiB GPU
    CHECK(m.worker_id == 2);  // with free RAM at weight 2 (100 against best fit's 100): 2
    CHECK(h.worker_id == m.worker_id);
    CHECK(h.score == m.score);
  }

  TEST_CASE("scheduler: a scorer normalised its own way in a min-max chain") {
    // Two scorers of the main worker's id (1, 2, 3): `id` min-max normalised as the chain
    // says, 0 / 50 / 100 at weight 1; `raw` ten times the id, summed as it is
    // (normalize = none) at weight 0.5: 5 / 10 / 15. Totals 5, 60, 115: worker 3 at 115.
    // Normalised like the chain, `raw` would add 0 / 25 / 50 instead (weight 0.5): 150.
    struct id_scorer {
      double score(const cluster_view& v, const candidate& c) const noexcept {
        return static_cast<double>(v.main_worker(c).id);
      }
    };
    struct ten_ids_scorer {
      double score(const cluster_view& v, const candidate& c) const noexcept {
        return 10.0 * static_cast<double>(v.main_worker(c).id);
      }
    };
    std::vector<Wk> workers;
    for (std::uint64_t id = 1; id <= 3; ++id)
      workers.push_back({.id = id, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}});
    const std::vector<Inst> none;
    const fixed_estimator e{.per_gpu = 16 * GiB};
    const auto chain_of = [](std::optional<normalization> raw_mode) {
      return scorer_chain<id_scorer, ten_ids_scorer>(
          normalization::min_max, weighted<id_scorer>{.weight = 1, .name = "id"},
          weighted<ten_ids_scorer>{.weight = 0.5, .name = "raw", .normalize = raw_mode});
    };
    dynamic_scale_up_chain dynamic(normalization::min_max);
    dynamic.add("id", 1, id_scorer{}).add("raw", 0.5, ten_ids_scorer{}, normalization::none);
    CHECK(dynamic.normalization_of(0) == normalization::min_max);
    CHECK(dynamic.normalization_of(1) == normalization::none);
    workspace a, b, c;
    const placement_result own = scheduler(basic_filters(), e, chain_of(normalization::none))
                                     .place(a, workers, none, Model{});
    const placement_result chains =
        scheduler(basic_filters(), e, chain_of(std::nullopt)).place(b, workers, none, Model{});
    const placement_result dyn =
        scheduler(basic_filters(), e, std::move(dynamic)).place(c, workers, none, Model{});
    REQUIRE(own);
    REQUIRE(chains);
    REQUIRE(dyn);
    CHECK(own.worker_id == 3);
    CHECK(own.score == doctest::Approx(115.0).epsilon(1e-12));
    CHECK(chains.score == doctest::Approx(150.0).epsilon(1e-12));
    CHECK(dyn.worker_id == 3);
    CHECK(dyn.score == own.score);
  }

  TEST_CASE("scheduler: one const policy serves two threads, each with its own workspace") {
    // A cluster of 48 workers (1–4 GPUs of 24, 48 or 80 GiB) and a sequence of 60 models of
    // 4–40 GiB, half spreading (the gpustack chain's spread scorer keeps per-decision
    // statistics: each decision scores with its own prepared copy). Each decision indexes
    // the cluster into its thread's workspace (the filter cache, the listing and the scores
    // live there). One const policy, decided first on one thread, then on two threads at
    // once, each with its own workspace: the three sequences of answers are the same, bit
    // for bit.
    std::mt19937_64 engine(33);
    std::vector<Wk> workers;
    for (std::uint64_t id = 1; id <= 48; ++id) {
      Wk w{.id = id};
      const auto gpus = static_cast<std::uint32_t>(1 + engine() % 4);
      const std::uint64_t sizes[] = {24 * GiB, 48 * GiB, 80 * GiB};
      for (std::uint32_t g = 0; g < gpus; ++g)
        w.gpus.push_back({.index = g, .vram_total_bytes = sizes[engine() % 3]});
      workers.push_back(std::move(w));
    }
    std::vector<Model> models;
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t k = 0; k < 60; ++k) {
      models.push_back({.id = 100 + k % 6,
                        .placement = k % 2 ? placement_policy::spread : placement_policy::binpack});
      sizes.push_back((4 + engine() % 37) * GiB);
    }
    const std::vector<Inst> none;
    const auto policy = scheduler(
        basic_filters(),
        [&](const Model& m) { return fixed_estimator{.per_gpu = sizes[m.id - 100]}; },
        gpustack_scale_up_chain());
    struct answer {
      std::uint64_t worker_id;
      double score;
      std::size_t candidates;
      bool operator==(const answer&) const = default;
    };
    const auto decide_all = [&](std::vector<answer>& out) {
      workspace ws;  // this thread's
      for (const Model& m : models) {
        const placement_result r = policy.place(ws, workers, none, m);
        out.push_back({r.worker_id, r.score, r.candidates});
      }
    };
    std::vector<answer> alone, first, second;
    decide_all(alone);
    {
      std::thread a([&] { decide_all(first); });
      std::thread b([&] { decide_all(second); });
      a.join();
      b.join();
    }
    REQUIRE(alone.size() == models.size());
    std::size_t placed = 0;
    for (const answer& x : alone) placed += x.worker_id != 0 ? 1u : 0u;
    CHECK(placed > 30);  // most of them fit somewhere
    CHECK(first == alone);
    CHECK(second == alone);
  }

  TEST_CASE("scheduler: cached filter verdicts are refreshed by update_worker and refilter") {
    // A decision on a kept index caches each worker's filter verdict in the workspace: a
    // worker changed without update_worker keeps its old verdict when the decision trusts
    // the caller (stale_check::none; the other checks are tested below); update_worker (or
    // refilter, or index) makes the next decision see the change, and it then equals a
    // fresh index's.
    std::vector<Wk> workers{
        {.id = 1, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
        {.id = 2, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    const std::vector<Inst> none;
    Model m;
    m.selectors.push_back({"zone", "a"});
    const fixed_estimator e{.per_gpu = 8 * GiB};
    auto kept = default_scheduler(e, basic_filters(), stale_check::none);
    workspace kept_ws;
    auto fresh = default_scheduler(e);
    workspace fresh_ws;
    workspace& ws = kept_ws;
    kept.index(kept_ws, workers, none, m);
    auto r = kept.place(kept_ws, workers, m);
    REQUIRE(r);
    CHECK(r.worker_id == 2);  // best fit: 16 GiB left on worker 2, 72 on worker 1
    CHECK(r.filtered_out == 0);
    workers[1].labels = {{"zone", "b"}};  // worker 2 leaves the zone...
    r = kept.place(kept_ws, workers, m);
    CHECK(r.worker_id == 2);  // ...unseen: its cached verdict stands
    CHECK(ws.update_worker(workers[1]));
    r = kept.place(kept_ws, workers, m);
    auto f = fresh.place(fresh_ws, workers, none, m);
    REQUIRE(r);
    REQUIRE(f);
    CHECK(r.worker_id == 1);
    CHECK(r.filtered_out == 1);
    CHECK(f.worker_id == 1);
    CHECK(f.filtered_out == 1);
    CHECK(r.score == f.score);
    // State and cluster changes, the same way, down to every worker filtered out.
    workers[0].state = worker_state::maintenance;
    CHECK(ws.update_worker(workers[0]));
    r = kept.place(kept_ws, workers, m);
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::all_filtered);
    CHECK(r.filtered_out == 2);
    workers[0].state = worker_state::ready;
    workers[1].labels = {{"zone", "a"}};
    workers[1].cluster = 2;
    CHECK(ws.update_worker(workers[0]));
    CHECK(ws.update_worker(workers[1]));
    r = kept.place(kept_ws, workers, m);
    f = fresh.place(fresh_ws, workers, none, m);
    REQUIRE(r);
    CHECK(r.worker_id == 1);
    CHECK(r.filtered_out == 1);
    CHECK(f.worker_id == 1);
    CHECK(r.score == f.score);
    // A copy of the scheduler (another filter chain object), or refilter(), runs the
    // filters on every worker.
    workers[1].cluster = 1;  // not told
    r = kept.place(kept_ws, workers, m);
    CHECK(r.worker_id == 1);
    auto copy = kept;
    workspace copy_ws = kept_ws;  // the same index, filtered by another chain object
    r = copy.place(copy_ws, workers, m);
    CHECK(r.worker_id == 2);
    workers[1].cluster = 2;  // not told
    ws.refilter();
    r = kept.place(kept_ws, workers, m);
    CHECK(r.worker_id == 1);
    CHECK(r.filtered_out == 1);
    // An explanation always runs the filters (and refreshes the cache).
    workers[1].cluster = 1;  // not told
    const auto [explained, why] = kept.explain(kept_ws, workers, m);
    CHECK(explained.worker_id == 2);
    CHECK(why.rejected.empty());
    r = kept.place(kept_ws, workers, m);
    CHECK(r.worker_id == 2);
    CHECK(r.filtered_out == 0);
  }

  TEST_CASE("scheduler: archetypes need nothing but the documented traits") {
    using archetypes::gpu;
    std::vector<archetypes::worker> workers{
        {1, 64 * GiB, {gpu{0, 24 * GiB}}},
        {2, 64 * GiB, {gpu{0, 24 * GiB}, gpu{1, 24 * GiB}}},
        {3, 64 * GiB, {gpu{0, 80 * GiB}}, worker_state::not_ready}};
    std::vector<archetypes::instance> instances{
        {1, 7, 1, {{0, 20 * GiB}}}, {2, 7, 2, {{1, 10 * GiB}}}, {3, 9, 2, {{0, 2 * GiB}}}};
    auto up = default_scheduler(archetypes::estimator{8 * GiB});
    workspace up_ws;
    const auto [r, why] = up.explain(up_ws, workers, instances, archetypes::model{7});
    REQUIRE(r);
    // Worker 3 is not ready; worker 1 has 4 GiB free; worker 2: GPU0 22 free (leftover 14),
    // GPU1 14 free (leftover 6) → best fit is worker 2, GPU 1.
    CHECK(r.worker_id == 2);
    CHECK(r.claims_of(r.parts[0])[0].index == 1);
    CHECK(why.rejected.size() == 2);  // worker 3 (not ready), worker 1 (no room)
    auto down = gpustack_scale_down_ranker();
    workspace down_ws;
    const auto ranked = down.rank(down_ws, workers, instances, archetypes::model{7});
    REQUIRE(ranked.size() == 2);
    // Both running on ready workers (100); retention binpack, M = 1:
    //   #1: 20/(4 + 20) → 2·(5/6)/3 = 0.5556; #2: 10/(14 + 10) → 2·(5/12)/3 = 0.2778 → #2 first.
    CHECK(ranked[0].id == 2);
    CHECK(ranked[0].score == doctest::Approx(100 + 2 * (10.0 / 24) / 3));
  }
}

TEST_SUITE("scheduler") {
  TEST_CASE("scheduler: many huge claims saturate instead of wrapping the allocatable sums") {
    workspace probe_ws;  // for the temporary scheduler below
    // 1 025 instances each claiming 2^60 bytes on one 80 GiB GPU: each counts as 2^53 bytes
    // (8 PiB), and 1 025 · 2^53 = 2^63 + 2^53 does not fit an int64. A modular sum wrapped to
    // 80 GiB − 2^63 − 2^53 + 2^64 ≈ 2^63 − 2^53 and the GPU looked free; a saturating one
    // leaves it full, so a 10 GiB model fits nowhere.
    std::vector<Wk> workers{
        {.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}}};  // 64 GiB RAM
    std::vector<Inst> instances;
    for (std::uint64_t k = 1; k <= 1025; ++k)
      instances.push_back({.id = k,
                           .model_id = 9,
                           .worker_id = 1,
                           .gpus = {{.index = 0, .vram_bytes = std::uint64_t{1} << 60}}});
    const fixed_estimator ten{.per_gpu = 10 * GiB};
    auto up = default_scheduler(ten);
    workspace up_ws;
    auto r = up.place(up_ws, workers, instances, Model{});
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::insufficient_resources);
    CHECK(up_ws.gpus()[0].alloc_bytes < 0);
    // The same through GPUStack's listing (its allocatable amounts add type-excluded claims
    // back) and with the claims recorded for scale down.
    CHECK_FALSE(gpustack_scheduler(vllm_estimator(8 * GiB, 0.9, 8))
                    .place(probe_ws, workers, instances, Model{}));
    // RAM claims of 2^64 − 1 bytes likewise: 1 025 of them leave no RAM for an 8 GiB need.
    std::vector<Inst> ram_hogs;
    for (std::uint64_t k = 1; k <= 1025; ++k)
      ram_hogs.push_back({.id = k, .model_id = 9, .worker_id = 1, .ram_bytes = ~std::uint64_t{0}});
    auto hogged = default_scheduler(fixed_estimator{.per_gpu = GiB, .ram = 8 * GiB});
    workspace hogged_ws;
    CHECK_FALSE(hogged.place(hogged_ws, workers, ram_hogs, Model{}));
    CHECK(hogged_ws.workers()[0].ram_alloc_bytes < 0);
    // Kept indexes add the claims one by one and remove them again: exact both ways (the
    // sums are kept exactly and read saturated), so they end where a fresh index starts.
    const std::vector<Inst> none;
    auto kept = default_scheduler(ten);
    workspace kept_ws;
    auto kept_down = gpustack_scale_down_ranker();  // records the model's own sums too
    workspace kept_down_ws;
    kept.index(kept_ws, workers, none, Model{});
    kept_down.index(kept_down_ws, workers, none, Model{});
    const workspace& ws = kept_ws;
    const workspace& down = kept_down_ws;
    const std::int64_t vram_before = ws.gpus()[0].alloc_bytes;
    const std::int64_t ram_before = ws.workers()[0].ram_alloc_bytes;
    const auto own_hog = [](const Inst& i) {
      return Inst{.id = i.id + 2000, .model_id = 7, .worker_id = 1, .ram_bytes = i.ram_bytes};
    };
    for (workspace* w : {&kept_ws, &kept_down_ws}) {
      for (const Inst& i : instances) w->add_instance(i);
      for (const Inst& i : ram_hogs) w->add_instance(own_hog(i));
    }
    CHECK(ws.gpus()[0].alloc_bytes < 0);
    CHECK(ws.workers()[0].ram_alloc_bytes < 0);
    CHECK(down.view().own_ram_alloc_bytes[0] < 0);
    CHECK_FALSE(kept.place(kept_ws, workers, Model{}));
    for (workspace* w : {&kept_ws, &kept_down_ws}) {
      for (const Inst& i : instances) w->remove_instance(i);
      for (const Inst& i : ram_hogs) w->remove_instance(own_hog(i));
    }
    CHECK(ws.gpus()[0].alloc_bytes == vram_before);
    CHECK(ws.workers()[0].ram_alloc_bytes == ram_before);
    CHECK(down.view().own_ram_alloc_bytes[0] == ram_before);
    CHECK(kept.place(kept_ws, workers, Model{}));
    // Commits never wrap either: one placement claiming 2^53 bytes of VRAM and of RAM,
    // committed 1 100 times, takes 1 099 · 2^53 bytes more than the GPU and the worker have
    // (below −2^63: a modular sum wrapped to ≈ +8.9e18 free).
    std::vector<Wk> roomy{{.id = 1,
                           .ram_total_bytes = ~std::uint64_t{0},
                           .gpus = {{.index = 0, .vram_total_bytes = ~std::uint64_t{0}}}}};
    fixed_estimator size{.per_gpu = std::uint64_t{1} << 53, .ram = std::uint64_t{1} << 53};
    auto many = default_scheduler([&](const Model&) { return size; });
    workspace many_ws;
    many.index(many_ws, roomy, none, Model{});
    const auto placed = many.place(many_ws, roomy, Model{});
    REQUIRE(placed);
    for (int k = 0; k < 1100; ++k) many.commit(many_ws, placed);
    CHECK(many_ws.gpus()[0].alloc_bytes == std::numeric_limits<std::int64_t>::min());
    CHECK(many_ws.workers()[0].ram_alloc_bytes == std::numeric_limits<std::int64_t>::min());
    size = fixed_estimator{.per_gpu = GiB};
    CHECK_FALSE(many.place(many_ws, roomy, Model{}));
  }
}

TEST_SUITE("scheduler") {
  TEST_CASE("scheduler: duplicate worker ids and GPU indices are refused when indexing") {
    // An instance on "worker 5" was charged to the first of two workers with id 5, and the
    // result's worker id did not say which: ids must name one worker (and an index one GPU).
    std::vector<Wk> twins{{.id = 5, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
                          {.id = 5, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    const std::vector<Inst> none;
    workspace ws;
    auto r = headroom::test::rejection_of([&] { ws.index(twins, none, Model{}); });
    CHECK(r.parameter == "workers");
    CHECK(r.message.find("5") != std::string::npos);
    // Unsorted ids (the index sorts a copy), and the workspace is left empty, not half built.
    std::vector<Wk> unsorted{{.id = 9, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
                             {.id = 3, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
                             {.id = 9, .gpus = {{.index = 0, .vram_total_bytes = 24 * GiB}}}};
    r = headroom::test::rejection_of([&] { ws.index(unsorted, none, Model{}); });
    CHECK(r.parameter == "workers");
    CHECK(r.message.find("9") != std::string::npos);
#if defined(__cpp_exceptions)
    CHECK(ws.workers().empty());
    CHECK(ws.gpus().empty());
#endif
    // Two GPUs with one index on a worker: a claim on GPU 1 would be charged to the first.
    std::vector<Wk> same_index{{.id = 1,
                                .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB},
                                         {.index = 1, .vram_total_bytes = 80 * GiB},
                                         {.index = 1, .vram_total_bytes = 24 * GiB}}}};
    r = headroom::test::rejection_of([&] { ws.index(same_index, none, Model{}); });
    CHECK(r.parameter == "workers");
    CHECK(r.message.find("GPU index 1") != std::string::npos);
    std::vector<Wk> high_index{{.id = 1,
                                .gpus = {{.index = 700, .vram_total_bytes = 80 * GiB},
                                         {.index = 3, .vram_total_bytes = 8 * GiB},
                                         {.index = 700, .vram_total_bytes = GiB}}}};
    CHECK(headroom::test::rejected([&] { ws.index(high_index, none, Model{}); }) == "workers");
    // Recorded instances (scale down) are told apart by id: two with one id are refused, at
    // index() and at add_instance().
    std::vector<Wk> one{{.id = 1, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}}};
    const std::vector<Inst> dup{
        {.id = 4, .model_id = 7, .worker_id = 1},
        {.id = 4, .model_id = 7, .worker_id = 1, .gpus = {{.index = 0, .vram_bytes = GiB}}}};
    r = headroom::test::rejection_of([&] { ws.index(one, dup, Model{}, index_for::scale_down); });
    CHECK(r.parameter == "instances");
    CHECK(r.message.find("4") != std::string::npos);
    ws.index(one, std::vector<Inst>{dup[0]}, Model{}, index_for::scale_down);
    CHECK(headroom::test::rejected([&] { ws.add_instance(dup[1]); }) == "instances");
    // Another model's instances are not recorded: their ids are not compared.
    ws.index(one, std::vector<Inst>{{.id = 4, .model_id = 9, .worker_id = 1}, dup[0]}, Model{},
             index_for::scale_down);
    CHECK(ws.instances().size() == 1);
    // Distinct ids are fine, in any order.
    unsorted[2].id = 4;
    ws.index(unsorted, none, Model{});
    CHECK(ws.workers().size() == 3);
  }
}

TEST_SUITE("scheduler") {
  TEST_CASE("scheduler: a worker changed without update_worker is refused or refreshed") {
    // A decision on a kept index reads the index, not the workers: a GPU shrunk from 80 to
    // 8 GiB still took a 40 GiB model, and a worker marked not ready was still chosen, when
    // the caller forgot update_worker. scheduler_options::stale says what to do about it.
    std::vector<Wk> workers{
        {.id = 1, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
        {.id = 2, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 80 * GiB}}},
        {.id = 3, .labels = {{"zone", "a"}}, .gpus = {{.index = 0, .vram_total_bytes = 48 * GiB}}}};
    const std::vector<Inst> none;
    Model m;
    m.selectors = {{"zone", "a"}};
    auto kept = default_scheduler(fixed_estimator{.per_gpu = 40 * GiB});
    workspace kept_ws;
    auto fresh = default_scheduler(fixed_estimator{.per_gpu = 40 * GiB});
    workspace fresh_ws;
    stale_check& stale = kept.options().stale;
    const auto place_kept = [&] { return kept.place(kept_ws, workers, m); };
    kept.index(kept_ws, workers, none, m);
    stale = stale_check::refuse;
    auto r = place_kept();
    REQUIRE(r);
    CHECK(r.worker_id == 3);  // best fit: 8 GiB left there, 40 on the others
    // Worker 3's GPU shrinks to 8 GiB; update_worker is forgotten.
    workers[2].gpus[0].vram_total_bytes = 8 * GiB;
    stale = stale_check::none;
    CHECK(place_kept().worker_id == 3);
    stale = stale_check::refuse;
    auto x = headroom::test::rejection_of([&] { (void)place_kept(); });
    CHECK(x.parameter == "workers");
    CHECK(x.message.find("workers = 3:") != std::string::npos);
    CHECK(x.message.find("update_worker") != std::string::npos);
    stale = stale_check::refresh;
    r = place_kept();
    auto f = fresh.place(fresh_ws, workers, none, m);
    REQUIRE(r);
    CHECK(r.worker_id == 1);  // worker 3 re-read: 8 GiB cannot take 40
    CHECK(r.score == f.score);
    // Refreshed, the index is current again: refuse passes.
    stale = stale_check::refuse;
    CHECK(place_kept().worker_id == 1);
    // Worker 1 marked not ready (a record and a filter read it), unannounced.
    workers[0].state = worker_state::not_ready;
    CHECK(headroom::test::rejected([&] { (void)place_kept(); }) == "workers");
    stale = stale_check::refresh;
    r = place_kept();
    REQUIRE(r);
    CHECK(r.worker_id == 2);
    CHECK(r.filtered_out == 1);
    // Worker 2 leaves the zone: only the label filter reads it; its cached verdict is
    // compared with a fresh one.
    workers[1].labels = {{"zone", "b"}};
    stale = stale_check::refuse;
    CHECK(headroom::test::rejected([&] { (void)place_kept(); }) == "workers");
    stale = stale_check::refresh;
    r = place_kept();
    CHECK_FALSE(r);
    CHECK(r.reason == no_placement_reason::insufficient_resources);  // worker 3: 8 GiB
    CHECK(r.filtered_out == 2);
    f = fresh.place(fresh_ws, workers, none, m);
    CHECK(f.filtered_out == 2);
    CHECK(f.reason == r.reason);
    // A GPU added: update_worker cannot re-read that in place, so both checks refuse.
    workers[2].gpus.push_back({.index = 1, .vram_total_bytes = 80 * GiB});
    CHECK(headroom::test::rejected([&] { (void)place_kept(); }) == "workers");
    kept.index(kept_ws, workers, none, m);
    stale = stale_check::refuse;
    CHECK(place_kept().worker_id == 3);
    // A ranking on a kept index checks the same way.
    auto down = gpustack_scale_down_ranker(stale_check::refuse);
    workspace down_ws;
    down.index(down_ws, workers, none, m);
    workers[0].state = worker_state::ready;
    CHECK(headroom::test::rejected([&] { (void)down.rank(down_ws, workers); }) == "workers");
    CHECK(down_ws.update_worker(workers[0]));
    CHECK(down.rank(down_ws, workers).empty());
    // The default: checked (refused) in a debug build, trusted under NDEBUG.
#if defined(NDEBUG) || defined(HEADROOM_DISABLE_ASSERTS)
    CHECK(scheduler_options{}.stale == stale_check::none);
#else
    CHECK(scheduler_options{}.stale == stale_check::refuse);
#endif
  }
}

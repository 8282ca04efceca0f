// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/scheduler.hpp. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
//     -Iinclude tests/fuzz/scheduler.fuzz.cpp -o /tmp/fz_sched
//   /tmp/fz_sched -max_total_time=120 tests/fuzz/corpus/scheduler
// The input is a byte program (a byte read past the end is 0, so short inputs decode into
// small clusters): up to 32 workers (clusters, labels, every state, RAM total/reserved,
// per-GPU VRAM reserved on the worker, up to 8 GPUs with types and VRAM total/reserved:
// zeros, reserved > total, huge values, duplicate worker ids and GPU indices, empty GPU
// lists), up to 64 existing instances (on real or missing workers/GPUs, any claims, GPU
// types, subordinates, every state, layer metadata), a model request (cluster, selectors,
// explicit GPU selection with GPUs per replica and replicas, policy, local path, files,
// backend GPU types), an estimator (vLLM from weights, or from vllm_options: the need given
// directly, heads, vocabulary, tensor/pipeline parallel sizes, extended KV cache, utilization, RAM,
// distribution; or layered: layers and sizes, CPU allowed), fit options, then up to 16 steps
// that mutate the cluster (instances added and removed, bursts of up to 1 100 copies of one
// instance, workers updated or changed unannounced, placements committed). Schedulers with the
// gpustack and the default chains (grouped listing) and the gpustack preset (gpustack chain +
// gpustack listing and pick), static (filter_chain, scorer_chain) and dynamic
// (dynamic_filter_chain, dynamic_scorer_chain), decide fresh (place with the instances) and on
// kept indexes (kept current with add_instance / remove_instance / update_worker / commit);
// scale_down_rankers rank (full and with a count) fresh and kept. Invariants, on every decision:
//  * no crash, UB or hang; an invalid estimator argument (utilization outside (0, 1], zero heads or
//    layers, a tensor-parallel size not dividing heads or vocabulary) throws
//    headroom::invalid_argument and ends the input; so does a manual selection whose GPUs
//    per replica differ from the world size (gpustack listing); workers with one id or a
//    worker listing one GPU index twice throw naming "workers" when indexed (the harness
//    then renumbers them and goes on); a worker changed without update_worker throws naming
//    "workers" under stale_check::refuse exactly when its record or filter verdict would
//    change, and is re-read under stale_check::refresh; nothing else throws;
//  * filtered_out and the "no placement" reason agree with the harness's own filters
//    (re-implemented here on the raw structs); a chosen placement's workers pass every
//    filter, each checked on its own;
//  * every claim of a chosen placement names a GPU of its part's worker (once) and is
//    honoured by an explicit selection; with the grouped listing it fits the allocatable
//    VRAM (total − reserved − Σ claims of instances on the GPU), recomputed here from the raw
//    cluster in 128-bit arithmetic, and the main worker's RAM claim fits its allocatable RAM
//    likewise; with the gpustack listing (no manual selection) it fits the allocatable VRAM
//    GPUStack's fit sees for the GPU's type (claims of instances of another type left out);
//    a vLLM placement claims ⌊utilization × total⌋ per GPU, covers the need (the manual selection's
//    over-commit excepted) with a GPU count (per worker when distributed under gpustack)
//    that divides heads and vocabulary; a layered placement claims exactly VRAM(L) / RAM(L);
//  * when the harness itself finds a single-GPU fit (sizes below 2^52), the grouped listing
//    finds one too (stage 1 is never missed);
//  * the gpustack preset picks the first candidate with the highest total;
//  * static and dynamic chains decide identically (score bit for bit); the kept indexes
//    (one committing, one adding the placed instance) decide like a fresh index;
//  * scale down returns each of the model's instances exactly once, ascending by score
//    (ties: earlier first), static = dynamic = kept; with a count the result is the full
//    ranking's prefix, in order.
#include <headroom/scheduler.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace hr = headroom::scheduling;
using i128 = __int128;

[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "scheduler fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INV(cond)                   \
  do {                                      \
    if (!(cond)) violated(#cond, __LINE__); \
  } while (false)

class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : std::uint8_t{0}; }
  std::uint64_t u64() noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  /// A byte quantity: mostly whole GiB, sometimes MiB, zero or anything up to 2^64 − 1.
  std::uint64_t bytes() noexcept {
    const std::uint8_t mode = byte();
    switch (mode % 16) {
      case 0:
        return 0;
      case 1:
        return std::uint64_t{byte()} * (std::uint64_t{1} << 20) * 64;
      case 2:
        return u64();
      case 3: {
        constexpr std::array<std::uint64_t, 6> huge{std::numeric_limits<std::uint64_t>::max(),
                                                    std::uint64_t{1} << 63,
                                                    (std::uint64_t{1} << 63) - 1,
                                                    std::uint64_t{1} << 62,
                                                    std::uint64_t{1} << 53,
                                                    (std::uint64_t{1} << 52) - 1};
        return huge[byte() % huge.size()];
      }
      default:
        return std::uint64_t{byte()} * hr::gib_bytes;
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

constexpr std::array<const char*, 4> gpu_types{"H100", "A100", "L4", "MI300"};

struct fz_gpu {
  std::uint32_t index = 0;
  std::string type;
  std::uint64_t vram_total_bytes = 0;
  std::uint64_t vram_reserved_bytes = 0;
};
struct fz_worker {
  std::uint64_t id = 0;
  int cluster = 0;
  std::vector<std::pair<int, int>> labels;
  hr::worker_state state = hr::worker_state::ready;
  std::uint64_t ram_total_bytes = 0;
  std::uint64_t ram_reserved_bytes = 0;
  std::uint64_t vram_reserved_bytes = 0;  // on each of its GPUs
  std::vector<fz_gpu> gpus;
  std::vector<std::uint64_t> ready_files;
};
struct fz_sub {
  std::uint64_t worker_id = 0;
  std::vector<hr::gpu_claim> gpus;
  std::uint64_t ram_bytes = 0;
};
struct fz_instance {
  std::uint64_t id = 0;
  std::uint64_t model_id = 0;
  std::optional<std::uint64_t> worker_id;
  hr::instance_state state = hr::instance_state::running;
  std::uint64_t ram_bytes = 0;
  std::vector<hr::gpu_claim> gpus;
  std::vector<fz_sub> subordinates;
  std::string gpu_type;
  std::uint32_t total_layers = 0, offload_layers = 0;
};
struct fz_model {
  std::uint64_t id = 1;
  int cluster = 0;
  std::vector<std::pair<int, int>> selectors;
  std::vector<hr::gpu_ref> gpu_selection;
  std::uint32_t gpus_per_replica = 0, replicas = 1;
  hr::placement_policy placement = hr::placement_policy::binpack;
  bool local_path = false;
  std::uint64_t files = 0, draft_files = 0;
  std::uint8_t backend_types = 0;  // bit t: GPU type t runs the backend; bit 4: CPU; 0 = any
  std::uint8_t path_salt = 0;
};

static_assert(hr::Worker<fz_worker> && hr::Instance<fz_instance> &&
              hr::ModelRequestFor<fz_model, fz_worker>);

// The caller's predicates (pure functions of worker and model).
struct backend_ok {
  bool operator()(const fz_worker& w, const fz_model& m) const noexcept {
    if (m.backend_types == 0) return true;
    if (w.gpus.empty()) return (m.backend_types & 16u) != 0;
    for (const fz_gpu& g : w.gpus)
      for (std::size_t t = 0; t < gpu_types.size(); ++t)
        if (g.type == gpu_types[t] && (m.backend_types & (1u << t)) != 0) return true;
    return false;
  }
};
struct path_ok {
  bool operator()(const fz_worker& w, const fz_model& m) const noexcept {
    return (w.id + m.path_salt) % 3 != 0;
  }
};

// ---- decoding ---------------------------------------------------------------------------------

std::uint64_t worker_id_of(reader& in) {
  const std::uint8_t b = in.byte();
  return b < 240 ? std::uint64_t{b} % 40 : in.u64();
}

fz_worker decode_worker(reader& in) {
  fz_worker w;
  w.id = worker_id_of(in);
  w.cluster = in.byte() % 3 == 0 ? 1 : 0;
  for (std::uint8_t n = in.byte() % 3; n > 0; --n) w.labels.emplace_back(in.byte() % 3, 0);
  w.state =
      in.byte() % 4 == 0 ? static_cast<hr::worker_state>(in.byte() % 9) : hr::worker_state::ready;
  w.ram_total_bytes = in.bytes();
  w.ram_reserved_bytes = in.byte() % 2 ? in.bytes() : 0;
  w.vram_reserved_bytes = in.byte() % 4 == 0 ? in.bytes() : 0;
  for (std::uint8_t n = in.byte() % 9; n > 0; --n) {
    fz_gpu g;
    g.index = in.byte() % 10;
    g.type = gpu_types[in.byte() % gpu_types.size()];
    g.vram_total_bytes = in.bytes();
    g.vram_reserved_bytes = in.byte() % 2 ? in.bytes() : 0;
    w.gpus.push_back(std::move(g));
  }
  for (std::uint8_t n = in.byte() % 3; n > 0; --n) w.ready_files.push_back(1 + in.byte() % 3);
  return w;
}

std::vector<hr::gpu_claim> decode_claims(reader& in) {
  std::vector<hr::gpu_claim> out;
  for (std::uint8_t n = in.byte() % 4; n > 0; --n) {
    const std::uint32_t index = in.byte() % 10;
    out.push_back({index, in.bytes()});
  }
  return out;
}

fz_instance decode_instance(reader& in, const std::vector<fz_worker>& workers, std::uint64_t id) {
  fz_instance i;
  i.id = id;
  i.model_id = in.byte() % 3 == 0 ? 2 : 1;
  const std::uint8_t where = in.byte();
  if (where % 8 == 0)
    i.worker_id = std::nullopt;
  else if (where % 8 == 1 || workers.empty())
    i.worker_id = worker_id_of(in);
  else
    i.worker_id = workers[in.byte() % workers.size()].id;
  i.state = static_cast<hr::instance_state>(in.byte() % 9);
  if (in.byte() % 3 == 0) i.gpu_type = gpu_types[in.byte() % gpu_types.size()];
  i.ram_bytes = in.byte() % 2 ? in.bytes() : 0;
  i.gpus = decode_claims(in);
  for (std::uint8_t n = in.byte() % 3; n > 0; --n) {
    fz_sub s;
    const std::uint8_t b = in.byte();
    s.worker_id =
        workers.empty() || b % 4 == 0 ? worker_id_of(in) : workers[in.byte() % workers.size()].id;
    s.gpus = decode_claims(in);
    s.ram_bytes = b % 2 ? in.bytes() : 0;
    i.subordinates.push_back(std::move(s));
  }
  if (in.byte() % 2) {
    i.total_layers = in.byte();
    i.offload_layers = in.byte();
  }
  return i;
}

// ---- the harness's own model of the cluster ------------------------------------------------

/// First worker with this id (how instances and selections name workers), or npos.
constexpr std::size_t npos = static_cast<std::size_t>(-1);
std::size_t first_worker(const std::vector<fz_worker>& ws, std::uint64_t id) {
  for (std::size_t k = 0; k < ws.size(); ++k)
    if (ws[k].id == id) return k;
  return npos;
}
std::size_t first_gpu(const fz_worker& w, std::uint32_t index) {
  for (std::size_t k = 0; k < w.gpus.size(); ++k)
    if (w.gpus[k].index == index) return k;
  return npos;
}

/// Allocatable VRAM per GPU and RAM per worker (total − reserved − Σ claims of the instances
/// there, RAM on the main worker only), in 128 bits.
struct allocatable {
  std::vector<std::vector<i128>> vram;  // [worker][gpu]
  std::vector<i128> ram;                // [worker]
};
allocatable compute_allocatable(const std::vector<fz_worker>& ws,
                                const std::vector<fz_instance>& is) {
  allocatable a;
  for (const fz_worker& w : ws) {
    a.ram.push_back(static_cast<i128>(w.ram_total_bytes) - static_cast<i128>(w.ram_reserved_bytes));
    std::vector<i128> v;
    for (const fz_gpu& g : w.gpus)
      v.push_back(static_cast<i128>(g.vram_total_bytes) - static_cast<i128>(g.vram_reserved_bytes) -
                  static_cast<i128>(w.vram_reserved_bytes));
    a.vram.push_back(std::move(v));
  }
  auto claim = [&](std::size_t w, const std::vector<hr::gpu_claim>& gpus) {
    for (const hr::gpu_claim& c : gpus) {
      const std::size_t g = first_gpu(ws[w], c.index);
      if (g != npos) a.vram[w][g] -= static_cast<i128>(c.vram_bytes);
    }
  };
  for (const fz_instance& i : is) {
    if (!i.worker_id) continue;
    const std::size_t w = first_worker(ws, *i.worker_id);
    if (w == npos) continue;
    a.ram[w] -= static_cast<i128>(i.ram_bytes);  // RAM on the main worker only
    claim(w, i.gpus);
    for (const fz_sub& s : i.subordinates) {
      const std::size_t sw = first_worker(ws, s.worker_id);
      if (sw != npos) claim(sw, s.gpus);
    }
  }
  return a;
}

/// The type GPUStack sees a worker with: the GPU type that appears last for the first time
/// (policies/utils.py::group_workers_by_gpu_type assigns each copy the shared status).
std::string effective_type(const fz_worker& w) {
  std::string t;
  for (std::size_t g = 0; g < w.gpus.size(); ++g) {
    bool first = true;
    for (std::size_t h = 0; h < g; ++h) first = first && w.gpus[h].type != w.gpus[g].type;
    if (first) t = w.gpus[g].type;
  }
  return t;
}
/// Allocatable VRAM per GPU (for the GPU's type) and RAM per worker (for its effective
/// type) as GPUStack's fit counts them (policies/utils.py::compute_worker_allocated): a main
/// instance counts when its type is unknown or the same, a subordinate when the same.
allocatable compute_gpustack_allocatable(const std::vector<fz_worker>& ws,
                                         const std::vector<fz_instance>& is) {
  allocatable a = compute_allocatable(ws, std::vector<fz_instance>{});
  auto claim = [&](std::size_t w, const std::vector<hr::gpu_claim>& gpus, const std::string& type,
                   bool main) {
    for (const hr::gpu_claim& c : gpus) {
      const std::size_t g = first_gpu(ws[w], c.index);
      if (g == npos) continue;
      const std::string& gt = ws[w].gpus[g].type;
      if (gt.empty() || type == gt || (main && type.empty()))
        a.vram[w][g] -= static_cast<i128>(c.vram_bytes);
    }
  };
  for (const fz_instance& i : is) {
    if (!i.worker_id) continue;
    const std::size_t w = first_worker(ws, *i.worker_id);
    if (w == npos) continue;
    const std::string wt = effective_type(ws[w]);
    if (wt.empty() || i.gpu_type.empty() || i.gpu_type == wt)
      a.ram[w] -= static_cast<i128>(i.ram_bytes);
    claim(w, i.gpus, i.gpu_type, true);
    for (const fz_sub& s : i.subordinates) {
      const std::size_t sw = first_worker(ws, s.worker_id);
      if (sw != npos) claim(sw, s.gpus, i.gpu_type, false);
    }
  }
  return a;
}

// The six filters, re-implemented on the raw structs (GPUStack's order).
bool pass_cluster(const fz_worker& w, const fz_model& m) { return w.cluster == m.cluster; }
bool pass_gpu_matching(const fz_worker& w, const fz_model& m) {
  if (m.gpu_selection.empty()) return true;
  return std::any_of(m.gpu_selection.begin(), m.gpu_selection.end(),
                     [&](const hr::gpu_ref& r) { return r.worker_id == w.id; });
}
bool pass_labels(const fz_worker& w, const fz_model& m) {
  for (const auto& s : m.selectors)
    if (std::find(w.labels.begin(), w.labels.end(), s) == w.labels.end()) return false;
  return true;
}
bool pass_state(const fz_worker& w, const fz_model&) { return w.state == hr::worker_state::ready; }
bool pass_backend(const fz_worker& w, const fz_model& m) { return backend_ok{}(w, m); }
bool pass_local_path(const fz_worker& w, const fz_model& m) {
  return !m.local_path || m.gpu_selection.empty() || path_ok{}(w, m);
}
bool passes_all(const fz_worker& w, const fz_model& m) {
  return pass_cluster(w, m) && pass_gpu_matching(w, m) && pass_labels(w, m) && pass_state(w, m) &&
         pass_backend(w, m) && pass_local_path(w, m);
}

// ---- results, copied out of the workspace -------------------------------------------------

struct snap_claim {
  std::uint32_t gpu_position, index;
  std::uint64_t vram;
  bool operator==(const snap_claim&) const = default;
};
struct snap_part {
  std::uint32_t worker_position;
  std::uint64_t ram;
  std::vector<snap_claim> claims;
  bool operator==(const snap_part&) const = default;
};
struct snapshot {
  bool placed = false;
  hr::fit_strategy strategy = hr::fit_strategy::none;
  hr::no_placement_reason reason = hr::no_placement_reason::none;
  std::size_t worker_position = 0, candidates = 0, filtered_out = 0;
  std::uint64_t worker_id = 0;
  double score = 0;
  std::uint32_t offload_layers = 0, total_layers = 0;
  bool overcommit = false;
  std::vector<snap_part> parts;
};
snapshot snap(const hr::placement_result& r) {
  snapshot s;
  s.placed = static_cast<bool>(r);
  s.strategy = r.strategy;
  s.reason = r.reason;
  s.filtered_out = r.filtered_out;
  if (!r) return s;
  s.worker_position = r.worker_position;
  s.worker_id = r.worker_id;
  s.candidates = r.candidates;
  s.score = r.score;
  s.offload_layers = r.chosen.offload_layers;
  s.total_layers = r.chosen.total_layers;
  s.overcommit = r.chosen.overcommit;
  for (const hr::placement_part& p : r.parts) {
    snap_part sp{p.worker_position, p.ram_bytes, {}};
    for (const hr::claim_record& c : r.claims_of(p))
      sp.claims.push_back({c.gpu_position, c.index, c.vram_bytes});
    s.parts.push_back(std::move(sp));
  }
  return s;
}
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
void require_same(const snapshot& a, const snapshot& b) {
  REQUIRE_INV(a.placed == b.placed);
  REQUIRE_INV(a.reason == b.reason);
  REQUIRE_INV(a.filtered_out == b.filtered_out);
  if (!a.placed) return;
  REQUIRE_INV(a.strategy == b.strategy);
  REQUIRE_INV(a.worker_position == b.worker_position && a.worker_id == b.worker_id);
  REQUIRE_INV(same_bits(a.score, b.score));
  REQUIRE_INV(a.candidates == b.candidates);
  REQUIRE_INV(a.offload_layers == b.offload_layers && a.total_layers == b.total_layers);
  REQUIRE_INV(a.overcommit == b.overcommit);
  REQUIRE_INV(a.parts == b.parts);
}

struct ranking {
  std::vector<std::size_t> positions;
  std::vector<std::uint64_t> ids;
  std::vector<double> scores;
};
ranking copy_ranking(std::span<const hr::ranked_instance> r) {
  ranking out;
  for (const hr::ranked_instance& x : r) {
    out.positions.push_back(x.position);
    out.ids.push_back(x.id);
    out.scores.push_back(x.score);
  }
  return out;
}
void require_same_order(const ranking& a, const ranking& b, std::size_t n) {
  REQUIRE_INV(a.ids.size() >= n && b.ids.size() >= n);
  for (std::size_t k = 0; k < n; ++k) {
    REQUIRE_INV(a.ids[k] == b.ids[k]);
    REQUIRE_INV(same_bits(a.scores[k], b.scores[k]));
  }
}

// ---- estimators and what they promise --------------------------------------------------------

struct vllm_spec {
  std::uint64_t weights = 0, ram = 0;  // weights: 0 when the need is given directly
  i128 need = 0;                       // VRAM the placement must cover
  double utilization = 0.9;
  std::uint32_t heads = 1, vocab = 0, tp = 0, pp = 0;
  hr::extended_kv_cache kv{};
  /// The world size (GPUs per replica): tp × pp when either is set, else 0.
  [[nodiscard]] std::uint32_t world() const {
    return tp == 0 && pp == 0 ? 0 : std::max(tp, 1u) * std::max(pp, 1u);
  }
  /// n GPUs split the heads and the vocabulary (each when known).
  [[nodiscard]] bool divides(std::uint32_t n) const {
    return n > 0 && (heads == 0 || heads % n == 0) && (vocab == 0 || vocab % n == 0);
  }
  /// RAM a worker must hold (the fixed extended-KV-cache size).
  [[nodiscard]] std::uint64_t ram_need() const { return kv.enabled ? kv.ram_size_bytes : 0; }
  /// RAM a part of a gpustack placement claims given its VRAM claims.
  [[nodiscard]] std::uint64_t part_ram(std::uint64_t vram) const {
    if (!kv.enabled) return 0;
    if (kv.ram_size_bytes > 0) return kv.ram_size_bytes;
    if (!(kv.ram_ratio > 0)) return 0;
    const double r = static_cast<double>(vram) * kv.ram_ratio;
    return r >= 18446744073709551616.0 ? std::numeric_limits<std::uint64_t>::max()
                                       : static_cast<std::uint64_t>(r);
  }
};
struct layered_spec {
  std::uint32_t layers = 1;
  std::uint64_t layer_vram = 0, fixed_vram = 0, layer_ram = 0, fixed_ram = 0;
  /// VRAM(L) and RAM(L) in 128 bits (no wrap-around).
  [[nodiscard]] i128 vram(std::uint32_t l) const {
    return l == 0 ? 0 : static_cast<i128>(fixed_vram) + static_cast<i128>(l) * layer_vram;
  }
  [[nodiscard]] i128 ram(std::uint32_t l) const {
    return static_cast<i128>(fixed_ram) +
           static_cast<i128>(layers - std::min(l, layers)) * layer_ram;
  }
};

struct state {
  std::vector<fz_worker> workers;
  std::vector<fz_instance> instances;
  fz_model model;
  hr::scheduler_options options;
  std::uint64_t next_id = 1;
};

// The estimator-specific promises of a chosen placement.
void check_estimator(const snapshot& s, const vllm_spec& v, const std::vector<fz_worker>& ws,
                     const std::vector<std::size_t>& gpu_worker,
                     const std::vector<std::size_t>& gpu_slot, hr::candidate_listing listing) {
  std::uint32_t n = 0;
  i128 sum = 0;
  for (const snap_part& p : s.parts) {
    i128 part = 0;
    for (const snap_claim& c : p.claims) {
      ++n;
      part += c.vram;
      const double total = static_cast<double>(
          ws[gpu_worker[c.gpu_position]].gpus[gpu_slot[c.gpu_position]].vram_total_bytes);
      REQUIRE_INV(c.vram ==
                  static_cast<std::uint64_t>(v.utilization * total));  // ⌊utilization × total⌋
    }
    sum += part;
    if (listing == hr::candidate_listing::gpustack && part < (i128{1} << 64))
      REQUIRE_INV(p.ram == v.part_ram(static_cast<std::uint64_t>(part)));
  }
  REQUIRE_INV(n >= 1);
  if (listing == hr::candidate_listing::grouped) {
    REQUIRE_INV(v.divides(n) && (v.world() == 0 || n == v.world()));
    REQUIRE_INV(sum >= v.need);
    REQUIRE_INV(s.parts[0].ram == v.ram_need());
    for (std::size_t p = 1; p < s.parts.size(); ++p) REQUIRE_INV(s.parts[p].ram == 0);
    return;
  }
  if (s.strategy == hr::fit_strategy::manual) {
    REQUIRE_INV(s.overcommit || sum >= v.need);
    return;
  }
  REQUIRE_INV(!s.overcommit && sum >= v.need);
  if (s.strategy == hr::fit_strategy::distributed) {
    const std::size_t per = s.parts[0].claims.size();
    for (const snap_part& p : s.parts) REQUIRE_INV(p.claims.size() == per);
    REQUIRE_INV(v.divides(static_cast<std::uint32_t>(per)));
    REQUIRE_INV(v.world() == 0 || n == v.world());
  } else {
    REQUIRE_INV(s.parts.size() == 1);
    REQUIRE_INV(v.divides(n));
    if (n == 1) {
      REQUIRE_INV(v.world() <= 1);
    } else {
      // _find_single_worker_multi_gpu_full_offloading_candidates skips the counts that fail
      // _is_tp_size_divisible before it compares with the world size: with one set, the
      // first count at or above it that divides the heads and the vocabulary.
      REQUIRE_INV(v.world() != 1 && n >= v.world());
      for (std::uint32_t m = std::max(v.world(), 2u); m < n && v.world() != 0; ++m)
        REQUIRE_INV(!v.divides(m));
    }
  }
}
void check_estimator(const snapshot& s, const layered_spec& l, const std::vector<fz_worker>&,
                     const std::vector<std::size_t>&, const std::vector<std::size_t>&,
                     hr::candidate_listing) {
  REQUIRE_INV(s.parts.size() == 1);
  const snap_part& p = s.parts[0];
  switch (s.strategy) {
    case hr::fit_strategy::single_gpu:
      REQUIRE_INV(p.claims.size() == 1);
      REQUIRE_INV(static_cast<i128>(p.claims[0].vram) == l.vram(l.layers));
      REQUIRE_INV(static_cast<i128>(p.ram) == l.ram(l.layers));
      break;
    case hr::fit_strategy::partial_offload:
      REQUIRE_INV(p.claims.size() == 1);
      REQUIRE_INV(s.offload_layers >= 1 && s.offload_layers <= l.layers);
      REQUIRE_INV(s.total_layers == l.layers);
      REQUIRE_INV(static_cast<i128>(p.claims[0].vram) == l.vram(s.offload_layers));
      REQUIRE_INV(static_cast<i128>(p.ram) == l.ram(s.offload_layers));
      break;
    case hr::fit_strategy::cpu_only:
      REQUIRE_INV(p.claims.empty());
      REQUIRE_INV(static_cast<i128>(p.ram) == l.ram(0));
      break;
    default:
      violated("a layered estimator placed with multi_gpu or distributed", __LINE__);
  }
}

/// true iff the harness finds a single-GPU fit on its own (only judged with sizes < 2^52).
bool oracle_single_gpu(const state& st, const allocatable& a, const vllm_spec& v) {
  if (!v.divides(1) || v.world() > 1) return false;
  for (std::size_t w = 0; w < st.workers.size(); ++w) {
    const fz_worker& wk = st.workers[w];
    if (!passes_all(wk, st.model)) continue;
    if (v.ram_need() != 0 && a.ram[w] < static_cast<i128>(v.ram_need())) continue;
    for (std::size_t g = 0; g < wk.gpus.size(); ++g) {
      if (!st.model.gpu_selection.empty()) {
        if (first_worker(st.workers, wk.id) != w || first_gpu(wk, wk.gpus[g].index) != g) continue;
        const bool selected =
            std::any_of(st.model.gpu_selection.begin(), st.model.gpu_selection.end(),
                        [&](const hr::gpu_ref& r) {
                          return r.worker_id == wk.id && r.index == wk.gpus[g].index;
                        });
        if (!selected) continue;
      }
      const double claim = v.utilization * static_cast<double>(wk.gpus[g].vram_total_bytes);
      if (claim < 1.0 || static_cast<double>(a.vram[w][g]) < claim) continue;
      if (static_cast<i128>(static_cast<std::uint64_t>(claim)) >= v.need) return true;
    }
  }
  return false;
}
bool oracle_single_gpu(const state&, const allocatable&, const layered_spec&) { return false; }

bool sizes_small(const state& st, std::uint64_t extra) {
  constexpr std::uint64_t lim = std::uint64_t{1} << 52;
  if (extra >= lim) return false;
  for (const fz_worker& w : st.workers) {
    if (w.ram_total_bytes >= lim || w.ram_reserved_bytes >= lim) return false;
    for (const fz_gpu& g : w.gpus)
      if (g.vram_total_bytes >= lim || g.vram_reserved_bytes >= lim) return false;
  }
  for (const fz_instance& i : st.instances) {
    if (i.ram_bytes >= lim) return false;
    for (const auto& c : i.gpus)
      if (c.vram_bytes >= lim) return false;
    for (const fz_sub& s : i.subordinates)
      for (const auto& c : s.gpus)
        if (c.vram_bytes >= lim) return false;
  }
  return true;
}

/// Every invariant of one decision made on the current cluster.
template <class Spec>
void check_decision(const snapshot& s, const state& st, const Spec& spec, bool judge_oracle,
                    hr::candidate_listing listing = hr::candidate_listing::grouped) {
  const bool gpustack = listing == hr::candidate_listing::gpustack;
  const std::vector<fz_worker>& ws = st.workers;
  const fz_model& m = st.model;
  std::size_t failing = 0;
  for (const fz_worker& w : ws) failing += passes_all(w, m) ? 0u : 1u;
  REQUIRE_INV(s.filtered_out == failing);
  const allocatable a = gpustack ? compute_gpustack_allocatable(ws, st.instances)
                                 : compute_allocatable(ws, st.instances);
  if (!gpustack && judge_oracle && oracle_single_gpu(st, a, spec))
    REQUIRE_INV(s.placed && s.strategy == hr::fit_strategy::single_gpu);
  if (!s.placed) {
    REQUIRE_INV(s.reason != hr::no_placement_reason::none);
    if (ws.empty())
      REQUIRE_INV(s.reason == hr::no_placement_reason::no_workers);
    else if (failing == ws.size())
      REQUIRE_INV(s.reason == hr::no_placement_reason::all_filtered);
    else
      REQUIRE_INV(s.reason == hr::no_placement_reason::insufficient_resources);
    return;
  }
  REQUIRE_INV(s.reason == hr::no_placement_reason::none);
  REQUIRE_INV(!s.parts.empty() && s.candidates >= 1);
  REQUIRE_INV(s.worker_position == s.parts[0].worker_position && s.worker_position < ws.size());
  REQUIRE_INV(s.worker_id == ws[s.worker_position].id);
  // GPU positions in the workspace follow the workers' GPU lists in order.
  std::vector<std::size_t> gpu_worker, gpu_slot;
  for (std::size_t w = 0; w < ws.size(); ++w)
    for (std::size_t g = 0; g < ws[w].gpus.size(); ++g) {
      gpu_worker.push_back(w);
      gpu_slot.push_back(g);
    }
  std::vector<bool> used_gpu(gpu_worker.size(), false), used_worker(ws.size(), false);
  for (std::size_t p = 0; p < s.parts.size(); ++p) {
    const snap_part& part = s.parts[p];
    REQUIRE_INV(part.worker_position < ws.size());
    REQUIRE_INV(!used_worker[part.worker_position]);  // a worker takes one part
    used_worker[part.worker_position] = true;
    const fz_worker& w = ws[part.worker_position];
    // every basic filter, each on its own
    REQUIRE_INV(pass_cluster(w, m));
    REQUIRE_INV(pass_gpu_matching(w, m));
    REQUIRE_INV(pass_labels(w, m));
    REQUIRE_INV(pass_state(w, m));
    REQUIRE_INV(pass_backend(w, m));
    REQUIRE_INV(pass_local_path(w, m));
    REQUIRE_INV(hr::cluster_filter{}(w, m).pass && hr::gpu_matching_filter{}(w, m).pass &&
                hr::label_filter{}(w, m).pass && hr::state_filter{}(w, m).pass &&
                hr::backend_filter{backend_ok{}}(w, m).pass &&
                hr::local_path_filter{path_ok{}}(w, m).pass);
    if (gpustack) {
      // GPUStack's parts claim RAM by the extended KV cache, unchecked but for its fixed size.
      if constexpr (std::is_same_v<Spec, vllm_spec>)
        if (s.strategy != hr::fit_strategy::manual && spec.ram_need() > 0 &&
            (p == 0 || s.strategy == hr::fit_strategy::distributed))
          REQUIRE_INV(static_cast<i128>(spec.ram_need()) <= a.ram[part.worker_position]);
    } else if (p == 0) {  // RAM is claimed on the main worker only
      REQUIRE_INV(part.ram == 0 || static_cast<i128>(part.ram) <= a.ram[part.worker_position]);
    } else {
      REQUIRE_INV(part.ram == 0);
      REQUIRE_INV(!part.claims.empty());
    }
    for (const snap_claim& c : part.claims) {
      REQUIRE_INV(c.gpu_position < gpu_worker.size());
      REQUIRE_INV(gpu_worker[c.gpu_position] ==
                  part.worker_position);       // a GPU of this part's worker
      REQUIRE_INV(!used_gpu[c.gpu_position]);  // claimed once
      used_gpu[c.gpu_position] = true;
      const fz_gpu& g = w.gpus[gpu_slot[c.gpu_position]];
      REQUIRE_INV(c.index == g.index);
      if (!gpustack || s.strategy != hr::fit_strategy::manual)  // a manual pick may over-commit
        REQUIRE_INV(static_cast<i128>(c.vram) <=
                    a.vram[part.worker_position][gpu_slot[c.gpu_position]]);
      if (!m.gpu_selection.empty())
        REQUIRE_INV(std::any_of(
            m.gpu_selection.begin(), m.gpu_selection.end(),
            [&](const hr::gpu_ref& r) { return r.worker_id == w.id && r.index == g.index; }));
    }
  }
  REQUIRE_INV(s.strategy != hr::fit_strategy::cpu_only || m.gpu_selection.empty());
  if (gpustack) REQUIRE_INV((s.strategy == hr::fit_strategy::manual) == !m.gpu_selection.empty());
  check_estimator(s, spec, ws, gpu_worker, gpu_slot, listing);
}

/// Scale down: a permutation of the model's instances, ascending, ties by position.
void check_ranking(const ranking& r, const state& st) {
  std::vector<std::size_t> mine;
  for (std::size_t k = 0; k < st.instances.size(); ++k)
    if (st.instances[k].model_id == st.model.id) mine.push_back(k);
  REQUIRE_INV(r.positions.size() == mine.size());
  std::vector<std::size_t> sorted = r.positions;
  std::sort(sorted.begin(), sorted.end());
  REQUIRE_INV(sorted == mine);  // each exactly once
  for (std::size_t k = 0; k < r.positions.size(); ++k) {
    REQUIRE_INV(r.ids[k] == st.instances[r.positions[k]].id);
    REQUIRE_INV(!std::isnan(r.scores[k]));
    if (k > 0)
      REQUIRE_INV(r.scores[k - 1] < r.scores[k] ||
                  (r.scores[k - 1] == r.scores[k] && r.positions[k - 1] < r.positions[k]));
  }
}

// ---- the run ------------------------------------------------------------------------------

struct chains {
  decltype(hr::basic_filters(backend_ok{}, path_ok{})) filters =
      hr::basic_filters(backend_ok{}, path_ok{});
  hr::dynamic_filter_chain<fz_worker, fz_model> dyn_filters;
  decltype(hr::gpustack_scale_up_chain()) gs_up = hr::gpustack_scale_up_chain();
  decltype(hr::default_scale_up_chain()) df_up = hr::default_scale_up_chain();
  decltype(hr::gpustack_scale_down_chain()) gs_down = hr::gpustack_scale_down_chain();
  decltype(hr::default_scale_down_chain()) df_down = hr::default_scale_down_chain();
  hr::dynamic_scale_up_chain dyn_gs_up{hr::normalization::none};
  hr::dynamic_scale_up_chain dyn_df_up{hr::normalization::min_max};
  hr::dynamic_scale_down_chain dyn_gs_down{hr::normalization::none};
  hr::dynamic_scale_down_chain dyn_df_down{hr::normalization::min_max};
  chains() {
    dyn_filters.add(hr::cluster_filter{})
        .add(hr::gpu_matching_filter{})
        .add(hr::label_filter{})
        .add(hr::state_filter{})
        .add(hr::backend_filter{backend_ok{}})
        .add(hr::local_path_filter{path_ok{}});
    dyn_gs_up.add("placement", 1, hr::placement_scorer{.max_score = 100})
        .add("model_file_locality", 1, hr::locality_scorer{.max_score = 5});
    dyn_df_up
        .add("best_fit", 1, hr::gated<hr::best_fit_scorer>{.when = hr::placement_policy::binpack})
        .add("anti_affinity", 1,
             hr::gated<hr::anti_affinity_scorer>{.when = hr::placement_policy::spread})
        .add("least_allocated", 0.5,
             hr::gated<hr::least_allocated_scorer>{.when = hr::placement_policy::spread})
        .add("model_file_locality", 0.1, hr::locality_scorer{.max_score = 100});
    dyn_gs_down.add("state", 1, hr::state_scorer{.max_score = 100})
        .add("offload_layers", 1, hr::offload_layer_scorer{.max_score = 10})
        .add("placement", 1,
             hr::placement_retention_scorer{.max_score = 1, .view = hr::instance_view::model_only});
    dyn_df_down.add("state", 1, hr::state_scorer{.max_score = 100})
        .add("offload_layers", 0.1, hr::offload_layer_scorer{.max_score = 100})
        .add("placement", 0.01, hr::placement_retention_scorer{.max_score = 100});
  }
};

using filters_t = decltype(hr::basic_filters(backend_ok{}, path_ok{}));
using dyn_filters_t = hr::dynamic_filter_chain<fz_worker, fz_model>;
template <class E, class Chain>
using static_up = hr::scheduler<filters_t&, const E&, Chain&>;
template <class E>
using dynamic_up = hr::scheduler<dyn_filters_t&, const E&, hr::dynamic_scale_up_chain&>;
template <class Chain>
using static_down = hr::scale_down_ranker<Chain&>;
using dynamic_down = hr::scale_down_ranker<hr::dynamic_scale_down_chain&>;

/// One configuration in its four forms: static and dynamic (filters and chain), fresh
/// (indexing the cluster for every decision) and kept (indexed once, kept current).
template <class Static, class Dynamic>
struct forms {
  Static fresh, kept;
  Dynamic fresh_dyn, kept_dyn;
  hr::workspace fresh_ws, kept_ws, fresh_dyn_ws, kept_dyn_ws;  // one per policy
};
/// Every decision maker of one input: the gpustack chain, the default chain and the
/// gpustack preset scaling up, both scale-down chains. The kept default scheduler is kept
/// current by commit, every other kept one by add_instance of what it commits.
template <class E>
struct deciders {
  using gs_up_t = decltype(hr::gpustack_scale_up_chain());
  using df_up_t = decltype(hr::default_scale_up_chain());
  using gs_down_t = decltype(hr::gpustack_scale_down_chain());
  using df_down_t = decltype(hr::default_scale_down_chain());
  forms<static_up<E, gs_up_t>, dynamic_up<E>> gs, preset;
  forms<static_up<E, df_up_t>, dynamic_up<E>> df;
  forms<static_down<gs_down_t>, dynamic_down> gs_down;
  forms<static_down<df_down_t>, dynamic_down> df_down;

  deciders(chains& c, const E& e, const hr::scheduler_options& o)
      : gs(up(c.filters, c.dyn_filters, e, c.gs_up, c.dyn_gs_up, o)),
        preset(up(c.filters, c.dyn_filters, e, c.gs_up, c.dyn_gs_up, preset_options(o))),
        df(up(c.filters, c.dyn_filters, e, c.df_up, c.dyn_df_up, o)),
        gs_down(down(c.gs_down, c.dyn_gs_down, o.stale)),
        df_down(down(c.df_down, c.dyn_df_down, o.stale)) {}

  /// GPUStack's listing and pick, with the input's other options.
  static hr::scheduler_options preset_options(const hr::scheduler_options& o) {
    hr::scheduler_options p{.fit = hr::gpustack_fit_options(), .stale = o.stale};
    p.fit.max_subordinates = o.fit.max_subordinates;  // not read by this listing
    return p;
  }
  template <class Chain>
  static forms<static_up<E, Chain>, dynamic_up<E>> up(filters_t& f, dyn_filters_t& df, const E& e,
                                                      Chain& chain, hr::dynamic_scale_up_chain& dyn,
                                                      const hr::scheduler_options& o) {
    return {{f, e, chain, o}, {f, e, chain, o}, {df, e, dyn, o}, {df, e, dyn, o}, {}, {}, {}, {}};
  }
  template <class Chain>
  static forms<static_down<Chain>, dynamic_down> down(Chain& chain,
                                                      hr::dynamic_scale_down_chain& dyn,
                                                      hr::stale_check stale) {
    return {static_down<Chain>(chain, stale),
            static_down<Chain>(chain, stale),
            dynamic_down(dyn, stale),
            dynamic_down(dyn, stale),
            {},
            {},
            {},
            {}};
  }
  /// Every kept index but the committing one (df.kept).
  std::array<hr::workspace*, 9> kept_by_adding() {
    return {&gs.kept_ws,          &gs.kept_dyn_ws,  &preset.kept_ws,
            &preset.kept_dyn_ws,  &df.kept_dyn_ws,  &gs_down.kept_ws,
            &gs_down.kept_dyn_ws, &df_down.kept_ws, &df_down.kept_dyn_ws};
  }
  /// Every kept index.
  std::array<hr::workspace*, 10> kept() {
    std::array<hr::workspace*, 10> all{&df.kept_ws};
    const auto others = kept_by_adding();
    std::copy(others.begin(), others.end(), all.begin() + 1);
    return all;
  }
  /// Indexes every kept decision maker afresh.
  void reindex(const state& st) {
    gs.kept.index(gs.kept_ws, st.workers, st.instances, st.model);
    preset.kept.index(preset.kept_ws, st.workers, st.instances, st.model);
    gs.kept_dyn.index(gs.kept_dyn_ws, st.workers, st.instances, st.model);
    preset.kept_dyn.index(preset.kept_dyn_ws, st.workers, st.instances, st.model);
    df.kept_dyn.index(df.kept_dyn_ws, st.workers, st.instances, st.model);
    df.kept.index(df.kept_ws, st.workers, st.instances, st.model);
    gs_down.kept.index(gs_down.kept_ws, st.workers, st.instances, st.model);
    df_down.kept.index(df_down.kept_ws, st.workers, st.instances, st.model);
    gs_down.kept_dyn.index(gs_down.kept_dyn_ws, st.workers, st.instances, st.model);
    df_down.kept_dyn.index(df_down.kept_dyn_ws, st.workers, st.instances, st.model);
  }
  /// Sets the stale check of every kept decision maker.
  void set_stale(hr::stale_check stale) {
    for (auto* s : {&gs.kept, &preset.kept}) s->options().stale = stale;
    for (auto* s : {&gs.kept_dyn, &preset.kept_dyn, &df.kept_dyn}) s->options().stale = stale;
    df.kept.options().stale = stale;
    gs_down.kept.stale() = stale;
    df_down.kept.stale() = stale;
    gs_down.kept_dyn.stale() = df_down.kept_dyn.stale() = stale;
  }
};

bool worker_id_used(const std::vector<fz_worker>& ws, std::uint64_t id) {
  return std::any_of(ws.begin(), ws.end(), [&](const fz_worker& w) { return w.id == id; });
}
bool gpu_index_used(const fz_worker& w, std::uint32_t index) {
  return std::any_of(w.gpus.begin(), w.gpus.end(),
                     [&](const fz_gpu& g) { return g.index == index; });
}
/// An index no GPU of w has (below 10 when one is free, as the decoder draws them).
std::uint32_t free_gpu_index(const fz_worker& w, std::uint32_t wanted) {
  while (gpu_index_used(w, wanted)) ++wanted;
  return wanted;
}
/// Ids name one worker and indices one GPU of a worker: a cluster that breaks this is
/// refused by name when indexed; then later duplicates get fresh ids and indices.
void require_unique_names(std::vector<fz_worker>& ws, const std::vector<fz_instance>& is,
                          const fz_model& m) {
  bool duplicated = false;
  for (std::size_t k = 0; k < ws.size() && !duplicated; ++k)
    for (std::size_t j = 0; j < k && !duplicated; ++j) duplicated = ws[j].id == ws[k].id;
  for (const fz_worker& w : ws)
    for (std::size_t k = 0; k < w.gpus.size() && !duplicated; ++k)
      for (std::size_t j = 0; j < k && !duplicated; ++j)
        duplicated = w.gpus[j].index == w.gpus[k].index;
  if (!duplicated) return;
  hr::workspace probe;
  try {
    probe.index(ws, is, m);
    violated("a worker id or GPU index named twice was indexed", __LINE__);
  } catch (const headroom::invalid_argument& x) {
    REQUIRE_INV(std::string_view(x.parameter()) == "workers");
  }
  REQUIRE_INV(probe.workers().empty());  // left empty, not half built
#ifdef HEADROOM_FUZZ_TRACE
  std::fprintf(stderr, "duplicate names refused\n");
#endif
  std::vector<fz_worker> renamed;
  for (fz_worker w : ws) {
    std::uint64_t id = w.id;
    while (worker_id_used(renamed, id)) id += 40;
    w.id = id;
    fz_worker kept_gpus;
    for (fz_gpu& g : w.gpus) {
      g.index = free_gpu_index(kept_gpus, g.index);
      kept_gpus.gpus.push_back(g);
    }
    w.gpus = std::move(kept_gpus.gpus);
    renamed.push_back(std::move(w));
  }
  ws = std::move(renamed);
}

/// Checks an explanation against the harness's filters.
void check_explanation(const hr::explanation& why, const state& st, const snapshot& s) {
  std::size_t by_filter = 0;
  for (const hr::rejection& r : why.rejected) {
    REQUIRE_INV(r.worker_position < st.workers.size() &&
                r.worker_id == st.workers[r.worker_position].id);
    const bool passes = passes_all(st.workers[r.worker_position], st.model);
    if (r.filter != "resource_fit") ++by_filter;
    REQUIRE_INV(passes == (r.filter == "resource_fit"));
  }
  REQUIRE_INV(by_filter == s.filtered_out);
}

/// A scale-up configuration: fresh static (explained or not), checked; the other three
/// forms decide the same.
template <class Forms, class Spec>
snapshot decide_up(Forms& f, const state& st, const Spec& spec, bool judge, bool explain,
                   hr::candidate_listing listing = hr::candidate_listing::grouped) {
  const auto& [ws, is, m] = std::tie(st.workers, st.instances, st.model);
  snapshot s;
  if (explain) {
    const auto [r, why] = f.fresh.explain(f.fresh_ws, ws, is, m);
    s = snap(r);
    check_explanation(why, st, s);
  } else {
    s = snap(f.fresh.place(f.fresh_ws, ws, is, m));
  }
  check_decision(s, st, spec, judge, listing);
  require_same(s, snap(f.fresh_dyn.place(f.fresh_dyn_ws, ws, is, m)));
  require_same(s, snap(f.kept.place(f.kept_ws, ws, m)));
  require_same(s, snap(f.kept_dyn.place(f.kept_dyn_ws, ws, m)));
  return s;
}

/// The gpustack preset: GPUStack's listing and pick (vLLM estimators only).
template <class E, class Spec>
void decide_preset(deciders<E>& d, const state& st, const Spec& spec) {
  const auto& [ws, is, m] = std::tie(st.workers, st.instances, st.model);
  const std::uint32_t count = m.gpus_per_replica != 0
                                  ? m.gpus_per_replica
                                  : static_cast<std::uint32_t>(m.gpu_selection.size());
  const bool refused = !m.gpu_selection.empty() && spec.world() != 0 && spec.world() != count;
  std::size_t eligible = 0;
  for (const fz_worker& wk : ws) eligible += passes_all(wk, m) ? 1u : 0u;
  if (refused && eligible > 0) {
    // GPUStack's _set_gpu_count refuses the model: invalid_argument naming gpus_per_replica.
    try {
      (void)d.preset.fresh.place(d.preset.fresh_ws, ws, is, m);
      violated("a selection whose size differs from the world size was accepted", __LINE__);
    } catch (const headroom::invalid_argument& x) {
      REQUIRE_INV(std::string_view(x.parameter()) == "gpus_per_replica");
    }
    return;
  }
  const snapshot gp = decide_up(d.preset, st, spec, false, false, hr::candidate_listing::gpustack);
  if (!gp.placed) return;
  // The first candidate with the highest total wins (the fresh schedulers decided last).
  const hr::scored_candidates sc =
      hr::score_candidates(d.preset.fresh.chain(), d.preset.fresh_ws, hr::tie_break::first_listed);
  REQUIRE_INV(sc.totals.size() == gp.candidates);
  for (std::size_t k = 0; k < sc.totals.size(); ++k)
    REQUIRE_INV(k < sc.best ? sc.totals[k] < sc.totals[sc.best]
                            : sc.totals[k] <= sc.totals[sc.best]);
  REQUIRE_INV(same_bits(sc.totals[sc.best], gp.score));
}

/// Scale down with one chain, full and with a count, in its four forms.
template <class Forms>
void decide_down(Forms& f, const state& st, std::size_t count) {
  const auto& [ws, is, m] = std::tie(st.workers, st.instances, st.model);
  std::size_t mine = 0;
  for (const fz_instance& i : is) mine += i.model_id == m.id ? 1u : 0u;
  const ranking full = copy_ranking(f.fresh.rank(f.fresh_ws, ws, is, m));
  check_ranking(full, st);
  require_same_order(full, copy_ranking(f.fresh_dyn.rank(f.fresh_dyn_ws, ws, is, m)), mine);
  require_same_order(full, copy_ranking(f.kept.rank(f.kept_ws, ws)), mine);
  const ranking part = copy_ranking(f.fresh.rank(f.fresh_ws, ws, is, m, count));
  REQUIRE_INV(part.ids.size() == std::min(count, mine));
  require_same_order(full, part, part.ids.size());
  for (std::size_t k = 0; k < part.ids.size(); ++k)
    REQUIRE_INV(part.positions[k] == full.positions[k]);
  const ranking kept = copy_ranking(f.kept_dyn.rank(f.kept_dyn_ws, ws, count));
  REQUIRE_INV(kept.ids.size() == part.ids.size());
  require_same_order(full, kept, kept.ids.size());
}

template <class E, class Spec>
void decide_all(const state& st, deciders<E>& d, const Spec& spec, reader& in) {
  const bool judge = sizes_small(st, 0) && [&] {
    if constexpr (std::is_same_v<Spec, vllm_spec>)
      return spec.need < (i128{1} << 52) && spec.ram_need() < (std::uint64_t{1} << 52);
    else
      return true;
  }();
  const bool explain = in.byte() % 4 == 0;
  const snapshot gs = decide_up(d.gs, st, spec, judge, explain);
#ifdef HEADROOM_FUZZ_TRACE  // -DHEADROOM_FUZZ_TRACE: what an input decodes into
  std::fprintf(stderr, "%zu workers, %zu instances: %s (%s), worker id %llu, %zu candidates\n",
               st.workers.size(), st.instances.size(),
               std::string(hr::to_string(gs.strategy)).c_str(),
               std::string(hr::to_string(gs.reason)).c_str(),
               static_cast<unsigned long long>(gs.worker_id), gs.candidates);
#endif
  const snapshot df = decide_up(d.df, st, spec, judge, false);
  REQUIRE_INV(df.placed == gs.placed && df.strategy == gs.strategy);  // the same fit ladder
  if constexpr (hr::GpustackEstimator<E>) decide_preset(d, st, spec);
  // scale down, both chains, full and with a count
  std::size_t mine = 0;
  for (const fz_instance& i : st.instances) mine += i.model_id == st.model.id ? 1u : 0u;
  const std::size_t replicas = in.byte() % (mine + 2);
  const std::uint8_t other = in.byte();  // a count that removes nothing in particular
  const std::size_t count = mine > replicas ? mine - replicas : other % (mine + 2);
  decide_down(d.gs_down, st, count);
  decide_down(d.df_down, st, count);
}

/// Places with the default chain on the committing index and records the new instance.
template <class E>
void place_and_commit(state& st, deciders<E>& d) {
  const hr::placement_result r = d.df.kept.place(d.df.kept_ws, st.workers, st.model);
  if (!r) return;
  fz_instance placed;
  placed.id = st.next_id++;
  placed.model_id = st.model.id;
  placed.worker_id = r.worker_id;
  placed.ram_bytes = r.parts[0].ram_bytes;
  placed.total_layers = r.chosen.total_layers;
  placed.offload_layers = r.chosen.offload_layers;
  for (std::size_t p = 0; p < r.parts.size(); ++p) {
    const fz_worker& wk = st.workers[r.parts[p].worker_position];
    std::vector<hr::gpu_claim> claims;
    for (const hr::claim_record& cl : r.claims_of(r.parts[p]))
      claims.push_back({.index = cl.index, .vram_bytes = cl.vram_bytes});
    if (p == 0)
      placed.gpus = std::move(claims);
    else
      placed.subordinates.push_back({.worker_id = wk.id, .gpus = std::move(claims)});
  }
  d.df.kept.commit(d.df.kept_ws, r);
  for (hr::workspace* w : d.kept_by_adding()) w->add_instance(placed);
  st.instances.push_back(std::move(placed));
}

/// What a worker's record in the index is read from, as the index counts it (byte
/// quantities up to 2^53), and its filter verdict: a change to any of them without
/// update_worker is what stale_check looks for.
struct worker_reading {
  hr::worker_state state{};
  std::uint64_t ram_total = 0;
  i128 ram_base = 0;
  std::vector<std::uint64_t> gpu_totals;
  std::vector<i128> gpu_bases;
  bool main_files = false, draft_files = false, passes = false;
  bool operator==(const worker_reading&) const = default;
};
i128 counted(std::uint64_t v) { return std::min<i128>(v, i128{1} << 53); }
worker_reading reading_of(const fz_worker& w, const fz_model& m) {
  worker_reading r;
  r.state = w.state;
  r.ram_total = w.ram_total_bytes;
  r.ram_base = counted(w.ram_total_bytes) - counted(w.ram_reserved_bytes);
  for (const fz_gpu& g : w.gpus) {
    r.gpu_totals.push_back(g.vram_total_bytes);
    r.gpu_bases.push_back(counted(g.vram_total_bytes) - counted(g.vram_reserved_bytes) -
                          counted(w.vram_reserved_bytes));
  }
  const auto ready = [&](std::uint64_t key) {
    return key != 0 &&
           std::find(w.ready_files.begin(), w.ready_files.end(), key) != w.ready_files.end();
  };
  r.main_files = ready(m.files);
  r.draft_files = ready(m.draft_files);
  r.passes = passes_all(w, m);
  return r;
}

/// Changes worker wk as the input says (never its id); true iff its GPU list changed shape.
bool mutate_worker(fz_worker& wk, reader& in) {
  const std::uint8_t what = in.byte();
  if (what & 1u) wk.state = static_cast<hr::worker_state>(in.byte() % 9);
  if (what & 128u) wk.vram_reserved_bytes = in.byte() % 2 ? in.bytes() : 0;
  if (what & 2u) wk.ram_total_bytes = in.bytes();
  if (what & 4u) wk.ram_reserved_bytes = in.bytes();
  if ((what & 8u) && !wk.gpus.empty()) {
    fz_gpu& g = wk.gpus[in.byte() % wk.gpus.size()];
    g.vram_total_bytes = in.bytes();
    g.vram_reserved_bytes = in.byte() % 2 ? in.bytes() : 0;
  }
  if (what & 16u) {
    wk.ready_files.clear();
    if (in.byte() % 2) wk.ready_files.push_back(1 + in.byte() % 3);
  }
  if (what & 64u) wk.cluster = in.byte() % 3 == 0 ? 1 : 0;  // read by a filter only
  if ((what & 32u) && wk.gpus.size() < 8) {
    const auto index = free_gpu_index(wk, static_cast<std::uint32_t>(in.byte() % 10));
    wk.gpus.push_back({index, "L4", in.bytes(), 0});
    return true;
  }
  return false;
}

/// A worker changed without update_worker: stale_check::refuse throws exactly when what the
/// index or the filters read changed (nothing is updated then), stale_check::refresh re-reads
/// it and decides as a fresh index; every kept index ends current.
template <class E>
void unannounced_change(state& st, deciders<E>& d, reader& in) {
  if (st.workers.empty()) return;
  fz_worker& wk = st.workers[in.byte() % st.workers.size()];
  const worker_reading before = reading_of(wk, st.model);
  if (mutate_worker(wk, in)) wk.gpus.pop_back();  // another GPU shape is refused by both
  const bool visible = !(reading_of(wk, st.model) == before);
  d.set_stale(hr::stale_check::refuse);
  bool refused = false;
  try {
    (void)d.df.kept.place(d.df.kept_ws, st.workers, st.model);
  } catch (const headroom::invalid_argument& x) {
    REQUIRE_INV(std::string_view(x.parameter()) == "workers");
    refused = true;
  }
  REQUIRE_INV(refused == visible);
#ifdef HEADROOM_FUZZ_TRACE
  std::fprintf(stderr, "unannounced change: %s\n", visible ? "refused" : "invisible");
#endif
  // Refreshed, every kept decision maker decides as a fresh one (decide_all checks), and
  // is current again: refuse finds nothing.
  d.set_stale(hr::stale_check::refresh);
  const snapshot fresh = snap(d.df.fresh.place(d.df.fresh_ws, st.workers, st.instances, st.model));
  require_same(fresh, snap(d.df.kept.place(d.df.kept_ws, st.workers, st.model)));
  require_same(fresh, snap(d.df.kept_dyn.place(d.df.kept_dyn_ws, st.workers, st.model)));
  (void)d.gs.kept.place(d.gs.kept_ws, st.workers, st.model);
  (void)d.gs.kept_dyn.place(d.gs.kept_dyn_ws, st.workers, st.model);
  if constexpr (hr::GpustackEstimator<E>) {  // the preset needs one; refused selections throw
    try {
      (void)d.preset.kept.place(d.preset.kept_ws, st.workers, st.model);
      (void)d.preset.kept_dyn.place(d.preset.kept_dyn_ws, st.workers, st.model);
    } catch (const headroom::invalid_argument& x) {
      REQUIRE_INV(std::string_view(x.parameter()) == "gpus_per_replica");
    }
  } else {  // re-read without deciding
    for (hr::workspace* w : {&d.preset.kept_ws, &d.preset.kept_dyn_ws})
      for (const fz_worker& each : st.workers) (void)w->update_worker(each);
  }
  (void)d.gs_down.kept.rank(d.gs_down.kept_ws, st.workers);
  (void)d.df_down.kept.rank(d.df_down.kept_ws, st.workers);
  (void)d.gs_down.kept_dyn.rank(d.gs_down.kept_dyn_ws, st.workers);
  (void)d.df_down.kept_dyn.rank(d.df_down.kept_dyn_ws, st.workers);
  d.set_stale(hr::stale_check::refuse);
  (void)d.df.kept.place(d.df.kept_ws, st.workers, st.model);
  (void)d.gs_down.kept.rank(d.gs_down.kept_ws, st.workers);
  d.set_stale(st.options.stale);
}

/// Up to 1 100 copies of one instance (sums of claims far beyond 2^63 bytes on a GPU or a
/// worker must saturate, never wrap), added to every kept index.
template <class E>
void burst(state& st, deciders<E>& d, reader& in) {
  const fz_instance model_instance = decode_instance(in, st.workers, 0);
  const std::size_t copies = 1 + (std::size_t{in.byte()} << 8 | in.byte()) % 1100;
#ifdef HEADROOM_FUZZ_TRACE
  std::fprintf(stderr, "burst of %zu\n", copies);
#endif
  for (std::size_t k = 0; k < copies; ++k) {
    fz_instance i = model_instance;
    i.id = st.next_id++;
    for (hr::workspace* w : d.kept()) w->add_instance(i);
    st.instances.push_back(std::move(i));
  }
}

template <class E, class Spec>
void run(state& st, reader& in, const E& e, const Spec& spec) {
  chains c;
  deciders<E> d(c, e, st.options);
  d.reindex(st);
  decide_all(st, d, spec, in);
  bool burst_done = false;
  for (std::uint8_t steps = in.byte() % 17; steps > 0; --steps) {
    switch (in.byte() % 8) {
      case 0: {  // a new instance appears
        if (st.instances.size() >= 80) break;
        st.instances.push_back(decode_instance(in, st.workers, st.next_id++));
        for (hr::workspace* w : d.kept()) w->add_instance(st.instances.back());
        break;
      }
      case 1: {  // an instance goes away
        if (st.instances.empty()) break;
        const std::size_t k = in.byte() % st.instances.size();
        for (hr::workspace* w : d.kept()) w->remove_instance(st.instances[k]);
        st.instances.erase(st.instances.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
      case 2: {  // a worker changes and the kept indexes are told
        if (st.workers.empty()) break;
        fz_worker& wk = st.workers[in.byte() % st.workers.size()];
        const bool reshaped = mutate_worker(wk, in);
        for (hr::workspace* w : d.kept()) REQUIRE_INV(w->update_worker(wk) == !reshaped);
        if (reshaped) d.reindex(st);
        break;
      }
      case 3:
      case 4:
        place_and_commit(st, d);
        break;
      case 5:
        unannounced_change(st, d, in);
        break;
      case 6:
        if (burst_done) break;
        burst_done = true;
        burst(st, d, in);
        break;
      default:
        break;
    }
    decide_all(st, d, spec, in);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in(data, size);
  state st;
  for (std::uint8_t n = in.byte() % 33; n > 0; --n) st.workers.push_back(decode_worker(in));
  for (std::uint8_t n = in.byte() % 65; n > 0; --n)
    st.instances.push_back(decode_instance(in, st.workers, st.next_id++));
  fz_model& m = st.model;
  m.cluster = in.byte() % 3 == 0 ? 1 : 0;
  for (std::uint8_t n = in.byte() % 3; n > 0; --n) m.selectors.emplace_back(in.byte() % 3, 0);
  if (in.byte() % 3 == 0)
    for (std::uint8_t n = 1 + in.byte() % 4; n > 0; --n) {
      const std::uint8_t b = in.byte();
      const std::uint64_t id = st.workers.empty() || b % 4 == 0
                                   ? worker_id_of(in)
                                   : st.workers[b % st.workers.size()].id;
      m.gpu_selection.push_back({id, static_cast<std::uint32_t>(in.byte() % 10)});
    }
  m.placement = in.byte() % 2 ? hr::placement_policy::spread : hr::placement_policy::binpack;
  m.local_path = in.byte() % 4 == 0;
  m.files = in.byte() % 4;
  m.draft_files = in.byte() % 4;
  m.backend_types = in.byte() % 3 == 0 ? in.byte() % 32 : 0;
  m.path_salt = in.byte();
  m.gpus_per_replica = in.byte() % 4 == 0 ? in.byte() % 5 : 0;
  m.replicas = 1 + in.byte() % 3;
  st.options.fit.max_subordinates = in.byte() % 10;
  // Kept indexes trust the harness's update_worker calls, or re-read every worker.
  st.options.stale = in.byte() % 4 == 0 ? hr::stale_check::refresh : hr::stale_check::none;
  require_unique_names(st.workers, st.instances, st.model);

  if (in.byte() % 4 != 0) {
    vllm_spec v;
    constexpr std::array<double, 10> utilizations{
        0.9, 0.5, 1.0, 0.95, 0.25, 1e-12, 0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()};
    const std::uint8_t g = in.byte();
    v.utilization =
        g < 200 ? utilizations[g % utilizations.size()] : static_cast<double>(g - 199) / 50.0;
    const auto distributed = in.byte() % 2 != 0 ? hr::distributed_inference::across_workers
                                                : hr::distributed_inference::single_worker;
    std::optional<hr::vllm_estimator> e;
    if (in.byte() % 3 != 0) {  // from weights
      v.weights = in.bytes();
      v.heads = in.byte() % 9 == 0 ? 0u : std::uint32_t{in.byte()} % 65;
      v.ram = in.byte() % 2 ? in.bytes() : 0;
      v.kv = {v.ram != 0, v.ram, 0.0};
      const double scaled = static_cast<double>(v.weights) * 1.2;  // ⌊weights × 1.2⌋ + 2 GiB
      const i128 base = scaled >= 18446744073709551616.0
                            ? i128{std::numeric_limits<std::uint64_t>::max()}
                            : static_cast<i128>(static_cast<std::uint64_t>(scaled));
      v.need = std::min<i128>(base + static_cast<i128>(2 * hr::gib_bytes),
                              i128{std::numeric_limits<std::uint64_t>::max()});
      const bool valid = v.utilization > 0 && v.utilization <= 1 && v.heads >= 1;
      try {
        e.emplace(v.weights, v.utilization, v.heads, v.ram, distributed);
      } catch (const headroom::invalid_argument&) {
        REQUIRE_INV(!valid);
        return 0;
      }
      REQUIRE_INV(valid);
    } else {  // GPUStack's inputs, the need given directly
      hr::vllm_options o;
      o.required_vram_bytes = in.bytes();
      o.gpu_memory_utilization = v.utilization;
      o.attention_heads = in.byte() % 4 == 0 ? 0u : std::uint32_t{in.byte()} % 129;
      o.vocab_size = in.byte() % 2 ? 0u : 32000u + std::uint32_t{in.byte()} * 8;
      o.tensor_parallel_size = in.byte() % 3 == 0 ? 1u << (in.byte() % 5) : 0u;
      o.pipeline_parallel_size = in.byte() % 5 == 0 ? 1u + in.byte() % 3 : 0u;
      o.distributed = distributed;
      o.kv_cache.enabled = in.byte() % 3 == 0;
      o.kv_cache.ram_size_bytes = in.byte() % 2 ? in.bytes() : 0;
      constexpr std::array<double, 5> ratios{1.2, 0.0, 2.5, -1.0,
                                             std::numeric_limits<double>::quiet_NaN()};
      o.kv_cache.ram_ratio = ratios[in.byte() % ratios.size()];
      v.need = o.required_vram_bytes;
      v.heads = o.attention_heads;
      v.vocab = o.vocab_size;
      v.tp = o.tensor_parallel_size;
      v.pp = o.pipeline_parallel_size;
      v.kv = o.kv_cache;
      const bool valid = v.utilization > 0 && v.utilization <= 1 && o.kv_cache.ram_ratio >= 0 &&
                         (v.tp == 0 || v.divides(v.tp));
      try {
        e.emplace(o);
      } catch (const headroom::invalid_argument&) {
        REQUIRE_INV(!valid);
        return 0;
      }
      REQUIRE_INV(valid);
    }
    run(st, in, *e, v);
  } else {
    layered_spec l;
    l.layers = std::uint32_t{in.byte()} % 100;
    l.layer_vram = in.bytes() / 64;
    l.fixed_vram = in.bytes();
    l.layer_ram = in.bytes() / 64;
    l.fixed_ram = in.bytes();
    const hr::cpu_fallback cpu =
        in.byte() % 2 != 0 ? hr::cpu_fallback::allowed : hr::cpu_fallback::forbidden;
    std::optional<hr::layered_estimator> e;
    try {
      e.emplace(hr::layered_options{.total_layers = l.layers,
                                    .layer_vram_bytes = l.layer_vram,
                                    .fixed_vram_bytes = l.fixed_vram,
                                    .layer_ram_bytes = l.layer_ram,
                                    .fixed_ram_bytes = l.fixed_ram,
                                    .cpu = cpu});
    } catch (const headroom::invalid_argument&) {
      REQUIRE_INV(l.layers == 0);
      return 0;
    }
    REQUIRE_INV(l.layers >= 1);
    run(st, in, *e, l);
  }
  return 0;
}

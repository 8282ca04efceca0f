// SPDX-License-Identifier: Apache-2.0
// The kept index. The workspace reads the caller's workers and instances (through the
// traits) into flat records: allocatable VRAM per GPU and RAM per worker (total − reserved −
// claims of existing instances; RAM on the main worker only; each quantity counted up to
// 8 PiB, every sum kept exactly and read saturated), instance counts per worker and GPU,
// GPU types, file readiness, the explicit GPU selection. It is kept current incrementally
// (add_instance, remove_instance, update_worker, commit), so that decisions read the index
// instead of the cluster; once its buffers have grown to the cluster's size, indexing,
// updating and deciding allocate nothing. The candidate listings that run on it live in
// scheduler/fit.hpp and scheduler/gpustack_fit.hpp.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/byte_counts.hpp"
#include "../error.hpp"
#include "diagnostics.hpp"
#include "traits.hpp"
#include "view.hpp"
#include "workspace_parts.hpp"
#include "workspace_state.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {

/// What an index is for: scale down also records the indexed model's instances (for the
/// ranking) and the allocatable amounts their claims alone leave (GPUStack's scale-down
/// view).
enum class index_for : std::uint8_t { scale_up, scale_down };

namespace detail {
template <class E>
class grouped_listing;
template <class E>
class gpustack_listing;
}  // namespace detail

/// The persistent index of one model's cluster, and the scratch of its decisions. The
/// scheduler object (scheduler/configured.hpp) owns one; a caller may keep it current
/// directly. Positions follow the caller's ranges: worker w of the index is the w-th worker.
class workspace : private detail::workspace_state {
 public:
  /// Indexes workers and instances for model m: allocatable RAM/VRAM, counts, GPU types,
  /// files, explicit GPU selection (and, for scale down, m's instances). Throws
  /// invalid_argument naming "workers" for two workers with one id or a worker listing a
  /// GPU index twice, and "instances" for two recorded instances with one id (the
  /// workspace is then left empty).
  template <class Workers, class Instances, class M>
  void index(const Workers& workers, const Instances& instances, const M& m,
             index_for purpose = index_for::scale_up) {
    if constexpr (detail::diagnose_cluster<Workers, Instances, M>()) {
      begin_index(m, purpose);
      for (const auto& w : workers) index_worker(w);
      index_ids();
      index_selection(m);
      begin_counting();
      indexing_ = true;
      for (const auto& i : instances) count_instance(i, count_change::in);
      indexing_ = false;
      end_index();
    }
  }

  /// Reads a model-file table kept beside the workers (GPUStack's model_files): a worker
  /// holds the model's (or the draft model's) files READY when a READY row names it and
  /// the key; a READY draft row naming any worker (indexed or not) makes the draft count as
  /// available somewhere (the locality scorer's draft weight). Replaces the table read by
  /// an earlier call; what worker_traits::files_ready says still counts. Call it after
  /// index() (which forgets the table) and whenever the table changes.
  template <class Files>
  void index_files(const Files& files) {
    if constexpr (detail::diagnose_model_files<Files>()) {
      drop_candidates();
      read_file_table(files);
      for (std::uint32_t w = 0; w < workers_.size(); ++w) {
        worker_record& r = workers_[w];
        set_files(w, {.main = r.main_files || (table_files_[w] & main_bit) != 0,
                      .draft = r.draft_files || (table_files_[w] & draft_bit) != 0});
      }
    }
  }

  /// Counts a new instance into the index, as index() would have counted it: subtracts its
  /// RAM (main worker) and VRAM claims, counts it per worker and GPU. Indexed for scale
  /// down, an instance of the indexed model is recorded too, at the position after every
  /// recorded one (another with its id → invalid_argument naming "instances"). Claims on
  /// workers or GPUs not in the index are ignored. Invalidates the last candidates.
  template <class I>
  void add_instance(const I& inst) {
    if constexpr (detail::diagnose_instance<I>()) {
      refuse_recorded_twin(inst);
      drop_candidates();
      count_instance(inst, count_change::in);
      instance_parts_ = parts_.size();
      instance_claims_ = claims_.size();
    }
  }

  /// Removes an instance counted by index() or add_instance(): gives its RAM/VRAM claims
  /// back and uncounts it (and drops its record when recorded). Pass it as it was counted.
  /// Invalidates the last candidates.
  template <class I>
  void remove_instance(const I& inst) {
    if constexpr (detail::diagnose_instance<I>()) {
      drop_candidates();
      count_instance(inst, count_change::out);
    }
  }

  /// Re-reads one indexed worker (matched by id): state, RAM and VRAM totals/reserved,
  /// file readiness, and queues it for the filters at the next decision (which otherwise
  /// reuses its cached verdict); claims and counts are kept. Call it whenever anything a
  /// filter or the index reads about the worker changed. Returns false, changing nothing,
  /// when the id is not indexed or its GPUs (count, indices or types) changed: index()
  /// again then.
  template <class W>
  bool update_worker(const W& w) {
    if constexpr (detail::diagnose_worker<W>()) {
      using WT = worker_traits<W>;
      const std::uint32_t pos = find_worker(static_cast<std::uint64_t>(WT::id(w)));
      if (pos == no_position || !same_gpus(w, pos)) return false;
      drop_candidates();
      const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
      std::uint32_t g = workers_[pos].gpu_begin;
      for (const auto& gpu : WT::gpus(w)) {
        using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
        gpus_[g].total_bytes = GT::vram_total_bytes(gpu);
        rebase_gpu(g, vram_base_of(gpu, worker_reserved));
        ++g;
      }
      worker_record& r = workers_[pos];
      r.ram_total_bytes = WT::ram_total_bytes(w);
      rebase_ram(pos, detail::counted_bytes(r.ram_total_bytes) -
                          detail::counted_bytes(WT::ram_reserved_bytes(w)));
      r.state = WT::state(w);
      set_files(pos, {.main = reads_main_files(w, pos), .draft = reads_draft_files(w, pos)});
      refresh_worker(pos);
      verdicts_.queue(pos, workers_.size());
      return true;
    }
    return false;
  }

  /// true iff re-reading worker w (the caller's worker at position pos) would leave its
  /// record as it is: same id, state, RAM and VRAM totals and reservations (as counted),
  /// GPU indices and types, and file readiness. What update_worker would change, read
  /// without changing anything (stale_check).
  template <class W>
  [[nodiscard]] bool matches(const W& w, std::uint32_t pos) const noexcept {
    if constexpr (detail::diagnose_worker<W>()) {
      using WT = worker_traits<W>;
      const worker_record& r = workers_[pos];
      if (r.id != static_cast<std::uint64_t>(WT::id(w)) || r.state != WT::state(w) ||
          r.ram_total_bytes != WT::ram_total_bytes(w) ||
          ram_base_[pos] != detail::counted_bytes(r.ram_total_bytes) -
                                detail::counted_bytes(WT::ram_reserved_bytes(w)) ||
          !same_gpus(w, pos))
        return false;
      const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
      std::uint32_t g = r.gpu_begin;
      for (const auto& gpu : WT::gpus(w)) {
        using GT = gpu_traits<std::remove_cvref_t<decltype(gpu)>>;
        if (gpus_[g].total_bytes != GT::vram_total_bytes(gpu) ||
            vram_base_[g] != vram_base_of(gpu, worker_reserved))
          return false;
        ++g;
      }
      return reads_main_files(w, pos) == r.main_files && reads_draft_files(w, pos) == r.draft_files;
    }
    return false;
  }

  /// Forgets the cached filter verdicts: the next decision runs the filter chain on every
  /// worker again. Call it when something the filters read changed without an
  /// update_worker of the worker concerned (the filter chain's own configuration, the
  /// model request in place, a backend or path predicate's outside state). index() does it.
  void refilter() noexcept { verdicts_.forget(); }

  /// Commits a candidate as if it were now an instance of the indexed model: subtracts its
  /// claims and counts it, so that several placements can be chosen in a row. (The same as
  /// add_instance() of the placed instance: do one or the other, not both.)
  HEADROOM_DECL void commit(const candidate& c);

  /// Replaces the candidates with placements the caller lists (scored and picked by
  /// score_candidates, scheduler/decision.hpp), in the caller's order. Each is read
  /// through placement_traits: a main worker id, its GPU claims and RAM claim, and
  /// subordinates. Throws invalid_argument naming "placements" for a worker id or a GPU
  /// index that is not indexed.
  template <class Placements>
  void set_candidates(const Placements& placements) {
    if constexpr (detail::diagnose_placements<Placements>()) {
      using PT = placement_traits<std::ranges::range_value_t<Placements>>;
      drop_candidates();
      std::uint64_t item = 0;
      for (const auto& p : placements) {
        const auto begin = static_cast<std::uint32_t>(parts_.size());
        given_part(PT::worker_id(p), PT::gpus(p), PT::ram_bytes(p), item);
        for (const auto& sub : PT::subordinates(p)) {
          using ST = subordinate_traits<std::remove_cvref_t<decltype(sub)>>;
          given_part(ST::worker_id(sub), ST::gpus(sub), ST::ram_bytes(sub), item);
        }
        candidates_.push_back({.part_begin = begin,
                               .part_count = static_cast<std::uint32_t>(parts_.size()) - begin,
                               .strategy = fit_strategy::given});
        ++item;
      }
    }
  }

  /// The view scorers read.
  [[nodiscard]] HEADROOM_DECL cluster_view view() const noexcept;
  /// The text of GPU type id t (gpu_record::type, worker_record::type); "" = untyped.
  [[nodiscard]] std::string_view type_name(std::uint16_t t) const noexcept {
    return types_.name(t);
  }
  /// true iff id is the identity of the model the workspace was indexed for.
  template <ModelId K>
  [[nodiscard]] bool indexed_for(const K& id) const noexcept {
    return model_key_.matches(id);
  }
  /// Indexed workers (same order as the caller's range).
  [[nodiscard]] std::span<const worker_record> workers() const noexcept { return workers_; }
  /// Indexed GPUs.
  [[nodiscard]] std::span<const gpu_record> gpus() const noexcept { return gpus_; }
  /// Candidates of the last fit (or of set_candidates).
  [[nodiscard]] std::span<const candidate> candidates() const noexcept { return candidates_; }
  /// Instances of the model recorded by an index for scale down.
  [[nodiscard]] std::span<const instance_record> instances() const noexcept { return instances_; }
  using detail::workspace_state::find_gpu;
  using detail::workspace_state::find_worker;
  /// true iff worker w takes part in some candidate of the last fit.
  [[nodiscard]] HEADROOM_DECL bool in_some_candidate(std::uint32_t w) const noexcept;

  /// true iff the worker ids increase with position (a decision's tie rule then compares
  /// positions instead of reading the ids).
  [[nodiscard]] bool ids_ascending() const noexcept { return sorted_ids_; }
  /// The filter-verdict cache a decision keeps in the workspace (scheduler/decision.hpp).
  [[nodiscard]] detail::verdict_cache& verdicts() noexcept { return verdicts_; }
  /// Marks whether worker w passed the filters (a decision does).
  HEADROOM_DECL void set_eligible(std::uint32_t w, bool eligible) noexcept;
  using detail::workspace_state::drop_candidates;

  /// Column buffers the chains use for per-scorer scores (one column per scorer of a
  /// static chain) and totals (grown, never shrunk).
  std::vector<double> column, totals;
  /// The scale-down ranking of the last ranking.
  std::vector<ranked_instance> ranked;

 private:
  template <class E>
  friend class detail::grouped_listing;
  template <class E>
  friend class detail::gpustack_listing;

  enum class count_change : std::uint8_t { in, out };  // an instance counted in, or out
  enum class part_role : std::uint8_t { main, subordinate };
  // How one instance is counted (count_part).
  struct instance_count {
    count_change change = count_change::in;
    bool own_model = false;   // an instance of the indexed model
    bool keep_parts = false;  // recorded: its parts and claims are kept (scale down)
    std::uint16_t gpu_type = 0;
  };

  // ---- index() stages ----
  template <class M>
  void begin_index(const M& m, index_for purpose) {
    using MT = model_traits<M>;
    workers_.clear();
    gpus_.clear();
    parts_.clear();
    claims_.clear();
    instances_.clear();
    candidates_.clear();
    dense_candidates_ = false;
    ram_base_.clear();
    vram_base_.clear();
    model_key_.assign(MT::id(m));
    files_ = MT::files(m);
    draft_ = MT::draft_files(m);
    policy_ = MT::placement(m);
    gpus_per_replica_ = MT::gpus_per_replica(m);
    replicas_ = MT::replicas(m);
    draft_ready_count_ = 0;
    table_draft_ready_ = false;
    sorted_ids_ = true;
    recording_ = purpose == index_for::scale_down;
    next_position_ = 0;
    types_.clear();
    verdicts_.forget();
  }
  template <class W>
  void index_worker(const W& w) {
    using WT = worker_traits<W>;
    worker_record r{.id = WT::id(w), .ram_total_bytes = WT::ram_total_bytes(w)};
    r.ram_alloc_bytes =
        detail::counted_bytes(r.ram_total_bytes) - detail::counted_bytes(WT::ram_reserved_bytes(w));
    r.state = WT::state(w);
    r.main_files = files_ != 0 && WT::files_ready(w, files_);
    r.draft_files = draft_ != 0 && WT::files_ready(w, draft_);
    draft_ready_count_ += r.draft_files ? 1u : 0u;
    r.gpu_begin = static_cast<std::uint32_t>(gpus_.size());
    const auto pos = static_cast<std::uint32_t>(workers_.size());
    const std::int64_t worker_reserved = detail::counted_bytes(WT::vram_reserved_bytes(w));
    std::uint64_t low_indices = 0;  // bit i: GPU index i (< 64) seen on this worker
    for (const auto& g : WT::gpus(w)) {
      using GT = gpu_traits<std::remove_cvref_t<decltype(g)>>;
      gpu_record gr{
          .index = GT::index(g), .worker_position = pos, .total_bytes = GT::vram_total_bytes(g)};
      if (index_seen(r.gpu_begin, gr.index, low_indices)) refuse_duplicate_gpu(r.id, gr.index);
      gr.type = types_.intern(GT::type(g));
      gr.alloc_bytes = vram_base_of(g, worker_reserved);
      gpus_.push_back(gr);
      vram_base_.push_back(gr.alloc_bytes);
    }
    r.gpu_count = static_cast<std::uint32_t>(gpus_.size()) - r.gpu_begin;
    r.type = effective_type(r);
    if (!workers_.empty() && workers_.back().id >= r.id) {
      if (workers_.back().id == r.id) refuse_duplicate_worker(r.id);
      sorted_ids_ = false;
    }
    workers_.push_back(r);
    ram_base_.push_back(r.ram_alloc_bytes);
  }
  // Ids in increasing order are found by binary search over the records; others through a
  // sorted copy, which also finds two workers with one id.
  HEADROOM_DECL void index_ids();
  template <class M>
  void index_selection(const M& m) {
    selection_.clear();
    for (const auto& ref : model_traits<M>::gpu_selection(m)) {
      using RT = gpu_ref_traits<std::remove_cvref_t<decltype(ref)>>;
      const std::uint32_t w = find_worker(RT::worker_id(ref));
      const std::uint32_t g = w == no_position ? no_position : find_gpu(w, RT::index(ref));
      if (g != no_position) gpus_[g].selected = true;
      selection_.push_back(g);
    }
    has_selection_ = !selection_.empty();
  }
  HEADROOM_DECL void begin_counting();
  HEADROOM_DECL void end_index();

  // ---- counting instances ----
  // Counts one instance in or out; records it when indexed for scale down and its own.
  template <class I>
  void count_instance(const I& inst, count_change change) {
    using IT = instance_traits<I>;
    const bool own = model_key_.matches(IT::model_id(inst));
    const instance_count how{.change = change,
                             .own_model = own,
                             .keep_parts = recording_ && own && change == count_change::in,
                             .gpu_type = types_.find(IT::gpu_type(inst))};
    if (change == count_change::out && recording_ && own) forget_record(IT::id(inst));
    const std::optional<std::uint64_t> wid = IT::worker_id(inst);
    const std::uint32_t w = wid ? find_worker(*wid) : no_position;
    const std::size_t first_part = parts_.size();
    if (w != no_position) {
      count_main_ram(w, detail::counted_bytes(IT::ram_bytes(inst)), how);
      const auto& subordinates = IT::subordinates(inst);
      const bool distributed = std::ranges::begin(subordinates) != std::ranges::end(subordinates);
      if (distributed) count_distributed(w, change);
      count_part(w, IT::gpus(inst), IT::ram_bytes(inst), how, part_role::main);
      for (const auto& sub : subordinates) {
        using ST = subordinate_traits<std::remove_cvref_t<decltype(sub)>>;
        const std::uint32_t sw = find_worker(ST::worker_id(sub));
        if (sw == no_position) continue;
        count_distributed(sw, change);
        count_part(sw, ST::gpus(sub), ST::ram_bytes(sub), how, part_role::subordinate);
      }
    }
    if (how.keep_parts) record_instance(inst, wid, first_part);
    if (change == count_change::in) ++next_position_;
  }
  template <class I>
  void record_instance(const I& inst, const std::optional<std::uint64_t>& worker,
                       std::size_t first_part) {
    using IT = instance_traits<I>;
    const std::optional<std::uint32_t> total = IT::total_layers(inst);
    const std::optional<std::uint32_t> offload = IT::offload_layers(inst);
    instances_.push_back({.position = next_position_,
                          .id = IT::id(inst),
                          .state = IT::state(inst),
                          .scheduled = worker.has_value(),
                          .part_begin = static_cast<std::uint32_t>(first_part),
                          .part_count = static_cast<std::uint32_t>(parts_.size() - first_part),
                          .has_layers = total.has_value() && offload.has_value(),
                          .total_layers = total.value_or(0),
                          .offload_layers = offload.value_or(0)});
  }
  HEADROOM_DECL void count_main_ram(std::uint32_t w, std::int64_t ram, const instance_count& how);
  HEADROOM_DECL void count_distributed(std::uint32_t w, count_change change) noexcept;
  template <class Claims>
  void count_part(std::uint32_t w, const Claims& gpu_claims, std::uint64_t ram,
                  const instance_count& how, part_role role) {
    placement_part part{.worker_position = w,
                        .claim_begin = static_cast<std::uint32_t>(claims_.size()),
                        .ram_bytes = ram};
    const bool in = how.change == count_change::in;
    std::uint32_t n = 0;
    for (const auto& cl : gpu_claims) {
      using CT = claim_traits<std::remove_cvref_t<decltype(cl)>>;
      const std::uint32_t index = CT::index(cl);
      const std::uint32_t g = find_gpu(w, index);
      ++n;
      if (g == no_position) continue;
      const std::uint64_t claimed = CT::vram_bytes(cl);
      const std::int64_t given =
          in ? -detail::counted_bytes(claimed) : detail::counted_bytes(claimed);
      give_vram(g, given, how.own_model ? own_amounts() : amounts::cluster);
      // GPUStack's fit counts a claim on a GPU of another type only from a main instance
      // of unknown type (compute_worker_allocated): the others are kept aside.
      const std::uint16_t gt = gpus_[g].type;
      if (gt != 0 && how.gpu_type != gt && (role == part_role::subordinate || how.gpu_type != 0))
        excluded_vram_exact_.add(excluded_vram_[g], g, -given);
      std::uint32_t& count = how.own_model ? gpus_[g].model_instances : gpus_[g].other_instances;
      count = in ? count + 1 : count - 1;
      if (how.keep_parts) claims_.push_back({g, index, claimed});
    }
    // Once per GPU occupied; a CPU instance once on its main worker.
    const std::uint32_t occupied = role == part_role::main ? std::max<std::uint32_t>(1, n) : n;
    std::uint32_t& count =
        how.own_model ? workers_[w].model_instances : workers_[w].other_instances;
    count = in ? count + occupied : count - occupied;
    if (how.keep_parts) {
      part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
      parts_.push_back(part);
    }
    if (!indexing_) refresh_worker(w);
  }
  // Drops the record of instance id and its parts and claims (so that adding and removing
  // instances does not grow the buffers); later records and parts are renumbered.
  HEADROOM_DECL void forget_record(std::uint64_t id);

  // A part the caller proposes (set_candidates).
  template <class Claims>
  void given_part(std::uint64_t worker_id, const Claims& claims, std::uint64_t ram,
                  std::uint64_t item) {
    const std::uint32_t w = find_worker(worker_id);
    if (w == no_position) detail::fail("placements", item, "names a worker that is not indexed");
    placement_part part{.worker_position = w,
                        .claim_begin = static_cast<std::uint32_t>(claims_.size()),
                        .ram_bytes = ram};
    for (const auto& cl : claims) {
      using CT = claim_traits<std::remove_cvref_t<decltype(cl)>>;
      const std::uint32_t g = find_gpu(w, CT::index(cl));
      if (g == no_position)
        detail::fail("placements", item, "claims a GPU index its worker does not have");
      claims_.push_back({g, CT::index(cl), CT::vram_bytes(cl)});
    }
    part.claim_count = static_cast<std::uint32_t>(claims_.size()) - part.claim_begin;
    parts_.push_back(part);
  }
  // ---- refusals: the workspace is left empty, as constructed (a half-built index is
  // never used), and invalid_argument names the parameter ----
  [[noreturn]] HEADROOM_DECL void refuse(const char* parameter, std::uint64_t value,
                                         std::string_view rule);
  [[noreturn]] HEADROOM_DECL void refuse_duplicate_gpu(std::uint64_t worker_id,
                                                       std::uint32_t index);
  [[noreturn]] HEADROOM_DECL void refuse_duplicate_worker(std::uint64_t id);
  // Recorded instances are told apart by id (remove_instance, the ranking): two with one id
  // are refused. Ids in increasing order (the common case) are checked without sorting.
  HEADROOM_DECL void refuse_duplicate_records();
  template <class I>
  void refuse_recorded_twin(const I& inst) const {
    using IT = instance_traits<I>;
    if (!recording_ || !model_key_.matches(IT::model_id(inst))) return;
    const std::uint64_t id = IT::id(inst);
    for (const instance_record& rec : instances_)
      if (rec.id == id)
        detail::fail("instances", id,
                     "is the id of a recorded instance of the model (instance_traits::id must be "
                     "unique)");
  }
};

}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/workspace.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

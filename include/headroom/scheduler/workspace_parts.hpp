// SPDX-License-Identifier: Apache-2.0
// The pieces the workspace (scheduler/workspace.hpp) is built from, each with one job: a
// buffer whose size changes without touching memory, the GPU type names, the distinct GPUs
// of every worker (what stage 1 of the fit ladder reads), the filter-verdict cache, and the
// scratch of the candidate listings. Private helpers.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../error.hpp"
#include "view.hpp"

namespace headroom {
inline namespace v0 {
namespace scheduling {
namespace detail {

/// A vector with a logical size: shrinking keeps the elements' storage, and growing again
/// within it neither zero-fills nor copies (the elements beyond the old size hold stale
/// values, to be overwritten). Decisions size their candidate buffers up and down every
/// time; this makes that free after the first.
template <class T>
class buffer {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
  [[nodiscard]] T* data() noexcept { return v_.data(); }
  [[nodiscard]] const T* data() const noexcept { return v_.data(); }
  [[nodiscard]] T* begin() noexcept { return v_.data(); }
  [[nodiscard]] T* end() noexcept { return v_.data() + n_; }
  [[nodiscard]] const T* begin() const noexcept { return v_.data(); }
  [[nodiscard]] const T* end() const noexcept { return v_.data() + n_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return v_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return v_[i]; }
  [[nodiscard]] operator std::span<const T>() const noexcept { return {v_.data(), n_}; }
  void clear() noexcept { n_ = 0; }
  void resize(std::size_t n) {
    if (n > v_.size()) v_.resize(n);
    n_ = n;
  }
  void push_back(const T& x) {
    if (n_ == v_.size())
      v_.push_back(x);
    else
      v_[n_] = x;
    ++n_;
  }
  /// Removes [first, last).
  void erase(T* first, T* last) noexcept {
    std::copy(last, end(), first);
    n_ -= static_cast<std::size_t>(last - first);
  }

 private:
  std::vector<T> v_;
  std::size_t n_ = 0;
};

/// GPU types by id: 0 = untyped, 1.. = distinct texts in order of first appearance; a text
/// no GPU has reads as unknown (equal to no GPU's type). Texts keep their storage across
/// indexes, so re-indexing the same types allocates nothing.
class gpu_type_names {
 public:
  /// The id an instance's type text reads as when no GPU has that type.
  static constexpr std::uint16_t unknown = 0xFFFF;
  /// Forgets every type but "untyped".
  void clear() noexcept { count_ = 1; }
  /// The id of t, added when new; throws invalid_argument past 65 534 types.
  HEADROOM_DECL std::uint16_t intern(std::string_view t);
  /// The id of t, or unknown.
  [[nodiscard]] HEADROOM_DECL std::uint16_t find(std::string_view t) const noexcept;
  /// The text of id t; "" = untyped (or not a type).
  [[nodiscard]] std::string_view name(std::uint16_t t) const noexcept {
    return t < count_ ? std::string_view(names_[t]) : std::string_view{};
  }
  /// How many ids are in use (untyped included).
  [[nodiscard]] std::uint16_t count() const noexcept { return count_; }

 private:
  std::vector<std::string> names_{std::string()};
  std::uint16_t count_ = 1;
};

/// The GPUs of each worker that are no twin of an earlier one (same totals, allocatable
/// VRAM and counts, a lower index: every scorer scores both alike and the tie rule prefers
/// the lower index), with the two numbers stage 1 of the fit ladder reads, packed in
/// worker order so that stage 1 streams them. Kept current per worker on every change.
class distinct_gpus {
 public:
  /// A distinct GPU as stage 1 reads it.
  struct entry {
    std::uint32_t gpu_position, index;  ///< position in the workspace's GPUs, gpu_traits::index
    std::uint64_t total_bytes;
    std::int64_t alloc_bytes;
  };
  /// Sizes for gpu_count GPUs on worker_count workers, none listed yet.
  HEADROOM_DECL void reset(std::size_t gpu_count, std::size_t worker_count);
  /// Recomputes worker w's twins and distinct GPUs (gpus: every indexed GPU).
  HEADROOM_DECL void update(const worker_record& w, std::uint32_t position,
                            std::span<const gpu_record> gpus);
  /// The distinct GPUs of worker position w.
  [[nodiscard]] std::span<const entry> of(std::uint32_t w) const noexcept {
    return {entries_.data() + of_[w].begin, of_[w].count};
  }
  /// The first earlier GPU of g's worker that is its twin, or no_position.
  [[nodiscard]] std::uint32_t twin(std::uint32_t g) const noexcept { return twin_[g]; }

 private:
  // Holes the packed array may hold beyond twice the GPUs before everything is re-packed.
  static constexpr std::size_t repack_slack = 64;
  struct span_of {
    std::uint32_t begin = 0, count = 0, cap = 0;
  };
  [[nodiscard]] HEADROOM_DECL static std::uint32_t earlier_twin(std::span<const gpu_record> gpus,
                                                                std::uint32_t first,
                                                                std::uint32_t g) noexcept;
  // Packs every worker's distinct GPUs densely again, in worker order.
  HEADROOM_DECL void pack();
  std::vector<std::uint32_t> twin_;
  std::vector<entry> entries_, packed_;
  std::vector<span_of> of_;
};

/// Identifies the filter chain and model whose verdicts a workspace's eligible flags hold.
struct filter_key {
  const void* filters = nullptr;  ///< the chain object
  const void* model = nullptr;    ///< the model request object
  const void* types = nullptr;    ///< a tag unique to the (chain, model) types
  [[nodiscard]] friend constexpr bool operator==(const filter_key&, const filter_key&) = default;
};

/// The filter-verdict cache: whose verdicts the workers' eligible flags hold, how many
/// they reject, and the workers updated since (to be filtered again).
class verdict_cache {
 public:
  /// Forgets the verdicts: the next decision filters every worker.
  HEADROOM_DECL void forget() noexcept;
  /// true iff the flags hold key's verdicts for every worker except the queued ones.
  [[nodiscard]] bool holds(const filter_key& key) const noexcept {
    return key.filters != nullptr && key == key_;
  }
  /// Queues worker position pos for the filters (or forgets every verdict when many are
  /// queued: filtering them all is then as cheap, and the queue stays bounded).
  HEADROOM_DECL void queue(std::uint32_t pos, std::size_t workers);
  /// The queued positions (may repeat one).
  [[nodiscard]] std::span<const std::uint32_t> queued() const noexcept { return queued_; }
  /// The flags now hold key's verdicts for every worker; rejected of them failed.
  HEADROOM_DECL void store(const filter_key& key, std::uint32_t rejected, std::size_t workers);
  /// Workers the cached verdicts reject.
  [[nodiscard]] std::uint32_t rejected() const noexcept { return rejected_; }

 private:
  // Queued workers beyond which filtering all of them is as cheap: a few plus one in eight.
  [[nodiscard]] static std::size_t bound(std::size_t workers) noexcept { return 64 + workers / 8; }
  filter_key key_{};
  std::uint32_t rejected_ = 0;
  std::vector<std::uint32_t> queued_;
};

/// Scratch of the candidate listings, kept in the workspace so that a warm decision
/// allocates nothing.
struct listing_scratch {
  /// A worker's eligible claims (distributed stage of the grouped listing).
  struct worker_sum {
    std::uint64_t sum = 0;
    std::uint32_t count = 0, worker_position = 0;
  };
  std::vector<std::uint64_t> gpu_claims;  ///< per GPU: the estimator's claim, 0 = ineligible
  std::vector<std::uint32_t> order, subordinates;
  std::vector<worker_sum> worker_sums;
  std::vector<std::uint16_t> type_order;  ///< GPU types in GPUStack's order
  std::vector<std::uint8_t> type_seen;
  std::vector<std::uint32_t> workers, gpus, spans;  ///< the gpustack listing's selections
  std::vector<std::uint64_t> claims, ranks;
};

}  // namespace detail
}  // namespace scheduling
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/scheduler/workspace_parts.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Writing rows as CSV: plain (one table whose rows each carry their grid's version, name,
// model, fingerprint and shard in leading columns) or commented (a '# headroom' line naming
// the grid before each block's column names); one line per row, with the verdicts when
// decided.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "../detail/append_guard.hpp"
#include "../detail/checks.hpp"
#include "../version.hpp"
#include "configuration.hpp"
#include "decide.hpp"
#include "fingerprint.hpp"
#include "lengths.hpp"
#include "problem.hpp"
#include "row.hpp"
#include "validate.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// The column names of a row in CSV, in order.
inline constexpr std::string_view row_columns =
    "index,key,accelerator,tensor_parallel,max_batch,max_batched_tokens,prefill,kv,status,"
    "kv_budget_tokens,zero_load_conformance,zero_load_rejected,capacity_per_second,"
    "capacity_high_per_second,confidence,search_stop,runs,requests,operating_rate_per_second,"
    "ttft_quantile_seconds,tpot_quantile_seconds,e2e_quantile_seconds,latency_margin,mfu,mbu,"
    "replicas_for_peak,peak_paid,replica_hours,gpu_hours,cost,cost_per_million_tokens,"
    "over_share,mean_use,calibration";
/// The columns a decided CSV appends.
inline constexpr std::string_view decision_columns = "verdict,dominated_by,replicas_frontier";

/// How a CSV block says which grid and shard its rows belong to.
enum class csv_layout : std::uint8_t {
  /// One table any CSV reader takes: the column names once, then rows whose first columns
  /// (metadata_columns) name the version, grid, model, fingerprint, size and shard.
  plain,
  /// A `# headroom …` line (csv_header) before each block's column names; no metadata columns.
  commented,
};

/// The columns a plain-layout row starts with, in order.
inline constexpr std::string_view metadata_columns =
    "headroom_version,plan,model,fingerprint,configurations,shard";

/// How append_csv writes.
struct csv_options {
  csv_layout layout = csv_layout::plain;  ///< plain or commented
  /// Plain layout: write the column-names line first; false when `out` already holds a table
  /// with the same columns that these rows continue (another grid's block, say).
  bool column_names = true;
};

namespace detail {
// 16 lowercase hex digits.
[[nodiscard]] HEADROOM_DECL std::string fingerprint_hex(std::uint64_t f);
}  // namespace detail

/// The first line of a commented CSV block: `# headroom <version> plan <name> model <model>
/// fingerprint <16 hex digits> configurations <N> shard <k>/<n>`.
[[nodiscard]] HEADROOM_DECL std::string csv_header(const problem& p, const length_statistics& l,
                                                   std::size_t configurations, shard part);

namespace detail {
// One row's columns (row_columns), each followed by a ','.
HEADROOM_DECL void append_row(std::string& out, const grid& axes, const row& r);

// Row i's decision columns (decision_columns), each followed by a ','.
HEADROOM_DECL void append_verdict(std::string& out, std::span<const row> rows,
                                  const decision& decided, std::size_t i);
}  // namespace detail

namespace detail {
// What a block's lines hold must not break them: checked before anything is written.
HEADROOM_DECL void check_csv_block(const problem& p, std::span<const row> rows,
                                   const decision* decided);
}  // namespace detail

/// Appends a CSV block to `out`: in the plain layout the column names (unless
/// options.column_names is false) and one line per row, each starting with the grid's
/// metadata_columns; in the commented layout the header line, the column names, one line per
/// row. With a decision (of exactly these rows), the verdict columns too. Numbers in shortest
/// round-trip form, so read_csv gives back the same doubles. Throws invalid_argument for a
/// name or key that would break a line, an accelerator index outside the grid, or a decision
/// of other rows; a refused call leaves `out` as it was.
HEADROOM_DECL void append_csv(std::string& out, const problem& p, const length_statistics& l,
                              shard part, std::span<const row> rows,
                              const decision* decided = nullptr, const csv_options& options = {});

/// The CSV block as a new string (see append_csv).
[[nodiscard]] HEADROOM_DECL std::string write_csv(const problem& p, const length_statistics& l,
                                                  shard part, std::span<const row> rows,
                                                  const decision* decided = nullptr,
                                                  const csv_options& options = {});

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/csv_write.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

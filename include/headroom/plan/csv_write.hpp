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
[[nodiscard]] inline std::string fingerprint_hex(std::uint64_t f) {
  std::string hex(16, '0');
  for (std::size_t i = 0; i < 16; ++i) hex[i] = "0123456789abcdef"[(f >> (60 - 4 * i)) & 0xf];
  return hex;
}
}  // namespace detail

/// The first line of a commented CSV block: `# headroom <version> plan <name> model <model>
/// fingerprint <16 hex digits> configurations <N> shard <k>/<n>`.
[[nodiscard]] inline std::string csv_header(const problem& p, const length_statistics& l,
                                            std::size_t configurations, shard part) {
  std::string out = "# headroom ";
  out += version_string;
  out += " plan " + p.name + " model " + p.model.name + " fingerprint ";
  out += detail::fingerprint_hex(fingerprint(p, l));
  out += " configurations " + std::to_string(configurations) + " shard " +
         std::to_string(part.index) + "/" + std::to_string(part.count) + "\n";
  return out;
}

namespace detail {
// One row's columns (row_columns), each followed by a ','.
inline void append_row(std::string& out, const grid& axes, const row& r) {
  const auto u = [&](std::uint64_t v) {
    append_number(out, v);
    out += ',';
  };
  const auto s = [&](std::int64_t v) {
    append_number(out, v);
    out += ',';
  };
  const auto d = [&](double v) {
    append_number(out, v);
    out += ',';
  };
  const auto t = [&](std::string_view v) {
    out += v;
    out += ',';
  };
  u(r.config.index);
  t(r.key);
  t(axes.accelerators.at(r.config.accelerator).spec.name);
  s(r.config.tensor_parallel);
  u(r.config.max_batch);
  u(r.config.max_batched_tokens);
  t(to_string(r.config.prefill));
  t(to_string(r.config.kv));
  t(to_string(r.status));
  u(r.kv_budget_tokens);
  d(r.zero_load_conformance);
  d(r.zero_load_rejected);
  d(r.capacity_per_second);
  d(r.capacity_high_per_second);
  d(r.confidence);
  t(to_string(r.stop));
  u(r.runs);
  u(r.requests);
  d(r.operating_rate_per_second);
  d(r.ttft_quantile.count());
  d(r.tpot_quantile.count());
  d(r.e2e_quantile.count());
  d(r.latency_margin);
  d(r.mfu);
  d(r.mbu);
  s(r.replicas_for_peak);
  s(r.peak_paid);
  d(r.replica_hours);
  d(r.gpu_hours);
  d(r.cost);
  d(r.cost_per_million_tokens);
  d(r.over_share);
  d(r.mean_use);
  t(to_string(r.calibration));
}

// Row i's decision columns (decision_columns), each followed by a ','.
inline void append_verdict(std::string& out, std::span<const row> rows, const decision& decided,
                           std::size_t i) {
  out += to_string(decided.verdicts[i]);
  out += ',';
  if (decided.dominated_by[i]) out += rows[*decided.dominated_by[i]].key;
  out += ',';
  const bool on = std::find(decided.replicas_frontier.begin(), decided.replicas_frontier.end(),
                            i) != decided.replicas_frontier.end();
  out += on ? "true," : "false,";
}
}  // namespace detail

namespace detail {
// What a block's lines hold must not break them: checked before anything is written.
inline void check_csv_block(const problem& p, std::span<const row> rows, const decision* decided) {
  using ::headroom::detail::fail;
  if (decided) {
    if (decided->verdicts.size() != rows.size())
      fail("decided->verdicts.size()", decided->verdicts.size(), "must equal rows.size()");
    if (decided->dominated_by.size() != rows.size())
      fail("decided->dominated_by.size()", decided->dominated_by.size(), "must equal rows.size()");
    for (const auto& by : decided->dominated_by)
      if (by && *by >= rows.size()) fail("decided->dominated_by[i]", *by, "must index rows");
  }
  require_label("p.name", p.name, label_kind::word);
  require_label("p.model.name", p.model.name, label_kind::word);
  for (const row& r : rows) {
    if (r.config.accelerator >= p.axes.accelerators.size())
      fail("rows[i].config.accelerator", r.config.accelerator, "must index p.axes.accelerators");
    require_label("rows[i].key", r.key, label_kind::text);
  }
}
}  // namespace detail

/// Appends a CSV block to `out`: in the plain layout the column names (unless
/// options.column_names is false) and one line per row, each starting with the grid's
/// metadata_columns; in the commented layout the header line, the column names, one line per
/// row. With a decision (of exactly these rows), the verdict columns too. Numbers in shortest
/// round-trip form, so read_csv gives back the same doubles. Throws invalid_argument for a
/// name or key that would break a line, an accelerator index outside the grid, or a decision
/// of other rows; a refused call leaves `out` as it was.
inline void append_csv(std::string& out, const problem& p, const length_statistics& l, shard part,
                       std::span<const row> rows, const decision* decided = nullptr,
                       const csv_options& options = {}) {
  detail::check_csv_block(p, rows, decided);
  const std::size_t total = p.axes.accelerators.size() * p.axes.tensor_parallel.size() *
                            p.axes.max_batch.size() * p.axes.max_batched_tokens.size() *
                            p.axes.prefill.size() * p.axes.kv.size();
  ::headroom::detail::append_guard guard(out);  // out of memory midway: taken back
  const bool plain = options.layout == csv_layout::plain;
  std::string metadata;  // the plain layout's leading fields, each followed by a ','
  if (plain) {
    metadata = std::string(version_string) + "," + p.name + "," + p.model.name + "," +
               detail::fingerprint_hex(fingerprint(p, l)) + "," + std::to_string(total) + "," +
               std::to_string(part.index) + "/" + std::to_string(part.count) + ",";
  } else {
    out += csv_header(p, l, total, part);
  }
  if (!plain || options.column_names) {
    if (plain) {
      out += metadata_columns;
      out += ',';
    }
    out += row_columns;
    if (decided) {
      out += ',';
      out += decision_columns;
    }
    out += '\n';
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += metadata;
    detail::append_row(out, p.axes, rows[i]);
    if (decided) detail::append_verdict(out, rows, *decided, i);
    out.back() = '\n';
  }
  guard.commit();
}

/// The CSV block as a new string (see append_csv).
[[nodiscard]] inline std::string write_csv(const problem& p, const length_statistics& l, shard part,
                                           std::span<const row> rows,
                                           const decision* decided = nullptr,
                                           const csv_options& options = {}) {
  std::string out;
  append_csv(out, p, l, part, rows, decided, options);
  return out;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

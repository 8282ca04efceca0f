// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/csv_write.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/csv_write.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL std::string fingerprint_hex(std::uint64_t f) {
  std::string hex(16, '0');
  for (std::size_t i = 0; i < 16; ++i) hex[i] = "0123456789abcdef"[(f >> (60 - 4 * i)) & 0xf];
  return hex;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL std::string csv_header(const problem& p, const length_statistics& l,
                                     std::size_t configurations, shard part) {
  std::string out = "# headroom ";
  out += version_string;
  out += " plan " + p.name + " model " + p.model.name + " fingerprint ";
  out += detail::fingerprint_hex(fingerprint(p, l));
  out += " configurations " + std::to_string(configurations) + " shard " +
         std::to_string(part.index) + "/" + std::to_string(part.count) + "\n";
  return out;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL void append_row(std::string& out, const grid& axes, const row& r) {
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

HEADROOM_DECL void append_verdict(std::string& out, std::span<const row> rows,
                                  const decision& decided, std::size_t i) {
  out += to_string(decided.verdicts[i]);
  out += ',';
  if (decided.dominated_by[i]) out += rows[*decided.dominated_by[i]].key;
  out += ',';
  const bool on = std::find(decided.replicas_frontier.begin(), decided.replicas_frontier.end(),
                            i) != decided.replicas_frontier.end();
  out += on ? "true," : "false,";
}

HEADROOM_DECL void check_csv_block(const problem& p, std::span<const row> rows,
                                   const decision* decided) {
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
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL void append_csv(std::string& out, const problem& p, const length_statistics& l,
                              shard part, std::span<const row> rows, const decision* decided,
                              const csv_options& options) {
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

HEADROOM_DECL std::string write_csv(const problem& p, const length_statistics& l, shard part,
                                    std::span<const row> rows, const decision* decided,
                                    const csv_options& options) {
  std::string out;
  append_csv(out, p, l, part, rows, decided, options);
  return out;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/csv_read.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/csv_read.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL std::vector<std::string_view> split(std::string_view line, char by) {
  std::vector<std::string_view> fields;
  for (;;) {
    const std::size_t at = line.find(by);
    fields.push_back(line.substr(0, at));
    if (at == std::string_view::npos) return fields;
    line.remove_prefix(at + 1);
  }
}

HEADROOM_DECL bool parse_double(std::string_view s, double& v) {
  const auto [ptr, ec] = ::headroom::detail::from_chars_double(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && ptr == s.data() + s.size();
}

HEADROOM_DECL std::optional<std::uint64_t> parse_fingerprint(std::string_view hex) {
  if (hex.size() != 16) return std::nullopt;
  std::uint64_t f = 0;
  for (const char c : hex) {
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) return std::nullopt;
    f = f << 4 | static_cast<std::uint64_t>(v);
  }
  return f;
}

HEADROOM_DECL header_read read_header(std::string_view line) {
  header_read out;
  const auto w = split(line, ' ');
  if (w.size() != 13 || w[0] != "#" || w[1] != "headroom" || w[3] != "plan" || w[5] != "model" ||
      w[7] != "fingerprint" || w[9] != "configurations" || w[11] != "shard") {
    out.error = "not a headroom plan header";
    return out;
  }
  csv_block& b = out.block;
  b.version = std::string(w[2]);
  b.plan_name = std::string(w[4]);
  b.model_name = std::string(w[6]);
  const auto fingerprint = parse_fingerprint(w[8]);
  const auto part = parse_shard(w[12]);
  if (!fingerprint)
    out.error = "the fingerprint needs 16 hex digits";
  else if (!parse_integer(w[10], b.configurations))
    out.error = "bad configuration count '" + std::string(w[10]) + "'";
  else if (!part)
    out.error = "bad shard '" + std::string(w[12]) + "'";
  else
    b.fingerprint = *fingerprint, b.part = *part;
  return out;
}

HEADROOM_DECL auto row_reader::seconds(std::chrono::duration<double>& v) -> void {
  double s = 0;
  number(s);
  v = std::chrono::duration<double>(s);
}

HEADROOM_DECL void read_configuration(row_reader& in, row& r,
                                      std::vector<std::string>& accelerators) {
  in.integer(r.config.index);
  r.key = std::string(in.text());
  const std::string_view accelerator = in.text();
  const auto found = std::find(accelerators.begin(), accelerators.end(), accelerator);
  r.config.accelerator = static_cast<std::size_t>(found - accelerators.begin());
  if (found == accelerators.end()) accelerators.emplace_back(accelerator);
  in.integer(r.config.tensor_parallel);
  in.integer(r.config.max_batch);
  in.integer(r.config.max_batched_tokens);
  in.choice(r.config.prefill, {sim::prefill_mode::chunked, sim::prefill_mode::whole});
  in.choice(r.config.kv, {sim::kv_policy::reserve_full, sim::kv_policy::preempt_youngest});
}

HEADROOM_DECL void read_measurements(row_reader& in, row& r) {
  in.choice(r.status, {feasibility::feasible, feasibility::weights_do_not_fit,
                       feasibility::requests_do_not_fit, feasibility::slo_unmet_at_zero_load,
                       feasibility::slo_unmet_at_any_rate});
  in.integer(r.kv_budget_tokens);
  in.number(r.zero_load_conformance);
  in.number(r.zero_load_rejected);
  in.number(r.capacity_per_second);
  in.number(r.capacity_high_per_second);
  in.number(r.confidence);
  in.choice(r.stop, {capacity::search_stop::converged, capacity::search_stop::undecided,
                     capacity::search_stop::no_passing_rate, capacity::search_stop::never_saturated,
                     capacity::search_stop::budget_exhausted});
  in.integer(r.runs);
  in.integer(r.requests);
  in.number(r.operating_rate_per_second);
  in.seconds(r.ttft_quantile);
  in.seconds(r.tpot_quantile);
  in.seconds(r.e2e_quantile);
  in.number(r.latency_margin);
  in.number(r.mfu);
  in.number(r.mbu);
  in.integer(r.replicas_for_peak);
  in.integer(r.peak_paid);
  in.number(r.replica_hours);
  in.number(r.gpu_hours);
  in.number(r.cost);
  in.number(r.cost_per_million_tokens);
  in.number(r.over_share);
  in.number(r.mean_use);
  in.choice(r.calibration, {calibration_source::given, calibration_source::shipped,
                            calibration_source::uncalibrated});
}

HEADROOM_DECL std::size_t columns_of(std::string_view line) {
  const std::size_t row_fields = split(row_columns, ',').size();
  if (line == row_columns) return row_fields;
  std::string with_decision(row_columns);
  with_decision += ',';
  with_decision += decision_columns;
  return line == with_decision ? row_fields + split(decision_columns, ',').size() : 0;
}

HEADROOM_DECL std::size_t plain_columns_of(std::string_view line) {
  if (line.size() <= metadata_columns.size() ||
      line.substr(0, metadata_columns.size()) != metadata_columns ||
      line[metadata_columns.size()] != ',')
    return 0;
  const std::size_t rest = columns_of(line.substr(metadata_columns.size() + 1));
  return rest == 0 ? 0 : rest + split(metadata_columns, ',').size();
}

HEADROOM_DECL header_read read_metadata(const std::vector<std::string_view>& fields) {
  header_read out;
  csv_block& b = out.block;
  b.version = std::string(fields[0]);
  b.plan_name = std::string(fields[1]);
  b.model_name = std::string(fields[2]);
  const auto fingerprint = parse_fingerprint(fields[3]);
  const auto part = parse_shard(fields[5]);
  if (!fingerprint)
    out.error = "the fingerprint needs 16 hex digits";
  else if (!parse_integer(fields[4], b.configurations))
    out.error = "bad configuration count '" + std::string(fields[4]) + "'";
  else if (!part)
    out.error = "bad shard '" + std::string(fields[5]) + "'";
  else
    b.fingerprint = *fingerprint, b.part = *part;
  return out;
}

HEADROOM_DECL bool same_block(const csv_block& a, const csv_block& b) noexcept {
  return a.version == b.version && a.plan_name == b.plan_name && a.model_name == b.model_name &&
         a.fingerprint == b.fingerprint && a.configurations == b.configurations &&
         a.part.index == b.part.index && a.part.count == b.part.count;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL csv_read_result read_csv(std::string_view text) {
  csv_read_result result;
  auto fail_at = [&result](std::size_t line, std::string why) {
    result.blocks.clear();
    result.error_line = line;
    result.error = std::move(why);
    return result;
  };
  const std::size_t metadata_fields = detail::split(metadata_columns, ',').size();
  std::size_t number = 0;
  bool expect_columns = false;
  bool plain = false;
  std::size_t columns = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      detail::header_read header = detail::read_header(line);
      if (!header.error.empty()) return fail_at(number, std::move(header.error));
      result.blocks.push_back(std::move(header.block));
      expect_columns = true;
      plain = false;
      continue;
    }
    if (!expect_columns) {
      if (const std::size_t n = detail::plain_columns_of(line); n != 0) {
        columns = n;
        plain = true;
        continue;
      }
    }
    if (!plain && result.blocks.empty())
      return fail_at(number, "a row before any column names or '# headroom' header");
    if (expect_columns) {
      columns = detail::columns_of(line);
      if (columns == 0) return fail_at(number, "unexpected column names");
      expect_columns = false;
      continue;
    }
    const auto fields = detail::split(line, ',');
    if (fields.size() != columns)
      return fail_at(number, "expected " + std::to_string(columns) + " fields, found " +
                                 std::to_string(fields.size()));
    std::size_t first = 0;  // the row's first field after any metadata
    if (plain) {
      detail::header_read meta = detail::read_metadata(fields);
      if (!meta.error.empty()) return fail_at(number, std::move(meta.error));
      if (result.blocks.empty() || !detail::same_block(result.blocks.back(), meta.block))
        result.blocks.push_back(std::move(meta.block));
      first = metadata_fields;
    }
    const std::vector<std::string_view> row_fields(
        fields.begin() + static_cast<std::ptrdiff_t>(first), fields.end());
    csv_block& b = result.blocks.back();
    row r;
    detail::row_reader in(row_fields);
    detail::read_configuration(in, r, b.accelerators);
    detail::read_measurements(in, r);
    if (!in.good()) return fail_at(number, "a field is malformed");
    b.rows.push_back(std::move(r));
  }
  if (expect_columns) return fail_at(number, "a header without column names");
  return result;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

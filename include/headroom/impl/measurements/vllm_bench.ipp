// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/vllm_bench.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../measurements/vllm_bench.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {
namespace detail {

HEADROOM_DECL auto vllm_object_reader::read() -> bool {
  if (!root_.is(json_kind::object)) return fail(root_, "", "a vLLM result is a JSON object");
  run_.tool = "vllm bench serve";
  return read_load() && read_counts() && read_summaries() && read_requests();
}

HEADROOM_DECL auto vllm_object_reader::fail(json_value at, std::string field, std::string reason)
    -> bool {
  error_ = {.offset = base_ + at.offset(), .field = std::move(field), .reason = std::move(reason)};
  return false;
}

HEADROOM_DECL auto vllm_object_reader::non_negative(json_value v, const std::string& field,
                                                    double& out) -> bool {
  if (!v.is(json_kind::number) || !(v.number() >= 0.0) || !std::isfinite(v.number()))
    return fail(v, field, "must be a finite number >= 0");
  out = v.number();
  return true;
}

HEADROOM_DECL auto vllm_object_reader::whole(json_value v, const std::string& field,
                                             std::size_t& out) -> bool {
  double d = 0.0;
  if (!non_negative(v, field, d)) return false;
  if (d != std::floor(d) || d > 9007199254740992.0)
    return fail(v, field, "must be a whole number below 2^53");
  out = static_cast<std::size_t>(d);
  return true;
}

HEADROOM_DECL auto vllm_object_reader::read_load() -> bool {
  const json_value rate = root_["request_rate"];
  if (!rate.present()) return fail(root_, "request_rate", "is missing");
  if (rate.is(json_kind::string)) {
    if (rate.string() != "inf") return fail(rate, "request_rate", "must be a number or \"inf\"");
    run_.load.pattern = load_pattern::all_at_once;
  } else if (rate.is(json_kind::number) &&
             rate.number() == std::numeric_limits<double>::infinity()) {
    run_.load.pattern = load_pattern::all_at_once;  // Python's Infinity, as "inf"
  } else {
    double r = 0.0;
    if (!non_negative(rate, "request_rate", r) || !(r > 0.0))
      return fail(rate, "request_rate", "must be a number > 0 or \"inf\"");
    run_.load.request_rate_per_second = r;
  }
  if (const json_value b = root_["burstiness"]; b.present() && !b.is(json_kind::null)) {
    double v = 0.0;
    if (!non_negative(b, "burstiness", v) || !(v > 0.0))
      return fail(b, "burstiness", "must be a number > 0");
    run_.load.burstiness = v;
  }
  if (const json_value c = root_["max_concurrency"]; c.present() && !c.is(json_kind::null)) {
    std::size_t n = 0;
    if (!whole(c, "max_concurrency", n) || n == 0)
      return fail(c, "max_concurrency", "must be a whole number >= 1 or null");
    run_.load.max_concurrency = n;
  }
  return true;
}

HEADROOM_DECL auto vllm_object_reader::read_counts() -> bool {
  if (const json_value d = root_["duration"]; d.present()) {
    double s = 0.0;
    if (!non_negative(d, "duration", s)) return false;
    run_.duration = std::chrono::duration<double>(s);
  }
  for (const char* name : {"completed", "failed"}) {
    const json_value v = root_[name];
    if (!v.present()) continue;
    std::size_t n = 0;
    if (!whole(v, name, n)) return false;
    (std::string_view(name) == "completed" ? run_.completed : run_.failed) = n;
  }
  return true;
}

HEADROOM_DECL auto vllm_object_reader::read_summaries() -> bool {
  const auto summary = [&](std::string_view metric, latency_summary& out) {
    for (const char* stat : {"mean", "median", "p99"}) {
      const std::string field = std::string(stat) + "_" + std::string(metric) + "_ms";
      const json_value v = root_[field];
      if (!v.present()) continue;
      double ms = 0.0;
      if (!non_negative(v, field, ms)) return false;
      std::optional<double>& slot = std::string_view(stat) == "mean"     ? out.mean
                                    : std::string_view(stat) == "median" ? out.median
                                                                         : out.p99;
      slot = ms / 1000.0;
    }
    return true;
  };
  return summary("ttft", run_.ttft) && summary("tpot", run_.tpot) && summary("itl", run_.itl);
}

HEADROOM_DECL auto vllm_object_reader::read_requests() -> bool {
  static constexpr const char* needed[] = {"input_lens", "output_lens", "ttfts", "itls"};
  bool any = false;
  for (const char* name : needed) any = any || root_[name].present();
  if (!any) return true;
  std::size_t n = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const json_value a = root_[needed[k]];
    if (!a.present())
      return fail(root_, needed[k], "is missing (the per-request arrays come together)");
    if (!a.is(json_kind::array)) return fail(a, needed[k], "must be an array");
    if (k == 0) n = a.size();
    if (a.size() != n) return fail(a, needed[k], "must have one entry per request, as input_lens");
  }
  const auto optional_array = [&](const char* name, json_value& out) {
    out = root_[name];
    if (!out.present() || out.is(json_kind::null)) {
      out = {};
      return true;
    }
    if (!out.is(json_kind::array)) return fail(out, name, "must be an array");
    if (out.size() != n) return fail(out, name, "must have one entry per request, as input_lens");
    return true;
  };
  json_value errors, starts, latencies, queues;
  if (!optional_array("errors", errors) || !optional_array("start_times", starts) ||
      !optional_array("latencies", latencies) || !optional_array("queue_times", queues))
    return false;
  struct raw {
    double start = 0, queue = 0, ttft = 0, gaps = 0, latency = 0;
    std::size_t in = 0, out = 0;
    bool error = false;
  };
  std::vector<raw> r(n);
  const auto each = [&](const char* name, json_value array, auto&& read) {
    std::size_t i = 0;
    for (const json_value v : array.children()) {
      if (!read(v, std::string(name) + "[" + std::to_string(i) + "]", r[i])) return false;
      ++i;
    }
    return true;
  };
  if (!each("input_lens", root_["input_lens"],
            [&](json_value v, const std::string& f, raw& x) { return whole(v, f, x.in); }) ||
      !each("output_lens", root_["output_lens"],
            [&](json_value v, const std::string& f, raw& x) { return whole(v, f, x.out); }) ||
      !each(
          "ttfts", root_["ttfts"],
          [&](json_value v, const std::string& f, raw& x) { return non_negative(v, f, x.ttft); }) ||
      !each("itls", root_["itls"], [&](json_value v, const std::string& f, raw& x) {
        if (!v.is(json_kind::array)) return fail(v, f, "must be an array of gaps in seconds");
        std::size_t k = 0;
        for (const json_value g : v.children()) {
          double s = 0.0;
          if (!non_negative(g, f + "[" + std::to_string(k++) + "]", s)) return false;
          x.gaps += s;
        }
        return true;
      }))
    return false;
  if (errors.present() && !each("errors", errors, [&](json_value v, const std::string& f, raw& x) {
        if (!v.is(json_kind::string) && !v.is(json_kind::null))
          return fail(v, f, "must be a string (empty on success)");
        x.error = !v.string().empty();
        return true;
      }))
    return false;
  if (starts.present() &&
      !each("start_times", starts, [&](json_value v, const std::string& f, raw& x) {
        if (!v.is(json_kind::number) || !std::isfinite(v.number()))
          return fail(v, f, "must be a finite number (time.perf_counter() seconds)");
        x.start = v.number();
        return true;
      }))
    return false;
  if (latencies.present() &&
      !each("latencies", latencies, [&](json_value v, const std::string& f, raw& x) {
        if (!non_negative(v, f, x.latency)) return false;
        if (x.latency > 0.0 && x.latency < x.ttft)
          return fail(v, f, "must be >= the request's ttft (0 for a failed request)");
        return true;
      }))
    return false;
  if (queues.present() &&
      !each("queue_times", queues, [&](json_value v, const std::string& f, raw& x) {
        return non_negative(v, f, x.queue);
      }))
    return false;

  // Times relative to the earliest intended send.
  double origin = std::numeric_limits<double>::infinity();
  for (const raw& x : r) origin = std::min(origin, x.start - x.queue);
  if (!starts.present() || n == 0) origin = 0.0;
  run_.send_times_known = starts.present();
  run_.intended_times_known = starts.present() && queues.present();
  run_.token_counts_known = true;  // input_lens and output_lens, the server's usage
  run_.requests.reserve(n);
  using seconds = std::chrono::duration<double>;
  for (const raw& x : r) {
    const double sent = starts.present() ? x.start - origin : 0.0;
    // (start − queue) − origin, as origin was taken: >= 0 and <= sent in floating point too
    // (sent − queue could round below 0, or the intended time past the send).
    const double intended = starts.present() ? (x.start - x.queue) - origin : 0.0;
    const bool error = x.error || (x.ttft == 0.0 && x.out == 0);
    const double end = latencies.present() && x.latency > 0.0 ? x.latency : x.ttft + x.gaps;
    run_.requests.push_back({.intended_arrival = seconds(intended),
                             .sent = seconds(sent),
                             .first_token = seconds(sent + x.ttft),
                             .finished = seconds(sent + end),
                             .prompt_tokens = x.in,
                             .output_tokens = x.out,
                             .error = error});
  }
  return true;
}

}  // namespace detail
}  // namespace measurements
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace measurements {

HEADROOM_DECL benchmark_file read_vllm_bench(std::string_view text, const read_options& options) {
  using ::headroom::detail::json_document;
  using ::headroom::detail::json_errc;
  const ::headroom::detail::json_limits limits{
      .max_bytes = 0,
      .max_string_bytes = options.max_string_bytes,
      .non_finite = ::headroom::detail::json_non_finite::python};
  benchmark_file out;
  if (detail::too_large(text, options, out)) return out;
  const auto read_object = [&](std::string_view part, std::size_t base) {
    const json_document doc = json_document::parse(part, limits);
    if (!doc.ok()) {
      out.error = read_error{.offset = base + doc.error().offset,
                             .reason = std::string(describe(doc.error().code))};
      return false;
    }
    benchmark_run run;
    read_error error;
    if (!detail::vllm_object_reader(doc.root(), base, run, error).read()) {
      out.error = std::move(error);
      return false;
    }
    out.runs.push_back(std::move(run));
    return true;
  };
  // One document; or, when something follows the first value, one object per line.
  const json_document whole = json_document::parse(text, limits);
  if (whole.ok() || whole.error().code != json_errc::trailing_characters) {
    if (!read_object(text, 0)) out.runs.clear();
    return out;
  }
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos && !read_object(line, begin)) {
      out.runs.clear();
      return out;
    }
    begin = end + 1;
  }
  return out;
}

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

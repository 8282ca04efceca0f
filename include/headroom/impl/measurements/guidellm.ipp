// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/guidellm.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../measurements/guidellm.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {
namespace detail {

HEADROOM_DECL auto guidellm_reader::read() -> bool {
  if (!root_.is(json_kind::object)) return fail(root_, "", "a guidellm report is a JSON object");
  const json_value benchmarks = root_["benchmarks"];
  if (!benchmarks.present()) return fail(root_, "benchmarks", "is missing");
  if (!benchmarks.is(json_kind::array)) return fail(benchmarks, "benchmarks", "must be an array");
  if (const json_value metadata = root_["metadata"]; metadata.present()) {
    const json_value version = metadata["version"];
    if (!version.is(json_kind::number) || (version.number() != 1.0 && version.number() != 2.0))
      return fail(version.present() ? version : metadata, "metadata.version",
                  "must be 1 or 2 (the report versions this reader knows)");
    modern_ = true;
  }
  std::size_t i = 0;
  for (const json_value b : benchmarks.children()) {
    benchmark_run run;
    std::string field = "benchmarks[";  // built in place: "..." + std::string&& draws a
    field += std::to_string(i++);       // false -Wrestrict from g++ 12 at -O3
    field += ']';
    if (!read_benchmark(b, field, run)) return false;
    runs_.push_back(std::move(run));
  }
  return true;
}

HEADROOM_DECL auto guidellm_reader::fail(json_value at, std::string field, std::string reason)
    -> bool {
  error_ = {.offset = at.offset(), .field = std::move(field), .reason = std::move(reason)};
  return false;
}

HEADROOM_DECL auto guidellm_reader::optional_non_negative(json_value v, const std::string& field,
                                                          std::optional<double>& out) -> bool {
  out.reset();
  if (!v.present() || v.is(json_kind::null)) return true;
  if (!v.is(json_kind::number) || !(v.number() >= 0.0) || !std::isfinite(v.number()))
    return fail(v, field, "must be a finite number >= 0 or null");
  out = v.number();
  return true;
}

HEADROOM_DECL auto guidellm_reader::optional_whole(json_value v, const std::string& field,
                                                   std::optional<std::size_t>& out) -> bool {
  std::optional<double> d;
  if (!optional_non_negative(v, field, d)) return false;
  out.reset();
  if (!d) return true;
  if (*d != std::floor(*d) || *d > 9007199254740992.0)
    return fail(v, field, "must be a whole number below 2^53 or null");
  out = static_cast<std::size_t>(*d);
  return true;
}

HEADROOM_DECL auto guidellm_reader::optional_time(json_value v, const std::string& field,
                                                  std::optional<double>& out) -> bool {
  out.reset();
  if (!v.present() || v.is(json_kind::null)) return true;
  if (!v.is(json_kind::number) || !(v.number() > 0.0) || !std::isfinite(v.number()))
    return fail(v, field, "must be a Unix time in seconds (a finite number > 0) or null");
  out = v.number();
  return true;
}

HEADROOM_DECL auto guidellm_reader::read_strategy(json_value s, const std::string& field,
                                                  offered_load& load) -> bool {
  if (!s.is(json_kind::object)) return fail(s, field, "must be an object with a type_");
  const std::string_view type = s["type_"].string();
  if (!s["type_"].is(json_kind::string)) return fail(s, field + ".type_", "must be a string");
  const auto positive_rate = [&] {
    std::optional<double> r;
    if (!optional_non_negative(s["rate"], field + ".rate", r)) return false;
    if (!r || !(*r > 0.0))
      return fail(s["rate"].present() ? s["rate"] : s, field + ".rate",
                  std::string("must be a number > 0 for a ").append(type).append(" strategy"));
    load.request_rate_per_second = *r;
    return true;
  };
  const auto cap = [&] {
    std::optional<std::size_t> n;
    if (!optional_whole(s["max_concurrency"], field + ".max_concurrency", n)) return false;
    if (n && *n == 0)
      return fail(s["max_concurrency"], field + ".max_concurrency", "must be >= 1 or null");
    load.max_concurrency = n;
    return true;
  };
  if (type == "synchronous") {
    load.pattern = load_pattern::closed_loop;
    load.max_concurrency = 1;
    return true;
  }
  if (type == "concurrent") {
    load.pattern = load_pattern::closed_loop;
    std::optional<std::size_t> streams;
    if (!optional_whole(s["streams"], field + ".streams", streams)) return false;
    if (!streams || *streams == 0)
      return fail(s["streams"].present() ? s["streams"] : s, field + ".streams",
                  "must be a whole number >= 1 for a concurrent strategy");
    load.max_concurrency = streams;
    return true;
  }
  if (type == "throughput") {
    load.pattern = load_pattern::all_at_once;
    return cap();
  }
  if (type == "constant" || type == "poisson") {
    load.pattern = load_pattern::open_loop;
    if (type == "poisson") load.burstiness = 1.0;
    return positive_rate() && cap();
  }
  if (type == "trace") {
    load.pattern = load_pattern::trace;
    return true;
  }
  return fail(s["type_"], field + ".type_",
              "must be synchronous, concurrent, throughput, constant, poisson or trace");
}

HEADROOM_DECL auto guidellm_reader::read_counts(json_value counts, const std::string& field,
                                                benchmark_run& run) -> bool {
  if (!counts.present() || counts.is(json_kind::null)) return true;
  if (!counts.is(json_kind::object)) return fail(counts, field, "must be an object");
  return optional_whole(counts["successful"], field + ".successful", run.completed) &&
         optional_whole(counts["errored"], field + ".errored", run.failed) &&
         optional_whole(counts["incomplete"], field + ".incomplete", run.incomplete);
}

HEADROOM_DECL auto guidellm_reader::read_summaries(json_value metrics, const std::string& field,
                                                   benchmark_run& run) -> bool {
  if (!metrics.present() || metrics.is(json_kind::null)) return true;
  if (!metrics.is(json_kind::object)) return fail(metrics, field, "must be an object");
  const auto one = [&](const char* name, latency_summary& out) {
    const json_value m = metrics[name]["successful"];
    if (!m.present() || m.is(json_kind::null)) return true;
    const std::string f = field + "." + name + ".successful";
    if (!m.is(json_kind::object)) return fail(m, f, "must be an object");
    std::optional<double> mean, median, p99;
    if (!optional_non_negative(m["mean"], f + ".mean", mean) ||
        !optional_non_negative(m["median"], f + ".median", median) ||
        !optional_non_negative(m["percentiles"]["p99"], f + ".percentiles.p99", p99))
      return false;
    const auto seconds = [](std::optional<double> ms) {
      return ms ? std::optional<double>(*ms / 1000.0) : std::nullopt;
    };
    out = {.mean = seconds(mean), .median = seconds(median), .p99 = seconds(p99)};
    return true;
  };
  return one("time_to_first_token_ms", run.ttft) && one("time_per_output_token_ms", run.tpot) &&
         one("inter_token_latency_ms", run.itl);
}

HEADROOM_DECL auto guidellm_reader::tokens(json_value r, const std::string& field,
                                           const char* computed, const char* usage,
                                           json_value iterations, std::size_t& out, bool& counted)
    -> bool {
  for (const auto& [v, name] :
       {std::pair{r[computed], std::string(computed)},
        std::pair{r[usage]["total_tokens"], std::string(usage) + ".total_tokens"},
        std::pair{iterations, std::string("info.timings.token_iterations")}}) {
    std::optional<std::size_t> n;
    if (!optional_whole(v, field + "." + name, n)) return false;
    if (n) {
      out = *n;
      return true;
    }
  }
  out = 0;
  counted = false;
  return true;
}

HEADROOM_DECL auto guidellm_reader::read_request(json_value r, const std::string& field,
                                                 bool successful, raw& x) -> bool {
  if (!r.is(json_kind::object)) return fail(r, field, "must be an object");
  std::optional<double> intended, sent, first, end;
  if (modern_) {
    const json_value timings = r["info"]["timings"];
    const std::string t = field + ".info.timings";
    if (!timings.is(json_kind::object))
      return fail(timings.present() ? timings : r, t, "must be an object");
    std::optional<double> resolve_start, last, resolve_end;
    if (!optional_time(timings["targeted_start"], t + ".targeted_start", intended) ||
        !optional_time(timings["request_start"], t + ".request_start", sent) ||
        !optional_time(timings["resolve_start"], t + ".resolve_start", resolve_start) ||
        !optional_time(timings["first_token_iteration"], t + ".first_token_iteration", first) ||
        !optional_time(timings["last_token_iteration"], t + ".last_token_iteration", last) ||
        !optional_time(timings["request_end"], t + ".request_end", end) ||
        !optional_time(timings["resolve_end"], t + ".resolve_end", resolve_end))
      return false;
    if (!sent) sent = resolve_start;
    if (last) end = last;  // the last token's arrival, else the answer's
    if (!end) end = resolve_end;
    if (!tokens(r, field, "prompt_tokens", "input_metrics", {}, x.in, x.counted) ||
        !tokens(r, field, "output_tokens", "output_metrics", timings["token_iterations"], x.out,
                x.counted))
      return false;
    x.scheduled = intended.has_value();
    if (!intended) intended = sent;
    if (!intended) return fail(timings, t + ".targeted_start", "is missing (and request_start)");
  } else {
    const json_value info = r["scheduler_info"];
    std::optional<double> last;
    if (!optional_time(info["targeted_start_time"], field + ".scheduler_info.targeted_start_time",
                       intended) ||
        !optional_time(r["start_time"], field + ".start_time", sent) ||
        !optional_time(r["first_token_time"], field + ".first_token_time", first) ||
        !optional_time(r["last_token_time"], field + ".last_token_time", last) ||
        !optional_time(r["end_time"], field + ".end_time", end))
      return false;
    if (last) end = last;
    std::optional<std::size_t> in, out;
    if (!optional_whole(r["prompt_tokens"], field + ".prompt_tokens", in) ||
        !optional_whole(r["output_tokens"], field + ".output_tokens", out))
      return false;
    x.in = in.value_or(0);
    x.out = out.value_or(0);
    x.counted = in && out;
    successful = successful && r["type_"].string() != "generative_text_error";
    x.scheduled = intended.has_value();
    if (!intended) intended = sent;
    if (!intended)
      return fail(r, field + ".scheduler_info.targeted_start_time", "is missing (and start_time)");
  }
  x.intended = *intended;
  x.sent = sent.value_or(*intended);
  x.error = !successful;
  if (x.error) {
    x.first = x.end = x.sent;  // ignored for an error
    return true;
  }
  if (!end) return fail(r, field, "a successful request needs its end (last token or request end)");
  // No first token time (a non-streaming request): the whole answer arrives at its end.
  x.first = first.value_or(*end);
  if (x.first < x.sent)
    return fail(r, field, "its first token must not precede its send (request_start)");
  if (x.end = *end; x.end < x.first)
    return fail(r, field, "its end must not precede its first token");
  return true;
}

HEADROOM_DECL auto guidellm_reader::read_requests(json_value requests, const std::string& field,
                                                  benchmark_run& run) -> bool {
  if (!requests.present() || requests.is(json_kind::null)) return true;
  if (!requests.is(json_kind::object)) return fail(requests, field, "must be an object");
  std::vector<raw> all;
  std::size_t kept_successful = 0, kept_errored = 0, kept_incomplete = 0;
  for (const char* status : {"successful", "errored", "incomplete"}) {
    const json_value list = requests[status];
    const std::string f = field + "." + status;
    if (!list.present() || list.is(json_kind::null)) continue;
    if (!list.is(json_kind::array)) return fail(list, f, "must be an array or null");
    const bool successful = std::string_view(status) == "successful";
    std::size_t k = 0;
    for (const json_value r : list.children()) {
      raw x;
      if (!read_request(r, f + "[" + std::to_string(k++) + "]", successful, x)) return false;
      all.push_back(x);
    }
    (successful                              ? kept_successful
     : std::string_view(status) == "errored" ? kept_errored
                                             : kept_incomplete) = k;
  }
  run.requests_sampled = (run.completed && kept_successful < *run.completed) ||
                         (run.failed && kept_errored < *run.failed) ||
                         (run.incomplete && kept_incomplete < *run.incomplete);
  if (all.empty()) return true;
  std::stable_sort(all.begin(), all.end(),
                   [](const raw& a, const raw& b) { return a.sent < b.sent; });
  double origin = std::numeric_limits<double>::infinity();
  for (const raw& x : all) origin = std::min(origin, x.intended);
  using seconds = std::chrono::duration<double>;
  run.requests.reserve(all.size());
  for (const raw& x : all)
    run.requests.push_back({.intended_arrival = seconds(x.intended - origin),
                            .sent = seconds(x.sent - origin),
                            .first_token = seconds(x.first - origin),
                            .finished = seconds(x.end - origin),
                            .prompt_tokens = x.in,
                            .output_tokens = x.out,
                            .error = x.error});
  run.send_times_known = true;
  run.intended_times_known =
      std::all_of(all.begin(), all.end(), [](const raw& x) { return x.scheduled; });
  run.token_counts_known =
      std::all_of(all.begin(), all.end(), [](const raw& x) { return x.error || x.counted; });
  return true;
}

HEADROOM_DECL auto guidellm_reader::read_benchmark(json_value b, const std::string& field,
                                                   benchmark_run& run) -> bool {
  if (!b.is(json_kind::object)) return fail(b, field, "must be an object");
  run.tool = "guidellm";
  const std::string strategy_field = field + (modern_ ? ".config.strategy" : ".args.strategy");
  const json_value strategy = modern_ ? b["config"]["strategy"] : b["args"]["strategy"];
  if (!strategy.present()) return fail(b, strategy_field, "is missing");
  if (!read_strategy(strategy, strategy_field, run.load)) return false;
  std::optional<double> duration;
  if (!optional_non_negative(b["duration"], field + ".duration", duration)) return false;
  if (duration) run.duration = std::chrono::duration<double>(*duration);
  const bool counted = modern_ ? read_counts(b["scheduler_metrics"]["requests_made"],
                                             field + ".scheduler_metrics.requests_made", run)
                               : read_counts(b["request_totals"], field + ".request_totals", run);
  return counted && read_summaries(b["metrics"], field + ".metrics", run) &&
         read_requests(b["requests"], field + ".requests", run);
}

}  // namespace detail
}  // namespace measurements
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace measurements {

HEADROOM_DECL benchmark_file read_guidellm(std::string_view text, const read_options& options) {
  return detail::read_json_file(
      text, options, ::headroom::detail::json_non_finite::python,
      [](::headroom::detail::json_value root, std::vector<benchmark_run>& runs, read_error& error) {
        return detail::guidellm_reader(root, runs, error).read();
      });
}

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/measurements/genai_perf.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../measurements/genai_perf.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace measurements {
namespace detail {

HEADROOM_DECL auto genai_perf_reader::read() -> bool {
  if (!root_.is(json_kind::object))
    return fail(root_, "", "a genai-perf profile export is a JSON object");
  const json_value kind = root_["service_kind"];
  if (!kind.is(json_kind::string))
    return fail(kind.present() ? kind : root_, "service_kind", "must be a string");
  if (kind.string() != "openai")
    return fail(kind, "service_kind",
                "must be \"openai\" (the responses of OpenAI-compatible endpoints are the "
                "ones read)");
  const json_value experiments = root_["experiments"];
  if (!experiments.present()) return fail(root_, "experiments", "is missing");
  if (!experiments.is(json_kind::array))
    return fail(experiments, "experiments", "must be an array");
  std::size_t i = 0;
  for (const json_value e : experiments.children()) {
    benchmark_run run;
    std::string field = "experiments[";  // built in place: "..." + std::string&& draws a
    field += std::to_string(i++);        // false -Wrestrict from g++ 12 at -O3
    field += ']';
    if (!read_experiment(e, field, run)) return false;
    runs_.push_back(std::move(run));
  }
  return true;
}

HEADROOM_DECL auto genai_perf_reader::fail(json_value at, std::string field, std::string reason)
    -> bool {
  error_ = {.offset = at.offset(), .field = std::move(field), .reason = std::move(reason)};
  return false;
}

HEADROOM_DECL auto genai_perf_reader::nanoseconds(json_value v, const std::string& field,
                                                  std::uint64_t& out) -> bool {
  static constexpr const char* requirement =
      "must be a whole number of nanoseconds since the epoch, below 2^63";
  if (!v.is(json_kind::number)) return fail(v.present() ? v : root_, field, requirement);
  const std::size_t begin = v.offset();
  const std::size_t end = ::headroom::detail::json_number_end(text_, begin);
  if (end == std::string_view::npos) return fail(v, field, requirement);
  const auto [ptr, ec] = std::from_chars(text_.data() + begin, text_.data() + end, out);
  if (ec != std::errc() || ptr != text_.data() + end ||
      out > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return fail(v, field, requirement);
  return true;
}

HEADROOM_DECL auto genai_perf_reader::read_mode(json_value e, const std::string& field,
                                                offered_load& load) -> bool {
  const json_value experiment = e["experiment"];
  const std::string f = field + ".experiment";
  if (!experiment.is(json_kind::object))
    return fail(experiment.present() ? experiment : e, f, "must be an object with mode, value");
  const json_value mode = experiment["mode"], value = experiment["value"];
  if (!mode.is(json_kind::string))
    return fail(mode.present() ? mode : experiment, f + ".mode", "must be a string");
  if (!value.is(json_kind::number) || !std::isfinite(value.number()) || !(value.number() >= 0))
    return fail(value.present() ? value : experiment, f + ".value", "must be a finite number >= 0");
  const double x = value.number();
  if (mode.string() == "concurrency") {
    if (x < 1.0 || x != std::floor(x) || x > 9007199254740992.0)
      return fail(value, f + ".value", "must be a whole number >= 1 for a concurrency");
    load.pattern = load_pattern::closed_loop;
    load.max_concurrency = static_cast<std::size_t>(x);
    return true;
  }
  if (mode.string() == "request_rate") {
    // perf_analyzer sends on its own schedule (constant or Poisson gaps; the export does not
    // say which). A rate of 0: a schedule of its own (sessions, intervals from a file).
    if (x > 0.0) {
      load.pattern = load_pattern::open_loop;
      load.request_rate_per_second = x;
    } else {
      load.pattern = load_pattern::trace;
    }
    return true;
  }
  return fail(mode, f + ".mode", "must be \"concurrency\" or \"request_rate\"");
}

HEADROOM_DECL auto genai_perf_reader::read_event(std::string_view event, genai_perf_responses& r,
                                                 std::size_t& with_text) -> void {
  using ::headroom::detail::json_document;
  event = genai_perf_strip(event);
  if (event.starts_with("event:")) {
    std::string lower(event);
    for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower.find("error") != std::string::npos) r.error = true;
  }
  if (event.empty() || genai_perf_not_data(event)) return;
  if (event.starts_with("data:")) event = genai_perf_strip(event.substr(5));
  if (event == "[DONE]") return;
  const json_document doc =
      json_document::parse(event, {.max_bytes = 0, .max_string_bytes = options_.max_string_bytes});
  const json_value d = doc.root();
  if (!d.is(json_kind::object) || d["error"].present() || d["object"].string() == "error") {
    r.error = true;
    return;
  }
  const json_value usage = d["usage"];
  const auto count = [](json_value v) -> std::optional<std::size_t> {
    if (!v.is(json_kind::number) || !(v.number() >= 0.0) || v.number() > 9007199254740992.0 ||
        v.number() != std::floor(v.number()))
      return std::nullopt;
    return static_cast<std::size_t>(v.number());
  };
  if (usage.is(json_kind::object)) {
    if (const auto n = count(usage["completion_tokens"])) r.completion_tokens = n;
    if (const auto n = count(usage["prompt_tokens"])) r.prompt_tokens = n;
  }
  // The text: a chat chunk's delta, a chat answer's message (content, or a reasoning
  // model's reasoning_content), a completion's text.
  const json_value choice = d["choices"].at(0);
  bool text = !choice["text"].string().empty();
  for (const char* part : {"delta", "message"})
    for (const char* name : {"content", "reasoning_content"})
      text = text || !choice[part][name].string().empty();
  if (text) ++with_text;
}

HEADROOM_DECL auto genai_perf_reader::read_responses(json_value outputs, const std::string& field,
                                                     genai_perf_responses& r) -> bool {
  std::vector<std::string> texts;
  texts.reserve(outputs.size());
  std::size_t k = 0;
  for (const json_value o : outputs.children()) {
    const json_value response = o["response"];
    if (!response.is(json_kind::string)) {
      std::string f = field;
      f += '[';
      f += std::to_string(k);
      f += "].response";
      return fail(response.present() ? response : o, f, "must be a string");
    }
    texts.emplace_back(response.string());
    ++k;
  }
  // A splintered event (a response that starts inside one) belongs to the response before.
  for (std::size_t i = texts.size(); i-- > 1;) {
    std::string& t = texts[i];
    if (genai_perf_not_data(t) || t.starts_with("data: ") ||
        texts[i - 1].find("data:") == std::string::npos)
      continue;
    const std::size_t at = t.find("data: ");
    texts[i - 1] += std::string_view(t).substr(0, at);
    t.erase(0, at == std::string::npos ? t.size() : at);
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::size_t with_text = 0;
    std::string_view rest = genai_perf_strip(texts[i]);
    while (!rest.empty()) {
      const std::size_t blank = rest.find("\n\n");
      const std::string_view event = rest.substr(0, blank);
      rest = blank == std::string_view::npos ? std::string_view() : rest.substr(blank + 2);
      read_event(event, r, with_text);
    }
    if (with_text == 0) continue;
    r.chunks += with_text;
    if (!r.first) r.first = i;
    r.last = i;
  }
  return true;
}

HEADROOM_DECL auto genai_perf_reader::read_request(json_value q, const std::string& field, raw& x)
    -> bool {
  if (!q.is(json_kind::object)) return fail(q, field, "must be an object");
  if (!nanoseconds(q["timestamp"], field + ".timestamp", x.sent)) return false;
  const json_value times = q["response_timestamps"], outputs = q["response_outputs"];
  const std::string tf = field + ".response_timestamps", of = field + ".response_outputs";
  if (!times.is(json_kind::array)) return fail(times.present() ? times : q, tf, "must be an array");
  if (!outputs.is(json_kind::array))
    return fail(outputs.present() ? outputs : q, of, "must be an array");
  if (outputs.size() != times.size())
    return fail(outputs, of, "must have one entry per response timestamp");
  std::vector<std::uint64_t> at;
  at.reserve(times.size());
  for (const json_value t : times.children()) {
    std::string f = tf;
    f += '[';
    f += std::to_string(at.size());
    f += ']';
    std::uint64_t ns = 0;
    if (!nanoseconds(t, f, ns)) return false;
    if (ns < (at.empty() ? x.sent : at.back()))
      return fail(t, f,
                  at.empty() ? "must not precede the request's timestamp (its send)"
                             : "must not precede the response before it");
    at.push_back(ns);
  }
  genai_perf_responses r;
  if (!read_responses(outputs, of, r)) return false;
  // A request without a response that carries text failed (or was cut off): an error,
  // never dropped.
  x.error = r.error || !r.first;
  x.first = x.end = x.sent;
  if (x.error) return true;
  x.first = at[*r.first];
  x.end = at[*r.last];
  // Both counts from the usage, or neither: a prompt count beside counted chunks would let a
  // calibration fit on guessed output lengths (plan::observe refuses a prompt count of 0).
  x.counted = r.completion_tokens && r.prompt_tokens;
  x.out = x.counted ? *r.completion_tokens : r.chunks;
  x.in = x.counted ? *r.prompt_tokens : 0;
  return true;
}

HEADROOM_DECL auto genai_perf_reader::read_experiment(json_value e, const std::string& field,
                                                      benchmark_run& run) -> bool {
  if (!e.is(json_kind::object)) return fail(e, field, "must be an object");
  run.tool = "genai-perf";
  if (!read_mode(e, field, run.load)) return false;
  const json_value requests = e["requests"];
  const std::string rf = field + ".requests";
  if (!requests.is(json_kind::array))
    return fail(requests.present() ? requests : e, rf, "must be an array");
  std::vector<raw> all;
  all.reserve(requests.size());
  for (const json_value q : requests.children()) {
    std::string f = rf;
    f += '[';
    f += std::to_string(all.size());
    f += ']';
    raw x;
    if (!read_request(q, f, x)) return false;
    all.push_back(x);
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const raw& a, const raw& b) { return a.sent < b.sent; });
  const std::uint64_t origin = all.empty() ? 0 : all.front().sent;
  const auto seconds = [origin](std::uint64_t ns) {
    return std::chrono::duration<double>(static_cast<double>(ns - origin) * 1e-9);
  };
  run.requests.reserve(all.size());
  run.token_counts_known = true;
  for (const raw& x : all) {
    run.requests.push_back({.intended_arrival = seconds(x.sent),
                            .sent = seconds(x.sent),
                            .first_token = seconds(x.first),
                            .finished = seconds(x.end),
                            .prompt_tokens = x.in,
                            .output_tokens = x.out,
                            .error = x.error});
    if (!x.error && !x.counted) run.token_counts_known = false;
  }
  run.send_times_known = true;
  run.intended_times_known = false;  // the export keeps the sends, not the schedule
  return true;
}

}  // namespace detail
}  // namespace measurements
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace measurements {

HEADROOM_DECL benchmark_file read_genai_perf(std::string_view text, const read_options& options) {
  return detail::read_json_file(
      text, options, ::headroom::detail::json_non_finite::refuse,
      [&](::headroom::detail::json_value root, std::vector<benchmark_run>& runs,
          read_error& error) {
        return detail::genai_perf_reader(text, root, options, runs, error).read();
      });
}

}  // namespace measurements
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

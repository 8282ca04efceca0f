// SPDX-License-Identifier: Apache-2.0
// What several examples read from the files users already have, with one spelling and one
// message each: a Hugging Face model card (config.json), a price list (accelerator,
// price_per_gpu_hour), a per-minute traffic CSV and a public trace (--trace FORMAT FILE).
// Not part of the library; every failure is the flags' one line on stderr and exit status 2.
#pragma once

#include <headroom/plan/model_card.hpp>
#include <headroom/plan/problem.hpp>
#include <headroom/roofline.hpp>
#include <headroom/sim/fleet_day.hpp>
#include <headroom/sim/requests.hpp>
#include <headroom/traces.hpp>

#include <chrono>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flags.hpp"

namespace example {

/// The formats --trace FORMAT FILE takes (docs/traces.md).
inline const std::vector<std::string> trace_formats{"azure-conv", "azure-code", "burstgpt",
                                                    "mooncake"};

/// The library's trace_format of a --trace FORMAT (one of trace_formats).
inline headroom::traces::trace_format trace_format_of(std::string_view format) {
  return format == "burstgpt"   ? headroom::traces::trace_format::burstgpt
         : format == "mooncake" ? headroom::traces::trace_format::mooncake
                                : headroom::traces::trace_format::azure;
}

/// The bytes of `path`, or f's one-line failure "cannot read 'path'".
inline std::string read_whole_file(const flags& f, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) f.fail("cannot read '" + path + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) f.fail("cannot read '" + path + "'");
  return text;
}

// ---- model cards ----------------------------------------------------------------------------

/// A --precision or --kv-cache value: "auto" (as the card says) or a format.
inline std::optional<headroom::roofline::numeric_format> format_flag(std::string_view text) {
  if (text == "bf16") return headroom::roofline::numeric_format::bf16;
  if (text == "fp16") return headroom::roofline::numeric_format::fp16;
  if (text == "fp8") return headroom::roofline::numeric_format::fp8;
  return std::nullopt;  // "auto"
}

/// A model's name from its card's path: the file's name without ".json", or for a file
/// named config.json the folder holding it ("models/Llama-3.1-8B/config.json" →
/// "Llama-3.1-8B"); characters a CSV label cannot hold (',', '"', space, newline) become '_'.
inline std::string model_name_of(const std::string& path) {
  std::string_view p = path;
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  std::size_t slash = p.rfind('/');
  std::string_view file = slash == std::string_view::npos ? p : p.substr(slash + 1);
  if (file == "config.json" && slash != std::string_view::npos && slash > 0) {
    const std::string_view folder = p.substr(0, slash);
    const std::size_t up = folder.rfind('/');
    file = up == std::string_view::npos ? folder : folder.substr(up + 1);
  }
  if (file.size() > 5 && file.substr(file.size() - 5) == ".json") file.remove_suffix(5);
  std::string name(file);
  for (char& c : name)
    if (c == ',' || c == '"' || c == ' ' || c == '\n' || c == '\r' || c == '\t') c = '_';
  return name.empty() ? std::string("model") : name;
}

/// One --model FILE: the card and the planner's shape of it.
struct model_input {
  std::string path{};
  headroom::plan::model_card card{};
  headroom::plan::model_shape shape{};
};

/// Reads the card at `path` (a refusal is "path: byte N (field "x"): reason") and makes its
/// model_shape with --precision and --kv-cache ("auto": as the card says).
inline model_input read_model(const flags& f, const std::string& path, const std::string& precision,
                              const std::string& kv_cache) {
  namespace plan = headroom::plan;
  const plan::model_card_read read = plan::read_model_card(read_whole_file(f, path));
  if (!read.ok()) f.fail(path + ": " + read.error.message());
  model_input m{.path = path, .card = *read.card, .shape = {}};
  try {
    m.shape = plan::to_model_shape(m.card, {.name = model_name_of(path),
                                            .precision = format_flag(precision),
                                            .kv_cache = format_flag(kv_cache)});
  } catch (const std::exception& e) {  // --precision fp8 of a card quantized otherwise, say
    f.fail(path + ": " + e.what());
  }
  return m;
}

// ---- price lists ----------------------------------------------------------------------------

/// The catalog's names, for messages: "H100 SXM, H100 PCIe, …".
inline std::string catalog_names() {
  std::string out;
  for (const auto& spec : headroom::roofline::accelerators::all) {
    if (!out.empty()) out += ", ";
    out += spec.name;
  }
  return out;
}

/// "path:line: why", f's one-line failure.
[[noreturn]] inline void fail_at_line(const flags& f, const std::string& path, std::size_t line,
                                      const std::string& why) {
  f.fail(path + ":" + std::to_string(line) + ": " + why);
}

/// Reads a price list: the header `accelerator,price_per_gpu_hour`, then one line per
/// accelerator of the catalog (headroom::roofline::accelerators::all, by its exact name) with its
/// price per GPU-hour in (0, 1e6]. Blank lines and "\r\n" endings are fine; anything else is
/// "path:line: reason". Each option takes its datasheet link and, where there is one, its
/// shipped calibration.
inline std::vector<headroom::plan::accelerator_option> read_prices(const flags& f,
                                                                   const std::string& path) {
  const std::string text = read_whole_file(f, path);
  std::vector<headroom::plan::accelerator_option> out;
  std::size_t number = 0;
  bool header = false;
  std::string_view rest = text;
  while (!rest.empty()) {
    ++number;
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!header) {
      if (line != "accelerator,price_per_gpu_hour")
        fail_at_line(f, path, number, "the first line must be 'accelerator,price_per_gpu_hour'");
      header = true;
      continue;
    }
    const std::size_t comma = line.find(',');
    if (comma == std::string_view::npos || line.find(',', comma + 1) != std::string_view::npos)
      fail_at_line(f, path, number, "expected two fields, accelerator,price_per_gpu_hour");
    const std::string name(line.substr(0, comma));
    const auto spec = headroom::roofline::find_accelerator(name);
    if (!spec)
      fail_at_line(f, path, number,
                   "'" + name + "' is not in the catalog (" + catalog_names() + ")");
    double price = 0;
    if (!parse_number(line.substr(comma + 1), price) || !(price > 0 && price <= 1e6))
      fail_at_line(f, path, number,
                   "price_per_gpu_hour must be a number in (0, 1000000], got '" +
                       std::string(line.substr(comma + 1)) + "'");
    for (const auto& o : out)
      if (o.spec.name == spec->name)
        fail_at_line(f, path, number, "'" + name + "' is listed twice");
    out.push_back({.spec = *spec, .price_per_gpu_hour = price});
  }
  if (!header) f.fail(path + ": empty: expected 'accelerator,price_per_gpu_hour' and rows");
  if (out.empty()) f.fail(path + ": no accelerator listed");
  return out;
}

// ---- traffic --------------------------------------------------------------------------------

/// Where traffic comes from: a per-minute CSV, a trace, or neither (the reference day).
struct traffic_input {
  std::string traffic_file{};  ///< --traffic FILE
  std::string trace_format{};  ///< --trace FORMAT FILE: the format (empty: no trace)
  std::string trace_file{};    ///< and the file
  double speed = 1.0;          ///< --speed: replay this many times faster
  double from_minutes = 0.0;   ///< --from
  double to_minutes = 0.0;     ///< --to (0: the trace's end)
};

/// Registers --traffic, --trace FORMAT FILE, --speed, --from and --to on `f`.
inline void traffic_flags(flags& f, traffic_input& t) {
  f.text("--traffic", t.traffic_file, "FILE",
         "traffic CSV: one row per minute, the rate in requests/s in the last column, a "
         "header row allowed",
         "the reference day, sim::reference_day_traffic")
      .choice_and_file("--trace", t.trace_format, trace_formats, t.trace_file,
                       "read the traffic from a public trace FILE in FORMAT (docs/traces.md): "
                       "its arrivals per minute")
      .number("--speed", t.speed, {0, 1e6, true, false}, "times",
              "with --trace: replay the trace this many times faster")
      .number("--from", t.from_minutes, {0, 1e8}, "minutes",
              "with --trace: start this long after the trace's first request")
      .number("--to", t.to_minutes, {0, 1e8}, "minutes",
              "with --trace: stop this long after the trace's first request (0: its end)");
}

/// The trace window --speed, --from and --to state.
inline headroom::traces::trace_options trace_window(const traffic_input& t) {
  using minutes = std::chrono::duration<double, std::ratio<60>>;
  headroom::traces::trace_options window{.speed = t.speed, .from = minutes(t.from_minutes)};
  if (t.to_minutes > 0) window.to = minutes(t.to_minutes);
  return window;
}

/// The traffic per minute, requests/s: the trace's arrivals (after the speed-up), the CSV's
/// rates, or sim::reference_day_traffic().
inline std::vector<double> read_traffic(const flags& f, const traffic_input& t) {
  if (!t.trace_format.empty()) {
    if (!t.traffic_file.empty()) f.fail("--trace and --traffic exclude each other");
    try {
      return headroom::traces::read_trace_rates(trace_format_of(t.trace_format),
                                                headroom::traces::trace_file(t.trace_file),
                                                trace_window(t));
    } catch (const std::exception& e) {  // "file:line: reason", or a file that cannot be read
      f.fail(e.what());
    }
  }
  if (t.traffic_file.empty()) return headroom::sim::reference_day_traffic();
  std::ifstream in(t.traffic_file, std::ios::binary);
  if (!in) f.fail("cannot read traffic file '" + t.traffic_file + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) f.fail("cannot read traffic file '" + t.traffic_file + "'");
  auto parsed = headroom::sim::parse_traffic_csv(text);
  if (!parsed.ok())
    f.fail(t.traffic_file + ":" + std::to_string(parsed.error_line) + ": " + parsed.error);
  return std::move(parsed.rates_per_second);
}

/// The prompt and output lengths of a trace's requests in the window, in order (0 tokens
/// become 1); a bad file, or one with no request in the window, is f's one-line failure.
inline std::vector<headroom::sim::request_lengths> read_trace_lengths(
    const flags& f, const std::string& format, const std::string& path,
    const headroom::traces::trace_options& window = {}) {
  try {
    auto lengths = headroom::traces::read_trace_lengths<headroom::sim::request_lengths>(
        trace_format_of(format), headroom::traces::trace_file(path), window);
    if (lengths.empty()) f.fail("'" + path + "' holds no request");
    return lengths;
  } catch (const std::exception& e) {  // "file:line: reason", or a file that cannot be read
    f.fail(e.what());
  }
}

}  // namespace example

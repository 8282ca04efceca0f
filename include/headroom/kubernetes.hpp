// SPDX-License-Identifier: Apache-2.0
// Kubernetes manifests from measured capacity: the per-replica in-flight target
// L* = ρ*·μ*·W̄ (SPEC §2), a PromQL query for the in-flight total of one model, and YAML for
// an autoscaling/v2 HorizontalPodAutoscaler and a KEDA (keda.sh/v1alpha1) ScaledObject whose
// min/max replicas, targets and behavior are those of a headroom::autoscaler_config, so the
// cluster's HPA and the library's controller decide alike. See docs/integrations.md.
//
// Output: writers append YAML text to a std::string (no streams). Field names are the APIs'
// own; strings that YAML could misread (numbers, booleans, anything with ':' or '"') are
// quoted; numbers that the APIs type as quantities or strings are quoted decimals ("51",
// "51.2"), which both Kubernetes quantities and KEDA's float-parsed thresholds accept.
//
// Errors: names Kubernetes would reject (not DNS-1123), empty names, non-positive targets,
// settings the APIs cannot express (an Object metric without its described object, a window
// over the API's cap) throw headroom::invalid_argument naming the parameter. Library-only
// settings that change no field (reserve_replicas, ...) are kept as YAML comments.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "autoscaler.hpp"
#include "detail/checks.hpp"
#include "error.hpp"
#include "prometheus.hpp"
#include "queueing.hpp"

namespace headroom {
inline namespace v0 {
namespace kubernetes {

// ---- the per-replica target -----------------------------------------------------------------

/// How in_flight_target() turns L* into the number written in a manifest. Both round DOWN, so
/// the fleet never runs above ρ*μ* because of rounding: whole gives an integer (51.2 -> 51, what
/// people write; at most 1/L* below L*), milli keeps three decimals (51.2 -> 51.2, which the API
/// server canonicalises to "51200m"; KEDA would truncate finer values to milli-units anyway).
enum class target_rounding : std::uint8_t { whole, milli };

namespace detail {
/// floor(value * scale) / scale, snapping values within a few ulps of the next step to it, so
/// that 4.35 (4349.9999... milli) stays 4.35 and 51.2 stays 51.2.
[[nodiscard]] inline double floor_to(double value, double scale) noexcept {
  const double scaled = value * scale;
  const double nearest = std::round(scaled);
  const double snapped = std::abs(scaled - nearest) <= 1e-9 * std::max(1.0, std::abs(nearest))
                             ? nearest
                             : std::floor(scaled);
  return snapped / scale;
}
}  // namespace detail

/// Target in-flight requests per replica for a manifest: L* = ρ*·μ*·W̄ (queueing.hpp's
/// target_concurrency) rounded down as `rounding` says. SPEC: 0.8 × 8 req/s × 8 s = 51.2 -> 51.
/// rho_target in (0, 1], capacity_per_second > 0, mean_sojourn > 0; throws when the rounded
/// target is 0 (parameter "rounding": use target_rounding::milli or revisit the inputs).
[[nodiscard]] inline double in_flight_target(double rho_target, double capacity_per_second,
                                             std::chrono::duration<double> mean_sojourn,
                                             target_rounding rounding = target_rounding::whole) {
  if (!(mean_sojourn.count() > 0.0 && headroom::detail::is_finite(mean_sojourn.count())))
    headroom::detail::fail("mean_sojourn", mean_sojourn, "must be a finite duration > 0");
  headroom::detail::require_unit_positive("rho_target", rho_target);
  headroom::detail::require_positive("capacity_per_second", capacity_per_second);
  const double exact = target_concurrency({.target_utilization = rho_target,
                                           .capacity_per_second = capacity_per_second,
                                           .mean_sojourn = mean_sojourn});
  const double rounded = detail::floor_to(exact, rounding == target_rounding::whole ? 1.0 : 1000.0);
  if (!(rounded > 0.0))
    headroom::detail::fail("rounding", exact,
                           "the target rho*mu*W rounds down to 0 in-flight requests per replica");
  if (!(rounded <= 1e15)) headroom::detail::fail("capacity_per_second", exact, "target too large");
  return rounded;
}

// ---- names Kubernetes validates -------------------------------------------------------------

/// True for a DNS-1123 label: 1-63 characters of [a-z0-9-], starting and ending alphanumeric
/// (Kubernetes namespaces).
[[nodiscard]] constexpr bool is_dns1123_label(std::string_view s) noexcept {
  if (s.empty() || s.size() > 63) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (const char c : s)
    if (!alnum(c) && c != '-') return false;
  return true;
}

/// True for a DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels
/// (object names such as Deployments, HPAs and ScaledObjects).
[[nodiscard]] constexpr bool is_dns1123_subdomain(std::string_view s) noexcept {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view part =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_dns1123_label(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// True for a name the API accepts as a URL path segment (metric names, kinds): not empty,
/// not "." or "..", and without '/' or '%'.
[[nodiscard]] constexpr bool is_path_segment_name(std::string_view s) noexcept {
  return !s.empty() && s != "." && s != ".." && s.find_first_of("/%") == std::string_view::npos;
}

// ---- PromQL ---------------------------------------------------------------------------------

namespace detail {
[[nodiscard]] constexpr bool is_promql_metric_name(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}
[[nodiscard]] constexpr bool is_promql_label_name(std::string_view s) noexcept {
  return is_promql_metric_name(s) && s.find(':') == std::string_view::npos;
}

/// The code point of the UTF-8 sequence at s[i] and its length in bytes; length 0 when the
/// bytes there are not valid UTF-8 (overlong, surrogate, past U+10FFFF, cut short).
struct utf8_char {
  char32_t code = 0;
  std::size_t length = 0;
};
[[nodiscard]] constexpr utf8_char decode_utf8(std::string_view s, std::size_t i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  std::size_t n = 0;
  char32_t code = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    code = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    code = b0 & 0x0Fu;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    code = b0 & 0x07u;
  } else {
    return {};
  }
  if (s.size() - i < n) return {};
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0u) != 0x80u) return {};
    code = (code << 6) | (b & 0x3Fu);
  }
  const bool overlong = (n == 3 && code < 0x800) || (n == 4 && code < 0x10000);
  if (overlong || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, n};
}

/// True for a character a YAML scalar may hold raw, as a YAML 1.1 parser (PyYAML, kubectl's
/// sigs.k8s.io/yaml) reads it too: YAML 1.2's c-printable (x09, x0A, x0D, x20-x7E, x85,
/// xA0-xD7FF, xE000-xFFFD, x10000-x10FFFF) less the tab and line breaks, and less NEL
/// (U+0085), LS (U+2028) and PS (U+2029), which YAML 1.1 reads as line breaks (U+0085 comes
/// back as a space), and the byte order mark U+FEFF.
[[nodiscard]] constexpr bool yaml_raw_safe(char32_t c) noexcept {
  if (c < 0x80) return c >= 0x20 && c != 0x7F;
  if (c < 0xA0) return false;  // C1 controls, NEL among them
  if (c == 0x2028 || c == 0x2029 || c == 0xFEFF) return false;
  if (c >= 0xD800 && c <= 0xDFFF) return false;  // surrogates (not in valid UTF-8 anyway)
  return c != 0xFFFE && c != 0xFFFF;
}

/// Appends `value` double-quoted with escapes that PromQL (Go string literals) and YAML
/// double-quoted scalars read alike: \\ and \", \n \t \r, other ASCII controls and DEL
/// as \xhh, every other character yaml_raw_safe() refuses as \uhhhh (C1 controls, NEL, LS,
/// PS, U+FEFF, U+FFFE, U+FFFF). Other characters are copied as they are. A byte that is not
/// part of valid UTF-8 is written \xhh, which Go reads as that byte (YAML would read U+00hh:
/// the manifests' strings are checked to be UTF-8 before they get here).
inline void append_double_quoted(std::string& out, std::string_view value) {
  static constexpr char hex[] = "0123456789abcdef";
  const auto escape = [&out](char kind, char32_t code, int digits) {
    out += '\\';
    out += kind;
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[(code >> shift) & 0xF];
  };
  out += '"';
  for (std::size_t i = 0; i < value.size();) {
    const char c = value[i];
    const utf8_char u = decode_utf8(value, i);
    if (u.length == 0) {  // not UTF-8: the byte
      escape('x', static_cast<unsigned char>(c), 2);
      ++i;
      continue;
    }
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u.code < 0x80 && !yaml_raw_safe(u.code)) {
      escape('x', u.code, 2);
    } else if (!yaml_raw_safe(u.code)) {
      escape('u', u.code, 4);  // all refused characters lie below U+10000
    } else {
      out.append(value.substr(i, u.length));
    }
    i += u.length;
  }
  out += '"';
}
inline void append_selector(std::string& out, std::string_view metric, std::string_view label,
                            std::string_view value) {
  out += "sum(";
  out += metric;
  if (!value.empty()) {
    out += '{';
    out += label;
    out += '=';
    append_double_quoted(out, value);
    out += '}';
  }
  out += ')';
}
}  // namespace detail

/// PromQL for the fleet's in-flight total, sum(running{label="value"}) +
/// sum(waiting{label="value"}): what a KEDA AverageValue trigger divides by its threshold.
/// An empty label_value selects every series. The value, valid UTF-8, is escaped as a PromQL
/// string (append_double_quoted).
[[nodiscard]] inline std::string in_flight_query(std::string_view running_metric,
                                                 std::string_view waiting_metric,
                                                 std::string_view label_name,
                                                 std::string_view label_value) {
  if (!detail::is_promql_metric_name(running_metric))
    headroom::detail::fail("running_metric", running_metric, "must be a PromQL metric name");
  if (!detail::is_promql_metric_name(waiting_metric))
    headroom::detail::fail("waiting_metric", waiting_metric, "must be a PromQL metric name");
  if (!label_value.empty() && !detail::is_promql_label_name(label_name))
    headroom::detail::fail("label_name", label_name, "must be a PromQL label name");
  if (!prometheus::detail::valid_utf8(label_value))
    headroom::detail::fail("label_value", label_value, "must be valid UTF-8");
  std::string q;
  q.reserve(running_metric.size() + waiting_metric.size() + 2 * label_value.size() + 40);
  detail::append_selector(q, running_metric, label_name, label_value);
  q += " + ";
  detail::append_selector(q, waiting_metric, label_name, label_value);
  return q;
}

/// The same query with an engine preset's names (prometheus::vllm_preset, sglang_preset):
/// e.g. sum(vllm:num_requests_running{model_name="m"}) + sum(vllm:num_requests_waiting{...}).
[[nodiscard]] inline std::string in_flight_query(const prometheus::engine_preset& preset,
                                                 std::string_view model_name) {
  if (!detail::is_promql_metric_name(preset.running) ||
      !detail::is_promql_metric_name(preset.waiting))
    headroom::detail::fail("preset", preset.engine,
                           "must name its running and waiting metrics (PromQL metric names)");
  if (!model_name.empty() && !detail::is_promql_label_name(preset.model_label))
    headroom::detail::fail("preset", preset.engine,
                           "must name its model label (a PromQL label name) to filter by model");
  return in_flight_query(preset.running, preset.waiting, preset.model_label, model_name);
}

// ---- manifests ------------------------------------------------------------------------------

/// What a manifest scales and what it is called (metadata and scaleTargetRef).
struct scaled_workload {
  std::string name;            ///< metadata.name of the HPA / ScaledObject; DNS-1123 subdomain
  std::string namespace_name;  ///< metadata.namespace; DNS-1123 label; empty = omitted
  std::string target_name;     ///< scaleTargetRef.name (the Deployment); DNS-1123 subdomain
  std::string target_kind = "Deployment";      ///< scaleTargetRef.kind
  std::string target_api_version = "apps/v1";  ///< scaleTargetRef.apiVersion
};

/// KEDA's Prometheus triggers: one query per autoscaler_config metric, index-aligned, each
/// returning the fleet total (the config's target is the per-replica threshold).
struct keda_prometheus_options {
  std::string server_address;        ///< triggers[].metadata.serverAddress, http(s)://...
  std::vector<std::string> queries;  ///< triggers[i].metadata.query for config.metrics[i]
  /// triggers[].metadata.activationThreshold: KEDA activates 0 -> 1 above it; >= 0.
  double activation_threshold = 0.0;
  /// spec.cooldownPeriod: KEDA waits this long after the last activity before 1 -> 0; >= 0.
  std::chrono::seconds cooldown_period{300};
};

namespace detail {

inline constexpr std::int64_t max_stabilization_window_s = 3600;  // API validation cap
inline constexpr std::int64_t max_policy_period_s = 1800;         // API validation cap
inline constexpr double default_tolerance = 0.1;  // --horizontal-pod-autoscaler-tolerance

[[nodiscard]] constexpr bool yaml_keyword(std::string_view s) noexcept {
  // YAML 1.1 booleans and nulls that a plain lowercase word could be read as.
  constexpr std::string_view words[] = {"y",   "n",    "yes",   "no",  "on",
                                        "off", "true", "false", "null"};
  for (const auto w : words) {
    if (w.size() != s.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = same && c == w[i];
    }
    if (same) return true;
  }
  return false;
}

/// True when s can be written as a plain YAML scalar and read back as the same string: a
/// letter, then letters, digits and . _ / -, and not a YAML 1.1 boolean or null.
[[nodiscard]] constexpr bool yaml_plain_safe(std::string_view s) noexcept {
  if (s.empty()) return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(s.front())) return false;
  for (const char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '/' && c != '-')
      return false;
  return !yaml_keyword(s);
}

/// Appends s as a YAML string scalar: plain when safe, single-quoted ('' for ') when every
/// character may stand raw (yaml_raw_safe()), else double-quoted with escapes. s must be
/// valid UTF-8 (the writers check every string they are given).
inline void append_yaml_scalar(std::string& out, std::string_view s) {
  if (yaml_plain_safe(s)) {
    out += s;
    return;
  }
  bool printable = true;
  for (std::size_t i = 0; printable && i < s.size();) {
    const utf8_char u = decode_utf8(s, i);
    printable = u.length != 0 && yaml_raw_safe(u.code);
    i += u.length == 0 ? 1 : u.length;
  }
  if (printable) {
    out += '\'';
    for (const char c : s) {
      if (c == '\'') out += '\'';
      out += c;
    }
    out += '\'';
    return;
  }
  append_double_quoted(out, s);
}

/// A non-negative value to the nearest milli-unit, as a decimal string ("51", "51.2", "0.05").
[[nodiscard]] inline std::string decimal_milli(double value) {
  const auto milli = static_cast<std::int64_t>(std::llround(value * 1000.0));
  std::string s = std::to_string(milli / 1000);
  std::int64_t frac = milli % 1000;
  if (frac != 0) {
    int digits = 3;
    while (frac % 10 == 0) {
      frac /= 10;
      --digits;
    }
    std::string f = std::to_string(frac);
    s += '.';
    s.append(static_cast<std::size_t>(digits) - f.size(), '0');
    s += f;
  }
  return s;
}

/// A target or threshold as a quantity string: finite, > 0 and a whole number of milli-units
/// (the HPA compares milli-units; KEDA truncates its threshold to them).
[[nodiscard]] inline std::string target_quantity(const char* name, double value) {
  if (!(headroom::detail::is_finite(value) && value > 0.0 && value <= 1e15))
    headroom::detail::fail(name, value, "must be finite and > 0");
  const double milli = value * 1000.0;
  if (std::abs(milli - std::round(milli)) > 1e-6 * std::max(1.0, std::abs(milli)) ||
      std::round(milli) < 1.0)
    headroom::detail::fail(name, value,
                           "must be a whole number of milli-units (round it with "
                           "in_flight_target)");
  return decimal_milli(value);
}

/// Indentation-aware YAML line writer over a std::string.
class yaml_writer {
 public:
  explicit yaml_writer(std::string& out) noexcept : out_(out) {}
  void comment(std::string_view text) {
    out_ += "# ";
    out_ += text;
    out_ += '\n';
  }
  /// "key:" opening a nested block.
  void open(int indent, std::string_view key) {
    start(indent);
    out_ += key;
    out_ += ":\n";
  }
  /// "key: value" with value written as a YAML string.
  void string(int indent, std::string_view key, std::string_view value) {
    start(indent);
    out_ += key;
    out_ += ": ";
    append_yaml_scalar(out_, value);
    out_ += '\n';
  }
  /// "key: 15" (an integer field).
  void integer(int indent, std::string_view key, std::int64_t value) {
    start(indent);
    out_ += key;
    out_ += ": ";
    out_ += std::to_string(value);
    out_ += '\n';
  }
  /// The next key starts a sequence item ("- key: ..."); the item's keys use indent + 2.
  void item(int indent) {
    out_.append(static_cast<std::size_t>(indent), ' ');
    out_ += "- ";
    item_ = true;
  }

 private:
  void start(int indent) {
    if (!item_) out_.append(static_cast<std::size_t>(indent), ' ');
    item_ = false;
  }
  std::string& out_;
  bool item_ = false;
};

inline void check_workload(const scaled_workload& w) {
  if (!is_dns1123_subdomain(w.name))
    headroom::detail::fail("workload.name", w.name,
                           "must be a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')");
  if (!w.namespace_name.empty() && !is_dns1123_label(w.namespace_name))
    headroom::detail::fail("workload.namespace_name", w.namespace_name,
                           "must be empty or a DNS-1123 label (lowercase a-z, 0-9, '-')");
  if (!is_dns1123_subdomain(w.target_name))
    headroom::detail::fail("workload.target_name", w.target_name,
                           "must be a DNS-1123 subdomain (lowercase a-z, 0-9, '-', '.')");
  if (!is_path_segment_name(w.target_kind) || !prometheus::detail::valid_utf8(w.target_kind))
    headroom::detail::fail("workload.target_kind", w.target_kind, "must be a Kubernetes kind");
  if (w.target_api_version.empty() ||
      w.target_api_version.find_first_of(" \t\n:") != std::string::npos ||
      !prometheus::detail::valid_utf8(w.target_api_version))
    headroom::detail::fail("workload.target_api_version", w.target_api_version,
                           "must be an apiVersion such as apps/v1");
}

inline void check_rules(const scaling_rules& r, const char* window_name) {
  if (r.stabilization_window && r.stabilization_window->count() > max_stabilization_window_s)
    headroom::detail::fail(window_name, *r.stabilization_window,
                           "must be <= 3600 s (HPA stabilizationWindowSeconds)");
  for (const auto& p : r.policies)
    if (p.period.count() > max_policy_period_s)
      headroom::detail::fail("config.behavior.policies.period", p.period,
                             "must be <= 1800 s (HPA periodSeconds)");
}

/// Validates config as the autoscaler does, plus the API's caps on windows and periods.
inline void check_config(const autoscaler_config& config) {
  static_cast<void>(autoscaler(config));  // throws invalid_argument naming config.*
  if (!(config.scale_up_tolerance <= 1e6))
    headroom::detail::fail("config.scale_up_tolerance", config.scale_up_tolerance,
                           "must be <= 1e6");
  if (!(config.scale_down_tolerance <= 1e6))
    headroom::detail::fail("config.scale_down_tolerance", config.scale_down_tolerance,
                           "must be <= 1e6");
  if (config.behavior) {
    check_rules(config.behavior->scale_up, "config.behavior.scale_up.stabilization_window");
    check_rules(config.behavior->scale_down, "config.behavior.scale_down.stabilization_window");
  }
}

inline void write_metadata(yaml_writer& y, std::string_view api_version, std::string_view kind,
                           const scaled_workload& w) {
  y.string(0, "apiVersion", api_version);
  y.string(0, "kind", kind);
  y.open(0, "metadata");
  y.string(2, "name", w.name);
  if (!w.namespace_name.empty()) y.string(2, "namespace", w.namespace_name);
}

inline void write_target_ref(yaml_writer& y, const scaled_workload& w) {
  y.open(2, "scaleTargetRef");
  y.string(4, "apiVersion", w.target_api_version);
  y.string(4, "kind", w.target_kind);
  y.string(4, "name", w.target_name);
}

/// Comments for library settings that no manifest field carries.
inline void write_notes(yaml_writer& y, const autoscaler_config& c, bool hpa) {
  if (hpa && c.min_replicas == 0)
    y.comment("minReplicas 0 needs the HPAScaleToZero feature gate (KEDA does it natively).");
  const bool tolerances =
      c.scale_up_tolerance != default_tolerance || c.scale_down_tolerance != default_tolerance;
  if (!hpa && c.behavior && tolerances)
    y.comment(
        "headroom: the tolerances differ from 0.1; KEDA's behavior has no tolerance field in "
        "every release: set it by hand if yours accepts it.");
  if (!c.behavior) {
    if (tolerances)
      y.comment(
          "headroom: the tolerances differ from 0.1; without a behavior Kubernetes takes them "
          "from --horizontal-pod-autoscaler-tolerance.");
    if (c.downscale_stabilization != std::chrono::seconds{300})
      y.comment(
          "headroom: downscale_stabilization differs from 300 s; without a behavior Kubernetes "
          "takes it from --horizontal-pod-autoscaler-downscale-stabilization.");
  }
  if (c.reserve_replicas > 0)
    y.comment(
        "headroom: reserve_replicas is not expressible; raise minReplicas or lower the target.");
  if (!c.count_starting_replicas || c.hold_scale_down_while_starting)
    y.comment(
        "headroom: count_starting_replicas / hold_scale_down_while_starting are library-only.");
  if (c.behavior && !c.behavior->scale_down.stabilization_window &&
      c.downscale_stabilization != default_downscale_stabilization)
    y.comment(
        "headroom: behavior.scaleDown.stabilizationWindowSeconds is unset, so Kubernetes takes "
        "it from --horizontal-pod-autoscaler-downscale-stabilization; set the flag to match "
        "downscale_stabilization.");
}

inline void write_rules(yaml_writer& y, int indent, std::string_view key, const scaling_rules& r,
                        bool up, double tolerance, bool with_tolerance, std::int32_t max_replicas) {
  y.open(indent, key);
  // An unset window stays unset: the API server and the controller default it (0 s up, the
  // --horizontal-pod-autoscaler-downscale-stabilization flag down).
  if (r.stabilization_window)
    y.integer(indent + 2, "stabilizationWindowSeconds", r.stabilization_window->count());
  y.string(indent + 2, "selectPolicy", to_string(r.select));
  y.open(indent + 2, "policies");
  if (r.policies.empty()) {
    // The library's "unlimited" (the API rejects an empty list), exactly: up, Pods maxReplicas
    // per 1 s allows start + max >= maxReplicas, so only the max clamp binds; down, Percent 100
    // per 1 s allows trunc(start * 0) = 0 <= minReplicas, so only the min clamp binds.
    y.item(indent + 4);
    y.string(indent + 6, "type", up ? "Pods" : "Percent");
    y.integer(indent + 6, "value", up ? max_replicas : 100);
    y.integer(indent + 6, "periodSeconds", 1);
  }
  for (const auto& p : r.policies) {
    y.item(indent + 4);
    y.string(indent + 6, "type", to_string(p.type));
    y.integer(indent + 6, "value", p.value);
    y.integer(indent + 6, "periodSeconds", p.period.count());
  }
  // spec.behavior.*.tolerance (Kubernetes 1.33+, feature gate HPAConfigurableTolerance).
  if (with_tolerance && tolerance != default_tolerance)
    y.string(indent + 2, "tolerance", decimal_milli(tolerance));
}

inline void write_behavior(yaml_writer& y, int indent, const autoscaler_config& c,
                           bool with_tolerance) {
  if (!c.behavior) return;
  y.open(indent, "behavior");
  write_rules(y, indent + 2, "scaleUp", c.behavior->scale_up, true, c.scale_up_tolerance,
              with_tolerance, c.max_replicas);
  write_rules(y, indent + 2, "scaleDown", c.behavior->scale_down, false, c.scale_down_tolerance,
              with_tolerance, c.max_replicas);
}

inline void check_metric_name(const metric_spec& m) {
  if (!is_path_segment_name(m.name) || !prometheus::detail::valid_utf8(m.name))
    headroom::detail::fail("config.metrics.name", m.name,
                           "must be valid UTF-8, non-empty, not '.' or '..', without '/' or '%'");
}

inline void write_hpa_target(yaml_writer& y, int indent, const metric_spec& m) {
  y.open(indent, "target");
  y.string(indent + 2, "type", to_string(m.target_type));
  switch (m.target_type) {
    case metric_target_type::utilization: {
      if (m.target != std::floor(m.target) || m.target > 1e9)
        headroom::detail::fail("config.metrics.target", m.target,
                               "must be a whole percent for averageUtilization");
      y.integer(indent + 2, "averageUtilization", static_cast<std::int64_t>(m.target));
      break;
    }
    case metric_target_type::value:
      y.string(indent + 2, "value", target_quantity("config.metrics.target", m.target));
      break;
    case metric_target_type::average_value:
      y.string(indent + 2, "averageValue", target_quantity("config.metrics.target", m.target));
      break;
  }
}

}  // namespace detail

/// Appends an autoscaling/v2 HorizontalPodAutoscaler for `workload` with `config`'s
/// minReplicas, maxReplicas, metrics (Resource, Pods, External; Object needs a described
/// object and throws) and behavior (omitted when config.behavior is nullopt). Pods/External
/// metric names must be served by a metrics adapter (docs/integrations.md).
inline void append_horizontal_pod_autoscaler(std::string& out, const scaled_workload& workload,
                                             const autoscaler_config& config) {
  detail::check_workload(workload);
  detail::check_config(config);
  for (const auto& m : config.metrics) {
    detail::check_metric_name(m);
    if (m.source == metric_source::object)
      headroom::detail::fail("config.metrics.source", m.name,
                             "an Object metric needs a describedObject; use External");
    if (m.source == metric_source::container_resource)
      headroom::detail::fail("config.metrics.source", m.name,
                             "a ContainerResource metric needs a container name; use Resource");
  }
  detail::yaml_writer y(out);
  detail::write_notes(y, config, true);
  detail::write_metadata(y, "autoscaling/v2", "HorizontalPodAutoscaler", workload);
  y.open(0, "spec");
  detail::write_target_ref(y, workload);
  y.integer(2, "minReplicas", config.min_replicas);
  y.integer(2, "maxReplicas", config.max_replicas);
  y.open(2, "metrics");
  for (const auto& m : config.metrics) {
    y.item(4);
    y.string(6, "type", to_string(m.source));
    switch (m.source) {
      case metric_source::resource:
        y.open(6, "resource");
        y.string(8, "name", m.name);
        detail::write_hpa_target(y, 8, m);
        break;
      case metric_source::pods:
      case metric_source::external:
      case metric_source::object:              // rejected above
      case metric_source::container_resource:  // rejected above
        y.open(6, m.source == metric_source::pods ? "pods" : "external");
        y.open(8, "metric");
        y.string(10, "name", m.name);
        detail::write_hpa_target(y, 8, m);
        break;
    }
  }
  detail::write_behavior(y, 2, config, true);
}

/// Appends a KEDA ScaledObject (keda.sh/v1alpha1) for `workload`: pollingInterval from
/// config.sync_period (whole seconds), cooldownPeriod, min/maxReplicaCount, the behavior under
/// advanced.horizontalPodAutoscalerConfig, and one prometheus trigger per config metric with
/// metricType AverageValue/Value and threshold = the metric's target (Resource/Utilization
/// metrics throw: they have no Prometheus trigger here).
inline void append_scaled_object(std::string& out, const scaled_workload& workload,
                                 const autoscaler_config& config,
                                 const keda_prometheus_options& keda) {
  detail::check_workload(workload);
  detail::check_config(config);
  const auto& addr = keda.server_address;
  if (!(addr.starts_with("http://") || addr.starts_with("https://")) || addr.size() < 9 ||
      !prometheus::detail::valid_utf8(addr))
    headroom::detail::fail("keda.server_address", addr, "must be an http:// or https:// URL");
  if (keda.queries.size() != config.metrics.size())
    headroom::detail::fail("keda.queries", keda.queries.size(),
                           "must hold one query per config.metrics entry");
  for (const auto& q : keda.queries)
    if (q.find_first_not_of(" \t\n") == std::string::npos)
      headroom::detail::fail("keda.queries", q, "must not be empty");
    else if (!prometheus::detail::valid_utf8(q))
      headroom::detail::fail("keda.queries", q, "must be valid UTF-8");
  const double act = keda.activation_threshold;
  if (!(headroom::detail::is_finite(act) && act >= 0.0 && act <= 1e15))
    headroom::detail::fail("keda.activation_threshold", act, "must be finite and >= 0");
  if (keda.cooldown_period.count() < 0 ||
      keda.cooldown_period.count() > std::numeric_limits<std::int32_t>::max())
    headroom::detail::fail("keda.cooldown_period", keda.cooldown_period, "must be >= 0");
  const auto polling = config.sync_period;
  if (polling.count() % 1000 != 0 ||
      polling.count() / 1000 > std::numeric_limits<std::int32_t>::max())
    headroom::detail::fail("config.sync_period", polling,
                           "must be whole seconds (KEDA pollingInterval)");
  for (const auto& m : config.metrics)
    if (m.source == metric_source::resource || m.source == metric_source::container_resource ||
        m.target_type == metric_target_type::utilization)
      headroom::detail::fail("config.metrics.source", m.name,
                             "a Resource/Utilization metric has no prometheus trigger");

  detail::yaml_writer y(out);
  detail::write_notes(y, config, false);
  detail::write_metadata(y, "keda.sh/v1alpha1", "ScaledObject", workload);
  y.open(0, "spec");
  detail::write_target_ref(y, workload);
  y.integer(2, "pollingInterval", polling.count() / 1000);
  y.integer(2, "cooldownPeriod", keda.cooldown_period.count());
  y.integer(2, "minReplicaCount", config.min_replicas);
  y.integer(2, "maxReplicaCount", config.max_replicas);
  if (config.behavior) {
    y.open(2, "advanced");
    y.open(4, "horizontalPodAutoscalerConfig");
    detail::write_behavior(y, 6, config, false);
  }
  y.open(2, "triggers");
  for (std::size_t i = 0; i < config.metrics.size(); ++i) {
    const auto& m = config.metrics[i];
    y.item(4);
    y.string(6, "type", "prometheus");
    y.string(6, "metricType", to_string(m.target_type));
    y.open(6, "metadata");
    y.string(8, "serverAddress", addr);
    y.string(8, "query", keda.queries[i]);
    y.string(8, "threshold", detail::target_quantity("config.metrics.target", m.target));
    y.string(8, "activationThreshold", detail::decimal_milli(act));
  }
}

/// The HorizontalPodAutoscaler as a new string (see append_horizontal_pod_autoscaler()).
[[nodiscard]] inline std::string horizontal_pod_autoscaler_yaml(const scaled_workload& workload,
                                                                const autoscaler_config& config) {
  std::string out;
  append_horizontal_pod_autoscaler(out, workload, config);
  return out;
}

/// The ScaledObject as a new string (see append_scaled_object()).
[[nodiscard]] inline std::string scaled_object_yaml(const scaled_workload& workload,
                                                    const autoscaler_config& config,
                                                    const keda_prometheus_options& keda) {
  std::string out;
  append_scaled_object(out, workload, config, keda);
  return out;
}

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// Kubernetes manifests from measured capacity: the per-replica in-flight target
// L* = ρ*·μ*·W̄ (docs/queueing.md, target_concurrency), a PromQL query for the in-flight total of
// one model, and YAML for an autoscaling/v2 HorizontalPodAutoscaler and a KEDA (keda.sh/v1alpha1)
// ScaledObject whose min/max replicas, targets and behavior are those of a
// headroom::autoscaler_config, so the cluster's HPA and the library's controller decide alike. See
// docs/integrations.md.
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
#include "detail/utf8.hpp"
#include "error.hpp"
#include "kubernetes/yaml.hpp"
#include "prometheus/engines.hpp"
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
/// The largest target or threshold written: its milli-units (x 1000) stay far inside int64,
/// where decimal_milli's rounding is defined.
inline constexpr double largest_quantity = 1e15;
/// Relative distance within which floor_to takes a value for the step it rounds to: a few
/// thousand ulps, far below a milli-unit, far above the error of rho x mu x W.
inline constexpr double snap_tolerance = 1e-9;
/// Relative distance within which a target counts as a whole number of milli-units.
inline constexpr double whole_milli_tolerance = 1e-6;
/// The largest tolerance written: a band a million times the target, beyond which no ratio
/// scales anyway; it keeps decimal_milli's milli-units in range.
inline constexpr double largest_tolerance = 1e6;

/// floor(value * scale) / scale, snapping values within snap_tolerance of the next step to
/// it, so that 4.35 (4349.9999... milli) stays 4.35 and 51.2 stays 51.2.
[[nodiscard]] inline double floor_to(double value, double scale) noexcept {
  const double scaled = value * scale;
  const double nearest = std::round(scaled);
  const double snapped =
      std::abs(scaled - nearest) <= snap_tolerance * std::max(1.0, std::abs(nearest))
          ? nearest
          : std::floor(scaled);
  return snapped / scale;
}
}  // namespace detail

/// Target in-flight requests per replica for a manifest: L* = ρ*·μ*·W̄ (queueing.hpp's
/// target_concurrency) rounded down as `rounding` says: 0.8 × 8 req/s × 8 s = 51.2 -> 51.
/// rho_target in (0, 1], capacity_per_second > 0, mean_sojourn > 0; throws when the rounded
/// target is 0 (parameter "rounding": use target_rounding::milli or revisit the inputs).
[[nodiscard]] inline double in_flight_target(double rho_target, double capacity_per_second,
                                             std::chrono::duration<double> mean_sojourn,
                                             target_rounding rounding = target_rounding::whole) {
  if (!(mean_sojourn.count() > 0.0 && headroom::detail::is_finite(mean_sojourn.count())))
    headroom::detail::fail("mean_sojourn", mean_sojourn, "must be a finite duration > 0");
  headroom::detail::require_unit_positive("rho_target", rho_target);
  headroom::detail::require_positive("capacity_per_second", capacity_per_second);
  const double exact = target_concurrency(rho_target, capacity_per_second, mean_sojourn);
  const double scale =
      rounding == target_rounding::whole ? 1.0 : static_cast<double>(milli_per_unit);
  const double rounded = detail::floor_to(exact, scale);
  if (!(rounded > 0.0))
    headroom::detail::fail("rounding", exact,
                           "the target rho*mu*W rounds down to 0 in-flight requests per replica");
  if (!(rounded <= detail::largest_quantity))
    headroom::detail::fail("capacity_per_second", exact, "target too large");
  return rounded;
}

// ---- names Kubernetes validates -------------------------------------------------------------

/// Kubernetes' DNS1123LabelMaxLength and DNS1123SubdomainMaxLength
/// (k8s.io/apimachinery/pkg/util/validation).
inline constexpr std::size_t dns1123_label_max_length = 63;
inline constexpr std::size_t dns1123_subdomain_max_length = 253;

/// True for a DNS-1123 label: 1-63 characters of [a-z0-9-], starting and ending alphanumeric
/// (Kubernetes namespaces).
[[nodiscard]] constexpr bool is_dns1123_label(std::string_view s) noexcept {
  if (s.empty() || s.size() > dns1123_label_max_length) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (const char c : s)
    if (!alnum(c) && c != '-') return false;
  return true;
}

/// True for a DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels
/// (object names such as Deployments, HPAs and ScaledObjects).
[[nodiscard]] constexpr bool is_dns1123_subdomain(std::string_view s) noexcept {
  if (s.empty() || s.size() > dns1123_subdomain_max_length) return false;
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
  if (!headroom::detail::valid_utf8(label_value))
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
  std::string name{};            ///< metadata.name of the HPA / ScaledObject; DNS-1123 subdomain
  std::string namespace_name{};  ///< metadata.namespace; DNS-1123 label; empty = omitted
  std::string target_name{};     ///< scaleTargetRef.name (the Deployment); DNS-1123 subdomain
  std::string target_kind = "Deployment";      ///< scaleTargetRef.kind
  std::string target_api_version = "apps/v1";  ///< scaleTargetRef.apiVersion
};

/// KEDA's default spec.cooldownPeriod.
inline constexpr std::chrono::seconds keda_default_cooldown_period{300};

/// One KEDA Prometheus trigger: the query that returns the fleet total of one of the
/// config's metrics (whose target is the per-replica threshold), paired with it by name.
struct keda_prometheus_trigger {
  std::string metric_name{};  ///< the autoscaler_config::metrics entry it serves, by its name
  std::string query{};        ///< triggers[].metadata.query: PromQL, the fleet total
  /// triggers[].metadata.activationThreshold: KEDA scales 0 -> 1 once a trigger's query
  /// exceeds its own; >= 0.
  double activation_threshold = 0.0;
};

/// KEDA's Prometheus triggers and the ScaledObject's cooldown.
struct keda_prometheus_options {
  std::string server_address{};  ///< triggers[].metadata.serverAddress, http(s)://...
  /// One trigger per config.metrics entry, matched by metric name (in any order); written in
  /// the order of config.metrics.
  std::vector<keda_prometheus_trigger> triggers{};
  /// spec.cooldownPeriod: KEDA waits this long after the last activity before 1 -> 0; >= 0.
  std::chrono::seconds cooldown_period = keda_default_cooldown_period;
};

namespace detail {

/// The HPA API's caps (pkg/apis/autoscaling/validation): stabilizationWindowSeconds and
/// periodSeconds.
inline constexpr std::int64_t max_stabilization_window_s = 3600;
inline constexpr std::int64_t max_policy_period_s = 1800;

/// A target or threshold as a quantity string: finite, > 0 and a whole number of milli-units
/// (the HPA compares milli-units; KEDA truncates its threshold to them).
[[nodiscard]] inline std::string target_quantity(const char* name, double value) {
  if (!(headroom::detail::is_finite(value) && value > 0.0 && value <= largest_quantity))
    headroom::detail::fail(name, value, "must be finite and > 0");
  const double milli = value * static_cast<double>(milli_per_unit);
  if (std::abs(milli - std::round(milli)) >
          whole_milli_tolerance * std::max(1.0, std::abs(milli)) ||
      std::round(milli) < 1.0)
    headroom::detail::fail(name, value,
                           "must be a whole number of milli-units (round it with "
                           "in_flight_target)");
  return decimal_milli(value);
}

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
  if (!is_path_segment_name(w.target_kind) || !headroom::detail::valid_utf8(w.target_kind))
    headroom::detail::fail("workload.target_kind", w.target_kind, "must be a Kubernetes kind");
  if (w.target_api_version.empty() ||
      w.target_api_version.find_first_of(" \t\n:") != std::string::npos ||
      !headroom::detail::valid_utf8(w.target_api_version))
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
  if (!(config.scale_up_tolerance <= largest_tolerance))
    headroom::detail::fail("config.scale_up_tolerance", config.scale_up_tolerance,
                           "must be <= 1e6");
  if (!(config.scale_down_tolerance <= largest_tolerance))
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

/// Which manifest a writer writes: the behavior's tolerance field and some notes differ.
enum class manifest_kind : std::uint8_t { horizontal_pod_autoscaler, scaled_object };

/// Comments for library settings that no manifest field carries.
inline void write_notes(yaml_writer& y, const autoscaler_config& c, manifest_kind kind) {
  const bool hpa = kind == manifest_kind::horizontal_pod_autoscaler;
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
    if (c.downscale_stabilization != default_downscale_stabilization)
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

/// The "unlimited" policy written for an empty policy list: each period is the shortest the
/// API accepts; down, a Percent policy of the whole fleet.
inline constexpr std::int64_t unlimited_policy_period_s = 1;
inline constexpr std::int64_t whole_fleet_percent = 100;

/// One direction's HPAScalingRules; its tolerance only in an HPA, and only when it is not
/// the default.
inline void write_rules(yaml_writer& y, int indent, const scaling_rules& r,
                        headroom::detail::scale_direction direction, double tolerance,
                        manifest_kind kind, std::int32_t max_replicas) {
  const bool up = direction == headroom::detail::scale_direction::up;
  y.open(indent, up ? "scaleUp" : "scaleDown");
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
    y.integer(indent + 6, "value", up ? max_replicas : whole_fleet_percent);
    y.integer(indent + 6, "periodSeconds", unlimited_policy_period_s);
  }
  for (const auto& p : r.policies) {
    y.item(indent + 4);
    y.string(indent + 6, "type", to_string(p.type));
    y.integer(indent + 6, "value", p.value);
    y.integer(indent + 6, "periodSeconds", p.period.count());
  }
  // spec.behavior.*.tolerance (Kubernetes 1.33+, feature gate HPAConfigurableTolerance).
  if (kind == manifest_kind::horizontal_pod_autoscaler && tolerance != default_tolerance)
    y.string(indent + 2, "tolerance", decimal_milli(tolerance));
}

/// spec.behavior (an HPA) or advanced.horizontalPodAutoscalerConfig.behavior (KEDA).
inline void write_behavior(yaml_writer& y, int indent, const autoscaler_config& c,
                           manifest_kind kind) {
  if (!c.behavior) return;
  y.open(indent, "behavior");
  write_rules(y, indent + 2, c.behavior->scale_up, headroom::detail::scale_direction::up,
              c.scale_up_tolerance, kind, c.max_replicas);
  write_rules(y, indent + 2, c.behavior->scale_down, headroom::detail::scale_direction::down,
              c.scale_down_tolerance, kind, c.max_replicas);
}

inline void check_metric_name(const metric_spec& m) {
  if (!is_path_segment_name(m.name) || !headroom::detail::valid_utf8(m.name))
    headroom::detail::fail("config.metrics.name", m.name,
                           "must be valid UTF-8, non-empty, not '.' or '..', without '/' or '%'");
}

inline void write_hpa_target(yaml_writer& y, int indent, const metric_spec& m) {
  y.open(indent, "target");
  y.string(indent + 2, "type", to_string(m.target_type));
  switch (m.target_type) {
    case metric_target_type::utilization:  // a whole int32 percent (the autoscaler checked)
      y.integer(indent + 2, "averageUtilization", static_cast<std::int64_t>(m.target));
      break;
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
  detail::write_notes(y, config, detail::manifest_kind::horizontal_pod_autoscaler);
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
  detail::write_behavior(y, 2, config, detail::manifest_kind::horizontal_pod_autoscaler);
}

namespace detail {

/// True for an http:// or https:// URL with something after the scheme.
[[nodiscard]] constexpr bool is_http_url(std::string_view s) noexcept {
  for (const std::string_view scheme : {std::string_view("http://"), std::string_view("https://")})
    if (s.starts_with(scheme) && s.size() > scheme.size()) return true;
  return false;
}

/// The trigger that serves metric m, or throws: each config metric has exactly one trigger,
/// found by name, and a trigger that names no config metric is a caller's mix-up.
[[nodiscard]] inline const keda_prometheus_trigger& trigger_for(const keda_prometheus_options& keda,
                                                                const metric_spec& m) {
  const keda_prometheus_trigger* found = nullptr;
  for (const auto& t : keda.triggers) {
    if (t.metric_name != m.name) continue;
    if (found != nullptr)
      headroom::detail::fail("keda.triggers.metric_name", t.metric_name,
                             "names one metric in two triggers");
    found = &t;
  }
  if (found == nullptr)
    headroom::detail::fail("keda.triggers", m.name,
                           "must hold a trigger for every config.metrics entry (by name)");
  return *found;
}

/// Checks what KEDA's ScaledObject needs beyond an HPA: the server, one trigger per metric
/// (and none for a metric the config lacks), queries, thresholds, the cooldown, whole-second
/// polling and no Resource or Utilization metric.
inline void check_keda(const autoscaler_config& config, const keda_prometheus_options& keda) {
  const auto& address = keda.server_address;
  if (!is_http_url(address) || !headroom::detail::valid_utf8(address))
    headroom::detail::fail("keda.server_address", address, "must be an http:// or https:// URL");
  for (const auto& m : config.metrics) {
    if (m.source == metric_source::resource || m.source == metric_source::container_resource ||
        m.target_type == metric_target_type::utilization)
      headroom::detail::fail("config.metrics.source", m.name,
                             "a Resource/Utilization metric has no prometheus trigger");
    static_cast<void>(trigger_for(keda, m));
  }
  for (const auto& t : keda.triggers) {
    const bool known = std::any_of(config.metrics.begin(), config.metrics.end(),
                                   [&](const metric_spec& m) { return m.name == t.metric_name; });
    if (!known)
      headroom::detail::fail("keda.triggers.metric_name", t.metric_name,
                             "must name a config.metrics entry");
    if (t.query.find_first_not_of(" \t\n") == std::string::npos)
      headroom::detail::fail("keda.triggers.query", t.query, "must not be empty");
    if (!headroom::detail::valid_utf8(t.query))
      headroom::detail::fail("keda.triggers.query", t.query, "must be valid UTF-8");
    const double threshold = t.activation_threshold;
    if (!(headroom::detail::is_finite(threshold) && threshold >= 0.0 &&
          threshold <= largest_quantity))
      headroom::detail::fail("keda.triggers.activation_threshold", threshold,
                             "must be finite and >= 0");
  }
  constexpr auto int32_max = std::numeric_limits<std::int32_t>::max();  // KEDA's int32 fields
  if (keda.cooldown_period.count() < 0 || keda.cooldown_period.count() > int32_max)
    headroom::detail::fail("keda.cooldown_period", keda.cooldown_period, "must be >= 0");
  const auto polling = std::chrono::duration_cast<std::chrono::seconds>(config.sync_period);
  if (polling != config.sync_period || polling.count() > int32_max)
    headroom::detail::fail("config.sync_period", config.sync_period,
                           "must be whole seconds (KEDA pollingInterval)");
}

}  // namespace detail

/// Appends a KEDA ScaledObject (keda.sh/v1alpha1) for `workload`: pollingInterval from
/// config.sync_period (whole seconds), cooldownPeriod, min/maxReplicaCount, the behavior under
/// advanced.horizontalPodAutoscalerConfig, and one prometheus trigger per config metric (in
/// config order, with the query of keda's trigger of that name) with metricType
/// AverageValue/Value and threshold = the metric's target. Throws for a Resource/Utilization
/// metric (no Prometheus trigger here), and for a metric without its trigger or a trigger
/// without its metric.
inline void append_scaled_object(std::string& out, const scaled_workload& workload,
                                 const autoscaler_config& config,
                                 const keda_prometheus_options& keda) {
  detail::check_workload(workload);
  detail::check_config(config);
  detail::check_keda(config, keda);
  detail::yaml_writer y(out);
  detail::write_notes(y, config, detail::manifest_kind::scaled_object);
  detail::write_metadata(y, "keda.sh/v1alpha1", "ScaledObject", workload);
  y.open(0, "spec");
  detail::write_target_ref(y, workload);
  y.integer(2, "pollingInterval",
            std::chrono::duration_cast<std::chrono::seconds>(config.sync_period).count());
  y.integer(2, "cooldownPeriod", keda.cooldown_period.count());
  y.integer(2, "minReplicaCount", config.min_replicas);
  y.integer(2, "maxReplicaCount", config.max_replicas);
  if (config.behavior) {
    y.open(2, "advanced");
    y.open(4, "horizontalPodAutoscalerConfig");
    detail::write_behavior(y, 6, config, detail::manifest_kind::scaled_object);
  }
  y.open(2, "triggers");
  for (const auto& m : config.metrics) {
    const keda_prometheus_trigger& trigger = detail::trigger_for(keda, m);
    y.item(4);
    y.string(6, "type", "prometheus");
    y.string(6, "metricType", to_string(m.target_type));
    y.open(6, "metadata");
    y.string(8, "serverAddress", keda.server_address);
    y.string(8, "query", trigger.query);
    y.string(8, "threshold", detail::target_quantity("config.metrics.target", m.target));
    y.string(8, "activationThreshold", detail::decimal_milli(trigger.activation_threshold));
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

// SPDX-License-Identifier: Apache-2.0
// The per-replica in-flight target L* = ρ*·μ*·W̄ as a manifest writes it (docs/queueing.md,
// target_concurrency), the names Kubernetes validates (DNS-1123 labels and subdomains, path
// segments), and a PromQL query for the in-flight total of one model. docs/integrations.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../autoscaler/inputs.hpp"
#include "../detail/checks.hpp"
#include "../detail/utf8.hpp"
#include "../error.hpp"
#include "../prometheus/engines.hpp"
#include "../queueing.hpp"
#include "yaml.hpp"

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
[[nodiscard]] HEADROOM_DECL double floor_to(double value, double scale) noexcept;
}  // namespace detail

/// Inputs of in_flight_target: L* = ρ*·μ*·W̄ and how the number written is rounded.
struct in_flight_target_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS headroom::detail::designated_initializers_only
      designated_initializers_only{};
  double target_utilization = 0;   ///< ρ*, the share of μ* a replica runs at, in (0, 1]
  double capacity_per_second = 0;  ///< μ*, a replica's capacity, req/s, > 0
  std::chrono::duration<double> mean_sojourn{0};      ///< W̄ at the target load, > 0
  target_rounding rounding = target_rounding::whole;  ///< whole requests or milli-units
};

/// Target in-flight requests per replica for a manifest: L* = ρ*·μ*·W̄ (queueing.hpp's
/// target_concurrency) rounded down as `rounding` says: 0.8 × 8 req/s × 8 s = 51.2 -> 51, from
/// in_flight_target({.target_utilization = 0.8, .capacity_per_second = 8, .mean_sojourn = 8s}).
/// Throws when the rounded target is 0 (parameter "rounding": use target_rounding::milli or
/// revisit the inputs).
[[nodiscard]] HEADROOM_DECL double in_flight_target(const in_flight_target_inputs& inputs);

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

HEADROOM_DECL void append_selector(std::string& out, std::string_view metric,
                                   std::string_view label, std::string_view value);
}  // namespace detail

/// PromQL for the fleet's in-flight total, sum(running{label="value"}) +
/// sum(waiting{label="value"}): what a KEDA AverageValue trigger divides by its threshold.
/// An empty label_value selects every series. The value, valid UTF-8, is escaped as a PromQL
/// string (append_double_quoted).
[[nodiscard]] HEADROOM_DECL std::string in_flight_query(std::string_view running_metric,
                                                        std::string_view waiting_metric,
                                                        std::string_view label_name,
                                                        std::string_view label_value);

/// The same query with an engine preset's names (prometheus::vllm_preset, sglang_preset):
/// e.g. sum(vllm:num_requests_running{model_name="m"}) + sum(vllm:num_requests_waiting{...}).
[[nodiscard]] HEADROOM_DECL std::string in_flight_query(const prometheus::engine_preset& preset,
                                                        std::string_view model_name);

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/kubernetes/target.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

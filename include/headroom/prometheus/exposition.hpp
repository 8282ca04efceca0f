// SPDX-License-Identifier: Apache-2.0
// Writing what headroom decided as a Prometheus /metrics page (text exposition format 0.0.4),
// for Prometheus to scrape: the controller's decision (desired, raw and stabilized replicas,
// the reason, panic mode, each metric's own proposal), a capacity measurement (μ*, the
// conformance and its interval) and the scheduler's last placement (candidates, score,
// strategy). docs/integrations.md.
//
// Sources: the format as specified in prometheus/docs content/docs/instrumenting/
// exposition_formats.md (HELP/TYPE lines, label value escaping of '\\', '"' and newline,
// HELP escaping of '\\' and newline, "NaN", "+Inf", "-Inf") and the naming rules of
// content/docs/practices/naming.md (an application prefix, base units, `_total` only for
// counters, unit suffixes such as `_ratio` and `_per_second`), which `promtool check
// metrics` lints. A family is written once, its HELP and TYPE first, then all its samples.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../autoscaler/config.hpp"
#include "../autoscaler/decision.hpp"
#include "../detail/utf8.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {

/// A label of an exposed sample: a name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__") and
/// any valid UTF-8 value (escaped when written).
struct exposition_label {
  std::string_view name{};   ///< label name
  std::string_view value{};  ///< label value, unescaped
};

namespace detail {

[[nodiscard]] constexpr bool is_exposition_metric_name(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!start && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

[[nodiscard]] constexpr bool is_exposition_label_name(std::string_view s) noexcept {
  return is_exposition_metric_name(s) && s.find(':') == std::string_view::npos &&
         !s.starts_with("__");
}

HEADROOM_DECL void append_escaped(std::string& out, std::string_view s, bool quote);

}  // namespace detail

/// Appends a sample value as the format writes it: "NaN", "+Inf", "-Inf", or the shortest
/// decimal that reads back as the same double ("0.1", "51.2", "1e+21").
HEADROOM_DECL void append_sample_value(std::string& out, double value);

class exposition_page;

namespace detail {
/// Takes back what was appended to a page (its text and the families begun) unless
/// committed: every writer of a page gives the strong guarantee (docs/errors.md).
class page_rollback {
 public:
  explicit page_rollback(exposition_page& page) noexcept;
  page_rollback(const page_rollback&) = delete;
  page_rollback& operator=(const page_rollback&) = delete;
  ~page_rollback();
  void commit() noexcept { committed_ = true; }

 private:
  exposition_page& page_;
  std::size_t text_size_;
  std::size_t families_;
  bool committed_ = false;
};
}  // namespace detail

/// A /metrics page under construction: families in the order begun, each with its HELP and
/// TYPE lines once. Names and labels are checked (invalid_argument naming the parameter);
/// help text and label values are escaped. A refused call, here or in append_decision,
/// append_capacity and append_placement, leaves the page exactly as it was.
class exposition_page {
 public:
  /// Starts a family: "# HELP name help" and "# TYPE name type". type is "gauge" or
  /// "counter" (a counter's name must end in "_total"). A name begun before throws.
  HEADROOM_DECL void family(std::string_view name, std::string_view help, std::string_view type);

  /// One sample of the family begun last: name{labels} value.
  HEADROOM_DECL void sample(std::span<const exposition_label> labels, double value);
  /// Shorthand for a sample with labels in an initializer list.
  void sample(std::initializer_list<exposition_label> labels, double value) {
    sample(std::span<const exposition_label>(labels.begin(), labels.size()), value);
  }

  /// The page so far (text/plain; version=0.0.4).
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  friend class detail::page_rollback;
  std::string text_{};
  std::vector<std::string> families_{};
};

inline detail::page_rollback::page_rollback(exposition_page& page) noexcept
    : page_(page), text_size_(page.text_.size()), families_(page.families_.size()) {}

/// The Content-Type of a page written here.
inline constexpr std::string_view exposition_content_type =
    "text/plain; version=0.0.4; charset=utf-8";

// ---- the controller ------------------------------------------------------------------------

/// What the controller page says besides the decision: the workload's name (label
/// "autoscaler"), each metric's own proposal (autoscaler/proposals.hpp's metric_proposals,
/// index-aligned with config.metrics; nullopt = the metric failed) and the step counters.
struct decision_exposition {
  std::string_view autoscaler{};  ///< the label value naming this controller
  /// config.metrics' names, index-aligned with proposals (both may be empty).
  std::span<const autoscaling::metric_spec> metrics{};
  /// Each metric's proposal this step; nullopt = failed. Same length as metrics, or empty.
  std::span<const std::optional<std::int32_t>> proposals{};
  std::uint64_t steps = 0;     ///< steps taken so far (a counter)
  std::uint64_t rescales = 0;  ///< steps that changed the count (a counter)
};

/// Appends the controller's families for one decision:
///   headroom_autoscaler_desired_replicas, _current_replicas, _raw_recommendation_replicas and
///   _stabilized_recommendation_replicas (the last two absent when not computed, -1),
///   headroom_autoscaler_reason{reason=...} (1 for the decision's reason, 0 for the others),
///   headroom_autoscaler_panic (1 in KPA panic mode), headroom_autoscaler_failed_metrics,
///   headroom_autoscaler_metric_proposal_replicas{metric=...} (each valid proposal),
///   headroom_autoscaler_metric_failed{metric=...} (1 when the metric failed this step),
///   headroom_autoscaler_steps_total and headroom_autoscaler_rescales_total.
HEADROOM_DECL void append_decision(exposition_page& page, const autoscaling::autoscaler_decision& d,
                                   const decision_exposition& what);

// ---- a capacity measurement ----------------------------------------------------------------

/// One replica type's measured capacity and the conformance it was measured at.
struct capacity_exposition {
  std::string_view model{};        ///< label "model"
  double capacity_per_second = 0;  ///< μ*: requests per second within the SLO
  double conformance = 0;          ///< share of requests meeting the SLO at μ*, 0..1
  double conformance_lower = 0;    ///< the interval's lower end, 0..1
  double conformance_upper = 1;    ///< the interval's upper end, 0..1
  double confidence_level = 0.95;  ///< the interval's level, 0..1 (0.95: 95 %)
  std::uint64_t requests = 0;      ///< requests the conformance rests on
};

/// Appends headroom_capacity_requests_per_second, headroom_capacity_conformance_ratio,
/// headroom_capacity_conformance_lower_ratio, headroom_capacity_conformance_upper_ratio,
/// headroom_capacity_confidence_level_ratio and headroom_capacity_measured_requests, each
/// labelled model="...". Throws for a share or level outside [0, 1] or lower > upper.
HEADROOM_DECL void append_capacity(exposition_page& page, const capacity_exposition& c);

// ---- the scheduler's last placement --------------------------------------------------------

/// The scheduler's last placement of one model (scheduler.hpp's placement_result, read
/// into plain values).
struct placement_exposition {
  std::string_view model{};     ///< label "model"
  bool placed = false;          ///< a placement was found
  std::string_view strategy{};  ///< label "strategy": to_string(fit_strategy), "none" when unplaced
  std::string_view reason{};    ///< label "reason": to_string(no_placement_reason)
  std::uint64_t candidates = 0;    ///< candidates scored
  std::uint64_t filtered_out = 0;  ///< workers rejected by the filter chain
  double score = 0;                ///< the winner's chain total (NaN when unplaced)
};

/// Appends headroom_scheduler_placed{model,strategy,reason} (1 placed, 0 not),
/// headroom_scheduler_candidates, headroom_scheduler_filtered_workers and
/// headroom_scheduler_score (absent when unplaced), each labelled model="...".
HEADROOM_DECL void append_placement(exposition_page& page, const placement_exposition& p);

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/prometheus/exposition.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

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

inline void append_escaped(std::string& out, std::string_view s, bool quote) {
  for (const char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace detail

/// Appends a sample value as the format writes it: "NaN", "+Inf", "-Inf", or the shortest
/// decimal that reads back as the same double ("0.1", "51.2", "1e+21").
inline void append_sample_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
  }
}

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
  void family(std::string_view name, std::string_view help, std::string_view type) {
    if (!detail::is_exposition_metric_name(name))
      headroom::detail::fail("name", name, "must match [a-zA-Z_:][a-zA-Z0-9_:]*");
    if (type != "gauge" && type != "counter")
      headroom::detail::fail("type", type, "must be gauge or counter");
    if (type == "counter" && !name.ends_with("_total"))
      headroom::detail::fail("name", name, "a counter's name must end in _total");
    if (help.empty() || !headroom::detail::valid_utf8(help))
      headroom::detail::fail("help", help, "must be non-empty valid UTF-8");
    for (const std::string& f : families_)
      if (f == name) headroom::detail::fail("name", name, "is already on the page");
    detail::page_rollback rollback(*this);
    families_.emplace_back(name);
    text_ += "# HELP ";
    text_ += name;
    text_ += ' ';
    detail::append_escaped(text_, help, false);
    text_ += "\n# TYPE ";
    text_ += name;
    text_ += ' ';
    text_ += type;
    text_ += '\n';
    rollback.commit();
  }

  /// One sample of the family begun last: name{labels} value.
  void sample(std::span<const exposition_label> labels, double value) {
    if (families_.empty())
      headroom::detail::fail("family", std::string_view{}, "must be begun before its samples");
    // Labels are checked as they are written: a refused one takes the line back.
    detail::page_rollback rollback(*this);
    text_ += families_.back();
    if (!labels.empty()) {
      text_ += '{';
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const exposition_label& l = labels[i];
        if (!detail::is_exposition_label_name(l.name))
          headroom::detail::fail("label.name", l.name,
                                 "must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __");
        for (std::size_t k = 0; k < i; ++k)
          if (labels[k].name == l.name)
            headroom::detail::fail("label.name", l.name, "appears twice in one sample");
        if (!headroom::detail::valid_utf8(l.value))
          headroom::detail::fail("label.value", l.value, "must be valid UTF-8");
        if (i > 0) text_ += ',';
        text_ += l.name;
        text_ += "=\"";
        detail::append_escaped(text_, l.value, true);
        text_ += '"';
      }
      text_ += '}';
    }
    text_ += ' ';
    append_sample_value(text_, value);
    text_ += '\n';
    rollback.commit();
  }
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
inline detail::page_rollback::~page_rollback() {
  if (committed_) return;
  page_.text_.resize(text_size_);  // shrinking: cannot throw
  while (page_.families_.size() > families_) page_.families_.pop_back();
}

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
inline void append_decision(exposition_page& page, const autoscaling::autoscaler_decision& d,
                            const decision_exposition& what) {
  if (!what.proposals.empty() && what.proposals.size() != what.metrics.size())
    headroom::detail::fail("what.proposals.size()", what.proposals.size(),
                           "must equal what.metrics.size() (or be 0)");
  detail::page_rollback rollback(page);  // a family or label refused midway takes all back
  const exposition_label who{.name = "autoscaler", .value = what.autoscaler};
  const auto gauge = [&](std::string_view name, std::string_view help, double value) {
    page.family(name, help, "gauge");
    page.sample({who}, value);
  };
  gauge("headroom_autoscaler_desired_replicas", "Replica count the controller set this step.",
        d.desired_replicas);
  gauge("headroom_autoscaler_current_replicas",
        "Replica count the controller counted before this step.", d.current_replicas);
  if (d.raw_recommendation >= 0)
    gauge("headroom_autoscaler_raw_recommendation_replicas",
          "Metric-based recommendation before stabilization, rate limits and bounds.",
          d.raw_recommendation);
  if (d.stabilized_recommendation >= 0)
    gauge("headroom_autoscaler_stabilized_recommendation_replicas",
          "Recommendation after the stabilization windows, before rate limits and bounds.",
          d.stabilized_recommendation);
  page.family("headroom_autoscaler_reason",
              "Why the controller decided as it did: 1 for this step's reason, 0 otherwise.",
              "gauge");
  // Every reason is written (1 for the decision's, 0 else), so no series goes stale when
  // the reason changes.
  for (const autoscaling::scale_reason r : headroom::autoscaling::all_scale_reasons)
    page.sample({who, {.name = "reason", .value = to_string(r)}}, r == d.reason ? 1.0 : 0.0);
  gauge("headroom_autoscaler_panic", "1 while the Knative-style panic mode is active.",
        d.panicking ? 1.0 : 0.0);
  gauge("headroom_autoscaler_failed_metrics", "Metrics missing or failed this step.",
        d.failed_metrics);
  if (!what.proposals.empty()) {
    page.family("headroom_autoscaler_metric_proposal_replicas",
                "Replica count each metric proposed this step (absent when it failed).", "gauge");
    for (std::size_t i = 0; i < what.metrics.size(); ++i)
      if (what.proposals[i])
        page.sample({who, {.name = "metric", .value = what.metrics[i].name}}, *what.proposals[i]);
    page.family("headroom_autoscaler_metric_failed", "1 when the metric failed this step.",
                "gauge");
    for (std::size_t i = 0; i < what.metrics.size(); ++i)
      page.sample({who, {.name = "metric", .value = what.metrics[i].name}},
                  what.proposals[i] ? 0.0 : 1.0);
  }
  page.family("headroom_autoscaler_steps_total", "Controller steps taken.", "counter");
  page.sample({who}, static_cast<double>(what.steps));
  page.family("headroom_autoscaler_rescales_total", "Controller steps that changed the count.",
              "counter");
  page.sample({who}, static_cast<double>(what.rescales));
  rollback.commit();
}

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
inline void append_capacity(exposition_page& page, const capacity_exposition& c) {
  const auto unit = [](const char* name, double v) {
    if (!(v >= 0.0 && v <= 1.0)) headroom::detail::fail(name, v, "must be in [0, 1]");
  };
  unit("capacity.conformance", c.conformance);
  unit("capacity.conformance_lower", c.conformance_lower);
  unit("capacity.conformance_upper", c.conformance_upper);
  unit("capacity.confidence_level", c.confidence_level);
  if (c.conformance_lower > c.conformance_upper)
    headroom::detail::fail("capacity.conformance_lower", c.conformance_lower,
                           "must be <= conformance_upper");
  if (!(c.capacity_per_second >= 0.0))
    headroom::detail::fail("capacity.capacity_per_second", c.capacity_per_second, "must be >= 0");
  detail::page_rollback rollback(page);
  const exposition_label model{.name = "model", .value = c.model};
  const auto gauge = [&](std::string_view name, std::string_view help, double value) {
    page.family(name, help, "gauge");
    page.sample({model}, value);
  };
  gauge("headroom_capacity_requests_per_second",
        "Measured capacity: requests per second one replica serves within the SLO.",
        c.capacity_per_second);
  gauge("headroom_capacity_conformance_ratio",
        "Share of requests meeting the SLO at the measured capacity.", c.conformance);
  gauge("headroom_capacity_conformance_lower_ratio",
        "Lower end of the conformance confidence interval.", c.conformance_lower);
  gauge("headroom_capacity_conformance_upper_ratio",
        "Upper end of the conformance confidence interval.", c.conformance_upper);
  gauge("headroom_capacity_confidence_level_ratio", "Confidence level of the interval.",
        c.confidence_level);
  gauge("headroom_capacity_measured_requests", "Requests the conformance estimate rests on.",
        static_cast<double>(c.requests));
  rollback.commit();
}

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
inline void append_placement(exposition_page& page, const placement_exposition& p) {
  detail::page_rollback rollback(page);
  const exposition_label model{.name = "model", .value = p.model};
  page.family("headroom_scheduler_placed",
              "1 when the last placement of the model succeeded, with its strategy and reason.",
              "gauge");
  page.sample({model,
               {.name = "strategy", .value = p.strategy.empty() ? "none" : p.strategy},
               {.name = "reason", .value = p.reason}},
              p.placed ? 1.0 : 0.0);
  page.family("headroom_scheduler_candidates", "Candidates the last placement scored.", "gauge");
  page.sample({model}, static_cast<double>(p.candidates));
  page.family("headroom_scheduler_filtered_workers",
              "Workers the last placement's filter chain rejected.", "gauge");
  page.sample({model}, static_cast<double>(p.filtered_out));
  if (p.placed) {
    page.family("headroom_scheduler_score", "Chain score of the last placement's winner.", "gauge");
    page.sample({model}, p.score);
  }
  rollback.commit();
}

}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/exposition.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../prometheus/exposition.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL void append_escaped(std::string& out, std::string_view s, bool quote) {
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
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace prometheus {

HEADROOM_DECL void append_sample_value(std::string& out, double value) {
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

HEADROOM_DECL auto exposition_page::family(std::string_view name, std::string_view help,
                                           std::string_view type) -> void {
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

HEADROOM_DECL auto exposition_page::sample(std::span<const exposition_label> labels, double value)
    -> void {
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

HEADROOM_DECL detail::page_rollback::~page_rollback() {
  if (committed_) return;
  page_.text_.resize(text_size_);  // shrinking: cannot throw
  while (page_.families_.size() > families_) page_.families_.pop_back();
}

HEADROOM_DECL void append_decision(exposition_page& page, const autoscaling::autoscaler_decision& d,
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

HEADROOM_DECL void append_capacity(exposition_page& page, const capacity_exposition& c) {
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

HEADROOM_DECL void append_placement(exposition_page& page, const placement_exposition& p) {
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

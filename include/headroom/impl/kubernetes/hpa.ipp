// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/kubernetes/hpa.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../kubernetes/hpa.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL const described_object& object_for(const hpa_options& options,
                                                 const autoscaling::metric_spec& m) {
  const described_object* found = nullptr;
  for (const auto& o : options.objects)
    if (o.metric_name == m.name) {
      if (found != nullptr)
        headroom::detail::fail("options.objects.metric_name", o.metric_name,
                               "names one metric twice");
      found = &o;
    }
  if (found == nullptr)
    headroom::detail::fail("config.metrics.source", m.name,
                           "an Object metric needs its describedObject in options.objects");
  if (!is_path_segment_name(found->kind) || !headroom::detail::valid_utf8(found->kind))
    headroom::detail::fail("options.objects.kind", found->kind, "must be a Kubernetes kind");
  if (!is_dns1123_subdomain(found->name))
    headroom::detail::fail("options.objects.name", found->name, "must be a DNS-1123 subdomain");
  if (found->api_version.empty() ||
      found->api_version.find_first_of(" \t\n:") != std::string::npos ||
      !headroom::detail::valid_utf8(found->api_version))
    headroom::detail::fail("options.objects.api_version", found->api_version,
                           "must be an apiVersion such as v1");
  return *found;
}

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace kubernetes {

HEADROOM_DECL std::vector<omission> hpa_omissions(const autoscaling::autoscaler_config& config) {
  return detail::left_out(config, config.kubernetes,
                          detail::manifest_kind::horizontal_pod_autoscaler);
}

HEADROOM_DECL std::vector<omission> append_horizontal_pod_autoscaler(
    std::string& out, const scaled_workload& workload, const autoscaling::autoscaler_config& config,
    const hpa_options& options) {
  detail::check_workload(workload);
  detail::check_config(config);
  for (const auto& m : config.metrics) {
    detail::check_metric_name(m);
    if (m.source == autoscaling::metric_source::object)
      static_cast<void>(detail::object_for(options, m));
    if (m.source == autoscaling::metric_source::container_resource)
      headroom::detail::fail("config.metrics.source", m.name,
                             "a ContainerResource metric needs a container name; use Resource");
  }
  for (const auto& o : options.objects) {
    const bool known = std::any_of(
        config.metrics.begin(), config.metrics.end(), [&](const autoscaling::metric_spec& m) {
          return m.name == o.metric_name && m.source == autoscaling::metric_source::object;
        });
    if (!known)
      headroom::detail::fail("options.objects.metric_name", o.metric_name,
                             "must name an Object metric of config.metrics");
  }
  std::vector<omission> left =
      detail::left_out(config, config.kubernetes, detail::manifest_kind::horizontal_pod_autoscaler);
  autoscaling::autoscaler_config written = config;
  if (config.kubernetes.minor != 0 && config.min_replicas == 0 &&
      !config.kubernetes.hpa_scale_to_zero)
    written.min_replicas = 1;
  headroom::detail::append_guard guard(out);  // a refusal while writing takes it all back
  detail::yaml_writer y(out);
  detail::write_omissions(y, left);
  detail::write_notes(y, written, detail::manifest_kind::horizontal_pod_autoscaler,
                      config.kubernetes);
  detail::write_metadata(y, "autoscaling/v2", "HorizontalPodAutoscaler", workload);
  y.open(0, "spec");
  detail::write_target_ref(y, workload);
  y.integer(2, "minReplicas", written.min_replicas);
  y.integer(2, "maxReplicas", written.max_replicas);
  y.open(2, "metrics");
  for (const auto& m : config.metrics) {
    y.item(4);
    y.string(6, "type", to_string(m.source));
    switch (m.source) {
      case autoscaling::metric_source::resource:
        y.open(6, "resource");
        y.string(8, "name", m.name);
        detail::write_hpa_target(y, 8, m);
        break;
      case autoscaling::metric_source::object: {
        const described_object& o = detail::object_for(options, m);
        y.open(6, "object");
        y.open(8, "describedObject");
        y.string(10, "apiVersion", o.api_version);
        y.string(10, "kind", o.kind);
        y.string(10, "name", o.name);
        y.open(8, "metric");
        y.string(10, "name", m.name);
        detail::write_hpa_target(y, 8, m);
        break;
      }
      case autoscaling::metric_source::pods:
      case autoscaling::metric_source::external:
      case autoscaling::metric_source::container_resource:  // rejected above
        y.open(6, m.source == autoscaling::metric_source::pods ? "pods" : "external");
        y.open(8, "metric");
        y.string(10, "name", m.name);
        detail::write_hpa_target(y, 8, m);
        break;
    }
  }
  detail::write_behavior(
      y, 2, written,
      detail::tolerance_field(config.kubernetes, detail::manifest_kind::horizontal_pod_autoscaler));
  guard.commit();
  return left;
}

HEADROOM_DECL void append_horizontal_pod_autoscaler(std::string& out,
                                                    const scaled_workload& workload,
                                                    const autoscaling::autoscaler_config& config) {
  static_cast<void>(append_horizontal_pod_autoscaler(out, workload, config, hpa_options{}));
}

HEADROOM_DECL std::string horizontal_pod_autoscaler_yaml(
    const scaled_workload& workload, const autoscaling::autoscaler_config& config) {
  std::string out;
  append_horizontal_pod_autoscaler(out, workload, config);
  return out;
}

}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

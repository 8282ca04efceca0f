// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/kubernetes.hpp's version- and feature-gate-aware writing (the config's
// kubernetes_version:
// the per-direction tolerance from Kubernetes 1.33 with HPAConfigurableTolerance, HPA
// minReplicas 0 only with HPAScaleToZero; both sides of each boundary), HPA Object metrics
// (describedObject) and KEDA's authenticationRef, fallback and idleReplicaCount. Manifests
// are read back with libyaml (tests/yaml_reader.hpp); the schema test
// kubernetes.schema_validation validates the same kinds of manifest against the real schemas.
// Field names and rules: Kubernetes' autoscaling/v2 types (k8s.io/api autoscaling/v2
// types.go), its feature gates (pkg/features/kube_features.go) and KEDA's ScaledObject CRD.
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>

#include <doctest/doctest.h>

#include "support.hpp"
#include "yaml_reader.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace k8s = headroom::kubernetes;
using headroom::test::yaml_node;
using namespace std::chrono_literals;

yaml_node parse(std::string_view text) {
  const headroom::test::yaml_document doc = headroom::test::read_yaml(text);
  REQUIRE_MESSAGE(doc.error.empty(), doc.error << "\n" << text);
  return doc.root;
}

// "spec.metrics.0.object.describedObject.kind": keys and sequence indices.
const yaml_node* find(const yaml_node& root, std::string_view path) {
  const yaml_node* n = &root;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string step(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    const yaml_node* next = nullptr;
    if (n->type == yaml_node::kind::seq) {
      const std::size_t i = std::stoul(step);
      if (i < n->items.size()) next = &n->items[i];
    } else if (n->type == yaml_node::kind::map) {
      for (std::size_t i = 0; i < n->keys.size(); ++i)
        if (n->keys[i] == step) next = &n->items[i];
    }
    if (next == nullptr) return nullptr;
    n = next;
  }
  return n;
}
std::string at(const yaml_node& root, std::string_view path) {
  const yaml_node* n = find(root, path);
  return n == nullptr ? "<missing>" : n->value;
}
bool has(const yaml_node& root, std::string_view path) { return find(root, path) != nullptr; }

headroom::autoscaling::autoscaler_config tolerant_config(
    std::int32_t min_replicas, headroom::autoscaling::kubernetes_version cluster = {}) {
  return {.min_replicas = min_replicas,
          .max_replicas = 10,
          .metrics = {{.name = "in_flight",
                       .source = headroom::autoscaling::metric_source::external,
                       .target_type = headroom::autoscaling::metric_target_type::average_value,
                       .target = 51.0}},
          .scale_up_tolerance = 0.05,
          .scale_down_tolerance = 0.2,
          .behavior = headroom::autoscaling::scaling_behavior{},
          .kubernetes = cluster};
}

const k8s::scaled_workload workload{.name = "llm", .target_name = "llm"};

}  // namespace

TEST_SUITE("kubernetes_versions") {
  TEST_CASE("tolerance only from 1.33 with HPAConfigurableTolerance") {
    struct row {
      headroom::autoscaling::kubernetes_version cluster;
      bool written;
    };
    const row rows[] = {
        {.cluster = {.minor = 32, .hpa_configurable_tolerance = true}, .written = false},
        {.cluster = {.minor = 33, .hpa_configurable_tolerance = false}, .written = false},
        {.cluster = {.minor = 33, .hpa_configurable_tolerance = true}, .written = true},
        {.cluster = {.minor = 35, .hpa_configurable_tolerance = true}, .written = true},
        {.cluster = {}, .written = true},  // no version given: everything written
    };
    for (const row& r : rows) {
      CAPTURE(r.cluster.minor);
      const auto config = tolerant_config(1, r.cluster);
      std::string out;
      const auto left = k8s::append_horizontal_pod_autoscaler(out, workload, config, {});
      const yaml_node doc = parse(out);
      CHECK(has(doc, "spec.behavior.scaleUp.tolerance") == r.written);
      CHECK(has(doc, "spec.behavior.scaleDown.tolerance") == r.written);
      if (r.written) {
        CHECK(at(doc, "spec.behavior.scaleUp.tolerance") == "0.05");
        CHECK(at(doc, "spec.behavior.scaleDown.tolerance") == "0.2");
        CHECK(left.empty());
      } else {
        REQUIRE(left.size() == 2);
        CHECK(left[0].field == "spec.behavior.scaleUp.tolerance");
        CHECK(left[1].field == "spec.behavior.scaleDown.tolerance");
        const std::string why = r.cluster.minor < 33
                                    ? "needs Kubernetes 1.33+ (the target is 1.32)"
                                    : "needs the HPAConfigurableTolerance feature gate";
        CHECK(left[0].reason.find(why) == 0);
        CHECK(out.find("# headroom: left out spec.behavior.scaleUp.tolerance: " + why) !=
              std::string::npos);
        CHECK(left == k8s::hpa_omissions(config));
      }
    }
    // KEDA: the same rule for advanced.horizontalPodAutoscalerConfig.behavior.
    const k8s::keda_prometheus_options keda{
        .server_address = "http://prometheus:9090",
        .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}};
    const auto config = tolerant_config(1, {.minor = 33, .hpa_configurable_tolerance = true});
    const yaml_node so = parse(k8s::scaled_object_yaml(workload, config, keda));
    CHECK(at(so, "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.tolerance") ==
          "0.05");
    auto older = config;
    older.kubernetes.minor = 31;
    const std::string old_text = k8s::scaled_object_yaml(workload, older, keda);
    CHECK_FALSE(has(parse(old_text),
                    "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.tolerance"));
    CHECK(k8s::scaled_object_omissions(older).size() == 2);
    CHECK(
        old_text.find("# headroom: left out "
                      "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.tolerance") !=
        std::string::npos);
  }

  TEST_CASE("KEDA tolerance note only when the tolerance field is left out") {
    // tolerant_config's tolerances (0.05 up, 0.2 down) differ from 0.1 and it has a behavior,
    // so a ScaledObject either carries behavior.*.tolerance or says why it does not.
    const auto config = tolerant_config(1);
    const std::string note = "KEDA's behavior has no tolerance field in every release";
    const std::string field =
        "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.tolerance";
    struct row {
      headroom::autoscaling::kubernetes_version cluster;
      bool written;
    };
    const row rows[] = {
        {.cluster = {}, .written = false},  // no version given: KEDA's behavior has no tolerance
        {.cluster = {.minor = 32, .hpa_configurable_tolerance = true}, .written = false},
        {.cluster = {.minor = 33, .hpa_configurable_tolerance = false}, .written = false},
        {.cluster = {.minor = 33, .hpa_configurable_tolerance = true}, .written = true},
    };
    for (const row& r : rows) {
      CAPTURE(r.cluster.minor);
      CAPTURE(r.cluster.hpa_configurable_tolerance);
      const k8s::keda_prometheus_options keda{
          .server_address = "http://prometheus:9090",
          .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}};
      auto on_cluster = config;
      on_cluster.kubernetes = r.cluster;
      const std::string text = k8s::scaled_object_yaml(workload, on_cluster, keda);
      CHECK(has(parse(text), field) == r.written);
      CHECK((text.find(note) != std::string::npos) == !r.written);
    }
    // Tolerances at their default 0.1: no field and no note, whatever the cluster.
    auto plain = config;
    plain.scale_up_tolerance = headroom::autoscaling::default_tolerance;
    plain.scale_down_tolerance = headroom::autoscaling::default_tolerance;
    const std::string text =
        k8s::scaled_object_yaml(workload, plain,
                                {.server_address = "http://prometheus:9090",
                                 .triggers = {{.metric_name = "in_flight", .query = "sum(x)"}}});
    CHECK(text.find(note) == std::string::npos);
    CHECK_FALSE(has(parse(text), field));
  }

  TEST_CASE("HPA minReplicas 0 only with HPAScaleToZero") {
    std::string without;
    const auto left = k8s::append_horizontal_pod_autoscaler(
        without, workload, tolerant_config(0, {.minor = 35, .hpa_configurable_tolerance = true}),
        {});
    CHECK(at(parse(without), "spec.minReplicas") == "1");
    REQUIRE(left.size() == 1);
    CHECK(left[0].field == "spec.minReplicas");
    CHECK(left[0].reason.find("HPAScaleToZero") != std::string::npos);
    std::string with;
    const auto none = k8s::append_horizontal_pod_autoscaler(
        with, workload,
        tolerant_config(
            0, {.minor = 35, .hpa_scale_to_zero = true, .hpa_configurable_tolerance = true}),
        {});
    CHECK(at(parse(with), "spec.minReplicas") == "0");
    CHECK(none.empty());
  }

  TEST_CASE("HPA Object metrics name their described object") {
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = 1,
        .max_replicas = 10,
        .metrics = {{.name = "requests_per_second",
                     .source = headroom::autoscaling::metric_source::object,
                     .target_type = headroom::autoscaling::metric_target_type::value,
                     .target = 120.0}}};
    std::string out;
    static_cast<void>(
        k8s::append_horizontal_pod_autoscaler(out, workload, config,
                                              {.objects = {{.metric_name = "requests_per_second",
                                                            .kind = "Service",
                                                            .name = "llm-gateway",
                                                            .api_version = "v1"}}}));
    const yaml_node doc = parse(out);
    CHECK(at(doc, "spec.metrics.0.type") == "Object");
    CHECK(at(doc, "spec.metrics.0.object.describedObject.kind") == "Service");
    CHECK(at(doc, "spec.metrics.0.object.describedObject.name") == "llm-gateway");
    CHECK(at(doc, "spec.metrics.0.object.describedObject.apiVersion") == "v1");
    CHECK(at(doc, "spec.metrics.0.object.metric.name") == "requests_per_second");
    CHECK(at(doc, "spec.metrics.0.object.target.type") == "Value");
    CHECK(at(doc, "spec.metrics.0.object.target.value") == "120");
    using headroom::test::rejected;
    CHECK(rejected([&] { (void)k8s::horizontal_pod_autoscaler_yaml(workload, config); }) ==
          "config.metrics.source");
    CHECK(
        rejected([&] {
          std::string o;
          (void)k8s::append_horizontal_pod_autoscaler(
              o, workload, config,
              {.objects = {
                   {.metric_name = "requests_per_second", .kind = "Service", .name = "Not_DNS"}}});
        }) == "options.objects.name");
    CHECK(rejected([&] {
            std::string o;
            (void)k8s::append_horizontal_pod_autoscaler(
                o, workload, config,
                {.objects = {{.metric_name = "requests_per_second", .kind = "Service", .name = "a"},
                             {.metric_name = "other", .kind = "Service", .name = "b"}}});
          }) == "options.objects.metric_name");
  }

  TEST_CASE("KEDA authenticationRef fallback and idleReplicaCount") {
    const auto config = tolerant_config(2);
    const k8s::keda_prometheus_options keda{
        .server_address = "https://prometheus:9090",
        .triggers = {{.metric_name = "in_flight", .query = "sum(x)", .activation_threshold = 2}},
        .cooldown_period = 120s,
        .authentication =
            k8s::keda_authentication{.name = "prom-creds", .kind = "ClusterTriggerAuthentication"},
        .fallback = k8s::keda_fallback{.failure_threshold = 4, .replicas = 6},
        .idle_replica_count = 1};
    const yaml_node doc = parse(k8s::scaled_object_yaml(workload, config, keda));
    CHECK(at(doc, "spec.triggers.0.authenticationRef.name") == "prom-creds");
    CHECK(at(doc, "spec.triggers.0.authenticationRef.kind") == "ClusterTriggerAuthentication");
    CHECK(at(doc, "spec.fallback.failureThreshold") == "4");
    CHECK(at(doc, "spec.fallback.replicas") == "6");
    CHECK(at(doc, "spec.idleReplicaCount") == "1");
    CHECK(at(doc, "spec.cooldownPeriod") == "120");
    CHECK(at(doc, "spec.triggers.0.metadata.activationThreshold") == "2");
    using headroom::test::rejected;
    auto bad = keda;
    bad.idle_replica_count = 2;  // KEDA: idleReplicaCount must be < minReplicaCount
    CHECK(rejected([&] { (void)k8s::scaled_object_yaml(workload, config, bad); }) ==
          "keda.idle_replica_count");
    bad = keda;
    bad.fallback->failure_threshold = 0;
    CHECK(rejected([&] { (void)k8s::scaled_object_yaml(workload, config, bad); }) ==
          "keda.fallback.failure_threshold");
    bad = keda;
    bad.authentication->kind = "Secret";
    CHECK(rejected([&] { (void)k8s::scaled_object_yaml(workload, config, bad); }) ==
          "keda.authentication.kind");
  }
}

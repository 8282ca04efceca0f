// SPDX-License-Identifier: Apache-2.0
// Tests of headroom/kubernetes.hpp. Expected values: docs/background.md §4 (L* = 0.8 x 8 x 8 = 51.2
// -> 51), the field names and defaults of the Kubernetes autoscaling/v2 HorizontalPodAutoscaler API
// and of KEDA's ScaledObject / prometheus trigger as documented upstream, DNS-1123 rules, and hand
// calculations in the comments. The manifests are read back with libyaml (tests/yaml_reader.hpp)
// so that the tests assert values at paths, as a real YAML parser reads them, not text.
#include <headroom/kubernetes.hpp>

#include <doctest/doctest.h>

#include "support.hpp"
#include "yaml_reader.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
namespace k8s = headroom::kubernetes;
using headroom::autoscaling::autoscaler_config;
using headroom::autoscaling::metric_source;
using headroom::autoscaling::metric_target_type;
using headroom::autoscaling::scaling_behavior;
using headroom::autoscaling::scaling_policy_type;
using headroom::autoscaling::select_policy;

// ---- reading manifests back: libyaml (tests/yaml_reader.hpp) ------------------------------

using headroom::test::yaml_node;

// The document `text` holds; fails the test (with libyaml's message) when it does not parse.
yaml_node parse_yaml(std::string_view text) {
  const headroom::test::yaml_document doc = headroom::test::read_yaml(text);
  REQUIRE_MESSAGE(doc.error.empty(), doc.error << "\n" << text);
  return doc.root;
}

// The first character of `text` that YAML does not allow raw, as the byte offset, or npos.
// Written from the YAML 1.2 spec's c-printable set (5.1) and YAML 1.1's line breaks, byte by
// byte over UTF-8, independently of the writer's own check: C0 controls but tab and line
// feed, DEL, the C1 controls C2 80..C2 9F (NEL, C2 85, among them), LS and PS (E2 80 A8/A9),
// the byte order mark (EF BB BF), U+FFFE and U+FFFF (EF BF BE/BF).
std::size_t first_unprintable(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const auto next = [&](std::size_t k) {
      return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
    };
    if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7f) return i;
    if (b == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return i;
    if (b == 0xe2 && next(1) == 0x80 && (next(2) == 0xa8 || next(2) == 0xa9)) return i;
    if (b == 0xef && next(1) == 0xbb && next(2) == 0xbf) return i;
    if (b == 0xef && next(1) == 0xbf && (next(2) == 0xbe || next(2) == 0xbf)) return i;
  }
  return std::string_view::npos;
}

// Looks up "spec.metrics[0].pods.target.averageValue"; nullptr when a step is missing.
const yaml_node* find(const yaml_node& root, std::string_view path) {
  const yaml_node* n = &root;
  while (!path.empty()) {
    const auto dot = path.find('.');
    std::string_view step = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    std::size_t index = 0;
    bool indexed = false;
    if (const auto bracket = step.find('['); bracket != std::string_view::npos) {
      index = std::stoul(std::string(step.substr(bracket + 1)));
      indexed = true;
      step = step.substr(0, bracket);
    }
    const yaml_node* next = nullptr;
    if (n->type != yaml_node::kind::map) return nullptr;
    for (std::size_t i = 0; i < n->keys.size(); ++i)
      if (n->keys[i] == step) next = &n->items[i];
    if (next == nullptr) return nullptr;
    if (indexed) {
      if (next->type != yaml_node::kind::seq || index >= next->items.size()) return nullptr;
      next = &next->items[index];
    }
    n = next;
  }
  return n;
}

bool has(const yaml_node& root, std::string_view path) { return find(root, path) != nullptr; }

// The scalar at path ("<missing path>" when absent, "<not a scalar>" for a block).
std::string at(const yaml_node& root, std::string_view path) {
  const yaml_node* n = find(root, path);
  if (n == nullptr) return "<missing " + std::string(path) + ">";
  if (n->type != yaml_node::kind::scalar) return "<not a scalar>";
  return n->value;
}
bool quoted(const yaml_node& root, std::string_view path) {
  const yaml_node* n = find(root, path);
  return n != nullptr && n->quoted;
}
std::size_t length(const yaml_node& root, std::string_view path) {
  const yaml_node* n = find(root, path);
  return n != nullptr && n->type == yaml_node::kind::seq ? n->items.size() : 0;
}

// The parameter named by the invalid_argument f raises, or a marker.
template <class F>
std::string thrown_parameter(F&& f) {
  const std::string parameter = headroom::test::rejected(std::forward<F>(f));
  return parameter.empty() ? "<nothing thrown>" : parameter;
}

// docs/background.md §4: mu* = 8 req/s, rho* = 0.8, W = 8 s; 1..20 replicas; the Kubernetes default
// behavior.
autoscaler_config worked_config(double target) {
  return {.min_replicas = 1,
          .max_replicas = 20,
          .metrics = {{.name = "vllm_requests_in_flight",
                       .source = metric_source::pods,
                       .target_type = metric_target_type::average_value,
                       .target = target}},
          .behavior = scaling_behavior{},
          .sync_period = 15s};
}

k8s::scaled_workload spec_workload() {
  return {.name = "llama-8b", .namespace_name = "serving", .target_name = "llama-8b"};
}

constexpr std::string_view llama = "meta-llama/Llama-3.1-8B-Instruct";

// The policies of behavior.<direction> read back from a manifest.
std::vector<headroom::autoscaling::scaling_policy> read_policies(const yaml_node& rules) {
  std::vector<headroom::autoscaling::scaling_policy> out;
  for (std::size_t i = 0; i < length(rules, "policies"); ++i) {
    const std::string p = "policies[" + std::to_string(i) + "]";
    const std::string type = at(rules, p + ".type");
    REQUIRE((type == "Pods" || type == "Percent"));
    out.push_back({type == "Pods" ? scaling_policy_type::pods : scaling_policy_type::percent,
                   std::stoi(at(rules, p + ".value")),
                   std::chrono::seconds{std::stoi(at(rules, p + ".periodSeconds"))}});
  }
  return out;
}

void check_rules_equal(const yaml_node& rules,
                       const headroom::autoscaling::scaling_rules& expected) {
  if (expected.stabilization_window)
    CHECK(at(rules, "stabilizationWindowSeconds") ==
          std::to_string(expected.stabilization_window->count()));
  else
    CHECK_FALSE(has(rules, "stabilizationWindowSeconds"));  // defaulted by Kubernetes
  CHECK(at(rules, "selectPolicy") ==
        std::string(headroom::autoscaling::to_string(expected.select)));
  const auto policies = read_policies(rules);
  REQUIRE(policies.size() == expected.policies.size());
  for (std::size_t i = 0; i < policies.size(); ++i) {
    CHECK(policies[i].type == expected.policies[i].type);
    CHECK(policies[i].value == expected.policies[i].value);
    CHECK(policies[i].period == expected.policies[i].period);
  }
}

}  // namespace

TEST_SUITE("kubernetes") {
  TEST_CASE("kubernetes: the YAML reader reads what YAML means") {
    // The adapter over libyaml, on hand-written YAML: paths, quoting, errors.
    const auto doc = parse_yaml(
        "# comment\n"
        "a: 1\n"
        "b:\n"
        "  c: 'it''s'\n"
        "  d: \"q\\\"x\\\\y\\n\"\n"
        "  list:\n"
        "    - k: v\n"
        "      m: 2\n"
        "    - plain\n"
        "  same:\n"
        "  - x: 1\n"
        "e: tail # trailing comment\n");
    CHECK(at(doc, "a") == "1");
    CHECK_FALSE(quoted(doc, "a"));
    CHECK(at(doc, "b.c") == "it's");
    CHECK(quoted(doc, "b.c"));
    CHECK(at(doc, "b.d") == "q\"x\\y\n");
    CHECK(quoted(doc, "b.d"));
    CHECK(at(doc, "b.list[0].k") == "v");
    CHECK(at(doc, "b.list[0].m") == "2");
    CHECK(at(doc, "b.list[1]") == "plain");
    CHECK(at(doc, "b.same[0].x") == "1");
    CHECK(at(doc, "e") == "tail");
    CHECK_FALSE(has(doc, "b.list[2]"));
    CHECK_FALSE(headroom::test::read_yaml("a: 1\na: 2\n").error.empty());       // duplicate key
    CHECK_FALSE(headroom::test::read_yaml("a: [1, 2\n").error.empty());         // unclosed flow
    CHECK_FALSE(headroom::test::read_yaml("a: b: c\n").error.empty());          // ': ' in a scalar
    CHECK_FALSE(headroom::test::read_yaml("a: 1\n---\nb: 2\n").error.empty());  // two documents
    // libyaml, like PyYAML and kubectl, refuses characters YAML does not allow raw.
    // A raw NEL is a line break to YAML 1.1: folded into a space, it does not come back.
    CHECK(headroom::test::read_yaml("a: \"x\xc2\x85y\"\n").root.items.at(0).value == "x y");
    CHECK_FALSE(headroom::test::read_yaml("a: \"x\xc2\x80y\"\n").error.empty());  // C1
    CHECK_FALSE(headroom::test::read_yaml("a: \"x\x01y\"\n").error.empty());      // C0
    CHECK(headroom::test::read_yaml("a: \"x\\x01y\"\n").error.empty());           // escaped
    CHECK(first_unprintable("a: 'x\xc2\xa0y'\n") == std::string_view::npos);  // NBSP is printable
    CHECK(first_unprintable("a: 'x\xc2\x85y'\n") == 5);                       // NEL is not
    CHECK(first_unprintable("a: \x7f\n") == 3);
  }

  TEST_CASE("kubernetes: in-flight target from a measured capacity") {
    // docs/background.md §4: L* = rho* mu* W = 0.8 x 8 req/s x 8 s = 51.2, written as 51 per
    // replica.
    CHECK(k8s::in_flight_target(
              {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 8s}) == 51.0);
    CHECK(k8s::in_flight_target({.target_utilization = 0.8,
                                 .capacity_per_second = 8.0,
                                 .mean_sojourn = 8s,
                                 .rounding = k8s::target_rounding::milli}) ==
          doctest::Approx(51.2).epsilon(1e-12));
    // 0.9 x 10 x 2.5 s = 22.5: whole rounds down to 22 (never above rho*), milli keeps 22.5.
    CHECK(k8s::in_flight_target(
              {.target_utilization = 0.9, .capacity_per_second = 10.0, .mean_sojourn = 2500ms}) ==
          22.0);
    CHECK(k8s::in_flight_target({.target_utilization = 0.9,
                                 .capacity_per_second = 10.0,
                                 .mean_sojourn = 2500ms,
                                 .rounding = k8s::target_rounding::milli}) ==
          doctest::Approx(22.5).epsilon(1e-12));
    // 0.87 x 5 x 1 s = 4.35, which binary floating point may hold as 4.34999...: still 4.35.
    CHECK(k8s::in_flight_target({.target_utilization = 0.87,
                                 .capacity_per_second = 5.0,
                                 .mean_sojourn = 1s,
                                 .rounding = k8s::target_rounding::milli}) ==
          doctest::Approx(4.35).epsilon(1e-12));
    // 0.5 x 2 x 6 s = 6 exactly.
    CHECK(k8s::in_flight_target(
              {.target_utilization = 0.5, .capacity_per_second = 2.0, .mean_sojourn = 6s}) == 6.0);
    // 0.5 x 1 x 1 s = 0.5: a whole target would be 0 (rejected), milli keeps 0.5.
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target(
                {.target_utilization = 0.5, .capacity_per_second = 1.0, .mean_sojourn = 1s});
          }) == "rounding");
    CHECK(k8s::in_flight_target({.target_utilization = 0.5,
                                 .capacity_per_second = 1.0,
                                 .mean_sojourn = 1s,
                                 .rounding = k8s::target_rounding::milli}) == 0.5);
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target(
                {.target_utilization = 0.0, .capacity_per_second = 8.0, .mean_sojourn = 8s});
          }) == "target_utilization");
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target(
                {.target_utilization = 1.2, .capacity_per_second = 8.0, .mean_sojourn = 8s});
          }) == "target_utilization");
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target(
                {.target_utilization = 0.8, .capacity_per_second = -1.0, .mean_sojourn = 8s});
          }) == "capacity_per_second");  // its own parameter's name, not target_concurrency's
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target(
                {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 0s});
          }) == "mean_sojourn");
    CHECK(thrown_parameter([] {
            (void)k8s::in_flight_target({.target_utilization = 0.8,
                                         .capacity_per_second = 8.0,
                                         .mean_sojourn = std::chrono::duration<double>(-1.0)});
          }) == "mean_sojourn");
  }

  TEST_CASE("kubernetes: DNS-1123 labels and subdomains") {
    CHECK(k8s::is_dns1123_label("serving"));
    CHECK(k8s::is_dns1123_label("llama-8b"));
    CHECK(k8s::is_dns1123_label("8b"));
    CHECK_FALSE(k8s::is_dns1123_label(""));
    CHECK_FALSE(k8s::is_dns1123_label("Llama"));
    CHECK_FALSE(k8s::is_dns1123_label("-a"));
    CHECK_FALSE(k8s::is_dns1123_label("a-"));
    CHECK_FALSE(k8s::is_dns1123_label("a.b"));
    CHECK_FALSE(k8s::is_dns1123_label("a_b"));
    CHECK(k8s::is_dns1123_label(std::string(63, 'a')));
    CHECK_FALSE(k8s::is_dns1123_label(std::string(64, 'a')));
    CHECK(k8s::is_dns1123_subdomain("llama-8b.v2"));
    CHECK_FALSE(k8s::is_dns1123_subdomain("a..b"));
    CHECK_FALSE(k8s::is_dns1123_subdomain(".a"));
    CHECK_FALSE(k8s::is_dns1123_subdomain("a."));
    CHECK_FALSE(k8s::is_dns1123_subdomain("meta-llama/llama"));
    // 4 labels of 63 characters and 3 dots = 255 > 253; 3 x 63 + 61 + 3 = 253 is the limit.
    const std::string l63(63, 'a');
    CHECK(k8s::is_dns1123_subdomain(l63 + "." + l63 + "." + l63 + "." + std::string(61, 'b')));
    CHECK_FALSE(
        k8s::is_dns1123_subdomain(l63 + "." + l63 + "." + l63 + "." + std::string(62, 'b')));
    CHECK(k8s::is_path_segment_name("vllm:num_requests_running"));
    CHECK_FALSE(k8s::is_path_segment_name("a/b"));
    CHECK_FALSE(k8s::is_path_segment_name("50%"));
    CHECK_FALSE(k8s::is_path_segment_name(".."));
  }

  TEST_CASE("kubernetes: PromQL in-flight query") {
    CHECK(k8s::in_flight_query(headroom::prometheus::vllm_preset, llama) ==
          "sum(vllm:num_requests_running{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}) + "
          "sum(vllm:num_requests_waiting{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"})");
    CHECK(k8s::in_flight_query(headroom::prometheus::sglang_preset, "qwen") ==
          "sum(sglang:num_running_reqs{model_name=\"qwen\"}) + "
          "sum(sglang:num_queue_reqs{model_name=\"qwen\"})");
    CHECK(k8s::in_flight_query(headroom::prometheus::vllm_preset, "") ==
          "sum(vllm:num_requests_running) + sum(vllm:num_requests_waiting)");
    // PromQL string escapes: a"b\c -> "a\"b\\c", a newline -> \n.
    CHECK(k8s::in_flight_query("r", "w", "m", "a\"b\\c") ==
          "sum(r{m=\"a\\\"b\\\\c\"}) + sum(w{m=\"a\\\"b\\\\c\"})");
    CHECK(k8s::in_flight_query("r", "w", "m", "x\ny") ==
          "sum(r{m=\"x\\ny\"}) + sum(w{m=\"x\\ny\"})");
    CHECK(thrown_parameter([] { (void)k8s::in_flight_query("1r", "w", "m", "x"); }) ==
          "running_metric");
    CHECK(thrown_parameter([] { (void)k8s::in_flight_query("r", "", "m", "x"); }) ==
          "waiting_metric");
    CHECK(thrown_parameter([] { (void)k8s::in_flight_query("r", "w", "model-name", "x"); }) ==
          "label_name");
  }

  TEST_CASE("kubernetes: HPA manifest from the worked capacity") {
    const auto config = worked_config(k8s::in_flight_target(
        {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 8s}));
    const std::string yaml = k8s::horizontal_pod_autoscaler_yaml(spec_workload(), config);
    yaml_node doc;
    doc = parse_yaml(yaml);  // throws (fails the test) if the YAML does not parse
    CHECK(at(doc, "apiVersion") == "autoscaling/v2");
    CHECK(at(doc, "kind") == "HorizontalPodAutoscaler");
    CHECK(at(doc, "metadata.name") == "llama-8b");
    CHECK(at(doc, "metadata.namespace") == "serving");
    CHECK(at(doc, "spec.scaleTargetRef.apiVersion") == "apps/v1");
    CHECK(at(doc, "spec.scaleTargetRef.kind") == "Deployment");
    CHECK(at(doc, "spec.scaleTargetRef.name") == "llama-8b");
    CHECK(at(doc, "spec.minReplicas") == "1");
    CHECK_FALSE(quoted(doc, "spec.minReplicas"));  // int32 fields are YAML integers
    CHECK(at(doc, "spec.maxReplicas") == "20");
    REQUIRE(length(doc, "spec.metrics") == 1);
    CHECK(at(doc, "spec.metrics[0].type") == "Pods");
    CHECK(at(doc, "spec.metrics[0].pods.metric.name") == "vllm_requests_in_flight");
    CHECK(at(doc, "spec.metrics[0].pods.target.type") == "AverageValue");
    CHECK(at(doc, "spec.metrics[0].pods.target.averageValue") == "51");  // L* = 51.2 -> 51
    CHECK(quoted(doc, "spec.metrics[0].pods.target.averageValue"));      // a quantity string
    // behavior equals the config's, which is the Kubernetes default: up window 0 s, Max of
    // {Pods 4 / 15 s, Percent 100 / 15 s}; down window unset (the API server leaves it unset
    // and the controller fills it from --horizontal-pod-autoscaler-downscale-stabilization),
    // Max of {Percent 100 / 15 s}.
    const yaml_node* up = find(doc, "spec.behavior.scaleUp");
    const yaml_node* down = find(doc, "spec.behavior.scaleDown");
    REQUIRE(up != nullptr);
    REQUIRE(down != nullptr);
    check_rules_equal(*up, config.behavior->scale_up);
    check_rules_equal(*down, config.behavior->scale_down);
    CHECK(at(*up, "stabilizationWindowSeconds") == "0");
    CHECK(at(*up, "selectPolicy") == "Max");
    CHECK(at(*up, "policies[0].type") == "Pods");
    CHECK(at(*up, "policies[0].value") == "4");
    CHECK(at(*up, "policies[0].periodSeconds") == "15");
    CHECK(at(*up, "policies[1].type") == "Percent");
    CHECK(at(*up, "policies[1].value") == "100");
    CHECK_FALSE(has(*down, "stabilizationWindowSeconds"));
    CHECK(at(*down, "policies[0].type") == "Percent");
    CHECK_FALSE(has(*up, "tolerance"));  // 0.1 is the default: not written
    // Milli rounding writes the exact L*; the API server canonicalises 51.2 to 51200m.
    const auto milli =
        worked_config(k8s::in_flight_target({.target_utilization = 0.8,
                                             .capacity_per_second = 8.0,
                                             .mean_sojourn = 8s,
                                             .rounding = k8s::target_rounding::milli}));
    CHECK(at(parse_yaml(k8s::horizontal_pod_autoscaler_yaml(spec_workload(), milli)),
             "spec.metrics[0].pods.target.averageValue") == "51.2");
  }

  TEST_CASE("kubernetes: HPA metric kinds / no behavior / appending") {
    autoscaler_config c{.min_replicas = 2, .max_replicas = 8};
    c.metrics = {{.name = "cpu",
                  .source = metric_source::resource,
                  .target_type = metric_target_type::utilization,
                  .target = 70.0},
                 {.name = "queue_length",
                  .source = metric_source::external,
                  .target_type = metric_target_type::value,
                  .target = 100.0},
                 {.name = "kv_cache_usage",
                  .source = metric_source::external,
                  .target_type = metric_target_type::average_value,
                  .target = 0.75}};
    std::string out = "# prefix\n";
    k8s::append_horizontal_pod_autoscaler(out, {.name = "hpa", .target_name = "web"}, c);
    REQUIRE(out.starts_with("# prefix\n"));
    const auto doc = parse_yaml(out);
    CHECK_FALSE(has(doc, "metadata.namespace"));  // empty namespace: omitted
    CHECK_FALSE(has(doc, "spec.behavior"));       // nullopt: the HPA without behavior
    CHECK(at(doc, "spec.minReplicas") == "2");
    REQUIRE(length(doc, "spec.metrics") == 3);
    CHECK(at(doc, "spec.metrics[0].type") == "Resource");
    CHECK(at(doc, "spec.metrics[0].resource.name") == "cpu");
    CHECK(at(doc, "spec.metrics[0].resource.target.type") == "Utilization");
    CHECK(at(doc, "spec.metrics[0].resource.target.averageUtilization") == "70");
    CHECK_FALSE(quoted(doc, "spec.metrics[0].resource.target.averageUtilization"));  // int32
    CHECK(at(doc, "spec.metrics[1].type") == "External");
    CHECK(at(doc, "spec.metrics[1].external.metric.name") == "queue_length");
    CHECK(at(doc, "spec.metrics[1].external.target.type") == "Value");
    CHECK(at(doc, "spec.metrics[1].external.target.value") == "100");
    CHECK(at(doc, "spec.metrics[2].external.target.averageValue") == "0.75");
  }

  TEST_CASE("kubernetes: an empty policy list becomes an equivalent finite policy") {
    // The library reads an empty list as "no rate limit"; the API rejects it. The writer emits
    // up: Pods maxReplicas per 1 s, down: Percent 100 per 1 s.
    autoscaler_config unlimited = worked_config(51.0);
    unlimited.max_replicas = 12;
    unlimited.behavior = scaling_behavior{
        .scale_up = {.stabilization_window = 0s, .select = select_policy::max},
        .scale_down = {.stabilization_window = 120s, .select = select_policy::max}};
    const auto doc = parse_yaml(k8s::horizontal_pod_autoscaler_yaml(spec_workload(), unlimited));
    CHECK(at(doc, "spec.behavior.scaleUp.policies[0].type") == "Pods");
    CHECK(at(doc, "spec.behavior.scaleUp.policies[0].value") == "12");
    CHECK(at(doc, "spec.behavior.scaleUp.policies[0].periodSeconds") == "1");
    CHECK(at(doc, "spec.behavior.scaleDown.policies[0].type") == "Percent");
    CHECK(at(doc, "spec.behavior.scaleDown.policies[0].value") == "100");
    CHECK(at(doc, "spec.behavior.scaleDown.stabilizationWindowSeconds") == "120");

    // Equivalence, checked with the library's HPA model: a controller configured with the
    // emitted policies (read back from the YAML) decides exactly as the unlimited one, every
    // step, on random per-replica loads at 15 s syncs.
    autoscaler_config emitted = unlimited;
    emitted.behavior->scale_up.policies = read_policies(*find(doc, "spec.behavior.scaleUp"));
    emitted.behavior->scale_down.policies = read_policies(*find(doc, "spec.behavior.scaleDown"));
    const headroom::autoscaling::autoscaler a(unlimited), b(emitted);
    std::mt19937_64 rng(20240609);
    const auto load = [](std::mt19937_64& g) {
      return headroom::test::uniform_draw(g, 0.0, 400.0);
    };
    int changes = 0;
    for (int run = 0; run < 100; ++run) {
      auto sa = a.initial_state();
      auto sb = b.initial_state();
      std::int32_t replicas = 1 + static_cast<std::int32_t>(rng() % 12);
      for (int t = 0; t < 40; ++t) {
        std::vector<headroom::autoscaling::pod_sample> samples(
            static_cast<std::size_t>(replicas),
            headroom::autoscaling::pod_sample{.value =
                                                  headroom::autoscaling::to_quantity(load(rng))});
        const auto obs = headroom::autoscaling::observe_pods(samples);
        const headroom::autoscaling::autoscaler_input in{
            .replicas = {.spec = replicas, .status = replicas, .ready = replicas},
            .metrics = {&obs, 1}};
        const auto da = a.step(sa, std::chrono::seconds{15 * t}, in);
        const auto db = b.step(sb, std::chrono::seconds{15 * t}, in);
        REQUIRE(da.desired_replicas == db.desired_replicas);
        REQUIRE(da.reason == db.reason);
        changes += da.rescale() ? 1 : 0;
        replicas = da.desired_replicas;
      }
    }
    CHECK(changes > 100);  // the property was exercised, not vacuous
  }

  TEST_CASE("kubernetes: KEDA ScaledObject from the worked capacity") {
    const auto config = worked_config(k8s::in_flight_target(
        {.target_utilization = 0.8, .capacity_per_second = 8.0, .mean_sojourn = 8s}));
    k8s::keda_prometheus_options keda{
        .server_address = "http://prometheus.monitoring.svc:9090",
        .triggers = {{.metric_name = config.metrics[0].name,
                      .query = k8s::in_flight_query(headroom::prometheus::vllm_preset, llama)}}};
    const std::string yaml = k8s::scaled_object_yaml(spec_workload(), config, keda);
    yaml_node doc;
    doc = parse_yaml(yaml);  // throws (fails the test) if the YAML does not parse
    CHECK(at(doc, "apiVersion") == "keda.sh/v1alpha1");
    CHECK(at(doc, "kind") == "ScaledObject");
    CHECK(at(doc, "metadata.name") == "llama-8b");
    CHECK(at(doc, "metadata.namespace") == "serving");
    CHECK(at(doc, "spec.scaleTargetRef.name") == "llama-8b");
    CHECK(at(doc, "spec.pollingInterval") == "15");  // config.sync_period
    CHECK(at(doc, "spec.cooldownPeriod") == "300");  // KEDA's default, kept explicit
    CHECK(at(doc, "spec.minReplicaCount") == "1");
    CHECK(at(doc, "spec.maxReplicaCount") == "20");
    REQUIRE(length(doc, "spec.triggers") == 1);
    CHECK(at(doc, "spec.triggers[0].type") == "prometheus");
    CHECK(at(doc, "spec.triggers[0].metricType") == "AverageValue");
    CHECK(at(doc, "spec.triggers[0].metadata.serverAddress") ==
          "http://prometheus.monitoring.svc:9090");
    CHECK(at(doc, "spec.triggers[0].metadata.query") ==
          "sum(vllm:num_requests_running{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}) + "
          "sum(vllm:num_requests_waiting{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"})");
    // KEDA's metadata is a map of strings: the threshold must be a quoted string.
    CHECK(at(doc, "spec.triggers[0].metadata.threshold") == "51");
    CHECK(quoted(doc, "spec.triggers[0].metadata.threshold"));
    CHECK(at(doc, "spec.triggers[0].metadata.activationThreshold") == "0");
    CHECK(quoted(doc, "spec.triggers[0].metadata.activationThreshold"));
    const yaml_node* behavior = find(doc, "spec.advanced.horizontalPodAutoscalerConfig.behavior");
    REQUIRE(behavior != nullptr);
    check_rules_equal(*find(*behavior, "scaleUp"), config.behavior->scale_up);
    check_rules_equal(*find(*behavior, "scaleDown"), config.behavior->scale_down);

    // Scale to zero: KEDA owns 0 <-> 1 (External metric in the library's terms).
    auto zero = config;
    zero.min_replicas = 0;
    zero.metrics[0].source = metric_source::external;
    zero.behavior.reset();
    keda.triggers[0].activation_threshold = 0.5;
    keda.cooldown_period = 600s;
    const auto z = parse_yaml(k8s::scaled_object_yaml(spec_workload(), zero, keda));
    CHECK(at(z, "spec.minReplicaCount") == "0");
    CHECK(at(z, "spec.cooldownPeriod") == "600");
    CHECK(at(z, "spec.triggers[0].metadata.activationThreshold") == "0.5");
    CHECK_FALSE(has(z, "spec.advanced"));
  }

  TEST_CASE("kubernetes: YAML quoting round-trips awkward strings") {
    // Strings with PromQL and YAML specials, and every kind of character YAML does not allow
    // raw (C0 and C1 controls, NEL, LS, PS, the BOM, U+FFFE, U+FFFF), survive both escapings:
    // libyaml reads back the very string, and no raw unprintable character is written.
    const std::string awkward[] = {"it's",
                                   "a\"b\\c",
                                   "x: y #z",
                                   "line\nbreak",
                                   "tab\there",
                                   "cr\rlf",
                                   "nul\x01"
                                   "del\x7f",
                                   "\xc3\xbc"
                                   "n\xc3\xaf"
                                   "code",
                                   "{[*&!|>%@`]}",
                                   "- item",
                                   "c1 \xc2\x80 \xc2\x9f",
                                   "nel\xc2\x85x",
                                   "ls\xe2\x80\xa8ps\xe2\x80\xa9",
                                   "\xef\xbb\xbf bom",
                                   "\xef\xbf\xbe\xef\xbf\xbf",
                                   "nbsp\xc2\xa0 private\xee\x80\x80 emoji\xf0\x9f\x98\x80",
                                   "\\N \\x85 \\u0085"};
    for (const auto& model : awkward) {
      CAPTURE(model);
      const std::string query = k8s::in_flight_query("r", "w", "model_name", model);
      const auto spec = worked_config(51.0);
      const k8s::keda_prometheus_options keda{
          .server_address = "https://prom:9090",
          .triggers = {{.metric_name = spec.metrics[0].name, .query = query}}};
      const std::string so = k8s::scaled_object_yaml(spec_workload(), spec, keda);
      CHECK(first_unprintable(so) == std::string_view::npos);
      CHECK(at(parse_yaml(so), "spec.triggers[0].metadata.query") == query);
      // The same strings as a target kind and a metric name (URL path segments: no / or %).
      if (model.find_first_of("/%") != std::string::npos) continue;
      auto workload = spec_workload();
      workload.target_kind = "Kind " + model;
      auto config = worked_config(51.0);
      config.metrics[0].name = "m " + model;
      const std::string hpa = k8s::horizontal_pod_autoscaler_yaml(workload, config);
      CHECK(first_unprintable(hpa) == std::string_view::npos);
      const auto doc = parse_yaml(hpa);
      CHECK(at(doc, "spec.scaleTargetRef.kind") == workload.target_kind);
      CHECK(at(doc, "spec.metrics[0].pods.metric.name") == config.metrics[0].name);
    }
    // The escapes themselves: ASCII controls as \xhh, the others as \uhhhh, which Go (PromQL)
    // and YAML read alike (YAML's \N would not do for PromQL, and Go's \x85 is a byte).
    CHECK(k8s::in_flight_query("r", "w", "m", "a\xc2\x85\x01\xe2\x80\xa8\xef\xbf\xbf") ==
          "sum(r{m=\"a\\u0085\\x01\\u2028\\uffff\"}) + sum(w{m=\"a\\u0085\\x01\\u2028\\uffff\"})");
    std::string scalar;
    k8s::detail::append_yaml_scalar(scalar, "x\xc2\x85y");
    CHECK(scalar == "\"x\\u0085y\"");
    scalar.clear();
    k8s::detail::append_yaml_scalar(scalar, "\xc3\xbc'n");  // printable: single-quoted, raw
    CHECK(scalar == "'\xc3\xbc''n'");
    // A PromQL label value is UTF-8, as Prometheus requires of label values.
    CHECK(thrown_parameter([] { (void)k8s::in_flight_query("r", "w", "m", "\xff"); }) ==
          "label_value");
    // Scalars YAML 1.1 would read as booleans, nulls or numbers are quoted; names stay plain.
    for (const std::string s : {"yes", "No", "on", "OFF", "y", "null", "true", "8b", "1e3", "0x1f",
                                "-1", ".5", "", "~", "a b", "x\x01y", "back\\slash"}) {
      CAPTURE(s);
      std::string line = "k: ";
      k8s::detail::append_yaml_scalar(line, s);
      const auto doc = parse_yaml(line + "\n");
      CHECK(at(doc, "k") == s);
      CHECK(quoted(doc, "k"));
    }
    for (const std::string s :
         {"llama-8b", "apps/v1", "keda.sh/v1alpha1", "Deployment", "vllm_requests_in_flight"}) {
      std::string line;
      k8s::detail::append_yaml_scalar(line, s);
      CHECK(line == s);
    }
    // A DNS-valid name that YAML 1.1 reads as a boolean ("yes", "on") is quoted in metadata.
    const auto doc = parse_yaml(k8s::horizontal_pod_autoscaler_yaml(
        {.name = "on", .namespace_name = "yes", .target_name = "8b"}, worked_config(51.0)));
    CHECK(at(doc, "metadata.name") == "on");
    CHECK(quoted(doc, "metadata.name"));
    CHECK(quoted(doc, "metadata.namespace"));
    CHECK(quoted(doc, "spec.scaleTargetRef.name"));
  }

  TEST_CASE("kubernetes: library-only settings and tolerances") {
    auto c = worked_config(51.0);
    c.scale_up_tolerance = 0.0;
    c.scale_down_tolerance = 0.05;
    c.reserve_replicas = 2;
    const std::string yaml = k8s::horizontal_pod_autoscaler_yaml(spec_workload(), c);
    const auto doc = parse_yaml(yaml);
    // behavior.scaleUp/scaleDown.tolerance (HPAConfigurableTolerance), written when != 0.1.
    CHECK(at(doc, "spec.behavior.scaleUp.tolerance") == "0");
    CHECK(at(doc, "spec.behavior.scaleDown.tolerance") == "0.05");
    CHECK(yaml.find("# headroom: reserve_replicas") != std::string::npos);
    // Without a behavior the tolerance is a cluster flag: a comment, no field.
    c.behavior.reset();
    const std::string plain = k8s::horizontal_pod_autoscaler_yaml(spec_workload(), c);
    CHECK_FALSE(has(parse_yaml(plain), "spec.behavior"));
    CHECK(plain.find("--horizontal-pod-autoscaler-tolerance") != std::string::npos);
    // KEDA: the behavior is written without tolerance (not in every KEDA CRD); a comment says so.
    c.behavior = scaling_behavior{};
    const std::string so = k8s::scaled_object_yaml(
        spec_workload(), c,
        {.server_address = "http://prom:9090",
         .triggers = {{.metric_name = c.metrics[0].name, .query = "sum(x)"}}});
    const auto keda = parse_yaml(so);
    CHECK(has(keda, "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown"));
    CHECK_FALSE(
        has(keda, "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.tolerance"));
    CHECK(so.find("# headroom: the tolerances differ from 0.1") != std::string::npos);
  }

  TEST_CASE("kubernetes: invalid inputs name the parameter") {
    const auto c = worked_config(51.0);
    const auto w = spec_workload();
    const auto hpa = [](k8s::scaled_workload wl, autoscaler_config cfg) {
      return thrown_parameter([&] { (void)k8s::horizontal_pod_autoscaler_yaml(wl, cfg); });
    };
    CHECK(hpa({.name = "", .namespace_name = "serving", .target_name = "x"}, c) == "workload.name");
    CHECK(hpa({.name = "Llama-8B", .namespace_name = "serving", .target_name = "x"}, c) ==
          "workload.name");
    CHECK(hpa({.name = "x", .namespace_name = "serving.prod", .target_name = "x"}, c) ==
          "workload.namespace_name");
    CHECK(hpa({.name = "x", .namespace_name = "serving", .target_name = ""}, c) ==
          "workload.target_name");
    CHECK(hpa({.name = "x", .namespace_name = "serving", .target_name = "meta-llama/llama"}, c) ==
          "workload.target_name");
    CHECK(hpa({.name = "x", .namespace_name = "serving", .target_name = "x", .target_kind = ""},
              c) == "workload.target_kind");
    CHECK(hpa({.name = "x",
               .namespace_name = "serving",
               .target_name = "x",
               .target_kind = "Deployment",
               .target_api_version = ""},
              c) == "workload.target_api_version");
    auto bad = c;
    bad.metrics[0].target = 0.0;
    CHECK(hpa(w, bad) == "config.metrics.target");
    bad.metrics[0].target = -3.0;
    CHECK(hpa(w, bad) == "config.metrics.target");
    bad.metrics[0].target = 51.2345;  // finer than a milli-unit: the HPA would round it
    CHECK(hpa(w, bad) == "config.metrics.target");
    bad = c;
    bad.metrics[0].name = "a/b";
    CHECK(hpa(w, bad) == "config.metrics.name");
    bad.metrics[0].name = "bad\xff";  // not UTF-8: no valid YAML can carry it
    CHECK(hpa(w, bad) == "config.metrics.name");
    bad = c;
    bad.metrics[0].source = metric_source::object;
    CHECK(hpa(w, bad) == "config.metrics.source");
    bad.metrics = {{.name = "cpu",
                    .source = metric_source::container_resource,
                    .target_type = metric_target_type::utilization,
                    .target = 70}};
    CHECK(hpa(w, bad) == "config.metrics.source");  // needs a container name
    bad = c;
    bad.metrics = {{.name = "cpu",
                    .source = metric_source::resource,
                    .target_type = metric_target_type::utilization,
                    .target = 70.5}};
    CHECK(hpa(w, bad) == "config.metrics.target");
    bad = c;
    bad.behavior->scale_down.stabilization_window = 3601s;  // API cap 3600 s
    CHECK(hpa(w, bad) == "config.behavior.scale_down.stabilization_window");
    bad = c;
    bad.behavior->scale_up.policies[0].period = 1801s;  // API cap 1800 s
    CHECK(hpa(w, bad) == "config.behavior.policies.period");
    bad = c;
    bad.min_replicas = 30;
    CHECK(hpa(w, bad) == "config.min_replicas");

    const auto keda = [&](k8s::keda_prometheus_options o, autoscaler_config cfg) {
      return thrown_parameter([&] { (void)k8s::scaled_object_yaml(w, cfg, o); });
    };
    const std::string metric = c.metrics[0].name;
    // A ScaledObject whose one trigger, for the config's metric, has this query and threshold.
    const auto options = [&](std::string address, std::string query, double threshold,
                             std::chrono::seconds cooldown) {
      return k8s::keda_prometheus_options{.server_address = std::move(address),
                                          .triggers = {{.metric_name = metric,
                                                        .query = std::move(query),
                                                        .activation_threshold = threshold}},
                                          .cooldown_period = cooldown};
    };
    const auto ok = options("http://prom:9090", "sum(x)", 0.0, 300s);
    CHECK(keda(ok, c) == "<nothing thrown>");
    CHECK(keda(options("http://p", "sum(x)", 0.0, 300s), c) == "<nothing thrown>");
    CHECK(keda(options("prom:9090", "sum(x)", 0.0, 300s), c) == "keda.server_address");
    CHECK(keda(options("", "sum(x)", 0.0, 300s), c) == "keda.server_address");
    CHECK(keda(options("https://", "sum(x)", 0.0, 300s), c) == "keda.server_address");
    CHECK(keda(options("http://prom:9090", "  ", 0.0, 300s), c) == "keda.triggers.query");
    CHECK(keda(options("http://prom:9090", "sum(x{m=\"\xc3\"})", 0.0, 300s), c) ==
          "keda.triggers.query");
    CHECK(keda(options("http://prom:9090", "sum(x)", -1.0, 300s), c) ==
          "keda.triggers.activation_threshold");
    CHECK(keda(options("http://prom:9090", "sum(x)", 0.0, -1s), c) == "keda.cooldown_period");
    // Triggers pair with metrics by name: a metric without one, a trigger without its metric,
    // and two triggers for one metric are each refused.
    auto no_trigger = ok;
    no_trigger.triggers.clear();
    CHECK(keda(no_trigger, c) == "keda.triggers");
    auto stray = ok;
    stray.triggers.push_back({.metric_name = "not_a_metric", .query = "sum(y)"});
    CHECK(keda(stray, c) == "keda.triggers.metric_name");
    auto twice = ok;
    twice.triggers.push_back(ok.triggers[0]);
    CHECK(keda(twice, c) == "keda.triggers.metric_name");
    // Two metrics and their triggers in the other order: each query goes to its own metric,
    // and the triggers are written in the order of config.metrics.
    auto two = c;
    two.metrics.push_back({.name = "queue_depth",
                           .source = metric_source::pods,
                           .target_type = metric_target_type::average_value,
                           .target = 4.0});
    const k8s::keda_prometheus_options swapped{
        .server_address = "http://prom:9090",
        .triggers = {{.metric_name = "queue_depth", .query = "sum(q)"},
                     {.metric_name = metric, .query = "sum(x)", .activation_threshold = 2.5}}};
    const auto both = parse_yaml(k8s::scaled_object_yaml(w, two, swapped));
    CHECK(at(both, "spec.triggers[0].metadata.query") == "sum(x)");
    CHECK(at(both, "spec.triggers[0].metadata.threshold") == "51");
    CHECK(at(both, "spec.triggers[0].metadata.activationThreshold") == "2.5");
    CHECK(at(both, "spec.triggers[1].metadata.query") == "sum(q)");
    CHECK(at(both, "spec.triggers[1].metadata.threshold") == "4");
    CHECK(at(both, "spec.triggers[1].metadata.activationThreshold") == "0");
    bad = c;
    bad.sync_period = 1500ms;  // pollingInterval is whole seconds
    CHECK(keda(ok, bad) == "config.sync_period");
    bad = c;
    bad.metrics = {{.name = "cpu",
                    .source = metric_source::resource,
                    .target_type = metric_target_type::utilization,
                    .target = 70.0}};
    CHECK(keda(ok, bad) == "config.metrics.source");
  }

#if defined(__cpp_exceptions)
  // The strong guarantee: a manifest refused while it is being written (here at its second
  // metric, whose target 1.0005 is no whole number of milli-units, after the metadata and
  // the first metric are written) leaves the caller's string as it was.
  TEST_CASE("kubernetes: a manifest refused midway leaves the output as it was") {
    autoscaler_config c;
    c.min_replicas = 1;
    c.max_replicas = 10;
    c.metrics = {{.name = "in_flight",
                  .source = metric_source::external,
                  .target_type = metric_target_type::average_value,
                  .target = 51.2},
                 {.name = "queue",
                  .source = metric_source::external,
                  .target_type = metric_target_type::average_value,
                  .target = 1.0005}};
    std::string out = "# prefix\n";
    CHECK_THROWS_AS(
        k8s::append_horizontal_pod_autoscaler(out, {.name = "hpa", .target_name = "web"}, c),
        headroom::invalid_argument);
    CHECK(out == "# prefix\n");
    const k8s::keda_prometheus_options keda{
        .server_address = "http://prometheus:9090",
        .triggers = {{.metric_name = "in_flight", .query = "sum(x)"},
                     {.metric_name = "queue", .query = "sum(y)"}}};
    CHECK_THROWS_AS(k8s::append_scaled_object(out, {.name = "so", .target_name = "web"}, c, keda),
                    headroom::invalid_argument);
    CHECK(out == "# prefix\n");
    c.metrics[1].target = 1.0;  // the same calls, now accepted, append after the prefix
    k8s::append_horizontal_pod_autoscaler(out, {.name = "hpa", .target_name = "web"}, c);
    CHECK(out.starts_with("# prefix\n"));
    CHECK(at(parse_yaml(out), "spec.metrics[1].external.target.averageValue") == "1");
  }
#endif
}

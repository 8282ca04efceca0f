// SPDX-License-Identifier: Apache-2.0
// Writes Kubernetes manifests whose strings hold every kind of character YAML does not allow
// raw, for tests/pyyaml_roundtrip.py to read back with PyYAML (the parser kubectl's YAML
// layer follows: YAML 1.1, strict about unprintable characters).
//
//   headroom_yaml_emit manifests   the documents, separated by "---"
//   headroom_yaml_emit expected    one line per string: document index, dotted path, and the
//                                  expected value as hexadecimal UTF-8
//   headroom_yaml_emit --skip WHY  prints WHY and exits 77 (ctest's SKIP_RETURN_CODE), for a
//                                  build without python3
#include <headroom/autoscaler.hpp>
#include <headroom/kubernetes.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace k8s = headroom::kubernetes;
using namespace std::chrono_literals;

// C0 and C1 controls, NEL, LS, PS, the BOM, U+FFFE, U+FFFF, YAML and PromQL specials.
const char* const awkward[] = {
    "it's",
    "a\"b\\c",
    "x: y #z",
    "line\nbreak",
    "tab\there",
    "cr\rlf",
    "nul\x01"
    "esc\x1b"
    "del\x7f",
    "c1 \xc2\x80 \xc2\x84 \xc2\x86 \xc2\x9f",
    "nel\xc2\x85x",
    "ls\xe2\x80\xa8ps\xe2\x80\xa9",
    "\xef\xbb\xbf"
    "bom",
    "\xef\xbf\xbe"
    "and"
    "\xef\xbf\xbf",
    "nbsp\xc2\xa0 private\xee\x80\x80 emoji\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
    "\\N \\x85 \\u0085",
    " leading and trailing ",
    "yes",
    "~",
    "- item",
};

struct expectation {
  std::size_t document;
  std::string path;
  std::string value;
};

std::string hex(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += digits[u >> 4];
    out += digits[u & 0xf];
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "--skip") {
    std::printf("SKIPPED: %s\n", argc > 2 ? argv[2] : "no reason given");
    return 77;
  }
  if (mode != "manifests" && mode != "expected") {
    std::fputs("usage: headroom_yaml_emit manifests|expected|--skip WHY\n", stderr);
    return 2;
  }
  std::string stream;
  std::vector<expectation> expected;
  std::size_t document = 0;
  for (const char* text : awkward) {
    const std::string s = text;
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = 1,
        .max_replicas = 20,
        .metrics = {{.name = "m " + s,
                     .source = headroom::autoscaling::metric_source::pods,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = 51.0}},
        .behavior = headroom::autoscaling::scaling_behavior{},
        .sync_period = 15s};
    const std::string query = k8s::in_flight_query("r", "w", "model_name", s);
    const k8s::scaled_workload workload{.name = "llama-8b",
                                        .namespace_name = "serving",
                                        .target_name = "llama-8b",
                                        .target_kind = "Kind " + s,
                                        .target_api_version = "apps/v1"};
    const k8s::keda_prometheus_options keda{
        .server_address = "https://prom:9090",
        .triggers = {{.metric_name = config.metrics[0].name, .query = query}}};

    if (document > 0) stream += "---\n";
    k8s::append_scaled_object(stream, workload, config, keda);
    expected.push_back({document, "spec.triggers.0.metadata.query", query});
    expected.push_back({document, "spec.scaleTargetRef.kind", workload.target_kind});
    ++document;

    stream += "---\n";
    k8s::append_horizontal_pod_autoscaler(stream, workload, config);
    expected.push_back({document, "spec.metrics.0.pods.metric.name", config.metrics[0].name});
    expected.push_back({document, "spec.scaleTargetRef.kind", workload.target_kind});
    ++document;
  }
  if (mode == "manifests") {
    std::fwrite(stream.data(), 1, stream.size(), stdout);
  } else {
    for (const expectation& e : expected)
      std::printf("%zu %s %s\n", e.document, e.path.c_str(), hex(e.value).c_str());
  }
  return 0;
}

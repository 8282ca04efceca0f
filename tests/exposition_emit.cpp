// SPDX-License-Identifier: Apache-2.0
// Writes one /metrics page per controller decision kind (every scale_reason, panic mode, a
// failed metric, a decision without metric recommendations), with a capacity measurement
// and a placement (placed, and not), into the directory given: page_<n>_<reason>.prom.
// tests/promtool_check.cmake runs `promtool check metrics` on each.
#include <headroom/autoscaler/proposals.hpp>
#include <headroom/prometheus/exposition.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace prom = headroom::prometheus;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: headroom_exposition_emit DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<headroom::autoscaling::metric_spec> metrics = {
      {.name = "in_flight",
       .source = headroom::autoscaling::metric_source::external,
       .target = 51.0},
      {.name = "kv \"cache\"\\usage\n",
       .source = headroom::autoscaling::metric_source::external,
       .target = 0.8}};
  int n = 0;
  for (const headroom::autoscaling::scale_reason reason :
       headroom::autoscaling::all_scale_reasons) {
    for (const bool metrics_used : {true, false}) {
      headroom::autoscaling::autoscaler_decision d{
          .desired_replicas = 7,
          .current_replicas = 5,
          .raw_recommendation = metrics_used ? 9 : -1,
          .stabilized_recommendation = metrics_used ? 8 : -1,
          .reason = reason};
      d.panicking = reason == headroom::autoscaling::scale_reason::panic;
      d.failed_metrics = reason == headroom::autoscaling::scale_reason::metric_missing ? 1 : 0;
      const std::vector<std::optional<std::int32_t>> proposals = {
          9, d.failed_metrics > 0 ? std::nullopt : std::optional<std::int32_t>(4)};
      prom::exposition_page page;
      prom::append_decision(
          page, d,
          {.autoscaler = "default/llama-3.1-8b",
           .metrics = metrics,
           .proposals =
               metrics_used ? std::span(proposals) : std::span<const std::optional<std::int32_t>>{},
           .steps = 12,
           .rescales = 3});
      prom::append_capacity(page, {.model = "meta-llama/Llama-3.1-8B-Instruct",
                                   .capacity_per_second = 8.25,
                                   .conformance = 0.991,
                                   .conformance_lower = 0.983,
                                   .conformance_upper = 0.996,
                                   .confidence_level = 0.95,
                                   .requests = 4000});
      prom::append_placement(page,
                             {.model = "llama \"8b\"",
                              .placed = metrics_used,
                              .strategy = metrics_used ? "single worker, single GPU" : "none",
                              .reason = metrics_used ? "placed" : "every worker was filtered out",
                              .candidates = metrics_used ? 3u : 0u,
                              .filtered_out = 2,
                              .score = 87.5});
      const std::string path = dir + "/page_" + std::to_string(n++) + "_" +
                               std::string(headroom::autoscaling::to_string(reason)) +
                               (metrics_used ? "" : "_no_metrics") + ".prom";
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr ||
          std::fwrite(page.text().data(), 1, page.text().size(), f) != page.text().size()) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
      }
      std::fclose(f);
    }
  }
  std::printf("%d pages\n", n);
  return 0;
}

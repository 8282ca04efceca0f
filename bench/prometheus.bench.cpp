// SPDX-License-Identifier: Apache-2.0
// Parser throughput for headroom/prometheus.hpp (bytes/s via SetBytesProcessed).
//  - BM_prometheus_parse_generated: a 200-series vLLM-style page built here (4 engines, two
//    histograms of 20 buckets, counters, gauges); needs no data files.
//  - BM_prometheus_parse_{vllm_v1,alltypes}: the fixture pages under tests/data/metrics, when
//    HEADROOM_TEST_DATA_DIR is defined (the test target's definition).
#include <headroom/prometheus.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

namespace {

namespace prom = headroom::prometheus;

std::string generated_page() {
  const char* bounds[] = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08",
                          "0.1",   "0.25",  "0.5",  "0.75", "1.0",  "2.5",  "5.0",
                          "7.5",   "10.0",  "20.0", "40.0", "+Inf"};
  std::string page;
  for (int i = 0; i < 20; ++i) {
    const std::string name = "process_metric_" + std::to_string(i);
    page += "# HELP " + name + " A process metric.\n# TYPE " + name + " gauge\n";
    page += name + " " + std::to_string(1.0e9 + i * 12345.678) + "\n";
  }
  const char* gauges[] = {"vllm:num_requests_running", "vllm:num_requests_waiting",
                          "vllm:kv_cache_usage_perc", "vllm:prompt_tokens_total",
                          "vllm:generation_tokens_total"};
  const std::string model = "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
  for (const char* g : gauges) {
    page += std::string("# HELP ") + g + " Engine metric.\n# TYPE " + g + " gauge\n";
    for (int e = 0; e < 4; ++e)
      page += std::string(g) + "{engine=\"" + std::to_string(e) + "\"," + model + "} " +
              std::to_string(e * 3.25) + "\n";
  }
  for (const char* h : {"vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds"}) {
    page += std::string("# HELP ") + h + " Latency histogram.\n# TYPE " + h + " histogram\n";
    for (int e = 0; e < 4; ++e) {
      const std::string labels = "engine=\"" + std::to_string(e) + "\"," + model;
      double count = 0;
      for (const char* le : bounds) {
        count += 7;
        page += std::string(h) + "_bucket{" + labels + ",le=\"" + le + "\"} " +
                std::to_string(count) + "\n";
      }
      page += std::string(h) + "_sum{" + labels + "} 417.90156173706055\n";
      // _count omitted: 19 buckets + _sum = 20 series per engine
    }
  }
  return page;
}

void run_parse(benchmark::State& state, const std::string& text) {
  prom::page page;
  for (auto _ : state) {
    prom::parse_into(text, page);
    benchmark::DoNotOptimize(page.samples().data());
    if (!page.ok()) state.SkipWithError("page failed to parse");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.counters["samples"] = static_cast<double>(page.samples().size());
}

void BM_prometheus_parse_generated(benchmark::State& state) {
  static const std::string text = generated_page();
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_generated);

void BM_prometheus_read_replica_load(benchmark::State& state) {
  static const std::string text = generated_page();
  const prom::page page = prom::parse(text);
  for (auto _ : state) {
    auto load =
        prom::read_replica_load(page, prom::vllm_preset, "meta-llama/Llama-3.1-8B-Instruct");
    benchmark::DoNotOptimize(load);
  }
}
BENCHMARK(BM_prometheus_read_replica_load);

#ifdef HEADROOM_TEST_DATA_DIR
std::string read_fixture(const char* name) {
  std::string out;
  const std::string path = std::string(HEADROOM_TEST_DATA_DIR) + "/metrics/" + name;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out.append(buffer, n);
    std::fclose(f);
  }
  return out;
}

void BM_prometheus_parse_vllm_v1(benchmark::State& state) {
  static const std::string text = read_fixture("vllm_v1_deepseek_specdecode.txt");
  if (text.empty()) state.SkipWithError("fixture not found");
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_vllm_v1);

void BM_prometheus_parse_alltypes(benchmark::State& state) {
  static const std::string text = read_fixture("prometheus_alltypes.237mfs.prom.txt");
  if (text.empty()) state.SkipWithError("fixture not found");
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_alltypes);
#endif

}  // namespace

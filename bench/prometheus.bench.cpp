// SPDX-License-Identifier: Apache-2.0
// Parser throughput for headroom/prometheus.hpp (bytes/s via SetBytesProcessed).
//  - BM_prometheus_parse_generated: a 200-series vLLM-style page built here (4 engines, two
//    histograms of 20 buckets, counters, gauges); needs no data files.
//  - BM_prometheus_parse_{vllm_v1,alltypes}: the fixture pages under tests/data/metrics, when
//    HEADROOM_TEST_DATA_DIR is defined (the test target's definition).
//  - Hostile pages of about 1.3 MB each, next to an ordinary page of the same size
//    (BM_prometheus_parse_ordinary_1300k, 150 copies of the generated page): one line of
//    131,072 distinct labels (BM_prometheus_parse_hostile_labels), and 65,536 families whose
//    names share the low 17 bits of their 64-bit FNV-1a hash, the function an earlier
//    family table used unseeded (BM_prometheus_parse_hostile_families), next to 65,536
//    families of the same length with unrelated names (BM_prometheus_parse_random_families).
//    Each should cost about what the ordinary page costs per byte.
#include <headroom/prometheus.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

namespace prom = headroom::prometheus;

// The generated page with `suffix` appended to every family name (copies stay distinct).
std::string generated_page(const std::string& suffix = {}) {
  const char* bounds[] = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08",
                          "0.1",   "0.25",  "0.5",  "0.75", "1.0",  "2.5",  "5.0",
                          "7.5",   "10.0",  "20.0", "40.0", "+Inf"};
  std::string page;
  for (int i = 0; i < 20; ++i) {
    const std::string name = "process_metric_" + std::to_string(i) + suffix;
    page += "# HELP " + name + " A process metric.\n# TYPE " + name + " gauge\n";
    page += name + " " + std::to_string(1.0e9 + i * 12345.678) + "\n";
  }
  const char* gauges[] = {"vllm:num_requests_running", "vllm:num_requests_waiting",
                          "vllm:kv_cache_usage_perc", "vllm:prompt_tokens_total",
                          "vllm:generation_tokens_total"};
  const std::string model = "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
  for (const char* gauge : gauges) {
    const std::string g = gauge + suffix;
    page += "# HELP " + g + " Engine metric.\n# TYPE " + g + " gauge\n";
    for (int e = 0; e < 4; ++e)
      page += g + "{engine=\"" + std::to_string(e) + "\"," + model + "} " +
              std::to_string(e * 3.25) + "\n";
  }
  for (const char* histogram :
       {"vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds"}) {
    const std::string h = histogram + suffix;
    page += "# HELP " + h + " Latency histogram.\n# TYPE " + h + " histogram\n";
    for (int e = 0; e < 4; ++e) {
      const std::string labels = "engine=\"" + std::to_string(e) + "\"," + model;
      double count = 0;
      for (const char* le : bounds) {
        count += 7;
        page += h + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(count) + "\n";
      }
      page += h + "_sum{" + labels + "} 417.90156173706055\n";
      // _count omitted: 19 buckets + _sum = 20 series per engine
    }
  }
  return page;
}

// ---- hostile pages ------------------------------------------------------------------------

std::string base36(std::uint64_t n, std::size_t width) {
  std::string s(width, '0');
  for (std::size_t i = width; i-- > 0; n /= 36)
    s[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[n % 36];
  return s;
}

// An ordinary page of at least `bytes`: copies of the generated page with distinct names.
std::string ordinary_page(std::size_t bytes) {
  std::string page;
  for (int copy = 0; page.size() < bytes; ++copy) {
    std::string suffix = "_";  // (not "_" + ...: g++ 12 -O3 warns falsely, -Wrestrict)
    suffix += std::to_string(copy);
    page += generated_page(suffix);
  }
  return page;
}

// One sample line with `count` distinct labels l0000="x", l0001="x", ... (10 bytes each).
std::string labels_page(std::size_t count) {
  std::string page = "m{";
  for (std::size_t i = 0; i < count; ++i) {
    page += 'l';
    page += base36(i, 4);
    page += "=\"x\",";
  }
  page += "} 1\n";
  return page;
}

// `count` untyped families, one sample each, named family_<6 base-36 digits><3 characters>.
// colliding: the last 3 characters are chosen so that every name's 64-bit FNV-1a hash (offset
// basis 14695981039346656037, prime 1099511628211) has the same low 17 bits, hence the same
// low bits for every power-of-two table up to 131,072 slots. FNV-1a's low k bits depend only
// on the low k bits of the state and the bytes, and the prime is odd (invertible mod 2^k), so
// the third character follows from the first two. Otherwise the 3 characters are
// pseudo-random: names of the same length and page of the same size.
std::string families_page(std::size_t count, bool colliding) {
  constexpr std::uint64_t basis = 14695981039346656037ull, prime = 1099511628211ull;
  constexpr std::uint64_t mask = (1u << 17) - 1;
  std::uint64_t inverse = prime;  // Newton: prime * inverse == 1 mod 2^64
  for (int i = 0; i < 6; ++i) inverse *= 2 - prime * inverse;
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:";
  const std::uint64_t target = 0x0b5e1;  // any 17-bit value
  const std::uint64_t before_last = (target * inverse) & mask;
  std::uint64_t random = 0x9e3779b97f4a7c15ull;
  std::string page;
  page.reserve(count * 20);
  // A prefix whose 3 characters cannot reach the target (about 1 in 7) is passed over.
  for (std::size_t made = 0, i = 0; made < count; ++i) {
    std::string prefix = "family_";
    prefix += base36(i, 6);
    std::string name;
    if (colliding) {
      std::uint64_t h = basis;
      for (const char c : prefix) h = (h ^ static_cast<unsigned char>(c)) * prime;
      for (std::size_t a = 0; name.empty() && a < alphabet.size(); ++a) {
        for (std::size_t b = 0; name.empty() && b < alphabet.size(); ++b) {
          const std::uint64_t s = (((h ^ static_cast<unsigned char>(alphabet[a])) * prime) ^
                                   static_cast<unsigned char>(alphabet[b])) *
                                  prime;
          const std::uint64_t c = (s ^ before_last) & mask;
          if (c < 256 && alphabet.find(static_cast<char>(c)) != std::string::npos) {
            name = prefix;
            name += alphabet[a];
            name += alphabet[b];
            name += static_cast<char>(c);
          }
        }
      }
      if (name.empty()) continue;
    } else {
      name = prefix;
      for (int k = 0; k < 3; ++k) {
        random = random * 6364136223846793005ull + 1442695040888963407ull;
        name += alphabet[(random >> 58) % alphabet.size()];
      }
    }
    page += name;
    page += " 1\n";
    ++made;
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

void BM_prometheus_parse_ordinary_1300k(benchmark::State& state) {
  static const std::string text = ordinary_page(1'300'000);
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_ordinary_1300k)->Unit(benchmark::kMillisecond);

void BM_prometheus_parse_hostile_labels(benchmark::State& state) {
  static const std::string text = labels_page(131'072);
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_hostile_labels)->Unit(benchmark::kMillisecond);

void BM_prometheus_parse_random_families(benchmark::State& state) {
  static const std::string text = families_page(65'536, false);
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_random_families)->Unit(benchmark::kMillisecond);

void BM_prometheus_parse_hostile_families(benchmark::State& state) {
  static const std::string text = families_page(65'536, true);
  run_parse(state, text);
}
BENCHMARK(BM_prometheus_parse_hostile_families)->Unit(benchmark::kMillisecond);

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

// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom::measurements::read_genai_perf (headroom/measurements/
// genai_perf.hpp) and read_benchmark_file (format.hpp). Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/genai_perf.fuzz.cpp -o /tmp/fz_genai_perf
//   /tmp/fz_genai_perf -max_total_time=120 tests/fuzz/corpus/genai_perf
// The whole input is the file. Invariants: it never throws or crashes; a refusal has no run,
// a byte offset within the input and a reason; an export read has a rate > 0 exactly on its
// open-loop runs, a concurrency >= 1 on its closed-loop ones, every request's times finite,
// from the run's first send (>= 0, the earliest 0), intended equal to sent (the export keeps
// no schedule), in order for the ones that did not fail (sent <= first token <= finished);
// read_benchmark_file reads it the same way.
#include <headroom/measurements/format.hpp>
#include <headroom/measurements/genai_perf.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {
[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "genai_perf fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INVARIANT(condition) \
  ((condition) ? static_cast<void>(0) : violated(#condition, __LINE__))
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace m = headroom::measurements;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto file = m::read_genai_perf(text);
  if (m::detect_benchmark_format(text) == m::benchmark_format::genai_perf) {
    const auto again = m::read_benchmark_file(text);
    REQUIRE_INVARIANT(again.ok() == file.ok() && again.runs.size() == file.runs.size());
  }
  if (!file.ok()) {
    REQUIRE_INVARIANT(file.runs.empty());
    REQUIRE_INVARIANT(file.error->offset <= size);
    REQUIRE_INVARIANT(!file.error->reason.empty());
    return 0;
  }
  for (const auto& run : file.runs) {
    const bool open = run.load.pattern == m::load_pattern::open_loop;
    REQUIRE_INVARIANT(open == run.load.request_rate_per_second.has_value());
    if (open)
      REQUIRE_INVARIANT(*run.load.request_rate_per_second > 0.0 &&
                        std::isfinite(*run.load.request_rate_per_second));
    if (run.load.pattern == m::load_pattern::closed_loop)
      REQUIRE_INVARIANT(run.load.max_concurrency && *run.load.max_concurrency >= 1);
    REQUIRE_INVARIANT(run.send_times_known && !run.intended_times_known);
    double earliest = 1.0;
    for (const auto& r : run.requests) {
      const double intended = r.intended_arrival.count(), sent = r.sent.count();
      const double first = r.first_token.count(), finished = r.finished.count();
      REQUIRE_INVARIANT(std::isfinite(intended) && std::isfinite(sent) && std::isfinite(first) &&
                        std::isfinite(finished));
      REQUIRE_INVARIANT(intended >= 0.0 && intended == sent);
      earliest = std::min(earliest, intended);
      if (!r.error) REQUIRE_INVARIANT(sent <= first && first <= finished);
    }
    if (!run.requests.empty()) REQUIRE_INVARIANT(earliest == 0.0);
  }
  return 0;
}

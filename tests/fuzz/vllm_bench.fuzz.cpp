// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom::measurements::read_vllm_bench (headroom/measurements/
// vllm_bench.hpp) and the JSON under it (headroom/detail/json.hpp). Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/vllm_bench.fuzz.cpp -o /tmp/fz_vllm_bench
//   /tmp/fz_vllm_bench -max_total_time=120 tests/fuzz/corpus/vllm_bench
// The whole input is the file. Invariants: it never throws or crashes; a refusal has no run,
// a byte offset within the input and a reason; a file read has at least one run, each with a
// rate > 0 or none ("inf"), and every request's times finite, in order (intended <= sent <=
// first token <= finished for the ones that did not fail), its latencies >= 0; the JSON
// document's error offset lies within the input, and a document parsed whole has a root.
#include <headroom/detail/json.hpp>
#include <headroom/measurements/vllm_bench.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {
[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "vllm_bench fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INVARIANT(condition) \
  ((condition) ? static_cast<void>(0) : violated(#condition, __LINE__))
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto doc = headroom::detail::json_document::parse(text);
  REQUIRE_INVARIANT(doc.error().offset <= size);
  REQUIRE_INVARIANT(doc.ok() == doc.root().present());

  const auto file = headroom::measurements::read_vllm_bench(text);
  if (!file.ok()) {
    REQUIRE_INVARIANT(file.runs.empty());
    REQUIRE_INVARIANT(file.error->offset <= size);
    REQUIRE_INVARIANT(!file.error->reason.empty());
    return 0;
  }
  REQUIRE_INVARIANT(!file.runs.empty());
  for (const auto& run : file.runs) {
    if (run.load.request_rate_per_second)
      REQUIRE_INVARIANT(*run.load.request_rate_per_second > 0.0 &&
                        std::isfinite(*run.load.request_rate_per_second));
    for (const auto& r : run.requests) {
      const double intended = r.intended_arrival.count(), sent = r.sent.count();
      const double first = r.first_token.count(), finished = r.finished.count();
      REQUIRE_INVARIANT(std::isfinite(intended) && std::isfinite(sent) && std::isfinite(first) &&
                        std::isfinite(finished));
      REQUIRE_INVARIANT(intended >= 0.0 && intended <= sent);
      if (!r.error) REQUIRE_INVARIANT(sent <= first && first <= finished);
    }
  }
  return 0;
}

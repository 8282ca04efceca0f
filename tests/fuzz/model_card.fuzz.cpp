// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom::plan::read_model_card (headroom/plan/model_card.hpp). Build by
// hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/model_card.fuzz.cpp -o /tmp/fz_model_card
//   /tmp/fz_model_card -max_total_time=120 tests/fuzz/corpus/model_card
// The whole input is the file. Invariants: it never throws or crashes; a refusal has a byte
// offset within the input and a reason; a card read has every count finite and > 0, no more
// active parameters than parameters, KV bytes a token > 0, and a model_shape (made without a
// throw) whose weights' bytes and experts agree with the card's.
#include <headroom/plan/model_card.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {
[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "model_card fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INVARIANT(condition) \
  ((condition) ? static_cast<void>(0) : violated(#condition, __LINE__))
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace plan = headroom::plan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const plan::model_card_read r = plan::read_model_card(text);
  if (!r.ok()) {
    REQUIRE_INVARIANT(r.error.offset <= size);
    REQUIRE_INVARIANT(!r.error.reason.empty());
    return 0;
  }
  const plan::model_card& c = *r.card;
  const double n = plan::parameters(c), active = plan::active_parameters(c);
  const double bytes = plan::weight_bytes(c);
  const double kv = plan::kv_bytes_per_token(c, c.weights.dtype);
  REQUIRE_INVARIANT(std::isfinite(n) && n > 0.0);
  REQUIRE_INVARIANT(std::isfinite(active) && active > 0.0 && active <= n);
  REQUIRE_INVARIANT(std::isfinite(bytes) && bytes > 0.0);
  REQUIRE_INVARIANT(std::isfinite(kv) && kv > 0.0);
  REQUIRE_INVARIANT(c.layers >= 1 && c.kv_heads >= 1 && c.attention_heads % c.kv_heads == 0);
  REQUIRE_INVARIANT((c.experts.routed == 0) == (c.experts.moe_layers == 0));
  const plan::model_shape s = plan::to_model_shape(c, {.name = "fuzz"});
  REQUIRE_INVARIANT(s.parameters == n && s.layers == c.layers);
  REQUIRE_INVARIANT(std::fabs(s.bytes_per_parameter * n - bytes) <= 1e-9 * bytes);
  REQUIRE_INVARIANT(s.moe.experts == c.experts.routed);
  if (s.moe.experts > 0)
    REQUIRE_INVARIANT(
        std::fabs(headroom::roofline::active_parameters(s.parameters, s.moe) - active) <= 1e-9 * n);
  return 0;
}

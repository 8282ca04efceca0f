// SPDX-License-Identifier: Apache-2.0
// The compiled mode, second of two translation units (see first_unit.cpp).
#include <headroom/headroom.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <vector>

TEST_SUITE("compiled") {
  TEST_CASE("compiled: the second unit reads a model card and a capacity curve") {
    // Llama 3.1 8B's shape; its parameters by hand: embeddings and head 2·128256·4096,
    // per layer attention 4096·(4096 + 2·1024 + 4096) and MLP 3·4096·14336 plus two norms
    // of 4096, 32 layers, one final norm: 8 030 261 248.
    const auto card = headroom::plan::read_model_card(R"({
      "architectures": ["LlamaForCausalLM"], "model_type": "llama",
      "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
      "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16"})");
    REQUIRE(card.ok());
    CHECK(headroom::plan::parameters(*card.card) ==
          2.0 * 128256 * 4096 +
              32 * (4096.0 * (4096 + 2 * 1024 + 4096) + 3.0 * 4096 * 14336 + 2 * 4096) + 4096);

    // Conformance 0.99 at 10 req/s and 0.5 at 20 req/s: the point estimate crosses 0.95 by
    // linear interpolation at 10 + 10·(0.99 − 0.95)/(0.99 − 0.5) = 10.816… req/s.
    namespace cap = headroom::capacity;
    const auto measured = [](double share) {
      return cap::conformance_estimate{.n = 1000,
                                       .conforming = static_cast<std::size_t>(share * 1000),
                                       .share = share,
                                       .lower = share,
                                       .upper = share,
                                       .wilson_lower = share,
                                       .wilson_upper = share};
    };
    const std::vector<cap::capacity_point> curve{
        {.rate_per_second = 10.0, .conformance = measured(0.99)},
        {.rate_per_second = 20.0, .conformance = measured(0.5)}};
    const auto r = cap::find_capacity(curve, {.quota = 0.95, .interpolate = true});
    REQUIRE(r.capacity_per_second.has_value());
    CHECK(*r.capacity_per_second == doctest::Approx(10.0 + 10.0 * 0.04 / 0.49));
    CHECK(r.saturated);
  }
}

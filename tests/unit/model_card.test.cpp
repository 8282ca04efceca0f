// SPDX-License-Identifier: Apache-2.0
// plan/model_card.hpp on the real config.json files of tests/data/models (their origins in its
// README): parameter counts against the figures their publishers state, KV bytes per token
// and weight bytes against hand arithmetic written beside each check, and every refusal.
#include <headroom/plan/model_card.hpp>

#include <doctest/doctest.h>

#include "support.hpp"
#include "test_data.hpp"

#include <cmath>
#include <string>
#include <string_view>

namespace {

namespace plan = headroom::plan;
using headroom::roofline::numeric_format;
using headroom::test::read_test_data;
using headroom::test::rejected;

plan::model_card card_of(const std::string& file) {
  const plan::model_card_read r = plan::read_model_card(read_test_data("models/" + file));
  INFO(file << ": " << r.error.message());
  REQUIRE(r.ok());
  return *r.card;
}

// |computed / published − 1| <= 1 %.
bool within_one_percent(double computed, double published) {
  return std::fabs(computed / published - 1.0) <= 0.01;
}

// Llama 3.1 8B's layer, by hand: attention q and o 4096 × 4096 each, k and v 4096 × 1024 each
// (8 KV heads of 128) = 41,943,040; MLP 3 × 4096 × 14336 = 176,160,768; two norms 8,192.
constexpr double llama8b_linear = 32.0 * (41943040.0 + 176160768.0);  // 6,979,321,856
constexpr double llama8b_embedding = 128256.0 * 4096.0;               // 525,336,576
constexpr double llama8b_norms = 32.0 * 8192.0 + 4096.0;              // 266,240

}  // namespace

TEST_SUITE("plan/model_card") {
  TEST_CASE("model_card: dense cards count to their published parameters") {
    // Llama 3.1 model card: 8B, 70B, 405B; Hugging Face lists the 8B at 8.03B. The exact sums
    // of the tensor shapes (each layer as above; embeddings and output layer V × h each):
    // 8B  32 × 218,112,000 + 2 × 525,336,576 + 4,096           = 8,030,261,248
    // 70B 80 × 856,130,560 + 2 × 1,050,673,152 + 8,192         = 70,553,706,496
    // 405B 126 × 3,187,703,808 + 2 × 2,101,346,304 + 16,384     = 405,853,388,800
    const plan::model_card l8 = card_of("llama-3.1-8b.json");
    CHECK(l8.layout_known);
    CHECK(l8.notes.empty());
    CHECK(l8.layers == 32);
    CHECK(l8.kv_heads == 8);
    CHECK(l8.head_dim == 128);
    CHECK(plan::parameters(l8) == 8030261248.0);
    CHECK(within_one_percent(plan::parameters(l8), 8.03e9));
    CHECK(plan::active_parameters(l8) == plan::parameters(l8));
    const plan::model_card l70 = card_of("llama-3.1-70b.json");
    CHECK(plan::parameters(l70) == 70553706496.0);
    CHECK(within_one_percent(plan::parameters(l70), 70e9));
    const plan::model_card l405 = card_of("llama-3.1-405b.json");
    CHECK(plan::parameters(l405) == 405853388800.0);
    CHECK(within_one_percent(plan::parameters(l405), 405e9));
    // Llama 3.2 1B, tied embeddings ("1B (1.23B)", "Shared Embeddings: Yes"): 16 layers of
    // 2048 × 2048 × 2 + 2048 × 512 × 2 + 3 × 2048 × 8192 + 4096 = 60,821,504, one embedding
    // 128256 × 2048 = 262,668,288, the final norm 2,048: 1,235,814,400.
    const plan::model_card l1 = card_of("llama-3.2-1b-instruct.json");
    CHECK(l1.tied_embeddings);
    CHECK(plan::parameters(l1) == 1235814400.0);
    CHECK(within_one_percent(plan::parameters(l1), 1.23e9));
    // Qwen2.5-7B: "Number of Parameters: 7.61B", "(Non-Embedding): 6.53B". Biases on q, k, v
    // (3584 + 2 × 512): per layer 29,364,736 + 3 × 3584 × 18944 + 7,168 = 233,057,792;
    // 28 of them + 2 × 152064 × 3584 + 3,584 = 7,615,616,512.
    const plan::model_card q = card_of("qwen2.5-7b.json");
    CHECK(q.qkv_bias);
    CHECK_FALSE(q.output_bias);
    CHECK(plan::parameters(q) == 7615616512.0);
    CHECK(within_one_percent(plan::parameters(q), 7.61e9));
    CHECK(within_one_percent(plan::parameters(q) - 2.0 * 152064.0 * 3584.0, 6.53e9));
  }

  TEST_CASE("model_card: mixtures count to their published total and active parameters") {
    // Mixtral 8x7B ("46.7B total parameters but only uses 12.9B parameters per token"): per
    // layer attention 41,943,040 + router 4096 × 8 + 8 experts × 3 × 4096 × 14336 + norms
    // 8,192 = 1,451,270,144; × 32 + 2 × 32000 × 4096 + 4,096 = 46,702,792,704. Active: less 6
    // experts × 32 layers × 176,160,768 = 33,822,867,456, so 12,879,925,248.
    const plan::model_card m = card_of("mixtral-8x7b.json");
    CHECK(m.experts.routed == 8);
    CHECK(m.experts.per_token == 2);
    CHECK(m.experts.intermediate_size == 14336);
    CHECK(m.experts.moe_layers == 32);
    CHECK(plan::parameters(m) == 46702792704.0);
    CHECK(plan::active_parameters(m) == 12879925248.0);
    CHECK(within_one_percent(plan::parameters(m), 46.7e9));
    CHECK(within_one_percent(plan::active_parameters(m), 12.9e9));

    // DeepSeek-V3 (arXiv:2412.19437: 671B total; DeepSeek's README_WEIGHTS.md: "Activation
    // parameters: 36.6B (including 0.9B for the output Head)", i.e. without the input
    // embedding). Latent attention per layer: q_a 7168 × 1536, its norm 1536, q_b 1536 × 128 ×
    // 192, kv_a 7168 × 576, its norm 512, kv_b 512 × 128 × 256, o 16384 × 7168 = 187,107,328.
    // 3 dense layers (MLP 3 × 7168 × 18432) and 58 MoE layers (256 routed + 1 shared expert of
    // 3 × 7168 × 2048 = 44,040,192, router 256 × 7168 + 256 biases), norms 14,336 a layer.
    const plan::model_card d = card_of("deepseek-v3.json");
    CHECK(d.latent.kv_lora_rank == 512);
    CHECK(d.latent.qk_rope_head_dim == 64);
    CHECK(d.experts.routed == 256);
    CHECK(d.experts.shared_intermediate_size == 2048);
    CHECK(d.experts.score_bias);
    CHECK(d.experts.moe_layers == 58);
    const double dense_layer = 187107328.0 + 14336.0 + 3.0 * 7168.0 * 18432.0;
    const double moe_layer = 187107328.0 + 14336.0 + 257.0 * 44040192.0 + 256.0 * 7168.0 + 256.0;
    const double embeddings = 2.0 * 129280.0 * 7168.0 + 7168.0;
    CHECK(plan::parameters(d) == 3.0 * dense_layer + 58.0 * moe_layer + embeddings);
    CHECK(plan::parameters(d) == 671026419200.0);
    CHECK(within_one_percent(plan::parameters(d), 671e9));
    CHECK(plan::active_parameters(d) == plan::parameters(d) - 248.0 * 58.0 * 44040192.0);
    CHECK(within_one_percent(plan::active_parameters(d) - 129280.0 * 7168.0, 36.6e9));

    // Qwen3-30B-A3B ("30.5B in total and 3.3B activated", non-embedding 29.9B): per layer
    // attention 2 × 2048 × 4096 + 2 × 2048 × 512 + q/k norms 256 = 18,874,624, router 128 ×
    // 2048, 128 experts × 3 × 2048 × 768, norms 4,096 = 623,120,640; × 48 + 2 × 151936 × 2048
    // + 2,048 = 30,532,122,624. Active: less 120 × 48 × 4,718,592 = 3,353,032,704, which the
    // card writes with two digits as 3.3B (truncated): the check is [3.3e9, 3.4e9).
    const plan::model_card q = card_of("qwen3-30b-a3b.json");
    CHECK(q.qk_norm);
    CHECK(q.experts.moe_layers == 48);
    CHECK(plan::parameters(q) == 30532122624.0);
    CHECK(within_one_percent(plan::parameters(q), 30.5e9));
    CHECK(within_one_percent(plan::parameters(q) - 2.0 * 151936.0 * 2048.0, 29.9e9));
    CHECK(plan::active_parameters(q) == 3353032704.0);
    CHECK(plan::active_parameters(q) >= 3.3e9);
    CHECK(plan::active_parameters(q) < 3.4e9);
  }

  TEST_CASE("model_card: KV bytes per token by hand") {
    // Standard attention: 2 (K and V) × layers × KV heads × head_dim × bytes.
    CHECK(plan::kv_bytes_per_token(card_of("llama-3.1-8b.json"), numeric_format::bf16) ==
          2.0 * 32 * 8 * 128 * 2);  // 131,072
    CHECK(plan::kv_bytes_per_token(card_of("llama-3.1-70b.json"), numeric_format::bf16) ==
          2.0 * 80 * 8 * 128 * 2);  // 327,680
    CHECK(plan::kv_bytes_per_token(card_of("llama-3.1-405b.json"), numeric_format::fp8) ==
          2.0 * 126 * 8 * 128 * 1);  // 258,048
    CHECK(plan::kv_bytes_per_token(card_of("qwen2.5-7b.json"), numeric_format::bf16) ==
          2.0 * 28 * 4 * 128 * 2);  // 57,344
    CHECK(plan::kv_bytes_per_token(card_of("llama-3.2-1b-instruct.json"), numeric_format::bf16) ==
          2.0 * 16 * 8 * 64 * 2);  // 32,768
    CHECK(plan::kv_bytes_per_token(card_of("qwen3-30b-a3b.json"), numeric_format::bf16) ==
          2.0 * 48 * 4 * 128 * 2);  // 98,304
    // Latent attention caches kv_lora_rank + qk_rope_head_dim elements a layer: 61 × 576 × 2.
    CHECK(plan::kv_bytes_per_token(card_of("deepseek-v3.json"), numeric_format::bf16) ==
          61.0 * (512 + 64) * 2);  // 70,272
  }

  TEST_CASE("model_card: the weights' bytes follow the quantization") {
    // bf16: two bytes each.
    const plan::model_card l8 = card_of("llama-3.1-8b.json");
    CHECK(l8.weights.method == plan::quantization_method::none);
    CHECK(plan::weight_bytes(l8) == 2.0 * 8030261248.0);
    // FP8 per-tensor (AutoFP8): the linear layers in one byte, embeddings, output layer and
    // norms in bf16: 6,979,321,856 + 2 × (2 × 525,336,576 + 266,240) = 9,081,200,640.
    const plan::model_card f = card_of("llama-3-8b-instruct-fp8.json");
    CHECK(f.weights.method == plan::quantization_method::fp8);
    CHECK(f.weights.compute == numeric_format::fp8);
    CHECK(f.weights.linear.group_size == 0);
    CHECK(plan::parameters(f) == 8030261248.0);
    CHECK(plan::weight_bytes(f) ==
          llama8b_linear + 2.0 * (2.0 * llama8b_embedding + llama8b_norms));
    CHECK(plan::weight_bytes(f) == 9081200640.0);
    // FP8 in 128 × 128 blocks with a float32 scale each (Qwen3-30B-A3B-FP8, DeepSeek-V3).
    const plan::model_card qf = card_of("qwen3-30b-a3b-fp8.json");
    CHECK(qf.weights.linear.group_size == 16384);
    CHECK(qf.weights.linear.bytes_per_group == 4.0);
    CHECK(plan::parameters(qf) == 30532122624.0);
    const double q_linear = 48.0 * (2.0 * 2048 * 4096 + 2.0 * 2048 * 512 + 128.0 * 3 * 2048 * 768);
    const double q_other = 30532122624.0 - q_linear;
    CHECK(plan::weight_bytes(qf) ==
          doctest::Approx(q_linear * (1.0 + 4.0 / 16384) + 2.0 * q_other));
    // AWQ 4-bit in groups of 128 (hugging-quants' quantization_config for Llama 3.1 8B): an
    // fp16 scale and a 4-bit zero point a group, 0.5 + 2.5 / 128 bytes a weight; the rest in
    // fp16: 6,979,321,856 × 0.51953125 + 2 × 1,050,939,392 = 5,727,854,592.
    const std::string awq = R"({"model_type": "llama", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "float16",
        "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": null,
        "quant_method": "awq", "version": "gemm", "zero_point": true}})";
    const plan::model_card_read a = plan::read_model_card(awq);
    REQUIRE(a.ok());
    CHECK(a.card->weights.linear.format == numeric_format::int4);
    CHECK(a.card->weights.compute == numeric_format::fp16);
    CHECK(plan::weight_bytes(*a.card) == 5727854592.0);
    // GPTQ 8-bit, groups of 128: scale 2 bytes + zero 1 byte a group.
    const std::string gptq = R"({"model_type": "qwen2", "hidden_size": 3584,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "intermediate_size": 18944, "vocab_size": 152064, "torch_dtype": "float16",
        "quantization_config": {"bits": 8, "group_size": 128, "desc_act": false,
        "quant_method": "gptq", "sym": true}})";
    const plan::model_card_read g = plan::read_model_card(gptq);
    REQUIRE(g.ok());
    CHECK(g.card->weights.linear.format == numeric_format::int8);
    CHECK(headroom::roofline::bytes_per_parameter(g.card->weights.linear) == 1.0 + 3.0 / 128);
    // compressed-tensors W8A8 FP8, lm_head ignored: computes in FP8.
    const std::string ct = R"({"model_type": "llama", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "compressed-tensors", "ignore": ["lm_head"],
        "config_groups": {"group_0": {"targets": ["Linear"],
          "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true},
          "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                                "dynamic": true}}}}})";
    const plan::model_card_read c = plan::read_model_card(ct);
    REQUIRE(c.ok());
    CHECK(c.card->weights.compute == numeric_format::fp8);
    CHECK_FALSE(c.card->weights.lm_head_quantized);
    CHECK(plan::weight_bytes(*c.card) == 9081200640.0);
  }

  TEST_CASE("model_card: the model_shape the planner takes") {
    const plan::model_card m = card_of("mixtral-8x7b.json");
    const plan::model_shape s = plan::to_model_shape(m, {.name = "Mixtral-8x7B"});
    CHECK(s.name == "Mixtral-8x7B");
    CHECK(s.parameters == 46702792704.0);
    CHECK(s.layers == 32);
    CHECK(s.hidden_size == 4096);
    CHECK(s.kv_bytes_per_token == 131072.0);
    CHECK(s.bytes_per_parameter == 2.0);
    CHECK(s.moe.experts == 8);
    CHECK(s.moe.experts_per_token == 2);
    CHECK(s.moe.parameters_per_expert == 32.0 * 3 * 4096 * 14336);  // 5,637,144,576
    // The library's own active count agrees with the card's.
    CHECK(headroom::roofline::active_parameters(s.parameters, s.moe) == plan::active_parameters(m));
    CHECK(s.compute_format == numeric_format::bf16);

    // FP8 on load (vLLM --quantization fp8) of a bf16 card: the FP8 checkpoint's bytes.
    const plan::model_card l8 = card_of("llama-3.1-8b.json");
    const plan::model_shape f =
        plan::to_model_shape(l8, {.name = "l8", .precision = numeric_format::fp8});
    CHECK(f.compute_format == numeric_format::fp8);
    CHECK(f.bytes_per_parameter * f.parameters == doctest::Approx(9081200640.0).epsilon(1e-12));
    // An fp8 KV cache halves the bytes per token.
    CHECK(plan::to_model_shape(l8, {.name = "l8", .kv_cache = numeric_format::fp8})
              .kv_bytes_per_token == 65536.0);
    // A quantized card keeps its own precision; 4 bits needs a quantized card.
    const plan::model_card q = card_of("llama-3-8b-instruct-fp8.json");
    CHECK(rejected([&] { (void)plan::to_model_shape(q, {.precision = numeric_format::bf16}); }) ==
          "precision");
    CHECK(rejected([&] { (void)plan::to_model_shape(l8, {.precision = numeric_format::int4}); }) ==
          "precision");
    CHECK(rejected([&] { (void)plan::to_model_shape(l8, {.kv_cache = numeric_format::int4}); }) ==
          "kv_cache");
  }

  TEST_CASE("model_card: refusals name the field") {
    const std::string base = read_test_data("models/llama-3.1-8b.json");
    const auto refused = [](std::string_view text) {
      const plan::model_card_read r = plan::read_model_card(text);
      return r.ok() ? std::string("(read)") : r.error.field + ": " + r.error.reason;
    };
    const auto edited = [&](std::string_view from, std::string_view to) {
      std::string s = base;
      const auto at = s.find(from);
      REQUIRE(at != std::string::npos);
      s.replace(at, from.size(), to);
      return s;
    };
    // Not JSON, not an object, empty.
    CHECK(refused("{\"hidden_size\": 4096,").rfind(": not a model card", 0) == 0);
    CHECK(refused("[1, 2]") == ": not a model card: not a JSON object");
    CHECK(refused("") == ": not a model card: the text is empty");
    // A needed field missing.
    CHECK(refused(edited("\"num_hidden_layers\"", "\"num_layers\"")) ==
          "num_hidden_layers: is missing: a model card needs it");
    CHECK(refused(edited("\"hidden_size\"", "\"d_model\"")).rfind("hidden_size: is missing", 0) ==
          0);
    CHECK(refused(edited("\"intermediate_size\"", "\"ffn_size\"")) ==
          "intermediate_size: is missing: a dense model card needs it");
    // Negative, absurd, not an integer, not a number.
    CHECK(refused(edited("\"num_hidden_layers\": 32", "\"num_hidden_layers\": -32")) ==
          "num_hidden_layers: must lie in [1, 1000], got -32");
    CHECK(refused(edited("\"hidden_size\": 4096", "\"hidden_size\": 1e12")) ==
          "hidden_size: must lie in [1, 16777216], got 1000000000000");
    CHECK(refused(edited("\"vocab_size\": 128256", "\"vocab_size\": 128256.5")) ==
          "vocab_size: must be an integer, got 128256.5");
    CHECK(refused(edited("\"num_attention_heads\": 32", "\"num_attention_heads\": \"32\"")) ==
          "num_attention_heads: must be an integer");
    CHECK(refused(edited("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 7")) ==
          "num_key_value_heads: must divide num_attention_heads (32), got 7");
    CHECK(refused(edited("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 64")) ==
          "num_key_value_heads: must lie in [1, 32], got 64");
    CHECK(refused(edited("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": 0")) ==
          "tie_word_embeddings: must be true or false");
    CHECK(refused(edited("\"torch_dtype\": \"bfloat16\"", "\"torch_dtype\": \"int8\"")) ==
          "torch_dtype: must be bfloat16, float16 or float32, got 'int8'");
    // A mixture without its routing, a quantization not read.
    CHECK(refused(edited("\"vocab_size\"", "\"num_local_experts\": 8, \"vocab_size\"")) ==
          "num_experts_per_tok: is missing: a model card needs it");
    CHECK(refused(edited("\"vocab_size\"",
                         "\"num_local_experts\": 8, \"num_experts_per_tok\": "
                         "9, \"vocab_size\"")) == "num_experts_per_tok: must lie in [1, 8], got 9");
    CHECK(refused(edited("\"vocab_size\"",
                         "\"quantization_config\": {\"quant_method\": \"bitsandbytes\"}, "
                         "\"vocab_size\"")) ==
          "quantization_config.quant_method: 'bitsandbytes' is not read (awq, gptq, fp8 and "
          "compressed-tensors are)");
    CHECK(refused(edited("\"vocab_size\"",
                         "\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 3, "
                         "\"group_size\": 128}, \"vocab_size\"")) ==
          "quantization_config.bits: must be 4 for AWQ");
    // The byte of the refusal points at the value.
    const std::string bad = edited("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0");
    const plan::model_card_read r = plan::read_model_card(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(bad.substr(r.error.offset, 1) == "0");
    CHECK(r.error.message().find("(field \"num_hidden_layers\")") != std::string::npos);
    // A file over the bound is refused before it is parsed.
    CHECK(plan::read_model_card(base, {.max_bytes = 100}).error.reason ==
          "the file is longer than 100 bytes (max_bytes)");
  }

  TEST_CASE("model_card: unknown fields are ignored, unknown layouts are noted") {
    const std::string base = read_test_data("models/llama-3.1-8b.json");
    std::string extra = base;
    extra.insert(1, "\"some_future_field\": {\"nested\": [1, 2, 3]}, \"another\": null,");
    const plan::model_card_read r = plan::read_model_card(extra);
    REQUIRE(r.ok());
    CHECK(plan::parameters(*r.card) == 8030261248.0);
    CHECK(r.card->notes.empty());
    std::string other = base;
    other.replace(other.find("\"llama\""), 7, "\"granite\"");
    const plan::model_card_read g = plan::read_model_card(other);
    REQUIRE(g.ok());
    CHECK_FALSE(g.card->layout_known);
    REQUIRE(g.card->notes.size() == 1);
    CHECK(g.card->notes[0] ==
          "model_type 'granite' is not a layout counted exactly: the Llama layout is assumed");
    // A multimodal card: the text model under text_config, the dtype at the top.
    const std::string mm = R"({"model_type": "llava", "torch_dtype": "bfloat16",
        "text_config": {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
        "vocab_size": 128256}})";
    const plan::model_card_read t = plan::read_model_card(mm);
    REQUIRE(t.ok());
    CHECK(plan::parameters(*t.card) == 8030261248.0);
    CHECK(t.card->weights.dtype == numeric_format::bf16);
  }
}

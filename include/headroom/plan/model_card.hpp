// SPDX-License-Identifier: Apache-2.0
// A Hugging Face model card (config.json) read into the planner's terms: the shape (layers,
// widths, heads, vocabulary, experts, latent attention), the weights' storage (torch_dtype and
// quantization_config), and what follows from them by counting: total and active parameters,
// the weights' bytes, the KV cache's bytes per token, and a plan::model_shape. Never throws
// for a bad file: the first bad field is named in the result. docs/planner.md, "Model cards".
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/json.hpp"
#include "../roofline.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

/// How a card's linear layers are stored (config.json "quantization_config.quant_method").
enum class quantization_method : std::uint8_t {
  none,                ///< no quantization_config: every tensor in torch_dtype
  awq,                 ///< AWQ (Lin et al., arXiv:2306.00978): 4-bit groups, fp16 scales
  gptq,                ///< GPTQ (Frantar et al., arXiv:2210.17323): 4- or 8-bit groups
  fp8,                 ///< FP8 E4M3 weights (DeepSeek-V3's block-wise scales), FP8 compute
  compressed_tensors,  ///< vLLM's llm-compressor format: FP8/INT8 (W8A8) or INT4 (W4A16)
};

/// "none", "awq", "gptq", "fp8" or "compressed-tensors".
[[nodiscard]] constexpr std::string_view to_string(quantization_method m) noexcept {
  switch (m) {
    case quantization_method::none:
      return "none";
    case quantization_method::awq:
      return "awq";
    case quantization_method::gptq:
      return "gptq";
    case quantization_method::fp8:
      return "fp8";
    case quantization_method::compressed_tensors:
      break;
  }
  return "compressed-tensors";
}

/// The routed and shared experts of a mixture-of-experts card (all zero: a dense model).
struct card_experts {
  std::int64_t routed = 0;             ///< num_local_experts / num_experts / n_routed_experts
  std::int64_t per_token = 0;          ///< num_experts_per_tok
  std::int64_t intermediate_size = 0;  ///< one routed expert's MLP width (moe_intermediate_size)
  /// Every shared expert's MLP width together (n_shared_experts × moe_intermediate_size, or
  /// shared_expert_intermediate_size); 0: none.
  std::int64_t shared_intermediate_size = 0;
  bool shared_expert_gate = false;  ///< a one-output gate on the shared expert (qwen2_moe)
  bool score_bias = false;          ///< a per-expert routing bias (DeepSeek-V3's noaux_tc)
  std::int32_t moe_layers = 0;      ///< layers whose MLP is the experts; the others are dense
};

/// DeepSeek-style multi-head latent attention (DeepSeek-V2, arXiv:2405.04434); all zero:
/// standard attention. The KV cache holds kv_lora_rank + qk_rope_head_dim elements per layer.
struct card_latent_attention {
  std::int64_t q_lora_rank = 0;       ///< 0: queries projected directly from the hidden state
  std::int64_t kv_lora_rank = 0;      ///< the compressed KV's width; > 0 for latent attention
  std::int64_t qk_nope_head_dim = 0;  ///< per-head query/key width without rotary embedding
  std::int64_t qk_rope_head_dim = 0;  ///< per-head query/key width with rotary embedding
  std::int64_t v_head_dim = 0;        ///< per-head value width
};

/// How the weights are stored and multiplied.
struct card_weights {
  /// torch_dtype (or dtype): the unquantized tensors' format, bf16 or fp16 (a float32 card
  /// is served in bf16, as engines serve it; a note says so).
  roofline::numeric_format dtype = roofline::numeric_format::bf16;
  quantization_method method = quantization_method::none;
  /// The quantized linear layers' format and scale groups (method none: {dtype}).
  roofline::weight_format linear{};
  bool lm_head_quantized = false;  ///< the output layer quantized too (not in the ignore list)
  /// The matrix products' format: fp8 or int8 for W8A8 checkpoints, else dtype (weight-only
  /// quantization dequantizes to 16 bits).
  roofline::numeric_format compute = roofline::numeric_format::bf16;
};

/// A model card, read. Counts follow from these fields (parameters(), weight_bytes(), …).
struct model_card {
  std::string model_type{};    ///< "llama", "qwen2", "mixtral", "deepseek_v3", …
  std::string architecture{};  ///< architectures[0] ("LlamaForCausalLM"); may be empty
  /// Whether model_type is a layout whose parameters are counted exactly (llama, mistral,
  /// qwen2, qwen3, mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3); otherwise the
  /// Llama layout is assumed and `notes` says so.
  bool layout_known = false;
  std::int32_t layers = 0;             ///< num_hidden_layers
  std::int64_t hidden_size = 0;        ///< hidden_size
  std::int64_t attention_heads = 0;    ///< num_attention_heads
  std::int64_t kv_heads = 0;           ///< num_key_value_heads (absent: attention_heads)
  std::int64_t head_dim = 0;           ///< head_dim (absent: hidden_size / attention_heads)
  std::int64_t intermediate_size = 0;  ///< a dense layer's MLP width (0: no dense layer)
  std::int64_t vocabulary = 0;         ///< vocab_size
  bool tied_embeddings = false;        ///< tie_word_embeddings: the output layer is the input's
  bool qkv_bias = false;               ///< biases on q, k and v (qwen2 always; attention_bias)
  bool output_bias = false;            ///< a bias on the attention output (attention_bias)
  bool qk_norm = false;                ///< per-head RMSNorm of queries and keys (qwen3)
  bool mlp_bias = false;               ///< biases on a dense layer's MLP (mlp_bias)
  card_experts experts{};
  card_latent_attention latent{};
  card_weights weights{};
  /// What was assumed where the card is silent or unusual, one sentence each (empty: nothing).
  std::vector<std::string> notes{};
};

/// Why a card was refused: the byte, the field ("num_key_value_heads", empty for the JSON
/// itself) and the reason.
struct model_card_error {
  std::size_t offset = 0;
  std::string field{};
  std::string reason{};
  /// "byte 120 (field \"num_key_value_heads\"): must divide num_attention_heads (64), got 7".
  [[nodiscard]] std::string message() const {
    std::string m = "byte " + std::to_string(offset);
    if (!field.empty()) {
      m += " (field \"";
      m += field;
      m += "\")";
    }
    m += ": ";
    m += reason;
    return m;
  }
};

/// read_model_card's answer: the card, or why not.
struct model_card_read {
  std::optional<model_card> card{};  ///< nullopt when refused
  model_card_error error{};          ///< the refusal (when card is nullopt)
  [[nodiscard]] bool ok() const noexcept { return card.has_value(); }
};

/// Bounds on one config.json.
struct model_card_limits {
  std::size_t max_bytes = std::size_t{1} << 20;  ///< longest file (real ones are < 10 KB); 0: none
};

namespace detail {

using ::headroom::detail::json_kind;
using ::headroom::detail::json_value;

// The largest value any integer field may take: beyond it a card is refused as absurd.
inline constexpr std::int64_t card_field_max = std::int64_t{1} << 24;

class card_parser {
 public:
  explicit card_parser(model_card_error& error) noexcept : error_(error) {}

  bool fail(json_value at, std::string field, std::string reason) {
    error_.offset = at.offset();
    error_.field = std::move(field);
    error_.reason = std::move(reason);
    return false;
  }

  // An absent member or JSON null: nullopt (no error). A present one must be an integer in
  // [low, high].
  bool integer(json_value obj, std::string_view key, std::int64_t low, std::int64_t high,
               std::optional<std::int64_t>& out, std::string_view field_prefix = {}) {
    out.reset();
    const json_value v = obj[key];
    if (!v.present() || v.is(json_kind::null)) return true;
    std::string field(field_prefix);
    field += key;
    if (!v.is(json_kind::number)) return fail(v, std::move(field), "must be an integer");
    const double x = v.number();
    if (!(x == std::floor(x)) || !(std::fabs(x) < 9.0e15))
      return fail(v, std::move(field), "must be an integer, got " + shown(x));
    if (x < static_cast<double>(low) || x > static_cast<double>(high))
      return fail(v, std::move(field),
                  "must lie in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
                      shown(x));
    out = static_cast<std::int64_t>(x);
    return true;
  }

  // As integer(), but the member must be there.
  bool required(json_value obj, std::string_view key, std::int64_t low, std::int64_t high,
                std::int64_t& out) {
    std::optional<std::int64_t> v;
    if (!integer(obj, key, low, high, v)) return false;
    if (!v) {
      std::string reason = "is missing: a model card needs it";
      return fail(obj, std::string(key), std::move(reason));
    }
    out = *v;
    return true;
  }

  // An absent member or null: `fallback`. A present one must be true or false.
  bool boolean(json_value obj, std::string_view key, bool fallback, bool& out,
               std::string_view field_prefix = {}) {
    out = fallback;
    const json_value v = obj[key];
    if (!v.present() || v.is(json_kind::null)) return true;
    if (!v.boolean()) {
      std::string field(field_prefix);
      field += key;
      return fail(v, std::move(field), "must be true or false");
    }
    out = *v.boolean();
    return true;
  }

  // An absent member or null: empty. A present one must be a string.
  bool text(json_value obj, std::string_view key, std::string_view& out,
            std::string_view field_prefix = {}) {
    out = {};
    const json_value v = obj[key];
    if (!v.present() || v.is(json_kind::null)) return true;
    if (!v.is(json_kind::string)) {
      std::string field(field_prefix);
      field += key;
      return fail(v, std::move(field), "must be a string");
    }
    out = v.string();
    return true;
  }

  static std::string shown(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", x);
    return b;
  }

 private:
  model_card_error& error_;
};

[[nodiscard]] inline bool card_layout_known(std::string_view type) noexcept {
  constexpr std::array<std::string_view, 9> known{"llama",     "mistral",     "qwen2",
                                                  "qwen3",     "mixtral",     "qwen2_moe",
                                                  "qwen3_moe", "deepseek_v2", "deepseek_v3"};
  for (const auto k : known)
    if (k == type) return true;
  return false;
}

// The shape: layers, widths, heads, vocabulary, biases and norms.
inline bool read_card_shape(card_parser& p, json_value c, model_card& card) {
  std::string_view type;
  if (!p.text(c, "model_type", type)) return false;
  card.model_type = std::string(type);
  card.layout_known = card_layout_known(type);
  if (!card.layout_known)
    card.notes.push_back("model_type '" + card.model_type +
                         "' is not a layout counted exactly: the Llama layout is assumed");
  const json_value arch = c["architectures"];
  if (arch.is(json_kind::array) && arch.size() > 0 && arch.at(0).is(json_kind::string))
    card.architecture = std::string(arch.at(0).string());

  std::int64_t v = 0;
  if (!p.required(c, "num_hidden_layers", 1, 1000, v)) return false;
  card.layers = static_cast<std::int32_t>(v);
  if (!p.required(c, "hidden_size", 1, card_field_max, card.hidden_size)) return false;
  if (!p.required(c, "num_attention_heads", 1, 65536, card.attention_heads)) return false;
  if (!p.required(c, "vocab_size", 1, card_field_max, card.vocabulary)) return false;
  std::optional<std::int64_t> o;
  if (!p.integer(c, "num_key_value_heads", 1, card.attention_heads, o)) return false;
  card.kv_heads = o.value_or(card.attention_heads);
  if (card.attention_heads % card.kv_heads != 0)
    return p.fail(c["num_key_value_heads"], "num_key_value_heads",
                  "must divide num_attention_heads (" + std::to_string(card.attention_heads) +
                      "), got " + std::to_string(card.kv_heads));
  if (!p.integer(c, "head_dim", 1, 65536, o)) return false;
  if (o) {
    card.head_dim = *o;
  } else {
    if (card.hidden_size % card.attention_heads != 0)
      return p.fail(c["hidden_size"], "hidden_size",
                    "has no head_dim beside it and is not a multiple of num_attention_heads (" +
                        std::to_string(card.attention_heads) + "), got " +
                        std::to_string(card.hidden_size));
    card.head_dim = card.hidden_size / card.attention_heads;
  }
  if (!p.integer(c, "intermediate_size", 1, card_field_max, o)) return false;
  card.intermediate_size = o.value_or(0);
  if (!p.boolean(c, "tie_word_embeddings", false, card.tied_embeddings)) return false;
  bool bias = false;
  if (!p.boolean(c, "attention_bias", false, bias)) return false;
  // Qwen2 and Qwen2-MoE put biases on q, k and v and none on the output, whatever the card
  // says (transformers' Qwen2Attention); the others follow attention_bias for all four.
  if (type == "qwen2" || type == "qwen2_moe") {
    card.qkv_bias = true;
    card.output_bias = false;
  } else {
    card.qkv_bias = bias;
    card.output_bias = bias;
  }
  card.qk_norm = type == "qwen3" || type == "qwen3_moe";
  return p.boolean(c, "mlp_bias", false, card.mlp_bias);
}

// The experts and which layers have them.
inline bool read_card_experts(card_parser& p, json_value c, model_card& card) {
  card_experts& e = card.experts;
  std::optional<std::int64_t> routed;
  for (const std::string_view key : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    if (!p.integer(c, key, 0, 65536, routed)) return false;
    if (routed) break;
  }
  if (!routed || *routed == 0) {
    if (card.intermediate_size == 0)
      return p.fail(c, "intermediate_size", "is missing: a dense model card needs it");
    return true;
  }
  e.routed = *routed;
  std::int64_t k = 0;
  if (!p.required(c, "num_experts_per_tok", 1, e.routed, k)) return false;
  e.per_token = k;
  std::optional<std::int64_t> width;
  if (!p.integer(c, "moe_intermediate_size", 1, card_field_max, width)) return false;
  if (!width) {
    if (card.intermediate_size == 0)
      return p.fail(c, "moe_intermediate_size",
                    "is missing, and so is intermediate_size: a mixture needs an expert's width");
    width = card.intermediate_size;  // Mixtral: every expert is the dense MLP's width
  }
  e.intermediate_size = *width;
  std::optional<std::int64_t> shared;
  if (!p.integer(c, "n_shared_experts", 0, 65536, shared)) return false;
  if (shared) e.shared_intermediate_size = *shared * e.intermediate_size;
  if (!p.integer(c, "shared_expert_intermediate_size", 0, card_field_max, shared)) return false;
  if (shared) {
    e.shared_intermediate_size = *shared;
    e.shared_expert_gate = *shared > 0;
  }
  std::string_view topk;
  if (!p.text(c, "topk_method", topk)) return false;
  e.score_bias = topk == "noaux_tc";

  // Which layers are MoE: DeepSeek's first_k_dense_replace and moe_layer_freq, Qwen's
  // decoder_sparse_step and mlp_only_layers; Mixtral: all of them.
  std::optional<std::int64_t> first_dense, frequency, step;
  if (!p.integer(c, "first_k_dense_replace", 0, card.layers, first_dense)) return false;
  if (!p.integer(c, "moe_layer_freq", 1, card.layers, frequency)) return false;
  if (!p.integer(c, "decoder_sparse_step", 1, card.layers, step)) return false;
  std::vector<bool> dense_only(static_cast<std::size_t>(card.layers), false);
  const json_value only = c["mlp_only_layers"];
  if (only.present() && !only.is(json_kind::null)) {
    if (!only.is(json_kind::array))
      return p.fail(only, "mlp_only_layers", "must be an array of layer indices");
    std::size_t i = 0;
    for (const json_value layer : only.children()) {
      const double x = layer.number();
      if (!(x == std::floor(x) && x >= 0 && x < static_cast<double>(card.layers)))
        return p.fail(layer, "mlp_only_layers[" + std::to_string(i) + "]",
                      "must be a layer index in [0, " + std::to_string(card.layers - 1) + "]");
      dense_only[static_cast<std::size_t>(x)] = true;
      ++i;
    }
  }
  std::int32_t moe_layers = 0;
  for (std::int32_t i = 0; i < card.layers; ++i) {
    bool moe = !dense_only[static_cast<std::size_t>(i)];
    if (first_dense && i < *first_dense) moe = false;
    if (frequency && i % *frequency != 0) moe = false;
    if (step && (i + 1) % *step != 0) moe = false;
    moe_layers += moe ? 1 : 0;
  }
  if (moe_layers == 0)
    return p.fail(c, "num_experts_per_tok", "belongs to a card in which no layer has experts");
  if (moe_layers < card.layers && card.intermediate_size == 0)
    return p.fail(c, "intermediate_size", "is missing: the card's dense layers need it");
  e.moe_layers = moe_layers;
  return true;
}

// Latent attention's ranks and head widths.
inline bool read_card_latent(card_parser& p, json_value c, model_card& card) {
  std::optional<std::int64_t> kv_rank;
  if (!p.integer(c, "kv_lora_rank", 1, card_field_max, kv_rank)) return false;
  if (!kv_rank) return true;
  card_latent_attention& a = card.latent;
  a.kv_lora_rank = *kv_rank;
  std::optional<std::int64_t> q_rank;
  if (!p.integer(c, "q_lora_rank", 1, card_field_max, q_rank)) return false;
  a.q_lora_rank = q_rank.value_or(0);
  std::int64_t v = 0;
  if (!p.required(c, "qk_rope_head_dim", 1, 65536, v)) return false;
  a.qk_rope_head_dim = v;
  if (!p.required(c, "qk_nope_head_dim", 0, 65536, v)) return false;
  a.qk_nope_head_dim = v;
  if (!p.required(c, "v_head_dim", 1, 65536, v)) return false;
  a.v_head_dim = v;
  return true;
}

// torch_dtype (or transformers' newer spelling, dtype).
inline bool read_card_dtype(card_parser& p, json_value c, model_card& card) {
  std::string_view dtype;
  const char* key = "torch_dtype";
  if (!p.text(c, key, dtype)) return false;
  if (dtype.empty()) {
    key = "dtype";
    if (!p.text(c, key, dtype)) return false;
  }
  if (dtype.empty()) {
    card.weights.dtype = roofline::numeric_format::bf16;
    card.notes.push_back("torch_dtype is absent: bfloat16 weights are assumed");
  } else if (dtype == "bfloat16") {
    card.weights.dtype = roofline::numeric_format::bf16;
  } else if (dtype == "float16") {
    card.weights.dtype = roofline::numeric_format::fp16;
  } else if (dtype == "float32") {
    card.weights.dtype = roofline::numeric_format::bf16;
    card.notes.push_back("torch_dtype is float32: served in bfloat16, 2 bytes a weight");
  } else {
    return p.fail(c[key], key,
                  "must be bfloat16, float16 or float32, got '" + std::string(dtype) + "'");
  }
  card.weights.linear = roofline::weight_format{.format = card.weights.dtype};
  card.weights.compute = card.weights.dtype;
  return true;
}

// Whether the array `ignore` names the output layer.
[[nodiscard]] inline bool card_ignores_lm_head(json_value ignore) noexcept {
  for (const json_value name : ignore.children())
    if (name.string() == "lm_head" || name.string() == "re:.*lm_head") return true;
  return false;
}

// compressed-tensors: the first config group's weights and input activations.
inline bool read_compressed_tensors(card_parser& p, json_value q, model_card& card) {
  const json_value groups = q["config_groups"];
  if (!groups.is(json_kind::object) || groups.size() == 0)
    return p.fail(q, "quantization_config.config_groups", "must be a non-empty object");
  const json_value group = groups.at(0);
  const std::string prefix =
      "quantization_config.config_groups." + std::string(groups.key_at(0)) + ".weights.";
  const json_value w = group["weights"];
  if (!w.is(json_kind::object))
    return p.fail(group, prefix.substr(0, prefix.size() - 1), "must be an object");
  std::int64_t bits = 0;
  std::optional<std::int64_t> o;
  if (!p.integer(w, "num_bits", 4, 8, o, prefix)) return false;
  if (!o || (*o != 4 && *o != 8)) return p.fail(w, prefix + "num_bits", "must be 4 or 8");
  bits = *o;
  std::string_view type, strategy;
  if (!p.text(w, "type", type, prefix) || !p.text(w, "strategy", strategy, prefix)) return false;
  if (type != "float" && type != "int")
    return p.fail(w, prefix + "type", "must be float or int, got '" + std::string(type) + "'");
  if (type == "float" && bits != 8)
    return p.fail(w, prefix + "num_bits", "must be 8 for float weights");
  roofline::weight_format f{.format = type == "float"
                                          ? roofline::numeric_format::fp8
                                          : (bits == 8 ? roofline::numeric_format::int8
                                                       : roofline::numeric_format::int4)};
  if (strategy == "group") {
    if (!p.integer(w, "group_size", 1, card_field_max, o, prefix)) return false;
    if (!o) return p.fail(w, prefix + "group_size", "is missing: a group strategy needs it");
    bool symmetric = true;
    if (!p.boolean(w, "symmetric", true, symmetric, prefix)) return false;
    f.group_size = *o;
    f.bytes_per_group = 2.0 + (symmetric ? 0.0 : static_cast<double>(bits) / 8.0);
  }
  card.weights.linear = f;
  card.weights.compute = card.weights.dtype;
  const json_value in = group["input_activations"];
  if (in.is(json_kind::object)) {
    std::string_view in_type;
    if (!p.text(in, "type", in_type)) return false;
    if (f.format == roofline::numeric_format::fp8 && in_type == "float")
      card.weights.compute = roofline::numeric_format::fp8;
    else if (f.format == roofline::numeric_format::int8 && in_type == "int")
      card.weights.compute = roofline::numeric_format::int8;
  }
  const json_value ignore = q["ignore"];
  card.weights.lm_head_quantized = !(ignore.is(json_kind::array) && card_ignores_lm_head(ignore));
  return true;
}

// quantization_config: AWQ, GPTQ, FP8 or compressed-tensors; anything else is refused.
inline bool read_card_quantization(card_parser& p, json_value c, model_card& card) {
  const json_value q = c["quantization_config"];
  if (!q.present() || q.is(json_kind::null)) return true;
  if (!q.is(json_kind::object)) return p.fail(q, "quantization_config", "must be an object");
  std::string_view method;
  if (!p.text(q, "quant_method", method, "quantization_config.")) return false;
  card_weights& w = card.weights;
  std::optional<std::int64_t> o;
  if (method == "awq" || method == "gptq") {
    w.method = method == "awq" ? quantization_method::awq : quantization_method::gptq;
    if (!p.integer(q, "bits", 2, 8, o, "quantization_config.")) return false;
    if (!o || (*o != 4 && *o != 8) || (w.method == quantization_method::awq && *o != 4))
      return p.fail(
          q["bits"].present() ? q["bits"] : q, "quantization_config.bits",
          w.method == quantization_method::awq ? "must be 4 for AWQ" : "must be 4 or 8 for GPTQ");
    const std::int64_t bits = *o;
    if (!p.integer(q, "group_size", -1, card_field_max, o, "quantization_config.")) return false;
    if (!o || *o == 0)
      return p.fail(q, "quantization_config.group_size", "must be -1 (per channel) or >= 1");
    bool zero_point = true;
    if (w.method == quantization_method::awq &&
        !p.boolean(q, "zero_point", true, zero_point, "quantization_config."))
      return false;
    // A group's fp16 scale, and its zero point packed at the weights' width (GPTQ stores
    // zero points even for symmetric groups).
    const double group_bytes = 2.0 + (zero_point ? static_cast<double>(bits) / 8.0 : 0.0);
    w.linear = roofline::weight_format{
        .format = bits == 4 ? roofline::numeric_format::int4 : roofline::numeric_format::int8,
        .group_size = *o > 0 ? *o : 0,
        .bytes_per_group = *o > 0 ? group_bytes : 0.0};
    if (*o < 0)
      card.notes.push_back("per-channel GPTQ scales are not counted in the weights' bytes");
    w.compute = w.dtype;
    bool lm_head = false;
    if (w.method == quantization_method::gptq &&
        !p.boolean(q, "lm_head", false, lm_head, "quantization_config."))
      return false;
    w.lm_head_quantized = lm_head;
    return true;
  }
  if (method == "fp8") {
    w.method = quantization_method::fp8;
    w.linear = roofline::weight_format{.format = roofline::numeric_format::fp8};
    const json_value block = q["weight_block_size"];
    if (block.present() && !block.is(json_kind::null)) {
      const bool pair = block.is(json_kind::array) && block.size() == 2;
      const double a = pair ? block.at(0).number() : 0.0, b = pair ? block.at(1).number() : 0.0;
      if (!(a >= 1 && b >= 1 && a == std::floor(a) && b == std::floor(b) && a * b < 1e9))
        return p.fail(block, "quantization_config.weight_block_size",
                      "must be two positive integers");
      // One float32 scale per block (DeepSeek-V3's weight_scale_inv).
      w.linear.group_size = static_cast<std::int64_t>(a * b);
      w.linear.bytes_per_group = 4.0;
    }
    w.compute = roofline::numeric_format::fp8;
    w.lm_head_quantized = false;
    return true;
  }
  if (method == "compressed-tensors") {
    w.method = quantization_method::compressed_tensors;
    return read_compressed_tensors(p, q, card);
  }
  return p.fail(
      q["quant_method"].present() ? q["quant_method"] : q, "quantization_config.quant_method",
      "'" + std::string(method) + "' is not read (awq, gptq, fp8 and compressed-tensors are)");
}

// Parameters of one layer's attention.
[[nodiscard]] inline double card_attention_parameters(const model_card& c) noexcept {
  const double h = static_cast<double>(c.hidden_size),
               heads = static_cast<double>(c.attention_heads);
  const card_latent_attention& a = c.latent;
  if (a.kv_lora_rank > 0) {  // DeepSeek-V2/V3's MLA projections (transformers' DeepseekV3Attention)
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    const double qr = static_cast<double>(a.q_lora_rank), kvr = static_cast<double>(a.kv_lora_rank);
    const double rope = static_cast<double>(a.qk_rope_head_dim);
    const double v = static_cast<double>(a.v_head_dim);
    double n = a.q_lora_rank > 0 ? h * qr + qr + qr * heads * qk : h * heads * qk;
    n += h * (kvr + rope) + kvr + kvr * heads * (static_cast<double>(a.qk_nope_head_dim) + v);
    n += heads * v * h;
    if (c.output_bias) n += (a.q_lora_rank > 0 ? qr : 0.0) + kvr + rope + h;
    return n;
  }
  const double d = static_cast<double>(c.head_dim), kv = static_cast<double>(c.kv_heads);
  double n = h * heads * d + 2.0 * h * kv * d + heads * d * h;
  if (c.qkv_bias) n += heads * d + 2.0 * kv * d;
  if (c.output_bias) n += h;
  if (c.qk_norm) n += 2.0 * d;
  return n;
}

// The parameters of a card split by how they are stored: the quantizable linear layers
// (attention projections, MLPs, experts) and the rest (embeddings, output layer, norms,
// routers, biases).
struct card_parameter_split {
  double linear = 0;         // attention projections, MLPs, experts
  double other = 0;          // embeddings, norms, routers, biases
  double output_layer = 0;   // the output layer (lm_head), 0 when tied
  double routed_expert = 0;  // one routed expert over every MoE layer
};

[[nodiscard]] inline card_parameter_split card_split(const model_card& c) noexcept {
  card_parameter_split s;
  const double h = static_cast<double>(c.hidden_size);
  const double layers = static_cast<double>(c.layers);
  const double attention = card_attention_parameters(c);
  double attention_other = 0;  // norms and biases inside attention
  {
    const card_latent_attention& a = c.latent;
    if (a.kv_lora_rank > 0) {
      attention_other = static_cast<double>(a.q_lora_rank + a.kv_lora_rank);
      if (c.output_bias)
        attention_other +=
            static_cast<double>(a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim) + h;
    } else {
      const double d = static_cast<double>(c.head_dim);
      if (c.qkv_bias)
        attention_other +=
            static_cast<double>(c.attention_heads) * d + 2.0 * static_cast<double>(c.kv_heads) * d;
      if (c.output_bias) attention_other += h;
      if (c.qk_norm) attention_other += 2.0 * d;
    }
  }
  s.linear += layers * (attention - attention_other);
  s.other += layers * (attention_other + 2.0 * h);  // + input and post-attention norms
  const card_experts& e = c.experts;
  const double moe_layers = static_cast<double>(e.moe_layers);
  const double dense_layers = layers - moe_layers;
  s.linear += dense_layers * 3.0 * h * static_cast<double>(c.intermediate_size);
  if (c.mlp_bias)  // gate and up: the intermediate width each; down: the hidden size
    s.other += dense_layers * (2.0 * static_cast<double>(c.intermediate_size) + h);
  if (e.routed > 0) {
    const double expert = 3.0 * h * static_cast<double>(e.intermediate_size);
    s.routed_expert = moe_layers * expert;
    s.linear += static_cast<double>(e.routed) * s.routed_expert;
    s.linear += moe_layers * 3.0 * h * static_cast<double>(e.shared_intermediate_size);
    double router = h * static_cast<double>(e.routed);
    if (e.score_bias) router += static_cast<double>(e.routed);
    if (e.shared_expert_gate) router += h;
    s.other += moe_layers * router;
  }
  const double embedding = static_cast<double>(c.vocabulary) * h;
  s.other += embedding + h;  // the input embedding and the final norm
  s.output_layer = c.tied_embeddings ? 0.0 : embedding;
  return s;
}

}  // namespace detail

/// Every parameter of `card`: embeddings, attention, MLPs, every expert, norms, routers and
/// the output layer (unless tied); a DeepSeek card's multi-token-prediction layers are not
/// counted (nor are they in its published 671e9). Llama 3.1 8B: 8,030,261,248.
[[nodiscard]] inline double parameters(const model_card& card) noexcept {
  const detail::card_parameter_split s = detail::card_split(card);
  return s.linear + s.other + s.output_layer;
}

/// The parameters one token uses: parameters() less the routed experts it is not sent to,
/// (E − k) × one expert over every MoE layer. Mixtral 8x7B: 12,879,925,248.
[[nodiscard]] inline double active_parameters(const model_card& card) noexcept {
  const detail::card_parameter_split s = detail::card_split(card);
  return s.linear + s.other + s.output_layer -
         static_cast<double>(card.experts.routed - card.experts.per_token) * s.routed_expert;
}

/// The weights' bytes as stored: the quantized linear layers at bytes_per_parameter(linear)
/// (scales included), everything else (embeddings, norms, routers; the output layer unless
/// it is quantized too) in torch_dtype. Llama 3.1 8B AWQ: 5.73e9.
[[nodiscard]] inline double weight_bytes(const model_card& card) {
  const detail::card_parameter_split s = detail::card_split(card);
  const double linear = roofline::bytes_per_parameter(card.weights.linear);
  const double plain = roofline::bytes_per_element(card.weights.dtype);
  return s.linear * linear + s.other * plain +
         s.output_layer * (card.weights.lm_head_quantized ? linear : plain);
}

/// Bytes of KV cache one token holds over every layer, with `kv_cache` elements: 2 × layers ×
/// KV heads × head_dim for standard attention (Llama 3.1 8B in bf16: 131,072), layers ×
/// (kv_lora_rank + qk_rope_head_dim) for latent attention (DeepSeek-V3: 70,272).
[[nodiscard]] inline double kv_bytes_per_token(const model_card& card,
                                               roofline::numeric_format kv_cache) noexcept {
  const double e = roofline::bytes_per_element(kv_cache), layers = static_cast<double>(card.layers);
  if (card.latent.kv_lora_rank > 0)
    return layers * static_cast<double>(card.latent.kv_lora_rank + card.latent.qk_rope_head_dim) *
           e;
  return 2.0 * layers * static_cast<double>(card.kv_heads) * static_cast<double>(card.head_dim) * e;
}

/// Reads one config.json. Refuses, naming the field: text that is not one JSON object; a
/// needed field missing (num_hidden_layers, hidden_size, num_attention_heads, vocab_size,
/// intermediate_size for dense layers, num_experts_per_tok for a mixture, the latent ranks);
/// a value that is not an integer, negative or absurd (over 2^24, more than 1000 layers, KV
/// heads that do not divide the heads); a torch_dtype or quant_method it does not read.
/// Unknown fields are ignored. A multimodal card's text_config is read when the top level
/// has no num_hidden_layers.
[[nodiscard]] inline model_card_read read_model_card(std::string_view config_json,
                                                     const model_card_limits& limits = {}) {
  using ::headroom::detail::json_document;
  using ::headroom::detail::json_kind;
  model_card_read out;
  if (limits.max_bytes != 0 && config_json.size() > limits.max_bytes) {
    out.error = {.offset = limits.max_bytes,
                 .field = {},
                 .reason = "the file is longer than " + std::to_string(limits.max_bytes) +
                           " bytes (max_bytes)"};
    return out;
  }
  const json_document doc = json_document::parse(config_json, {.max_string_bytes = 1 << 16});
  if (!doc.ok()) {
    out.error = {.offset = doc.error().offset,
                 .field = {},
                 .reason = "not a model card: " +
                           std::string(::headroom::detail::describe(doc.error().code))};
    return out;
  }
  detail::card_parser p(out.error);
  ::headroom::detail::json_value c = doc.root();
  if (!c.is(json_kind::object)) {
    out.error = {
        .offset = c.offset(), .field = {}, .reason = "not a model card: not a JSON object"};
    return out;
  }
  if (!c["num_hidden_layers"].present() && c["text_config"].is(json_kind::object)) {
    const ::headroom::detail::json_value outer = c;
    c = c["text_config"];
    model_card card;
    // torch_dtype and quantization_config usually sit at the top of a multimodal card.
    if (!detail::read_card_shape(p, c, card) || !detail::read_card_experts(p, c, card) ||
        !detail::read_card_latent(p, c, card) ||
        !detail::read_card_dtype(p, c["torch_dtype"].present() ? c : outer, card) ||
        !detail::read_card_quantization(p, outer, card))
      return out;
    card.notes.push_back("read from text_config");
    out.card = std::move(card);
    return out;
  }
  model_card card;
  if (!detail::read_card_shape(p, c, card) || !detail::read_card_experts(p, c, card) ||
      !detail::read_card_latent(p, c, card) || !detail::read_card_dtype(p, c, card) ||
      !detail::read_card_quantization(p, c, card))
    return out;
  out.card = std::move(card);
  return out;
}

/// How a card becomes a model_shape.
struct model_card_options {
  HEADROOM_NO_UNIQUE_ADDRESS ::headroom::detail::designated_initializers_only
      designated_initializers_only{};
  std::string name{};  ///< model_shape::name (no ',', '"', space or newline)
  /// Quantize a 16-bit card on load (vLLM's --quantization fp8): fp8 stores its linear layers
  /// in one byte and multiplies in FP8; bf16 or fp16 keeps it as it is. nullopt: as the card
  /// says. A card already quantized takes only nullopt.
  std::optional<roofline::numeric_format> precision{};
  /// The KV cache's element format; nullopt: the card's dtype (bf16 or fp16).
  std::optional<roofline::numeric_format> kv_cache{};
};

/// The planner's model_shape of `card`: its parameters, layers, hidden size, KV bytes per
/// token, bytes per parameter (weight_bytes / parameters), experts and compute format.
/// Throws invalid_argument naming `precision` for a quantized card given one, or a
/// precision other than bf16, fp16 or fp8, and `kv_cache` for one other than bf16, fp16, fp8.
[[nodiscard]] inline model_shape to_model_shape(const model_card& card,
                                                const model_card_options& options = {}) {
  model_card c = card;
  if (options.precision) {
    const roofline::numeric_format f = *options.precision;
    if (f != roofline::numeric_format::bf16 && f != roofline::numeric_format::fp16 &&
        f != roofline::numeric_format::fp8)
      ::headroom::detail::fail("precision", std::string(to_string(f)),
                               "must be bf16, fp16 or fp8 (4-bit weights need a quantized card)");
    if (c.weights.method != quantization_method::none && f != c.weights.compute)
      ::headroom::detail::fail("precision", std::string(to_string(f)),
                               "cannot change a card already quantized");
    if (c.weights.method == quantization_method::none) {
      if (f == roofline::numeric_format::fp8) {
        c.weights.method = quantization_method::fp8;
        c.weights.linear = roofline::weight_format{.format = roofline::numeric_format::fp8};
        c.weights.compute = roofline::numeric_format::fp8;
      } else {
        c.weights.dtype = f;
        c.weights.linear = roofline::weight_format{.format = f};
        c.weights.compute = f;
      }
    }
  }
  const roofline::numeric_format kv = options.kv_cache.value_or(c.weights.dtype);
  if (kv != roofline::numeric_format::bf16 && kv != roofline::numeric_format::fp16 &&
      kv != roofline::numeric_format::fp8)
    ::headroom::detail::fail("kv_cache", std::string(to_string(kv)), "must be bf16, fp16 or fp8");
  const detail::card_parameter_split s = detail::card_split(c);
  const double n = parameters(c);
  model_shape shape{.name = options.name,
                    .parameters = n,
                    .layers = c.layers,
                    .hidden_size = static_cast<std::int32_t>(c.hidden_size),
                    .kv_bytes_per_token = kv_bytes_per_token(c, kv),
                    .bytes_per_parameter = weight_bytes(c) / n,
                    .activation_bytes = roofline::bytes_per_element(c.weights.dtype),
                    .moe = {},
                    .compute_format = c.weights.compute};
  if (c.experts.routed > 0)
    shape.moe = roofline::mixture_of_experts{.experts = c.experts.routed,
                                             .experts_per_token = c.experts.per_token,
                                             .parameters_per_expert = s.routed_expert};
  return shape;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

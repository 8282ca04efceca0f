// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/model_card.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/model_card.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL auto model_card_error::message() const -> std::string {
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

}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL auto card_parser::fail(json_value at, std::string field, std::string reason) -> bool {
  error_.offset = at.offset();
  error_.field = std::move(field);
  error_.reason = std::move(reason);
  return false;
}

HEADROOM_DECL auto card_parser::integer(json_value obj, std::string_view key, std::int64_t low,
                                        std::int64_t high, std::optional<std::int64_t>& out,
                                        std::string_view field_prefix) -> bool {
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
    return fail(
        v, std::move(field),
        "must lie in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " + shown(x));
  out = static_cast<std::int64_t>(x);
  return true;
}

HEADROOM_DECL auto card_parser::required(json_value obj, std::string_view key, std::int64_t low,
                                         std::int64_t high, std::int64_t& out) -> bool {
  std::optional<std::int64_t> v;
  if (!integer(obj, key, low, high, v)) return false;
  if (!v) {
    std::string reason = "is missing: a model card needs it";
    return fail(obj, std::string(key), std::move(reason));
  }
  out = *v;
  return true;
}

HEADROOM_DECL auto card_parser::boolean(json_value obj, std::string_view key, bool fallback,
                                        bool& out, std::string_view field_prefix) -> bool {
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

HEADROOM_DECL auto card_parser::text(json_value obj, std::string_view key, std::string_view& out,
                                     std::string_view field_prefix) -> bool {
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

HEADROOM_DECL auto card_parser::shown(double x) -> std::string {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

HEADROOM_DECL bool card_layout_known(std::string_view type) noexcept {
  constexpr std::array<std::string_view, 9> known{"llama",     "mistral",     "qwen2",
                                                  "qwen3",     "mixtral",     "qwen2_moe",
                                                  "qwen3_moe", "deepseek_v2", "deepseek_v3"};
  for (const auto k : known)
    if (k == type) return true;
  return false;
}

HEADROOM_DECL bool read_card_shape(card_parser& p, json_value c, model_card& card) {
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

HEADROOM_DECL bool read_card_experts(card_parser& p, json_value c, model_card& card) {
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

HEADROOM_DECL bool read_card_latent(card_parser& p, json_value c, model_card& card) {
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

HEADROOM_DECL bool read_card_dtype(card_parser& p, json_value c, model_card& card) {
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

HEADROOM_DECL bool card_ignores_lm_head(json_value ignore) noexcept {
  for (const json_value name : ignore.children())
    if (name.string() == "lm_head" || name.string() == "re:.*lm_head") return true;
  return false;
}

HEADROOM_DECL bool read_compressed_tensors(card_parser& p, json_value q, model_card& card) {
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

HEADROOM_DECL bool read_card_quantization(card_parser& p, json_value c, model_card& card) {
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

HEADROOM_DECL double card_attention_parameters(const model_card& c) noexcept {
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

HEADROOM_DECL card_parameter_split card_split(const model_card& c) noexcept {
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
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL double parameters(const model_card& card) noexcept {
  const detail::card_parameter_split s = detail::card_split(card);
  return s.linear + s.other + s.output_layer;
}

HEADROOM_DECL double active_parameters(const model_card& card) noexcept {
  const detail::card_parameter_split s = detail::card_split(card);
  return s.linear + s.other + s.output_layer -
         static_cast<double>(card.experts.routed - card.experts.per_token) * s.routed_expert;
}

HEADROOM_DECL double weight_bytes(const model_card& card) {
  const detail::card_parameter_split s = detail::card_split(card);
  const double linear = roofline::bytes_per_parameter(card.weights.linear);
  const double plain = roofline::bytes_per_element(card.weights.dtype);
  return s.linear * linear + s.other * plain +
         s.output_layer * (card.weights.lm_head_quantized ? linear : plain);
}

HEADROOM_DECL double kv_bytes_per_token(const model_card& card,
                                        roofline::numeric_format kv_cache) noexcept {
  const double e = roofline::bytes_per_element(kv_cache), layers = static_cast<double>(card.layers);
  if (card.latent.kv_lora_rank > 0)
    return layers * static_cast<double>(card.latent.kv_lora_rank + card.latent.qk_rope_head_dim) *
           e;
  return 2.0 * layers * static_cast<double>(card.kv_heads) * static_cast<double>(card.head_dim) * e;
}

HEADROOM_DECL model_card_read read_model_card(std::string_view config_json,
                                              const model_card_limits& limits) {
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

HEADROOM_DECL model_shape to_model_shape(const model_card& card,
                                         const model_card_options& options) {
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

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
  [[nodiscard]] HEADROOM_DECL std::string message() const;
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

  HEADROOM_DECL bool fail(json_value at, std::string field, std::string reason);

  // An absent member or JSON null: nullopt (no error). A present one must be an integer in
  // [low, high].
  HEADROOM_DECL bool integer(json_value obj, std::string_view key, std::int64_t low,
                             std::int64_t high, std::optional<std::int64_t>& out,
                             std::string_view field_prefix = {});

  // As integer(), but the member must be there.
  HEADROOM_DECL bool required(json_value obj, std::string_view key, std::int64_t low,
                              std::int64_t high, std::int64_t& out);

  // An absent member or null: `fallback`. A present one must be true or false.
  HEADROOM_DECL bool boolean(json_value obj, std::string_view key, bool fallback, bool& out,
                             std::string_view field_prefix = {});

  // An absent member or null: empty. A present one must be a string.
  HEADROOM_DECL bool text(json_value obj, std::string_view key, std::string_view& out,
                          std::string_view field_prefix = {});

  HEADROOM_DECL static std::string shown(double x);

 private:
  model_card_error& error_;
};

[[nodiscard]] HEADROOM_DECL bool card_layout_known(std::string_view type) noexcept;

// The shape: layers, widths, heads, vocabulary, biases and norms.
HEADROOM_DECL bool read_card_shape(card_parser& p, json_value c, model_card& card);

// The experts and which layers have them.
HEADROOM_DECL bool read_card_experts(card_parser& p, json_value c, model_card& card);

// Latent attention's ranks and head widths.
HEADROOM_DECL bool read_card_latent(card_parser& p, json_value c, model_card& card);

// torch_dtype (or transformers' newer spelling, dtype).
HEADROOM_DECL bool read_card_dtype(card_parser& p, json_value c, model_card& card);

// Whether the array `ignore` names the output layer.
[[nodiscard]] HEADROOM_DECL bool card_ignores_lm_head(json_value ignore) noexcept;

// compressed-tensors: the first config group's weights and input activations.
HEADROOM_DECL bool read_compressed_tensors(card_parser& p, json_value q, model_card& card);

// quantization_config: AWQ, GPTQ, FP8 or compressed-tensors; anything else is refused.
HEADROOM_DECL bool read_card_quantization(card_parser& p, json_value c, model_card& card);

// Parameters of one layer's attention.
[[nodiscard]] HEADROOM_DECL double card_attention_parameters(const model_card& c) noexcept;

// The parameters of a card split by how they are stored: the quantizable linear layers
// (attention projections, MLPs, experts) and the rest (embeddings, output layer, norms,
// routers, biases).
struct card_parameter_split {
  double linear = 0;         // attention projections, MLPs, experts
  double other = 0;          // embeddings, norms, routers, biases
  double output_layer = 0;   // the output layer (lm_head), 0 when tied
  double routed_expert = 0;  // one routed expert over every MoE layer
};

[[nodiscard]] HEADROOM_DECL card_parameter_split card_split(const model_card& c) noexcept;

}  // namespace detail

/// Every parameter of `card`: embeddings, attention, MLPs, every expert, norms, routers and
/// the output layer (unless tied); a DeepSeek card's multi-token-prediction layers are not
/// counted (nor are they in its published 671e9). Llama 3.1 8B: 8,030,261,248.
[[nodiscard]] HEADROOM_DECL double parameters(const model_card& card) noexcept;

/// The parameters one token uses: parameters() less the routed experts it is not sent to,
/// (E − k) × one expert over every MoE layer. Mixtral 8x7B: 12,879,925,248.
[[nodiscard]] HEADROOM_DECL double active_parameters(const model_card& card) noexcept;

/// The weights' bytes as stored: the quantized linear layers at bytes_per_parameter(linear)
/// (scales included), everything else (embeddings, norms, routers; the output layer unless
/// it is quantized too) in torch_dtype. Llama 3.1 8B AWQ: 5.73e9.
[[nodiscard]] HEADROOM_DECL double weight_bytes(const model_card& card);

/// Bytes of KV cache one token holds over every layer, with `kv_cache` elements: 2 × layers ×
/// KV heads × head_dim for standard attention (Llama 3.1 8B in bf16: 131,072), layers ×
/// (kv_lora_rank + qk_rope_head_dim) for latent attention (DeepSeek-V3: 70,272).
[[nodiscard]] HEADROOM_DECL double kv_bytes_per_token(const model_card& card,
                                                      roofline::numeric_format kv_cache) noexcept;

/// Reads one config.json. Refuses, naming the field: text that is not one JSON object; a
/// needed field missing (num_hidden_layers, hidden_size, num_attention_heads, vocab_size,
/// intermediate_size for dense layers, num_experts_per_tok for a mixture, the latent ranks);
/// a value that is not an integer, negative or absurd (over 2^24, more than 1000 layers, KV
/// heads that do not divide the heads); a torch_dtype or quant_method it does not read.
/// Unknown fields are ignored. A multimodal card's text_config is read when the top level
/// has no num_hidden_layers.
[[nodiscard]] HEADROOM_DECL model_card_read read_model_card(std::string_view config_json,
                                                            const model_card_limits& limits = {});

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
[[nodiscard]] HEADROOM_DECL model_shape to_model_shape(const model_card& card,
                                                       const model_card_options& options = {});

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/model_card.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

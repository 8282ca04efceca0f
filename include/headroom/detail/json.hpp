// SPDX-License-Identifier: Apache-2.0
// Strict, bounded JSON (RFC 8259) for the library's readers of other tools' files: the lexing
// of strings (escapes, surrogate pairs, well-formed UTF-8) and numbers shared with the
// Prometheus HTTP API reader, and a compact read-only document: every value a node on one
// tape, decoded strings in one buffer, numbers as doubles read exactly (from_chars.hpp). A
// malformed or oversized text is a value (json_error: code and byte offset), never an
// exception; repeated keys in one object are refused. Internal (docs/capacity.md, "Reading
// benchmark files").
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "from_chars.hpp"
#include "utf8.hpp"

namespace headroom {
inline namespace v0 {
namespace detail {

/// Why a JSON text was refused.
enum class json_errc : std::uint8_t {
  none,
  empty_input,          ///< nothing but white space
  syntax,               ///< not JSON at this byte
  invalid_string,       ///< a raw control character, a bad escape or a lone surrogate
  invalid_utf8,         ///< bytes that are not well-formed UTF-8 in a string
  trailing_characters,  ///< something after the value
  too_deep,             ///< nesting deeper than json_limits::max_depth
  duplicate_key,        ///< a key twice in one object
  too_large,            ///< longer than json_limits::max_bytes
  string_too_long,      ///< a string longer than json_limits::max_string_bytes (decoded)
  too_many_values,      ///< more values than json_limits::max_values
  number_out_of_range,  ///< a number beyond a double's range
};

/// A one-line English reason for a json_errc.
[[nodiscard]] constexpr std::string_view describe(json_errc code) noexcept {
  switch (code) {
    case json_errc::none:
      return "no error";
    case json_errc::empty_input:
      return "the text is empty";
    case json_errc::syntax:
      return "not JSON";
    case json_errc::invalid_string:
      return "a raw control character, a bad escape or a lone surrogate in a string";
    case json_errc::invalid_utf8:
      return "a string that is not well-formed UTF-8";
    case json_errc::trailing_characters:
      return "something after the JSON value";
    case json_errc::too_deep:
      return "nesting deeper than max_depth";
    case json_errc::duplicate_key:
      return "a key repeated in one object";
    case json_errc::too_large:
      return "the text is longer than max_bytes";
    case json_errc::string_too_long:
      return "a string longer than max_string_bytes";
    case json_errc::too_many_values:
      return "more values than max_values";
    case json_errc::number_out_of_range:
      return "a number beyond the range of a double";
  }
  return "unknown";
}

/// A refusal: the code and the byte it was found at.
struct json_error {
  json_errc code = json_errc::none;
  std::size_t offset = 0;
};

/// Whether the non-standard NaN, Infinity and -Infinity words that Python's json.dump writes
/// for non-finite floats (its default, allow_nan=True) are read, as such doubles.
enum class json_non_finite : std::uint8_t {
  refuse,  ///< RFC 8259: a syntax error
  python,  ///< read as NaN, +inf, -inf
};

/// Bounds on what one text may cost; 0 means none (max_depth always applies).
struct json_limits {
  std::size_t max_bytes = 0;         ///< longest text
  std::size_t max_depth = 64;        ///< deepest nesting of arrays and objects, >= 1
  std::size_t max_string_bytes = 0;  ///< longest string, decoded
  std::size_t max_values = 0;        ///< most values (every element, member and scalar)
  json_non_finite non_finite = json_non_finite::refuse;  ///< NaN / Infinity words
};

// ---- lexing, shared with prometheus/detail/api_json.hpp ------------------------------------

[[nodiscard]] constexpr int json_hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Appends code point c (a Unicode scalar value) to out as UTF-8.
HEADROOM_DECL void append_utf8(std::string& out, char32_t c);

/// The end of the RFC 8259 number starting at s[i] (just past its last character), or npos
/// when none starts there.
[[nodiscard]] constexpr std::size_t json_number_end(std::string_view s, std::size_t i) noexcept {
  const auto digit = [&](std::size_t at) { return at < s.size() && s[at] >= '0' && s[at] <= '9'; };
  std::size_t k = i;
  if (k < s.size() && s[k] == '-') ++k;
  if (!digit(k)) return std::string_view::npos;
  if (s[k] == '0') {
    ++k;
  } else {
    while (digit(k)) ++k;
  }
  if (k < s.size() && s[k] == '.') {
    ++k;
    if (!digit(k)) return std::string_view::npos;
    while (digit(k)) ++k;
  }
  if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
    ++k;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    if (!digit(k)) return std::string_view::npos;
    while (digit(k)) ++k;
  }
  return k;
}

/// Whether a valid JSON number token's magnitude is below one, judged on its leading digit's
/// decimal position and its exponent (so a number too small for a double can be told from one
/// too large). A zero token is below one.
[[nodiscard]] constexpr bool json_number_below_one(std::string_view token) noexcept {
  std::size_t i = token.empty() || token.front() != '-' ? 0 : 1;
  const std::size_t int_begin = i;
  while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
  const std::size_t int_end = i;
  std::size_t frac_begin = i, frac_end = i;
  if (i < token.size() && token[i] == '.') {
    frac_begin = ++i;
    while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
    frac_end = i;
  }
  long long lead = 0;  // the decimal exponent of the leading nonzero digit, before `e`
  bool found = false;
  for (std::size_t k = int_begin; k < int_end && !found; ++k)
    if (token[k] != '0') {
      lead = static_cast<long long>(int_end - k) - 1;
      found = true;
    }
  for (std::size_t k = frac_begin; k < frac_end && !found; ++k)
    if (token[k] != '0') {
      lead = -static_cast<long long>(k - frac_begin) - 1;
      found = true;
    }
  if (!found) return true;
  long long exponent = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    const bool negative = i < token.size() && token[i] == '-';
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    for (; i < token.size(); ++i)
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (token[i] - '0');
    if (negative) exponent = -exponent;
  }
  return lead + exponent < 0;
}

/// Decodes the JSON string whose opening quote is s[i] into out (cleared first). Returns the
/// index just past the closing quote, or the error and where: an unterminated string is
/// `syntax` at the end, a raw control character, an unknown escape or a lone surrogate
/// `invalid_string` at its byte (at the escape's backslash), ill-formed UTF-8
/// `invalid_utf8`, and more than max_bytes decoded bytes (0: no limit) `string_too_long`.
struct json_string_result {
  std::size_t end = 0;
  json_error error{};
};
[[nodiscard]] HEADROOM_DECL json_string_result decode_json_string(std::string_view s, std::size_t i,
                                                                  std::string& out,
                                                                  std::size_t max_bytes);

// ---- the document ----------------------------------------------------------------------

/// The type of a JSON value.
enum class json_kind : std::uint8_t { null, boolean, number, string, array, object };

class json_document;

/// A handle on one value of a json_document (valid while the document lives). A default
/// handle, or one a lookup did not find, is absent: every accessor then answers "nothing".
class json_value {
 public:
  json_value() = default;
  /// Whether this handle names a value.
  [[nodiscard]] bool present() const noexcept { return doc_ != nullptr; }
  [[nodiscard]] json_kind kind() const noexcept;
  [[nodiscard]] bool is(json_kind k) const noexcept { return present() && kind() == k; }
  /// The number (NaN when this is not a number).
  [[nodiscard]] double number() const noexcept;
  /// The boolean (nullopt when this is not one).
  [[nodiscard]] std::optional<bool> boolean() const noexcept;
  /// The decoded string (empty when this is not a string).
  [[nodiscard]] std::string_view string() const noexcept;
  /// Elements of an array or members of an object (0 otherwise).
  [[nodiscard]] std::size_t size() const noexcept;
  /// The i-th element of an array or member value of an object, in order (absent if none);
  /// O(i): walk all of them with children().
  [[nodiscard]] json_value at(std::size_t i) const noexcept;
  /// The elements of an array or the member values of an object, in order, one step each.
  class children_range;
  [[nodiscard]] children_range children() const noexcept;
  /// The i-th member's key of an object (empty otherwise).
  [[nodiscard]] std::string_view key_at(std::size_t i) const noexcept;
  /// The member `key` of an object (absent when this is no object or has no such key).
  [[nodiscard]] json_value operator[](std::string_view key) const noexcept;
  /// Where the value starts in the text, bytes.
  [[nodiscard]] std::size_t offset() const noexcept;

 private:
  friend class json_document;
  json_value(const json_document* doc, std::uint32_t node) noexcept : doc_(doc), node_(node) {}
  const json_document* doc_ = nullptr;
  std::uint32_t node_ = 0;
};

/// A parsed JSON text: the root value, or the error that stopped the parse. Keeps no view
/// into the text.
class json_document {
 public:
  /// Parses `text` within `limits`; never throws for bad input.
  [[nodiscard]] HEADROOM_DECL static json_document parse(std::string_view text,
                                                         const json_limits& limits = {});
  /// The refusal, if any (code none: parsed).
  [[nodiscard]] const json_error& error() const noexcept { return error_; }
  [[nodiscard]] bool ok() const noexcept { return error_.code == json_errc::none; }
  /// The root value (absent when the parse failed).
  [[nodiscard]] json_value root() const noexcept {
    return ok() ? json_value(this, 0) : json_value();
  }

 private:
  friend class json_value;
  struct node {
    json_kind kind = json_kind::null;
    bool boolean = false;
    std::uint32_t next = 0;                       // the index just past this value's subtree
    std::uint32_t size = 0;                       // elements or members
    std::uint32_t key_begin = 0, key_size = 0;    // in strings_, for an object's member
    std::uint32_t text_begin = 0, text_size = 0;  // in strings_, for a string
    double number = 0.0;
    std::size_t offset = 0;
  };
  std::vector<node> nodes_;
  std::string strings_;
  json_error error_{};

  // The parser's state.
  std::string_view s_{};
  std::size_t i_ = 0;
  json_limits limits_{};
  std::string scratch_{};

  HEADROOM_DECL bool fail(json_errc code, std::size_t at);
  HEADROOM_DECL void skip_ws() noexcept;
  HEADROOM_DECL bool string_into(std::uint32_t& begin, std::uint32_t& size);
  HEADROOM_DECL bool new_node(json_kind kind, std::uint32_t& index);

  HEADROOM_DECL void parse_text(std::string_view text, const json_limits& limits);

  // One value at the cursor, `depth` its nesting (the root is 1).
  HEADROOM_DECL bool value(std::size_t depth);

  HEADROOM_DECL bool elements(std::uint32_t array, std::size_t depth);

  // The keys of the objects being read, innermost last: at its '}', an object's keys are
  // sorted and a repeated one refused, O(m log m) for m members.
  struct key_ref {
    std::uint32_t begin, size;
    std::size_t offset;
  };
  std::vector<key_ref> keys_{};

  HEADROOM_DECL bool no_repeated_key(std::size_t first);

  HEADROOM_DECL bool members(std::uint32_t object, std::size_t depth);
};

/// A forward range over a value's children (json_value::children()).
class json_value::children_range {
 public:
  class iterator {
   public:
    using value_type = json_value;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    json_value operator*() const noexcept { return {doc_, node_}; }
    iterator& operator++() noexcept;
    HEADROOM_DECL iterator operator++(int) noexcept;
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.left_ == b.left_;
    }

   private:
    friend class children_range;
    iterator(const json_document* doc, std::uint32_t node, std::size_t left) noexcept
        : doc_(doc), node_(node), left_(left) {}
    const json_document* doc_ = nullptr;
    std::uint32_t node_ = 0;
    std::size_t left_ = 0;
  };
  [[nodiscard]] iterator begin() const noexcept { return {doc_, first_, count_}; }
  [[nodiscard]] iterator end() const noexcept { return {doc_, 0, 0}; }

 private:
  friend class json_value;
  children_range(const json_document* doc, std::uint32_t first, std::size_t count) noexcept
      : doc_(doc), first_(first), count_(count) {}
  const json_document* doc_ = nullptr;
  std::uint32_t first_ = 0;
  std::size_t count_ = 0;
};

inline json_value::children_range json_value::children() const noexcept {
  return {doc_, node_ + 1, size()};
}

inline json_kind json_value::kind() const noexcept {
  return present() ? doc_->nodes_[node_].kind : json_kind::null;
}

inline std::size_t json_value::size() const noexcept {
  return is(json_kind::array) || is(json_kind::object) ? doc_->nodes_[node_].size : 0;
}

inline std::size_t json_value::offset() const noexcept {
  return present() ? doc_->nodes_[node_].offset : 0;
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/detail/json.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

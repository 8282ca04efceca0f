// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/detail/json.hpp's non-template functions: included at the end of that
// header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../detail/json.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

HEADROOM_DECL json_string_result decode_json_string(std::string_view s, std::size_t i,
                                                    std::string& out, std::size_t max_bytes) {
  out.clear();
  const auto failed = [](json_errc code, std::size_t at) {
    return json_string_result{.end = at, .error = {.code = code, .offset = at}};
  };
  const auto hex4 = [&](std::size_t at, char32_t& v) {
    if (s.size() < at + 4) return false;
    v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int d = json_hex_digit(s[at + k]);
      if (d < 0) return false;
      v = (v << 4) | static_cast<char32_t>(d);
    }
    return true;
  };
  ++i;  // the opening quote
  while (true) {
    if (i >= s.size()) return failed(json_errc::syntax, i);
    const char c = s[i];
    if (c == '"') return {.end = i + 1};
    if (max_bytes != 0 && out.size() >= max_bytes) return failed(json_errc::string_too_long, i);
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20) return failed(json_errc::invalid_string, i);
    if (byte >= 0x80) {
      const utf8_char u = decode_utf8(s, i);
      if (u.length == 0) return failed(json_errc::invalid_utf8, i);
      out.append(s.substr(i, u.length));
      i += u.length;
      continue;
    }
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    const std::size_t escape_at = i;
    if (i + 1 >= s.size()) return failed(json_errc::syntax, i + 1);
    const char e = s[i + 1];
    i += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        char32_t code = 0;
        if (!hex4(i, code) || (code >= 0xDC00 && code <= 0xDFFF))
          return failed(json_errc::invalid_string, escape_at);
        i += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate: its low half must follow
          char32_t low = 0;
          if (s.substr(i, 2) != "\\u" || !hex4(i + 2, low) || low < 0xDC00 || low > 0xDFFF)
            return failed(json_errc::invalid_string, escape_at);
          i += 6;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, code);
        break;
      }
      default:
        return failed(json_errc::invalid_string, escape_at);
    }
  }
}

HEADROOM_DECL auto json_document::parse(std::string_view text, const json_limits& limits)
    -> json_document {
  json_document d;
  d.parse_text(text, limits);
  return d;
}

HEADROOM_DECL auto json_document::fail(json_errc code, std::size_t at) -> bool {
  if (error_.code == json_errc::none) error_ = {.code = code, .offset = at};
  return false;
}

HEADROOM_DECL auto json_document::skip_ws() noexcept -> void {
  while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
    ++i_;
}

HEADROOM_DECL auto json_document::string_into(std::uint32_t& begin, std::uint32_t& size) -> bool {
  const auto r = decode_json_string(s_, i_, scratch_, limits_.max_string_bytes);
  if (r.error.code != json_errc::none) return fail(r.error.code, r.error.offset);
  i_ = r.end;
  if (strings_.size() + scratch_.size() > std::numeric_limits<std::uint32_t>::max())
    return fail(json_errc::too_large, i_);
  begin = static_cast<std::uint32_t>(strings_.size());
  size = static_cast<std::uint32_t>(scratch_.size());
  strings_ += scratch_;
  return true;
}

HEADROOM_DECL auto json_document::new_node(json_kind kind, std::uint32_t& index) -> bool {
  if (limits_.max_values != 0 && nodes_.size() >= limits_.max_values)
    return fail(json_errc::too_many_values, i_);
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max())
    return fail(json_errc::too_many_values, i_);
  index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({.kind = kind, .offset = i_});
  return true;
}

HEADROOM_DECL auto json_document::parse_text(std::string_view text, const json_limits& limits)
    -> void {
  s_ = text;
  limits_ = limits;
  if (limits.max_bytes != 0 && text.size() > limits.max_bytes) {
    fail(json_errc::too_large, limits.max_bytes);
  } else {
    skip_ws();
    if (i_ >= s_.size()) {
      fail(json_errc::empty_input, i_);
    } else if (value(1)) {
      skip_ws();
      if (i_ != s_.size()) fail(json_errc::trailing_characters, i_);
    }
  }
  s_ = {};
  scratch_ = {};
  if (!ok()) {
    nodes_.clear();
    strings_.clear();
  }
}

HEADROOM_DECL auto json_document::value(std::size_t depth) -> bool {
  skip_ws();
  if (i_ >= s_.size()) return fail(json_errc::syntax, i_);
  const char c = s_[i_];
  std::uint32_t index = 0;
  if (c == '{' || c == '[') {
    if (depth > limits_.max_depth) return fail(json_errc::too_deep, i_);
    if (!new_node(c == '{' ? json_kind::object : json_kind::array, index)) return false;
    ++i_;
    if (!(c == '{' ? members(index, depth) : elements(index, depth))) return false;
  } else if (c == '"') {
    if (!new_node(json_kind::string, index)) return false;
    std::uint32_t begin = 0, size = 0;
    if (!string_into(begin, size)) return false;
    nodes_[index].text_begin = begin;
    nodes_[index].text_size = size;
  } else if (c == 't' || c == 'f' || c == 'n') {
    const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    if (s_.substr(i_, word.size()) != word) return fail(json_errc::syntax, i_);
    if (!new_node(c == 'n' ? json_kind::null : json_kind::boolean, index)) return false;
    nodes_[index].boolean = c == 't';
    i_ += word.size();
  } else if (limits_.non_finite == json_non_finite::python &&
             (c == 'N' || c == 'I' || (c == '-' && s_.substr(i_, 2) == "-I"))) {
    const std::string_view word = c == 'N' ? "NaN" : c == 'I' ? "Infinity" : "-Infinity";
    if (s_.substr(i_, word.size()) != word) return fail(json_errc::syntax, i_);
    if (!new_node(json_kind::number, index)) return false;
    nodes_[index].number = c == 'N'   ? std::numeric_limits<double>::quiet_NaN()
                           : c == 'I' ? std::numeric_limits<double>::infinity()
                                      : -std::numeric_limits<double>::infinity();
    i_ += word.size();
  } else {
    const std::size_t end = json_number_end(s_, i_);
    if (end == std::string_view::npos) return fail(json_errc::syntax, i_);
    if (!new_node(json_kind::number, index)) return false;
    double v = 0.0;
    const std::string_view token = s_.substr(i_, end - i_);
    const auto r = from_chars_double(token.data(), token.data() + token.size(), v);
    if (r.ec != std::errc{}) {
      // Out of range: a magnitude below the smallest double reads as zero (as strtod and
      // Python's float() do); one above the largest is refused.
      if (!json_number_below_one(token)) return fail(json_errc::number_out_of_range, i_);
      v = token.front() == '-' ? -0.0 : 0.0;
    }
    nodes_[index].number = v;
    i_ = end;
  }
  nodes_[index].next = static_cast<std::uint32_t>(nodes_.size());
  return true;
}

HEADROOM_DECL auto json_document::elements(std::uint32_t array, std::size_t depth) -> bool {
  skip_ws();
  if (i_ < s_.size() && s_[i_] == ']') {
    ++i_;
    return true;
  }
  while (true) {
    if (!value(depth + 1)) return false;
    ++nodes_[array].size;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    if (i_ >= s_.size() || s_[i_] != ',') return fail(json_errc::syntax, i_);
    ++i_;
  }
}

HEADROOM_DECL auto json_document::no_repeated_key(std::size_t first) -> bool {
  const auto view = [&](const key_ref& k) {
    return std::string_view(strings_.data() + k.begin, k.size);
  };
  std::stable_sort(keys_.begin() + static_cast<std::ptrdiff_t>(first), keys_.end(),
                   [&](const key_ref& a, const key_ref& b) { return view(a) < view(b); });
  std::size_t repeated = std::string_view::npos;
  for (std::size_t k = first + 1; k < keys_.size(); ++k)
    if (view(keys_[k]) == view(keys_[k - 1]))
      repeated = std::min(repeated, keys_[k].offset);  // the later of the two, the first such
  keys_.resize(first);
  if (repeated != std::string_view::npos) return fail(json_errc::duplicate_key, repeated);
  return true;
}

HEADROOM_DECL auto json_document::members(std::uint32_t object, std::size_t depth) -> bool {
  skip_ws();
  if (i_ < s_.size() && s_[i_] == '}') {
    ++i_;
    return true;
  }
  const std::size_t first_key = keys_.size();
  while (true) {
    skip_ws();
    const std::size_t key_at = i_;
    if (i_ >= s_.size() || s_[i_] != '"') return fail(json_errc::syntax, i_);
    std::uint32_t begin = 0, size = 0;
    if (!string_into(begin, size)) return false;
    keys_.push_back({begin, size, key_at});
    skip_ws();
    if (i_ >= s_.size() || s_[i_] != ':') return fail(json_errc::syntax, i_);
    ++i_;
    const auto member = static_cast<std::uint32_t>(nodes_.size());
    if (!value(depth + 1)) return false;
    nodes_[member].key_begin = begin;
    nodes_[member].key_size = size;
    ++nodes_[object].size;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return no_repeated_key(first_key);
    }
    if (i_ >= s_.size() || s_[i_] != ',') return fail(json_errc::syntax, i_);
    ++i_;
  }
}

HEADROOM_DECL auto json_value::children_range::iterator::operator++(int) noexcept -> iterator {
  iterator before = *this;
  ++*this;
  return before;
}

HEADROOM_DECL json_value::children_range::iterator&
json_value::children_range::iterator::operator++() noexcept {
  node_ = doc_->nodes_[node_].next;
  --left_;
  return *this;
}

HEADROOM_DECL double json_value::number() const noexcept {
  return is(json_kind::number) ? doc_->nodes_[node_].number
                               : std::numeric_limits<double>::quiet_NaN();
}

HEADROOM_DECL std::optional<bool> json_value::boolean() const noexcept {
  if (!is(json_kind::boolean)) return std::nullopt;
  return doc_->nodes_[node_].boolean;
}

HEADROOM_DECL std::string_view json_value::string() const noexcept {
  if (!is(json_kind::string)) return {};
  const auto& n = doc_->nodes_[node_];
  return {doc_->strings_.data() + n.text_begin, n.text_size};
}

HEADROOM_DECL json_value json_value::at(std::size_t i) const noexcept {
  if (i >= size()) return {};
  std::uint32_t k = node_ + 1;
  for (std::size_t n = 0; n < i; ++n) k = doc_->nodes_[k].next;
  return {doc_, k};
}

HEADROOM_DECL std::string_view json_value::key_at(std::size_t i) const noexcept {
  if (!is(json_kind::object) || i >= size()) return {};
  const json_value v = at(i);
  const auto& n = doc_->nodes_[v.node_];
  return {doc_->strings_.data() + n.key_begin, n.key_size};
}

HEADROOM_DECL json_value json_value::operator[](std::string_view key) const noexcept {
  if (!is(json_kind::object)) return {};
  std::uint32_t k = node_ + 1;
  for (std::size_t n = 0; n < size(); ++n, k = doc_->nodes_[k].next) {
    const auto& m = doc_->nodes_[k];
    if (std::string_view(doc_->strings_.data() + m.key_begin, m.key_size) == key) return {doc_, k};
  }
  return {};
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

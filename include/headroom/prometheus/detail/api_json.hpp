// SPDX-License-Identifier: Apache-2.0
// The JSON cursor under the reader of Prometheus's HTTP API answers (http_api.hpp): strict
// RFC 8259 strings (escapes, surrogate pairs, well-formed UTF-8), numbers, objects and
// arrays, and skipping of unknown values at most api_max_depth deep. The first failure is
// recorded in the answer's parse_error with its byte offset; nothing is thrown.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../../detail/utf8.hpp"
#include "../api_types.hpp"

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

/// A cursor over one JSON text with the reader's limits; records the first error in `out`.
class api_json_cursor {
 protected:
  api_json_cursor(std::string_view text, const api_limits& limits, api_response& out) noexcept
      : s_(text), limits_(limits), out_(out) {}

  std::string_view s_;
  std::size_t i_ = 0;
  const api_limits& limits_;
  api_response& out_;
  std::string_view field_{};

  [[nodiscard]] bool failed() const noexcept { return out_.parse_error.code != api_errc::none; }
  void fail(api_errc code) { fail_at(code, i_); }
  void fail_at(api_errc code, std::size_t offset) {
    if (failed()) return;
    out_.parse_error = {.code = code, .offset = offset, .field = field_};
  }

  void skip_ws() noexcept {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  [[nodiscard]] char peek() noexcept {
    skip_ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool expect(char c) {
    if (peek() != c) {
      fail(api_errc::syntax);
      return false;
    }
    ++i_;
    return true;
  }
  /// Reads a JSON literal word (true, false, null) at the cursor.
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) {
      fail(api_errc::syntax);
      return false;
    }
    i_ += word.size();
    return true;
  }

  static int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool read_hex4(char32_t& out) {
    if (s_.size() - i_ < 4) return false;
    out = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int d = hex_digit(s_[i_ + k]);
      if (d < 0) return false;
      out = (out << 4) | static_cast<char32_t>(d);
    }
    i_ += 4;
    return true;
  }
  static void append_utf8(std::string& out, char32_t c) {
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

  /// Reads a JSON string at the cursor into out (decoded). Strict: raw control characters,
  /// unknown escapes, lone surrogates and ill-formed UTF-8 fail.
  bool read_string(std::string& out) {
    if (peek() != '"') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    out.clear();
    while (true) {
      if (i_ >= s_.size()) {
        fail(api_errc::syntax);
        return false;
      }
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (limits_.max_string_bytes != 0 && out.size() >= limits_.max_string_bytes) {
        fail(api_errc::string_too_long);
        return false;
      }
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20) {
        fail(api_errc::invalid_string);
        return false;
      }
      if (byte >= 0x80) {
        if (!read_utf8_char(out)) return false;
        continue;
      }
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      if (!read_escape(out)) return false;
    }
  }

  /// One well-formed UTF-8 character (two to four bytes) at the cursor, copied into out.
  bool read_utf8_char(std::string& out) {
    const ::headroom::detail::utf8_char u = ::headroom::detail::decode_utf8(s_, i_);
    if (u.length == 0) {
      fail(api_errc::invalid_utf8);
      return false;
    }
    out.append(s_.substr(i_, u.length));
    i_ += u.length;
    return true;
  }

  /// One escape sequence at the cursor (on its backslash), decoded into out.
  bool read_escape(std::string& out) {
    const std::size_t escape_at = i_;
    ++i_;
    if (i_ >= s_.size()) {
      fail(api_errc::syntax);
      return false;
    }
    const char e = s_[i_++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        return read_unicode_escape(out, escape_at);
      default:
        fail_at(api_errc::invalid_string, escape_at);
        return false;
    }
  }

  /// The four hex digits after a backslash-u (a surrogate pair joined), appended to out as
  /// UTF-8. A lone or reversed surrogate fails at escape_at.
  bool read_unicode_escape(std::string& out, std::size_t escape_at) {
    char32_t code = 0;
    if (!read_hex4(code)) {
      fail_at(api_errc::invalid_string, escape_at);
      return false;
    }
    if (code >= 0xDC00 && code <= 0xDFFF) {
      fail_at(api_errc::invalid_string, escape_at);
      return false;
    }
    if (code >= 0xD800 && code <= 0xDBFF) {
      char32_t low = 0;
      if (s_.substr(i_, 2) != "\\u") {
        fail_at(api_errc::invalid_string, escape_at);
        return false;
      }
      i_ += 2;
      if (!read_hex4(low) || low < 0xDC00 || low > 0xDFFF) {
        fail_at(api_errc::invalid_string, escape_at);
        return false;
      }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, code);
    return true;
  }

  /// The extent of a JSON number at the cursor (RFC 8259 grammar); empty when there is none.
  std::string_view number_token() noexcept {
    const std::size_t start = i_;
    std::size_t k = i_;
    const auto digit = [&](std::size_t at) {
      return at < s_.size() && s_[at] >= '0' && s_[at] <= '9';
    };
    if (k < s_.size() && s_[k] == '-') ++k;
    if (!digit(k)) return {};
    if (s_[k] == '0') {
      ++k;
    } else {
      while (digit(k)) ++k;
    }
    if (k < s_.size() && s_[k] == '.') {
      ++k;
      if (!digit(k)) return {};
      while (digit(k)) ++k;
    }
    if (k < s_.size() && (s_[k] == 'e' || s_[k] == 'E')) {
      ++k;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (!digit(k)) return {};
      while (digit(k)) ++k;
    }
    i_ = k;
    return s_.substr(start, k - start);
  }

  /// Skips any JSON value (unknown fields), iteratively, at most api_max_depth deep.
  bool skip_value() {
    std::vector<char> stack;  // the closers expected
    std::string scratch;
    bool need_value = true;
    while (true) {
      if (need_value) {
        const char c = peek();
        if (c == '{' || c == '[') {
          if (stack.size() >= api_max_depth) {
            fail(api_errc::too_deep);
            return false;
          }
          ++i_;
          stack.push_back(c == '{' ? '}' : ']');
          if (peek() == stack.back()) {
            ++i_;
            stack.pop_back();
            need_value = false;
          } else if (c == '{') {
            if (peek() != '"' || !read_string(scratch) || !expect(':')) return fail_syntax();
          }
          if (need_value) continue;
        } else if (c == '"') {
          if (!read_string(scratch)) return false;
        } else if (c == 't') {
          if (!literal("true")) return false;
        } else if (c == 'f') {
          if (!literal("false")) return false;
        } else if (c == 'n') {
          if (!literal("null")) return false;
        } else if (number_token().empty()) {
          fail(api_errc::syntax);
          return false;
        }
        need_value = false;
      }
      if (stack.empty()) return true;
      const char c = peek();
      if (c == ',') {
        ++i_;
        if (stack.back() == '}' && (peek() != '"' || !read_string(scratch) || !expect(':')))
          return fail_syntax();
        need_value = true;
      } else if (c == stack.back()) {
        ++i_;
        stack.pop_back();
      } else {
        fail(api_errc::syntax);
        return false;
      }
    }
  }
  bool fail_syntax() {
    fail(api_errc::syntax);
    return false;
  }

  /// Iterates the members of an object at the cursor: calls on_member(key, key_offset) with
  /// the cursor at the value, which must consume it. Keys repeated in one object fail.
  template <class F>
  bool read_object(F&& on_member) {
    if (peek() != '{') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    if (peek() == '}') {
      ++i_;
      return true;
    }
    std::string key;
    while (true) {
      skip_ws();
      const std::size_t key_at = i_;
      if (peek() != '"') return fail_syntax();
      if (!read_string(key) || !expect(':')) return false;
      if (!on_member(key, key_at)) return false;
      const char c = peek();
      if (c == '}') {
        ++i_;
        return true;
      }
      if (c != ',') return fail_syntax();
      ++i_;
    }
  }

  /// Iterates the elements of an array at the cursor: on_element() consumes each.
  template <class F>
  bool read_array(F&& on_element) {
    if (peek() != '[') {
      fail(api_errc::wrong_type);
      return false;
    }
    ++i_;
    if (peek() == ']') {
      ++i_;
      return true;
    }
    while (true) {
      if (!on_element()) return false;
      const char c = peek();
      if (c == ']') {
        ++i_;
        return true;
      }
      if (c != ',') return fail_syntax();
      ++i_;
    }
  }
};

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

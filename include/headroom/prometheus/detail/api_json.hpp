// SPDX-License-Identifier: Apache-2.0
// The JSON cursor under the reader of Prometheus's HTTP API answers (http_api.hpp): strict
// RFC 8259 strings (escapes, surrogate pairs, well-formed UTF-8) and numbers through
// detail/json.hpp's lexer, objects and arrays, and skipping of unknown values at most
// api_max_depth deep. The first failure is
// recorded in the answer's parse_error with its byte offset; nothing is thrown.
#pragma once

#include "../../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../../detail/json.hpp"
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

  /// Reads a JSON string at the cursor into out (decoded, detail/json.hpp's lexer). Strict:
  /// raw control characters, unknown escapes, lone surrogates and ill-formed UTF-8 fail.
  bool read_string(std::string& out) {
    if (peek() != '"') {
      fail(api_errc::wrong_type);
      return false;
    }
    const auto r = ::headroom::detail::decode_json_string(s_, i_, out, limits_.max_string_bytes);
    using ::headroom::detail::json_errc;
    switch (r.error.code) {
      case json_errc::none:
        i_ = r.end;
        return true;
      case json_errc::invalid_string:
        fail_at(api_errc::invalid_string, r.error.offset);
        return false;
      case json_errc::invalid_utf8:
        fail_at(api_errc::invalid_utf8, r.error.offset);
        return false;
      case json_errc::string_too_long:
        fail_at(api_errc::string_too_long, r.error.offset);
        return false;
      default:
        fail_at(api_errc::syntax, r.error.offset);
        return false;
    }
  }

  /// The extent of a JSON number at the cursor (RFC 8259 grammar); empty when there is none.
  std::string_view number_token() noexcept {
    const std::size_t end = ::headroom::detail::json_number_end(s_, i_);
    if (end == std::string_view::npos) return {};
    const std::string_view token = s_.substr(i_, end - i_);
    i_ = end;
    return token;
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

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/prometheus/detail/api_json.hpp's non-template functions: included at
// the end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../../prometheus/detail/api_json.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace prometheus {
namespace detail {

HEADROOM_DECL auto api_json_cursor::fail_at(api_errc code, std::size_t offset) -> void {
  if (failed()) return;
  out_.parse_error = {.code = code, .offset = offset, .field = field_};
}

HEADROOM_DECL auto api_json_cursor::skip_ws() noexcept -> void {
  while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
    ++i_;
}

HEADROOM_DECL auto api_json_cursor::peek() noexcept -> char {
  skip_ws();
  return i_ < s_.size() ? s_[i_] : '\0';
}

HEADROOM_DECL auto api_json_cursor::expect(char c) -> bool {
  if (peek() != c) {
    fail(api_errc::syntax);
    return false;
  }
  ++i_;
  return true;
}

HEADROOM_DECL auto api_json_cursor::literal(std::string_view word) -> bool {
  if (s_.substr(i_, word.size()) != word) {
    fail(api_errc::syntax);
    return false;
  }
  i_ += word.size();
  return true;
}

HEADROOM_DECL auto api_json_cursor::read_string(std::string& out) -> bool {
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

HEADROOM_DECL auto api_json_cursor::number_token() noexcept -> std::string_view {
  const std::size_t end = ::headroom::detail::json_number_end(s_, i_);
  if (end == std::string_view::npos) return {};
  const std::string_view token = s_.substr(i_, end - i_);
  i_ = end;
  return token;
}

HEADROOM_DECL auto api_json_cursor::skip_value() -> bool {
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

HEADROOM_DECL auto api_json_cursor::fail_syntax() -> bool {
  fail(api_errc::syntax);
  return false;
}

}  // namespace detail
}  // namespace prometheus
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

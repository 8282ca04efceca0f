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
  HEADROOM_DECL void fail_at(api_errc code, std::size_t offset);

  HEADROOM_DECL void skip_ws() noexcept;
  [[nodiscard]] HEADROOM_DECL char peek() noexcept;
  HEADROOM_DECL bool expect(char c);
  /// Reads a JSON literal word (true, false, null) at the cursor.
  HEADROOM_DECL bool literal(std::string_view word);

  /// Reads a JSON string at the cursor into out (decoded, detail/json.hpp's lexer). Strict:
  /// raw control characters, unknown escapes, lone surrogates and ill-formed UTF-8 fail.
  HEADROOM_DECL bool read_string(std::string& out);

  /// The extent of a JSON number at the cursor (RFC 8259 grammar); empty when there is none.
  HEADROOM_DECL std::string_view number_token() noexcept;

  /// Skips any JSON value (unknown fields), iteratively, at most api_max_depth deep.
  HEADROOM_DECL bool skip_value();
  HEADROOM_DECL bool fail_syntax();

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

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../../impl/prometheus/detail/api_json.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

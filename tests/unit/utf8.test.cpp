// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/detail/utf8.hpp. Expected values: the well-formed byte sequences of the
// Unicode Standard (chapter 3, Table 3-7) and the examples around them (U+0041, U+00E9,
// U+20AC, U+1F600 written out by hand from their code points), and the malformed cases of
// Markus Kuhn's "UTF-8 decoder capability and stress test" (overlong forms, surrogates,
// code points past U+10FFFF, sequences cut short, stray continuation bytes).
#include <headroom/detail/utf8.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string_view>

namespace {
using headroom::detail::decode_utf8;
using headroom::detail::valid_utf8;
}  // namespace

TEST_SUITE("detail/utf8") {
  TEST_CASE("well-formed sequences decode to their code points") {
    struct row {
      std::string_view bytes;
      char32_t code;
      std::size_t length;
    };
    const row rows[] = {
        {.bytes = "A", .code = 0x41, .length = 1},
        {.bytes = "\x7f", .code = 0x7F, .length = 1},
        {.bytes = "\xc3\xa9", .code = 0xE9, .length = 2},             // e acute
        {.bytes = "\xc2\x80", .code = 0x80, .length = 2},             // lowest two-byte
        {.bytes = "\xdf\xbf", .code = 0x7FF, .length = 2},            // highest two-byte
        {.bytes = "\xe0\xa0\x80", .code = 0x800, .length = 3},        // lowest three-byte
        {.bytes = "\xe2\x82\xac", .code = 0x20AC, .length = 3},       // euro sign
        {.bytes = "\xed\x9f\xbf", .code = 0xD7FF, .length = 3},       // below the surrogates
        {.bytes = "\xee\x80\x80", .code = 0xE000, .length = 3},       // above them
        {.bytes = "\xef\xbf\xbf", .code = 0xFFFF, .length = 3},       // a noncharacter, well-formed
        {.bytes = "\xf0\x90\x80\x80", .code = 0x10000, .length = 4},  // lowest four-byte
        {.bytes = "\xf0\x9f\x98\x80", .code = 0x1F600, .length = 4},  // grinning face
        {.bytes = "\xf4\x8f\xbf\xbf", .code = 0x10FFFF, .length = 4},  // the last code point
    };
    for (const row& r : rows) {
      CAPTURE(r.code);
      const auto c = decode_utf8(r.bytes, 0);
      CHECK(c.code == r.code);
      CHECK(c.length == r.length);
      CHECK(valid_utf8(r.bytes));
    }
    static_assert(valid_utf8("plain ASCII, \xc3\xa9t\xc3\xa9, \xe2\x82\xac 5, \xf0\x9f\x98\x80"));
    static_assert(valid_utf8(""));
  }

  TEST_CASE("malformed sequences are refused") {
    const std::string_view malformed[] = {
        "\x80",              // a continuation byte alone
        "\xbf",              // another
        "\xc0\xaf",          // overlong '/'
        "\xc1\xbf",          // overlong U+007F
        "\xe0\x80\xaf",      // overlong '/' in three bytes
        "\xe0\x9f\xbf",      // overlong U+07FF
        "\xf0\x80\x80\xaf",  // overlong '/' in four bytes
        "\xf0\x8f\xbf\xbf",  // overlong U+FFFF
        "\xed\xa0\x80",      // U+D800, a high surrogate
        "\xed\xbf\xbf",      // U+DFFF, a low surrogate
        "\xf4\x90\x80\x80",  // U+110000
        "\xf5\x80\x80\x80",  // a lead byte that no sequence has
        "\xff",              // never in UTF-8
        "\xfe",              // never in UTF-8
        "\xc3",              // cut short
        "\xe2\x82",          // cut short
        "\xf0\x9f\x98",      // cut short
        "\xc3\x28",          // a lead byte followed by ASCII
        "\xe2\x28\xa1",      // a bad second byte
    };
    for (const std::string_view s : malformed) {
      CAPTURE(s.size());
      CHECK(decode_utf8(s, 0).length == 0);
      CHECK_FALSE(valid_utf8(s));
    }
    // Well-formed text around a malformed byte is still refused as a whole.
    CHECK_FALSE(valid_utf8("ok \xe2\x82\xac then \xc0\xaf"));
    CHECK(decode_utf8(std::string_view("ok \xe2\x82\xac", 6), 3).code == 0x20AC);
  }
}

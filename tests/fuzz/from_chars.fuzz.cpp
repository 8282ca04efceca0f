// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/detail/from_chars.hpp: a differential test of the portable
// parser. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/from_chars.fuzz.cpp -o /tmp/fz_from_chars
//   /tmp/fz_from_chars -max_total_time=120 tests/fuzz/corpus/from_chars
// The whole input is the text. Invariants: portable_from_chars_double reads the same prefix,
// reports the same outcome and writes the same bits as strtod in the "C" locale on that
// prefix (a finite input strtod flags ERANGE as infinity or zero is a range error, a
// subnormal is a value; NaNs compare as NaN), and as std::from_chars where the standard
// library has it; a rejection or a range error leaves the value alone.
#include <headroom/detail/from_chars.hpp>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

namespace {

[[noreturn]] void violated(const char* what, int line, const char* first, const char* last) {
  std::fprintf(stderr, "from_chars fuzz invariant violated (line %d): %s on '%.*s'\n", line, what,
               static_cast<int>(last - first > 200 ? 200 : last - first), first);
  std::abort();
}
#define REQUIRE_INV(cond)                                \
  do {                                                   \
    if (!(cond)) violated(#cond, __LINE__, first, last); \
  } while (false)

bool same(double a, double b) {
  return std::isnan(a) ? std::isnan(b)
                       : std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* first = reinterpret_cast<const char*>(data);
  const char* last = first + size;
  constexpr double untouched = -12345.0;
  double value = untouched;
  const std::from_chars_result r = headroom::detail::portable_from_chars_double(first, last, value);
  REQUIRE_INV(r.ptr >= first && r.ptr <= last);
  if (r.ec != std::errc{}) REQUIRE_INV(value == untouched);
  if (r.ec == std::errc::invalid_argument) REQUIRE_INV(r.ptr == first);

  // strtod on the prefix the parser read (a NUL-terminated copy: the input is not).
  if (r.ec != std::errc::invalid_argument) {
    const std::string prefix(first, r.ptr);
    REQUIRE_INV(prefix.find_first_of("+ \t\n\v\f\r") != 0);  // no sign '+', no leading space
    errno = 0;
    char* end = nullptr;
    const double expected = std::strtod(prefix.c_str(), &end);
    const int error = errno;
    REQUIRE_INV(end == prefix.c_str() + prefix.size());
    const bool special = prefix.find_first_of("iInN") != std::string::npos;
    const bool range = !special && error == ERANGE && (std::isinf(expected) || expected == 0.0);
    REQUIRE_INV((r.ec == std::errc::result_out_of_range) == range);
    if (!range) REQUIRE_INV(same(value, expected));
  }
#if HEADROOM_STD_FROM_CHARS_DOUBLE
  double standard = untouched;
  const std::from_chars_result s =
      std::from_chars(first, last, standard, std::chars_format::general);
  REQUIRE_INV(s.ptr == r.ptr && s.ec == r.ec);
  if (s.ec == std::errc{}) REQUIRE_INV(same(standard, value));
#endif
  return 0;
}

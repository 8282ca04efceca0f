// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/prometheus.hpp. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/prometheus.fuzz.cpp -o /tmp/prom_fuzz
//   /tmp/prom_fuzz -max_total_time=120 tests/fuzz/corpus/prometheus
// Invariants: no crash or sanitizer report; lenient never fails; a strict failure names a
// line within the input; every view (names, label names and values, HELP) lies inside the
// input; a strict success equals the lenient parse; raw_equals(v, unescape(v)) for values;
// a parse under limits never holds more than they allow, and a page within them parses as
// it does without them.
#include <headroom/prometheus.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

namespace prom = headroom::prometheus;

void require(bool condition) {
  if (!condition) std::abort();
}

bool inside(std::string_view view, std::string_view buffer) {
  if (view.empty()) return true;  // an empty view may point anywhere valid
  return view.data() >= buffer.data() && view.data() + view.size() <= buffer.data() + buffer.size();
}

std::size_t count_lines(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n + ((!s.empty() && s.back() != '\n') ? 1 : 0);
}

void check_views(const prom::page& p, std::string_view text) {
  for (const prom::family& f : p.families()) {
    require(!f.name.empty() && inside(f.name, text));
    require(inside(f.help, text));
  }
  std::size_t previous_line = 0;
  for (const prom::sample& s : p.samples()) {
    require(!s.name.empty() && inside(s.name, text));
    require(s.family < p.families().size());
    require(s.line >= 1 && s.line <= p.line_count() && s.line > previous_line);
    previous_line = s.line;
    for (const prom::label& l : p.labels(s)) {
      require(!l.name.empty() && inside(l.name, text) && inside(l.value, text));
      require(prom::raw_equals(l.value, prom::unescape(l.value)));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t lines = count_lines(text);

  const prom::page strict = prom::parse(text);
  require(strict.line_count() == lines);
  check_views(strict, text);
  if (!strict.ok()) {
    const prom::parse_error& e = *strict.error();
    require(e.line >= 1 && e.line <= lines);
    require(e.code != prom::parse_errc::none && !e.reason().empty());
  }

  const prom::page lenient = prom::parse(text, {.mode = prom::parse_mode::lenient});
  require(lenient.ok());
  require(lenient.line_count() == lines);
  check_views(lenient, text);
  for (const prom::parse_error& e : lenient.skipped()) require(e.line >= 1 && e.line <= lines);
  if (strict.ok()) {
    require(lenient.skipped().empty());
    require(lenient.samples().size() == strict.samples().size());
  } else {
    require(!lenient.skipped().empty());
    require(lenient.skipped().front().line == strict.error()->line);
  }

  const prom::page final_newline =
      prom::parse(text, {.mode = prom::parse_mode::strict, .require_final_newline = true});
  require(final_newline.ok() == (strict.ok() && !strict.missing_final_newline()));

  // Limits from the input's length: small enough to be reached by the corpus' pages.
  const prom::parse_options limited{.mode = prom::parse_mode::lenient,
                                    .max_labels_per_series = 1 + size % 4,
                                    .max_series_per_page = 1 + size % 7,
                                    .max_families_per_page = 1 + size % 5};
  const prom::page bounded = prom::parse(text, limited);
  require(bounded.ok());
  check_views(bounded, text);
  require(bounded.samples().size() <= limited.max_series_per_page);
  require(bounded.families().size() <= limited.max_families_per_page);
  for (const prom::sample& s : bounded.samples())
    require(s.label_count <= limited.max_labels_per_series);
  std::size_t most_labels = 0;
  for (const prom::sample& s : lenient.samples())
    most_labels = std::max(most_labels, s.label_count);
  if (lenient.samples().size() <= limited.max_series_per_page &&
      lenient.families().size() <= limited.max_families_per_page &&
      most_labels <= limited.max_labels_per_series) {
    require(bounded.skipped().size() == lenient.skipped().size());
    require(bounded.samples().size() == lenient.samples().size());
  }

  // The queries must cope with whatever the page holds.
  if (!lenient.samples().empty()) {
    const prom::sample& first = lenient.samples().front();
    (void)prom::aggregate(lenient, first.name);
    for (const prom::label& l : lenient.labels(first))
      (void)prom::aggregate(lenient, first.name, l.name, prom::unescape(l.value));
    std::string_view base = first.name;
    if (base.ends_with("_bucket")) base.remove_suffix(7);
    for (double q : {0.0, 0.5, 0.99, 1.0}) {
      if (base.empty()) break;  // "_bucket" is a valid name; an empty query is a caller error
      const auto v = prom::histogram_quantile(lenient, base, q);
      require(!v || !std::isnan(*v));
    }
  }
  (void)prom::read_replica_load(lenient, prom::vllm_preset);
  (void)prom::read_replica_load(lenient, prom::sglang_preset, "m");
  return 0;
}

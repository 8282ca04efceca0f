// SPDX-License-Identifier: Apache-2.0
// Tests for headroom/prometheus.hpp. Expected values come from the exposition-format rules
// (prometheus/docs exposition_formats.md, prometheus/common expfmt), from numbers read by eye
// in the fixture pages under tests/data/metrics (the line is quoted), from the fixture
// README's counts, and from hand calculations shown in comments.
#include <headroom/error.hpp>
#include <headroom/prometheus.hpp>

#include <doctest/doctest.h>

#include "support.hpp"
#include "test_data.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace prom = headroom::prometheus;

std::string read_fixture(const std::string& relative) {
  return headroom::test::read_test_data("metrics/" + relative);
}

// The samples named `name`, in page order.
std::vector<const prom::sample*> named(const prom::page& p, std::string_view name) {
  std::vector<const prom::sample*> out;
  for (const prom::sample& s : p.samples())
    if (s.name == name) out.push_back(&s);
  return out;
}

// The single sample named `name` (fails the test unless there is exactly one).
const prom::sample& only(const prom::page& p, std::string_view name) {
  const auto all = named(p, name);
  REQUIRE_MESSAGE(all.size() == 1, name);
  return *all.front();
}

const prom::family& family_named(const prom::page& p, std::string_view name) {
  const auto i = p.find_family(name);
  REQUIRE_MESSAGE(i.has_value(), name);
  return p.families()[*i];
}

// parse() refuses a temporary std::string: the page's views would dangle.
template <class T>
constexpr bool can_parse = requires(T&& t) {
  prom::parse(std::forward<T>(t));
};
static_assert(!can_parse<std::string>);
static_assert(can_parse<std::string&>);
static_assert(can_parse<const std::string&>);
static_assert(can_parse<std::string_view>);
static_assert(can_parse<const char (&)[4]>);

prom::parse_error strict_error(std::string_view text) {
  const prom::page p = prom::parse(text);
  REQUIRE_MESSAGE(!p.ok(), text);
  return *p.error();
}

// A sample line `m{...} 1` with `count` labels named l0, l1, ...; names[k] replaces the name of
// label k when given. columns[k] is the 1-based column of label k's name, counted while
// writing the line.
struct labelled_line {
  std::string text;
  std::vector<std::size_t> columns;
};
labelled_line line_with_labels(std::size_t count,
                               const std::vector<std::pair<std::size_t, std::string>>& names = {}) {
  labelled_line out;
  out.text = "m{";
  for (std::size_t k = 0; k < count; ++k) {
    std::string name = "l";  // appended apart: g++ 12 -O3's false -Wrestrict (GCC bug 105329)
    name += std::to_string(k);
    for (const auto& [index, replacement] : names)
      if (index == k) name = replacement;
    out.columns.push_back(out.text.size() + 1);
    out.text += name + "=\"v\",";
  }
  out.text += "} 1\n";
  return out;
}

// `count` names whose 64-bit FNV-1a hashes (offset basis 14695981039346656037, prime
// 1099511628211) share their low 17 bits: every one lands in the same slot of any
// power-of-two table up to 131,072 slots under that (unkeyed) hash. FNV-1a's low k bits
// depend only on the low k bits of the state and of the bytes, and the prime is odd, so the
// last of three appended characters follows from the first two (when it is a name character).
std::vector<std::string> fnv1a_colliding_names(std::size_t count) {
  constexpr std::uint64_t basis = 14695981039346656037ull, prime = 1099511628211ull;
  constexpr std::uint64_t mask = (1u << 17) - 1;
  std::uint64_t inverse = prime;  // Newton's iteration: prime * inverse == 1 mod 2^64
  for (int i = 0; i < 6; ++i) inverse *= 2 - prime * inverse;
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:";
  const std::uint64_t before_last = (0x0b5e1 * inverse) & mask;
  std::vector<std::string> names;
  for (std::size_t i = 0; names.size() < count; ++i) {
    const std::string prefix = "family_" + std::to_string(i) + "_";
    std::uint64_t h = basis;
    for (const char c : prefix) h = (h ^ static_cast<unsigned char>(c)) * prime;
    bool found = false;
    for (std::size_t a = 0; !found && a < alphabet.size(); ++a) {
      for (std::size_t b = 0; !found && b < alphabet.size(); ++b) {
        const std::uint64_t s = (((h ^ static_cast<unsigned char>(alphabet[a])) * prime) ^
                                 static_cast<unsigned char>(alphabet[b])) *
                                prime;
        const std::uint64_t c = (s ^ before_last) & mask;
        if (c < 256 && alphabet.find(static_cast<char>(c)) != std::string::npos) {
          names.push_back(prefix + alphabet[a] + alphabet[b] + static_cast<char>(c));
          found = true;
        }
      }
    }
  }
  return names;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

TEST_SUITE("prometheus") {
  TEST_CASE("prometheus: a page written to the format's rules") {
    // Every construct the 0.0.4 text format allows, one per line.
    const std::string_view text =
        "# A free-text comment, ignored.\n"                                       // 1
        "# HELP http_requests_total The total number of HTTP requests.\n"         // 2
        "# TYPE http_requests_total counter\n"                                    // 3
        "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"  // 4
        "http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n"  // 5
        "\n"                                                                      // 6
        "# TYPE http_requests_created gauge\n"                                    // 7
        "http_requests_created{method=\"post\"} 1.7e9\n"                          // 8
        "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
        "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n"                                  // 9
        "metric_without_timestamp_and_labels 12.47\n"                                  // 10
        "something_weird{problem=\"division by zero\"} +Inf -3982045\n"                // 11
        "negative_inf -Inf\n"                                                          // 12
        "not_a_number NaN\n"                                                           // 13
        "# HELP http_request_duration_seconds A histogram of the request duration.\n"  // 14
        "# TYPE http_request_duration_seconds histogram\n"                             // 15
        "http_request_duration_seconds_bucket{le=\"0.05\"} 24054\n"                    // 16
        "http_request_duration_seconds_bucket{le=\"0.1\"} 33444\n"                     // 17
        "http_request_duration_seconds_bucket{le=\"0.2\"} 100392\n"                    // 18
        "http_request_duration_seconds_bucket{le=\"0.5\"} 129389\n"                    // 19
        "http_request_duration_seconds_bucket{le=\"1\"} 133988\n"                      // 20
        "http_request_duration_seconds_bucket{le=\"+Inf\"} 144320\n"                   // 21
        "http_request_duration_seconds_sum 53423\n"                                    // 22
        "http_request_duration_seconds_count 144320\n"                                 // 23
        "# TYPE rpc_duration_seconds summary\n"                                        // 24
        "rpc_duration_seconds{quantile=\"0.5\"} 4773\n"                                // 25
        "rpc_duration_seconds{quantile=\"0.99\"} 76656\n"                              // 26
        "rpc_duration_seconds_sum 1.7560473e+07\n"                                     // 27
        "rpc_duration_seconds_count 2693\n";                                           // 28
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.line_count() == 28);
    CHECK_FALSE(p.missing_final_newline());
    CHECK(p.samples().size() == 20);
    CHECK(p.families().size() == 9);

    const prom::family& counter = family_named(p, "http_requests_total");
    CHECK(counter.type == prom::metric_type::counter);
    CHECK(counter.help == "The total number of HTTP requests.");
    CHECK(counter.samples == 2);
    const auto requests = named(p, "http_requests_total");
    REQUIRE(requests.size() == 2);
    CHECK(requests[0]->value == 1027);
    CHECK(requests[0]->timestamp_ms == 1395066363000);
    CHECK(requests[0]->line == 4);
    CHECK(p.label_value(*requests[0], "method") == "post");
    CHECK(p.label_value(*requests[0], "code") == "200");
    CHECK(requests[1]->value == 3);

    // _created is its own family (prometheus_client writes it as a gauge).
    CHECK(family_named(p, "http_requests_created").type == prom::metric_type::gauge);
    CHECK(only(p, "http_requests_created").value == 1.7e9);

    const prom::sample& dos = only(p, "msdos_file_access_time_seconds");
    CHECK(dos.value == 1.458255915e9);
    CHECK_FALSE(dos.timestamp_ms.has_value());
    const auto dos_labels = p.labels(dos);
    REQUIRE(dos_labels.size() == 2);
    CHECK(dos_labels[0].name == "path");
    CHECK(dos_labels[0].escaped);
    CHECK(dos_labels[0].value == "C:\\\\DIR\\\\FILE.TXT");  // raw view, escapes intact
    CHECK(prom::unescape(dos_labels[0].value) == "C:\\DIR\\FILE.TXT");
    CHECK(prom::unescape(dos_labels[1].value) == "Cannot find file:\n\"FILE.TXT\"");
    CHECK(prom::raw_equals(dos_labels[1].value, "Cannot find file:\n\"FILE.TXT\""));
    CHECK_FALSE(prom::raw_equals(dos_labels[1].value, "Cannot find file:\n\"FILE.TXT"));

    CHECK(only(p, "metric_without_timestamp_and_labels").value == 12.47);
    CHECK(family_named(p, "metric_without_timestamp_and_labels").type ==
          prom::metric_type::untyped);
    const prom::sample& weird = only(p, "something_weird");
    CHECK(weird.value == std::numeric_limits<double>::infinity());
    CHECK(weird.timestamp_ms == -3982045);
    CHECK(only(p, "negative_inf").value == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(only(p, "not_a_number").value));

    // Histogram: _bucket, _sum and _count belong to the family.
    const prom::family& hist = family_named(p, "http_request_duration_seconds");
    CHECK(hist.type == prom::metric_type::histogram);
    CHECK(hist.samples == 8);
    CHECK_FALSE(p.find_family("http_request_duration_seconds_bucket").has_value());
    const auto buckets = named(p, "http_request_duration_seconds_bucket");
    REQUIRE(buckets.size() == 6);
    CHECK(p.label_value(*buckets[5], "le") == "+Inf");
    CHECK(buckets[5]->value == 144320);
    CHECK(&p.family_of(only(p, "http_request_duration_seconds_sum")) == &hist);
    const prom::family& summary = family_named(p, "rpc_duration_seconds");
    CHECK(summary.type == prom::metric_type::summary);
    CHECK(summary.samples == 4);
    CHECK(only(p, "rpc_duration_seconds_sum").value == 1.7560473e+07);
  }

  TEST_CASE("prometheus: numbers follow Go's ParseFloat and ParseInt") {
    struct ok_case {
      std::string_view value;
      double expected;
    };
    const ok_case cases[] = {
        {"08", 8.0},
        {"1.0777853952e+010", 10777853952.0},
        {"1e+06", 1e6},
        {"1E-3", 0.001},
        {"-3e3", -3000.0},
        {"+3", 3.0},
        {".5", 0.5},
        {"5.", 5.0},
        {"0.23", 0.23},
        {"1e-400", 0.0},  // underflow reads as zero (Go: no error)
        {"+Inf", std::numeric_limits<double>::infinity()},
        {"-Inf", -std::numeric_limits<double>::infinity()},
        {"inf", std::numeric_limits<double>::infinity()},
        {"+infinity", std::numeric_limits<double>::infinity()},
    };
    for (const ok_case& c : cases) {
      const std::string line = "m " + std::string(c.value) + "\n";
      const prom::page p = prom::parse(line);
      REQUIRE_MESSAGE(p.ok(), c.value);
      CHECK_MESSAGE(p.samples()[0].value == c.expected, c.value);
    }
    for (std::string_view nan : {"NaN", "nan", "NAN"}) {
      const std::string line = "m " + std::string(nan) + "\n";
      const prom::page p = prom::parse(line);
      REQUIRE(p.ok());
      CHECK(std::isnan(p.samples()[0].value));
    }
    for (std::string_view bad : {"1e400", "-1e400", "0x10", "1_000", "0x1p-2", "+nan", "++1", "+-1",
                                 "1e", ".", "e5", "1.2.3", "nan(1)", "Infinit", "1,5", "blubb"}) {
      const std::string line = "m " + std::string(bad) + "\n";
      const prom::page p = prom::parse(line);
      REQUIRE_MESSAGE(!p.ok(), bad);
      CHECK(p.error()->line == 1);
      CHECK(p.error()->column == 3);
    }
    CHECK(strict_error("m 1e400\n").code == prom::parse_errc::value_out_of_range);
    CHECK(strict_error("m 0x10\n").code == prom::parse_errc::invalid_value);

    // Timestamps: base-10 int64 with an optional sign, in milliseconds.
    CHECK(prom::parse("m 1 +5\n").samples()[0].timestamp_ms == 5);
    CHECK(prom::parse("m 1 -5\n").samples()[0].timestamp_ms == -5);
    CHECK(prom::parse("m 1 9223372036854775807\n").samples()[0].timestamp_ms ==
          std::numeric_limits<std::int64_t>::max());
    for (std::string_view bad : {"1.5", "9223372036854775808", "+-1", "1e3", "0x10", "-"}) {
      const prom::parse_error e = strict_error("m 1 " + std::string(bad) + "\n");
      CHECK_MESSAGE(e.code == prom::parse_errc::invalid_timestamp, bad);
      CHECK(e.column == 5);
    }
  }

  TEST_CASE("prometheus: whitespace / empty label sets / trailing commas / comments") {
    const std::string_view text =
        "  \t\n"
        "   # TYPE  spaced  gauge \n"
        "\tspaced { a = \"1\" ,\tb=\"2\", } 1\n"
        "empty{} 2\n"
        "tight{a=\"x\"}-Inf\n"
        "# HELP\n"
        "# HELP only_name\n"
        "# just text\n"
        "#\n";
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.samples().size() == 3);
    const prom::sample& spaced = only(p, "spaced");
    CHECK(p.labels(spaced).size() == 2);
    CHECK(p.label_value(spaced, "b") == "2");
    CHECK(family_named(p, "spaced").type == prom::metric_type::gauge);
    CHECK(p.labels(only(p, "empty")).empty());
    CHECK(only(p, "tight").value == -std::numeric_limits<double>::infinity());
    // "# HELP only_name" has no text: a plain comment, as in expfmt.
    CHECK_FALSE(p.find_family("only_name").has_value());
    // Non-ASCII UTF-8 in a label value is fine; views point into the text.
    const std::string utf8 =
        "m{city=\"K\xc3\xb8"
        "benhavn\"} 1\n";
    const prom::page q = prom::parse(utf8);
    REQUIRE(q.ok());
    CHECK(q.labels(q.samples()[0])[0].value ==
          "K\xc3\xb8"
          "benhavn");
    CHECK(q.labels(q.samples()[0])[0].value.data() == utf8.data() + 8);
  }

  TEST_CASE("prometheus: malformed lines give a line number and a reason") {
    struct bad_case {
      std::string_view text;
      std::size_t line;
      std::size_t column;
      prom::parse_errc code;
    };
    using E = prom::parse_errc;
    const bad_case cases[] = {
        {"ok 1\n@bad 1\n", 2, 1, E::invalid_metric_name},
        {"ok 1\nmet-ric 1\n", 2, 4, E::invalid_metric_name},
        {"{a=\"b\"} 1\n", 1, 1, E::invalid_metric_name},
        {"m{1a=\"b\"} 1\n", 1, 3, E::invalid_label_name},
        {"m{a-b=\"c\"} 1\n", 1, 4, E::expected_equals},
        {"m{,} 1\n", 1, 3, E::invalid_label_name},
        {"m{__name__=\"x\"} 1\n", 1, 3, E::reserved_label_name},
        {"m{a=\"1\",a=\"2\"} 1\n", 1, 9, E::duplicate_label_name},
        {"m{a=b} 1\n", 1, 5, E::expected_quote},
        {"m{a=\"\\t\"} 1\n", 1, 6, E::invalid_escape},
        {"m{a=\"x} 1\n", 1, 10, E::unterminated_label_value},
        {"m{a=\"x\n\"} 1\n", 1, 7, E::unterminated_label_value},
        {"m{a=\"\xff\"} 1\n", 1, 6, E::invalid_utf8},
        {"m{a=\"\xed\xa0\x80\"} 1\n", 1, 6, E::invalid_utf8},  // a UTF-16 surrogate
        {"m{a=\"x\"+} 1\n", 1, 8, E::expected_label_separator},
        {"m{a=\"x\" 1\n", 1, 9, E::expected_label_separator},
        {"m\n", 1, 2, E::invalid_value},
        {"m{} \n", 1, 5, E::invalid_value},
        {"m one\n", 1, 3, E::invalid_value},
        {"m 1 2 3\n", 1, 7, E::trailing_characters},
        {"# TYPE met-ric counter\n", 1, 11, E::invalid_comment_name},
        {"# HELP 9m text\n", 1, 8, E::invalid_comment_name},
        {"# HELP m bad \\t escape\n", 1, 14, E::invalid_help_escape},
        {"# HELP m trailing backslash\\\n", 1, 28, E::invalid_help_escape},
        {"# TYPE m bla\n", 1, 10, E::unknown_type},
        {"\n# HELP m one\n# HELP m two\n", 3, 8, E::duplicate_help},
        {"# TYPE m counter\n# TYPE m gauge\n", 2, 8, E::duplicate_type},
        {"m 1\n# TYPE m counter\n", 2, 8, E::duplicate_type},
        {"# TYPE h histogram\nh_bucket{le=\"bla\"} 1\n", 2, 14, E::invalid_bucket_bound},
        {"# TYPE s summary\ns{quantile=\"x\"} 1\n", 2, 13, E::invalid_quantile_label},
    };
    for (const bad_case& c : cases) {
      const prom::parse_error e = strict_error(c.text);
      CHECK_MESSAGE(e.line == c.line, c.text);
      CHECK_MESSAGE(e.column == c.column, c.text);
      CHECK_MESSAGE(e.code == c.code, c.text);
      CHECK(e.reason() == prom::describe(c.code));
      CHECK_FALSE(e.reason().empty());
    }
    CHECK(prom::describe(E::duplicate_help) == "second HELP line for the metric family");
    // A gauge may carry an le label with any value (SGLang's routing-key gauges do).
    CHECK(prom::parse("# TYPE g gauge\ng{le=\"bla\"} 1\n").ok());
  }

  TEST_CASE("prometheus: lenient mode skips malformed lines and counts them") {
    const std::string_view text =
        "# TYPE a gauge\n"    // 1
        "a 1\n"               // 2
        "a{x=y} 2\n"          // 3: unquoted label value
        "# TYPE a counter\n"  // 4: TYPE after samples
        "b 3 4 5\n"           // 5: trailing characters
        "c{z=\"1\"} 6\n";     // 6
    const prom::page strict = prom::parse(text);
    REQUIRE_FALSE(strict.ok());
    CHECK(strict.error()->line == 3);
    CHECK(strict.line_count() == 6);
    CHECK(strict.samples().size() == 1);  // what came before the error

    const prom::page p = prom::parse(text, {.mode = prom::parse_mode::lenient});
    REQUIRE(p.ok());
    REQUIRE(p.skipped().size() == 3);
    CHECK(p.skipped()[0].line == 3);
    CHECK(p.skipped()[0].code == prom::parse_errc::expected_quote);
    CHECK(p.skipped()[1].line == 4);
    CHECK(p.skipped()[1].code == prom::parse_errc::duplicate_type);
    CHECK(p.skipped()[2].line == 5);
    CHECK(p.samples().size() == 2);
    CHECK(family_named(p, "a").type == prom::metric_type::gauge);  // the first TYPE stands
    const prom::sample& c = only(p, "c");
    CHECK(p.labels(c).size() == 1);  // the skipped line's labels were rolled back
    CHECK(p.labels(c)[0].name == "z");
    CHECK(c.line == 6);
  }

  TEST_CASE("prometheus: a page without a final newline is accepted unless required") {
    const prom::page p = prom::parse("a 1\nb 2");
    REQUIRE(p.ok());
    CHECK(p.missing_final_newline());
    CHECK(p.line_count() == 2);
    CHECK(only(p, "b").value == 2);
    const prom::page required =
        prom::parse("a 1\nb 2", {.mode = prom::parse_mode::strict, .require_final_newline = true});
    REQUIRE_FALSE(required.ok());
    CHECK(required.error()->line == 2);
    CHECK(required.error()->code == prom::parse_errc::missing_final_newline);
    CHECK(
        prom::parse("a 1\nb 2\n", {.mode = prom::parse_mode::strict, .require_final_newline = true})
            .ok());
    const prom::page lenient =
        prom::parse("a 1\nb 2", {.mode = prom::parse_mode::lenient, .require_final_newline = true});
    CHECK(lenient.samples().size() == 1);
    CHECK(lenient.skipped().size() == 1);
    // Empty input is a valid, empty page.
    const prom::page empty = prom::parse("");
    CHECK(empty.ok());
    CHECK(empty.line_count() == 0);
    CHECK(empty.samples().empty());
  }

  TEST_CASE("prometheus: parse_into reuses a page") {
    prom::page p;
    const std::string first = "a{x=\"1\"} 1\nb 2\n";
    const std::string second = "# TYPE c gauge\nc 3\n";
    prom::parse_into(first, p);
    CHECK(p.samples().size() == 2);
    prom::parse_into(second, p);
    REQUIRE(p.ok());
    CHECK(p.samples().size() == 1);
    CHECK(p.families().size() == 1);
    CHECK_FALSE(p.find_family("a").has_value());
    CHECK(p.find_family("c") == std::size_t{0});
    CHECK(p.text().data() == second.data());
  }

  TEST_CASE("prometheus: many families keep lookups exact") {
    std::string text;
    for (int i = 0; i < 300; ++i) {
      text += "# TYPE fam_" + std::to_string(i) + " histogram\n";
      text += "fam_" + std::to_string(i) + "_bucket{le=\"+Inf\"} " + std::to_string(i) + "\n";
      text += "fam_" + std::to_string(i) + "_count " + std::to_string(i) + "\n";
    }
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.families().size() == 300);
    for (int i = 0; i < 300; i += 37) {
      const prom::family& f = family_named(p, "fam_" + std::to_string(i));
      CHECK(f.samples == 2);
      CHECK(f.type == prom::metric_type::histogram);
    }
  }

  TEST_CASE("prometheus: duplicate label names among many labels") {
    using E = prom::parse_errc;
    // Beyond 16 labels the names go through a hash table: distinct names pass at any count.
    for (const std::size_t count : {std::size_t{17}, std::size_t{1000}, std::size_t{131072}}) {
      const labelled_line line = line_with_labels(count);
      const prom::page p = prom::parse(line.text);
      REQUIRE_MESSAGE(p.ok(), count);
      CHECK(p.labels(p.samples()[0]).size() == count);
    }
    // The error names the earliest label whose name came before: label 25 (a second l10),
    // not label 30 (a second l3), although l3 appears first.
    const labelled_line two = line_with_labels(40, {{25, "l10"}, {30, "l3"}});
    prom::parse_error e = strict_error(two.text);
    CHECK(e.code == E::duplicate_label_name);
    CHECK(e.column == two.columns[25]);
    // Three of one name: the second is the repeat.
    const labelled_line three = line_with_labels(50, {{20, "l5"}, {45, "l5"}});
    CHECK(strict_error(three.text).column == three.columns[20]);
    // The repeat comes before a malformed label later on the line: it is the error reported.
    labelled_line later = line_with_labels(30, {{12, "l2"}});
    later.text.replace(later.text.find("l20=\"v\""), 7, "l20=v  ");
    e = strict_error(later.text);
    CHECK(e.code == E::duplicate_label_name);
    CHECK(e.column == later.columns[12]);
    // A malformed label before the repeat stops the line first.
    labelled_line earlier = line_with_labels(30, {{25, "l2"}});
    earlier.text.replace(earlier.text.find("l20=\"v\""), 7, "l20=v  ");
    e = strict_error(earlier.text);
    CHECK(e.code == E::expected_quote);
    CHECK(e.column == earlier.columns[20] + 4);  // l20=v: the v
    // Lenient: the line is skipped and its labels rolled back.
    const std::string two_lines = two.text + "n{a=\"1\"} 2\n";
    const prom::page lenient = prom::parse(two_lines, {.mode = prom::parse_mode::lenient});
    REQUIRE(lenient.skipped().size() == 1);
    CHECK(lenient.skipped()[0].code == E::duplicate_label_name);
    REQUIRE(lenient.samples().size() == 1);
    CHECK(lenient.labels(lenient.samples()[0]).size() == 1);
  }

  TEST_CASE("prometheus: a label name longer than max_label_name_bytes is refused") {
    using E = prom::parse_errc;
    // 1024 bytes by default (label_names.hpp), as the HTTP API reader; 0 lifts the bound.
    CHECK(prom::parse_options{}.max_label_name_bytes == 1024);
    const auto line = [](std::size_t length) {
      return "m{" + std::string(length, 'a') + "=\"v\"} 1\n";
    };
    const std::string longest = line(1024), over = line(1025), huge = line(10'000'000),
                      long_name = line(2000);  // the page outlives its parse (zero-copy)
    CHECK(prom::parse(longest).ok());
    const prom::page p = prom::parse(over);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error()->code == E::label_name_too_long);
    CHECK(p.error()->column == 3);  // the name's first byte (columns from 1)
    CHECK(prom::parse(huge).error()->code == E::label_name_too_long);
    prom::parse_options unbounded;
    unbounded.max_label_name_bytes = 0;
    CHECK(prom::parse(long_name, unbounded).ok());
  }

  TEST_CASE("prometheus: limits on labels per series / series / families") {
    using E = prom::parse_errc;
    prom::parse_options limits;
    // Off by default (0), as Prometheus's label_limit and sample_limit are.
    CHECK(limits.max_labels_per_series == 0);
    CHECK(limits.max_series_per_page == 0);
    CHECK(limits.max_families_per_page == 0);

    limits.max_labels_per_series = 3;
    CHECK(prom::parse("m{a=\"1\",b=\"2\",c=\"3\"} 1\n", limits).ok());  // 3 = the limit
    prom::page p = prom::parse("ok 1\nm{a=\"1\",b=\"2\",c=\"3\",d=\"4\"} 1\n", limits);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error()->code == E::too_many_labels);
    CHECK(p.error()->line == 2);
    CHECK(p.error()->column == 21);  // the fourth label, d (each label is 6 bytes from 3)
    CHECK(p.error()->reason() == "more labels in the sample than max_labels_per_series allows");
    // A repeat before the limit is reached is reported as the repeat.
    CHECK(prom::parse("m{a=\"1\",a=\"2\",c=\"3\",d=\"4\"} 1\n", limits).error()->code ==
          E::duplicate_label_name);

    limits = {};
    limits.max_series_per_page = 2;
    const std::string_view three_series =
        "# TYPE a gauge\na 1\nb 2\nb{x=\"y\"} 3\n# TYPE c gauge\n";
    p = prom::parse(three_series, limits);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error()->code == E::too_many_series);
    CHECK(p.error()->line == 4);
    CHECK(p.error()->column == 1);
    CHECK(p.samples().size() == 2);
    limits.mode = prom::parse_mode::lenient;
    p = prom::parse(three_series, limits);
    CHECK(p.samples().size() == 2);
    REQUIRE(p.skipped().size() == 1);
    CHECK(p.skipped()[0].code == E::too_many_series);
    CHECK(p.families().size() == 3);  // a, b and the TYPE line's c: families are not series

    limits = {};
    limits.max_families_per_page = 2;
    const std::string_view three_families = "# HELP a A.\na 1\nb 2\nb 3\n# TYPE c gauge\nc 4\n";
    p = prom::parse(three_families, limits);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error()->code == E::too_many_families);
    CHECK(p.error()->line == 5);
    CHECK(p.error()->column == 8);  // the name in "# TYPE c gauge"
    limits.mode = prom::parse_mode::lenient;
    p = prom::parse(three_families, limits);
    CHECK(p.families().size() == 2);
    CHECK(p.samples().size() == 3);  // a 1, b 2, b 3: b was already a family
    REQUIRE(p.skipped().size() == 2);
    CHECK(p.skipped()[0].line == 5);
    CHECK(p.skipped()[1].line == 6);
    CHECK(p.skipped()[1].column == 1);  // the sample "c 4" would have made a third family
    CHECK(p.skipped()[1].code == E::too_many_families);
    // A histogram's _bucket, _sum and _count samples belong to its one family.
    limits = {};
    limits.max_families_per_page = 1;
    CHECK(prom::parse("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 2\nh_count 1\n", limits)
              .ok());
  }

  TEST_CASE("prometheus: the family table resists names built to collide") {
    // Names that all fall in one slot under an unkeyed FNV-1a table (the scheme this table
    // had) made each insert probe every earlier one: quadratic. Under the page's keyed hash
    // they spread like any names.
    const std::vector<std::string> names = fnv1a_colliding_names(4000);
    for (const std::string& name : names)
      REQUIRE((fnv1a(name) & 0x1ffff) == (fnv1a(names[0]) & 0x1ffff));
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
      text += names[i] + " " + std::to_string(i) + "\n";
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.families().size() == 4000);
    for (std::size_t i = 0; i < names.size(); i += 399) {
      const auto f = p.find_family(names[i]);
      REQUIRE(f.has_value());
      CHECK(*f == i);
      CHECK(p.samples()[i].value == static_cast<double>(i));
    }
    // Linear probing at load 1/2 with a random hash: a run of 200 slots has probability
    // about 8192 * exp(-200 * 0.193) < 1e-12; with FNV-1a these names probe 4000.
    CHECK(headroom::prometheus::detail::longest_probe(p) < 200);
  }

  TEST_CASE("prometheus: the expfmt fuzz corpus / valid and invalid") {
    for (std::string_view name : {"from_test_parse_0", "from_test_parse_1", "from_test_parse_2",
                                  "from_test_parse_3", "from_test_parse_4", "minimal"}) {
      const std::string text = read_fixture("prometheus_common_fuzz/" + std::string(name));
      const prom::page p =
          prom::parse(text, {.mode = prom::parse_mode::strict, .require_final_newline = true});
      CHECK_MESSAGE(p.ok(), name);
    }
    // from_test_parse_2: name {labelname="val2",basename="base\"v\\al\nue"} 0.23 1234567890
    const std::string two = read_fixture("prometheus_common_fuzz/from_test_parse_2");
    const prom::page p2 = prom::parse(two);
    const auto names = named(p2, "name");
    REQUIRE(names.size() == 2);
    CHECK(std::isnan(names[0]->value));
    CHECK(names[1]->value == 0.23);
    CHECK(names[1]->timestamp_ms == 1234567890);
    CHECK(prom::unescape(*p2.label_value(*names[1], "basename")) == "base\"v\\al\nue");
    CHECK(prom::unescape(family_named(p2, "name").help) == "two-line\n doc  str\\ing");
    CHECK(family_named(p2, "name2").type == prom::metric_type::gauge);
    CHECK(named(p2, "name2")[1]->value == -std::numeric_limits<double>::infinity());
    // from_test_parse_3: "my_summary_sum{n1="val2"} 08 15" and the decoy series.
    const std::string three = read_fixture("prometheus_common_fuzz/from_test_parse_3");
    const prom::page p3 = prom::parse(three);
    CHECK(named(p3, "my_summary_sum")[1]->value == 8);
    CHECK(family_named(p3, "my_summary").samples == 8);  // 8 my_summary* lines
    CHECK(family_named(p3, "decoy").type == prom::metric_type::untyped);
    CHECK(family_named(p3, "fake_sum").samples == 1);
    // from_test_parse_4: request_duration_microseconds_sum 1.7560473e+06
    const std::string four = read_fixture("prometheus_common_fuzz/from_test_parse_4");
    const prom::page p4 = prom::parse(four);
    CHECK(only(p4, "request_duration_microseconds_sum").value == 1756047.3);

    using E = prom::parse_errc;
    struct invalid_case {
      const char* file;
      std::size_t line;
      E code;
    };
    const invalid_case invalid[] = {
        {"from_test_parse_error_1", 1, E::invalid_escape},            // metric{label="\t"} 3.14
        {"from_test_parse_error_2", 2, E::unterminated_label_value},  // raw newline in value
        {"from_test_parse_error_3", 1, E::invalid_label_name},        // metric{@="bla"}
        {"from_test_parse_error_4", 1, E::reserved_label_name},
        {"from_test_parse_error_5", 1, E::expected_equals},  // label+=
        {"from_test_parse_error_6", 1, E::expected_quote},   // label=bla
        {"from_test_parse_error_7", 3, E::invalid_quantile_label},
        {"from_test_parse_error_8", 1, E::expected_label_separator},  // "bla"+
        {"from_test_parse_error_9", 1, E::invalid_timestamp},         // 3.14 2.72
        {"from_test_parse_error_10", 1, E::trailing_characters},      // 3.14 2 3
        {"from_test_parse_error_11", 1, E::invalid_value},            // blubb
        {"from_test_parse_error_12", 3, E::duplicate_help},
        {"from_test_parse_error_13", 3, E::duplicate_type},
        {"from_test_parse_error_14", 3, E::duplicate_type},  // TYPE after samples
        {"from_test_parse_error_15", 2, E::unknown_type},
        {"from_test_parse_error_16", 2, E::invalid_comment_name},  // # TYPE met-ric
        {"from_test_parse_error_17", 1, E::invalid_metric_name},
        {"from_test_parse_error_18", 1, E::invalid_metric_name},
        {"from_test_parse_error_19", 3, E::invalid_bucket_bound},
    };
    for (const invalid_case& c : invalid) {
      const std::string text = read_fixture(std::string("prometheus_common_fuzz/") + c.file);
      const prom::page p = prom::parse(text);
      REQUIRE_MESSAGE(!p.ok(), c.file);
      CHECK_MESSAGE(p.error()->line == c.line, c.file);
      CHECK_MESSAGE(p.error()->code == c.code, c.file);
      // Lenient skips the same line (error_2 also skips its second half, `line"} 3.14`).
      const prom::page lenient = prom::parse(text, {.mode = prom::parse_mode::lenient});
      REQUIRE(!lenient.skipped().empty());
      CHECK(lenient.skipped().front().line == c.line);
    }
    // from_test_parse_error_0 is "bla 3.14" with no final newline: accepted on purpose by
    // default (see docs/prometheus.md), rejected when the final newline is required.
    const std::string zero = read_fixture("prometheus_common_fuzz/from_test_parse_error_0");
    CHECK(prom::parse(zero).ok());
    CHECK(only(prom::parse(zero), "bla").value == 3.14);
    CHECK(prom::parse(zero, {.mode = prom::parse_mode::strict, .require_final_newline = true})
              .error()
              ->code == E::missing_final_newline);
  }

  TEST_CASE("prometheus: vLLM V1 page (DeepSeek / spec decode / one engine)") {
    const std::string text = read_fixture("vllm_v1_deepseek_specdecode.txt");
    const prom::page p =
        prom::parse(text, {.mode = prom::parse_mode::strict, .require_final_newline = true});
    REQUIRE(p.ok());
    // README: "519 samples in 96 families as prometheus_client counts them". prometheus_client
    // counts each sample line once and one family per # TYPE block; every family here has a
    // TYPE line and each _created series is its own gauge family, so the counts carry over.
    CHECK(p.samples().size() == 519);
    CHECK(p.families().size() == 96);
    std::size_t histograms = 0;
    for (const prom::family& f : p.families())
      histograms += f.type == prom::metric_type::histogram ? 1 : 0;
    CHECK(histograms == 17);  // README: "17 histograms with _bucket{le=...}"
    // line 21: process_virtual_memory_bytes 1.0777853952e+010
    CHECK(only(p, "process_virtual_memory_bytes").value == 10777853952.0);
    CHECK(only(p, "process_virtual_memory_bytes").line == 21);
    // line 151: vllm:prompt_tokens_total{engine="0",model_name="..."} 3.675428e+06
    CHECK(only(p, "vllm:prompt_tokens_total").value == 3675428.0);
    CHECK(family_named(p, "vllm:prompt_tokens_total").type == prom::metric_type::counter);
    // line 148: vllm:num_preemptions_created{...} 1.7888602775289934e+09
    CHECK(only(p, "vllm:num_preemptions_created").value == 1.7888602775289934e+09);
    // line 211: vllm:request_prompt_tokens_bucket{engine="0",le="1e+06",...} 26.0
    bool found_1e6 = false;
    for (const prom::sample* s : named(p, "vllm:request_prompt_tokens_bucket"))
      if (p.label_value(*s, "le") == "1e+06") found_1e6 = s->value == 26.0;
    CHECK(found_1e6);

    const std::string_view model = "deepseek-v4-flash-vision-exp-ablit-dual";
    const prom::replica_load load = prom::read_replica_load(p, prom::vllm_preset, model);
    CHECK(load.running.value == 0.0);   // vllm:num_requests_running{engine="0",...} 0.0
    CHECK(load.waiting.value == 0.0);   // vllm:num_requests_waiting{engine="0",...} 0.0
    CHECK(load.kv_usage.value == 0.0);  // vllm:kv_cache_usage_perc{engine="0",...} 0.0
    CHECK(load.kv_usage.metric == "vllm:kv_cache_usage_perc");
    CHECK(load.running.series == 1);
    CHECK(load.in_flight() == 0.0);
    CHECK(prom::read_replica_load(p, prom::vllm_preset, "other-model").running.missing ==
          prom::missing_reason::no_matching_series);

    // TTFT buckets (lines 345-357): le=0.75 -> 7, 1.0 -> 9, 2.5 -> 14, 5.0 -> 18, 20.0 -> 23,
    // 40.0 -> 25, 160.0 -> 25, 640.0 -> 26, +Inf -> 26.
    // p50: rank 13 in (1.0, 2.5] holding 9..14: 1.0 + 1.5 * (13 - 9) / 5 = 2.2.
    CHECK(*prom::ttft_quantile(p, prom::vllm_preset, 0.5, model) == doctest::Approx(2.2));
    // p90: rank 23.4 in (20, 40] holding 23..25: 20 + 20 * 0.4 / 2 = 24.
    CHECK(*prom::ttft_quantile(p, prom::vllm_preset, 0.9) == doctest::Approx(24.0));
    // p99: rank 25.74 in (160, 640] holding 25..26: 160 + 480 * 0.74 = 515.2.
    CHECK(*prom::ttft_quantile(p, prom::vllm_preset, 0.99, model) == doctest::Approx(515.2));
  }

  TEST_CASE("prometheus: vLLM V0 page without a final newline / old and new KV names") {
    const std::string text = read_fixture("vllm_v0_mixed_datadog.txt");
    REQUIRE(text.back() != '\n');  // README: "the file has no trailing newline"
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    CHECK(p.missing_final_newline());
    // last line: vllm:request_prefill_kv_computed_tokens_sum{model_name="facebook/opt-125m"} 53.0
    CHECK(p.samples().back().name == "vllm:request_prefill_kv_computed_tokens_sum");
    CHECK(p.samples().back().value == 53.0);
    CHECK(p.samples().back().line == p.line_count());
    CHECK_FALSE(
        prom::parse(text, {.mode = prom::parse_mode::strict, .require_final_newline = true}).ok());

    const prom::replica_load load =
        prom::read_replica_load(p, prom::vllm_preset, "facebook/opt-125m");
    REQUIRE(load.kv_usage.value.has_value());
    CHECK(load.kv_usage.metric == "vllm:kv_cache_usage_perc");  // the newer name wins
    CHECK(load.running.value == 0.0);  // vllm:num_requests_running{model_name=...} 0.0
    CHECK(load.waiting.value == 0.0);

    // A page with only the old name falls back to it.
    const prom::page old = prom::parse(
        "vllm:num_requests_running{model_name=\"m\"} 4.0\n"
        "vllm:num_requests_waiting{model_name=\"m\"} 2.0\n"
        "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.75\n");
    const prom::replica_load old_load = prom::read_replica_load(old, prom::vllm_preset, "m");
    CHECK(old_load.kv_usage.value == 0.75);
    CHECK(old_load.kv_usage.metric == "vllm:gpu_cache_usage_perc");
    CHECK(old_load.in_flight() == 6.0);
  }

  TEST_CASE("prometheus: SGLang pages") {
    const std::string docs = read_fixture("sglang_llama31_8b_docs.txt");
    const prom::page p = prom::parse(docs);
    REQUIRE(p.ok());
    const std::string_view model = "meta-llama/Llama-3.1-8B-Instruct";
    const prom::replica_load load = prom::read_replica_load(p, prom::sglang_preset, model);
    CHECK(load.running.value == 162.0);   // sglang:num_running_reqs{...} 162.0
    CHECK(load.waiting.value == 2826.0);  // sglang:num_queue_reqs{...} 2826.0
    CHECK(load.kv_usage.value == 0.28);   // sglang:token_usage{...} 0.28
    CHECK(load.in_flight() == 2988.0);
    // TTFT: le="30.0" -> 2513, le="+Inf" -> 11008. The median's rank 5504 lies in the +Inf
    // bucket, so histogram_quantile returns the second-highest bound, 30.
    CHECK(prom::ttft_quantile(p, prom::sglang_preset, 0.5, model) == 30.0);
    // p10: rank 1100.8 in (7.5, 10] holding 941..1330: 7.5 + 2.5 * 159.8 / 389.
    CHECK(*prom::ttft_quantile(p, prom::sglang_preset, 0.1, model) ==
          doctest::Approx(7.5 + 2.5 * 159.8 / 389.0));
    // _sum comes before the buckets:
    // sglang:time_to_first_token_seconds_sum{...} 2.3518979474117756e+06
    CHECK(only(p, "sglang:time_to_first_token_seconds_sum").value == 2.3518979474117756e+06);
    CHECK(family_named(p, "sglang:time_to_first_token_seconds").samples == 23);

    const std::string gorgo = read_fixture("sglang_qwen35_moe_gorgo.txt");
    const prom::page q = prom::parse(gorgo);
    REQUIRE(q.ok());
    CHECK(q.missing_final_newline());  // the file ends "...tp_rank=\"0\"} 2.0" with no '\n'
    const prom::replica_load qload =
        prom::read_replica_load(q, prom::sglang_preset, "Qwen/Qwen3.5-35B-A3B-FP8");
    CHECK(qload.running.value == 0.0);
    CHECK(qload.waiting.value == 0.0);
    CHECK(qload.kv_usage.value == 0.0);
    // Gauges with gt/le labels stay gauges.
    CHECK(family_named(q, "sglang:routing_key_running_req_count").type == prom::metric_type::gauge);
    // per_stage_req_latency_seconds: one histogram with a stage label, float bounds.
    // line 148: ..._bucket{...,le="0.0016200000000000001",...,stage="request_process",...} 2.0
    const prom::family& stages = family_named(q, "sglang:per_stage_req_latency_seconds");
    CHECK(stages.type == prom::metric_type::histogram);
    const auto stage_buckets = named(q, "sglang:per_stage_req_latency_seconds_bucket");
    REQUIRE(stage_buckets.size() >= 2);
    CHECK(q.label_value(*stage_buckets[1], "le") == "0.0016200000000000001");
    CHECK(stage_buckets[1]->value == 2.0);
  }

  TEST_CASE("prometheus: Prometheus project pages") {
    const std::string alltypes = read_fixture("prometheus_alltypes.237mfs.prom.txt");
    const prom::page all =
        prom::parse(alltypes, {.mode = prom::parse_mode::strict, .require_final_newline = true});
    REQUIRE(all.ok());
    // README: 237 families (112 counters, 97 gauges, 15 histograms, 13 summaries), 1,857 samples.
    CHECK(all.families().size() == 237);
    CHECK(all.samples().size() == 1857);
    std::size_t counts[5] = {};
    for (const prom::family& f : all.families()) ++counts[static_cast<int>(f.type)];
    CHECK(counts[static_cast<int>(prom::metric_type::counter)] == 112);
    CHECK(counts[static_cast<int>(prom::metric_type::gauge)] == 97);
    CHECK(counts[static_cast<int>(prom::metric_type::histogram)] == 15);
    CHECK(counts[static_cast<int>(prom::metric_type::summary)] == 13);
    CHECK(counts[static_cast<int>(prom::metric_type::untyped)] == 0);

    const std::string expfmt = read_fixture("prometheus_common_expfmt_text.txt");
    const prom::page text =
        prom::parse(expfmt, {.mode = prom::parse_mode::strict, .require_final_newline = true});
    REQUIRE(text.ok());
    CHECK(text.families().size() == 37);  // README: 37 families, 248 samples
    CHECK(text.samples().size() == 248);
  }

  TEST_CASE("prometheus: a replica with several engines") {
    const std::string_view text =
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n"
        "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 5.0\n"
        "vllm:num_requests_running{engine=\"0\",model_name=\"other\"} 100.0\n"
        "# TYPE vllm:num_requests_waiting gauge\n"
        "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 1.0\n"
        "vllm:num_requests_waiting{engine=\"1\",model_name=\"m\"} 0.0\n"
        "# TYPE vllm:kv_cache_usage_perc gauge\n"
        "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"
        "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.75\n"
        "# TYPE vllm:time_to_first_token_seconds histogram\n"
        "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"1\",model_name=\"m\"} 2\n"
        "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} 4\n"
        "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"1\",model_name=\"m\"} 6\n"
        "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"+Inf\",model_name=\"m\"} 6\n";
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const prom::replica_load load = prom::read_replica_load(p, prom::vllm_preset, "m");
    CHECK(load.running.value == 8.0);  // 3 + 5
    CHECK(load.running.series == 2);
    CHECK(load.waiting.value == 1.0);  // 1 + 0
    CHECK(load.in_flight() == 9.0);
    CHECK(load.kv_usage.value == 0.75);  // max(0.25, 0.75)
    CHECK(load.kv_usage_mean == 0.5);    // (0.25 + 0.75) / 2
    CHECK(prom::read_replica_load(p, prom::vllm_preset).running.value == 108.0);  // no filter
    // Buckets summed by le: le=1 -> 8, +Inf -> 10. Median rank 5 in (0, 1]: 1 * 5 / 8.
    CHECK(*prom::ttft_quantile(p, prom::vllm_preset, 0.5, "m") == doctest::Approx(0.625));
  }

  TEST_CASE("prometheus: missing metrics carry a reason") {
    const prom::page p = prom::parse(
        "vllm:num_requests_running{model_name=\"m\"} NaN\n"
        "vllm:num_requests_waiting{model_name=\"x\"} 1\n");
    const prom::replica_load load = prom::read_replica_load(p, prom::vllm_preset, "m");
    CHECK_FALSE(load.running.value.has_value());
    CHECK(load.running.missing == prom::missing_reason::not_finite);
    CHECK(load.waiting.missing == prom::missing_reason::no_matching_series);
    CHECK(load.kv_usage.missing == prom::missing_reason::metric_absent);
    CHECK(load.kv_usage.metric == "vllm:kv_cache_usage_perc");
    CHECK_FALSE(load.kv_usage_mean.has_value());
    CHECK_FALSE(load.in_flight().has_value());
    CHECK_FALSE(prom::ttft_quantile(p, prom::vllm_preset, 0.5).has_value());
    CHECK(prom::describe(prom::missing_reason::metric_absent) == "the metric is not on the page");

    const prom::page broken = prom::parse("vllm:num_requests_running 1\nbad line\n");
    REQUIRE_FALSE(broken.ok());
    const prom::replica_load none = prom::read_replica_load(broken, prom::vllm_preset);
    CHECK(none.running.missing == prom::missing_reason::page_invalid);
    CHECK(none.kv_usage.missing == prom::missing_reason::page_invalid);
    // Lenient: the bad line is skipped, the rest is read.
    const prom::page skipped =
        prom::parse("vllm:num_requests_running 1\nbad line\n", {.mode = prom::parse_mode::lenient});
    CHECK(prom::read_replica_load(skipped, prom::vllm_preset).running.value == 1.0);
  }

  TEST_CASE("prometheus: bucket_quantile follows PromQL histogram_quantile") {
    using B = prom::histogram_bucket;
    constexpr double inf = std::numeric_limits<double>::infinity();
    // ClickHouse quantilePrometheusHistogram docs: (0,6),(0.5,11),(1,14),(inf,19) -> 0.35
    // for the median. By hand: rank 9.5 in (0, 0.5] holding 6..11: 0 + 0.5 * 3.5 / 5.
    std::vector<B> clickhouse{{.upper_bound = 0, .cumulative_count = 6},
                              {.upper_bound = 0.5, .cumulative_count = 11},
                              {.upper_bound = 1, .cumulative_count = 14},
                              {.upper_bound = inf, .cumulative_count = 19}};
    CHECK(prom::bucket_quantile(0.5, clickhouse) == doctest::Approx(0.35));
    // Order does not matter; equal bounds are summed (sum by le).
    std::vector<B> shuffled{
        {.upper_bound = inf, .cumulative_count = 10}, {.upper_bound = 2, .cumulative_count = 5},
        {.upper_bound = 1, .cumulative_count = 2},    {.upper_bound = 2, .cumulative_count = 3},
        {.upper_bound = inf, .cumulative_count = 6},  {.upper_bound = 1, .cumulative_count = 2}};
    // le=1 -> 4, le=2 -> 8, +Inf -> 16: median rank 8 -> (1, 2] fully: 1 + 1 * 4 / 4 = 2.
    CHECK(prom::bucket_quantile(0.5, shuffled) == doctest::Approx(2.0));
    // The first bucket starts at 0: rank 1 of 4 in (0, 10] holding 0..2 -> 5.
    std::vector<B> first{{.upper_bound = 10, .cumulative_count = 2},
                         {.upper_bound = 20, .cumulative_count = 4},
                         {.upper_bound = inf, .cumulative_count = 4}};
    CHECK(prom::bucket_quantile(0.25, first) == doctest::Approx(5.0));
    // A rank in the +Inf bucket returns the second-highest bound.
    std::vector<B> tail{{.upper_bound = 10, .cumulative_count = 1},
                        {.upper_bound = 20, .cumulative_count = 2},
                        {.upper_bound = inf, .cumulative_count = 10}};
    CHECK(prom::bucket_quantile(0.9, tail) == 20.0);
    // A first bound <= 0 is returned as it is.
    std::vector<B> negative{{.upper_bound = -1, .cumulative_count = 5},
                            {.upper_bound = 0, .cumulative_count = 6},
                            {.upper_bound = inf, .cumulative_count = 10}};
    CHECK(prom::bucket_quantile(0.1, negative) == -1.0);
    // Non-monotonic counts are forced monotonic: le=2 -> 3 becomes 4.
    std::vector<B> dip{{.upper_bound = 1, .cumulative_count = 4},
                       {.upper_bound = 2, .cumulative_count = 3},
                       {.upper_bound = 3, .cumulative_count = 8},
                       {.upper_bound = inf, .cumulative_count = 8}};
    CHECK(prom::bucket_quantile(0.75, dip) == doctest::Approx(2.5));  // rank 6 in (2,3] 4..8
    // Undefined: no +Inf bucket, fewer than two buckets, no observations, NaN bound.
    std::vector<B> no_inf{{.upper_bound = 1, .cumulative_count = 1},
                          {.upper_bound = 2, .cumulative_count = 2}};
    CHECK(std::isnan(prom::bucket_quantile(0.5, no_inf)));
    std::vector<B> single{{.upper_bound = inf, .cumulative_count = 3}};
    CHECK(std::isnan(prom::bucket_quantile(0.5, single)));
    std::vector<B> zero{{.upper_bound = 1, .cumulative_count = 0},
                        {.upper_bound = inf, .cumulative_count = 0}};
    CHECK(std::isnan(prom::bucket_quantile(0.5, zero)));
    std::vector<B> nan_bound{{.upper_bound = std::nan(""), .cumulative_count = 1},
                             {.upper_bound = inf, .cumulative_count = 2}};
    CHECK(std::isnan(prom::bucket_quantile(0.5, nan_bound)));
    std::vector<B> none;
    CHECK(std::isnan(prom::bucket_quantile(0.5, none)));
    // Caller mistakes.
    CHECK_THROWS_AS((void)prom::bucket_quantile(1.5, clickhouse), headroom::invalid_argument);
    CHECK_THROWS_AS((void)prom::bucket_quantile(std::nan(""), clickhouse),
                    headroom::invalid_argument);
  }

  TEST_CASE("prometheus: caller mistakes throw invalid_argument") {
    const prom::page p = prom::parse("m 1\n");
    CHECK_THROWS_AS((void)prom::aggregate(p, ""), headroom::invalid_argument);
    CHECK_THROWS_AS((void)prom::aggregate(p, "m", "", "x"), headroom::invalid_argument);
    CHECK_THROWS_AS((void)prom::histogram_quantile(p, "", 0.5), headroom::invalid_argument);
    CHECK_THROWS_AS((void)prom::histogram_quantile(p, "h", -0.1), headroom::invalid_argument);
    CHECK(headroom::test::rejected([&] { (void)prom::aggregate(p, ""); }) == "metric");
    prom::engine_preset blank{};
    CHECK_THROWS_AS((void)prom::read_replica_load(p, blank), headroom::invalid_argument);
    const prom::series_aggregate a = prom::aggregate(p, "m");
    CHECK(a.missing == prom::missing_reason::none);
    CHECK(a.sum == 1.0);
  }
}

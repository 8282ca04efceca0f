// SPDX-License-Identifier: Apache-2.0
// A namespace per module: no public header declares a name directly in headroom:: (or
// headroom::v0) except the cross-cutting ones, the error path and the version. The check reads
// every header under include/headroom/ with a small tokenizer (comments, string and character
// literals and preprocessor lines dropped; namespaces and braces tracked) and lists the names
// declared at that level; the tokenizer itself is checked on a sample first.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifndef HEADROOM_TEST_DATA_DIR
#error "HEADROOM_TEST_DATA_DIR must name tests/data"
#endif

namespace {

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The text without comments, literals and preprocessor lines (each replaced by a space).
std::string code_of(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool line_start = true;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (line_start && c == '#') {  // a directive, with its continuation lines
      while (i < s.size() && !(s[i] == '\n' && s[i - 1] != '\\')) ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      out += ' ';
      continue;
    }
    if (c == 'R' && i + 1 < s.size() && s[i + 1] == '"' && (i == 0 || !identifier_char(s[i - 1]))) {
      const std::size_t open = s.find('(', i);
      std::string close(1, ')');  // appended, not "literal" + std::string (g++ 12 -Wrestrict)
      close.append(s.substr(i + 2, open - i - 2));
      close += '"';
      const std::size_t end = s.find(close, open);
      i = end == std::string_view::npos ? s.size() : end + close.size();
      out += " \"\" ";
      continue;
    }
    if (c == '"' ||
        (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1]))))) {
      ++i;  // a literal (a digit separator such as 1'000 is not one)
      while (i < s.size() && s[i] != c) i += s[i] == '\\' ? std::size_t{2} : std::size_t{1};
      ++i;
      out += " 0 ";
      continue;
    }
    line_start = c == '\n' || (line_start && (c == ' ' || c == '\t'));
    out += c;
    ++i;
  }
  return out;
}

std::vector<std::string> tokens_of(const std::string& code) {
  std::vector<std::string> t;
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
    } else if (identifier_char(c)) {
      std::size_t j = i;
      while (j < code.size() && identifier_char(code[j])) ++j;
      t.emplace_back(code.substr(i, j - i));
      i = j;
    } else if (c == ':' && i + 1 < code.size() && code[i + 1] == ':') {
      t.emplace_back("::");
      i += 2;
    } else {
      t.emplace_back(1, c);
      ++i;
    }
  }
  return t;
}

bool is_identifier(const std::string& s) {
  return !s.empty() && identifier_char(s[0]) && std::isdigit(static_cast<unsigned char>(s[0])) == 0;
}

// The name a namespace-level declaration declares ("" for none: a using-directive, a
// static_assert, an explicit specialization of another namespace's template).
std::string declared_name(std::vector<std::string> st) {
  // Drop attributes and a template header.
  std::vector<std::string> d;
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (st[i] == "[" && i + 1 < st.size() && st[i + 1] == "[") {
      while (i < st.size() && !(st[i] == "]" && i + 1 < st.size() && st[i + 1] == "]")) ++i;
      ++i;
      continue;
    }
    if (st[i] == "template" && i + 1 < st.size() && st[i + 1] == "<") {
      int depth = 0;
      for (++i; i < st.size(); ++i) {
        depth += st[i] == "<" ? 1 : st[i] == ">" ? -1 : 0;
        if (depth == 0) break;
      }
      continue;
    }
    d.push_back(st[i]);
  }
  if (d.empty() || d[0] == "static_assert" || d[0] == "namespace") return "";
  if (d[0] == "using")
    return d.size() > 1 && d[1] != "namespace" && is_identifier(d[1]) ? d[1] : "";
  for (std::size_t i = 0; i + 1 < d.size(); ++i)
    if (d[i] == "struct" || d[i] == "class" || d[i] == "union" || d[i] == "concept" ||
        (d[i] == "enum" && d[i + 1] != "class" && d[i + 1] != "struct")) {
      if (i + 2 < d.size() && d[i + 2] == "::") return "";  // a specialization elsewhere
      return is_identifier(d[i + 1]) ? d[i + 1] : "";
    }
  // A function: the identifier before the first '(' outside angle brackets; else a variable:
  // the last identifier before '=', '{' or the end.
  int angle = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    angle += d[i] == "<" ? 1 : d[i] == ">" ? -1 : 0;
    if (d[i] == "(" && angle <= 0) {
      if (i > 0 && d[i - 1] == "operator") return "operator";
      if (i >= 2 && d[i - 2] == "::") return "";  // a member or another namespace's name
      return i > 0 && is_identifier(d[i - 1]) ? d[i - 1] : "";
    }
    if (d[i] == "=" && angle <= 0) {  // the last identifier before it (`x[] = ...` too)
      for (std::size_t k = i; k-- > 0;)
        if (is_identifier(d[k])) return d[k];
      return "";
    }
  }
  for (std::size_t i = d.size(); i-- > 0;)
    if (is_identifier(d[i])) return d[i];
  return "";
}

// The names declared directly in headroom or headroom::v0 by `source`.
std::set<std::string> top_level_names(std::string_view source) {
  const std::vector<std::string> t = tokens_of(code_of(source));
  std::vector<std::string> scopes;  // namespace names, or "{" for any other block
  std::vector<std::size_t> opened;  // how many scopes each '{' opened (namespace a::b: 2)
  std::vector<std::string> statement;
  std::set<std::string> names;
  const auto at_top = [&] {
    return (scopes == std::vector<std::string>{"headroom"} ||
            scopes == std::vector<std::string>{"headroom", "v0"});
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "namespace" && (i + 1 < t.size()) && is_identifier(t[i + 1])) {
      std::vector<std::string> path;
      std::size_t j = i + 1;
      for (; j < t.size() && is_identifier(t[j]); j += 2) {
        path.push_back(t[j]);
        if (j + 1 >= t.size() || t[j + 1] != "::") {
          ++j;
          break;
        }
      }
      if (j < t.size() && t[j] == "{") {
        for (const std::string& p : path) scopes.push_back(p);
        opened.push_back(path.size());
        statement.clear();
        i = j;
        continue;
      }
    }
    if (t[i] == "{") {
      if (at_top()) {
        const std::string n = declared_name(statement);
        if (!n.empty()) names.insert(n);
      }
      scopes.emplace_back("{");
      opened.push_back(1);
      statement.clear();
    } else if (t[i] == "}") {
      if (!opened.empty()) {
        for (std::size_t k = 0; k < opened.back() && !scopes.empty(); ++k) scopes.pop_back();
        opened.pop_back();
      }
      statement.clear();
    } else if (t[i] == ";") {
      if (at_top()) {
        const std::string n = declared_name(statement);
        if (!n.empty()) names.insert(n);
      }
      statement.clear();
    } else if (!(scopes.empty() || scopes.back() == "{") || at_top()) {
      statement.push_back(t[i]);
    }
  }
  return names;
}

}  // namespace

TEST_SUITE("namespaces") {
  TEST_CASE("namespaces: the reader finds what a sample declares at the top") {
    const std::string sample = R"(// a comment: struct hidden {};
#define NOT_A_NAME(x) x
namespace headroom {
inline namespace v0 {
struct a { int member = 0; };
template <class T> [[nodiscard]] constexpr int b(T) { return 1'000; }
inline constexpr double c = 1.0;
inline constexpr const char h[] = "v";
using d = int;
enum class e : unsigned char { x, y };
template <class T> concept f = requires(T t) { t.g(); };
namespace module { struct inner {}; const char* s = "struct fake;"; }
namespace detail { struct helper {}; }
class g;
}  // namespace v0
}  // namespace headroom
template <> struct headroom::module::traits<int> {};
)";
    CHECK(top_level_names(sample) == std::set<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"});
  }

  TEST_CASE("namespaces: only the error path and the version are declared in headroom itself") {
    // Each module has its own namespace (scheduling, autoscaling, capacity, queueing, coldstart,
    // cost, roofline, arrivals, traces, sim, plan, prometheus, kubernetes, measurements).
    const std::set<std::string> cross_cutting{"invalid_argument", "error_handler_fn",
                                              "set_error_handler", "version_string"};
    const std::filesystem::path include =
        std::filesystem::path(HEADROOM_TEST_DATA_DIR) / ".." / ".." / "include" / "headroom";
    REQUIRE(std::filesystem::is_directory(include));
    std::size_t headers = 0;
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(include)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      ++headers;
      for (const std::string& name : top_level_names(text.str())) {
        found.insert(name);
        INFO("declared directly in headroom:: by " << entry.path().string());
        CHECK(cross_cutting.count(name) == 1);
        if (cross_cutting.count(name) == 0) MESSAGE(name);
      }
    }
    CHECK(headers > 100);
    CHECK(found == cross_cutting);  // and the reader sees them where they are
  }
}

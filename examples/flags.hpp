// SPDX-License-Identifier: Apache-2.0
// The examples' shared command line: flags, their --help, one-line failures, and output that
// is printed only once it is complete. Not part of the library (nothing under include/ uses
// it); copy it along with an example if you like.
//
// One behaviour for every example:
//  - `--help` (or -h) prints every flag with its unit, accepted range and default, exits 0;
//  - `--flag VALUE` and `--flag=VALUE` are the same; an unknown flag is "unknown flag --x";
//  - a bad value names the flag and what it accepts ("--mu must be a number in (0, 1e+09]
//    (requests/s), got 'abc'"), the same message for text that is no number and for a
//    number out of range;
//  - every failure is ONE line on stderr, "program: message", and exit status 2, with
//    nothing on stdout: an example computes everything first, then prints (output_buffer).
// Numbers are read by one function, parse_number(), locale-independent.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <headroom/detail/from_chars.hpp>

namespace example {

/// Reads a whole decimal number (sign, digits, fraction, exponent; also inf and nan) from
/// text, locale-independent; false for anything else. The examples' one number parser.
inline bool parse_number(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars refuses '+'
  if (text.empty()) return false;
  // headroom's exact parser: std::from_chars where the standard library has it for double,
  // a correctly rounded portable one elsewhere (libc++ before LLVM 20).
  const auto [end, error] =
      headroom::detail::from_chars_double(text.data(), text.data() + text.size(), out);
  return error == std::errc{} && end == text.data() + text.size();
}

/// A number as --help and messages show it: whole numbers in full (1000000), others by %g.
inline std::string show_number(double value) {
  char buffer[48];
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

/// An interval of accepted numbers: [low, high], either end open.
struct range {
  double low = 0;
  double high = 0;
  bool low_open = false;
  bool high_open = false;
  /// True when value lies inside (NaN never does).
  [[nodiscard]] bool contains(double value) const {
    return (low_open ? value > low : value >= low) && (high_open ? value < high : value <= high);
  }
  /// "(0, 1]", "[1, 1000000]".
  [[nodiscard]] std::string text() const {
    // Appended piece by piece: g++ 12's "literal" + std::string&& raises a false -Wrestrict
    // at -O3 (GCC bug 105329).
    std::string out = low_open ? "(" : "[";
    out += show_number(low);
    out += ", ";
    out += show_number(high);
    out += high_open ? ")" : "]";
    return out;
  }
};

/// Writes "program: message" and a newline to stderr and exits with status 2.
[[noreturn]] inline void fail(std::string_view program, std::string_view message) {
  std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(program.size()), program.data(),
               static_cast<int>(message.size()), message.data());
  std::exit(2);
}

/// Writes `text` to the file `path` whole or not at all: into a new file beside it, then
/// renamed over `path` (atomic on POSIX), so a failed write (a full disk, a file-size limit)
/// leaves a file already there as it was. A failure is `program`'s one-line failure.
inline void write_file(std::string_view program, const std::string& path, std::string_view text) {
  const std::string partial = path + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "wb");
  if (file == nullptr) fail(program, "cannot write '" + path + "'");
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written || std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    fail(program, "cannot write '" + path + "'");
  }
}

/// printf into a string, printed to stdout in one piece by print(): an example formats all
/// its output before any of it appears, so that a failure leaves stdout empty.
class output_buffer {
 public:
  /// Appends printf-formatted text.
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  void
  printf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (n > 0) {
      const std::size_t old = text_.size();
      text_.resize(old + static_cast<std::size_t>(n) + 1);
      std::vsnprintf(text_.data() + old, static_cast<std::size_t>(n) + 1, format, again);
      text_.resize(old + static_cast<std::size_t>(n));
    }
    va_end(again);
  }
  /// Appends text as it is.
  void append(std::string_view text) { text_.append(text); }
  /// The text so far.
  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  /// Writes the text to stdout; a failed write is a failure of `program` (one line, exit 2).
  void print(std::string_view program) const {
    if (std::fwrite(text_.data(), 1, text_.size(), stdout) != text_.size() ||
        std::fflush(stdout) != 0)
      fail(program, "cannot write to stdout");
  }

 private:
  std::string text_;
};

/// A program's flags: registered with their variable, unit, range and help, then parsed.
class flags {
 public:
  /// program: the name in messages; summary: one line for --help.
  flags(std::string program, std::string summary)
      : program_(std::move(program)), summary_(std::move(summary)) {}

  /// The program's name, as messages start.
  [[nodiscard]] const std::string& program() const noexcept { return program_; }

  /// A real number in `accepted`, in `unit` (for --help and messages).
  flags& number(std::string name, double& value, range accepted, std::string unit,
                std::string help) {
    const std::string what =
        "a number in " + accepted.text() + (unit.empty() ? "" : " (" + unit + ")");
    const bool short_unit = !unit.empty() && unit.find(' ') == std::string::npos;
    add(std::move(name), short_unit ? unit : "X", std::move(help), what, show_number(value),
        [this, &value, accepted, what](const std::string& flag, std::string_view text) {
          double v = 0;
          if (!parse_number(text, v) || !accepted.contains(v)) invalid(flag, what, text);
          value = v;
        });
    return *this;
  }

  /// A whole number in `accepted` (read as a number, then required to be whole).
  template <class Integer>
  flags& whole(std::string name, Integer& value, range accepted, std::string unit,
               std::string help) {
    const std::string what =
        "a whole number in " + accepted.text() + (unit.empty() ? "" : " (" + unit + ")");
    add(std::move(name), "N", std::move(help), what, std::to_string(value),
        [this, &value, accepted, what](const std::string& flag, std::string_view text) {
          double v = 0;
          if (!parse_number(text, v) || !accepted.contains(v) || v != std::floor(v))
            invalid(flag, what, text);
          value = static_cast<Integer>(v);  // whole and inside accepted: exact
        });
    return *this;
  }

  /// A comma-separated list of real numbers, each in `accepted`, in `unit`.
  flags& numbers(std::string name, std::vector<double>& values, range accepted, std::string unit,
                 std::string help) {
    const std::string what =
        "comma-separated numbers in " + accepted.text() + (unit.empty() ? "" : " (" + unit + ")");
    std::string shown;
    for (const double v : values) {
      if (!shown.empty()) shown += ',';
      shown += show_number(v);  // appended apart: GCC bug 105329, as in range::text
    }
    add(std::move(name), "X,...", std::move(help), what, shown,
        [this, &values, accepted, what](const std::string& flag, std::string_view text) {
          std::vector<double> read;
          for (std::size_t start = 0; start <= text.size();) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            double v = 0;
            if (!parse_number(text.substr(start, comma - start), v) || !accepted.contains(v))
              invalid(flag, what, text);
            read.push_back(v);
            start = comma + 1;
          }
          values = std::move(read);
        });
    return *this;
  }

  /// A comma-separated list of whole numbers, each in `accepted`, in `unit`.
  template <class Integer>
  flags& wholes(std::string name, std::vector<Integer>& values, range accepted, std::string unit,
                std::string help) {
    const std::string what = "comma-separated whole numbers in " + accepted.text() +
                             (unit.empty() ? "" : " (" + unit + ")");
    std::string shown;
    for (const Integer v : values) {
      if (!shown.empty()) shown += ',';
      shown += std::to_string(v);
    }
    add(std::move(name), "N,...", std::move(help), what, shown,
        [this, &values, accepted, what](const std::string& flag, std::string_view text) {
          std::vector<Integer> read;
          for (std::size_t start = 0; start <= text.size();) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            double v = 0;
            if (!parse_number(text.substr(start, comma - start), v) || !accepted.contains(v) ||
                v != std::floor(v))
              invalid(flag, what, text);
            read.push_back(static_cast<Integer>(v));  // whole and inside accepted: exact
            start = comma + 1;
          }
          values = std::move(read);
        });
    return *this;
  }

  /// Free text that may be given more than once, each use appended to `values` (files).
  flags& texts(std::string name, std::vector<std::string>& values, std::string metavar,
               std::string help, std::string shown_default = "none") {
    add(std::move(name), std::move(metavar), std::move(help), "may be repeated",
        std::move(shown_default),
        [&values](const std::string&, std::string_view text) { values.emplace_back(text); });
    return *this;
  }

  /// A flag with two values, `--name CHOICE FILE`: one of `options`, then free text (a file).
  flags& choice_and_file(std::string name, std::string& choice, std::vector<std::string> options,
                         std::string& file, std::string help) {
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
    const std::string what = "FORMAT one of " + list;  // for --help
    add(std::move(name), "FORMAT FILE", std::move(help), what, "none",
        [this, &choice, options, list](const std::string& flag, std::string_view text) {
          for (const auto& o : options)
            if (o == text) {
              choice = o;
              return;
            }
          fail(flag + " FORMAT must be one of " + list + ", got '" + std::string(text) + "'");
        });
    specs_.back().second = [&file](std::string_view text) { file = std::string(text); };
    return *this;
  }

  /// Free text (a name, a file); `metavar` names it in --help, `shown_default` what an empty
  /// value means there (default "none").
  flags& text(std::string name, std::string& value, std::string metavar, std::string help,
              std::string shown_default = "none") {
    add(std::move(name), std::move(metavar), std::move(help), "",
        value.empty() ? std::move(shown_default) : "'" + value + "'",
        [&value](const std::string&, std::string_view text) { value = std::string(text); });
    return *this;
  }

  /// One of `options`.
  flags& choice(std::string name, std::string& value, std::vector<std::string> options,
                std::string help) {
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
    const std::string what = "one of " + list;
    std::string metavar;
    for (const auto& o : options) metavar += (metavar.empty() ? "" : "|") + o;
    add(std::move(name), metavar, std::move(help), what, value,
        [this, &value, options, what](const std::string& flag, std::string_view text) {
          for (const auto& o : options)
            if (o == text) {
              value = o;
              return;
            }
          invalid(flag, what, text);
        });
    return *this;
  }

  /// A flag without a value: present means true.
  flags& toggle(std::string name, bool& value, std::string help) {
    spec s;
    s.name = std::move(name);
    s.help = std::move(help);
    s.toggle = &value;
    specs_.push_back(std::move(s));
    return *this;
  }

  /// Arguments that are not flags ("-" is one too), collected in order; without this call an
  /// argument that is not a flag is an error.
  flags& positionals(std::vector<std::string>& values, std::string metavar, std::string help) {
    positionals_ = &values;
    positional_metavar_ = std::move(metavar);
    positional_help_ = std::move(help);
    return *this;
  }

  /// Parses argv; --help prints help() and exits 0; any error is fail()ed.
  void parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(help().c_str(), stdout);
        std::exit(0);
      }
      if (arg == "-" || !arg.starts_with("-")) {
        if (positionals_ == nullptr)
          fail("unexpected argument '" + std::string(arg) + "' (see --help)");
        positionals_->emplace_back(arg);
        continue;
      }
      const std::size_t equals = arg.find('=');
      const std::string name(arg.substr(0, equals));
      const spec* s = find(name);
      if (s == nullptr) fail("unknown flag " + name + " (see --help)");
      if (s->toggle != nullptr) {
        if (equals != std::string_view::npos) fail(name + " takes no value (see --help)");
        *s->toggle = true;
        continue;
      }
      if (s->second) {  // --name CHOICE FILE: two arguments, never '='
        if (equals != std::string_view::npos || i + 2 >= argc)
          fail(name + " needs " + s->metavar + " (see --help)");
        s->set(name, argv[i + 1]);
        s->second(argv[i + 2]);
        i += 2;
        continue;
      }
      std::string_view value;
      if (equals != std::string_view::npos) {
        value = arg.substr(equals + 1);
      } else {
        if (i + 1 >= argc) fail(name + " needs a value (see --help)");
        value = argv[++i];
      }
      s->set(name, value);
    }
  }

  /// The --help text: usage, summary, then every flag with its unit, range and default.
  [[nodiscard]] std::string help() const {
    std::string out = "usage: " + program_ + (specs_.empty() ? "" : " [flags]");
    if (positionals_ != nullptr) out += " [" + positional_metavar_ + " ...]";
    out += "\n" + summary_ + "\n\n";
    // "  --flag METAVAR" in 26 columns, then the description wrapped at 96 columns.
    const auto line = [&out](const std::string& left, const std::string& right) {
      out += "  " + left;
      if (left.size() < 26) {
        out.append(26 - left.size(), ' ');
      } else {
        out += '\n';
        out.append(28, ' ');
      }
      std::size_t column = 28;
      std::size_t i = 0;
      while (i < right.size()) {
        std::size_t end = right.find(' ', i);
        if (end == std::string::npos) end = right.size();
        const std::size_t word = end - i;
        if (column > 28 && column + 1 + word > 96) {
          out += '\n';
          out.append(28, ' ');
          column = 28;
        } else if (column > 28) {
          out += ' ';
          ++column;
        }
        out.append(right, i, word);
        column += word;
        i = end + 1;
      }
      out += "\n";
    };
    if (positionals_ != nullptr) line(positional_metavar_, positional_help_);
    for (const spec& s : specs_) {
      std::string right = s.help;
      if (!s.accepts.empty()) right += "; " + s.accepts;
      if (s.toggle == nullptr) right += " (default " + s.shown_default + ")";
      line(s.toggle != nullptr ? s.name : s.name + " " + s.metavar, right);
    }
    line("--help, -h", "this text");
    return out;
  }

  /// "program: message" on stderr, exit 2.
  [[noreturn]] void fail(std::string_view message) const { example::fail(program_, message); }

 private:
  struct spec {
    std::string name;
    std::string metavar;
    std::string help;
    std::string accepts;        // "a number in (0, 1]", "one of table, csv"; "" for text
    std::string shown_default;  // as --help shows it
    std::function<void(const std::string&, std::string_view)> set;
    std::function<void(std::string_view)> second;  // a two-value flag's second value
    bool* toggle = nullptr;
  };

  void add(std::string name, std::string metavar, std::string help, std::string accepts,
           std::string shown_default,
           std::function<void(const std::string&, std::string_view)> set) {
    spec s;
    s.name = std::move(name);
    s.metavar = std::move(metavar);
    s.help = std::move(help);
    s.accepts = std::move(accepts);
    s.shown_default = std::move(shown_default);
    s.set = std::move(set);
    specs_.push_back(std::move(s));
  }
  [[nodiscard]] const spec* find(const std::string& name) const {
    for (const spec& s : specs_)
      if (s.name == name) return &s;
    return nullptr;
  }
  [[noreturn]] void invalid(const std::string& flag, const std::string& what,
                            std::string_view text) const {
    fail(flag + " must be " + what + ", got '" + std::string(text) + "'");
  }

  std::string program_;
  std::string summary_;
  std::vector<spec> specs_;
  std::vector<std::string>* positionals_ = nullptr;
  std::string positional_metavar_;
  std::string positional_help_;
};

}  // namespace example

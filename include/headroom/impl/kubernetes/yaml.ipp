// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/kubernetes/yaml.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../kubernetes/yaml.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace kubernetes {
namespace detail {

HEADROOM_DECL void append_double_quoted(std::string& out, std::string_view value) {
  static constexpr char hex[] = "0123456789abcdef";
  const auto escape = [&out](char kind, char32_t code, int digits) {
    out += '\\';
    out += kind;
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[(code >> shift) & 0xF];
  };
  out += '"';
  for (std::size_t i = 0; i < value.size();) {
    const char c = value[i];
    const headroom::detail::utf8_char u = headroom::detail::decode_utf8(value, i);
    if (u.length == 0) {  // not UTF-8: the byte
      escape('x', static_cast<unsigned char>(c), 2);
      ++i;
      continue;
    }
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u.code < 0x80 && !yaml_raw_safe(u.code)) {
      escape('x', u.code, 2);
    } else if (!yaml_raw_safe(u.code)) {
      escape('u', u.code, 4);  // all refused characters lie below U+10000
    } else {
      out.append(value.substr(i, u.length));
    }
    i += u.length;
  }
  out += '"';
}

HEADROOM_DECL void append_yaml_scalar(std::string& out, std::string_view s) {
  if (yaml_plain_safe(s)) {
    out += s;
    return;
  }
  bool printable = true;
  for (std::size_t i = 0; printable && i < s.size();) {
    const headroom::detail::utf8_char u = headroom::detail::decode_utf8(s, i);
    printable = u.length != 0 && yaml_raw_safe(u.code);
    i += u.length == 0 ? 1 : u.length;
  }
  if (printable) {
    out += '\'';
    for (const char c : s) {
      if (c == '\'') out += '\'';
      out += c;
    }
    out += '\'';
    return;
  }
  append_double_quoted(out, s);
}

HEADROOM_DECL std::string decimal_milli(double value) {
  const auto milli = static_cast<std::int64_t>(
      std::llround(value * static_cast<double>(autoscaling::milli_per_unit)));
  std::string s = std::to_string(milli / autoscaling::milli_per_unit);
  std::int64_t frac = milli % autoscaling::milli_per_unit;
  if (frac != 0) {
    int digits = 3;  // of a milli-unit fraction
    while (frac % 10 == 0) {
      frac /= 10;
      --digits;
    }
    std::string f = std::to_string(frac);
    s += '.';
    s.append(static_cast<std::size_t>(digits) - f.size(), '0');
    s += f;
  }
  return s;
}

HEADROOM_DECL auto yaml_writer::comment(std::string_view text) -> void {
  out_ += "# ";
  out_ += text;
  out_ += '\n';
}

HEADROOM_DECL auto yaml_writer::open(int indent, std::string_view key) -> void {
  start(indent);
  out_ += key;
  out_ += ":\n";
}

HEADROOM_DECL auto yaml_writer::string(int indent, std::string_view key, std::string_view value)
    -> void {
  start(indent);
  out_ += key;
  out_ += ": ";
  append_yaml_scalar(out_, value);
  out_ += '\n';
}

HEADROOM_DECL auto yaml_writer::integer(int indent, std::string_view key, std::int64_t value)
    -> void {
  start(indent);
  out_ += key;
  out_ += ": ";
  out_ += std::to_string(value);
  out_ += '\n';
}

HEADROOM_DECL auto yaml_writer::item(int indent) -> void {
  out_.append(static_cast<std::size_t>(indent), ' ');
  out_ += "- ";
  item_ = true;
}

HEADROOM_DECL auto yaml_writer::start(int indent) -> void {
  if (!item_) out_.append(static_cast<std::size_t>(indent), ' ');
  item_ = false;
}

}  // namespace detail
}  // namespace kubernetes
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

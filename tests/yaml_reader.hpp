// SPDX-License-Identifier: Apache-2.0
// The unit tests' YAML reader: libyaml (Debian's libyaml-dev, a test-only dependency; the C
// parser PyYAML is built on) behind a plain tree, so that the manifest tests assert values at
// paths, read by a real YAML parser. yaml_reader.cpp is the one translation unit that
// includes it; every parser error becomes a message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace headroom::test {

/// One YAML node: a scalar (with whether it was quoted), a mapping or a sequence.
struct yaml_node {
  enum class kind { null, scalar, map, seq } type = kind::null;
  std::string value;              ///< a scalar's text, escapes decoded
  bool quoted = false;            ///< a scalar written '...' or "..." (not plain)
  std::vector<std::string> keys;  ///< a mapping's keys (scalars), index-aligned with items
  std::vector<yaml_node> items;   ///< mapping values or sequence entries
};

/// The outcome of reading one YAML document.
struct yaml_document {
  yaml_node root;
  std::string error;  ///< empty when the text is one valid document without duplicate keys
};

/// Reads text as exactly one YAML document with libyaml; a syntax error, a second
/// document, a non-scalar key or a key repeated in one mapping is an error.
yaml_document read_yaml(std::string_view text);

}  // namespace headroom::test

// SPDX-License-Identifier: Apache-2.0
// libyaml (Debian's libyaml-dev, the C parser PyYAML is built on) behind
// tests/yaml_reader.hpp. A C library, so the reader links the same under libstdc++ and libc++.
// See the header.
#include "yaml_reader.hpp"

#include <yaml.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace headroom::test {
namespace {

// A plain scalar YAML reads as null (the core schema's null: empty, ~, null, Null, NULL).
bool plain_null(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

// Converts node `id` of `document`; false (with error set) on a non-scalar or repeated key.
bool convert(yaml_document_t& document, int id, yaml_node& out, std::string& error, int depth) {
  if (depth > 256) {
    error = "nesting deeper than 256";
    return false;
  }
  const yaml_node_t* node = yaml_document_get_node(&document, id);
  if (node == nullptr) return true;  // an empty document: null
  switch (node->type) {
    case YAML_SCALAR_NODE: {
      const std::string_view text(reinterpret_cast<const char*>(node->data.scalar.value),
                                  node->data.scalar.length);
      const auto style = node->data.scalar.style;
      out.quoted =
          style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
      if (style == YAML_PLAIN_SCALAR_STYLE && plain_null(text)) return true;
      out.type = yaml_node::kind::scalar;
      out.value = std::string(text);
      return true;
    }
    case YAML_MAPPING_NODE:
      out.type = yaml_node::kind::map;
      for (auto* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
           ++pair) {
        const yaml_node_t* key = yaml_document_get_node(&document, pair->key);
        if (key == nullptr || key->type != YAML_SCALAR_NODE) {
          error = "a mapping key that is not a scalar";
          return false;
        }
        std::string name(reinterpret_cast<const char*>(key->data.scalar.value),
                         key->data.scalar.length);
        for (const std::string& seen : out.keys)
          if (seen == name) {
            error = "duplicate key '" + name + "'";
            return false;
          }
        out.keys.push_back(std::move(name));
        out.items.emplace_back();
        if (!convert(document, pair->value, out.items.back(), error, depth + 1)) return false;
      }
      return true;
    case YAML_SEQUENCE_NODE:
      out.type = yaml_node::kind::seq;
      for (auto* item = node->data.sequence.items.start; item < node->data.sequence.items.top;
           ++item) {
        out.items.emplace_back();
        if (!convert(document, *item, out.items.back(), error, depth + 1)) return false;
      }
      return true;
    case YAML_NO_NODE:
      return true;
  }
  return true;
}

std::string parser_error(const yaml_parser_t& parser) {
  std::string message = parser.problem != nullptr ? parser.problem : "libyaml error";
  message += " at line " + std::to_string(parser.problem_mark.line + 1) + ", column " +
             std::to_string(parser.problem_mark.column + 1);
  if (parser.context != nullptr) message = std::string(parser.context) + ": " + message;
  return message;
}

}  // namespace

yaml_document read_yaml(std::string_view text) {
  yaml_document doc;
  yaml_parser_t parser;
  if (yaml_parser_initialize(&parser) == 0) {
    doc.error = "libyaml: cannot initialise a parser";
    return doc;
  }
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  yaml_document_t first;
  if (yaml_parser_load(&parser, &first) == 0) {
    doc.error = parser_error(parser);
    yaml_parser_delete(&parser);
    return doc;
  }
  if (!convert(first, 1, doc.root, doc.error, 0)) doc.root = {};
  yaml_document_delete(&first);
  if (doc.error.empty()) {
    // Exactly one document: the next load must find the end of the stream (no root node).
    yaml_document_t second;
    if (yaml_parser_load(&parser, &second) == 0) {
      doc.error = parser_error(parser);
    } else {
      if (yaml_document_get_root_node(&second) != nullptr) doc.error = "more than one document";
      yaml_document_delete(&second);
    }
  }
  yaml_parser_delete(&parser);
  return doc;
}

}  // namespace headroom::test

// SPDX-License-Identifier: Apache-2.0
// yaml-cpp behind tests/yaml_reader.hpp. See the header.
#include "yaml_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::test {
namespace {

yaml_node convert(const YAML::Node& node) {
  yaml_node out;
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.type = yaml_node::kind::scalar;
      out.value = node.Scalar();
      out.quoted = node.Tag() == "!";  // yaml-cpp's non-specific tag of a quoted scalar
      break;
    case YAML::NodeType::Map:
      out.type = yaml_node::kind::map;
      for (const auto& pair : node) {
        if (!pair.first.IsScalar()) throw std::runtime_error("a mapping key that is not a scalar");
        const std::string key = pair.first.Scalar();
        for (const std::string& seen : out.keys)
          if (seen == key) throw std::runtime_error("duplicate key '" + key + "'");
        out.keys.push_back(key);
        out.items.push_back(convert(pair.second));
      }
      break;
    case YAML::NodeType::Sequence:
      out.type = yaml_node::kind::seq;
      for (const auto& item : node) out.items.push_back(convert(item));
      break;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return out;
}

}  // namespace

yaml_document read_yaml(std::string_view text) {
  yaml_document doc;
  try {
    const std::vector<YAML::Node> all = YAML::LoadAll(std::string(text));
    if (all.size() != 1) throw std::runtime_error(std::to_string(all.size()) + " documents");
    doc.root = convert(all.front());
  } catch (const std::exception& e) {
    doc.error = e.what();
    if (doc.error.empty()) doc.error = "yaml-cpp error";
  }
  return doc;
}

}  // namespace headroom::test

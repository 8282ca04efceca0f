// SPDX-License-Identifier: Apache-2.0
// Misuse: a search_capacity measure that takes neither a capacity_probe nor a rate.
// expect: headroom: search_capacity's measure must be callable
#include <headroom/capacity.hpp>

#include <string>

int main() {
  const auto measure = [](const std::string&) { return 0.9; };
  (void)headroom::capacity::search_capacity(measure, {});
}

// SPDX-License-Identifier: Apache-2.0
// Built against an installed headroom: the umbrella header must be found and usable.
#include <headroom/headroom.hpp>

#include <cstdio>
#include <cstring>

int main() {
  std::printf("headroom %s\n", headroom::version_string);
  return std::strcmp(headroom::version_string, "0.1.0") == 0 && HEADROOM_VERSION == 100 ? 0 : 1;
}

// SPDX-License-Identifier: Apache-2.0
// Must not compile: the same swap in a positional brace list.
// first error names: erlang_c
#include <cstdint>

#include <headroom/queueing.hpp>

int main() {
  const std::int64_t servers = 10;
  const double offered_load = 8.0;  // Erlangs
#if defined(HEADROOM_NAMED)
  const double wait =
      headroom::queueing::erlang_c({.servers = servers, .offered_load = offered_load});
#else
  const double wait = headroom::queueing::erlang_c({offered_load, servers});
#endif
  return wait < 1.0 ? 0 : 1;
}

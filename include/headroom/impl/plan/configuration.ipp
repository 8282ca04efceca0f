// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/configuration.hpp's non-template functions: included at the end
// of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/configuration.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL std::vector<configuration> enumerate(const grid& g) {
  std::vector<configuration> all;
  all.reserve(g.accelerators.size() * g.tensor_parallel.size() * g.max_batch.size() *
              g.max_batched_tokens.size() * g.prefill.size() * g.kv.size());
  for (std::size_t a = 0; a < g.accelerators.size(); ++a)
    for (const auto tp : g.tensor_parallel)
      for (const auto b : g.max_batch)
        for (const auto t : g.max_batched_tokens)
          for (const auto p : g.prefill)
            for (const auto k : g.kv) all.push_back({all.size(), a, tp, b, t, p, k});
  return all;
}

HEADROOM_DECL std::string key(const grid& g, const configuration& c) {
  std::string k(g.accelerators.at(c.accelerator).spec.name);
  k += "/tp" + std::to_string(c.tensor_parallel);
  k += "/b" + std::to_string(c.max_batch);
  k += "/t" + std::to_string(c.max_batched_tokens);
  k += '/';
  k += to_string(c.prefill);
  k += '/';
  k += to_string(c.kv);
  return k;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

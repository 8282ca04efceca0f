// SPDX-License-Identifier: Apache-2.0
// detail::parallel_for: every index exactly once on any thread count, and the first
// exception of a call rethrown on the calling thread after every thread has stopped.
#include <headroom/detail/parallel.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace hd = headroom::detail;

TEST_SUITE("parallel") {
  TEST_CASE("parallel_for calls the body once for each index, on any thread count") {
    for (const std::size_t threads :
         {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
      std::vector<std::atomic<int>> calls(97);
      auto body = [&](std::size_t i) { calls[i].fetch_add(1); };
      hd::parallel_for(calls.size(), threads, body);
      for (std::size_t i = 0; i < calls.size(); ++i)
        CHECK_MESSAGE(calls[i].load() == 1, "index " << i);
    }
    int none = 0;
    auto never = [&](std::size_t) { ++none; };
    hd::parallel_for(0, 4, never);
    CHECK(none == 0);
  }

#if defined(__cpp_exceptions)
  TEST_CASE("parallel_for rethrows a body's exception after every thread has stopped") {
    std::atomic<int> running{0};
    auto body = [&](std::size_t i) {
      running.fetch_add(1);
      if (i == 5) {
        running.fetch_sub(1);
        throw std::runtime_error("index 5");
      }
      running.fetch_sub(1);
    };
    CHECK_THROWS_WITH_AS(hd::parallel_for(200, 3, body), "index 5", std::runtime_error);
    CHECK(running.load() == 0);  // no call still in flight when the exception arrives
  }
#endif
}

// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/detail/parallel.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../detail/parallel.hpp"

#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace headroom {
inline namespace v0 {
namespace detail {

HEADROOM_DECL void parallel_for(std::size_t count, std::size_t threads, index_function body) {
  if (threads == 0) threads = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, std::max<std::size_t>(1, count));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  std::exception_ptr error;  // the first, written by one thread only (guarded by `failed`)
#endif
  auto work = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= count) return;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
      try {
        body(i);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
        return;
      }
#else
      body(i);
#endif
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (error) std::rethrow_exception(error);
#endif
}

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

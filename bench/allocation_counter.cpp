// SPDX-License-Identifier: Apache-2.0
// The counting global operator new of the benchmark executable (bench/allocation_counter.hpp).
#include "allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::uint64_t> allocation_count{0};
std::atomic<std::uint64_t> allocation_bytes{0};
}  // namespace

void* operator new(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  allocation_bytes.fetch_add(size, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// Nothing in this file calls new or delete, so no caller sees malloc paired with free here.
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace headroom_bench {
std::uint64_t allocations() noexcept { return allocation_count.load(std::memory_order_relaxed); }
std::uint64_t allocated_bytes() noexcept {
  return allocation_bytes.load(std::memory_order_relaxed);
}
}  // namespace headroom_bench

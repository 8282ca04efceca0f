// SPDX-License-Identifier: Apache-2.0
// The benchmark executable replaces the global operator new with a counting pass-through to
// malloc (bench/allocation_counter.cpp, the one definition): benchmarks read the counts
// before and after their timed loops to prove a steady state that does not allocate, or a
// memory use that does not grow with the input. The count adds one relaxed atomic increment
// per allocation, so the other benchmarks are unaffected in practice. Aligned allocations
// (operator new with std::align_val_t) are not counted.
#pragma once

#include <cstdint>

namespace headroom_bench {

/// Calls of the global operator new (and new[]) since the program started.
std::uint64_t allocations() noexcept;
/// Bytes asked of the global operator new (and new[]) since the program started.
std::uint64_t allocated_bytes() noexcept;

}  // namespace headroom_bench

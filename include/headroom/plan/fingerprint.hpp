// SPDX-License-Identifier: Apache-2.0
// The fingerprint of a planning problem: shards of one grid share it, and a merge
// refuses rows whose fingerprints differ.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "../capacity.hpp"
#include "../version.hpp"
#include "calibrations.hpp"
#include "configuration.hpp"
#include "lengths.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

namespace detail {
HEADROOM_DECL void append_number(std::string& out, double v);
HEADROOM_DECL void append_number(std::string& out, std::uint64_t v);
HEADROOM_DECL void append_number(std::string& out, std::int64_t v);
HEADROOM_DECL void hash_text(std::uint64_t& h, std::string_view text) noexcept;
HEADROOM_DECL void hash_number(std::uint64_t& h, double v);
}  // namespace detail

/// A 64-bit FNV-1a fingerprint of everything that decides a problem's rows: the library
/// version, every field of the problem (each number in shortest round-trip form, every
/// traffic rate) and the length statistics (which stand in for the sampler). Shards of one
/// grid share it; a merge refuses rows whose fingerprints differ.
[[nodiscard]] HEADROOM_DECL std::uint64_t fingerprint(const problem& p, const length_statistics& l);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/fingerprint.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

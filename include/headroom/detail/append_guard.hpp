// SPDX-License-Identifier: Apache-2.0
// The strong guarantee for the library's writers (docs/errors.md): a writer that appends to
// the caller's string in several pieces, and may refuse an input or run out of memory midway,
// takes back what it appended, so a refused call leaves the output exactly as it was.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <string>

namespace headroom {
inline namespace v0 {
namespace detail {

/// Remembers a string's length and restores it on destruction unless commit() was called:
/// declare it before the first append, commit after the last.
class append_guard {
 public:
  explicit append_guard(std::string& out) noexcept : out_(out), size_(out.size()) {}
  append_guard(const append_guard&) = delete;
  append_guard& operator=(const append_guard&) = delete;
  ~append_guard() {
    if (!committed_) out_.resize(size_);  // shrinking: no allocation, cannot throw
  }
  /// The appends are complete: keep them.
  void commit() noexcept { committed_ = true; }

 private:
  std::string& out_;
  std::size_t size_;
  bool committed_ = false;
};

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

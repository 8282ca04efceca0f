// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/traces/sources.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../traces/sources.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace traces {

HEADROOM_DECL auto trace_text::operator()(char* buffer, std::size_t capacity) noexcept
    -> std::size_t {
  const std::size_t n = capacity < text_.size() ? capacity : text_.size();
  if (n > 0) std::memcpy(buffer, text_.data(), n);
  text_.remove_prefix(n);
  return n;
}

HEADROOM_DECL trace_file::trace_file(std::string path) : path_(std::move(path)) {
  errno = 0;
  file_ = std::fopen(path_.c_str(), "rb");
  if (file_ == nullptr) {
    const int error = errno;
    std::string why = "cannot be opened for reading";
    if (error != 0) why += ": " + std::generic_category().message(error);
    detail::fail("path", path_, why);
  }
}

HEADROOM_DECL auto trace_file::operator=(trace_file&& other) noexcept -> trace_file& {
  if (this != &other) {
    close();
    file_ = std::exchange(other.file_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

HEADROOM_DECL auto trace_file::close() noexcept -> void {
  if (file_ != nullptr) static_cast<void>(std::fclose(file_));
  file_ = nullptr;
}

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

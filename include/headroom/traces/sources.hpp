// SPDX-License-Identifier: Apache-2.0
// Sources of trace bytes: in-memory text, a file, a std::istream, or any callable filling a
// buffer.
// Part of the trace readers (include/headroom/traces.hpp); formats and a worked example:
// docs/traces.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cerrno>
#include <concepts>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "../detail/checks.hpp"
#include "../error.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
namespace traces {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

/// A source of trace bytes: s(buffer, capacity) writes at most capacity bytes to buffer and
/// returns how many, 0 at the end. Optional members: failed() (true after a read error, asked
/// when 0 comes back) and name() (the file's name in error messages).
template <class S>
concept TraceSource = requires(S& source, char* buffer, std::size_t capacity) {
  { source(buffer, capacity) } -> std::convertible_to<std::size_t>;
};

/// An in-memory trace (tests, embedded data). Holds a view: keep the text alive.
class trace_text {
 public:
  /// The whole trace, as it would be in a file.
  explicit constexpr trace_text(std::string_view text) noexcept : text_(text) {}
  /// Copies the next bytes.
  HEADROOM_DECL std::size_t operator()(char* buffer, std::size_t capacity) noexcept;

 private:
  std::string_view text_;
};

/// A trace file, opened for binary reading (line ends are the reader's business); closes on
/// destruction. Move-only.
class trace_file {
 public:
  /// Opens path; throws invalid_argument naming `path` (with the system's reason) if it cannot.
  HEADROOM_DECL explicit trace_file(std::string path);
  trace_file(const trace_file&) = delete;
  trace_file& operator=(const trace_file&) = delete;
  /// Takes the other's file; the other is left closed.
  trace_file(trace_file&& other) noexcept
      : file_(std::exchange(other.file_, nullptr)), path_(std::move(other.path_)) {}
  /// Closes this file, then takes the other's.
  HEADROOM_DECL trace_file& operator=(trace_file&& other) noexcept;
  ~trace_file() { close(); }

  /// Reads the next bytes (0 at the end, or after an error: see failed()).
  std::size_t operator()(char* buffer, std::size_t capacity) noexcept {
    return file_ == nullptr ? 0 : std::fread(buffer, 1, capacity, file_);
  }
  /// True after a read error.
  [[nodiscard]] bool failed() const noexcept { return file_ == nullptr || std::ferror(file_) != 0; }
  /// The path, for error messages.
  [[nodiscard]] std::string_view name() const noexcept { return path_; }

 private:
  HEADROOM_DECL void close() noexcept;
  std::FILE* file_ = nullptr;
  std::string path_;
};

/// A stream with read(char*, n), gcount() and bad(): std::istream, std::ifstream and the like.
template <class S>
concept TraceStream = requires(S& stream, char* buffer) {
  stream.read(buffer, 1);
  { stream.gcount() } -> std::integral;
  { stream.bad() } -> std::convertible_to<bool>;
};

/// A TraceSource over a stream (std::ifstream opened in binary mode, std::istringstream).
/// Holds a reference: keep the stream alive.
template <TraceStream Stream>
class trace_stream {
 public:
  /// Reads from stream.
  explicit trace_stream(Stream& stream) noexcept : stream_(&stream) {}
  /// Reads the next bytes.
  std::size_t operator()(char* buffer, std::size_t capacity) {
    using count = decltype(stream_->gcount());
    stream_->read(buffer, static_cast<count>(capacity));
    const count got = stream_->gcount();
    return got > 0 ? static_cast<std::size_t>(got) : 0;
  }
  /// True after a read error (badbit; reaching the end is not an error).
  [[nodiscard]] bool failed() const { return static_cast<bool>(stream_->bad()); }

 private:
  Stream* stream_;
};

}  // namespace traces
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/traces/sources.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

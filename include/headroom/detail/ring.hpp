// SPDX-License-Identifier: Apache-2.0
// A growable double-ended circular buffer (internal): the autoscaler's stabilization windows
// and the simulated replica's admission queue.
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

namespace headroom {
inline namespace v0 {
namespace detail {

/// A growable circular buffer (capacity a power of two): push and pop at either end in O(1),
/// no allocation once reserve() has made room; equality compares the contents.
template <class T>
class ring {
 public:
  /// Makes room for n entries without reallocating later.
  void reserve(std::size_t n) {
    if (n > buffer_.size()) regrow(std::bit_ceil(n));
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.size(); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept {
    return buffer_[(head_ + i) & (buffer_.size() - 1)];
  }
  [[nodiscard]] T& operator[](std::size_t i) noexcept {
    return buffer_[(head_ + i) & (buffer_.size() - 1)];
  }
  [[nodiscard]] const T& front() const noexcept { return buffer_[head_]; }
  [[nodiscard]] const T& back() const noexcept { return (*this)[size_ - 1]; }
  [[nodiscard]] T& back() noexcept { return (*this)[size_ - 1]; }
  /// The storage's address: unchanged while no push reallocates.
  [[nodiscard]] const T* data() const noexcept { return buffer_.data(); }
  void push_back(const T& value) {
    if (size_ == buffer_.size()) regrow(std::max<std::size_t>(4, 2 * buffer_.size()));
    buffer_[(head_ + size_) & (buffer_.size() - 1)] = value;
    ++size_;
  }
  void push_front(const T& value) {
    if (size_ == buffer_.size()) regrow(std::max<std::size_t>(4, 2 * buffer_.size()));
    head_ = (head_ - 1) & (buffer_.size() - 1);
    buffer_[head_] = value;
    ++size_;
  }
  void pop_front() noexcept {
    head_ = (head_ + 1) & (buffer_.size() - 1);
    --size_;
  }
  void pop_back() noexcept { --size_; }
  void clear() noexcept { head_ = size_ = 0; }
  friend bool operator==(const ring& a, const ring& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  void regrow(std::size_t capacity) {
    std::vector<T> next(capacity);
    for (std::size_t i = 0; i < size_; ++i) next[i] = (*this)[i];
    buffer_.swap(next);
    head_ = 0;
  }
  std::vector<T> buffer_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

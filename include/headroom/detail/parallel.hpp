// SPDX-License-Identifier: Apache-2.0
// A loop over indices on a pool of threads, type-erased so that a header that runs work in
// parallel does not include <thread> and <atomic> (their definitions are in
// impl/detail/parallel.ipp).
#pragma once

#include "config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <cstddef>
#include <memory>
#include <type_traits>

namespace headroom {
inline namespace v0 {
namespace detail {

/// A non-owning reference to a callable taking an index: what parallel_for runs. The
/// callable must outlive the reference.
class index_function {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, index_function>) index_function(F& f)
  noexcept  // NOLINT(google-explicit-constructor): a parameter type
      : object_(std::addressof(f)),
        call_([](void* o, std::size_t i) { (*static_cast<F*>(o))(i); }) {}
  void operator()(std::size_t i) const { call_(object_, i); }

 private:
  void* object_;
  void (*call_)(void*, std::size_t);
};

/// Calls body(i) once for each i in [0, count), on `threads` threads (0: the hardware's
/// concurrency; never more threads than indices), the calling thread among them. The first
/// exception thrown by a call stops the others from taking new indices and is rethrown here
/// once every thread has stopped.
HEADROOM_DECL void parallel_for(std::size_t count, std::size_t threads, index_function body);

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/detail/parallel.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20

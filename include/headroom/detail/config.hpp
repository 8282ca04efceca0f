// SPDX-License-Identifier: Apache-2.0
// The compiler configuration every headroom header includes first, before any standard
// header: the C++20 check, and one macro for each compiler-specific spelling the library
// uses (GCC and Clang spell them one way, MSVC another, any other compiler gets the portable
// no-op). No other header of the library names a compiler extension.
#pragma once

/// The language version the compiler implements: __cplusplus, or _MSVC_LANG where MSVC
/// leaves __cplusplus at 199711L (without /Zc:__cplusplus).
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define HEADROOM_CPLUSPLUS _MSVC_LANG
#else
#define HEADROOM_CPLUSPLUS __cplusplus
#endif

/// 1 when the compiler is in C++20 mode or later. Below C++20 every header of the library
/// compiles to nothing after the one #error below (this header is included once per
/// translation unit), so a C++17 build reports exactly one error, this one.
#if HEADROOM_CPLUSPLUS >= 202002L
#define HEADROOM_HAS_CXX20 1
#else
#define HEADROOM_HAS_CXX20 0
#error "headroom needs C++20: compile with -std=c++20 (GCC, Clang) or /std:c++20 (MSVC), or later"
#endif

#if HEADROOM_HAS_CXX20

// HEADROOM_DECL marks a function whose definition lives in headroom/impl/*.ipp: inline in the
// header-only mode (the default); with HEADROOM_SEPARATE_COMPILATION defined, a plain
// declaration, defined once by headroom/src.hpp (the CMake target headroom::compiled).
#if defined(HEADROOM_SEPARATE_COMPILATION)
#define HEADROOM_DECL
#else
#define HEADROOM_DECL inline
#endif

// HEADROOM_IMPL_INLINE marks a function defined in headroom/impl/*.ipp and called only from
// there (a step's private parts): inline in both modes, so that the compiled part inlines it
// where the header-only mode does (g++ gives an inline function a larger inlining budget).
// A translation unit that only includes the header never calls it, so needs no definition.
#define HEADROOM_IMPL_INLINE inline

/// Declares a function inline and asks the compiler to always inline it (in place of
/// `inline`): `HEADROOM_ALWAYS_INLINE void f() noexcept`.
#if defined(__GNUC__) || defined(__clang__)
#define HEADROOM_ALWAYS_INLINE [[gnu::always_inline]] inline
#elif defined(_MSC_VER)
#define HEADROOM_ALWAYS_INLINE __forceinline
#else
#define HEADROOM_ALWAYS_INLINE inline
#endif

/// Asks the CPU to start loading the cache line that holds the object at pointer p, for
/// reading. A hint: it never changes a result, and compiles to nothing where unsupported.
#if defined(__GNUC__) || defined(__clang__)
#define HEADROOM_PREFETCH(p) __builtin_prefetch(p)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define HEADROOM_PREFETCH(p) \
  _mm_prefetch(static_cast<const char*>(static_cast<const void*>(p)), _MM_HINT_T0)
#else
#define HEADROOM_PREFETCH(p) static_cast<void>(p)
#endif

// [[no_unique_address]] for the empty marker that makes a parameter struct take designated
// initializers only (detail/checks.hpp). Left out for clang++: clang++ 16 miscompiles a
// designated initializer of a struct holding such a struct (the member after the marker is
// constructed at address 0), and clang++ 14 crashes emitting a constant of one under
// -fsanitize=address,undefined (CodeGen::ConstantEmitter); without the attribute the marker
// costs one byte.
#if defined(__clang__)
#define HEADROOM_NO_UNIQUE_ADDRESS
#define HEADROOM_MARKER_TAKES_NO_SPACE 0
#else
#define HEADROOM_NO_UNIQUE_ADDRESS [[no_unique_address]]
#define HEADROOM_MARKER_TAKES_NO_SPACE 1
#endif

#endif  // HEADROOM_HAS_CXX20

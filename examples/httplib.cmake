# SPDX-License-Identifier: Apache-2.0
# Finds Debian's cpp-httplib (libcpp-httplib-dev; pkg-config module cpp-httplib) for the
# integration tests and examples/autoscale_from_prometheus.cpp, never for the library. Sets
# HEADROOM_HTTPLIB_MISSING to why it cannot be used (empty when PkgConfig::HEADROOM_HTTPLIB
# builds and links with this compiler, standard library and flags: Debian's library is built
# for libstdc++ with exceptions, so the libc++ and no-exceptions builds go without it).
find_package(Threads)
set(HEADROOM_HTTPLIB_MISSING "")
if(NOT TARGET PkgConfig::HEADROOM_HTTPLIB)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HEADROOM_HTTPLIB QUIET IMPORTED_TARGET GLOBAL cpp-httplib)
  endif()
endif()
if(NOT TARGET PkgConfig::HEADROOM_HTTPLIB)
  set(HEADROOM_HTTPLIB_MISSING "cpp-httplib not found (Debian: apt-get install libcpp-httplib-dev)")
else()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_DEFINITIONS ${HEADROOM_HTTPLIB_CFLAGS_OTHER})
  set(CMAKE_REQUIRED_INCLUDES ${HEADROOM_HTTPLIB_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LIBRARIES ${HEADROOM_HTTPLIB_LINK_LIBRARIES} Threads::Threads)
  check_cxx_source_compiles([[
#include <httplib.h>
int main() { httplib::Client c("127.0.0.1", 1); return c.is_valid() ? 0 : 1; }
]] HEADROOM_HTTPLIB_LINKS)
  unset(CMAKE_REQUIRED_DEFINITIONS)
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LIBRARIES)
  if(NOT HEADROOM_HTTPLIB_LINKS)
    set(HEADROOM_HTTPLIB_MISSING
      "cpp-httplib does not build and link with this compiler, standard library and flags")
  endif()
endif()

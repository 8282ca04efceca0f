# SPDX-License-Identifier: Apache-2.0
# A consumer that knows only pkg-config (as Meson, Make or Bazel rules do), against a staged
# `cmake --install`: `pkg-config --cflags headroom` must give the staged include path and
# -std=c++20 and nothing else, no libraries, the project's version; and those flags alone
# must compile the quick start, which then prints the README's line.
#   cmake -DPKG_CONFIG=<pkg-config> -DSTAGE=<prefix> -DVERSION=<x.y.z> -DCXX=<compiler>
#         "-DCXX_FLAGS=<the build's own flags, e.g. -stdlib=libc++>" -DQUICKSTART=<file>
#         -DWORK=<scratch dir> -P pkg_config.cmake
if(NOT PKG_CONFIG)
  message("pkg-config not found (Debian: apt-get install pkgconf): skipped")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} "${STAGE}/share/pkgconfig")
function(pkg_config out)
  execute_process(COMMAND "${PKG_CONFIG}" ${ARGN} headroom
    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} headroom failed (${rc}): ${error}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

pkg_config(version --modversion)
if(NOT version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config --modversion headroom: '${version}', expected '${VERSION}'")
endif()
pkg_config(libs --libs)
if(NOT libs STREQUAL "")
  message(FATAL_ERROR "pkg-config --libs headroom must be empty (header-only), is '${libs}'")
endif()
pkg_config(cflags --cflags)
message(STATUS "pkg-config --cflags headroom: ${cflags}")
separate_arguments(flags UNIX_COMMAND "${cflags}")
list(LENGTH flags count)
list(FIND flags "-std=c++20" std_at)
set(include_dir "")
foreach(flag IN LISTS flags)
  if(flag MATCHES "^-I(.+)$")
    file(REAL_PATH "${CMAKE_MATCH_1}" include_dir)
  endif()
endforeach()
file(REAL_PATH "${STAGE}/include" staged_include)
if(NOT count EQUAL 2 OR std_at EQUAL -1 OR NOT include_dir STREQUAL staged_include)
  message(FATAL_ERROR "pkg-config --cflags headroom: '${cflags}'; expected exactly "
                      "-I${staged_include} and -std=c++20")
endif()

separate_arguments(toolchain UNIX_COMMAND "${CXX_FLAGS}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${CXX}" ${toolchain} ${flags} "${QUICKSTART}" -o "${WORK}/quickstart"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CXX} ${toolchain} ${flags} ${QUICKSTART} failed:\n${out}")
endif()
execute_process(COMMAND "${WORK}/quickstart" RESULT_VARIABLE rc OUTPUT_VARIABLE printed)
set(expected "replicas 10, target 51.2 in flight each, 0.293 per Mtok, spot pays\n")
if(NOT rc EQUAL 0 OR NOT printed STREQUAL expected)
  message(FATAL_ERROR "the quick start printed '${printed}' (exit ${rc}); the README says '${expected}'")
endif()

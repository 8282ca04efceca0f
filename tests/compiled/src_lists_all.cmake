# SPDX-License-Identifier: Apache-2.0
# headroom/src.hpp includes every impl/*.ipp (a definitions file it missed would leave its
# functions undefined in the compiled mode), and every file it includes exists.
# Usage: cmake -DINCLUDE=<include dir> -P src_lists_all.cmake
file(READ "${INCLUDE}/headroom/src.hpp" src)
file(GLOB_RECURSE definitions RELATIVE "${INCLUDE}/headroom" "${INCLUDE}/headroom/impl/*.ipp")
if(NOT definitions)
  message(FATAL_ERROR "no impl/*.ipp under ${INCLUDE}/headroom")
endif()
foreach(d IN LISTS definitions)
  string(FIND "${src}" "#include \"${d}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "headroom/src.hpp does not include ${d}")
  endif()
endforeach()
string(REGEX MATCHALL "#include \"impl/[^\"]+\"" included "${src}")
foreach(line IN LISTS included)
  string(REGEX REPLACE "#include \"(.*)\"" "\\1" path "${line}")
  if(NOT EXISTS "${INCLUDE}/headroom/${path}")
    message(FATAL_ERROR "headroom/src.hpp includes ${path}, which does not exist")
  endif()
endforeach()
list(LENGTH definitions n)
message(STATUS "headroom/src.hpp includes all ${n} definitions files")

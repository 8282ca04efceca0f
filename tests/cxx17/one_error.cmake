# SPDX-License-Identifier: Apache-2.0
# Below C++20 a translation unit that includes a headroom header must fail with exactly one
# error, and that error must name C++20 (not hundreds of errors from the library's code).
#   cmake -DCXX=<compiler> "-DCXX_FLAGS=<the build's own flags>" -DINCLUDE=<include dir>
#         -DHEADERS=headroom/headroom.hpp,headroom/queueing.hpp,... -DWORK=<scratch dir>
#         -P one_error.cmake
separate_arguments(toolchain UNIX_COMMAND "${CXX_FLAGS}")
string(REPLACE "," ";" HEADERS "${HEADERS}")
file(MAKE_DIRECTORY "${WORK}")
foreach(standard c++17 c++14)
  foreach(header IN LISTS HEADERS)
    set(tu "${WORK}/cxx17.cpp")
    file(WRITE "${tu}" "#include <${header}>\nint main() { return 0; }\n")
    execute_process(COMMAND "${CXX}" ${toolchain} -std=${standard} -fsyntax-only "-I${INCLUDE}" "${tu}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc EQUAL 0)
      message(FATAL_ERROR "-std=${standard} with <${header}> compiled; it must fail")
    endif()
    string(REGEX MATCHALL "[^\n]*error:[^\n]*" errors "${out}")
    list(LENGTH errors count)
    if(NOT count EQUAL 1 OR NOT errors MATCHES "C\\+\\+20")
      message(FATAL_ERROR "-std=${standard} with <${header}>: ${count} errors, expected one naming "
                          "C++20:\n${out}")
    endif()
    if(header STREQUAL "headroom/headroom.hpp" AND standard STREQUAL "c++17")
      message(STATUS "${CXX} -std=c++17, <headroom/headroom.hpp>: ${errors}")
    endif()
  endforeach()
endforeach()

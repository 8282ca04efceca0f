# SPDX-License-Identifier: Apache-2.0
# A user's plain configure of headroom's own tree, without the project's presets.
#   cmake -DSOURCE=<headroom> -DWORK=<scratch dir> -DCXX=<compiler> -DGENERATOR=<generator>
#         -DCHECK=<what> -P plain_configure.cmake
# CHECK is one of
#   no_werror           the examples' compile commands carry the warnings but no -Werror
#                       (warnings as errors belong to the presets and CI, not to a user);
#   no_test_dependencies  with doctest hidden, configure turns the tests off in one line and
#                       `cmake --install` installs the library; a re-configure does the same;
#                       a chosen -DHEADROOM_BUILD_TESTS=ON stops, naming doctest.
function(configure build)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}/${build}"
      -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(log "${out}${err}" PARENT_SCOPE)
endfunction()
file(REMOVE_RECURSE "${WORK}")

if(CHECK STREQUAL "no_werror")
  configure(plain -DCMAKE_BUILD_TYPE=Release -DHEADROOM_BUILD_TESTS=OFF
    -DHEADROOM_HEADER_CHECKS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "plain configure failed (${rc}):\n${log}")
  endif()
  file(READ "${WORK}/plain/compile_commands.json" commands)
  string(FIND "${commands}" "quickstart.cpp" quickstart)
  string(FIND "${commands}" "-Wall" warnings)
  if(quickstart EQUAL -1 OR warnings EQUAL -1)
    message(FATAL_ERROR "the plain configure compiles no example with the warnings:\n${commands}")
  endif()
  string(FIND "${commands}" "-Werror" werror)
  if(NOT werror EQUAL -1)
    message(FATAL_ERROR "a plain configure treats warnings as errors (HEADROOM_WARNINGS_AS_ERRORS "
      "must default to OFF):\n${commands}")
  endif()
elseif(CHECK STREQUAL "no_test_dependencies")
  set(hidden -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON -DHEADROOM_BUILD_EXAMPLES=OFF
    -DHEADROOM_HEADER_CHECKS=OFF)
  foreach(round first again)  # a re-configure reads the cache and must decide the same
    configure(defaulted ${hidden})
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${round} configure without doctest failed (${rc}):\n${log}")
    endif()
    string(REGEX MATCHALL "headroom: tests off: doctest[^\n]*\n" said "${log}")
    list(LENGTH said lines)
    if(NOT lines EQUAL 1)
      message(FATAL_ERROR "${round} configure: expected one line 'headroom: tests off: doctest...':\n${log}")
    endif()
  endforeach()
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${WORK}/defaulted" --prefix "${WORK}/stage"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}${err}")
  endif()
  foreach(file include/headroom/headroom.hpp share/cmake/headroom/headroom-config.cmake
               share/pkgconfig/headroom.pc)
    if(NOT EXISTS "${WORK}/stage/${file}")
      message(FATAL_ERROR "cmake --install left out ${file}")
    endif()
  endforeach()
  configure(chosen ${hidden} -DHEADROOM_BUILD_TESTS=ON)
  if(rc EQUAL 0 OR NOT log MATCHES "headroom's tests need doctest 2.4 or later \\(Debian: doctest-dev\\)")
    message(FATAL_ERROR "-DHEADROOM_BUILD_TESTS=ON without doctest must stop, naming it (${rc}):\n${log}")
  endif()
else()
  message(FATAL_ERROR "CHECK must be no_werror or no_test_dependencies, is '${CHECK}'")
endif()

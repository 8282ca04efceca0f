# SPDX-License-Identifier: Apache-2.0
# A misuse that swaps two quantities of one type must not compile. Each file under misuse/
# is compiled twice with the build's compiler and flags: with -DHEADROOM_NAMED (the named
# call) it must compile, without it (the misuse) it must fail, and its first error must name
# the function or type the file's "// first error names:" line says.
#   cmake -DCXX=<compiler> "-DCXX_FLAGS=<flags>" -DINCLUDE=<include dir> -DSOURCE=<file.cpp>
#         -DEXPECT=<regex> -P misuse.cmake
separate_arguments(toolchain UNIX_COMMAND "${CXX_FLAGS}")
execute_process(
  COMMAND "${CXX}" ${toolchain} -std=c++20 -fsyntax-only -DHEADROOM_NAMED -Wall -Wextra -Werror
          "-I${INCLUDE}" "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the named call in ${SOURCE} must compile:\n${out}")
endif()
execute_process(
  COMMAND "${CXX}" ${toolchain} -std=c++20 -fsyntax-only "-I${INCLUDE}" "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "the misuse in ${SOURCE} compiled; it must not")
endif()
string(REGEX MATCH "[^\n]*error:[^\n]*" first "${out}")
if(NOT first MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE}: the first error does not name ${EXPECT}:\n${out}")
endif()
message(STATUS "${first}")

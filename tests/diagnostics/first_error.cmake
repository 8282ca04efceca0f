# SPDX-License-Identifier: Apache-2.0
# A misuse of the scheduler (a type missing a member, a plugin missing a member function)
# must fail to compile with exactly one error, and that error must name what is missing:
# the text after "// expect: " in the source file.
#   cmake -DCXX=<compiler> "-DCXX_FLAGS=<the build's own flags>" -DINCLUDE=<include dir>
#         -DSOURCE=<misuse .cpp> -P first_error.cmake
separate_arguments(toolchain UNIX_COMMAND "${CXX_FLAGS}")
file(STRINGS "${SOURCE}" expect_line REGEX "^// expect: ")
string(REGEX REPLACE "^// expect: " "" expected "${expect_line}")
if(expected STREQUAL "")
  message(FATAL_ERROR "${SOURCE} has no '// expect: ' line")
endif()
execute_process(COMMAND "${CXX}" ${toolchain} -std=c++20 -fsyntax-only "-I${INCLUDE}" "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled; the misuse must fail")
endif()
string(REPLACE ";" "," listable "${out}")  # a ';' in a line would split it as a list
string(REGEX MATCHALL "[^\n]* error: [^\n]*" errors "${listable}")
list(LENGTH errors count)
list(GET errors 0 first)
string(FIND "${first}" "${expected}" at)
if(NOT count EQUAL 1 OR at EQUAL -1)
  message(FATAL_ERROR "${count} errors, expected one naming '${expected}':\n${out}")
endif()
message(STATUS "${CXX}: ${first}")

# SPDX-License-Identifier: Apache-2.0
# Runs EMIT into a fresh WORK directory, then `PROMTOOL check metrics` on every page it
# wrote: each must be accepted with nothing printed (no lint problem).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${EMIT}" "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EMIT} failed (${rc}): ${err}")
endif()
file(GLOB pages "${WORK}/*.prom")
list(LENGTH pages count)
if(count EQUAL 0)
  message(FATAL_ERROR "no pages written")
endif()
foreach(page IN LISTS pages)
  execute_process(COMMAND "${PROMTOOL}" check metrics INPUT_FILE "${page}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
    message(FATAL_ERROR "promtool check metrics on ${page}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
message(STATUS "promtool check metrics: ${count} pages clean")
file(REMOVE_RECURSE "${WORK}")

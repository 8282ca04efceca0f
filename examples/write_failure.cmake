# SPDX-License-Identifier: Apache-2.0
# A file an example writes is written whole or not at all: a write that fails (here a file-size
# limit of 0 blocks, with SIGXFSZ ignored, so write() fails with EFBIG) leaves the file that
# was there as it was, and no partial file beside it; without the limit the same run replaces it.
#   cmake -DPROGRAM=<exe> "-DARGS=a|b|c" -DFILE=<the file it writes> -DNAME=<program name>
#         -P write_failure.cmake
find_program(BASH bash REQUIRED)
string(REPLACE "|" ";" arguments "${ARGS}")
set(before "written before the run\n")
file(WRITE "${FILE}" "${before}")
file(REMOVE "${FILE}.partial")
execute_process(
  COMMAND "${BASH}" -c "trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\"" "${PROGRAM}" ${arguments}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${FILE}" after)
set(problems "")
if(NOT status EQUAL 2)
  string(APPEND problems "exit status ${status} under the limit, expected 2\n")
endif()
if(NOT err STREQUAL "${NAME}: cannot write '${FILE}'\n")
  string(APPEND problems "stderr: ${err}\n")
endif()
if(NOT out STREQUAL "")
  string(APPEND problems "stdout is not empty\n")
endif()
if(NOT after STREQUAL before)
  string(APPEND problems "the file changed under a failed write\n")
endif()
if(EXISTS "${FILE}.partial")
  string(APPEND problems "a partial file was left beside it\n")
endif()
execute_process(COMMAND "${PROGRAM}" ${arguments} RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
file(READ "${FILE}" replaced)
if(NOT status EQUAL 0 OR replaced STREQUAL before)
  string(APPEND problems "without the limit the run (status ${status}) did not replace the file\n")
endif()
if(problems)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}:\n${problems}")
endif()

# SPDX-License-Identifier: Apache-2.0
# Runs one example with arguments and checks its contract on the command line:
#   cmake -DPROGRAM=<exe> "-DARGS=a|b|c" -DEXIT=<status> [-DSTDERR=<the whole stderr line>]
#         [-DSTDOUT_EMPTY=ON] [-DSTDOUT_HAS=<text>] [-DSTDOUT_LACKS=<text>]
#         [-DINPUT=<file for stdin>]
#         -P cli_check.cmake
# ARGS separates the arguments with '|'. STDERR is the exact line the example must write,
# without its newline, and nothing else; by default stderr must be empty. STDOUT_EMPTY
# requires an empty stdout (every failure leaves it so); STDOUT_HAS requires that text in it,
# STDOUT_LACKS its absence.
if(NOT DEFINED PROGRAM OR NOT DEFINED EXIT)
  message(FATAL_ERROR "cli_check.cmake needs -DPROGRAM and -DEXIT")
endif()
set(arguments "")
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  string(REPLACE "|" ";" arguments "${ARGS}")
endif()
set(input_option "")
if(DEFINED INPUT)
  set(input_option INPUT_FILE "${INPUT}")
endif()
execute_process(COMMAND "${PROGRAM}" ${arguments} ${input_option}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(problems "")
if(NOT status STREQUAL "${EXIT}")
  string(APPEND problems "exit status ${status}, expected ${EXIT}\n")
endif()
if(DEFINED STDERR)
  if(NOT err STREQUAL "${STDERR}\n")
    string(APPEND problems "stderr is not the one line expected:\n  expected: ${STDERR}\n  got: ${err}\n")
  endif()
elseif(NOT err STREQUAL "")
  string(APPEND problems "stderr is not empty: ${err}\n")
endif()
if(STDOUT_EMPTY AND NOT out STREQUAL "")
  string(LENGTH "${out}" length)
  string(APPEND problems "stdout is not empty (${length} bytes)\n")
endif()
if(DEFINED STDOUT_HAS)
  string(FIND "${out}" "${STDOUT_HAS}" at)
  if(at EQUAL -1)
    string(APPEND problems "stdout lacks '${STDOUT_HAS}'\n")
  endif()
endif()
if(DEFINED STDOUT_LACKS)
  string(FIND "${out}" "${STDOUT_LACKS}" at)
  if(NOT at EQUAL -1)
    string(APPEND problems "stdout has '${STDOUT_LACKS}'\n")
  endif()
endif()
if(NOT problems STREQUAL "")
  string(REPLACE "|" " " shown "${ARGS}")
  message(FATAL_ERROR "${PROGRAM} ${shown}:\n${problems}")
endif()

# SPDX-License-Identifier: Apache-2.0
# Run by ctest in a consumer configured with HEADROOM_PRECOMPILE: the target's precompiled
# header was built (g++: cmake_pch.hxx.gch, clang++: cmake_pch.hxx.pch) and includes exactly
# the headers asked for.
# cmake -DDIR=<the target's CMakeFiles/<name>.dir> -DEXPECT=<ON | header,header...> -P check_precompiled.cmake
file(GLOB built "${DIR}/cmake_pch.hxx.gch" "${DIR}/cmake_pch.hxx.pch")
if(NOT built)
  message(FATAL_ERROR "no precompiled header was built in ${DIR}")
endif()
if(EXPECT STREQUAL "ON")
  set(EXPECT "headroom/headroom.hpp")
endif()
string(REPLACE "," ";" expected "${EXPECT}")
file(STRINGS "${DIR}/cmake_pch.hxx" included REGEX "^#include <")
set(wanted "")
foreach(header IN LISTS expected)
  list(APPEND wanted "#include <${header}>")
endforeach()
if(NOT included STREQUAL wanted)
  message(FATAL_ERROR "the precompiled header in ${DIR} includes '${included}', not '${wanted}'")
endif()
message(STATUS "precompiled ${built}: ${included}")

# SPDX-License-Identifier: Apache-2.0
# Run by ctest in a consumer configured with HEADROOM_PRECOMPILE=ON: the target's precompiled
# header was built (g++: cmake_pch.hxx.gch, clang++: cmake_pch.hxx.pch) and is the umbrella.
# cmake -DDIR=<the target's CMakeFiles/<name>.dir> -P check_precompiled.cmake
file(GLOB built "${DIR}/cmake_pch.hxx.gch" "${DIR}/cmake_pch.hxx.pch")
if(NOT built)
  message(FATAL_ERROR "no precompiled header was built in ${DIR}")
endif()
file(READ "${DIR}/cmake_pch.hxx" source)
if(NOT source MATCHES "#include <headroom/headroom.hpp>")
  message(FATAL_ERROR "the precompiled header in ${DIR} is not the umbrella:\n${source}")
endif()
message(STATUS "precompiled: ${built}")

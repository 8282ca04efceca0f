# SPDX-License-Identifier: Apache-2.0
# The test suite's own dependencies, all from Debian packages (docs/getting-started.md,
# "Building headroom itself"); the library needs none of them.
# headroom_find_test_dependencies(<out-var>): finds doctest, nlohmann_json and libyaml, and sets
# <out-var> to the first one missing, named with its Debian package (empty when all are found).
# A macro, so what the packages set (doctest's module path) reaches tests/ below the caller.
macro(headroom_find_test_dependencies out)
  set(${out} "")
  find_package(doctest 2.4 CONFIG QUIET)
  # Reads the committed GPUStack decisions (tests/data/gpustack).
  find_package(nlohmann_json 3 CONFIG QUIET)
  # libyaml, the C parser PyYAML is built on, reads the Kubernetes manifests back
  # (tests/yaml_reader.cpp). A C library: it links the same under libstdc++ and libc++.
  find_path(HEADROOM_LIBYAML_INCLUDE_DIR yaml.h)
  find_library(HEADROOM_LIBYAML_LIBRARY NAMES yaml)
  if(NOT doctest_FOUND)
    set(${out} "doctest 2.4 or later (Debian: doctest-dev)")
  elseif(NOT nlohmann_json_FOUND)
    set(${out} "nlohmann_json 3 (Debian: nlohmann-json3-dev)")
  elseif(NOT HEADROOM_LIBYAML_INCLUDE_DIR OR NOT HEADROOM_LIBYAML_LIBRARY)
    set(${out} "libyaml (Debian: libyaml-dev)")
  endif()
endmacro()

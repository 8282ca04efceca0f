# SPDX-License-Identifier: Apache-2.0
# The README's quick start must be examples/quickstart.cpp, literally.
# cmake -DREADME=<README.md> -DQUICKSTART=<examples/quickstart.cpp> -P readme_quickstart.cmake
file(READ "${README}" readme)
file(READ "${QUICKSTART}" quickstart)
string(FIND "${readme}" "```cpp\n${quickstart}```" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md's quick-start block is not examples/quickstart.cpp verbatim")
endif()

# SPDX-License-Identifier: Apache-2.0
# No address the project does not own: every GIT_REPOSITORY in README.md and docs/*.md is a
# <placeholder> the reader replaces with where they keep headroom.
#   cmake -DROOT=<headroom> -P docs_addresses.cmake
file(GLOB pages "${ROOT}/docs/*.md")
list(APPEND pages "${ROOT}/README.md")
set(found 0)
foreach(page IN LISTS pages)
  file(STRINGS "${page}" lines REGEX "^[ \t]*GIT_REPOSITORY")
  foreach(line IN LISTS lines)
    math(EXPR found "${found} + 1")
    if(NOT line MATCHES "GIT_REPOSITORY[ \t]+<[^>]+>")
      message(FATAL_ERROR "${page}: a GIT_REPOSITORY that is not a <placeholder>: ${line}")
    endif()
  endforeach()
endforeach()
if(found EQUAL 0)
  message(FATAL_ERROR "no GIT_REPOSITORY found in README.md or docs/: the check reads nothing")
endif()

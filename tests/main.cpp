// SPDX-License-Identifier: Apache-2.0
// The one doctest executable's entry point; test cases live in unit/ and static/.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

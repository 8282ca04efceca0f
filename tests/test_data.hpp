// SPDX-License-Identifier: Apache-2.0
// The suite's fixture files: tests/data, whose absolute path the build passes to the test
// executables as HEADROOM_TEST_DATA_DIR.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <string>

#ifndef HEADROOM_TEST_DATA_DIR
#error "HEADROOM_TEST_DATA_DIR must name the absolute path of tests/data"
#endif

namespace headroom::test {

/// The absolute path of tests/data/<relative>.
inline std::string test_data_path(const std::string& relative) {
  return std::string(HEADROOM_TEST_DATA_DIR) + "/" + relative;
}

/// The bytes of tests/data/<relative>, unchanged; fails the running test when the file
/// cannot be opened.
inline std::string read_test_data(const std::string& relative) {
  const std::string path = test_data_path(relative);
  std::string out;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out.append(buffer, n);
    std::fclose(f);
  } else {
    FAIL("cannot open test data " << path);
  }
  return out;
}

}  // namespace headroom::test

// SPDX-License-Identifier: Apache-2.0
// The local engine of fake_engine.hpp as a program, for trying measure_endpoint by hand and for
// bench/endpoint_client.sh: serves on 127.0.0.1 until stdin closes (or for --seconds), and
// prints its port on the first line of stdout.
//   headroom_fake_engine --slots 4 --law exponential --mean 0.01 --interval 0.002
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "integration/fake_engine.hpp"

int main(int argc, char** argv) {
  headroom::test::fake_engine_options o;
  double seconds = 0;  // 0: until stdin closes
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--slots") {
      o.slots = std::atoi(value);
    } else if (flag == "--law") {
      o.law = std::strcmp(value, "deterministic") == 0 ? headroom::test::service_law::deterministic
                                                       : headroom::test::service_law::exponential;
    } else if (flag == "--mean") {
      o.mean_service_seconds = std::atof(value);
    } else if (flag == "--interval") {
      o.token_interval_seconds = std::atof(value);
    } else if (flag == "--seconds") {
      seconds = std::atof(value);
    } else {
      std::fprintf(stderr,
                   "usage: headroom_fake_engine [--slots N] [--law exponential|deterministic] "
                   "[--mean SECONDS] [--interval SECONDS] [--seconds S]\n");
      return 2;
    }
  }
  if (o.slots < 1 || !(o.mean_service_seconds >= 0) || !(o.token_interval_seconds > 0)) {
    std::fprintf(stderr, "headroom_fake_engine: --slots >= 1, --mean >= 0, --interval > 0\n");
    return 2;
  }
  headroom::test::fake_engine engine(o);
  std::printf("%d\n", engine.port());
  std::fflush(stdout);
  if (seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  } else {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, stdin) != nullptr) {
    }
  }
  return 0;
}

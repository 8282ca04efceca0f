// SPDX-License-Identifier: Apache-2.0
// Readers of the measurements users already have, into capacity.hpp's request outcomes:
//   measurements/run.hpp         benchmark_run (the load, each request, the tool's summary),
//                                read_error, benchmark_file
//   measurements/vllm_bench.hpp  vLLM's `vllm bench serve --save-result [--save-detailed]`
//   measurements/guidellm.hpp    guidellm's benchmark reports (`--output-path benchmarks.json`)
//   measurements/genai_perf.hpp  NVIDIA genai-perf's profile export (`profile_export.json`)
//   measurements/format.hpp      detect_benchmark_format, read_benchmark_file (any of them)
// Includes every header of measurements/, and nothing else. docs/capacity.md, "Reading
// benchmark files".
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "measurements/format.hpp"
#include "measurements/genai_perf.hpp"
#include "measurements/guidellm.hpp"
#include "measurements/run.hpp"
#include "measurements/vllm_bench.hpp"

#endif  // HEADROOM_HAS_CXX20

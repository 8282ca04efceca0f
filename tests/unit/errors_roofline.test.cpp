// SPDX-License-Identifier: Apache-2.0
// The error policy of roofline.hpp (docs/errors.md): one TEST_CASE per row of its table.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <headroom/roofline.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::roofline;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: roofline find_accelerator") {
    CHECK_FALSE(find_accelerator("").has_value());
    CHECK_FALSE(find_accelerator("H100").has_value());
  }

  TEST_CASE("errors: roofline weight_bytes") {
    CHECK_REJECTS((weight_bytes({.parameters = not_a_number, .bytes_per_parameter = 2.0})),
                  "parameters");
    CHECK_REJECTS((weight_bytes({.parameters = -1.0, .bytes_per_parameter = 2.0})), "parameters");
    CHECK_REJECTS((weight_bytes({.parameters = 8e9, .bytes_per_parameter = 0.0})),
                  "bytes_per_parameter");
    CHECK_REJECTS((weight_bytes({.parameters = 8e9, .bytes_per_parameter = inf})),
                  "bytes_per_parameter");
  }

  TEST_CASE("errors: roofline kv_bytes_per_token") {
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 0, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0})),
        "layers");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = -1, .head_dim = 128, .dtype_bytes = 2.0})),
        "kv_heads");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = 8, .head_dim = 0, .dtype_bytes = 2.0})),
        "head_dim");
    CHECK_REJECTS((kv_bytes_per_token(
                      {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = not_a_number})),
                  "dtype_bytes");
    CHECK_REJECTS(
        (kv_bytes_per_token({.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 0.0})),
        "dtype_bytes");
  }

  TEST_CASE("errors: roofline kv_cache_bytes") {
    CHECK_REJECTS(
        (kv_cache_bytes(
            {.batch = not_a_number, .context_tokens = 2000.0, .kv_bytes_per_token = 131072.0})),
        "batch");
    CHECK_REJECTS(
        (kv_cache_bytes({.batch = 64.0, .context_tokens = -1.0, .kv_bytes_per_token = 131072.0})),
        "context_tokens");
    CHECK_REJECTS(
        (kv_cache_bytes({.batch = 64.0, .context_tokens = 2000.0, .kv_bytes_per_token = inf})),
        "kv_bytes_per_token");
    CHECK(kv_cache_bytes({.batch = 1e300, .context_tokens = 1e300, .kv_bytes_per_token = 0.0}) ==
          0.0);  // no bytes per token: 0, not inf x 0
    CHECK(std::isinf(kv_cache_bytes({.batch = 1e300,
                                     .context_tokens = 1e300,
                                     .kv_bytes_per_token = 1.0})));  // 1e600 B: beyond a double
  }

  TEST_CASE("errors: roofline min_gpus_for_weights") {
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = not_a_number, .gpu_memory_bytes = 80e9})),
                  "weight_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = -1.0, .gpu_memory_bytes = 80e9})),
                  "weight_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = 140e9, .gpu_memory_bytes = 0.0})),
                  "gpu_memory_bytes");
    CHECK_REJECTS((min_gpus_for_weights({.weight_bytes = 1e300, .gpu_memory_bytes = 1e-10})),
                  "weight_bytes");  // count > 2^62
  }

  TEST_CASE("errors: roofline mfu") {
    CHECK_REJECTS((mfu({.parameters = not_a_number,
                        .tokens_per_second = 2560.0,
                        .peak_flops_per_second = 1e15})),
                  "parameters");
    CHECK_REJECTS(
        (mfu({.parameters = 8e9, .tokens_per_second = -1.0, .peak_flops_per_second = 1e15})),
        "tokens_per_second");
    CHECK_REJECTS(
        (mfu({.parameters = 8e9, .tokens_per_second = 2560.0, .peak_flops_per_second = 0.0})),
        "peak_flops_per_second");
    const double big = std::numeric_limits<double>::max();
    CHECK(mfu({.parameters = big, .tokens_per_second = 0.0, .peak_flops_per_second = 1e15}) ==
          0.0);  // no tokens: 0, not (2 x max = inf) x 0
    CHECK(mfu({.parameters = big, .tokens_per_second = 1.0, .peak_flops_per_second = 1e15}) ==
          doctest::Approx(2.0 * (big / 1e15)));  // 2 N_p overflowed
  }

  TEST_CASE("errors: roofline decode_bandwidth and mbu") {
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = not_a_number, .kv_bytes = 0.0, .tpot = 25ms})),
                  "weight_bytes");
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = 16e9, .kv_bytes = -1.0, .tpot = 25ms})),
                  "kv_bytes");
    CHECK_REJECTS((decode_bandwidth({.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = 0s})), "tpot");
    CHECK_REJECTS(
        (mbu({.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = 25ms, .peak_bytes_per_second = 0.0})),
        "peak_bytes_per_second");
    CHECK_REJECTS(
        (mbu(
            {.weight_bytes = 16e9, .kv_bytes = 0.0, .tpot = -25ms, .peak_bytes_per_second = 3e12})),
        "tpot");
    const double big = std::numeric_limits<double>::max();
    // (max + max) / 10 s = max / 5 B/s: the sum overflowed where the quotient does not.
    CHECK(decode_bandwidth({.weight_bytes = big, .kv_bytes = big, .tpot = 10s}) ==
          doctest::Approx(big / 5.0));
    CHECK(mbu({.weight_bytes = big, .kv_bytes = big, .tpot = 10s, .peak_bytes_per_second = big}) ==
          doctest::Approx(0.2));
  }

  TEST_CASE("errors: roofline ridge_point") {
    CHECK_REJECTS(
        (ridge_point({.peak_flops_per_second = not_a_number, .peak_bytes_per_second = 3e12})),
        "peak_flops_per_second");
    CHECK_REJECTS((ridge_point({.peak_flops_per_second = 1e15, .peak_bytes_per_second = 0.0})),
                  "peak_bytes_per_second");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS(ridge_point(s), "peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = not_a_number;
    CHECK_REJECTS(ridge_point(s), "peak_bytes_per_second");
  }

  TEST_CASE("errors: roofline decode_intensity") {
    CHECK_REJECTS((decode_intensity({.parameters = not_a_number,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "parameters");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = -1.0,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "weight_bytes");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = -1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "batch");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = inf,
                                     .kv_bytes_per_token = 131072.0})),
                  "context_tokens");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 16e9,
                                     .batch = 1.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = -1.0})),
                  "kv_bytes_per_token");
    CHECK_REJECTS((decode_intensity({.parameters = 8e9,
                                     .weight_bytes = 0.0,
                                     .batch = 0.0,
                                     .context_tokens = 2000.0,
                                     .kv_bytes_per_token = 131072.0})),
                  "weight_bytes");  // 0 bytes
    // 2 N_p b / (M_w + b n_ctx m_kv) with both products past the double range (inf/inf):
    // 2 x 1 x max / (0 + max x 1e-300 x max) = 2 / (1e-300 x max) = 1.1126e-8.
    const double big = std::numeric_limits<double>::max();
    CHECK(decode_intensity({.parameters = 1.0,
                            .weight_bytes = 0.0,
                            .batch = big,
                            .context_tokens = 1e-300,
                            .kv_bytes_per_token = big}) == doctest::Approx(2.0 / (1e-300 * big)));
  }

  TEST_CASE("errors: roofline decode_intensity_limit") {
    CHECK_REJECTS((decode_intensity_limit({.parameters = not_a_number,
                                           .context_tokens = 2000.0,
                                           .kv_bytes_per_token = 131072.0})),
                  "parameters");
    CHECK_REJECTS((decode_intensity_limit(
                      {.parameters = 8e9, .context_tokens = 0.0, .kv_bytes_per_token = 131072.0})),
                  "context_tokens");
    CHECK_REJECTS((decode_intensity_limit(
                      {.parameters = 8e9, .context_tokens = 2000.0, .kv_bytes_per_token = 0.0})),
                  "kv_bytes_per_token");
    CHECK(decode_intensity_limit(
              {.parameters = 0.0, .context_tokens = 5e-324, .kv_bytes_per_token = 5e-324}) ==
          0.0);  // n_ctx m_kv underflowed: 0/0
  }

  TEST_CASE("errors: roofline is_compute_bound and mfu_ceiling") {
    CHECK_REJECTS((is_compute_bound({.intensity = not_a_number, .ridge = 333.0})), "intensity");
    CHECK_REJECTS((is_compute_bound({.intensity = -1.0, .ridge = 333.0})), "intensity");
    CHECK_REJECTS((mfu_ceiling({.intensity = 61.0, .ridge = 0.0})), "ridge");
    CHECK_REJECTS((mfu_ceiling({.intensity = 61.0, .ridge = inf})), "ridge");
  }

  TEST_CASE("errors: roofline attainable_flops_per_second") {
    CHECK_REJECTS(attainable_flops_per_second(not_a_number, accelerators::h100_sxm), "intensity");
    CHECK_REJECTS(attainable_flops_per_second(-1.0, accelerators::h100_sxm), "intensity");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = -1.0;
    CHECK_REJECTS(attainable_flops_per_second(10.0, s), "spec.peak_flops_per_second");
    s = accelerators::h100_sxm;
    s.peak_bytes_per_second = 0.0;
    CHECK_REJECTS(attainable_flops_per_second(10.0, s), "spec.peak_bytes_per_second");
  }

  TEST_CASE("errors: roofline max_compute_bound_context and max_compute_bound_context_at_batch") {
    CHECK_REJECTS(
        (max_compute_bound_context(
            {.parameters = not_a_number, .kv_bytes_per_token = 131072.0, .ridge = 333.0})),
        "parameters");
    CHECK_REJECTS(
        (max_compute_bound_context({.parameters = 8e9, .kv_bytes_per_token = 0.0, .ridge = 333.0})),
        "kv_bytes_per_token");
    CHECK_REJECTS((max_compute_bound_context(
                      {.parameters = 8e9, .kv_bytes_per_token = 131072.0, .ridge = -1.0})),
                  "ridge");
    CHECK_REJECTS((max_compute_bound_context_at_batch({.parameters = 8e9,
                                                       .weight_bytes = 16e9,
                                                       .batch = 0.0,
                                                       .kv_bytes_per_token = 131072.0,
                                                       .ridge = 333.0})),
                  "batch");
    CHECK_REJECTS((max_compute_bound_context_at_batch({.parameters = 8e9,
                                                       .weight_bytes = not_a_number,
                                                       .batch = 1.0,
                                                       .kv_bytes_per_token = 131072.0,
                                                       .ridge = 333.0})),
                  "weight_bytes");
    // Bandwidth-bound even with an empty context: a domain outcome.
    CHECK_FALSE(max_compute_bound_context_at_batch({.parameters = 8e9,
                                                    .weight_bytes = 16e9,
                                                    .batch = 1.0,
                                                    .kv_bytes_per_token = 131072.0,
                                                    .ridge = 333.0})
                    .has_value());
    // Both terms 2 N_p/(ridge m_kv) and M_w/(b m_kv) past the double range (inf - inf was
    // NaN): 2 / (2^-1074)^2 = 2^2149 < max / (2^-1074)^2, so bandwidth-bound at any context.
    const double tiny = 5e-324;
    CHECK_FALSE(
        max_compute_bound_context_at_batch({.parameters = 1.0,
                                            .weight_bytes = std::numeric_limits<double>::max(),
                                            .batch = tiny,
                                            .kv_bytes_per_token = tiny,
                                            .ridge = tiny})
            .has_value());
    CHECK(max_compute_bound_context_at_batch({.parameters = 0.0,
                                              .weight_bytes = 0.0,
                                              .batch = tiny,
                                              .kv_bytes_per_token = tiny,
                                              .ridge = tiny}) == 0.0);
  }

  TEST_CASE("errors: roofline roofline_time") {
    CHECK_REJECTS((roofline_time({.flops = not_a_number, .bytes = 1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = 3e12})),
                  "step.flops");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = -1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = 3e12})),
                  "step.bytes");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0},
                                 {.peak_flops_per_second = 0.0, .peak_bytes_per_second = 3e12})),
                  "spec.peak_flops_per_second");
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0},
                                 {.peak_flops_per_second = 1e15, .peak_bytes_per_second = inf})),
                  "spec.peak_bytes_per_second");
    accelerator_spec s = accelerators::h100_sxm;
    s.peak_flops_per_second = 0.0;
    CHECK_REJECTS((roofline_time({.flops = 1.0, .bytes = 1.0}, s)), "spec.peak_flops_per_second");
    CHECK_REJECTS((roofline_time({.flops = -1.0, .bytes = 1.0}, accelerators::h100_sxm)),
                  "step.flops");
  }
}

// SPDX-License-Identifier: Apache-2.0
// The worked numbers of docs/roofline.md and hand calculations, each shown beside its check.
// The round example accelerator is P_peak = 1e15 FLOP/s dense 16-bit and B_peak = 3e12 B/s.
#include <headroom/roofline.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace std::chrono_literals;

namespace {

using headroom::test::rejected;

using headroom::test::infinity;
using headroom::test::not_a_number;

using headroom::test::near;

constexpr double p_peak = 1e15;  // FLOP/s, a round accelerator
constexpr double b_peak = 3e12;  // B/s
constexpr double n_params = 8e9;
constexpr double m_kv = 128 * 1024;  // 131072 bytes per token

}  // namespace

TEST_SUITE("roofline") {
  TEST_CASE("roofline: MFU = 2·N_p·ν / P_peak = 4.1 %") {
    // 2 × 8e9 × 2560 / 1e15 = 4.096e13 / 1e15 = 0.04096.
    CHECK(headroom::roofline::mfu({.parameters = n_params,
                                   .tokens_per_second = 2560.0,
                                   .peak_flops_per_second = p_peak}) == doctest::Approx(0.04096));
    static_assert(near(
        headroom::roofline::mfu(
            {.parameters = n_params, .tokens_per_second = 2560.0, .peak_flops_per_second = p_peak}),
        0.04096, 1e-15));
  }

  TEST_CASE("roofline: MBU of 16 GB of bf16 weights at TPOT 25 ms on 3 TB/s is 21 %") {
    // M_w = 8e9 × 2 bytes = 16e9; 16e9 / 0.025 s = 6.4e11 B/s = 640 GB/s; / 3e12 = 0.2133.
    const double w =
        headroom::roofline::weight_bytes({.parameters = n_params, .bytes_per_parameter = 2.0});
    CHECK(w == 16e9);
    CHECK(headroom::roofline::decode_bandwidth(
              {.weight_bytes = w, .kv_bytes = 0.0, .tpot = 25ms}) == doctest::Approx(640e9));
    CHECK(
        headroom::roofline::mbu(
            {.weight_bytes = w, .kv_bytes = 0.0, .tpot = 25ms, .peak_bytes_per_second = b_peak}) ==
        doctest::Approx(0.213333333));
    static_assert(near(headroom::roofline::mbu({.weight_bytes = 16e9,
                                                .kv_bytes = 0.0,
                                                .tpot = std::chrono::duration<double>(0.025),
                                                .peak_bytes_per_second = b_peak}),
                       0.213333333333333, 1e-12));
    // The KV cache "of the same order" at 64 sequences of 2000 tokens: 64 × 2000 × 131072 =
    // 1.6777e10 bytes (16.8 GB vs 16 GB of weights); MBU with it: 32.78e9/0.025/3e12 = 0.437.
    const double kv = headroom::roofline::kv_cache_bytes(
        {.batch = 64.0, .context_tokens = 2000.0, .kv_bytes_per_token = m_kv});
    CHECK(kv == doctest::Approx(16.777216e9));
    CHECK(headroom::roofline::mbu(
              {.weight_bytes = w, .kv_bytes = kv, .tpot = 25ms, .peak_bytes_per_second = b_peak}) ==
          doctest::Approx(0.43702955));
  }

  TEST_CASE("roofline: KV bytes per token from a model shape") {
    // Llama-3-8B-like GQA: 32 layers × 8 KV heads × 128 head dim × 2 bytes × 2 (K and V)
    // = 131072 = 128 KiB (GQA with eight KV heads).
    CHECK(headroom::roofline::kv_bytes_per_token(
              {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}) == 131072.0);
    static_assert(headroom::roofline::kv_bytes_per_token(
                      {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}) == m_kv);
    // An fp8 cache halves it; full multi-head attention (32 KV heads) quadruples it.
    CHECK(headroom::roofline::kv_bytes_per_token(
              {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 1.0}) == 65536.0);
    CHECK(headroom::roofline::kv_bytes_per_token(
              {.layers = 32, .kv_heads = 32, .head_dim = 128, .dtype_bytes = 2}) == 524288.0);
  }

  TEST_CASE("roofline: 140 GB of weights need at least two 80 GB GPUs") {
    // 70e9 × 2 = 140e9 bytes; ceil(140/80) = 2.
    CHECK(headroom::roofline::weight_bytes({.parameters = 70e9, .bytes_per_parameter = 2.0}) ==
          140e9);
    CHECK(headroom::roofline::min_gpus_for_weights(
              {.weight_bytes = 140e9, .gpu_memory_bytes = 80e9}) == 2);
    CHECK(headroom::roofline::min_gpus_for_weights(
              {.weight_bytes = 140e9,
               .gpu_memory_bytes = headroom::roofline::accelerators::h100_sxm.memory_bytes}) == 2);
    CHECK(headroom::roofline::min_gpus_for_weights(
              {.weight_bytes = 140e9,
               .gpu_memory_bytes = headroom::roofline::accelerators::h200_sxm.memory_bytes}) == 1);
    static_assert(headroom::roofline::min_gpus_for_weights(
                      {.weight_bytes = 160e9, .gpu_memory_bytes = 80e9}) == 2);
  }

  TEST_CASE(
      "roofline: decode intensity limit ≈ 61 FLOP/byte against a ridge ≈ 333 caps MFU at "
      "18 %") {
    // Limit 2·N_p/(n_ctx·m_kv) = 1.6e10 / (2000 × 131072) = 1.6e10 / 2.62144e8 = 61.035.
    const double limit = headroom::roofline::decode_intensity_limit(
        {.parameters = n_params, .context_tokens = 2000.0, .kv_bytes_per_token = m_kv});
    CHECK(limit == doctest::Approx(61.03515625));
    // Ridge P_peak/B_peak = 1e15 / 3e12 = 333.33.
    const double ridge = headroom::roofline::ridge_point(
        {.peak_flops_per_second = p_peak, .peak_bytes_per_second = b_peak});
    CHECK(ridge == doctest::Approx(333.333333));
    // MFU ≤ 61.035/333.33 = 0.1831 ≈ 18 %.
    CHECK(headroom::roofline::mfu_ceiling({.intensity = limit, .ridge = ridge}) ==
          doctest::Approx(0.18310546875));
    CHECK_FALSE(headroom::roofline::is_compute_bound({.intensity = limit, .ridge = ridge}));
    // I(b) at b = 64: 2 × 8e9 × 64 / (16e9 + 64 × 2000 × 131072) = 1.024e12 / 3.2777216e10 = 31.24.
    CHECK(headroom::roofline::decode_intensity({.parameters = n_params,
                                                .weight_bytes = 16e9,
                                                .batch = 64.0,
                                                .context_tokens = 2000.0,
                                                .kv_bytes_per_token = m_kv}) ==
          doctest::Approx(31.2412));
    // I(b) rises with b towards the limit and never crosses it.
    double previous = 0;
    for (double b = 1; b <= 1e6; b *= 2) {
      const double i = headroom::roofline::decode_intensity({.parameters = n_params,
                                                             .weight_bytes = 16e9,
                                                             .batch = b,
                                                             .context_tokens = 2000.0,
                                                             .kv_bytes_per_token = m_kv});
      REQUIRE(i > previous);
      REQUIRE(i < limit);
      previous = i;
    }
    CHECK(previous == doctest::Approx(limit).epsilon(1e-3));
    static_assert(
        near(headroom::roofline::decode_intensity_limit(
                 {.parameters = n_params, .context_tokens = 2000.0, .kv_bytes_per_token = m_kv}),
             61.03515625, 1e-9));
    static_assert(near(headroom::roofline::ridge_point(
                           {.peak_flops_per_second = p_peak, .peak_bytes_per_second = b_peak}),
                       333.333333333333, 1e-9));
  }

  TEST_CASE("roofline: decode is compute-bound only below ≈ 366–370 tokens of context") {
    // n* = 2·N_p / (ridge · m_kv) = 1.6e10 / (333.33 × 131072) = 1.6e10 × 3e12 / (1e15 × 131072)
    //    = 4.8e7 / 131072 = 366.21 tokens.
    const double ridge = headroom::roofline::ridge_point(
        {.peak_flops_per_second = p_peak, .peak_bytes_per_second = b_peak});
    const double n = headroom::roofline::max_compute_bound_context(
        {.parameters = n_params, .kv_bytes_per_token = m_kv, .ridge = ridge});
    CHECK(n == doctest::Approx(366.2109375));
    CHECK(std::floor(n) == 366.0);
    CHECK(n > 360.0);
    CHECK(n < 370.0);
    // Just below n* the limit intensity is above the ridge, just above it is below.
    CHECK(headroom::roofline::is_compute_bound(
        {.intensity = headroom::roofline::decode_intensity_limit(
             {.parameters = n_params, .context_tokens = 366.0, .kv_bytes_per_token = m_kv}),
         .ridge = ridge}));
    CHECK_FALSE(headroom::roofline::is_compute_bound(
        {.intensity = headroom::roofline::decode_intensity_limit(
             {.parameters = n_params, .context_tokens = 367.0, .kv_bytes_per_token = m_kv}),
         .ridge = ridge}));
    // At a finite batch b = 1024 with 16 GB of weights:
    // (2 × 8e9 × 1024 − 333.33 × 16e9) / (333.33 × 1024 × 131072) = (1.6384e13 − 5.3333e12) /
    // 4.4739e10 = 1.10507e13 / 4.4739e10 = 247.0 tokens.
    const auto at_1024 =
        headroom::roofline::max_compute_bound_context_at_batch({.parameters = n_params,
                                                                .weight_bytes = 16e9,
                                                                .batch = 1024.0,
                                                                .kv_bytes_per_token = m_kv,
                                                                .ridge = ridge});
    REQUIRE(at_1024.has_value());
    CHECK(*at_1024 == doctest::Approx(247.0).epsilon(1e-3));
    CHECK(headroom::roofline::decode_intensity({.parameters = n_params,
                                                .weight_bytes = 16e9,
                                                .batch = 1024.0,
                                                .context_tokens = *at_1024,
                                                .kv_bytes_per_token = m_kv}) ==
          doctest::Approx(ridge));
    // At b = 64, even an empty context is bandwidth-bound: 2 × 8e9 × 64 / 16e9 = 64 < 333.
    CHECK_FALSE(headroom::roofline::max_compute_bound_context_at_batch({.parameters = n_params,
                                                                        .weight_bytes = 16e9,
                                                                        .batch = 64.0,
                                                                        .kv_bytes_per_token = m_kv,
                                                                        .ridge = ridge})
                    .has_value());
    static_assert(
        near(headroom::roofline::max_compute_bound_context(
                 {.parameters = n_params, .kv_bytes_per_token = m_kv, .ridge = 1e15 / 3e12}),
             366.2109375, 1e-9));
  }

  TEST_CASE("roofline: accelerator specs carry dense figures from the datasheets") {
    using namespace headroom::roofline::accelerators;
    // H100 SXM: 989 TFLOP/s dense bf16, 3.35 TB/s.
    CHECK(h100_sxm.peak_flops_per_second == doctest::Approx(989e12).epsilon(1e-3));
    CHECK(h100_sxm.peak_bytes_per_second == 3.35e12);
    // H200 SXM: the same compute, 4.8 TB/s.
    CHECK(h200_sxm.peak_flops_per_second == h100_sxm.peak_flops_per_second);
    CHECK(h200_sxm.peak_bytes_per_second == 4.8e12);
    // A100 80GB: 312 TFLOP/s, 2.0 TB/s (2.039 for SXM).
    CHECK(a100_80gb_sxm.peak_flops_per_second == 312e12);
    CHECK(a100_80gb_sxm.peak_bytes_per_second == doctest::Approx(2.0e12).epsilon(0.02));
    // L40S: 362 TFLOP/s dense, 864 GB/s.
    CHECK(l40s.peak_flops_per_second == doctest::Approx(362e12).epsilon(1e-3));
    CHECK(l40s.peak_bytes_per_second == 864e9);
    // Ridges: H100 989.4/3.35 = 295.3; H200 989.4/4.8 = 206.1; A100 312/2.039 = 153.0.
    CHECK(headroom::roofline::ridge_point(h100_sxm) == doctest::Approx(295.34).epsilon(1e-3));
    CHECK(headroom::roofline::ridge_point(h200_sxm) == doctest::Approx(206.13).epsilon(1e-3));
    CHECK(headroom::roofline::ridge_point(a100_80gb_sxm) == doctest::Approx(153.02).epsilon(1e-3));
    // Lookup by name.
    REQUIRE(headroom::roofline::find_accelerator("H200 SXM").has_value());
    CHECK(headroom::roofline::find_accelerator("H200 SXM")->peak_bytes_per_second == 4.8e12);
    CHECK_FALSE(headroom::roofline::find_accelerator("TPU v9").has_value());
    // Memory as nvidia-smi reports it: 46,068 MiB on an L40S, 81,559 MiB on an H100 SXM (both
    // over the marketed 48 GB and 80 GB in decimal bytes).
    static_assert(headroom::roofline::find_accelerator("L40S")->memory_bytes == 48'305'799'168.0);
    static_assert(headroom::roofline::accelerators::h100_sxm.memory_bytes == 85'520'809'984.0);
    for (const auto& spec : all) {
      CHECK(spec.peak_flops_per_second > 0);
      CHECK(spec.peak_bytes_per_second > 0);
      CHECK(spec.memory_bytes > 0);
    }
    // Dense FP8 and INT8, half the datasheets' sparsity figures: H100 and H200 3,958 → 1,979
    // (the whitepaper's 1,978.9); L40S 1,466 → 733; the A100 has INT8 (1,248 → 624), no FP8.
    CHECK(h100_sxm.peak_fp8_flops_per_second == 1978.9e12);
    CHECK(h200_sxm.peak_fp8_flops_per_second == 1978.9e12);
    CHECK(l40s.peak_fp8_flops_per_second == 733e12);
    CHECK(a100_80gb_sxm.peak_fp8_flops_per_second == 0.0);
    CHECK(a100_80gb_sxm.peak_int8_ops_per_second == 624e12);
    CHECK(l40s.peak_int8_ops_per_second == 733e12);
    // B200: half of 4.5, 9, 9 and 18 PFLOPS with sparsity (bf16, FP8, INT8, FP4); 8 TB/s;
    // 183,359 MiB in nvidia-smi. Only it has an FP4 peak.
    CHECK(b200.peak_flops_per_second == 2.25e15);
    CHECK(b200.peak_fp8_flops_per_second == 4.5e15);
    CHECK(b200.peak_fp4_flops_per_second == 9e15);
    CHECK(b200.peak_bytes_per_second == 8e12);
    static_assert(headroom::roofline::find_accelerator("B200")->memory_bytes == 192'265'846'784.0);
    for (const auto& spec : all)
      CHECK((spec.peak_fp4_flops_per_second > 0.0) == (spec.name == "B200"));
    // H100 PCIe: half of 1,513 (bf16) and 3,026 (FP8, INT8) with sparsity; 2.0 TB/s.
    CHECK(h100_pcie.peak_flops_per_second == 1513e12 / 2);
    CHECK(h100_pcie.peak_fp8_flops_per_second == 3026e12 / 2);
    CHECK(h100_pcie.peak_int8_ops_per_second == 3026e12 / 2);
    CHECK(h100_pcie.peak_bytes_per_second == 2.0e12);
    // A100 40GB: the 80 GB part's compute, 1,555 GB/s, 40,960 MiB = 42,949,672,960 bytes.
    CHECK(a100_40gb_sxm.peak_flops_per_second == a100_80gb_sxm.peak_flops_per_second);
    CHECK(a100_40gb_sxm.peak_bytes_per_second == 1.555e12);
    static_assert(headroom::roofline::find_accelerator("A100 40GB SXM")->memory_bytes ==
                  42'949'672'960.0);
    // L4: half of 242 (bf16), 485 (FP8) and 485 (INT8) with sparsity; 300 GB/s; 23,034 MiB.
    CHECK(l4.peak_flops_per_second == 242e12 / 2);
    CHECK(l4.peak_fp8_flops_per_second == 485e12 / 2);
    CHECK(l4.peak_bytes_per_second == 300e9);
    static_assert(headroom::roofline::find_accelerator("L4")->memory_bytes == 24'152'899'584.0);
    // MI300X and MI325X: AMD's dense matrix peaks, 5.3 and 6 TB/s; 192 GiB less 16 MiB and
    // 256 GiB less 16 MiB as the drivers report them.
    CHECK(mi300x.peak_flops_per_second == 1307.4e12);
    CHECK(mi300x.peak_fp8_flops_per_second == 2614.9e12);
    static_assert(headroom::roofline::find_accelerator("MI300X")->memory_bytes ==
                  192.0 * 1024 * 1024 * 1024 - 16.0 * 1024 * 1024);
    static_assert(headroom::roofline::find_accelerator("MI325X")->memory_bytes ==
                  256.0 * 1024 * 1024 * 1024 - 16.0 * 1024 * 1024);
    CHECK(mi325x.peak_bytes_per_second == 6e12);
    // Links, one direction: NVLink 4 900 GB/s both ways → 450e9; NVLink 3 600 → 300e9; NVLink
    // 5 1.8 TB/s → 900e9; PCIe Gen5 x16 128 GB/s → 64e9, Gen4 64 → 32e9; seven Infinity
    // Fabric links of 128 GB/s both ways → 7 × 64e9.
    CHECK(h100_sxm.interconnect_bytes_per_second == 900e9 / 2);
    CHECK(h200_sxm.interconnect_bytes_per_second == 900e9 / 2);
    CHECK(a100_80gb_sxm.interconnect_bytes_per_second == 600e9 / 2);
    CHECK(b200.interconnect_bytes_per_second == 1.8e12 / 2);
    CHECK(h100_pcie.interconnect_bytes_per_second == 128e9 / 2);
    CHECK(l40s.interconnect_bytes_per_second == 64e9 / 2);
    CHECK(l4.interconnect_bytes_per_second == 64e9 / 2);
    CHECK(mi300x.interconnect_bytes_per_second == 7 * 128e9 / 2);
    // Every name is found, and is found once.
    for (const auto& spec : all) {
      CAPTURE(spec.name);
      REQUIRE(headroom::roofline::find_accelerator(spec.name).has_value());
      CHECK(headroom::roofline::find_accelerator(spec.name)->memory_bytes == spec.memory_bytes);
      CHECK(std::count_if(all.begin(), all.end(),
                          [&](const auto& other) { return other.name == spec.name; }) == 1);
      CHECK(spec.interconnect_bytes_per_second > 0);
    }
  }

  TEST_CASE("roofline: number formats, their peaks and weights' bytes") {
    using headroom::roofline::numeric_format;
    using namespace headroom::roofline::accelerators;
    // The peak for a compute format: FP8's where the part has FP8 tensor cores, else bf16's
    // (the A100 runs FP8 weights through 16-bit kernels); 4-bit formats take bf16's.
    CHECK(headroom::roofline::peak_flops_for(h100_sxm, numeric_format::fp8) == 1978.9e12);
    CHECK(headroom::roofline::peak_flops_for(h100_sxm, numeric_format::bf16) == 989.4e12);
    CHECK(headroom::roofline::peak_flops_for(h100_sxm, numeric_format::fp16) == 989.4e12);
    CHECK(headroom::roofline::peak_flops_for(a100_80gb_sxm, numeric_format::fp8) == 312e12);
    CHECK(headroom::roofline::peak_flops_for(a100_80gb_sxm, numeric_format::int8) == 624e12);
    CHECK(headroom::roofline::peak_flops_for(l40s, numeric_format::int4) ==
          l40s.peak_flops_per_second);
    CHECK(headroom::roofline::peak_flops_for(l40s, numeric_format::fp4) ==
          l40s.peak_flops_per_second);
    CHECK(headroom::roofline::peak_flops_for(b200, numeric_format::fp4) == 9e15);
    CHECK(headroom::roofline::peak_flops_for(b200, numeric_format::int4) ==
          2.25e15);  // weight-only
    // NVFP4: 4-bit elements in groups of 16 with a 1-byte FP8 scale: 0.5 + 1/16 = 0.5625.
    CHECK(headroom::roofline::bytes_per_parameter(headroom::roofline::weight_format{
              .format = numeric_format::fp4, .group_size = 16, .bytes_per_group = 1.0}) == 0.5625);
    static_assert(headroom::roofline::peak_flops_for(h200_sxm, numeric_format::fp8) == 1978.9e12);
    CHECK(headroom::roofline::bytes_per_element(numeric_format::bf16) == 2.0);
    CHECK(headroom::roofline::bytes_per_element(numeric_format::fp8) == 1.0);
    CHECK(headroom::roofline::bytes_per_element(numeric_format::int4) == 0.5);
    CHECK(headroom::roofline::to_string(numeric_format::fp4) == "fp4");
    // Weights: bf16 2 bytes; FP8 1; 4-bit AWQ in groups of 128, an fp16 scale (2 bytes) and a
    // 4-bit zero point (0.5) a group: 0.5 + 2.5 / 128 = 0.51953125.
    CHECK(headroom::roofline::bytes_per_parameter(headroom::roofline::weight_format{}) == 2.0);
    CHECK(headroom::roofline::bytes_per_parameter(
              headroom::roofline::weight_format{.format = numeric_format::fp8}) == 1.0);
    CHECK(headroom::roofline::bytes_per_parameter(headroom::roofline::weight_format{
              .format = numeric_format::int4, .group_size = 128, .bytes_per_group = 2.5}) ==
          0.51953125);
    using headroom::test::rejected;
    CHECK(rejected([] {
            (void)headroom::roofline::bytes_per_parameter(headroom::roofline::weight_format{
                .format = numeric_format::int4, .bytes_per_group = 2.5});
          }) == "bytes_per_group");
    CHECK(rejected([] {
            (void)headroom::roofline::bytes_per_parameter(headroom::roofline::weight_format{
                .format = numeric_format::int4, .group_size = -1});
          }) == "group_size");
  }

  TEST_CASE("roofline: step time is the larger of bytes/B and FLOPs/P") {
    // A decode step at b = 64 on an H100: FLOPs 2 × 8e9 × 64 = 1.024e12 → 1.035 ms at
    // 989.4e12; bytes 16e9 + 1.6777e10 = 3.2777e10 → 9.784 ms at 3.35e12: bandwidth wins.
    const double bytes =
        16e9 + headroom::roofline::kv_cache_bytes(
                   {.batch = 64.0, .context_tokens = 2000.0, .kv_bytes_per_token = m_kv});
    const auto t = headroom::roofline::roofline_time({.flops = 1.024e12, .bytes = bytes},
                                                     headroom::roofline::accelerators::h100_sxm);
    CHECK(t.count() == doctest::Approx(bytes / 3.35e12));
    CHECK(t.count() == doctest::Approx(9.7842e-3).epsilon(1e-4));
    // Prefill of 4096 tokens: 2 × 8e9 × 4096 = 6.55e13 FLOP → 66.2 ms; 16 GB → 4.8 ms: compute.
    CHECK(headroom::roofline::roofline_time(
              {.flops = 6.5536e13, .bytes = 16e9},
              {.peak_flops_per_second = 989.4e12, .peak_bytes_per_second = 3.35e12})
              .count() == doctest::Approx(6.5536e13 / 989.4e12));
    // Attainable FLOP/s at I = 61: 61 × 3.35e12 = 2.04e14 (below the 989e12 roof).
    CHECK(headroom::roofline::attainable_flops_per_second(
              61.0, headroom::roofline::accelerators::h100_sxm) == doctest::Approx(61.0 * 3.35e12));
    CHECK(headroom::roofline::attainable_flops_per_second(
              1000.0, headroom::roofline::accelerators::h100_sxm) == 989.4e12);
    static_assert(headroom::roofline::roofline_time(
                      {.flops = 2.0, .bytes = 1.0},
                      {.peak_flops_per_second = 1.0, .peak_bytes_per_second = 1.0})
                      .count() == 2.0);
  }

  TEST_CASE("roofline: a mixture of experts' active parameters and the experts a step reads") {
    // Mixtral 8x7B from its config.json (hand count in tests/planner_rows.hpp): 46,702,792,704
    // parameters, 8 experts of 5,637,144,576 (32 layers × 3 × 4096 × 14336), 2 a token.
    // Published: "46.7B total parameters but only uses 12.9B parameters per token" (Mistral AI,
    // "Mixtral of experts", https://mistral.ai/news/mixtral-of-experts, 2023-12-11).
    const headroom::roofline::mixture_of_experts mixtral{
        .experts = 8, .experts_per_token = 2, .parameters_per_expert = 5'637'144'576.0};
    const double total = 46'702'792'704.0;
    CHECK(total == doctest::Approx(46.7e9).epsilon(0.01).scale(0.0));
    // 46,702,792,704 − 6 × 5,637,144,576 = 12,879,925,248.
    CHECK(headroom::roofline::active_parameters(total, mixtral) == 12'879'925'248.0);
    CHECK(headroom::roofline::active_parameters(total, mixtral) ==
          doctest::Approx(12.9e9).epsilon(0.01).scale(0.0));
    CHECK(headroom::roofline::active_parameters(8e9) == 8e9);  // dense
    // Each token picks 2 of 8: one token reads 2 experts; two read 8 × (1 − (6/8)²) = 3.5;
    // ten, 8 × (1 − 0.75^10) = 7.549...; many, all 8; none, 0.
    CHECK(headroom::roofline::experts_read(mixtral, 1.0) == doctest::Approx(2.0).epsilon(1e-14));
    CHECK(headroom::roofline::experts_read(mixtral, 2.0) == doctest::Approx(3.5).epsilon(1e-14));
    CHECK(headroom::roofline::experts_read(mixtral, 10.0) ==
          doctest::Approx(8.0 * (1.0 - std::pow(0.75, 10))).epsilon(1e-14));
    CHECK(headroom::roofline::experts_read(mixtral, 1000.0) == doctest::Approx(8.0).epsilon(1e-12));
    CHECK(headroom::roofline::experts_read(mixtral, 0.0) == 0.0);
    CHECK(headroom::roofline::experts_read(headroom::roofline::mixture_of_experts{}, 5.0) == 0.0);
    // Every expert every token (k = E): all of them from the first token.
    CHECK(headroom::roofline::experts_read(
              headroom::roofline::mixture_of_experts{
                  .experts = 4, .experts_per_token = 4, .parameters_per_expert = 1.0},
              1.0) == 4.0);
    // Refused by name: k above E, a negative count, E × per-expert at or above the total, a
    // per-expert count on a dense model.
    using headroom::test::rejected;
    CHECK(rejected([&] {
            (void)headroom::roofline::active_parameters(
                total, {.experts = 8, .experts_per_token = 9, .parameters_per_expert = 1e9});
          }) == "moe.experts_per_token");
    CHECK(rejected([&] {
            (void)headroom::roofline::active_parameters(
                total, {.experts = -1, .experts_per_token = 0, .parameters_per_expert = 0});
          }) == "moe.experts");
    CHECK(rejected([&] {
            (void)headroom::roofline::experts_read(
                headroom::roofline::mixture_of_experts{
                    .experts = 4, .experts_per_token = 5, .parameters_per_expert = 1.0},
                3.0);
          }) == "moe.experts_per_token");
    CHECK(rejected([&] {
            (void)headroom::roofline::active_parameters(
                total, {.experts = 8, .experts_per_token = 2, .parameters_per_expert = 6e9});
          }) == "moe.parameters_per_expert");
    CHECK(rejected([&] {
            (void)headroom::roofline::active_parameters(
                total, {.experts = 0, .experts_per_token = 0, .parameters_per_expert = 1e9});
          }) == "moe.parameters_per_expert");
  }

  TEST_CASE("roofline: invalid arguments name the parameter") {
    CHECK(rejected([] {
            (void)headroom::roofline::mfu(
                {.parameters = -1.0, .tokens_per_second = 2560.0, .peak_flops_per_second = p_peak});
          }) == "parameters");
    CHECK(rejected([] {
            (void)headroom::roofline::mfu({.parameters = n_params,
                                           .tokens_per_second = not_a_number,
                                           .peak_flops_per_second = p_peak});
          }) == "tokens_per_second");
    CHECK(rejected([] {
            (void)headroom::roofline::mfu({.parameters = n_params,
                                           .tokens_per_second = 2560.0,
                                           .peak_flops_per_second = 0.0});
          }) == "peak_flops_per_second");
    CHECK(rejected([] {
            (void)headroom::roofline::mbu({.weight_bytes = 16e9,
                                           .kv_bytes = 0.0,
                                           .tpot = 0ms,
                                           .peak_bytes_per_second = b_peak});
          }) == "tpot");
    CHECK(rejected([] {
            (void)headroom::roofline::mbu({.weight_bytes = 16e9,
                                           .kv_bytes = -1.0,
                                           .tpot = 25ms,
                                           .peak_bytes_per_second = b_peak});
          }) == "kv_bytes");
    CHECK(rejected([] {
            (void)headroom::roofline::mbu({.weight_bytes = 16e9,
                                           .kv_bytes = 0.0,
                                           .tpot = 25ms,
                                           .peak_bytes_per_second = infinity});
          }) == "peak_bytes_per_second");
    CHECK(rejected([] {
            (void)headroom::roofline::kv_bytes_per_token(
                {.layers = 0, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0});
          }) == "layers");
    CHECK(rejected([] {
            (void)headroom::roofline::kv_bytes_per_token(
                {.layers = 32, .kv_heads = 0, .head_dim = 128, .dtype_bytes = 2.0});
          }) == "kv_heads");
    CHECK(rejected([] {
            (void)headroom::roofline::kv_bytes_per_token(
                {.layers = 32, .kv_heads = 8, .head_dim = -1, .dtype_bytes = 2.0});
          }) == "head_dim");
    CHECK(rejected([] {
            (void)headroom::roofline::kv_bytes_per_token(
                {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 0.0});
          }) == "dtype_bytes");
    CHECK(rejected([] {
            (void)headroom::roofline::weight_bytes({.parameters = 8e9, .bytes_per_parameter = 0.0});
          }) == "bytes_per_parameter");
    CHECK(rejected([] {
            (void)headroom::roofline::min_gpus_for_weights(
                {.weight_bytes = 140e9, .gpu_memory_bytes = 0.0});
          }) == "gpu_memory_bytes");
    CHECK(rejected([] {
            (void)headroom::roofline::ridge_point(
                {.peak_flops_per_second = p_peak, .peak_bytes_per_second = 0.0});
          }) == "peak_bytes_per_second");
    CHECK(rejected([] {
            (void)headroom::roofline::decode_intensity_limit(
                {.parameters = n_params, .context_tokens = 0.0, .kv_bytes_per_token = m_kv});
          }) == "context_tokens");
    CHECK(rejected([] {
            (void)headroom::roofline::decode_intensity({.parameters = n_params,
                                                        .weight_bytes = 0.0,
                                                        .batch = 1.0,
                                                        .context_tokens = 0.0,
                                                        .kv_bytes_per_token = m_kv});
          }) == "weight_bytes");
    CHECK(rejected([] {
            (void)headroom::roofline::decode_intensity({.parameters = n_params,
                                                        .weight_bytes = 16e9,
                                                        .batch = -1.0,
                                                        .context_tokens = 10.0,
                                                        .kv_bytes_per_token = m_kv});
          }) == "batch");
    CHECK(rejected([] {
            (void)headroom::roofline::max_compute_bound_context(
                {.parameters = n_params, .kv_bytes_per_token = m_kv, .ridge = 0.0});
          }) == "ridge");
    CHECK(rejected([] {
            (void)headroom::roofline::max_compute_bound_context_at_batch(
                {.parameters = n_params,
                 .weight_bytes = 16e9,
                 .batch = 0.0,
                 .kv_bytes_per_token = m_kv,
                 .ridge = 300.0});
          }) == "batch");
    CHECK(rejected([] {
            (void)headroom::roofline::mfu_ceiling({.intensity = -1.0, .ridge = 300.0});
          }) == "intensity");
    CHECK(rejected([] {
            (void)headroom::roofline::roofline_time(
                {.flops = 1.0, .bytes = 1.0},
                {.peak_flops_per_second = 0.0, .peak_bytes_per_second = 1.0});
          }) == "spec.peak_flops_per_second");
    CHECK(rejected([] {
            (void)headroom::roofline::attainable_flops_per_second(
                1.0, headroom::roofline::accelerator_spec{.name = "x",
                                                          .peak_flops_per_second = 0,
                                                          .peak_bytes_per_second = 1,
                                                          .memory_bytes = 1});
          }) == "spec.peak_flops_per_second");
  }

  TEST_CASE("roofline: generic over the floating type") {
    const float m = headroom::roofline::mfu<float>(
        {.parameters = 8e9f, .tokens_per_second = 2560.0f, .peak_flops_per_second = 1e15f});
    CHECK(m == doctest::Approx(0.04096f));
    const long double n = headroom::roofline::max_compute_bound_context<long double>(
        {.parameters = 8e9L, .kv_bytes_per_token = 131072.0L, .ridge = 1e15L / 3e12L});
    CHECK(static_cast<double>(n) == doctest::Approx(366.2109375));
  }
}

// SPDX-License-Identifier: Apache-2.0
// The published serving measurements of tests/data/planner/ (fidelity.csv, published_v017.csv;
// sources in its README), and how each is replayed through the replica model: the model's
// shape from its config.json, the accelerator's datasheet, and the engine's own limits in that
// run; and runs at their own arrival times simulated with known parameters. Shared by the
// planner's fidelity test, the calibration tests and bench/plan.bench.cpp.
#pragma once

#include <headroom/arrivals.hpp>
#include <headroom/plan.hpp>
#include <headroom/plan/calibrate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef HEADROOM_TEST_DATA_DIR
#error "HEADROOM_TEST_DATA_DIR must name the absolute path of tests/data"
#endif

// Used by the tests and by bench/plan.bench.cpp: no test framework here; a file that cannot be
// read or a malformed line stops the program with its name.
namespace headroom::test {

/// One row of fidelity.csv.
struct measurement {
  std::string id, engine, model, accelerator, precision, unit;
  std::string role;  // calibration, validation or none
  int tensor_parallel = 1;
  std::size_t input = 0, output = 0, requests = 0;
  double published = 0;
};

[[noreturn]] inline void stop(const std::string& why) {
  std::fprintf(stderr, "planner_rows.hpp: %s\n", why.c_str());
  std::abort();
}

/// The rows of tests/data/planner/<file> (fidelity.csv by default; published_v017.csv,
/// published_v017_moe.csv, published_b200.csv).
inline std::vector<measurement> measurements(const std::string& file = "fidelity.csv") {
  const std::string path = std::string(HEADROOM_TEST_DATA_DIR) + "/planner/" + file;
  std::ifstream in(path);
  if (!in) stop("cannot read " + path);
  std::string line;
  std::getline(in, line);
  std::vector<measurement> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string s; std::getline(fields, s, ',');) f.push_back(s);
    if (f.size() != 14) stop("not 14 fields: " + line);
    out.push_back({.id = f[0],
                   .engine = f[2],
                   .model = f[3],
                   .accelerator = f[4],
                   .precision = f[7],
                   .unit = f[12],
                   .role = f[13],
                   .tensor_parallel = std::stoi(f[6]),
                   .input = std::stoul(f[8]),
                   .output = std::stoul(f[9]),
                   .requests = std::stoul(f[10]),
                   .published = std::stod(f[11])});
  }
  return out;
}

/// The row's model, its config.json shape: Llama 3.1 8B, 70B (3.3 70B has its shape) or 405B,
/// Mistral 7B (v0.1), or the mixtures of experts Mixtral 8x7B and 8x22B (v0.1: 8 experts, 2 a
/// token; the parameters counted from the shape below); FP8 weights and KV cache for the FP8
/// checkpoints (Model Optimizer's PTQ quantizes the KV cache to FP8 by default), 2 bytes
/// (fp16, bf16) otherwise. The FP4 checkpoints (NVFP4: 4-bit weights in groups of 16, each
/// group with a 1-byte FP8 scale; lm_head and the embeddings left in 16 bits, as Model
/// Optimizer leaves them) compute in FP4, with an FP8 KV cache as the FP8 checkpoints.
inline plan::model_shape shape_of(const measurement& r) {
  struct shape {
    double parameters;
    std::int32_t layers, hidden;
    double parameters_per_expert = 0.0;  // Mixtral: 3 × hidden × intermediate × layers
  };
  // Mixtral 8x7B: vocab 32000, hidden 4096, intermediate 14336, 32 layers, 32 heads and 8 KV
  // heads of 128, 8 experts, untied embeddings: 32 × (attention 41,943,040 + router 32,768 +
  // experts 8 × 176,160,768 + norms 8,192) + embeddings 2 × 131,072,000 + norm 4,096 =
  // 46,702,792,704. Mixtral 8x22B: vocab 32000, hidden 6144, intermediate 16384, 56 layers,
  // 48 heads and 8 KV heads of 128: 56 × (88,080,384 + 49,152 + 8 × 301,989,888 + 12,288) +
  // 2 × 196,608,000 + 6,144 = 140,620,634,112.
  const shape s = r.model == "Mixtral-8x7B"    ? shape{46.702792704e9, 32, 4096, 5.637144576e9}
                  : r.model == "Mixtral-8x22B" ? shape{140.620634112e9, 56, 6144, 16.911433728e9}
                  : r.model.find("405B") != std::string::npos ? shape{405.853388800e9, 126, 16384}
                  : r.model.find("70B") != std::string::npos  ? shape{70.553706496e9, 80, 8192}
                  : r.model.find("Mistral-7B") == 0           ? shape{7.241732096e9, 32, 4096}
                  : r.model.find("8B") != std::string::npos   ? shape{8.030261248e9, 32, 4096}
                                                              : shape{0.0, 0, 0};
  if (s.parameters == 0.0) stop("no shape for the model " + r.model);
  const bool fp8 = r.precision == "fp8", fp4 = r.precision == "fp4";
  // NVFP4: the Llama vocabulary of 128,256 in the embeddings and lm_head at 2 bytes, the rest
  // at 0.5 + 1/16 (70B: 2,101,346,304 of 70,553,706,496 parameters, 0.60532 bytes each).
  const double edges = 2.0 * 128256.0 * static_cast<double>(s.hidden);
  const double nvfp4 = roofline::bytes_per_parameter(roofline::weight_format{
      .format = roofline::numeric_format::fp4, .group_size = 16, .bytes_per_group = 1.0});
  const double fp4_bytes = (edges * 2.0 + (s.parameters - edges) * nvfp4) / s.parameters;
  plan::model_shape m{
      .name = "m",
      .parameters = s.parameters,
      .layers = s.layers,
      .hidden_size = s.hidden,
      .kv_bytes_per_token = roofline::kv_bytes_per_token({.layers = s.layers,
                                                          .kv_heads = 8,
                                                          .head_dim = 128,
                                                          .dtype_bytes = fp8 || fp4 ? 1.0 : 2.0}),
      .bytes_per_parameter = fp4   ? fp4_bytes
                             : fp8 ? 1.0
                                   : 2.0,
      .activation_bytes = 2.0,
      .compute_format = fp4                     ? roofline::numeric_format::fp4
                        : fp8                   ? roofline::numeric_format::fp8
                        : r.precision == "bf16" ? roofline::numeric_format::bf16
                                                : roofline::numeric_format::fp16};
  if (s.parameters_per_expert > 0.0)
    m.moe = {
        .experts = 8, .experts_per_token = 2, .parameters_per_expert = s.parameters_per_expert};
  return m;
}

/// One GPU's datasheet (roofline.hpp's catalog). An FP8 row's model computes in FP8
/// (shape_of), so the replica model takes the part's dense FP8 peak (peak_flops_for): twice
/// dense BF16 on Hopper (1,978.9 TFLOPS), 733 TFLOPS on the L40S; fp16 rows the BF16 peak
/// (equal on these parts).
inline roofline::accelerator_spec spec_of(const measurement& r) {
  const auto found = roofline::find_accelerator(r.accelerator);
  if (!found) stop("no accelerator " + r.accelerator);
  if (r.precision == "fp8" && found->peak_fp8_flops_per_second <= 0.0)
    stop("no FP8 peak for " + r.accelerator);
  return *found;
}

/// One direction of a GPU's link to its peers: NVLink 4 (900 GB/s both ways) on the Hopper
/// parts, NVLink 3 (600) on the A100 SXM, NVLink 5 (1.8 TB/s) on the B200, PCIe Gen4 x16 (64)
/// on the L40S.
inline double link_of(const measurement& r) {
  return r.accelerator == "L40S"            ? 32e9
         : r.accelerator == "A100 80GB SXM" ? 300e9
         : r.accelerator == "B200"          ? 900e9
                                            : 450e9;
}

/// The engine's limits in that run.
inline sim::replica_config engine_of(const measurement& r) {
  const plan::model_shape m = shape_of(r);
  const roofline::accelerator_spec spec = spec_of(r);
  const double kv = m.kv_bytes_per_token;
  sim::replica_config c;
  if (r.engine == "TensorRT-LLM") {
    // trtllm-bench's engine settings (tensorrt_llm/bench/build/tuning.py, calc_engine_setting
    // and finetune_setting): KV memory 0.95 × (memory − weights) in GiB, requests that fit =
    // that / (KV per token × (ISL + OSL)), max batch rounded up to 32s (min 64) below 256, to
    // 128s below 1024, else to 256s; max tokens = batch × (1 + ISL/OSL) capped at 32768,
    // rounded up to 256s (min 2048) below 4096, 512s below 8192, else 1024s. Its scheduler
    // reserves a request's whole KV (GUARANTEED_NO_EVICT).
    const double gib = 1073741824.0;
    const double cache =
        (spec.memory_bytes / gib * r.tensor_parallel - m.parameters * m.bytes_per_parameter / gib) *
        0.95;
    const double fit = cache / (kv / gib * static_cast<double>(r.input + r.output));
    const double bs = std::min(fit, 4096.0);
    const double tokens = std::min(
        bs * (1.0 + static_cast<double>(r.input) / static_cast<double>(r.output)), 32768.0);
    const double max_batch = bs < 256    ? std::max(64.0, 32 * std::ceil(bs / 32))
                             : bs < 1024 ? 128 * std::ceil(bs / 128)
                                         : 256 * std::ceil(bs / 256);
    const double max_tokens = tokens < 4096   ? std::max(2048.0, 256 * std::ceil(tokens / 256))
                              : tokens < 8192 ? 512 * std::ceil(tokens / 512)
                                              : 1024 * std::ceil(tokens / 1024);
    c.max_batch = static_cast<std::size_t>(max_batch);
    c.max_batched_tokens = std::max(static_cast<std::size_t>(max_tokens), c.max_batch);
    c.kv_budget_tokens =
        sim::kv_budget_tokens({.memory_bytes = spec.memory_bytes * r.tensor_parallel,
                               .memory_fraction = 0.95,
                               .weight_bytes = m.parameters * m.bytes_per_parameter,
                               .kv_bytes_per_token = kv});
    c.prefill = sim::prefill_mode::chunked;
    c.kv = sim::kv_policy::reserve_full;
  } else {
    // vLLM 0.5's defaults: 256 sequences, 90 % of memory, no chunked prefill (so 8192 tokens
    // a step for an 8192-token model), preemption by recompute.
    c.max_batch = 256;
    c.max_batched_tokens = 8192;
    c.kv_budget_tokens = sim::kv_budget_tokens({.memory_bytes = spec.memory_bytes,
                                                .memory_fraction = 0.9,
                                                .weight_bytes = m.parameters * 2.0,
                                                .kv_bytes_per_token = kv});
    c.prefill = sim::prefill_mode::whole;
    c.kv = sim::kv_policy::preempt_youngest;
  }
  return c;
}

/// The row as a calibration row: one replica, every request at once, link_of between the GPUs
/// of a TP replica.
inline plan::calibration_row calibration_row_of(const measurement& r) {
  return {.id = r.id,
          .model = shape_of(r),
          .gpu = spec_of(r),
          .tensor_parallel = r.tensor_parallel,
          .interconnect_bytes_per_second = link_of(r),
          .engine = engine_of(r),
          .input_tokens = r.input,
          .output_tokens = r.output,
          .requests = r.requests,
          .measured = r.published,
          .unit = r.unit == "requests_per_second" ? plan::measured_unit::requests_per_second
                                                  : plan::measured_unit::output_tokens_per_second};
}

/// Llama 3.1 8B's shape (config.json) in bf16: the model of the simulated measurements.
inline plan::model_shape llama_8b_bf16() {
  return {.name = "m",
          .parameters = 8.030261248e9,
          .layers = 32,
          .hidden_size = 4096,
          .kv_bytes_per_token = roofline::kv_bytes_per_token(
              {.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2.0}),
          .bytes_per_parameter = 2.0,
          .activation_bytes = 2.0};
}

// Runs at their own (Poisson) arrival times, measured by simulating them with `truth`: the
// same 8B-class model on one or two H100s under vLLM-like limits (128 sequences, 2048-token
// chunks), at low and high load, in three mixes of lengths that pull the parameters apart:
// chat (short prompts and answers: bandwidth, overhead), long prompts with short answers
// (compute) and long contexts decoding long answers (KV bytes against the per-step overhead).
// `n` requests a run; each run its own seed.
inline std::vector<plan::timed_run> simulated_timed_runs(const plan::step_time_parameters& truth,
                                                         std::size_t n) {
  const plan::model_shape m = llama_8b_bf16();
  struct spec {
    std::int32_t tp;
    double rate;  // requests per second offered to the replica
    int mix;      // 0 chat, 1 long prompts, 2 long contexts
  };
  const spec specs[] = {{1, 4, 0},  {1, 20, 0}, {1, 6, 1}, {1, 2, 2},  {1, 8, 2},  {2, 8, 0},
                        {2, 40, 0}, {2, 12, 1}, {2, 4, 2}, {2, 16, 2}, {1, 28, 0}, {2, 24, 2}};
  std::vector<plan::timed_run> runs;
  std::uint64_t seed = 100;
  for (const spec& x : specs) {
    std::string id = "r";  // not "r" + std::to_string(...): g++ 12 -O3 raises a false -Wrestrict
    id += std::to_string(runs.size());
    plan::timed_run r{.id = id,
                      .model = m,
                      .gpu = headroom::roofline::accelerators::h100_sxm,
                      .tensor_parallel = x.tp,
                      .interconnect_bytes_per_second = 450e9};
    r.engine.max_batch = 128;
    r.engine.max_batched_tokens = 2048;
    r.engine.prefill = sim::prefill_mode::chunked;
    r.engine.kv_budget_tokens = sim::kv_budget_tokens({.memory_bytes = r.gpu.memory_bytes * x.tp,
                                                       .memory_fraction = 0.9,
                                                       .weight_bytes = m.parameters * 2.0,
                                                       .kv_bytes_per_token = m.kv_bytes_per_token});
    std::mt19937_64 engine(seed++);
    const auto schedule = headroom::arrivals::poisson_schedule(x.rate, n, engine);
    const sim::lognormal_lengths lengths =
        x.mix == 0   ? sim::lognormal_lengths({.prompt_median = 200.0,
                                               .prompt_sigma = 1.0,
                                               .output_median = 150.0,
                                               .output_sigma = 0.9,
                                               .min = {4, 1},
                                               .max = {4096, 2048}})
        : x.mix == 1 ? sim::lognormal_lengths({.prompt_median = 2000.0,
                                               .prompt_sigma = 0.3,
                                               .output_median = 50.0,
                                               .output_sigma = 0.5,
                                               .min = {4, 1},
                                               .max = {8000, 2048}})
                     : sim::lognormal_lengths({.prompt_median = 3000.0,
                                               .prompt_sigma = 0.2,
                                               .output_median = 600.0,
                                               .output_sigma = 0.2,
                                               .min = {4, 1},
                                               .max = {8000, 2048}});
    const auto requests = sim::make_requests(schedule, lengths, engine);
    const plan::accelerator_option gpu{.spec = r.gpu,
                                       .price_per_gpu_hour = 1.0,
                                       .step_time = truth,
                                       .interconnect_bytes_per_second = 450e9};
    const auto run = sim::simulate(r.engine, requests, plan::make_step_time(m, gpu, x.tp));
    if (run.stats.finished != n) stop("a simulated run did not finish");
    r.measured = plan::observe(run.outcomes);
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace headroom::test

// SPDX-License-Identifier: Apache-2.0
// The error policy of plan.hpp (docs/errors.md): one TEST_CASE per row of its table.
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

#include <headroom/plan.hpp>
#include <headroom/plan/csv_read.hpp>
#include <headroom/plan/csv_write.hpp>
#include <headroom/plan/merge.hpp>
#include <headroom/plan/model_card.hpp>

#include "errors_support.hpp"

using namespace std::chrono_literals;

namespace {
using namespace headroom;
using namespace headroom::roofline;
using namespace headroom::test::errors;
}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("errors: plan validate") {
    const plan::problem good{.name = "g",
                             .model = {.name = "m",
                                       .parameters = 8e9,
                                       .layers = 32,
                                       .hidden_size = 4096,
                                       .kv_bytes_per_token = 131072.0},
                             .axes = {.accelerators = {{.spec = accelerators::h100_sxm,
                                                        .price_per_gpu_hour = 1.0,
                                                        .interconnect_bytes_per_second = 450e9}}},
                             .target = {.ttft = 1s},
                             .traffic = {.rates_per_second = {1.0, 0.0}}};
    CHECK_NOTHROW(plan::validate(good));
    auto p = good;
    p.model.parameters = not_a_number;
    CHECK_REJECTS(plan::validate(p), "model.parameters");
    p = good;
    p.model.layers = 0;
    CHECK_REJECTS(plan::validate(p), "model.layers");
    p = good;
    p.model.kv_bytes_per_token = -1.0;
    CHECK_REJECTS(plan::validate(p), "model.kv_bytes_per_token");
    p = good;
    p.model.name = "a,b";
    CHECK_REJECTS(plan::validate(p), "model.name");
    p = good;
    p.name = "";
    CHECK_REJECTS(plan::validate(p), "problem.name");
    p = good;
    p.axes.max_batch.clear();
    CHECK_REJECTS(plan::validate(p), "axes.max_batch.size()");
    p = good;
    p.axes.accelerators[0].price_per_gpu_hour = inf;
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].price_per_gpu_hour");
    p = good;
    p.axes.accelerators[0].step_time = plan::step_time_parameters{.bandwidth_efficiency = 1.5};
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].step_time.bandwidth_efficiency");
    p = good;
    p.axes.tensor_parallel = {2};
    p.axes.accelerators[0].interconnect_bytes_per_second = 0.0;
    CHECK_REJECTS(plan::validate(p), "axes.accelerators[i].interconnect_bytes_per_second");
    p = good;
    p.axes.memory_fraction = 0.0;
    CHECK_REJECTS(plan::validate(p), "axes.memory_fraction");
    p = good;
    p.target.ttft = 0s;
    CHECK_REJECTS(plan::validate(p), "target.ttft");
    p = good;
    p.target.tpot = nan_s;
    CHECK_REJECTS(plan::validate(p), "target.tpot");
    p = good;
    p.target.quota = 0.0;
    CHECK_REJECTS(plan::validate(p), "target.quota");
    p = good;
    p.traffic.rates_per_second = {1.0, -1.0};
    CHECK_REJECTS(plan::validate(p), "traffic.rates_per_second[i]");
    p = good;
    p.traffic.rates_per_second.clear();
    CHECK_REJECTS(plan::validate(p), "traffic.rates_per_second.size()");
    p = good;
    p.traffic.step = 0s;
    CHECK_REJECTS(plan::validate(p), "traffic.step");
    p = good;
    p.fleet.target_utilization = 1.5;
    CHECK_REJECTS(plan::validate(p), "fleet.target_utilization");
    p = good;
    p.fleet.policy.start_time = inf_s;
    CHECK_REJECTS(plan::validate(p), "fleet.policy.start_time");
    p = good;
    p.search.max_measurements = 1;
    CHECK_REJECTS(plan::validate(p), "search.max_measurements");
    p = good;
    p.search.warm_up_fraction = 0.6;
    p.search.cool_down_fraction = 0.6;
    CHECK_REJECTS(plan::validate(p), "search.cool_down_fraction");
    p = good;
    p.search.zero_load_requests = 0;
    CHECK_REJECTS(plan::validate(p), "search.zero_load_requests");
    const sim::fixed_lengths lengths{.lengths = {.prompt_tokens = 10, .output_tokens = 10}};
    CHECK_REJECTS((plan::evaluate_grid(good, lengths, {.part = {.index = 0, .count = 3}})),
                  "run.part.index");
    CHECK_REJECTS((plan::evaluate_grid(good, lengths, {.part = {.index = 1, .count = 0}})),
                  "run.part.count");
    p = good;
    p.search.z = -1.0;
    CHECK_REJECTS(plan::search(p, lengths), "search.z");
  }

  TEST_CASE("errors: plan read_model_card and to_model_shape") {
    // The reader never throws: a bad file is its error, naming the byte and the field.
    const auto not_json = plan::read_model_card("{\"num_hidden_layers\": NaN}");
    CHECK_FALSE(not_json.ok());
    CHECK(not_json.error.field.empty());
    const auto negative = plan::read_model_card(
        R"({"num_hidden_layers": -1, "hidden_size": 8, "num_attention_heads": 1,
            "vocab_size": 8, "intermediate_size": 8})");
    CHECK_FALSE(negative.ok());
    CHECK(negative.error.field == "num_hidden_layers");
    CHECK(plan::read_model_card("").error.reason == "not a model card: the text is empty");
    const auto card = plan::read_model_card(
        R"({"num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2,
            "vocab_size": 16, "intermediate_size": 16, "torch_dtype": "bfloat16"})");
    REQUIRE(card.ok());
    CHECK_REJECTS(plan::to_model_shape(*card.card, {.precision = numeric_format::int4}),
                  "precision");
    CHECK_REJECTS(plan::to_model_shape(*card.card, {.kv_cache = numeric_format::fp4}), "kv_cache");
  }

  TEST_CASE("errors: plan make_step_time") {
    const plan::model_shape m{.name = "m",
                              .parameters = 8e9,
                              .layers = 32,
                              .hidden_size = 4096,
                              .kv_bytes_per_token = 131072.0};
    plan::accelerator_option gpu{.spec = accelerators::h100_sxm};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 0), "tensor_parallel");
    gpu.step_time = plan::step_time_parameters{.flops_efficiency = 0.0};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 1), "flops_efficiency");
    gpu = {};
    CHECK_REJECTS(plan::make_step_time(m, gpu, 1), "spec.peak_flops_per_second");
    // Weights that leave no room: an outcome, not an error.
    gpu.spec = accelerators::l40s;
    const plan::model_shape big{.name = "m",
                                .parameters = 70e9,
                                .layers = 80,
                                .hidden_size = 8192,
                                .kv_bytes_per_token = 327680.0};
    CHECK_FALSE(plan::replica_kv_budget(big, gpu, 1, 0.9));
  }

  TEST_CASE("errors: plan sample_lengths") {
    CHECK_REJECTS(
        (plan::sample_lengths(
            sim::fixed_lengths{.lengths = {.prompt_tokens = 1, .output_tokens = 1}}, 0, 1)),
        "draws");
    CHECK_REJECTS(
        (plan::sample_lengths(
            sim::fixed_lengths{.lengths = {.prompt_tokens = 0, .output_tokens = 1}}, 1, 1)),
        "lengths().prompt_tokens");
  }

  TEST_CASE("errors: plan write_csv") {
    const plan::problem p{.name = "g",
                          .model = {.name = "m",
                                    .parameters = 8e9,
                                    .layers = 32,
                                    .hidden_size = 4096,
                                    .kv_bytes_per_token = 131072.0}};
    std::vector<plan::row> rows(2);
    plan::decision d;  // decides no row
    CHECK_REJECTS((plan::write_csv(p, {}, {}, rows, &d)), "decided->verdicts.size()");
  }

  TEST_CASE("errors: plan decide") {
    // Never throws: no rows, or none feasible, decide on no winner.
    CHECK_FALSE(plan::decide({}).winner);
    std::vector<plan::row> none(1);
    none[0].status = plan::feasibility::slo_unmet_at_zero_load;
    CHECK_FALSE(plan::decide(none).winner);
    CHECK(plan::decide(none).counts[3] == 1);
  }

  TEST_CASE("errors: plan read_csv merge parse_shard") {
    // Never throw. Bad text: the line and why.
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 12 configurations 1 "
                         "shard 1/1\n")
              .error == "the fingerprint needs 16 hex digits");
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 0123456789abcdef "
                         "configurations 1 shard 2/1\n")
              .error_line == 1);
    CHECK(plan::read_csv("# headroom 0.1.0 plan g model m fingerprint 0123456789abcdef "
                         "configurations 1 shard 1/1\n")
              .error == "a header without column names");
    CHECK(plan::read_csv("").ok());
    CHECK(plan::merge({}).ok());
    CHECK_FALSE(plan::parse_shard("0/1"));
    CHECK_FALSE(plan::parse_shard("1234567890/1234567890"));
  }
}

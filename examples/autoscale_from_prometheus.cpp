// SPDX-License-Identifier: Apache-2.0
// headroom example: an operator loop's one step, query -> decide. Asks a Prometheus server
// for the fleet's in-flight requests (the PromQL that kubernetes.hpp writes into the KEDA
// ScaledObject, or your own --query), reads the answer with prometheus/http_api.hpp, lets the
// controller decide (the HPA's AverageValue rule on an External metric), prints the decision
// with its reason, and writes the controller's /metrics page (prometheus/exposition.hpp).
// Built only when Debian's cpp-httplib is found (the HTTP client; the library itself has no
// dependency). docs/integrations.md, "Recipe 3".
#include <headroom/autoscaler.hpp>
#include <headroom/autoscaler/proposals.hpp>
#include <headroom/kubernetes.hpp>
#include <headroom/prometheus.hpp>

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "flags.hpp"  // the examples' --help and flag checks (examples/flags.hpp)

namespace prom = headroom::prometheus;

int main(int argc, char** argv) {
  std::string url = "http://127.0.0.1:9090";
  std::string query;
  std::string engine = "vllm";
  std::string model;
  std::string page_path = "-";
  std::string name = "default/llm";
  double target = 51.0;
  double timeout_s = 5.0;
  std::int32_t replicas = 1, min_replicas = 1, max_replicas = 20;
  example::flags f("autoscale_from_prometheus",
                   "One step of an operator loop: query Prometheus for the fleet's in-flight "
                   "requests,\ndecide the replica count, print the decision and its reason, "
                   "and write the\ncontroller's /metrics page.");
  f.text("--prometheus", url, "URL", "the Prometheus server (http:// or https://)")
      .text("--query", query, "PROMQL",
            "the fleet total ('': the engine preset's running + waiting, as in KEDA)")
      .choice("--engine", engine, {"vllm", "sglang"}, "metric names of the default query")
      .text("--model", model, "NAME", "model_name label of the default query ('': all)")
      .number("--target", target, {0, 1e9, true, false}, "requests",
              "L*, in-flight requests per replica (kubernetes::in_flight_target)")
      .whole("--replicas", replicas, {0, 2147483647}, "replicas", "the current replica count")
      .whole("--min", min_replicas, {1, 2147483647}, "replicas", "fewest replicas")
      .whole("--max", max_replicas, {1, 2147483647}, "replicas", "most replicas")
      .number("--timeout", timeout_s, {0, 600, true, false}, "seconds", "HTTP timeout")
      .text("--name", name, "NAME", "the autoscaler label on the /metrics page")
      .text("--page", page_path, "FILE", "where to write the /metrics page ('-': stdout)");
  f.parse(argc, argv);
  const auto& preset = engine == "vllm" ? prom::vllm_preset : prom::sglang_preset;

  example::output_buffer out;
  try {
    if (query.empty()) query = headroom::kubernetes::in_flight_query(preset, model);
    const headroom::autoscaling::autoscaler_config config{
        .min_replicas = min_replicas,
        .max_replicas = max_replicas,
        .metrics = {{.name = "in_flight",
                     .source = headroom::autoscaling::metric_source::external,
                     .target_type = headroom::autoscaling::metric_target_type::average_value,
                     .target = target}}};
    const headroom::autoscaling::autoscaler controller(config);

    // Query: GET /api/v1/query, as KEDA's Prometheus scaler does.
    httplib::Client client(url);
    const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::duration<double>(timeout_s));
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    const auto res = client.Get("/api/v1/query", {{"query", query}}, httplib::Headers{});
    const std::string holds = ": the controller holds at " + std::to_string(replicas) + " replicas";
    if (!res) {
      std::fprintf(stderr, "%s: no answer from %s (%s)%s\n", f.program().c_str(), url.c_str(),
                   httplib::to_string(res.error()).c_str(), holds.c_str());
      return 1;
    }
    const prom::api_response answer = prom::parse_api_response(res->body, {.max_bytes = 1 << 20});
    if (!answer.parsed()) {
      std::fprintf(stderr, "%s: HTTP %d, not a Prometheus answer: %s%s\n", f.program().c_str(),
                   res->status, answer.parse_error.message().c_str(), holds.c_str());
      return 1;
    }
    if (answer.status == prom::api_status::error) {
      std::fprintf(stderr, "%s: Prometheus answered %s: %s%s\n", f.program().c_str(),
                   answer.error_type.c_str(), answer.error.c_str(), holds.c_str());
      return 1;
    }
    for (const auto& w : answer.warnings) out.printf("warning: %s\n", w.c_str());
    for (const auto& i : answer.infos) out.printf("info: %s\n", i.c_str());

    // Decide: one call from the answer to the controller's input.
    const prom::query_reading reading = prom::read_query_value(answer);
    const headroom::autoscaling::metric_observation observations[] = {prom::observe_query(answer)};
    const headroom::autoscaling::autoscaler_input input{
        .replicas = {.spec = replicas, .status = replicas, .ready = replicas},
        .metrics = observations};
    headroom::autoscaling::autoscaler_state state;
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    const headroom::autoscaling::autoscaler_decision d = controller.step(state, now, input);

    out.printf("query  %s\n", query.c_str());
    if (reading.value)
      out.printf("value  %g in flight (%s, %zu series) at a target of %g per replica\n",
                 *reading.value, std::string(prom::to_string(answer.type)).c_str(),
                 answer.series.size(), target);
    else
      out.printf("value  none: %s\n", std::string(prom::describe(reading.missing)).c_str());
    out.printf("decide %d -> %d replicas: %s\n", d.current_replicas, d.desired_replicas,
               std::string(headroom::autoscaling::to_string(d.reason)).c_str());

    // The controller's /metrics page.
    const auto proposals =
        headroom::autoscaling::metric_proposals(config, input, d.current_replicas);
    prom::exposition_page page;
    prom::append_decision(page, d,
                          {.autoscaler = name,
                           .metrics = config.metrics,
                           .proposals = proposals,
                           .steps = 1,
                           .rescales = d.rescale() ? 1u : 0u});
    if (page_path == "-") {
      out.append(page.text());
    } else {
      std::FILE* file = std::fopen(page_path.c_str(), "wb");
      if (file == nullptr ||
          std::fwrite(page.text().data(), 1, page.text().size(), file) != page.text().size() ||
          std::fclose(file) != 0)
        f.fail("cannot write " + page_path);
      out.printf("page   %s (%zu bytes)\n", page_path.c_str(), page.text().size());
    }
  } catch (const headroom::invalid_argument& e) {
    f.fail(e.what());
  }
  out.print(f.program());
  return 0;
}

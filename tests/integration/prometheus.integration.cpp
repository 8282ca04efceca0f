// SPDX-License-Identifier: Apache-2.0
// Integration tests against a real Prometheus server (Debian's `prometheus` package), each
// a ctest test of its own (integration.*). Each starts, on 127.0.0.1 only:
//   - loopback HTTP servers (cpp-httplib, Debian's libcpp-httplib-dev; test-only) serving the
//     /metrics pages of N replicas, built from the real vLLM and SGLang fixture pages of
//     tests/data/metrics with values the test sets;
//   - `prometheus` with a temporary configuration and data directory, scraping them every
//     second, on a port found free;
// waits until every target is up, then asks Prometheus's HTTP API for the PromQL that
// kubernetes.hpp writes into the KEDA ScaledObject (read back from the YAML with libyaml)
// and the HPA's External metric, reads the answer with prometheus/http_api.hpp, and checks it
// against what headroom computes from the same pages with the text parser and the engine
// preset; then feeds both to the controller. Everything started is stopped by its own process
// id and the temporary directory removed, on success and on failure (RAII), and each wait is
// bounded. Paths come from the build: HEADROOM_PROMETHEUS (the binary), HEADROOM_PROMTOOL,
// HEADROOM_TEST_DATA_DIR.
#include <headroom/autoscaler.hpp>
#include <headroom/autoscaler/proposals.hpp>
#include <headroom/kubernetes.hpp>
#include <headroom/prometheus.hpp>

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "test_data.hpp"
#include "yaml_reader.hpp"

#if !defined(HEADROOM_PROMETHEUS) || !defined(HEADROOM_PROMTOOL) || !defined(HEADROOM_TEST_DATA_DIR)
#error "HEADROOM_PROMETHEUS, HEADROOM_PROMTOOL and HEADROOM_TEST_DATA_DIR must be defined"
#endif

namespace {

namespace prom = headroom::prometheus;
namespace k8s = headroom::kubernetes;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

/// The longest any wait here lasts: Prometheus starts in about a second and scrapes every
/// second, but a loaded machine (a sanitizer build's suite beside it) has taken over 20 s.
constexpr auto wait_limit = 60s;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The fixture page with the value of every sample of each named metric replaced.
std::string with_values(std::string page,
                        const std::vector<std::pair<std::string, double>>& values) {
  std::string out;
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    for (const auto& [name, value] : values) {
      if (line.rfind(name + "{", 0) != 0 && line.rfind(name + " ", 0) != 0) continue;
      const std::size_t close = line.rfind('}');
      const std::size_t cut = close == std::string::npos ? name.size() : close + 1;
      char number[32];
      std::snprintf(number, sizeof number, "%.17g", value);
      line = line.substr(0, cut) + " " + number;
    }
    out += line;
    out += '\n';
  }
  return out;
}

/// A temporary directory, removed with everything in it when this goes out of scope.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "headroom-it-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

/// A port on 127.0.0.1 that nothing listened on a moment ago.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// One loopback HTTP server serving /metrics (the page can change while it runs).
class page_server {
 public:
  explicit page_server(std::string page) : page_(std::make_shared<std::string>(std::move(page))) {
    server_.Get("/metrics",
                [page = page_, mutex = mutex_](const httplib::Request&, httplib::Response& res) {
                  std::lock_guard<std::mutex> lock(*mutex);
                  res.set_content(*page, std::string(prom::exposition_content_type));
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  page_server(const page_server&) = delete;
  page_server& operator=(const page_server&) = delete;
  ~page_server() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] int port() const noexcept { return port_; }
  void set_page(std::string page) {
    std::lock_guard<std::mutex> lock(*mutex_);
    *page_ = std::move(page);
  }

 private:
  std::shared_ptr<std::string> page_;
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
};

/// What a query through the HTTP API gave: the read answer, or why there is none.
struct query_result {
  std::optional<prom::api_response> answer{};
  std::string failure{};  ///< empty when answer is set
};

/// A `prometheus` process scraping the given ports every second, in its own temporary
/// directory; stopped by its process id (SIGTERM, then SIGKILL) when this goes out of scope.
class prometheus_process {
 public:
  explicit prometheus_process(const std::vector<int>& target_ports) {
    port_ = free_port();
    std::string config =
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: replicas\n    static_configs:\n      - targets:\n";
    for (const int p : target_ports)
      config += "          - '127.0.0.1:" + std::to_string(p) + "'\n";
    const auto config_path = dir_.path() / "prometheus.yml";
    std::ofstream(config_path) << config;
    const std::string log_path = (dir_.path() / "prometheus.log").string();
    const std::vector<std::string> args = {
        HEADROOM_PROMETHEUS, "--config.file=" + config_path.string(),
        "--storage.tsdb.path=" + (dir_.path() / "data").string(),
        "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=info"};
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      // Dies with the test process, even when a crash skips the destructors.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        ::dup2(log, 1);
        ::dup2(log, 2);
      }
      if (::chdir(dir_.path().c_str()) != 0) ::_exit(126);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  prometheus_process(const prometheus_process&) = delete;
  prometheus_process& operator=(const prometheus_process&) = delete;
  ~prometheus_process() { stop(); }

  [[nodiscard]] int port() const noexcept { return port_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_.path(); }

  /// True while the process runs (reaps it when it has exited).
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }

  /// Stops the process: SIGTERM, up to 5 s to exit, then SIGKILL; reaps it.
  void stop(int signal = SIGTERM) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    const auto deadline = clock_type::now() + 5s;
    while (clock_type::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(20ms);
    }
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  /// GET path on the server; the body, or why there is none.
  query_result get(const std::string& path, const httplib::Params& params) {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(2s);
    client.set_read_timeout(5s);
    const auto res = client.Get(path.c_str(), params, httplib::Headers{});
    if (!res)
      return {.failure = "no answer from Prometheus at 127.0.0.1:" + std::to_string(port_) + ": " +
                         httplib::to_string(res.error())};
    prom::api_response answer = prom::parse_api_response(res->body);
    if (!answer.parsed())
      return {.failure = "HTTP " + std::to_string(res->status) +
                         ", answer unreadable: " + answer.parse_error.message()};
    return {.answer = std::move(answer)};
  }

  /// An instant query.
  query_result query(const std::string& promql) {
    return get("/api/v1/query", {{"query", promql}});
  }

  /// Waits until `up` reports `targets` targets, all up; fails the test after wait_limit.
  void wait_until_up(std::size_t targets) {
    const auto deadline = clock_type::now() + wait_limit;
    std::string last;
    while (clock_type::now() < deadline) {
      REQUIRE_MESSAGE(running(), "prometheus exited: " << read_log());
      const query_result r = query("up");
      if (r.answer && r.answer->ok() && r.answer->series.size() == targets) {
        bool all = true;
        for (const auto& s : r.answer->series) all = all && s.points.front().value == 1.0;
        if (all) return;
      }
      last = r.failure;
      std::this_thread::sleep_for(100ms);
    }
    FAIL("targets not up within " << wait_limit.count() << " s; last: " << last
                                  << "; log: " << read_log());
  }

  std::string read_log() const { return read_file(dir_.path() / "prometheus.log"); }

 private:
  temp_dir dir_;
  int port_ = -1;
  pid_t pid_ = -1;
};

/// headroom's in-flight total from the pages: read_replica_load's running + waiting, summed.
double in_flight_from_pages(const std::vector<std::string>& pages,
                            const prom::engine_preset& preset, std::string_view model) {
  double total = 0;
  for (const auto& text : pages) {
    const prom::page p = prom::parse(text);
    REQUIRE(p.ok());
    const auto load = prom::read_replica_load(p, preset, model);
    REQUIRE(load.in_flight().has_value());
    total += *load.in_flight();
  }
  return total;
}

/// The query a ScaledObject's first trigger carries, read back from its YAML with libyaml.
std::string trigger_query_from_yaml(const std::string& yaml) {
  const headroom::test::yaml_document doc = headroom::test::read_yaml(yaml);
  REQUIRE_MESSAGE(doc.error.empty(), doc.error);
  const auto child = [](const headroom::test::yaml_node& n,
                        std::string_view key) -> const headroom::test::yaml_node& {
    for (std::size_t i = 0; i < n.keys.size(); ++i)
      if (n.keys[i] == key) return n.items[i];
    FAIL("no key " << key);
    return n;
  };
  const auto& triggers = child(child(doc.root, "spec"), "triggers");
  REQUIRE(!triggers.items.empty());
  return child(child(triggers.items[0], "metadata"), "query").value;
}

/// A controller with one External AverageValue metric: in-flight requests per replica.
headroom::autoscaling::autoscaler_config in_flight_config(double target) {
  return {.min_replicas = 1,
          .max_replicas = 20,
          .metrics = {{.name = "in_flight",
                       .source = headroom::autoscaling::metric_source::external,
                       .target_type = headroom::autoscaling::metric_target_type::average_value,
                       .target = target}}};
}

/// One step of a fresh controller on one observation.
headroom::autoscaling::autoscaler_decision decide(
    const headroom::autoscaling::autoscaler_config& config,
    headroom::autoscaling::metric_observation observation, std::int32_t replicas) {
  const headroom::autoscaling::autoscaler hpa(config);
  headroom::autoscaling::autoscaler_state state;
  const headroom::autoscaling::metric_observation obs[] = {observation};
  return hpa.step(
      state, std::chrono::milliseconds(0),
      {.replicas = {.spec = replicas, .status = replicas, .ready = replicas}, .metrics = obs});
}

std::string fixture(const char* name) {
  return headroom::test::read_test_data(std::string("metrics/") + name);
}

/// One replica's counters and gauges for a vLLM page written here (the real pages' metric
/// names and histogram layout, the values the test sets).
struct replica_counts {
  double ttft[4];  // cumulative: le 0.1, 0.5, 1.0, +Inf
  double tpot[4];  // cumulative: le 0.025, 0.05, 0.1, +Inf
  double prompt, generated, running, waiting;
};

std::string vllm_page(const replica_counts& c) {
  std::string page;
  char line[160];
  const auto add = [&](const char* format, auto... values) {
    std::snprintf(line, sizeof line, format, values...);
    page += line;
  };
  const char* ttft_le[] = {"0.1", "0.5", "1.0", "+Inf"};
  const char* tpot_le[] = {"0.025", "0.05", "0.1", "+Inf"};
  page +=
      "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n"
      "# TYPE vllm:time_to_first_token_seconds histogram\n";
  for (int i = 0; i < 4; ++i)
    add("vllm:time_to_first_token_seconds_bucket{le=\"%s\",model_name=\"m\"} %g\n", ttft_le[i],
        c.ttft[i]);
  add("vllm:time_to_first_token_seconds_sum{model_name=\"m\"} %g\n", 0.3 * c.ttft[3]);
  add("vllm:time_to_first_token_seconds_count{model_name=\"m\"} %g\n", c.ttft[3]);
  page +=
      "# HELP vllm:request_time_per_output_token_seconds Histogram of "
      "time_per_output_token_seconds "
      "per request.\n# TYPE vllm:request_time_per_output_token_seconds histogram\n";
  for (int i = 0; i < 4; ++i)
    add("vllm:request_time_per_output_token_seconds_bucket{le=\"%s\",model_name=\"m\"} %g\n",
        tpot_le[i], c.tpot[i]);
  add("vllm:request_time_per_output_token_seconds_sum{model_name=\"m\"} %g\n", 0.04 * c.tpot[3]);
  add("vllm:request_time_per_output_token_seconds_count{model_name=\"m\"} %g\n", c.tpot[3]);
  page +=
      "# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.\n"
      "# TYPE vllm:e2e_request_latency_seconds histogram\n";
  add("vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %g\n", c.ttft[3]);
  add("vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} %g\n", 9.0 * c.ttft[3]);
  add("vllm:e2e_request_latency_seconds_count{model_name=\"m\"} %g\n", c.ttft[3]);
  page +=
      "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n"
      "# TYPE vllm:prompt_tokens_total counter\n";
  add("vllm:prompt_tokens_total{model_name=\"m\"} %g\n", c.prompt);
  page +=
      "# HELP vllm:generation_tokens_total Number of generation tokens processed.\n"
      "# TYPE vllm:generation_tokens_total counter\n";
  add("vllm:generation_tokens_total{model_name=\"m\"} %g\n", c.generated);
  page +=
      "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
      "# TYPE vllm:num_requests_running gauge\n";
  add("vllm:num_requests_running{model_name=\"m\"} %g\n", c.running);
  page +=
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
      "# TYPE vllm:num_requests_waiting gauge\n";
  add("vllm:num_requests_waiting{model_name=\"m\"} %g\n", c.waiting);
  return page;
}

}  // namespace

TEST_SUITE("integration") {
  TEST_CASE("vllm_keda_query") {
    // Three vLLM V1 replicas (the DeepSeek fixture page) with running/waiting 12+3, 7+0.5
    // and 20+9: the fleet's in-flight total is 51.5.
    const std::string base = fixture("vllm_v1_deepseek_specdecode.txt");
    const std::string model = "deepseek-v4-flash-vision-exp-ablit-dual";
    const std::vector<std::pair<double, double>> loads = {{12, 3}, {7, 0.5}, {20, 9}};
    std::vector<std::string> pages;
    for (const auto& [running, waiting] : loads)
      pages.push_back(with_values(
          base, {{"vllm:num_requests_running", running}, {"vllm:num_requests_waiting", waiting}}));
    std::vector<std::unique_ptr<page_server>> servers;
    std::vector<int> ports;
    for (const auto& p : pages) {
      servers.push_back(std::make_unique<page_server>(p));
      ports.push_back(servers.back()->port());
    }
    prometheus_process server(ports);
    server.wait_until_up(servers.size());

    // The ScaledObject as kubernetes.hpp writes it, its trigger query read back from the YAML.
    const auto config = in_flight_config(10.0);
    const std::string yaml = k8s::scaled_object_yaml(
        {.name = "llm", .namespace_name = "default", .target_name = "vllm"}, config,
        {.server_address = "http://127.0.0.1:" + std::to_string(server.port()),
         .triggers = {{.metric_name = "in_flight",
                       .query = k8s::in_flight_query(prom::vllm_preset, model)}}});
    const std::string query = trigger_query_from_yaml(yaml);
    CHECK(query == k8s::in_flight_query(prom::vllm_preset, model));

    const query_result r = server.query(query);
    REQUIRE_MESSAGE(r.answer, r.failure);
    REQUIRE(r.answer->ok());
    CHECK(r.answer->type == prom::api_result_type::vector);
    const double from_pages = in_flight_from_pages(pages, prom::vllm_preset, model);
    CHECK(from_pages == 51.5);  // 12 + 3 + 7 + 0.5 + 20 + 9
    const prom::query_reading reading = prom::read_query_value(*r.answer);
    REQUIRE(reading.value.has_value());
    CHECK(*reading.value == from_pages);

    // The controller decides alike from the API's answer and from the pages: 51.5 in flight
    // at a target of 10 per replica -> ceil(5.15) = 6 replicas from 3 (limit max(6, 4) = 6).
    const auto via_api = decide(config, prom::observe_query(*r.answer), 3);
    const auto via_pages = decide(config, headroom::autoscaling::observe_value(from_pages), 3);
    CHECK(via_api.desired_replicas == 6);
    CHECK(via_api.desired_replicas == via_pages.desired_replicas);
    CHECK(via_api.raw_recommendation == via_pages.raw_recommendation);
    CHECK(via_api.reason == via_pages.reason);

    // A range query over the 2 s before the instant query's evaluation time (its answer's
    // timestamp): a matrix whose last point is the total.
    const auto at_ms = r.answer->series.at(0).points.at(0).timestamp.count();
    const auto seconds = [](long long ms) {
      return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
    };
    const query_result range = server.get("/api/v1/query_range", {{"query", query},
                                                                  {"start", seconds(at_ms - 2000)},
                                                                  {"end", seconds(at_ms)},
                                                                  {"step", "1"}});
    REQUIRE_MESSAGE(range.answer, range.failure);
    REQUIRE(range.answer->ok());
    CHECK(range.answer->type == prom::api_result_type::matrix);
    REQUIRE(range.answer->series.size() == 1);
    for (const auto& point : range.answer->series[0].points) {
      // A point before every target's first scrape may hold a partial sum; the last holds all.
      CHECK(point.value <= from_pages);
    }
    CHECK(range.answer->series[0].points.back().value == from_pages);
  }

  TEST_CASE("sglang_hpa_external_query") {
    // Two SGLang replicas (the documentation's Llama 3.1 8B page) with running/queued 40+2
    // and 61+0; a third, of another model, that the model filter must leave out.
    const std::string base = fixture("sglang_llama31_8b_docs.txt");
    const std::string model = "meta-llama/Llama-3.1-8B-Instruct";
    std::vector<std::string> pages = {
        with_values(base, {{"sglang:num_running_reqs", 40}, {"sglang:num_queue_reqs", 2}}),
        with_values(base, {{"sglang:num_running_reqs", 61}, {"sglang:num_queue_reqs", 0}})};
    std::string other =
        with_values(base, {{"sglang:num_running_reqs", 1000}, {"sglang:num_queue_reqs", 1000}});
    for (std::size_t at = other.find(model); at != std::string::npos; at = other.find(model))
      other.replace(at, model.size(), "other/model");
    std::vector<std::unique_ptr<page_server>> servers;
    std::vector<int> ports;
    for (const auto& p : pages) servers.push_back(std::make_unique<page_server>(p));
    servers.push_back(std::make_unique<page_server>(other));
    for (const auto& s : servers) ports.push_back(s->port());
    prometheus_process server(ports);
    server.wait_until_up(servers.size());

    // The HPA names the External metric; its PromQL (the metrics adapter's query,
    // docs/integrations.md) is kubernetes.hpp's in_flight_query for the preset.
    const auto config = in_flight_config(16.0);
    const std::string hpa =
        k8s::horizontal_pod_autoscaler_yaml({.name = "llm", .target_name = "sglang"}, config);
    CHECK(hpa.find("name: in_flight") != std::string::npos);
    const std::string query = k8s::in_flight_query(prom::sglang_preset, model);
    CHECK(query ==
          "sum(sglang:num_running_reqs{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}) + "
          "sum(sglang:num_queue_reqs{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"})");
    const query_result r = server.query(query);
    REQUIRE_MESSAGE(r.answer, r.failure);
    REQUIRE(r.answer->ok());
    const double from_pages = in_flight_from_pages(pages, prom::sglang_preset, model);
    CHECK(from_pages == 103.0);  // 40 + 2 + 61 + 0; the other model's 2000 left out
    CHECK(prom::read_query_value(*r.answer).value == from_pages);
    // 103 at a target of 16 per replica: ceil(6.4375) = 7 from 4 (limit max(8, 4) = 8).
    const auto via_api = decide(config, prom::observe_query(*r.answer), 4);
    const auto via_pages = decide(config, headroom::autoscaling::observe_value(from_pages), 4);
    CHECK(via_api.desired_replicas == 7);
    CHECK(via_api.desired_replicas == via_pages.desired_replicas);

    // The same pages' KV usage through PromQL's max: the preset's maximum over replicas.
    const query_result kv = server.query("max(sglang:token_usage{model_name=\"" + model + "\"})");
    REQUIRE_MESSAGE(kv.answer, kv.failure);
    // sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28 on every page.
    CHECK(prom::read_query_value(*kv.answer).value == 0.28);
  }

  TEST_CASE("deployment_window") {
    // Two vLLM replicas, scraped first at counts A and then at counts B, replica b restarting
    // in between (its counters drop). The range query deployment_query writes, over the span
    // from A seen to B seen, read by read_deployment_window: every counter's increase is B − A
    // (a) and B (b, counted from its restart), summed by hand below.
    const replica_counts a_before{{10, 20, 25, 30}, {10, 20, 28, 30}, 3000, 6000, 5, 0};
    const replica_counts b_before{{5, 10, 10, 12}, {2, 6, 11, 12}, 1200, 2400, 3, 1};
    const replica_counts a_after{{40, 70, 85, 100}, {55, 65, 97, 100}, 10000, 20000, 9, 4};
    // Every one of b's counters lower after than before: a restart the samples can tell (a
    // restarted counter already past its old value reads as a rise, in PromQL too).
    const replica_counts b_after{{4, 8, 9, 10}, {1, 5, 9, 10}, 1000, 2000, 2, 0};
    std::vector<std::unique_ptr<page_server>> servers;
    servers.push_back(std::make_unique<page_server>(vllm_page(a_before)));
    servers.push_back(std::make_unique<page_server>(vllm_page(b_before)));
    for (const auto& page : {vllm_page(a_before), vllm_page(b_before)}) {
      const prom::page parsed = prom::parse(page);  // the pages are valid text format
      REQUIRE_MESSAGE(parsed.ok(), page);
    }
    prometheus_process server({servers[0]->port(), servers[1]->port()});
    server.wait_until_up(2);

    // The evaluation time at which every replica's page is seen with `total` requests.
    const auto seen_at = [&](double total) {
      const auto deadline = clock_type::now() + wait_limit;
      while (clock_type::now() < deadline) {
        const query_result r =
            server.query("sum(vllm:e2e_request_latency_seconds_count{model_name=\"m\"})");
        if (r.answer && r.answer->ok() && r.answer->series.size() == 1 &&
            r.answer->series[0].points[0].value == total)
          return r.answer->series[0].points[0].timestamp.count();
        std::this_thread::sleep_for(100ms);
      }
      FAIL("the pages were not scraped with " << total << " requests; log: " << server.read_log());
      return std::int64_t{0};
    };
    const std::int64_t t0 = seen_at(30 + 12);
    servers[0]->set_page(vllm_page(a_after));
    servers[1]->set_page(vllm_page(b_after));
    const std::int64_t t1 = seen_at(100 + 10);
    // Steps of 1 s from t0 to the first step at or after t1 (B is current until the end).
    const std::int64_t steps = (t1 - t0 + 999) / 1000;
    const auto seconds = [](std::int64_t ms) {
      return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
    };
    const std::string query = prom::deployment_query(prom::vllm_preset, "m");
    const query_result range =
        server.get("/api/v1/query_range", {{"query", query},
                                           {"start", seconds(t0)},
                                           {"end", seconds(t0 + steps * 1000)},
                                           {"step", "1"}});
    REQUIRE_MESSAGE(range.answer, range.failure);
    REQUIRE_MESSAGE(range.answer->ok(), range.answer->error);
    const prom::deployment_reading reading =
        prom::read_deployment_window(*range.answer, prom::vllm_preset);
    REQUIRE_MESSAGE(reading.missing == prom::range_missing::none, prom::describe(reading.missing));
    const prom::deployment_window& w = *reading.window;
    CHECK(w.start.count() == t0);
    CHECK(w.end.count() == t0 + steps * 1000);
    // Requests: a 100 − 30, b 10 (restarted): 80. Tokens: prompt 7000 + 1000, output 14000 +
    // 2000: 100 and 200 a request.
    CHECK(w.requests == 80.0);
    CHECK(*w.request_rate_per_second ==
          doctest::Approx(80.0 / (static_cast<double>(steps))).epsilon(1e-12));
    CHECK(*w.prompt_tokens_per_request == doctest::Approx(100.0).epsilon(1e-12));
    CHECK(*w.output_tokens_per_request == doctest::Approx(200.0).epsilon(1e-12));
    // b's counters read, each dropped once: 4 TTFT and 4 TPOT buckets, the TTFT count, the
    // e2e bucket and count, the two token counters (its TPOT count is matched, not read).
    CHECK(w.counter_resets == 13);
    // TTFT: a +30, +50, +60, +70; b 4, 8, 9, 10: 34, 58, 69, 80. TPOT: a 45, 45, 69, 70; b 1,
    // 5, 9, 10: 46, 50, 78, 80.
    REQUIRE(w.ttft.size() == 4);
    CHECK(w.ttft[0].cumulative_count == 34.0);
    CHECK(w.ttft[1].cumulative_count == 58.0);
    CHECK(w.ttft[2].cumulative_count == 69.0);
    CHECK(w.ttft[3].cumulative_count == 80.0);
    REQUIRE(w.tpot.size() == 4);
    CHECK(w.tpot[0].cumulative_count == 46.0);
    CHECK(w.tpot[1].cumulative_count == 50.0);
    CHECK(w.tpot[2].cumulative_count == 78.0);
    // Gauges: running 5 + 3 = 8 at A, 9 + 2 = 11 at B; waiting 1, then 4.
    CHECK(w.running.samples == static_cast<std::size_t>(steps + 1));
    CHECK(*w.running.max == 11.0);
    CHECK(*w.running.mean >= 8.0);
    CHECK(*w.running.mean <= 11.0);
    CHECK(*w.waiting.max == 4.0);
    // TTFT <= 0.5 s and TPOT <= 0.05 s: 58/80 and 50/80, jointly in [28/80, 50/80].
    const prom::conformance_bounds b = prom::window_conformance(w, {.ttft = 500ms, .tpot = 50ms});
    CHECK(b.requests == 80.0);
    CHECK(b.lower == doctest::Approx(28.0 / 80.0).epsilon(1e-12));
    CHECK(b.upper == doctest::Approx(50.0 / 80.0).epsilon(1e-12));
  }

  TEST_CASE("exposition_scraped") {
    // The controller's decision, each metric's proposal and a capacity measurement on a
    // /metrics page that Prometheus scrapes: every series comes back with its value.
    const auto config = in_flight_config(10.0);
    const headroom::autoscaling::metric_observation obs[] = {
        headroom::autoscaling::observe_value(51.5)};
    const headroom::autoscaling::autoscaler hpa(config);
    headroom::autoscaling::autoscaler_state state;
    const headroom::autoscaling::autoscaler_input in{
        .replicas = {.spec = 3, .status = 3, .ready = 3}, .metrics = obs};
    const auto d = hpa.step(state, std::chrono::milliseconds(0), in);
    const auto proposals = headroom::autoscaling::metric_proposals(config, in, d.current_replicas);
    prom::exposition_page page;
    prom::append_decision(page, d,
                          {.autoscaler = "default/llm \"a\"",
                           .metrics = config.metrics,
                           .proposals = proposals,
                           .steps = 1,
                           .rescales = 1});
    prom::append_capacity(page, {.model = "m",
                                 .capacity_per_second = 8.25,
                                 .conformance = 0.991,
                                 .conformance_lower = 0.983,
                                 .conformance_upper = 0.996,
                                 .confidence_level = 0.95,
                                 .requests = 4000});
    // promtool's lint on the very page served.
    temp_dir dir;
    const auto page_path = dir.path() / "page.prom";
    std::ofstream(page_path) << page.text();
    const std::string check = std::string(HEADROOM_PROMTOOL) + " check metrics < '" +
                              page_path.string() + "' > '" + (dir.path() / "lint").string() +
                              "' 2>&1";
    CHECK(std::system(check.c_str()) == 0);
    CHECK(read_file(dir.path() / "lint").empty());

    page_server replica(page.text());
    prometheus_process server({replica.port()});
    server.wait_until_up(1);
    // Every sample written comes back, same labels (plus job and instance), same value.
    const prom::page written = prom::parse(page.text());
    REQUIRE(written.ok());
    std::size_t compared = 0;
    for (const prom::sample& s : written.samples()) {
      std::string selector = std::string(s.name) + "{";
      for (const prom::label& l : written.labels(s)) {
        selector += std::string(l.name) + "=\"" + std::string(l.value) + "\",";  // raw = escaped
      }
      selector += "job=\"replicas\"}";
      const query_result r = server.query(selector);
      REQUIRE_MESSAGE(r.answer, r.failure);
      REQUIRE_MESSAGE(r.answer->ok(), selector);
      REQUIRE_MESSAGE(r.answer->series.size() == 1, selector);
      CHECK_MESSAGE(r.answer->series[0].points[0].value == s.value, selector);
      for (const prom::label& l : written.labels(s))
        CHECK(r.answer->series[0].label(l.name) == prom::unescape(l.value));
      ++compared;
    }
    CHECK(compared == written.samples().size());
    CHECK(compared > 20);
  }

#ifdef HEADROOM_EXAMPLE_AUTOSCALE_FROM_PROMETHEUS
  TEST_CASE("example_autoscale_from_prometheus") {
    // examples/autoscale_from_prometheus.cpp against three vLLM replicas serving 12+3, 7+0.5
    // and 20+9 in flight: 51.5 at a target of 10 -> 6 replicas from 3 (docs/integrations.md).
    const std::string base = fixture("vllm_v1_deepseek_specdecode.txt");
    std::vector<std::unique_ptr<page_server>> servers;
    std::vector<int> ports;
    for (const auto& [running, waiting] :
         std::vector<std::pair<double, double>>{{12, 3}, {7, 0.5}, {20, 9}}) {
      servers.push_back(std::make_unique<page_server>(with_values(
          base, {{"vllm:num_requests_running", running}, {"vllm:num_requests_waiting", waiting}})));
      ports.push_back(servers.back()->port());
    }
    prometheus_process server(ports);
    server.wait_until_up(servers.size());
    temp_dir dir;
    const auto page = dir.path() / "page.prom";
    const std::string command = std::string(HEADROOM_EXAMPLE_AUTOSCALE_FROM_PROMETHEUS) +
                                " --prometheus http://127.0.0.1:" + std::to_string(server.port()) +
                                " --engine vllm --model deepseek-v4-flash-vision-exp-ablit-dual" +
                                " --target 10 --replicas 3 --page '" + page.string() + "' > '" +
                                (dir.path() / "out").string() + "' 2>&1";
    CHECK(std::system(command.c_str()) == 0);
    const std::string out = read_file(dir.path() / "out");
    CHECK(out.find("value  51.5 in flight (vector, 1 series) at a target of 10 per replica\n") !=
          std::string::npos);
    CHECK(out.find("decide 3 -> 6 replicas: DesiredWithinRange\n") != std::string::npos);
    MESSAGE(out);
    const std::string page_text = read_file(page);
    const prom::page p = prom::parse(page_text);
    REQUIRE(p.ok());
    CHECK(prom::aggregate(p, "headroom_autoscaler_desired_replicas").sum == 6);
  }
#endif

  TEST_CASE("server_killed") {
    // Prometheus dies mid-test: the next query reports that no answer came, naming the
    // address; the process is gone (reaped), and its directory is removed at the end.
    const std::string base = fixture("vllm_v0_mixed_datadog.txt");
    page_server replica(base);
    std::filesystem::path dir;
    {
      prometheus_process server({replica.port()});
      dir = server.dir();
      server.wait_until_up(1);
      const query_result before = server.query("up");
      REQUIRE_MESSAGE(before.answer, before.failure);
      CHECK(before.answer->ok());
      const pid_t pid = server.pid();
      server.stop(SIGKILL);
      CHECK_FALSE(server.running());
      CHECK(::kill(pid, 0) == -1);  // no such process any more
      const query_result after = server.query("up");
      CHECK_FALSE(after.answer.has_value());
      CHECK(after.failure.find("no answer from Prometheus at 127.0.0.1:" +
                               std::to_string(server.port())) == 0);
      // What an operator's loop feeds the controller then: an unreadable (empty) answer is a
      // missing observation, and the controller holds, saying why.
      const prom::api_response empty = prom::parse_api_response("");
      CHECK(empty.parse_error.message() == "byte 0: the answer is empty");
      const auto held = decide(in_flight_config(10.0), prom::observe_query(empty), 3);
      CHECK(held.desired_replicas == 3);
      CHECK(held.reason == headroom::autoscaling::scale_reason::metric_missing);
    }
    CHECK_FALSE(std::filesystem::exists(dir));
  }
}

// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/prometheus/http_api.hpp and range.hpp. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/prometheus_api.fuzz.cpp -o /tmp/prom_api_fuzz
//   /tmp/prom_api_fuzz -max_total_time=120 tests/fuzz/corpus/prometheus_api
// Invariants: no crash or sanitizer report; a failure's offset lies within the input and
// leaves no result behind; a vector's series hold one point each; labels are sorted and
// unique, their names classic and at most 1024 bytes; an answer read under limits never holds more
// than they allow, and one within them reads as it does without them; read_query_value agrees with
// the result it reads; read_deployment_window (prometheus/range.hpp) gives a window exactly when
// it gives no reason, with requests >= 0, and window_conformance bounds within [0, 1], lower <=
// upper.
#include <headroom/prometheus/engines.hpp>
#include <headroom/prometheus/http_api.hpp>
#include <headroom/prometheus/range.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

namespace prom = headroom::prometheus;

void require(bool condition) {
  if (!condition) std::abort();
}

std::size_t total_points(const prom::api_response& r) {
  std::size_t n = r.type == prom::api_result_type::scalar ? 1 : 0;
  for (const auto& s : r.series) n += s.points.size();
  return n;
}

bool same(const prom::api_response& a, const prom::api_response& b) {
  if (a.parse_error.code != b.parse_error.code || a.status != b.status || a.type != b.type ||
      a.series.size() != b.series.size() || a.warnings != b.warnings || a.infos != b.infos ||
      a.error != b.error || a.error_type != b.error_type || a.string_value != b.string_value)
    return false;
  for (std::size_t i = 0; i < a.series.size(); ++i) {
    if (a.series[i].labels != b.series[i].labels) return false;
    if (a.series[i].points.size() != b.series[i].points.size()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  const prom::api_response r = prom::parse_api_response(json);
  if (!r.parsed()) {
    require(r.parse_error.offset <= size);
    require(r.type == prom::api_result_type::none && r.series.empty());
    require(!r.parse_error.message().empty());
    require(prom::read_query_value(r).missing == prom::query_missing::malformed);
    return 0;
  }
  std::size_t most_labels = 0;
  for (const auto& s : r.series) {
    if (r.type == prom::api_result_type::vector) require(s.points.size() == 1);
    for (const auto& l : s.labels)  // the text parser's name rule and bound
      require(prom::is_legacy_label_name(l.name) &&
              l.name.size() <= prom::default_max_label_name_bytes);
    for (std::size_t k = 1; k < s.labels.size(); ++k)
      require(s.labels[k - 1].name < s.labels[k].name);
    most_labels = std::max(most_labels, s.labels.size());
  }
  const prom::query_reading reading = prom::read_query_value(r, prom::null_values::no_value);
  if (reading.value) {
    require(std::isfinite(*reading.value));
    require(r.ok());
  }
  // A deployment window from any answer: a window or a reason; its shares within [0, 1].
  const prom::deployment_reading dw = prom::read_deployment_window(r, prom::vllm_preset);
  require((dw.missing == prom::range_missing::none) == dw.window.has_value());
  if (dw.window) {
    require(dw.window->requests >= 0.0);
    require(dw.window->start <= dw.window->end);
    using namespace std::chrono_literals;
    const prom::conformance_bounds b =
        prom::window_conformance(*dw.window, {.ttft = 500ms, .tpot = 50ms});
    require(b.lower >= 0.0 && b.lower <= b.upper && b.upper <= 1.0 && b.requests >= 0.0);
  }
  // Limits at exactly what the answer holds read it the same; one less fails.
  const prom::api_limits exact{.max_bytes = size,
                               .max_series = r.series.size() + 1,
                               .max_points = total_points(r) + 1,
                               .max_labels_per_series = most_labels + 1,
                               .max_string_bytes = 0,
                               .max_messages = r.warnings.size() + r.infos.size() + 1};
  require(same(prom::parse_api_response(json, exact), r));
  if (r.series.size() > 1) {
    prom::api_limits fewer = exact;
    fewer.max_series = r.series.size() - 1;
    const auto limited = prom::parse_api_response(json, fewer);
    require(!limited.parsed() && limited.series.empty());
  }
  return 0;
}

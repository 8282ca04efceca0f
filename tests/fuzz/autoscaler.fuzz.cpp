// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/autoscaler.hpp. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/autoscaler.fuzz.cpp -o /tmp/fz_autoscaler
//   /tmp/fz_autoscaler -max_total_time=120 tests/fuzz/corpus/autoscaler
// The input is a byte program: a configuration (an HPA, or a Knative KPA; every field,
// invalid values included: the constructor may throw invalid_argument, which ends the
// input), then up to 200 steps with non-decreasing times (repeated times are retries),
// arbitrary spec/status/ready counts and observations (NaN, ±Inf, huge, missing, pending,
// terminated and CPU-unready pods, forecasts). A byte read past the end is 0, so a short
// input decodes into small, valid defaults. Invariants, checked on every step, against a
// model the harness keeps itself (the whole recommendation history and the scale events,
// stored and recycled as horizontal.go storeScaleEvent does; a retry restores the model as
// it was before the sync it repeats):
//  * a negative count or request throws invalid_argument and leaves the state untouched;
//  * the clamping rules before the metrics: at 0 replicas ScalingDisabled unless the HPA
//    scaled to zero itself, AboveMaxReplicas/BelowMinReplicas set max/min; otherwise desired
//    lies in [min, max];
//  * failed_metrics/first_failed_metric match the observations; all failed never moves;
//    MetricMissing holds and stores nothing;
//  * stabilized == clamp(n, up, down) over the model's history (age < window with a
//    behavior, age <= window without), so desired >= min(n, down);
//  * the scale-up limit (policies, or max(2n, 4) without a behavior) and the scale-down
//    limit, recomputed from the model's events, are never exceeded; Disabled never moves;
//  * hold_scale_down_while_starting never scales down with replicas starting;
//  * KPA: desired within [min-scale (reachable only), max-scale]; in a continuous panic the
//    desired count never decreases;
//  * replaying the step from a copy of the state gives the same decision and state.
#include <headroom/autoscaler.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace {

namespace hr = headroom::autoscaling;
using ms = std::chrono::milliseconds;
using sec = std::chrono::seconds;

[[noreturn]] void violated(const char* what, int line) {
  std::fprintf(stderr, "autoscaler fuzz invariant violated (line %d): %s\n", line, what);
  std::abort();
}
#define REQUIRE_INV(cond)                   \
  do {                                      \
    if (!(cond)) violated(#cond, __LINE__); \
  } while (false)

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool empty() const noexcept { return pos_ >= size_; }
  std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : std::uint8_t{0}; }
  std::uint16_t u16() noexcept {
    const auto hi = byte();
    return static_cast<std::uint16_t>((hi << 8) | byte());
  }
  double raw_double() noexcept {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | byte();
    double d = 0.0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  template <class T, std::size_t N>
  T pick(const std::array<T, N>& table) noexcept {
    return table[byte() % N];
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// A metric value: table entries (index 0 = a typical value) plus raw bytes.
double value(reader& r) {
  static constexpr std::array<double, 30> table{
      10.0,   0.0,   1.0,  50.0, 100.0, nan_v, inf_v, -inf_v,   0.5,
      1e-300, 1e300, -1.0, 5.0,  20.0,  1e15,  1e16,  51.0,     6.4,
      99.9,   100.1, 0.9,  1.1,  -0.0,  80.0,  200.0, 4.9e-324, 1.7976931348623157e308,
      9.0,    11.0,  3.0};
  const std::uint8_t b = r.byte();
  if (b < 200) return table[b % table.size()];
  if (b < 220) return static_cast<double>(r.byte());
  if (b < 240) return static_cast<double>(r.u16()) / 100.0;
  return r.raw_double();
}

std::int32_t count(reader& r) {
  const std::uint8_t b = r.byte();
  if (b < 200) return b % 20;
  if (b < 245) return b;
  switch (b) {
    case 245:
      return std::numeric_limits<std::int32_t>::max();
    case 246:
      return std::numeric_limits<std::int32_t>::max() - 1;
    case 247:
      return -1;  // must throw
    case 248:
      return std::numeric_limits<std::int32_t>::min();  // must throw
    case 249:
      return 1'000'000;
    default:
      return static_cast<std::int32_t>(r.u16());
  }
}

sec window(reader& r) {
  static constexpr std::array<std::int64_t, 20> table{
      0, 300, 15, 60, 1, 14, 16, 299, 301, 3600, 120, 45, 30, 600, 86400, 0, 5, 10, 900, -1};
  return sec{r.pick(table)};
}

hr::scaling_rules rules(reader& r) {
  hr::scaling_rules out;
  const std::uint8_t w = r.byte();
  if (w % 4 != 3) out.stabilization_window = window(r);  // else unset (defaulted)
  const std::uint8_t sel = r.byte();
  out.select = sel % 8 == 6 ? hr::select_policy::disabled
                            : (sel % 8 == 7 ? hr::select_policy::min : hr::select_policy::max);
  const int n = r.byte() % 4;
  static constexpr std::array<std::int32_t, 16> values{4,  100, 1, 50,  10, 200, 1000,       7,
                                                       33, 2,   3, 150, 0,  -5,  2147483647, 99};
  static constexpr std::array<std::int64_t, 12> periods{15,   1,  60, 14, 16,   300,
                                                        1800, 30, 5,  0,  3600, 600};
  for (int i = 0; i < n; ++i) {
    hr::scaling_policy p;
    p.type = r.byte() % 2 == 0 ? hr::scaling_policy_type::pods : hr::scaling_policy_type::percent;
    p.value = r.pick(values);
    p.period = sec{r.pick(periods)};
    out.policies.push_back(p);
  }
  return out;
}

hr::autoscaler_config decode_config(reader& r) {
  hr::autoscaler_config c;
  const std::uint8_t lo = r.byte();
  c.min_replicas = lo < 250 ? 1 + lo % 6 - (lo % 13 == 12 ? 1 : 0) : (lo == 255 ? -1 : 0);
  const std::uint8_t hi = r.byte();
  if (hi < 240)
    c.max_replicas = c.min_replicas + 9 + hi % 24 - 9 * (hi % 5 == 4 ? 1 : 0);
  else if (hi < 250)
    c.max_replicas = std::numeric_limits<std::int32_t>::max();
  else
    c.max_replicas = c.min_replicas - (hi % 2);  // min - 1 throws; max 0 throws

  static constexpr std::array<std::pair<hr::metric_source, hr::metric_target_type>, 10> kinds{{
      {hr::metric_source::external, hr::metric_target_type::average_value},
      {hr::metric_source::pods, hr::metric_target_type::average_value},
      {hr::metric_source::resource, hr::metric_target_type::utilization},
      {hr::metric_source::resource, hr::metric_target_type::average_value},
      {hr::metric_source::object, hr::metric_target_type::value},
      {hr::metric_source::object, hr::metric_target_type::average_value},
      {hr::metric_source::external, hr::metric_target_type::value},
      {hr::metric_source::container_resource, hr::metric_target_type::utilization},
      {hr::metric_source::resource, hr::metric_target_type::utilization},
      {hr::metric_source::pods, hr::metric_target_type::utilization},  // invalid
  }};
  static constexpr std::array<double, 16> targets{
      10.0, 50.0, 1.0, 100.0, 6.4, 0.5, 0.001, 1e9, 80.0, 51.0, 3.0, 0.7, 1e300, nan_v, 0.0, -1.0};
  const int metric_count = 1 + r.byte() % 3;
  for (int i = 0; i < metric_count; ++i) {
    const auto kind = r.pick(kinds);
    const std::uint8_t k = r.byte();
    // the invalid kind only when asked twice
    const auto chosen = kind.second == hr::metric_target_type::utilization &&
                                kind.first == hr::metric_source::pods && k % 2 == 0
                            ? kinds[2]
                            : kind;
    c.metrics.push_back({.name = (k & 0x40) != 0 ? "cpu" : "memory",
                         .source = chosen.first,
                         .target_type = chosen.second,
                         .target = targets[(k >> 1) % targets.size()]});
  }
  static constexpr std::array<double, 12> tolerances{0.1, 0.0,  0.05,  0.5,  1.0,   0.1,
                                                     0.2, 10.0, 1e300, 0.01, nan_v, -0.1};
  c.scale_up_tolerance = r.pick(tolerances);
  c.scale_down_tolerance = r.pick(tolerances);

  const std::uint8_t flags = r.byte();
  switch (flags & 3) {
    case 0:
      break;  // no behavior
    case 1:
      c.behavior = hr::scaling_behavior{};
      break;
    default:
      c.behavior = hr::scaling_behavior{.scale_up = rules(r), .scale_down = rules(r)};
  }
  c.downscale_stabilization = window(r);
  static constexpr std::array<std::int64_t, 8> syncs{15000, 1000, 60000, 100, 5000, 30000, 250, 0};
  c.sync_period = ms{r.pick(syncs)};
  c.count_starting_replicas = (flags & 4) == 0;
  c.hold_scale_down_while_starting = (flags & 8) != 0;
  static constexpr std::array<std::int32_t, 8> reserves{0, 0, 1, 2, 3, 10, -1, 2147483647};
  c.reserve_replicas = r.pick(reserves);
  return c;
}

hr::kpa_config decode_kpa(reader& r) {
  hr::kpa_config k;
  const std::uint8_t b = r.byte();
  if (b & 1) {
    k.metric = hr::kpa_metric::requests_per_second;
  }
  static constexpr std::array<double, 8> totals{100.0, 1.0, 10.0, 0.01, 1e9, 0.0, -1.0, nan_v};
  if (b & 2) k.total_per_replica = r.pick(totals);
  static constexpr std::array<double, 8> utils{0.7, 1.0, 0.5, 0.01, 0.0, 1.5, 0.75, nan_v};
  k.target_utilization = r.pick(utils);
  static constexpr std::array<double, 8> rates{1000.0, 2.0, 1.1, 10.0, 1.0, 1e300, 0.5, inf_v};
  k.max_scale_up_rate = r.pick(rates);
  k.max_scale_down_rate = r.pick(rates);
  static constexpr std::array<double, 8> thresholds{2.0, 1.1, 1.0, 10.0, 0.5, 3.0, 0.0, nan_v};
  k.panic_threshold = r.pick(thresholds);
  static constexpr std::array<std::int64_t, 8> stables{60, 6, 5, 3600, 3601, 30, 120, 10};
  k.stable_window = sec{r.pick(stables)};
  static constexpr std::array<std::int64_t, 8> delays{0, 0, 10, 60, 300, 3600, -1, 1};
  k.scale_down_delay = sec{r.pick(delays)};
  static constexpr std::array<std::int32_t, 8> activations{0, 0, 2, 3, 1, 10, -1, 1000};
  k.activation_scale = r.pick(activations);
  static constexpr std::array<double, 8> tbcs{211.0, 0.0, -1.0, 50.0, -2.0, 1e9, nan_v, 1.0};
  k.target_burst_capacity = r.pick(tbcs);
  static constexpr std::array<std::int32_t, 8> bounds{0, 0, 1, 2, 5, 20, -1, 1000};
  k.min_scale = r.pick(bounds);
  k.max_scale = r.pick(bounds);
  return k;
}

bool is_total(const hr::metric_spec& m) {
  return m.source == hr::metric_source::object || m.source == hr::metric_source::external;
}

// Storage for one step's observations and their pods, up to 3 metrics.
struct step_storage {
  std::array<std::array<hr::pod_sample, 64>, 3> pods{};
  std::array<hr::metric_observation, 3> observations{};
};

std::optional<hr::quantity> quantity(reader& r) { return hr::to_quantity(value(r)); }

hr::metric_observation decode_observation(reader& r, const hr::metric_spec& m,
                                          std::array<hr::pod_sample, 64>& pods) {
  hr::metric_observation o;
  if (is_total(m)) {
    o.value = quantity(r);
    if (r.byte() % 4 == 3) o.forecast = quantity(r);
    return o;
  }
  static constexpr std::array<double, 8> requests{1.0, 0.5, 2.0, 0.0, 0.1, 1e15, 0.25, -1.0};
  const std::uint8_t mode = r.byte();
  const std::size_t n = mode % 65;
  if (mode >= 195) {  // every pod the same and running: one value
    const auto v = quantity(r);
    for (std::size_t i = 0; i < n; ++i)
      pods[i] = {.value = v, .request = hr::quantity{.milli = 1000}};
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t b = r.byte();
      pods[i].value = b % 8 == 7 ? std::nullopt : quantity(r);
      pods[i].status = static_cast<hr::pod_status>((b >> 3) % 4);
      pods[i].request = *hr::to_quantity(std::abs(r.pick(requests)));
      if (b == 255) pods[i].request = hr::quantity{.milli = -1};  // must throw
    }
  }
  o.pods = std::span<const hr::pod_sample>(pods.data(), n);
  return o;
}

bool counted_running(const hr::metric_spec& m, const hr::pod_sample& p) {
  const bool cpu = (m.source == hr::metric_source::resource ||
                    m.source == hr::metric_source::container_resource) &&
                   m.name == "cpu";
  if (p.status == hr::pod_status::terminated || p.status == hr::pod_status::pending) return false;
  if (!p.value) return false;
  return !(cpu && p.status == hr::pod_status::cpu_unready);
}

// Independent of the controller: a metric fails iff its value is absent (Object, External),
// or no pod is counted ready, or (Utilization) the ready pods request nothing.
bool failed(const hr::metric_spec& m, const hr::metric_observation* o, std::int32_t current,
            std::int32_t status, const hr::autoscaler_config& c) {
  if (o == nullptr) return true;
  if (is_total(m)) {
    if (!o->value) return true;
    // getReadyPodsCount fails on an empty pod list (status 0) when the ratio leaves the band
    // (from a count net of the reserve above 0).
    if (m.target_type == hr::metric_target_type::value &&
        std::int64_t{current} - c.reserve_replicas > 0 && status == 0) {
      const double ratio = static_cast<double>(o->value->milli) /
                           static_cast<double>(hr::to_quantity(m.target)->milli);
      return !((1.0 - c.scale_down_tolerance) <= ratio && ratio <= (1.0 + c.scale_up_tolerance));
    }
    return false;
  }
  std::int64_t requests = 0;
  bool any = false;
  for (const auto& p : o->pods)
    if (counted_running(m, p)) {
      any = true;
      requests += p.request.milli > std::int64_t{1} << 50 ? std::int64_t{1} << 50 : p.request.milli;
    }
  if (!any) return true;
  return m.target_type == hr::metric_target_type::utilization && requests == 0;
}

struct model {
  bool started = false;
  std::vector<hr::timestamped_recommendation> history;
  std::vector<hr::scale_event> ups, downs;
  bool scaled_to_zero = false;
};

std::int64_t changes_within(const std::vector<hr::scale_event>& events, ms now, sec period) {
  std::int64_t sum = 0;
  for (const auto& e : events)
    if (now - e.at < period) sum += e.change;
  return sum;
}

// The documented rate limit (docs/autoscaler.md), in double so it cannot overflow.
double documented_limit(const hr::scaling_rules& rules, bool up, const model& md, ms now,
                        std::int32_t n) {
  const double current = n;
  if (rules.select == hr::select_policy::disabled) return current;
  if (rules.policies.empty()) return up ? inf_v : -inf_v;
  const bool largest_change = rules.select == hr::select_policy::max;
  double result = (largest_change == up) ? -inf_v : inf_v;
  for (const auto& p : rules.policies) {
    const std::int64_t start = std::int64_t{n} - changes_within(md.ups, now, p.period) +
                               changes_within(md.downs, now, p.period);
    const double s = static_cast<double>(start);
    const double f = static_cast<double>(p.value) / 100.0;
    double proposed = 0.0;
    if (p.type == hr::scaling_policy_type::pods)
      proposed = up ? s + p.value : s - p.value;
    else
      proposed = up ? std::ceil(s * (1.0 + f)) : std::trunc(s * (1.0 - f));
    result = (largest_change == up) ? std::max(result, proposed) : std::min(result, proposed);
  }
  return up ? std::max(result, current) : std::min(result, current);
}

bool same(const hr::autoscaler_decision& a, const hr::autoscaler_decision& b) {
  return a.desired_replicas == b.desired_replicas && a.current_replicas == b.current_replicas &&
         a.raw_recommendation == b.raw_recommendation &&
         a.stabilized_recommendation == b.stabilized_recommendation && a.reason == b.reason &&
         a.conditions == b.conditions && a.metric_index == b.metric_index &&
         a.failed_metrics == b.failed_metrics && a.first_failed_metric == b.first_failed_metric &&
         a.panicking == b.panicking && a.excess_burst_capacity == b.excess_burst_capacity;
}

bool same_events(const std::vector<hr::scale_event>& a, const std::vector<hr::scale_event>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].at != b[i].at || a[i].change != b[i].change) return false;
  return true;
}

hr::replica_counts decode_counts(reader& r) {
  hr::replica_counts n;
  n.spec = count(r);
  const std::uint8_t shape = r.byte();
  n.status = shape % 4 == 0 ? count(r) : n.spec;
  n.ready = shape % 3 == 0 ? count(r) : n.status;
  return n;
}

int fuzz_kpa(reader& r, const hr::autoscaler& a) {
  const auto& k = *a.kpa();
  ms now{static_cast<std::int64_t>(static_cast<std::int16_t>(r.u16())) * 1000};
  hr::autoscaler_state state =
      r.byte() % 2 == 0 ? a.initial_state() : a.initial_state(now, std::max(0, count(r)));
  std::int32_t last = -1;
  for (int step = 0; step < 200 && !r.empty(); ++step) {
    now += ms{std::int64_t{r.byte()} * 500};
    hr::autoscaler_input in;
    in.replicas = decode_counts(r);
    in.kpa.stable_value = value(r);
    in.kpa.panic_value = r.byte() % 4 == 0 ? in.kpa.stable_value : value(r);
    in.kpa.reachability = r.byte() % 5 == 4 ? hr::revision_reachability::unreachable
                                            : hr::revision_reachability::reachable;
    const hr::autoscaler_state before = state;
    const bool negative = in.replicas.spec < 0 || in.replicas.status < 0 || in.replicas.ready < 0;
    hr::autoscaler_decision d;
    try {
      d = a.step(state, now, in);
    } catch (const headroom::invalid_argument&) {
      REQUIRE_INV(negative);
      REQUIRE_INV(state == before);
      continue;
    }
    REQUIRE_INV(!negative);
    hr::autoscaler_state replay = before;
    REQUIRE_INV(same(d, a.step(replay, now, in)));
    REQUIRE_INV(replay == state);
    if (d.reason == hr::scale_reason::metric_missing) {
      REQUIRE_INV(d.desired_replicas == in.replicas.spec);
      continue;
    }
    const bool reachable = in.kpa.reachability == hr::revision_reachability::reachable;
    REQUIRE_INV(d.desired_replicas >= (reachable ? k.min_scale : 0));
    if (k.max_scale > 0) REQUIRE_INV(d.desired_replicas <= k.max_scale);
    // In a continuous panic the panic maximum never decreases.
    if (before.panicking && state.panicking) REQUIRE_INV(state.max_panic_replicas >= last);
    last = state.panicking ? state.max_panic_replicas : -1;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r(data, size);
  std::optional<hr::autoscaler> built;
  const bool kpa = r.byte() % 8 == 7;
  try {
    if (kpa)
      built.emplace(decode_kpa(r));
    else
      built.emplace(decode_config(r));
  } catch (const headroom::invalid_argument&) {
    return 0;
  }
  const hr::autoscaler& a = *built;
  if (kpa) return fuzz_kpa(r, a);
  const auto& c = a.config();
  const std::size_t k = c.metrics.size();
  bool has_total = false;
  for (const auto& m : c.metrics) has_total = has_total || is_total(m);

  ms now{static_cast<std::int64_t>(static_cast<std::int16_t>(r.u16())) * 1000};
  model md;
  hr::autoscaler_state state;
  const std::uint8_t seed_mode = r.byte();
  if (seed_mode % 4 == 3) {
    const ms at = now - ms{static_cast<std::int64_t>(r.byte()) * 1000};
    const std::int32_t seed = count(r);
    try {
      state = a.initial_state(at, seed);
    } catch (const headroom::invalid_argument&) {
      REQUIRE_INV(seed < 0);
      return 0;
    }
    REQUIRE_INV(seed >= 0);
    md.started = true;
    md.history.push_back({.at = at, .replicas = seed});
    md.scaled_to_zero = seed == 0 && c.min_replicas == 0 && has_total;
  } else {
    state = a.initial_state();
  }

  static constexpr std::array<std::int64_t, 16> dts{15000, 0,     1,       1000,   14999,  15001,
                                                    60000, 59999, 60001,   299999, 300000, 300001,
                                                    5000,  30000, 3600000, -1};
  step_storage storage;
  model before_sync = md;  // the model before the latest sync, for a retry
  ms last_sync = ms::min();
  for (int step = 0; step < 200 && !r.empty(); ++step) {
    const std::uint8_t op = r.byte();
    std::int64_t dt = dts[op % dts.size()];
    if (dt < 0) dt = std::int64_t{r.u16()} * 100;
    now += ms{dt};

    hr::autoscaler_input in;
    in.replicas = decode_counts(r);
    const std::uint8_t shape = r.byte();
    const std::size_t metric_len = shape % 5 == 4 ? (shape / 5) % (k + 1) : k;
    for (std::size_t i = 0; i < metric_len; ++i)
      storage.observations[i] = decode_observation(r, c.metrics[i], storage.pods[i]);
    in.metrics = std::span<const hr::metric_observation>(storage.observations.data(), metric_len);

    const hr::autoscaler_state before = state;
    bool negative = in.replicas.spec < 0 || in.replicas.status < 0 || in.replicas.ready < 0;
    for (const auto& o : in.metrics)
      for (const auto& p : o.pods) negative = negative || p.request.milli < 0;
    hr::autoscaler_decision d;
    try {
      d = a.step(state, now, in);
    } catch (const headroom::invalid_argument&) {
      REQUIRE_INV(negative);
      REQUIRE_INV(state == before);
      continue;
    }
    REQUIRE_INV(!negative);

    // Replaying the step from a copy of the state gives the same decision and state.
    hr::autoscaler_state replay = before;
    const hr::autoscaler_decision again = a.step(replay, now, in);
    REQUIRE_INV(same(d, again));
    REQUIRE_INV(replay == state);

    // A retry re-runs the sync on the model as it was before the sync it repeats.
    if (now == last_sync) md = before_sync;
    before_sync = md;
    last_sync = now;

    const std::int32_t n = c.count_starting_replicas ? in.replicas.spec : in.replicas.ready;
    const std::int32_t desired = d.desired_replicas;
    REQUIRE_INV(d.current_replicas == n);
    REQUIRE_INV(d.delta() == desired - n);
    if (!md.started) {
      md.history.push_back({.at = now, .replicas = n});
      md.started = true;
    }

    const bool from_zero = md.scaled_to_zero && (c.min_replicas != 0 || has_total);
    if (n == 0 && !from_zero) {
      REQUIRE_INV(d.reason == hr::scale_reason::scaling_disabled);
      REQUIRE_INV(desired == n && d.raw_recommendation == -1);
    } else if (n != 0 && n > c.max_replicas) {
      REQUIRE_INV(d.reason == hr::scale_reason::above_max_replicas);
      REQUIRE_INV(desired == c.max_replicas && d.raw_recommendation == -1);
    } else if (n != 0 && n < c.min_replicas) {
      REQUIRE_INV(d.reason == hr::scale_reason::below_min_replicas);
      REQUIRE_INV(desired == c.min_replicas && d.raw_recommendation == -1);
    } else {
      // The controller read the metrics.
      std::int32_t failures = 0, first_failed = -1;
      for (std::size_t i = 0; i < k; ++i) {
        if (failed(c.metrics[i], i < in.metrics.size() ? &in.metrics[i] : nullptr, n,
                   in.replicas.status, c)) {
          if (first_failed < 0) first_failed = static_cast<std::int32_t>(i);
          ++failures;
        }
      }
      REQUIRE_INV(d.failed_metrics == failures && d.first_failed_metric == first_failed);
      if (static_cast<std::size_t>(failures) == k) {
        REQUIRE_INV(d.reason == hr::scale_reason::metric_missing);
      }
      if (d.reason == hr::scale_reason::metric_missing) {
        REQUIRE_INV(failures > 0 && desired == n);
        REQUIRE_INV(d.raw_recommendation == -1 && d.stabilized_recommendation == -1);
      } else {
        REQUIRE_INV(desired >= std::min(c.min_replicas, n) && desired <= c.max_replicas);
        const std::int32_t raw = d.raw_recommendation;
        REQUIRE_INV(raw >= 0);
        // Stabilization over the model's history.
        std::int32_t up = raw, down = raw, expected = raw;
        if (c.behavior) {
          for (const auto& h : md.history) {
            if (now - h.at < a.scale_up_window()) up = std::min(up, h.replicas);
            if (now - h.at < a.scale_down_window()) down = std::max(down, h.replicas);
          }
          expected = std::clamp(n, up, down);
        } else {
          for (const auto& h : md.history)
            if (now - h.at <= a.scale_down_window()) down = std::max(down, h.replicas);
          expected = down;
        }
        REQUIRE_INV(d.stabilized_recommendation == expected);
        REQUIRE_INV(desired >= std::min(n, down) || desired >= c.min_replicas);
        md.history.push_back({.at = now, .replicas = raw});

        // Rate limits from the model's events.
        if (desired > n && !(n == 0 && desired == c.min_replicas)) {
          const double limit = c.behavior ? documented_limit(c.behavior->scale_up, true, md, now, n)
                                          : std::max(2.0 * n, 4.0);
          REQUIRE_INV(static_cast<double>(desired) <= limit);
          if (c.behavior && c.behavior->scale_up.select == hr::select_policy::disabled)
            REQUIRE_INV(false);
        }
        if (desired < n) {
          if (c.behavior) {
            const double limit = documented_limit(c.behavior->scale_down, false, md, now, n);
            REQUIRE_INV(static_cast<double>(desired) >= limit);
          }
          REQUIRE_INV(!(c.hold_scale_down_while_starting && in.replicas.spec > in.replicas.ready));
        }
        if (d.reason == hr::scale_reason::too_many_replicas) REQUIRE_INV(desired == c.max_replicas);
        if (d.reason == hr::scale_reason::too_few_replicas) REQUIRE_INV(desired == c.min_replicas);
      }
    }
    if (desired != n) {
      md.scaled_to_zero = n > 0 && desired == 0 && c.min_replicas == 0 && has_total;
      if (c.behavior) {
        // horizontal.go storeScaleEvent: mark the events older than the direction's longest
        // policy period outdated and reuse the last outdated slot, else append.
        const bool up_event = desired > n;
        auto& events = up_event ? md.ups : md.downs;
        const auto& rules = up_event ? c.behavior->scale_up : c.behavior->scale_down;
        sec longest{0};
        for (const auto& p : rules.policies) longest = std::max(longest, p.period);
        std::size_t reuse = events.size();
        for (std::size_t i = 0; i < events.size(); ++i) {
          if (now - events[i].at > longest) events[i].state = hr::scale_event_state::outdated;
          if (events[i].state == hr::scale_event_state::outdated) reuse = i;
        }
        const hr::scale_event e{.at = now,
                                .change = up_event ? desired - n : n - desired,
                                .state = hr::scale_event_state::live};
        if (reuse < events.size())
          events[reuse] = e;
        else
          events.push_back(e);
      }
      // The same events in the same slots. (Outdated marks are not compared: a retry keeps
      // the marks its first attempt set, and an event once older than its direction's
      // longest period is marked again by that direction's next store anyway.)
      REQUIRE_INV(same_events(state.scale_up_events, md.ups));
      REQUIRE_INV(same_events(state.scale_down_events, md.downs));
    }
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for headroom/autoscaler.hpp. Build by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/autoscaler.fuzz.cpp -o /tmp/fz_autoscaler
//   /tmp/fz_autoscaler -max_total_time=120 tests/fuzz/corpus/autoscaler
// The input is a byte program: a configuration (every field, invalid values included: the
// constructor may throw invalid_argument, which ends the input), then up to 200 steps with
// non-decreasing times, arbitrary counts and observations (NaN, ±Inf, huge, missing and
// not-ready replicas, forecast and panic spans). A byte read past the end is 0, so a short
// input decodes into small, valid defaults. Invariants, checked on every step, against a
// model the harness keeps itself (the whole recommendation history, and the scale events):
//  * a negative count throws invalid_argument and leaves the state untouched;
//  * the clamping rules before the metrics: ScalingDisabled keeps the count,
//    AboveMaxReplicas/BelowMinReplicas set max/min; otherwise desired lies in [min, max];
//  * failed_metrics/first_failed_metric match the observations; all missing never moves;
//    MetricMissing holds and stores nothing;
//  * stabilized == clamp(n, up, down) over the model's history (age < window with a
//    behavior, age <= downscale_stabilization without), so desired >= min(n, down);
//  * the scale-up limit (policies, or max(2n, 4) without a behavior) and the scale-down
//    limit, recomputed from the model's events (kept and recycled as the HPA does), are
//    never exceeded; Disabled never moves;
//  * hold_scale_down_while_starting never scales down with replicas starting;
//  * in a continuous panic the raw recommendation never decreases;
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

namespace hr = headroom;
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
  out.stabilization_window = window(r);
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

  static constexpr std::array<std::pair<hr::metric_source, hr::metric_target_type>, 8> kinds{{
      {hr::metric_source::external, hr::metric_target_type::average_value},
      {hr::metric_source::pods, hr::metric_target_type::average_value},
      {hr::metric_source::resource, hr::metric_target_type::utilization},
      {hr::metric_source::resource, hr::metric_target_type::average_value},
      {hr::metric_source::object, hr::metric_target_type::value},
      {hr::metric_source::object, hr::metric_target_type::average_value},
      {hr::metric_source::external, hr::metric_target_type::value},
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
    c.metrics.push_back({"m", chosen.first, chosen.second, targets[(k >> 1) % targets.size()]});
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
      c.behavior = hr::scaling_behavior{rules(r), rules(r)};
  }
  c.downscale_stabilization = window(r);
  static constexpr std::array<std::int64_t, 8> syncs{15000, 1000, 60000, 100, 5000, 30000, 250, 0};
  c.sync_period = ms{r.pick(syncs)};
  c.count_starting_replicas = (flags & 4) == 0;
  c.hold_scale_down_while_starting = (flags & 8) != 0;
  static constexpr std::array<std::int32_t, 8> reserves{0, 0, 1, 2, 3, 10, -1, 2147483647};
  c.reserve_replicas = r.pick(reserves);
  if (flags & 16) {
    hr::panic_config p;
    if (flags & 32) {
      static constexpr std::array<std::int64_t, 6> stables{60, 6, 1, 300, 15, 0};
      static constexpr std::array<std::int64_t, 6> panics{6, 1, 60, 15, 0, 300};
      static constexpr std::array<double, 8> thresholds{2.0, 1.0, 1.5, 10.0, 1.01, 3.0, 0.5, nan_v};
      static constexpr std::array<double, 8> up_rates{1000.0, 1.0, 2.0, 1e9, 1e300, 1.5, 10.0, 0.5};
      static constexpr std::array<double, 8> down_rates{2.0,   1.0, 1.5, 10.0,
                                                        1e300, 4.0, 2.0, inf_v};
      p.stable_window = sec{r.pick(stables)};
      p.panic_window = sec{r.pick(panics)};
      p.threshold = r.pick(thresholds);
      p.max_scale_up_rate = r.pick(up_rates);
      p.max_scale_down_rate = r.pick(down_rates);
    }
    c.panic = p;
  }
  return c;
}

bool is_total(const hr::metric_spec& m) {
  return m.source == hr::metric_source::object || m.source == hr::metric_source::external;
}

// Storage for one step's observations: metrics, forecast and panic, up to 3 each.
struct step_storage {
  std::array<std::array<hr::replica_sample, 64>, 9> samples{};
  std::array<hr::metric_observation, 9> observations{};
};

hr::metric_observation decode_observation(reader& r, const hr::metric_spec& m,
                                          std::array<hr::replica_sample, 64>& samples) {
  hr::metric_observation o;
  if (is_total(m)) {
    o.total = value(r);
    return o;
  }
  const std::uint8_t mode = r.byte();
  const std::size_t n = mode % 65;
  if (mode >= 195) {  // every replica the same and ready: one value
    const double v = value(r);
    for (std::size_t i = 0; i < n; ++i) samples[i] = {v, true};
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t b = r.byte();
      samples[i] = {b % 8 == 7 ? nan_v : value(r), b % 8 != 6};
    }
  }
  o.replicas = std::span<const hr::replica_sample>(samples.data(), n);
  return o;
}

// Independent of the controller: a metric is missing iff its total is not finite (object,
// external) or no ready replica reported a finite value (resource, pods).
bool missing(const hr::metric_spec& m, const hr::metric_observation* o) {
  if (o == nullptr) return true;
  if (is_total(m)) return !std::isfinite(o->total);
  for (const auto& s : o->replicas)
    if (s.ready && std::isfinite(s.value)) return false;
  return true;
}

struct event {
  ms at;
  std::int64_t change;
};

struct model {
  bool started = false;
  std::vector<hr::timestamped_recommendation> history;
  std::vector<event> ups, downs;
  bool panicking_after_last_read = false;
  std::int32_t last_raw = -1;
};

std::int64_t changes_within(const std::vector<event>& events, ms now, sec period) {
  std::int64_t sum = 0;
  for (const auto& e : events)
    if (now - e.at < period) sum += e.change;
  return sum;
}

// The documented rate limit (docs/autoscaler.md, step 8), in double so it cannot overflow.
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
         a.metric_index == b.metric_index && a.failed_metrics == b.failed_metrics &&
         a.first_failed_metric == b.first_failed_metric && a.panicking == b.panicking;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r(data, size);
  const hr::autoscaler_config config = decode_config(r);
  std::optional<hr::autoscaler> built;
  try {
    built.emplace(config);
  } catch (const hr::invalid_argument&) {
    return 0;
  }
  const hr::autoscaler& a = *built;
  const auto& c = a.config();
  const std::size_t k = c.metrics.size();

  ms now{static_cast<std::int64_t>(static_cast<std::int16_t>(r.u16())) * 1000};
  model md;
  hr::autoscaler_state state;
  const std::uint8_t seed_mode = r.byte();
  if (seed_mode % 4 == 3) {
    const ms at = now - ms{static_cast<std::int64_t>(r.byte()) * 1000};
    const std::int32_t seed = count(r);
    try {
      state = a.initial_state(at, seed);
    } catch (const hr::invalid_argument&) {
      REQUIRE_INV(seed < 0);
      return 0;
    }
    REQUIRE_INV(seed >= 0);
    md.started = true;
    md.history.push_back({at, seed});
  } else {
    state = a.initial_state();
  }

  static constexpr std::array<std::int64_t, 16> dts{15000, 0,     1,       1000,   14999,  15001,
                                                    60000, 59999, 60001,   299999, 300000, 300001,
                                                    5000,  30000, 3600000, -1};
  step_storage storage;
  for (int step = 0; step < 200 && !r.empty(); ++step) {
    const std::uint8_t op = r.byte();
    std::int64_t dt = dts[op % dts.size()];
    if (dt < 0) dt = std::int64_t{r.u16()} * 100;
    now += ms{dt};

    hr::autoscaler_input in;
    in.ready_replicas = count(r);
    in.starting_replicas = count(r);
    const std::uint8_t shape = r.byte();
    const std::size_t metric_len = shape % 5 == 4 ? (shape / 5) % (k + 1) : k;
    const std::size_t forecast_len = (shape & 0x20) ? k - (shape >> 6) % k : 0;
    const std::size_t panic_len = (shape & 0x40) ? k - (shape >> 3) % k : 0;
    std::size_t slot = 0;
    for (std::size_t i = 0; i < metric_len; ++i, ++slot)
      storage.observations[slot] = decode_observation(r, c.metrics[i], storage.samples[slot]);
    for (std::size_t i = 0; i < forecast_len; ++i, ++slot)
      storage.observations[slot] = decode_observation(r, c.metrics[i], storage.samples[slot]);
    for (std::size_t i = 0; i < panic_len; ++i, ++slot)
      storage.observations[slot] = decode_observation(r, c.metrics[i], storage.samples[slot]);
    const std::span<const hr::metric_observation> all(storage.observations.data(), slot);
    in.metrics = all.subspan(0, metric_len);
    in.forecast = all.subspan(metric_len, forecast_len);
    in.panic = all.subspan(metric_len + forecast_len, panic_len);

    const hr::autoscaler_state before = state;
    const bool negative = in.ready_replicas < 0 || in.starting_replicas < 0;
    hr::autoscaler_decision d;
    try {
      d = a.step(state, now, in);
    } catch (const hr::invalid_argument&) {
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

    const std::int64_t status64 = std::int64_t{in.ready_replicas} + in.starting_replicas;
    const std::int32_t status = static_cast<std::int32_t>(
        std::min<std::int64_t>(status64, std::numeric_limits<std::int32_t>::max()));
    const std::int32_t n = c.count_starting_replicas ? status : in.ready_replicas;
    const std::int32_t desired = d.desired_replicas;
    REQUIRE_INV(d.current_replicas == n);
    REQUIRE_INV(d.delta() == desired - n);
    if (!md.started) {
      md.history.push_back({now, n});
      md.started = true;
    }

    if (n == 0 && c.min_replicas != 0) {
      REQUIRE_INV(d.reason == hr::scale_reason::scaling_disabled);
      REQUIRE_INV(desired == n && d.raw_recommendation == -1);
    } else if (n > c.max_replicas) {
      REQUIRE_INV(d.reason == hr::scale_reason::above_max_replicas);
      REQUIRE_INV(desired == c.max_replicas && d.raw_recommendation == -1);
    } else if (n < c.min_replicas) {
      REQUIRE_INV(d.reason == hr::scale_reason::below_min_replicas);
      REQUIRE_INV(desired == c.min_replicas && d.raw_recommendation == -1);
    } else {
      // The controller read the metrics.
      REQUIRE_INV(desired >= c.min_replicas && desired <= c.max_replicas);
      std::int32_t failed = 0, first_failed = -1;
      for (std::size_t i = 0; i < k; ++i) {
        if (missing(c.metrics[i], i < in.metrics.size() ? &in.metrics[i] : nullptr)) {
          if (first_failed < 0) first_failed = static_cast<std::int32_t>(i);
          ++failed;
        }
      }
      REQUIRE_INV(d.failed_metrics == failed && d.first_failed_metric == first_failed);
      if (static_cast<std::size_t>(failed) == k) {
        REQUIRE_INV(d.reason == hr::scale_reason::metric_missing);
      }
      if (d.reason == hr::scale_reason::metric_missing) {
        REQUIRE_INV(failed > 0 && desired == n);
        REQUIRE_INV(d.raw_recommendation == -1 && d.stabilized_recommendation == -1);
      } else {
        const std::int32_t raw = d.raw_recommendation;
        REQUIRE_INV(raw >= 0);
        if (c.panic) {
          if (md.panicking_after_last_read && d.panicking) REQUIRE_INV(raw >= md.last_raw);
          md.panicking_after_last_read = d.panicking;
          md.last_raw = raw;
        }
        // Stabilization over the model's history.
        std::int32_t up = raw, down = raw, expected = raw;
        if (c.behavior) {
          for (const auto& h : md.history) {
            if (now - h.at < c.behavior->scale_up.stabilization_window)
              up = std::min(up, h.replicas);
            if (now - h.at < c.behavior->scale_down.stabilization_window)
              down = std::max(down, h.replicas);
          }
          expected = std::clamp(n, up, down);
        } else {
          for (const auto& h : md.history)
            if (now - h.at <= c.downscale_stabilization) down = std::max(down, h.replicas);
          expected = down;
        }
        REQUIRE_INV(d.stabilized_recommendation == expected);
        REQUIRE_INV(desired >= std::min(n, down));
        md.history.push_back({now, raw});

        // Rate limits from the model's events.
        if (desired > n) {
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
          REQUIRE_INV(!(c.hold_scale_down_while_starting && in.starting_replicas > 0));
        }
        if (d.reason == hr::scale_reason::too_many_replicas) REQUIRE_INV(desired == c.max_replicas);
        if (d.reason == hr::scale_reason::too_few_replicas) REQUIRE_INV(desired == c.min_replicas);
      }
    }
    if (c.behavior && desired != n) {
      // As the HPA's storeScaleEvent: each direction forgets (recycles) an event only once
      // it is older than that direction's longest policy period, even though the other
      // direction's policies also read it. A Percent > 100 scale-down is not monotone in
      // the period's start, so the limit depends on what was forgotten: model it exactly.
      const bool up_event = desired > n;
      auto& events = up_event ? md.ups : md.downs;
      const auto& rules = up_event ? c.behavior->scale_up : c.behavior->scale_down;
      sec longest{0};
      for (const auto& p : rules.policies) longest = std::max(longest, p.period);
      const event e{now, up_event ? std::int64_t{desired} - n : std::int64_t{n} - desired};
      const auto old = std::find_if(events.begin(), events.end(),
                                    [&](const event& x) { return now - x.at > longest; });
      if (old != events.end())
        *old = e;
      else
        events.push_back(e);
    }
  }
  return 0;
}

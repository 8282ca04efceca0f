// SPDX-License-Identifier: Apache-2.0
// A discrete-event simulation of one continuous-batching replica (SPEC §1, §6): requests
// arrive open loop (a schedule from arrivals.hpp) or closed loop (a closed_loop_population),
// wait for a batch slot and KV-cache room, are prefilled (whole or in chunks under a
// per-step token budget) and decode one token per step; the step time comes from a
// caller-supplied model, by default the roofline max(bytes/B_eff, FLOPs/P_eff) + overhead.
// The output is capacity.hpp's request_outcome per request, so measure_conformance,
// find_capacity and search_capacity run on it unchanged, plus an optional per-step trace.
//
// Time advances by steps, not per-token events: a step costs O(1) plus O(1) per request
// that arrives, is admitted, finishes its prefill this step, or finishes (a heap keyed by
// the step at which each decoding sequence ends), and nothing is allocated per step.
// Deterministic: the same inputs (and seeds) give bit-identical outcomes.
// What the model leaves out, calibration, and the M/M/1 and M/D/1 checks:
// docs/simulation.md.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "../arrivals.hpp"
#include "../capacity.hpp"
#include "../detail/checks.hpp"
#include "../detail/random.hpp"
#include "../error.hpp"
#include "../roofline.hpp"

namespace headroom {
inline namespace v0 {
namespace sim {

// ============================================================================================
// Configuration
// ============================================================================================

/// How prompts are processed.
enum class prefill_mode {
  chunked,  ///< prompts are split to fill the step's token budget left after the decodes
  whole,    ///< a prompt is processed in one step (the first of a step may exceed the budget)
};

/// How the KV cache is shared.
enum class kv_policy {
  /// Admission reserves the whole sequence (prompt + output − 1 tokens): nothing is ever
  /// preempted, and fewer sequences run at once.
  reserve_full,
  /// Admission reserves the prompt and the next step's growth; when decode growth would
  /// overflow the budget the youngest running sequence is preempted (recompute: its KV is
  /// freed and it is queued first, to re-prefill its prompt and the tokens it generated).
  preempt_youngest,
};

/// One replica. max_batched_tokens >= max_batch (every decoding sequence takes one token).
struct replica_config {
  std::size_t max_batch = 256;            ///< sequences running at once, >= 1 (vLLM max_num_seqs)
  std::size_t kv_budget_tokens = 262144;  ///< KV-cache capacity in tokens, >= 1
  std::size_t max_batched_tokens = 8192;  ///< token budget of one step, >= max_batch
  prefill_mode prefill = prefill_mode::chunked;  ///< chunked or whole prefill
  kv_policy kv = kv_policy::reserve_full;        ///< KV reservation and preemption
};

/// Checks a configuration; throws invalid_argument naming the field.
inline void validate(const replica_config& config) {
  if (config.max_batch == 0) detail::fail("config.max_batch", config.max_batch, "must be >= 1");
  if (config.kv_budget_tokens == 0)
    detail::fail("config.kv_budget_tokens", config.kv_budget_tokens, "must be >= 1");
  if (config.max_batched_tokens < config.max_batch)
    detail::fail("config.max_batched_tokens", config.max_batched_tokens,
                 "must be >= config.max_batch (each decoding sequence takes one token)");
  if (config.max_batch > std::numeric_limits<std::uint32_t>::max())
    detail::fail("config.max_batch", config.max_batch, "must fit in 32 bits");
}

/// KV-cache tokens that fit beside the weights: floor((memory·fraction − M_w) / m_kv). 80 GB
/// at 0.9, 16 GB of weights, 128 KiB/token: 427,246. memory, m_kv > 0; fraction in (0, 1];
/// throws invalid_argument naming weight_bytes when the weights leave no room.
[[nodiscard]] inline std::size_t kv_budget_tokens(double memory_bytes, double memory_fraction,
                                                  double weight_bytes, double kv_bytes_per_token) {
  const double memory = detail::require_positive("memory_bytes", memory_bytes);
  const double fraction = detail::require_unit_positive("memory_fraction", memory_fraction);
  const double weights = detail::require_non_negative("weight_bytes", weight_bytes);
  const double per_token = detail::require_positive("kv_bytes_per_token", kv_bytes_per_token);
  const double tokens = std::floor((memory * fraction - weights) / per_token);
  if (!(tokens >= 1.0))
    detail::fail("weight_bytes", weights, "the weights leave no room for one KV-cache token");
  if (!(tokens <= 4611686018427387904.0))  // 2^62: the conversion below stays defined
    detail::fail("kv_bytes_per_token", per_token, "gives more than 2^62 KV-cache tokens");
  return static_cast<std::size_t>(tokens);
}

// ============================================================================================
// Requests and their lengths
// ============================================================================================

/// One request offered to the replica: when it arrives (the schedule's intended time,
/// seconds from the run's start) and its token counts (prompt >= 1, output >= 1).
struct request {
  std::chrono::duration<double> arrival{};  ///< intended arrival, finite
  std::size_t prompt_tokens = 1;            ///< input tokens, >= 1
  std::size_t output_tokens = 1;            ///< tokens to generate, >= 1 (the first by prefill)
};

/// Prompt and output lengths of one request.
struct request_lengths {
  std::size_t prompt_tokens = 1;  ///< input tokens, >= 1
  std::size_t output_tokens = 1;  ///< generated tokens, >= 1
};

/// A source of request lengths: s(engine) returns the next request_lengths (may keep state).
template <class S, class G>
concept LengthSampler = std::uniform_random_bit_generator<std::remove_cvref_t<G>> &&
    requires(S& sampler, G& engine) {
  { sampler(engine) } -> std::convertible_to<request_lengths>;
};

/// The same lengths for every request. Draws nothing.
struct fixed_lengths {
  request_lengths lengths{};  ///< returned every time
  /// The lengths.
  template <class G>
  [[nodiscard]] constexpr request_lengths operator()(G&) const noexcept {
    return lengths;
  }
};

/// Independent log-normal prompt and output lengths, each round(median·e^{σZ}) clipped to
/// [min, max]. ShareGPT-like: prompt median 200, σ 1.0; output median 150, σ 0.9 (our
/// stated parameters, not a fit). Medians >= 1, σ >= 0, 1 <= min <= max.
class lognormal_lengths {
 public:
  /// Medians in tokens; sigmas of the underlying normal; clips in tokens.
  lognormal_lengths(double prompt_median, double prompt_sigma, double output_median,
                    double output_sigma, request_lengths min = {1, 1},
                    request_lengths max = {32768, 32768})
      : prompt_median_(detail::require_positive("prompt_median", prompt_median)),
        prompt_sigma_(detail::require_non_negative("prompt_sigma", prompt_sigma)),
        output_median_(detail::require_positive("output_median", output_median)),
        output_sigma_(detail::require_non_negative("output_sigma", output_sigma)),
        min_(min),
        max_(max) {
    if (min.prompt_tokens == 0)
      detail::fail("min.prompt_tokens", min.prompt_tokens, "must be >= 1");
    if (min.output_tokens == 0)
      detail::fail("min.output_tokens", min.output_tokens, "must be >= 1");
    if (max.prompt_tokens < min.prompt_tokens)
      detail::fail("max.prompt_tokens", max.prompt_tokens, "must be >= min.prompt_tokens");
    if (max.output_tokens < min.output_tokens)
      detail::fail("max.output_tokens", max.output_tokens, "must be >= min.output_tokens");
  }
  /// One draw: two standard normals from the engine (prompt first).
  template <std::uniform_random_bit_generator G>
  [[nodiscard]] request_lengths operator()(G& engine) const noexcept(noexcept(engine())) {
    const double zp = detail::standard_normal(engine);
    const double zo = detail::standard_normal(engine);
    return {draw(prompt_median_, prompt_sigma_, zp, min_.prompt_tokens, max_.prompt_tokens),
            draw(output_median_, output_sigma_, zo, min_.output_tokens, max_.output_tokens)};
  }
  /// E[prompt] before clipping, median·e^{σ²/2} tokens.
  [[nodiscard]] double prompt_mean_unclipped() const noexcept {
    return prompt_median_ * std::exp(0.5 * prompt_sigma_ * prompt_sigma_);
  }
  /// E[output] before clipping, median·e^{σ²/2} tokens.
  [[nodiscard]] double output_mean_unclipped() const noexcept {
    return output_median_ * std::exp(0.5 * output_sigma_ * output_sigma_);
  }

 private:
  static std::size_t draw(double median, double sigma, double z, std::size_t lo,
                          std::size_t hi) noexcept {
    const double x = std::round(median * std::exp(sigma * z));
    if (!(x >= static_cast<double>(lo))) return lo;
    if (!(x <= static_cast<double>(hi))) return hi;
    return static_cast<std::size_t>(x);
  }
  double prompt_median_;
  double prompt_sigma_;
  double output_median_;
  double output_sigma_;
  request_lengths min_;
  request_lengths max_;
};

/// Replays a list of lengths in order, cycling. Holds a span: keep the list alive.
class replayed_lengths {
 public:
  /// list must not be empty; every entry needs prompt >= 1 and output >= 1.
  explicit replayed_lengths(std::span<const request_lengths> list) : list_(list) {
    if (list.empty()) detail::fail("list.size()", 0, "needs at least one entry");
    for (const auto& l : list) {
      if (l.prompt_tokens == 0) detail::fail("list[i].prompt_tokens", 0, "must be >= 1");
      if (l.output_tokens == 0) detail::fail("list[i].output_tokens", 0, "must be >= 1");
    }
  }
  /// The next entry (the engine is not used).
  template <class G>
  [[nodiscard]] request_lengths operator()(G&) noexcept {
    const request_lengths l = list_[next_];
    next_ = next_ + 1 == list_.size() ? 0 : next_ + 1;
    return l;
  }

 private:
  std::span<const request_lengths> list_;
  std::size_t next_ = 0;
};

/// Requests at the schedule's times (sorted, as arrivals.hpp makes them) with lengths drawn
/// from the sampler in schedule order.
template <class L, std::uniform_random_bit_generator G>
requires LengthSampler<L, G>
[[nodiscard]] std::vector<request> make_requests(
    std::span<const std::chrono::duration<double>> schedule, L&& lengths, G& engine) {
  std::vector<request> requests;
  requests.reserve(schedule.size());
  for (const auto& t : schedule) {
    const request_lengths l = lengths(engine);
    requests.push_back({t, l.prompt_tokens, l.output_tokens});
  }
  return requests;
}

// ============================================================================================
// Step-time models
// ============================================================================================

/// What one step processes, handed to the step-time model.
struct step_shape {
  std::size_t batch = 0;           ///< sequences in the step (decoding + prefilling)
  std::size_t prefill_tokens = 0;  ///< prompt tokens processed in the step
  std::size_t decode_tokens = 0;   ///< decoding sequences, one token each
  std::size_t kv_tokens = 0;       ///< KV-cache tokens of the running sequences after the step
};

/// A step-time model: m(shape) returns the step's duration (finite, >= 0). May keep state
/// (an engine): it is called once per step, in step order.
template <class M>
concept StepTimeModel = requires(M& model, const step_shape& shape) {
  { model(shape) } -> std::convertible_to<std::chrono::duration<double>>;
};

/// The roofline step time: max(bytes / B_eff, FLOPs / P_eff) + overhead, with bytes =
/// M_w + kv_tokens·m_kv (weights read once per step, each sequence reads its cache) and
/// FLOPs = 2·N_p per token processed (prefill + decode). Attention FLOPs are left out.
/// Build it with make_roofline_step_time, which checks every field.
struct roofline_step_time {
  double parameters = 0.0;                   ///< N_p
  double weight_bytes = 0.0;                 ///< M_w, bytes
  double kv_bytes_per_token = 0.0;           ///< m_kv, bytes
  double flops_per_second = 0.0;             ///< P_eff, FLOP/s, > 0
  double bytes_per_second = 0.0;             ///< B_eff, bytes/s, > 0
  std::chrono::duration<double> overhead{};  ///< fixed cost of a step (scheduling, launch)

  /// Bytes moved by a step of this shape.
  [[nodiscard]] constexpr double bytes(const step_shape& s) const noexcept {
    return weight_bytes + static_cast<double>(s.kv_tokens) * kv_bytes_per_token;
  }
  /// FLOPs of a step of this shape.
  [[nodiscard]] constexpr double flops(const step_shape& s) const noexcept {
    return 2.0 * parameters * static_cast<double>(s.prefill_tokens + s.decode_tokens);
  }
  /// The step time, seconds.
  [[nodiscard]] constexpr std::chrono::duration<double> operator()(
      const step_shape& s) const noexcept {
    const double memory_s = bytes(s) / bytes_per_second;
    const double compute_s = flops(s) / flops_per_second;
    return std::chrono::duration<double>(memory_s > compute_s ? memory_s : compute_s) + overhead;
  }
};

/// The roofline step time of a model on an accelerator: M_w = N_p × bytes per parameter
/// (roofline.hpp weight_bytes), P_eff = efficiency × peak, B_eff likewise. parameters > 0,
/// bytes_per_parameter > 0, kv_bytes_per_token >= 0, efficiencies in (0, 1], overhead >= 0.
[[nodiscard]] inline roofline_step_time make_roofline_step_time(
    const accelerator_spec& spec, double parameters, double bytes_per_parameter,
    double kv_bytes_per_token, double flops_efficiency, double bandwidth_efficiency,
    std::chrono::duration<double> overhead) {
  roofline_step_time m;
  m.parameters = detail::require_positive("parameters", parameters);
  m.weight_bytes =
      weight_bytes({.parameters = parameters, .bytes_per_parameter = bytes_per_parameter});
  m.kv_bytes_per_token = detail::require_non_negative("kv_bytes_per_token", kv_bytes_per_token);
  m.flops_per_second =
      detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second) *
      detail::require_unit_positive("flops_efficiency", flops_efficiency);
  m.bytes_per_second =
      detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second) *
      detail::require_unit_positive("bandwidth_efficiency", bandwidth_efficiency);
  m.overhead =
      std::chrono::duration<double>(detail::require_non_negative("overhead", overhead.count()));
  return m;
}

/// Every step takes the same time: with max_batch 1 and one output token, a deterministic
/// service time per request (the M/D/1 check).
struct constant_step_time {
  std::chrono::duration<double> step{};  ///< seconds per step, >= 0
  /// The constant.
  [[nodiscard]] constexpr std::chrono::duration<double> operator()(
      const step_shape&) const noexcept {
    return step;
  }
};

/// Exponential step times of the given mean, drawn from its own seeded engine: with
/// max_batch 1 and one output token, an exponential service time per request (M/M/1).
class exponential_step_time {
 public:
  /// mean finite and > 0; seed of the internal std::mt19937_64.
  exponential_step_time(std::chrono::duration<double> mean, std::uint64_t seed)
      : mean_s_(detail::require_positive("mean", mean.count())), engine_(seed) {}
  /// One draw, mean·(−ln U).
  [[nodiscard]] std::chrono::duration<double> operator()(const step_shape&) noexcept {
    return std::chrono::duration<double>(mean_s_ * detail::standard_exponential(engine_));
  }
  /// Restarts the internal engine from `seed` (sweep_capacity does, per replication).
  void reseed(std::uint64_t seed) noexcept { engine_.seed(seed); }

 private:
  double mean_s_;
  std::mt19937_64 engine_;
};

// ============================================================================================
// Results
// ============================================================================================

/// What became of a request by the end of the run.
enum class request_status : std::uint8_t {
  finished,     ///< generated all its tokens
  unfinished,   ///< arrived by the horizon but had not finished (queued or running)
  not_arrived,  ///< its arrival lies after the horizon
  rejected,     ///< prompt + output − 1 > kv_budget_tokens: it can never fit
};

/// One step of the trace, recorded at its peak (before finished sequences leave).
struct step_record {
  std::chrono::duration<double> start{};   ///< when the step began
  std::chrono::duration<double> length{};  ///< its duration
  std::uint32_t batch = 0;                 ///< sequences in the step
  std::uint32_t queue_length = 0;          ///< requests waiting for admission
  std::size_t prefill_tokens = 0;          ///< prompt tokens processed
  std::size_t decode_tokens = 0;           ///< decoding sequences
  std::size_t kv_tokens_used = 0;          ///< KV tokens written by the running sequences
  std::size_t kv_tokens_committed = 0;     ///< KV tokens counted against the budget
};

/// Totals of a run.
struct replica_stats {
  std::size_t finished = 0;                       ///< requests that finished
  std::size_t unfinished = 0;                     ///< arrived, not finished at the horizon
  std::size_t not_arrived = 0;                    ///< arrivals after the horizon
  std::size_t rejected = 0;                       ///< too large for the KV budget
  std::uint64_t steps = 0;                        ///< steps run
  std::uint64_t preemptions = 0;                  ///< sequences preempted (kv_policy)
  std::uint64_t prefill_tokens = 0;               ///< prompt tokens processed (recompute too)
  std::uint64_t decode_tokens = 0;                ///< decode tokens generated
  double kv_token_steps = 0.0;                    ///< Σ over steps of kv_tokens
  std::size_t max_batch_seen = 0;                 ///< largest batch of a step
  std::size_t max_queue_seen = 0;                 ///< longest admission queue after admission
  std::chrono::duration<double> busy{};           ///< Σ step lengths
  std::chrono::duration<double> end{};            ///< when the last step ended
  std::chrono::duration<double> first_arrival{};  ///< earliest arrival (0 if none)
};

/// A run's outcomes. outcomes[i] and status[i] describe request i (open loop: input order;
/// closed loop: send order). Requests that did not finish have error = true; their times
/// that never happened (first token, finish) are NaN.
struct replica_result {
  std::vector<request_outcome> outcomes;  ///< for capacity.hpp's measure_conformance
  std::vector<request_status> status;     ///< what became of each request
  std::vector<step_record> trace;         ///< per step, when run_options::record_trace
  replica_stats stats{};                  ///< totals
};

/// Options of one run.
struct run_options {
  /// Steps start only before the horizon (the last may end after it); arrivals after it
  /// never arrive. Default: run until every request has finished.
  std::optional<std::chrono::duration<double>> horizon{};
  bool record_trace = false;  ///< fill replica_result::trace
};

/// MFU and MBU of a run (SPEC §6) over [0, end], with the roofline model's bytes.
struct utilisation {
  double tokens_per_second = 0.0;  ///< (prefill + decode tokens) / end
  double busy_fraction = 0.0;      ///< busy / end
  double mfu = 0.0;                ///< 2·N_p·ν / P_peak (roofline.hpp mfu)
  double mbu = 0.0;                ///< mean (M_w + M_kv)/step / B_peak × busy fraction
};

/// MFU and MBU of a run whose steps the roofline model timed, against the spec's PEAK
/// figures (not the effective ones). All zero when the run had no step.
[[nodiscard]] inline utilisation utilisation_of(const replica_stats& stats,
                                                const roofline_step_time& model,
                                                const accelerator_spec& spec) {
  detail::require_positive("spec.peak_flops_per_second", spec.peak_flops_per_second);
  detail::require_positive("spec.peak_bytes_per_second", spec.peak_bytes_per_second);
  utilisation u;
  if (stats.steps == 0 || !(stats.end.count() > 0.0) || !(stats.busy.count() > 0.0)) return u;
  const double tokens = static_cast<double>(stats.prefill_tokens + stats.decode_tokens);
  u.tokens_per_second = tokens / stats.end.count();
  u.busy_fraction = stats.busy.count() / stats.end.count();
  u.mfu = mfu({.parameters = model.parameters,
               .tokens_per_second = u.tokens_per_second,
               .peak_flops_per_second = spec.peak_flops_per_second});
  const double steps = static_cast<double>(stats.steps);
  const double mean_kv_bytes = stats.kv_token_steps / steps * model.kv_bytes_per_token;
  u.mbu = mbu({.weight_bytes = model.weight_bytes,
               .kv_bytes = mean_kv_bytes,
               .tpot = stats.busy / steps,
               .peak_bytes_per_second = spec.peak_bytes_per_second}) *
          u.busy_fraction;
  return u;
}

// ============================================================================================
// The engine
// ============================================================================================

}  // namespace sim

namespace detail {

enum class replica_phase : std::uint8_t {
  pending,
  waiting,
  prefilling,
  decoding,
  finished,
  rejected
};

struct replica_sequence {
  double arrival_s = 0.0;
  double first_token_s = std::numeric_limits<double>::quiet_NaN();
  double finished_s = std::numeric_limits<double>::quiet_NaN();
  std::size_t prompt = 0;
  std::size_t output = 0;
  std::size_t prefill_len = 0;   // tokens this admission prefills (prompt + recomputed)
  std::size_t prefill_left = 0;  // of which still to process
  std::size_t chunk = 0;         // scheduled in the current step
  std::size_t generated = 0;     // tokens emitted when it last left prefill (or so far)
  std::size_t reserved = 0;      // KV counted against the budget at admission
  std::uint64_t decode_start = 0;
  std::uint32_t epoch = 0;  // admissions so far (lazy deletion in the age stack)
  std::uint32_t user = 0;   // closed loop: who sent it
  replica_phase state = replica_phase::pending;
};

/// A fixed-capacity ring of indices (the admission queue): push at either end, pop front.
class replica_ring {
 public:
  explicit replica_ring(std::size_t capacity) : slots_(capacity == 0 ? 1 : capacity) {}
  void push_back(std::size_t i) noexcept {
    slots_[wrap(head_ + size_)] = i;
    ++size_;
  }
  void push_front(std::size_t i) noexcept {
    head_ = head_ == 0 ? slots_.size() - 1 : head_ - 1;
    slots_[head_] = i;
    ++size_;
  }
  [[nodiscard]] std::size_t front() const noexcept { return slots_[head_]; }
  void pop_front() noexcept {
    head_ = wrap(head_ + 1);
    --size_;
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

 private:
  [[nodiscard]] std::size_t wrap(std::size_t i) const noexcept {
    return i >= slots_.size() ? i - slots_.size() : i;
  }
  std::vector<std::size_t> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

struct replica_finish {
  std::uint64_t step;
  std::size_t index;
  friend constexpr bool operator>(const replica_finish& a, const replica_finish& b) noexcept {
    return a.step != b.step ? a.step > b.step : a.index > b.index;
  }
};

struct replica_age {
  std::size_t index;
  std::uint32_t epoch;
};

/// The replica's state and its step. Drivers (open, closed loop) add requests, call
/// arrive() when they arrive, and step() while there is work.
template <class M>
class replica_core {
 public:
  replica_core(const sim::replica_config& config, M& model, std::size_t capacity, bool trace)
      : config_(config),
        model_(model),
        preempt_(config.kv == sim::kv_policy::preempt_youngest),
        chunked_(config.prefill == sim::prefill_mode::chunked),
        trace_on_(trace),
        waiting_(capacity) {
    seqs_.reserve(capacity);
    prefilling_.reserve(config.max_batch);
    decoding_.reserve(config.max_batch);
    if (preempt_) ages_.reserve(2 * config.max_batch + age_slack + 1);
  }

  std::size_t add(double arrival_s, std::size_t prompt, std::size_t output, std::uint32_t user) {
    replica_sequence s;
    s.arrival_s = arrival_s;
    s.prompt = prompt;
    s.output = output;
    s.user = user;
    seqs_.push_back(s);
    return seqs_.size() - 1;
  }

  /// The request arrives: queued, or rejected if it can never fit. Returns false if rejected.
  bool arrive(std::size_t i) noexcept {
    replica_sequence& s = seqs_[i];
    if (!seen_arrival_ || s.arrival_s < first_arrival_s_) first_arrival_s_ = s.arrival_s;
    seen_arrival_ = true;
    // prompt + output - 1 > budget, written so that huge counts cannot wrap around.
    if (s.prompt > config_.kv_budget_tokens || s.output - 1 > config_.kv_budget_tokens - s.prompt) {
      s.state = replica_phase::rejected;
      return false;
    }
    s.state = replica_phase::waiting;
    s.prefill_len = s.prompt;
    waiting_.push_back(i);
    return true;
  }

  [[nodiscard]] bool has_work() const noexcept { return running_ > 0 || !waiting_.empty(); }
  [[nodiscard]] double now() const noexcept { return now_s_; }
  void advance_to(double t) noexcept {
    if (t > now_s_) now_s_ = t;
  }
  [[nodiscard]] const replica_sequence& at(std::size_t i) const noexcept { return seqs_[i]; }

  /// Admits, preempts if needed, runs one step, retires what finished (done(index, time)).
  template <class OnDone>
  void step(OnDone&& done) {
    admit();
    if (preempt_) make_room_for_growth();
    HEADROOM_ASSERT(running_ > 0, "step() needs a running sequence");

    // Schedule: every decoding sequence takes one token, prefills share what is left.
    std::size_t budget = config_.max_batched_tokens - decoding_count_;
    std::size_t prefill_tokens = 0;
    std::size_t prefills = 0;
    for (const std::size_t i : prefilling_) {
      replica_sequence& s = seqs_[i];
      std::size_t take = 0;
      if (chunked_)
        take = s.prefill_left < budget ? s.prefill_left : budget;
      else if (s.prefill_left <= budget || prefills == 0)
        take = s.prefill_left;
      if (take == 0) break;
      s.chunk = take;
      budget -= take < budget ? take : budget;
      prefill_tokens += take;
      ++prefills;
    }
    const std::size_t decode_tokens = decoding_count_;
    kv_used_ += prefill_tokens + decode_tokens;
    if (preempt_) kv_committed_ += decode_tokens;
    const sim::step_shape shape{decode_tokens + prefills, prefill_tokens, decode_tokens, kv_used_};
    const double length_s = std::chrono::duration<double>(model_(shape)).count();
    if (!(length_s >= 0.0 && length_s <= std::numeric_limits<double>::max()))
      fail("step_time", length_s, "the step-time model must return a finite time >= 0");
    const double start_s = now_s_;
    now_s_ += length_s;
    ++stats_.steps;
    const std::uint64_t k = stats_.steps;
    stats_.busy_s += length_s;
    stats_.prefill_tokens += prefill_tokens;
    stats_.decode_tokens += decode_tokens;
    stats_.kv_token_steps += static_cast<double>(kv_used_);
    if (shape.batch > stats_.max_batch) stats_.max_batch = shape.batch;
    if (trace_on_)
      trace_.push_back(
          {std::chrono::duration<double>(start_s), std::chrono::duration<double>(length_s),
           static_cast<std::uint32_t>(shape.batch),
           static_cast<std::uint32_t>(std::min<std::size_t>(waiting_.size(), 0xffffffffu)),
           prefill_tokens, decode_tokens, kv_used_, kv_committed_});

    // Decoding sequences that emitted their last token in step k.
    while (!decoding_.empty() && decoding_.front().step == k) {
      std::pop_heap(decoding_.begin(), decoding_.end(), std::greater<>{});
      const std::size_t i = decoding_.back().index;
      decoding_.pop_back();
      replica_sequence& s = seqs_[i];
      const std::size_t decoded = static_cast<std::size_t>(k - s.decode_start);
      --decoding_count_;
      release(s, s.prefill_len + decoded, decoded);
      retire(i, done);
    }
    // Prefills: progress, and those that completed emit a token.
    std::size_t kept = 0;
    for (std::size_t j = 0; j < prefilling_.size(); ++j) {
      const std::size_t i = prefilling_[j];
      replica_sequence& s = seqs_[i];
      if (j >= prefills) {
        prefilling_[kept++] = i;
        continue;
      }
      s.prefill_left -= s.chunk;
      s.chunk = 0;
      if (s.prefill_left > 0) {
        prefilling_[kept++] = i;
        continue;
      }
      ++s.generated;
      if (s.first_token_s != s.first_token_s) s.first_token_s = now_s_;
      if (s.generated == s.output) {
        release(s, s.prefill_len, 0);
        retire(i, done);
      } else {
        s.state = replica_phase::decoding;
        s.decode_start = k;
        decoding_.push_back({k + (s.output - s.generated), i});
        std::push_heap(decoding_.begin(), decoding_.end(), std::greater<>{});
        ++decoding_count_;
      }
    }
    prefilling_.resize(kept);
  }

  /// Builds the result; everything still queued or running is unfinished.
  [[nodiscard]] sim::replica_result finish() {
    sim::replica_result r;
    r.outcomes.resize(seqs_.size());
    r.status.resize(seqs_.size());
    for (std::size_t i = 0; i < seqs_.size(); ++i) {
      const replica_sequence& s = seqs_[i];
      request_outcome& o = r.outcomes[i];
      o.intended_arrival = std::chrono::duration<double>(s.arrival_s);
      o.sent = o.intended_arrival;
      o.first_token = std::chrono::duration<double>(s.first_token_s);
      o.finished = std::chrono::duration<double>(s.finished_s);
      o.prompt_tokens = s.prompt;
      o.output_tokens = s.output;
      o.error = s.state != replica_phase::finished;
      sim::request_status st = sim::request_status::unfinished;
      switch (s.state) {
        case replica_phase::finished:
          st = sim::request_status::finished;
          ++r.stats.finished;
          break;
        case replica_phase::rejected:
          st = sim::request_status::rejected;
          ++r.stats.rejected;
          break;
        case replica_phase::pending:
          st = sim::request_status::not_arrived;
          ++r.stats.not_arrived;
          break;
        case replica_phase::waiting:
        case replica_phase::prefilling:
        case replica_phase::decoding:
          ++r.stats.unfinished;
          break;
      }
      r.status[i] = st;
    }
    r.stats.steps = stats_.steps;
    r.stats.preemptions = stats_.preemptions;
    r.stats.prefill_tokens = stats_.prefill_tokens;
    r.stats.decode_tokens = stats_.decode_tokens;
    r.stats.kv_token_steps = stats_.kv_token_steps;
    r.stats.max_batch_seen = stats_.max_batch;
    r.stats.max_queue_seen = stats_.max_queue;
    r.stats.busy = std::chrono::duration<double>(stats_.busy_s);
    r.stats.end = std::chrono::duration<double>(now_s_);
    r.stats.first_arrival = std::chrono::duration<double>(seen_arrival_ ? first_arrival_s_ : 0.0);
    r.trace = std::move(trace_);
    return r;
  }

 private:
  static constexpr std::size_t age_slack = 64;

  struct counters {
    std::uint64_t steps = 0;
    std::uint64_t preemptions = 0;
    std::uint64_t prefill_tokens = 0;
    std::uint64_t decode_tokens = 0;
    double kv_token_steps = 0.0;
    double busy_s = 0.0;
    std::size_t max_batch = 0;
    std::size_t max_queue = 0;
  };

  // Frees a sequence's KV: `used` tokens written, `grown` of them by decode steps.
  void release(const replica_sequence& s, std::size_t used, std::size_t grown) noexcept {
    kv_used_ -= used;
    kv_committed_ -= s.reserved + (preempt_ ? grown : 0);
  }

  template <class OnDone>
  void retire(std::size_t i, OnDone& done) {
    replica_sequence& s = seqs_[i];
    s.state = replica_phase::finished;
    s.finished_s = now_s_;
    --running_;
    done(i, now_s_);
  }

  void admit() {
    const std::size_t budget = config_.kv_budget_tokens;
    while (!waiting_.empty() && running_ < config_.max_batch) {
      const std::size_t i = waiting_.front();
      replica_sequence& s = seqs_[i];
      const std::size_t reserve = preempt_ ? s.prefill_len : s.prompt + s.output - 1;
      const std::size_t growth = preempt_ ? decoding_count_ : 0;
      if (kv_committed_ + reserve + growth > budget) break;
      waiting_.pop_front();
      s.reserved = reserve;
      s.prefill_left = s.prefill_len;
      s.state = replica_phase::prefilling;
      ++s.epoch;
      kv_committed_ += reserve;
      ++running_;
      prefilling_.push_back(i);
      if (preempt_) push_age(i);
    }
    if (waiting_.size() > stats_.max_queue) stats_.max_queue = waiting_.size();
  }

  void push_age(std::size_t i) {
    ages_.push_back({i, seqs_[i].epoch});
    if (ages_.size() > 2 * running_ + age_slack) {
      std::size_t kept = 0;
      for (const replica_age& a : ages_)
        if (alive(a)) ages_[kept++] = a;
      ages_.resize(kept);
    }
  }

  [[nodiscard]] bool alive(const replica_age& a) const noexcept {
    const replica_sequence& s = seqs_[a.index];
    return (s.state == replica_phase::prefilling || s.state == replica_phase::decoding) &&
           s.epoch == a.epoch;
  }

  void make_room_for_growth() {
    while (kv_committed_ + decoding_count_ > config_.kv_budget_tokens) {
      while (!ages_.empty() && !alive(ages_.back())) ages_.pop_back();
      HEADROOM_ASSERT(running_ > 1 && !ages_.empty(), "a lone sequence always fits");
      const std::size_t victim = ages_.back().index;
      ages_.pop_back();
      preempt(victim);
    }
  }

  void preempt(std::size_t i) {
    replica_sequence& s = seqs_[i];
    if (s.state == replica_phase::decoding) {
      const std::size_t decoded = static_cast<std::size_t>(stats_.steps - s.decode_start);
      release(s, s.prefill_len + decoded, decoded);
      s.generated += decoded;
      const auto it = std::find_if(decoding_.begin(), decoding_.end(),
                                   [i](const replica_finish& e) { return e.index == i; });
      *it = decoding_.back();
      decoding_.pop_back();
      std::make_heap(decoding_.begin(), decoding_.end(), std::greater<>{});
      --decoding_count_;
    } else {
      release(s, s.prefill_len - s.prefill_left, 0);
      prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), i));
    }
    s.prefill_len = s.prompt + s.generated;  // recompute: prompt and generated tokens
    s.prefill_left = 0;
    s.state = replica_phase::waiting;
    --running_;
    ++stats_.preemptions;
    waiting_.push_front(i);
  }

  const sim::replica_config& config_;
  M& model_;
  bool preempt_;
  bool chunked_;
  bool trace_on_;
  std::vector<replica_sequence> seqs_;
  replica_ring waiting_;
  std::vector<std::size_t> prefilling_;   // admission order
  std::vector<replica_finish> decoding_;  // min-heap on the finishing step
  std::vector<replica_age> ages_;         // admission order, lazily pruned (preemption)
  std::vector<sim::step_record> trace_;
  std::size_t running_ = 0;
  std::size_t decoding_count_ = 0;
  std::size_t kv_used_ = 0;
  std::size_t kv_committed_ = 0;
  double now_s_ = 0.0;
  double first_arrival_s_ = 0.0;
  bool seen_arrival_ = false;
  counters stats_{};
};

inline void validate_replica_requests(std::span<const sim::request> requests) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const sim::request& r = requests[i];
    if (!is_finite(r.arrival.count()))
      fail("requests[i].arrival", r.arrival, "must be a finite time");
    if (i > 0 && r.arrival < requests[i - 1].arrival)
      fail("requests[i].arrival", r.arrival, "arrivals must be sorted (non-decreasing)");
    if (r.prompt_tokens == 0) fail("requests[i].prompt_tokens", 0, "must be >= 1");
    if (r.output_tokens == 0) fail("requests[i].output_tokens", 0, "must be >= 1");
  }
}

[[nodiscard]] inline double replica_horizon_s(const sim::run_options& options) {
  if (!options.horizon) return std::numeric_limits<double>::infinity();
  return require_finite("options.horizon", options.horizon->count());
}

}  // namespace detail

namespace sim {

// ============================================================================================
// Running it
// ============================================================================================

/// Simulates the replica serving `requests` open loop (sorted by arrival, finite times,
/// prompt and output >= 1) with the step-time model (used in place; a stateful model
/// advances). Until every request finished, or until options.horizon. Throws
/// invalid_argument for a bad configuration, request or step time.
template <StepTimeModel M>
[[nodiscard]] replica_result simulate(const replica_config& config,
                                      std::span<const request> requests, M&& model,
                                      const run_options& options = {}) {
  validate(config);
  detail::validate_replica_requests(requests);
  const double horizon = detail::replica_horizon_s(options);
  std::remove_reference_t<M>& m = model;
  detail::replica_core<std::remove_reference_t<M>> core(config, m, requests.size(),
                                                        options.record_trace);
  for (const request& r : requests)
    static_cast<void>(core.add(r.arrival.count(), r.prompt_tokens, r.output_tokens, 0));
  const auto nothing = [](std::size_t, double) noexcept {};
  std::size_t next = 0;
  const std::size_t n = requests.size();
  for (;;) {
    const double now = core.now();
    while (next < n && requests[next].arrival.count() <= now &&
           requests[next].arrival.count() <= horizon)
      static_cast<void>(core.arrive(next++));
    if (!core.has_work()) {
      if (next == n || !(requests[next].arrival.count() <= horizon)) break;
      core.advance_to(requests[next].arrival.count());
      continue;
    }
    if (!(now < horizon)) break;
    core.step(nothing);
  }
  return core.finish();
}

/// Simulates the replica serving a closed loop: each user of `population` sends a request
/// (lengths from the sampler), waits for its answer (or rejection), thinks, sends again,
/// until `request_count` requests were sent. Intended arrival = send time (a closed loop
/// has no schedule: that is coordinated omission). Think times and lengths come from
/// `engine`. request_count >= 1; population.users() <= 2^32 − 1.
template <StepTimeModel M, class L, std::uniform_random_bit_generator G>
requires LengthSampler<L, G>
[[nodiscard]] replica_result simulate_closed_loop(const replica_config& config,
                                                  const closed_loop_population& population,
                                                  std::size_t request_count, L&& lengths, G& engine,
                                                  M&& model, const run_options& options = {}) {
  validate(config);
  if (request_count == 0) detail::fail("request_count", request_count, "must be >= 1");
  if (population.users() > std::numeric_limits<std::uint32_t>::max())
    detail::fail("population.users()", population.users(), "must fit in 32 bits");
  const double horizon = detail::replica_horizon_s(options);
  std::remove_reference_t<M>& m = model;
  detail::replica_core<std::remove_reference_t<M>> core(config, m, request_count,
                                                        options.record_trace);
  struct send {
    double time_s;
    std::uint32_t user;
    bool operator>(const send& o) const noexcept {
      return time_s != o.time_s ? time_s > o.time_s : user > o.user;
    }
  };
  std::vector<send> pending;
  pending.reserve(population.users());
  {
    const auto first = population.first_sends(engine);
    for (std::size_t u = 0; u < first.size(); ++u)
      pending.push_back({first[u].count(), static_cast<std::uint32_t>(u)});
    std::make_heap(pending.begin(), pending.end(), std::greater<>{});
  }
  std::size_t sent = 0;
  const auto schedule_next = [&](std::uint32_t user, double answered_s) {
    if (sent >= request_count) return;
    const auto t = population.next_send(std::chrono::duration<double>(answered_s), engine);
    pending.push_back({t.count(), user});
    std::push_heap(pending.begin(), pending.end(), std::greater<>{});
  };
  const auto on_done = [&](std::size_t i, double t) { schedule_next(core.at(i).user, t); };
  for (;;) {
    const double now = core.now();
    while (sent < request_count && !pending.empty() && pending.front().time_s <= now &&
           pending.front().time_s <= horizon) {
      std::pop_heap(pending.begin(), pending.end(), std::greater<>{});
      const send s = pending.back();
      pending.pop_back();
      const request_lengths l = lengths(engine);
      if (l.prompt_tokens == 0) detail::fail("lengths().prompt_tokens", 0, "must be >= 1");
      if (l.output_tokens == 0) detail::fail("lengths().output_tokens", 0, "must be >= 1");
      const std::size_t i = core.add(s.time_s, l.prompt_tokens, l.output_tokens, s.user);
      ++sent;
      if (!core.arrive(i)) schedule_next(s.user, s.time_s);
    }
    if (!core.has_work()) {
      if (sent >= request_count || pending.empty() || !(pending.front().time_s <= horizon)) break;
      core.advance_to(pending.front().time_s);
      continue;
    }
    if (!(now < horizon)) break;
    core.step(on_done);
  }
  return core.finish();
}

// ============================================================================================
// A capacity sweep
// ============================================================================================

/// Options of sweep_capacity.
struct sweep_options {
  std::size_t requests_per_point = 10000;  ///< requests simulated at each rate, >= 1
  double arrival_cv = 1.0;                 ///< CV of the gaps: 1 Poisson (gamma_gaps), >= 0
  double warm_up_fraction = 0.1;           ///< share of the schedule's span discarded at the start
  double cool_down_fraction = 0.1;         ///< share discarded at the end (draining server)
  std::uint64_t seed = 1;                  ///< the same seed at every rate (common random numbers)
  double z = 1.96;                         ///< normal quantile naming the intervals' level
  /// Independent runs per rate, >= 1; more than one: the t interval over their
  /// conformances (replicated_conformance).
  std::size_t replications = 1;
};

/// A swept curve: capacity.hpp's points (for find_capacity) and each point's run totals.
struct sweep_result {
  std::vector<capacity_point> curve;  ///< λ and the conformance measured there
  std::vector<replica_stats> stats;   ///< the run at each λ (its first replication)
};

/// The seed sweep_capacity gives replication r >= 1 of `seed`: SplitMix64's output for
/// seed + (r + 1)·0x9e3779b97f4a7c15 (Steele, Lea & Flood, OOPSLA 2014), so that no two
/// replications share a stream.
[[nodiscard]] constexpr std::uint64_t replication_seed(std::uint64_t seed, std::size_t r) noexcept {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(r) + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Measures the conformance to `objective` at each rate (req/s, > 0): requests_per_point
/// arrivals with gamma gaps (arrivals.hpp) and lengths from the sampler, both from a
/// std::mt19937_64 seeded with options.seed anew at every rate (so the curve's points
/// share their random numbers and the curve is smooth), a fresh copy of `model` per point,
/// the window [warm-up, span − cool-down] of the schedule, measure_conformance's interval.
/// With replications R > 1, each rate runs R independent replications (replication r >= 1
/// seeded by replication_seed, and a model with reseed(seed) reseeded) and reports
/// replicated_conformance of the R runs. Feed .curve to find_capacity.
template <StepTimeModel M, class L>
requires LengthSampler<L, std::mt19937_64> && std::copy_constructible<M> &&
    std::copy_constructible<L>
[[nodiscard]] sweep_result sweep_capacity(const replica_config& config, const M& model,
                                          std::span<const double> rates_per_s, const L& lengths,
                                          const slo& objective, const sweep_options& options = {}) {
  validate(config);
  validate(objective);
  if (options.requests_per_point == 0)
    detail::fail("options.requests_per_point", options.requests_per_point, "must be >= 1");
  detail::require_non_negative("options.arrival_cv", options.arrival_cv);
  detail::require_unit("options.warm_up_fraction", options.warm_up_fraction);
  detail::require_unit("options.cool_down_fraction", options.cool_down_fraction);
  if (!(options.warm_up_fraction + options.cool_down_fraction < 1.0))
    detail::fail("options.cool_down_fraction", options.cool_down_fraction,
                 "warm-up and cool-down must leave part of the run");
  detail::require_positive("options.z", options.z);
  if (options.replications == 0)
    detail::fail("options.replications", options.replications, "must be >= 1");
  if (rates_per_s.empty())
    detail::fail("rates_per_s.size()", std::size_t{0}, "the sweep needs at least one rate");
  for (const double rate : rates_per_s) detail::require_positive("rates_per_s[i]", rate);
  sweep_result result;
  result.curve.reserve(rates_per_s.size());
  result.stats.reserve(rates_per_s.size());
  std::vector<conformance_estimate> runs;
  runs.reserve(options.replications);
  for (const double rate : rates_per_s) {
    runs.clear();
    for (std::size_t r = 0; r < options.replications; ++r) {
      const std::uint64_t seed = r == 0 ? options.seed : replication_seed(options.seed, r);
      std::mt19937_64 engine(seed);
      const gamma_gaps gaps({.rate_per_second = rate, .cv = options.arrival_cv});
      const auto schedule = open_loop_schedule(gaps, options.requests_per_point, engine);
      L sampler = lengths;
      const auto requests = make_requests(schedule, sampler, engine);
      M fresh = model;
      if constexpr (requires(M & m, std::uint64_t s) { m.reseed(s); })
        if (r > 0) fresh.reseed(replication_seed(~seed, r));
      const auto run = simulate(config, std::span<const request>(requests), fresh);
      const double span_s = schedule.back().count();
      measurement_window window;
      window.warm_up = std::chrono::duration<double>(options.warm_up_fraction * span_s);
      window.cool_down = std::chrono::duration<double>(options.cool_down_fraction * span_s);
      window.run_end = schedule.back();
      runs.push_back(measure_conformance(run.outcomes, objective, window, options.z));
      if (r == 0) result.stats.push_back(run.stats);
    }
    result.curve.push_back(
        {rate, runs.size() == 1 ? runs.front() : replicated_conformance(runs, options.z)});
  }
  return result;
}

}  // namespace sim
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The simulated replica's engine (internal): requests wait for a batch slot and KV-cache
// room, are prefilled whole or in chunks under the step's token budget and decode one token
// per step. A step costs O(1) plus O(1) per request that arrives, is admitted, finishes its
// prefill or finishes (a heap keyed by the step at which each decoding sequence ends), and
// nothing is allocated per step. sim/replica.hpp drives it open or closed loop.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "../capacity.hpp"
#include "../detail/checks.hpp"
#include "../detail/ring.hpp"
#include "../error.hpp"
#include "replica_config.hpp"
#include "replica_result.hpp"
#include "step_time.hpp"

namespace headroom {
inline namespace v0 {
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

struct replica_finish {
  std::uint64_t step;
  std::size_t index;
  friend constexpr bool operator>(const replica_finish& a, const replica_finish& b) noexcept {
    return a.step != b.step ? a.step > b.step : a.index > b.index;
  }
};

/// Orders a min-heap through the std heap functions: a > b (std::greater<> without
/// <functional>).
struct heap_later {
  template <class T>
  constexpr bool operator()(const T& a, const T& b) const noexcept {
    return a > b;
  }
};

struct replica_age {
  std::size_t index;
  std::uint32_t epoch;
};

/// The engine's buffers, kept across runs by sim::replica_workspace: a run takes them,
/// clears them (their capacity stays) and gives them back when it ends. (The trace's
/// storage is the result's own.)
struct replica_buffers {
  std::vector<replica_sequence> seqs{};    // every request of the run
  ring<std::size_t> waiting{};             // the admission queue
  std::vector<std::size_t> prefilling{};   // admission order
  std::vector<replica_finish> decoding{};  // min-heap on the finishing step
  std::vector<replica_age> ages{};         // admission order, lazily pruned (preemption)
};

/// The replica's state and its step. Drivers (open, closed loop) add requests, call
/// arrive() when they arrive, and step() while there is work; finish() writes the result
/// and hands the buffers back.
template <class M>
class replica_core {
 public:
  replica_core(const sim::replica_config& config, M& model, std::size_t capacity,
               const sim::run_options& options, replica_buffers& buffers,
               sim::replica_result& result)
      : config_(config),
        model_(model),
        preempt_(config.kv == sim::kv_policy::preempt_youngest),
        chunked_(config.prefill == sim::prefill_mode::chunked),
        trace_on_(options.record_trace),
        seqs_(std::move(buffers.seqs)),
        waiting_(std::move(buffers.waiting)),
        prefilling_(std::move(buffers.prefilling)),
        decoding_(std::move(buffers.decoding)),
        ages_(std::move(buffers.ages)),
        trace_(std::move(result.trace)) {
    seqs_.clear();
    waiting_.clear();
    prefilling_.clear();
    decoding_.clear();
    ages_.clear();
    trace_.clear();
    seqs_.reserve(capacity);
    waiting_.reserve(capacity);
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
    const sim::step_shape shape = schedule();
    const double start_s = now_s_;
    const double length_s = step_length(shape);
    now_s_ += length_s;
    count_step(shape, start_s, length_s);
    retire_decodes(done);
    advance_prefills(shape.batch - shape.decode_tokens, done);
  }

  /// Writes the result into r (its vectors' storage reused; every entry overwritten) and
  /// hands the buffers back; everything still queued or running is unfinished. The core
  /// is spent afterwards.
  void finish(sim::replica_result& r, replica_buffers& buffers) {
    r.stats = {};
    r.outcomes.resize(seqs_.size());
    r.status.resize(seqs_.size());
    for (std::size_t i = 0; i < seqs_.size(); ++i) {
      const replica_sequence& s = seqs_[i];
      capacity::request_outcome& o = r.outcomes[i];
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
    buffers.seqs = std::move(seqs_);
    buffers.waiting = std::move(waiting_);
    buffers.prefilling = std::move(prefilling_);
    buffers.decoding = std::move(decoding_);
    buffers.ages = std::move(ages_);
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

  // Every decoding sequence takes one token and the prefills, in admission order, share what
  // is left of the token budget (whole prefill: a prompt that does not fit waits, unless it
  // is the step's first). Books the step's KV growth; the scheduled prefills are the first
  // `batch - decode_tokens` of prefilling_, each with its chunk set.
  [[nodiscard]] sim::step_shape schedule() noexcept {
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
    return {.batch = decode_tokens + prefills,
            .prefill_tokens = prefill_tokens,
            .decode_tokens = decode_tokens,
            .kv_tokens = kv_used_};
  }

  // The model's time for the step, seconds; throws unless finite and >= 0.
  [[nodiscard]] double step_length(const sim::step_shape& shape) {
    const double length_s = std::chrono::duration<double>(model_(shape)).count();
    if (!(length_s >= 0.0 && length_s <= std::numeric_limits<double>::max()))
      fail("step_time", length_s, "the step-time model must return a finite time >= 0");
    return length_s;
  }

  // The run's totals and, when traced, the step's record (at its peak, before anything
  // leaves).
  void count_step(const sim::step_shape& shape, double start_s, double length_s) {
    ++stats_.steps;
    stats_.busy_s += length_s;
    stats_.prefill_tokens += shape.prefill_tokens;
    stats_.decode_tokens += shape.decode_tokens;
    stats_.kv_token_steps += static_cast<double>(kv_used_);
    if (shape.batch > stats_.max_batch) stats_.max_batch = shape.batch;
    if (!trace_on_) return;
    constexpr std::size_t most_queued = std::numeric_limits<std::uint32_t>::max();
    trace_.push_back({.start = std::chrono::duration<double>(start_s),
                      .length = std::chrono::duration<double>(length_s),
                      .batch = static_cast<std::uint32_t>(shape.batch),
                      .queue_length = static_cast<std::uint32_t>(
                          std::min<std::size_t>(waiting_.size(), most_queued)),
                      .prefill_tokens = shape.prefill_tokens,
                      .decode_tokens = shape.decode_tokens,
                      .kv_tokens_used = kv_used_,
                      .kv_tokens_committed = kv_committed_});
  }

  // Retires the decoding sequences that emitted their last token in the step just run.
  template <class OnDone>
  void retire_decodes(OnDone& done) {
    const std::uint64_t k = stats_.steps;
    while (!decoding_.empty() && decoding_.front().step == k) {
      std::pop_heap(decoding_.begin(), decoding_.end(), heap_later{});
      const std::size_t i = decoding_.back().index;
      decoding_.pop_back();
      replica_sequence& s = seqs_[i];
      const std::size_t decoded = static_cast<std::size_t>(k - s.decode_start);
      --decoding_count_;
      release(s, s.prefill_len + decoded, decoded);
      retire(i, done);
    }
  }

  // The first `scheduled` prefills progress by their chunk; one that completes emits its
  // first token, then finishes (one output token) or starts decoding.
  template <class OnDone>
  void advance_prefills(std::size_t scheduled, OnDone& done) {
    const std::uint64_t k = stats_.steps;
    std::size_t kept = 0;
    for (std::size_t j = 0; j < prefilling_.size(); ++j) {
      const std::size_t i = prefilling_[j];
      replica_sequence& s = seqs_[i];
      if (j >= scheduled) {
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
      if (is_nan(s.first_token_s)) s.first_token_s = now_s_;
      if (s.generated == s.output) {
        release(s, s.prefill_len, 0);
        retire(i, done);
      } else {
        s.state = replica_phase::decoding;
        s.decode_start = k;
        decoding_.push_back({k + (s.output - s.generated), i});
        std::push_heap(decoding_.begin(), decoding_.end(), heap_later{});
        ++decoding_count_;
      }
    }
    prefilling_.resize(kept);
  }

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
      std::make_heap(decoding_.begin(), decoding_.end(), heap_later{});
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
  ring<std::size_t> waiting_;             // the admission queue
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

}  // namespace detail
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The trace readers' speed and memory: each reader streams a synthetic trace of range(0)
// thousand bytes in its real format, produced on the fly by a generator source (no file is
// written). /1000000 is 1 GB (10^9 bytes); /16000 (16 MB) is the quick case. The CI smoke run's
// filter '-/100000' leaves out every name containing "/100000", the 1 GB cases included.
//
// Reported: bytes_per_second (Google Benchmark prints MiB/s, or GiB/s), rows, and the memory
// of a whole read: "allocs" and "alloc_bytes" (the counting operator new of
// bench/allocation_counter.hpp, from before the reader is built to after the last row) and
// "peak_rss_MiB" (getrusage: the process's high-water mark so far, meaningful when the 1 GB
// case runs alone). A read that allocates more than the reader's one buffer fails the run.
// generator_only drains the generator alone: the copy every case includes.
#include <headroom/traces.hpp>

#include <benchmark/benchmark.h>

#include "allocation_counter.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#if __has_include(<sys/resource.h>)
#include <sys/resource.h>
#define HEADROOM_BENCH_HAS_RUSAGE 1
#endif

namespace {

using headroom::traces::trace_format;

constexpr std::size_t block_bytes = std::size_t{4} << 20;  // one generated block, ~4 MiB

// y-m-d of a day count from 1970-01-01 (H. Hinnant's civil_from_days).
void civil_from_days(std::int64_t z, int& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int>(static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0));
}

void append_number(std::string& out, std::uint64_t v, int width = 0) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  for (auto n = static_cast<int>(end - digits); n < width; ++n) out += '0';
  out.append(digits, end);
}

// A trace in one format: a header, then blocks of ~4 MiB of rows, each block a copy of one
// template whose rows' leading time digits (the date for Azure) are rewritten per block so
// that times keep increasing. Token counts are log-normal like the real traces'.
class synthetic_trace {
 public:
  synthetic_trace(trace_format format, std::uint64_t bytes) : format_(format), limit_(bytes) {
    std::mt19937_64 engine(42);
    std::lognormal_distribution<double> prompt(6.5, 1.0), output(5.0, 1.0);
    const auto tokens = [&](std::lognormal_distribution<double>& dist, double most) {
      return static_cast<std::uint64_t>(std::clamp(dist(engine), 1.0, most));
    };
    std::uint64_t next_hash = 0;
    // Rows per block so that the block is about block_bytes; times spread over one block's span.
    const std::size_t rows =
        format == trace_format::mooncake ? block_bytes / 260 : block_bytes / 42;
    for (std::size_t i = 0; i < rows; ++i) {
      starts_.push_back(block_.size());
      const std::uint64_t p = tokens(prompt, 32000.0), o = tokens(output, 4000.0);
      switch (format) {
        case trace_format::azure: {  // "YYYY-MM-DD HH:MM:SS.fffffff,p,o\r\n", one day per block
          const std::uint64_t ns100 = i * (864'000'000'000ULL / rows);  // 100 ns units
          const std::uint64_t s = ns100 / 10'000'000;
          block_ += "1970-01-01 ";
          append_number(block_, s / 3600, 2);
          block_ += ':';
          append_number(block_, s / 60 % 60, 2);
          block_ += ':';
          append_number(block_, s % 60, 2);
          block_ += '.';
          append_number(block_, ns100 % 10'000'000, 7);
          block_ += ',';
          append_number(block_, p);
          block_ += ',';
          append_number(block_, o);
          block_ += "\r\n";
          break;
        }
        case trace_format::burstgpt: {  // 8-digit seconds, 100,000 s per block; 2 % failures
          const bool failed = i % 50 == 7;
          append_number(block_, 10'000'000 + i * 100'000 / rows, 8);
          block_ += i % 5 == 0 ? ",GPT-4," : ",ChatGPT,";
          append_number(block_, p);
          block_ += ',';
          append_number(block_, failed ? 0 : o);
          block_ += ',';
          append_number(block_, p + (failed ? 0 : o));
          block_ += i % 3 == 0 ? ",API log\n" : ",Conversation log\n";
          break;
        }
        case trace_format::mooncake: {  // 11-digit ms, 10^8 ms per block; a hash per 512 tokens
          block_ += "{\"timestamp\": ";
          append_number(block_, 10'000'000'000ULL + i * 100'000'000ULL / rows, 11);
          block_ += ", \"input_length\": ";
          append_number(block_, p * 8);
          block_ += ", \"output_length\": ";
          append_number(block_, o);
          block_ += ", \"hash_ids\": [";
          for (std::uint64_t h = 0; h < (p * 8 + 511) / 512; ++h) {
            if (h > 0) block_ += ", ";
            append_number(block_, h == 0 ? 0 : ++next_hash);
          }
          block_ += "]}\n";
          break;
        }
      }
    }
    if (format == trace_format::azure) header_ = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
    if (format == trace_format::burstgpt)
      header_ = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
    patch(0);
  }

  // A TraceSource: the header, then blocks until at least `bytes` were produced.
  std::size_t operator()(char* buffer, std::size_t capacity) {
    std::size_t written = 0;
    while (written < capacity) {
      const std::string& from = in_header_ ? header_ : block_;
      if (at_ == from.size()) {
        if (in_header_) {
          in_header_ = false;
        } else {
          if (produced_ >= limit_) break;
          patch(++block_index_);
        }
        at_ = 0;
        continue;
      }
      const std::size_t n = std::min(capacity - written, from.size() - at_);
      std::memcpy(buffer + written, from.data() + at_, n);
      at_ += n;
      written += n;
      produced_ += n;
    }
    return written;
  }

 private:
  // Rewrites each row's leading time digits for block k: the date k days after 2023-11-16
  // (Azure), or 100 + k in the three leading digits (BurstGPT's seconds, Mooncake's ms).
  void patch(std::uint64_t k) {
    char prefix[16];
    std::size_t length = 0, offset = 0;
    if (format_ == trace_format::azure) {
      int y = 0;
      unsigned m = 0, d = 0;
      civil_from_days(19677 + static_cast<std::int64_t>(k), y, m, d);  // 19677: 2023-11-16
      std::string date;
      append_number(date, static_cast<std::uint64_t>(y), 4);
      date += '-';
      append_number(date, m, 2);
      date += '-';
      append_number(date, d, 2);
      std::memcpy(prefix, date.data(), 10);
      length = 10;
    } else {
      std::string digits;
      append_number(digits, 100 + k, 3);
      std::memcpy(prefix, digits.data(), 3);
      length = 3;
      offset = format_ == trace_format::mooncake ? 14 : 0;  // after {"timestamp":
    }
    for (const std::size_t s : starts_) std::memcpy(block_.data() + s + offset, prefix, length);
  }

  trace_format format_;
  std::uint64_t limit_;
  std::string header_, block_;
  std::vector<std::size_t> starts_;
  std::uint64_t block_index_ = 0;
  std::size_t at_ = 0;
  bool in_header_ = true;
  std::uint64_t produced_ = 0;
};

double peak_rss_mib() {
#if defined(HEADROOM_BENCH_HAS_RUSAGE)
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) return static_cast<double>(usage.ru_maxrss) / 1024.0;
#endif
  return 0.0;
}

void read(benchmark::State& state, trace_format format) {
  const auto bytes = static_cast<std::uint64_t>(state.range(0)) * 1000;
  std::uint64_t total_bytes = 0, rows = 0, allocs = 0, alloc_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    synthetic_trace source(format, bytes);
    state.ResumeTiming();
    const std::uint64_t allocs_before = headroom_bench::allocations();
    const std::uint64_t bytes_before = headroom_bench::allocated_bytes();
    headroom::traces::trace_reader<synthetic_trace&> reader(format, source);
    headroom::traces::trace_request r;
    std::uint64_t prompt = 0;
    while (reader.next(r)) prompt += r.prompt_tokens;
    benchmark::DoNotOptimize(prompt);
    allocs = headroom_bench::allocations() - allocs_before;
    alloc_bytes = headroom_bench::allocated_bytes() - bytes_before;
    total_bytes += reader.bytes();
    rows = reader.summary().rows;
    if (rows == 0 || reader.summary().requests == 0) state.SkipWithError("no row was read");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(total_bytes));
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["allocs"] = static_cast<double>(allocs);
  state.counters["alloc_bytes"] = static_cast<double>(alloc_bytes);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  // The reader's one buffer (its name fits std::string's inline storage): nothing else.
  if (allocs > 1 || alloc_bytes > headroom::traces::trace_options{}.buffer_bytes)
    state.SkipWithError("reading a trace allocated more than its buffer");
}

void traces_azure(benchmark::State& state) { read(state, trace_format::azure); }
void traces_burstgpt(benchmark::State& state) { read(state, trace_format::burstgpt); }
void traces_mooncake(benchmark::State& state) { read(state, trace_format::mooncake); }

void generator_only(benchmark::State& state) {
  const auto bytes = static_cast<std::uint64_t>(state.range(0)) * 1000;
  std::vector<char> buffer(headroom::traces::trace_options{}.buffer_bytes);
  std::uint64_t total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    synthetic_trace source(trace_format::azure, bytes);
    state.ResumeTiming();
    for (std::size_t n; (n = source(buffer.data(), buffer.size())) > 0;) total += n;
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(total));
}

}  // namespace

BENCHMARK(traces_azure)->Arg(16000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(traces_burstgpt)->Arg(16000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(traces_mooncake)->Arg(16000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(generator_only)->Arg(16000)->Arg(1000000)->Unit(benchmark::kMillisecond);

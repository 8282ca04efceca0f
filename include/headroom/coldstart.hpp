// SPDX-License-Identifier: Apache-2.0
// Cold start and reserve: the start-up breakdown T_start = T_machine + T_image +
// T_weights + T_warmup, the weight-load term M_w / B over the slowest channel crossed (with
// tensor parallelism over g GPUs on shared or independent channels), named storage tiers,
// the replicas to reserve for a ramp and for a step, the uncovered time of a step, and a
// scale-to-zero decision. See docs/coldstart.md.
//
// Units: bytes and bytes per second (decimal: 1 GB/s = 1e9 B/s), rates in requests/s, ramps
// in requests/s per second, durations as std::chrono durations (results in seconds,
// std::chrono::duration<T>). Replica counts are std::int64_t. Steady-state sizing,
// replicas_needed({.arrival_rate_per_second, .target_utilization, .capacity_per_second}),
// lives in queueing.hpp beside Little's law; the reserves here use the same ceil(x/(ρ*μ*))
// rule. A formula with two or more quantities of one type takes one aggregate of named
// fields, written with designated initializers (queueing.hpp explains the convention).
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <chrono>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include "detail/checks.hpp"
#include "detail/constexpr_math.hpp"
#include "queueing.hpp"

namespace headroom {
inline namespace v0 {
// The library's shared internals (detail/), named by the using-directive below.
namespace detail {}
/// Cold starts: startup phases, weight loading, reserves and scale to zero (docs/coldstart.md).
namespace coldstart {
namespace detail {
using namespace ::headroom::detail;  // this module's internals call the shared ones too
}  // namespace detail

// ============================================================================================
// Storage tiers and the weight-load term
// ============================================================================================

/// Where a replica's weights come from, slowest first.
enum class storage_tier : std::uint8_t {
  object_store,  ///< a network object store (S3-class), typically ~1 GB/s per client
  local_nvme,    ///< a local NVMe SSD, typically ~7 GB/s (PCIe 4.0 x4 drive)
  host_memory,   ///< host DRAM, crossing the host-to-GPU link: ~50 GB/s effective PCIe 5.0 x16
  peer_gpu,      ///< another GPU over NVLink: hundreds of GB/s (450 GB/s per direction, NVLink 4)
};

/// The name of a tier, as used in messages and docs ("object_store", ...).
[[nodiscard]] constexpr std::string_view to_string(storage_tier tier) noexcept {
  switch (tier) {
    case storage_tier::object_store:
      return "object_store";
    case storage_tier::local_nvme:
      return "local_nvme";
    case storage_tier::host_memory:
      return "host_memory";
    case storage_tier::peer_gpu:
      return "peer_gpu";
  }
  return "unknown";
}

/// Bandwidth of each tier in bytes/s, set by the caller (no hidden defaults: every field
/// starts at 0 and is rejected if used unset). host_memory is the host-to-GPU link, which
/// every tier except peer_gpu also crosses on the way to the GPU.
template <std::floating_point T>
struct basic_storage_bandwidths {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T object_store = 0;
  T local_nvme = 0;
  T host_memory = 0;
  T peer_gpu = 0;

  /// The bandwidth set for one tier.
  [[nodiscard]] constexpr T operator[](storage_tier tier) const noexcept {
    switch (tier) {
      case storage_tier::object_store:
        return object_store;
      case storage_tier::local_nvme:
        return local_nvme;
      case storage_tier::host_memory:
        return host_memory;
      case storage_tier::peer_gpu:
        return peer_gpu;
    }
    return T(0);
  }
};
using storage_bandwidths = basic_storage_bandwidths<double>;

namespace detail {
/// An S3-class object store, per client: about 1 GB/s.
inline constexpr double typical_object_store_bytes_per_second = 1e9;
/// A PCIe 4.0 x4 NVMe drive's sequential read: about 7 GB/s.
inline constexpr double typical_local_nvme_bytes_per_second = 7e9;
/// PCIe 5.0 x16, host to GPU: 64 GB/s raw per direction, about 50 effective.
inline constexpr double typical_host_memory_bytes_per_second = 50e9;
/// NVLink 4 on H100: 900 GB/s total, 450 per direction.
inline constexpr double typical_peer_gpu_bytes_per_second = 450e9;
}  // namespace detail

/// Typical bandwidths, to start from and override: object store 1 GB/s, local NVMe 7 GB/s,
/// host memory 50 GB/s, peer GPU 450 GB/s (the reasons beside each detail::typical_*
/// constant). Measure yours: these are orders of magnitude, not promises.
template <std::floating_point T = double>
[[nodiscard]] constexpr basic_storage_bandwidths<T> typical_storage_bandwidths() noexcept {
  return {.object_store = T(detail::typical_object_store_bytes_per_second),
          .local_nvme = T(detail::typical_local_nvme_bytes_per_second),
          .host_memory = T(detail::typical_host_memory_bytes_per_second),
          .peer_gpu = T(detail::typical_peer_gpu_bytes_per_second)};
}

/// Whether the g GPUs of a tensor-parallel replica load through one shared channel (all
/// M_w bytes cross it) or through independent channels (each GPU's M_w/g crosses its own).
enum class channel_sharing : std::uint8_t { shared, independent };

/// The slowest of the channels a load crosses (the minimum bandwidth, bytes/s): any range of
/// floating-point bandwidths, each > 0, at least one.
template <class R, class T = std::remove_cvref_t<decltype(*std::begin(std::declval<const R&>()))>>
requires std::floating_point<T>
[[nodiscard]] constexpr T slowest_channel(const R& bandwidths) {
  T slowest = std::numeric_limits<T>::infinity();
  bool any = false;
  for (const T b : bandwidths) {
    detail::require_positive("bandwidths", b);
    if (b < slowest) slowest = b;
    any = true;
  }
  if (!any) detail::fail("bandwidths", std::int64_t{0}, "needs at least one channel");
  return slowest;
}
template <std::floating_point T>
[[nodiscard]] constexpr T slowest_channel(std::initializer_list<T> bandwidths) {
  T slowest = std::numeric_limits<T>::infinity();
  for (const T b : bandwidths) {
    detail::require_positive("bandwidths", b);
    if (b < slowest) slowest = b;
  }
  if (bandwidths.size() == 0)
    detail::fail("bandwidths", std::int64_t{0}, "needs at least one channel");
  return slowest;
}

/// Inputs of weight_load_time.
template <std::floating_point T>
struct basic_weight_load_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T weight_bytes = 0;                                 ///< M_w, >= 0
  T channel_bytes_per_second = 0;                     ///< B, the slowest channel crossed, > 0
  std::int64_t gpus = 1;                              ///< g, tensor-parallel GPUs, >= 1
  channel_sharing sharing = channel_sharing::shared;  ///< one channel or one per GPU
};
using weight_load_inputs = basic_weight_load_inputs<double>;

/// T_weights = M_w / B for weight_bytes M_w through a channel of B bytes/s; with tensor
/// parallelism over g GPUs each loads M_w/g, so the time divides by g when the channels
/// are independent and stays M_w/B when they are shared. 140 GB at 1 GB/s: 140 s; at
/// 7 GB/s: 20 s; at 50 GB/s: 2.8 s.
template <std::floating_point T = double>
[[nodiscard]] constexpr detail::seconds_t<T> weight_load_time(
    const basic_weight_load_inputs<T>& inputs) {
  const T bytes = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  const T bandwidth =
      detail::require_positive("channel_bytes_per_second", inputs.channel_bytes_per_second);
  const auto g = detail::require_count_at_least("gpus", inputs.gpus, 1);
  const T per_channel =
      inputs.sharing == channel_sharing::independent ? bytes / static_cast<T>(g) : bytes;
  return detail::seconds_t<T>(per_channel / bandwidth);
}

/// The channels crossed when loading from `source`: the source tier itself and, for every
/// tier but peer_gpu, the host-to-GPU link (host_memory). Returns the slowest of them.
template <std::floating_point T>
[[nodiscard]] constexpr T tier_channel_bandwidth(const basic_storage_bandwidths<T>& bandwidths,
                                                 storage_tier source) {
  const char* name = "bandwidths.host_memory";
  switch (source) {
    case storage_tier::object_store:
      name = "bandwidths.object_store";
      break;
    case storage_tier::local_nvme:
      name = "bandwidths.local_nvme";
      break;
    case storage_tier::host_memory:
      break;
    case storage_tier::peer_gpu:
      name = "bandwidths.peer_gpu";
      break;
  }
  const T b = detail::require_positive(name, bandwidths[source]);
  if (source == storage_tier::peer_gpu || source == storage_tier::host_memory) return b;
  const T link = detail::require_positive("bandwidths.host_memory", bandwidths.host_memory);
  return link < b ? link : b;
}

/// Inputs of tier_weight_load_time.
template <std::floating_point T>
struct basic_tier_weight_load_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T weight_bytes = 0;                                 ///< M_w, >= 0
  basic_storage_bandwidths<T> bandwidths{};           ///< every tier's bandwidth, bytes/s
  storage_tier source = storage_tier::object_store;   ///< where the weights come from
  std::int64_t gpus = 1;                              ///< g, tensor-parallel GPUs, >= 1
  channel_sharing sharing = channel_sharing::shared;  ///< one channel or one per GPU
};
using tier_weight_load_inputs = basic_tier_weight_load_inputs<double>;

/// Weight-load time from a named tier: M_w over the slowest channel crossed from `source`
/// to the GPU (tier_channel_bandwidth), split over g GPUs as in weight_load_time.
template <std::floating_point T = double>
[[nodiscard]] constexpr detail::seconds_t<T> tier_weight_load_time(
    const basic_tier_weight_load_inputs<T>& inputs) {
  const T bytes = detail::require_non_negative("weight_bytes", inputs.weight_bytes);
  return weight_load_time(basic_weight_load_inputs<T>{
      .weight_bytes = bytes,
      .channel_bytes_per_second = tier_channel_bandwidth(inputs.bandwidths, inputs.source),
      .gpus = inputs.gpus,
      .sharing = inputs.sharing});
}

// ============================================================================================
// The start-up breakdown
// ============================================================================================

/// The terms of a start, largest-first reporting uses these names.
enum class startup_phase : std::uint8_t { machine, image, weights, warmup };

/// The name of a phase ("machine", "image", "weights", "warmup").
[[nodiscard]] constexpr std::string_view to_string(startup_phase phase) noexcept {
  switch (phase) {
    case startup_phase::machine:
      return "machine";
    case startup_phase::image:
      return "image";
    case startup_phase::weights:
      return "weights";
    case startup_phase::warmup:
      return "warmup";
  }
  return "unknown";
}

/// T_start = T_machine + T_image + T_weights + T_warmup. machine: obtaining a node
/// with the GPUs (minutes on a cold cloud); image: pulling and starting the container;
/// weights: weight_load_time(...); warmup: compilation and CUDA-graph capture (tens of
/// seconds; compilation can be cached between starts, graph capture cannot). Every term
/// is a finite duration >= 0.
template <std::floating_point T>
struct basic_startup_breakdown {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  detail::seconds_t<T> machine{};
  detail::seconds_t<T> image{};
  detail::seconds_t<T> weights{};
  detail::seconds_t<T> warmup{};

  /// The start delay, the sum of the four terms (validated): what a simulator waits between
  /// requesting a replica and having it ready.
  [[nodiscard]] constexpr detail::seconds_t<T> start_time() const {
    const T total = detail::require_non_negative_seconds<T>("machine", machine) +
                    detail::require_non_negative_seconds<T>("image", image) +
                    detail::require_non_negative_seconds<T>("weights", weights) +
                    detail::require_non_negative_seconds<T>("warmup", warmup);
    return detail::seconds_t<T>(total);
  }

  /// The largest term (the first of equals, in declaration order): where to look first.
  [[nodiscard]] constexpr startup_phase largest_phase() const {
    static_cast<void>(start_time());  // validates
    startup_phase phase = startup_phase::machine;
    detail::seconds_t<T> largest = machine;
    if (image > largest) {
      phase = startup_phase::image;
      largest = image;
    }
    if (weights > largest) {
      phase = startup_phase::weights;
      largest = weights;
    }
    if (warmup > largest) {
      phase = startup_phase::warmup;
    }
    return phase;
  }
};
using startup_breakdown = basic_startup_breakdown<double>;

// ============================================================================================
// Reserve for the start delay
// ============================================================================================

/// Inputs of ramp_reserve.
template <std::floating_point T>
struct basic_ramp_reserve_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T max_ramp_per_second = 0;          ///< λ̇_max, the steepest ramp, requests/s per second, >= 0
  detail::seconds_t<T> start_time{};  ///< T_start of a replica, >= 0
  T target_utilization = 0;           ///< ρ*, in (0, 1]
  T capacity_per_second = 0;          ///< μ*, a replica's capacity, req/s, > 0
};
using ramp_reserve_inputs = basic_ramp_reserve_inputs<double>;

/// Replicas to hold in reserve so a reactive controller absorbs a ramp of λ̇_max requests/s
/// per second while a new replica starts: ceil(λ̇_max · T_start / (ρ*μ*)) (the first order of
/// N_r ρ*μ* >= λ(t + T_start); docs/coldstart.md).
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t ramp_reserve(const basic_ramp_reserve_inputs<T>& inputs) {
  const T ramp = detail::require_non_negative("max_ramp_per_second", inputs.max_ramp_per_second);
  const T start = detail::require_non_negative_seconds<T>("start_time", inputs.start_time);
  const T rho = detail::require_unit_positive("target_utilization", inputs.target_utilization);
  const T mu = detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  return detail::require_ceil_count("max_ramp_per_second",
                                    detail::cxm::product_ratio({ramp, start}, {rho, mu}));
}

/// Inputs of step_reserve and reserve_covers_step.
template <std::floating_point T>
struct basic_step_reserve_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  T step_rate_per_second = 0;  ///< Δλ, the step to absorb, req/s, >= 0
  T target_utilization = 0;    ///< ρ*, in (0, 1]
  T capacity_per_second = 0;   ///< μ*, a replica's capacity, req/s, > 0
};
using step_reserve_inputs = basic_step_reserve_inputs<double>;

/// Extra replicas that absorb a step of Δλ requests/s with no delay: ceil(Δλ/(ρ*μ*)), paid for
/// as long as the step may come.
template <std::floating_point T = double>
[[nodiscard]] constexpr std::int64_t step_reserve(const basic_step_reserve_inputs<T>& inputs) {
  const T step = detail::require_non_negative("step_rate_per_second", inputs.step_rate_per_second);
  const T rho = detail::require_unit_positive("target_utilization", inputs.target_utilization);
  const T mu = detail::require_positive("capacity_per_second", inputs.capacity_per_second);
  // replicas_needed's formula, with the overflow check naming this function's field.
  return detail::require_ceil_count("step_rate_per_second",
                                    detail::cxm::product_ratio({step}, {rho, mu}));
}

/// true iff `spare_replicas` (>= 0) held at ρ*μ* each cover the step: spare >= step_reserve.
template <std::floating_point T = double>
[[nodiscard]] constexpr bool reserve_covers_step(const basic_step_reserve_inputs<T>& step,
                                                 std::int64_t spare_replicas) {
  const auto spare = detail::require_count_at_least("spare_replicas", spare_replicas, 0);
  return spare >= step_reserve(step);
}

/// Inputs of step_uncovered_time.
template <std::floating_point T>
struct basic_step_uncovered_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  detail::seconds_t<T> start_time{};  ///< T_start of a replica, >= 0
  detail::seconds_t<T> look_ahead{};  ///< how far ahead the controller knows λ, >= 0
};
using step_uncovered_inputs = basic_step_uncovered_inputs<double>;

/// How long a step goes uncovered when the reserve does not cover it: max(0, T_start −
/// look-ahead). A reactive controller (look-ahead 0) is short for T_start; knowing λ(t +
/// T_start) ahead (seasonality, a calendar of events) with look-ahead >= T_start closes the
/// gap. A shorter start shortens the gap but never removes it.
template <std::floating_point T = double>
[[nodiscard]] constexpr detail::seconds_t<T> step_uncovered_time(
    const basic_step_uncovered_inputs<T>& inputs) {
  const T start = detail::require_non_negative_seconds<T>("start_time", inputs.start_time);
  const T ahead = detail::require_non_negative_seconds<T>("look_ahead", inputs.look_ahead);
  return detail::seconds_t<T>(start > ahead ? start - ahead : T(0));
}

// ============================================================================================
// Scale to zero
// ============================================================================================

/// Why scale_to_zero_decision decided as it did.
enum class scale_to_zero_reason : std::uint8_t {
  idle_too_short,       ///< idle periods are not much longer than T_start: keep one warm
  ttft_promise_broken,  ///< a cold first request would break the TTFT promise: keep one warm
  ttft_promise_met,     ///< long idle periods and even a cold start meets the promise: scale
  ttft_miss_tolerated,  ///< long idle periods, and the rare cold miss fits the miss budget
};

/// The name of a reason ("idle_too_short", ...).
[[nodiscard]] constexpr std::string_view to_string(scale_to_zero_reason reason) noexcept {
  switch (reason) {
    case scale_to_zero_reason::idle_too_short:
      return "idle_too_short";
    case scale_to_zero_reason::ttft_promise_broken:
      return "ttft_promise_broken";
    case scale_to_zero_reason::ttft_promise_met:
      return "ttft_promise_met";
    case scale_to_zero_reason::ttft_miss_tolerated:
      return "ttft_miss_tolerated";
  }
  return "unknown";
}

namespace detail {
/// Idle periods this many times longer than T_start count as "much longer": a start then
/// costs at most a tenth of the idle time it saves.
inline constexpr double default_min_idle_to_start_ratio = 10;
}  // namespace detail

/// Inputs of the scale-to-zero decision. Durations in seconds (any std::chrono duration
/// assigns). Defaults: "much longer" means 10 x T_start; no request may miss the promise.
template <std::floating_point T>
struct basic_scale_to_zero_inputs {
  HEADROOM_NO_UNIQUE_ADDRESS detail::designated_initializers_only designated_initializers_only{};
  detail::seconds_t<T> idle_period{};   ///< typical length of an empty period
  detail::seconds_t<T> start_time{};    ///< T_start of a replica (start_time() of a breakdown)
  detail::seconds_t<T> ttft_promise{};  ///< the TTFT SLO threshold
  detail::seconds_t<T> warm_ttft{};     ///< TTFT of a warm replica (added to T_start when cold)
  /// idle_period / start_time at or above which idling pays
  T min_idle_to_start_ratio = T(detail::default_min_idle_to_start_ratio);
  T cold_request_share = 1;  ///< share of requests that would find no warm replica
  T ttft_miss_budget = 0;    ///< share of requests allowed to miss the promise
};
using scale_to_zero_inputs = basic_scale_to_zero_inputs<double>;

/// The decision, its reason, and the numbers behind it.
template <std::floating_point T>
struct basic_scale_to_zero_decision {
  bool scale_to_zero = false;
  scale_to_zero_reason reason = scale_to_zero_reason::idle_too_short;
  detail::seconds_t<T> cold_ttft{};  ///< T_start + warm TTFT: the first request's TTFT
  T idle_to_start_ratio = 0;         ///< idle_period / start_time (+infinity for T_start = 0)
};
using scale_to_zero_decision = basic_scale_to_zero_decision<double>;

/// Scale to zero removes the cost of empty periods and adds T_start to the first request's
/// TTFT: worth it when idle periods last much longer than T_start (ratio >= the threshold)
/// and the TTFT promise either holds for a cold request or tolerates the rare miss
/// (cold_request_share <= ttft_miss_budget). With a start of minutes and a 0.5 s TTFT
/// promise: keep one warm replica.
template <std::floating_point T = double>
[[nodiscard]] constexpr basic_scale_to_zero_decision<T> decide_scale_to_zero(
    const basic_scale_to_zero_inputs<T>& in) {
  const T idle = detail::require_non_negative_seconds<T>("idle_period", in.idle_period);
  const T start = detail::require_non_negative_seconds<T>("start_time", in.start_time);
  const T promise = detail::require_positive_seconds<T>("ttft_promise", in.ttft_promise);
  const T warm = detail::require_non_negative_seconds<T>("warm_ttft", in.warm_ttft);
  const T threshold =
      detail::require_positive("min_idle_to_start_ratio", in.min_idle_to_start_ratio);
  const T cold_share = detail::require_unit("cold_request_share", in.cold_request_share);
  const T budget = detail::require_unit_below_one("ttft_miss_budget", in.ttft_miss_budget);

  basic_scale_to_zero_decision<T> out;
  out.cold_ttft = detail::seconds_t<T>(start + warm);
  out.idle_to_start_ratio = start > T(0) ? idle / start : std::numeric_limits<T>::infinity();
  if (out.idle_to_start_ratio < threshold) {
    out.reason = scale_to_zero_reason::idle_too_short;
  } else if (start + warm <= promise) {
    out.scale_to_zero = true;
    out.reason = scale_to_zero_reason::ttft_promise_met;
  } else if (cold_share <= budget) {
    out.scale_to_zero = true;
    out.reason = scale_to_zero_reason::ttft_miss_tolerated;
  } else {
    out.reason = scale_to_zero_reason::ttft_promise_broken;
  }
  return out;
}

}  // namespace coldstart
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

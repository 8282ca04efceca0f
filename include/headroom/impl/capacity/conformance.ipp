// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/capacity/conformance.hpp's non-template functions: included at the
// end of that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../capacity/conformance.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace capacity {
namespace detail {

HEADROOM_DECL proportion_interval wilson_bounds(double p, double trials, double z) noexcept {
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / trials;
  const double centre = (p + z2 / (2.0 * trials)) / denominator;
  const double half =
      z * std::sqrt(p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)) / denominator;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace detail
}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {

HEADROOM_DECL proportion_interval wilson_interval(const proportion_counts& counts, double z) {
  if (counts.trials == 0)
    detail::fail("trials", counts.trials, "a proportion needs at least one trial");
  if (counts.successes > counts.trials)
    detail::fail("successes", counts.successes, "must be <= trials");
  detail::require_positive("z", z);
  const double n = static_cast<double>(counts.trials);
  return detail::wilson_bounds(static_cast<double>(counts.successes) / n, n, z);
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {
namespace detail {

HEADROOM_DECL void finish_interval(conformance_estimate& e) {
  const double trials = static_cast<double>(e.n);
  const double p = e.share;
  const double se = e.standard_error;
  e.effective_sample_size = trials;
  if (se > 0.0 && p > 0.0 && p < 1.0)
    e.effective_sample_size = std::min(trials, p * (1.0 - p) / (se * se));
  const double t = student_t_quantile_matching(e.z, e.degrees_of_freedom);
  const auto score = wilson_bounds(p, e.effective_sample_size, t);
  double lower = score.lower;
  double upper = score.upper;
  if (se > 0.0) {
    const double beta = e.skewness / 6.0;
    const auto g = [beta](double zeta) {
      if (std::abs(beta) < negligible_skewness) return zeta;
      return (std::cbrt(1.0 + 6.0 * beta * (zeta - beta)) - 1.0) / (2.0 * beta);
    };
    lower = std::min(lower, p - g(t) * se);
    upper = std::max(upper, p - g(-t) * se);
  }
  e.lower = std::clamp(lower, 0.0, 1.0);
  e.upper = std::clamp(upper, 0.0, 1.0);
}

HEADROOM_DECL conformance_estimate independent_estimate(std::size_t conforming, std::size_t n,
                                                        double z) {
  conformance_estimate e;
  e.n = n;
  e.conforming = conforming;
  e.z = z;
  if (n == 0) return e;
  const double trials = static_cast<double>(n);
  e.share = static_cast<double>(conforming) / trials;
  e.standard_error = queueing::conformance_standard_error(e.share, static_cast<std::int64_t>(n));
  const auto interval = wilson_bounds(e.share, trials, z);
  e.wilson_lower = e.lower = interval.lower;
  e.wilson_upper = e.upper = interval.upper;
  e.effective_sample_size = trials;
  e.batches = n;
  e.batch_size = 1;
  return e;
}

HEADROOM_DECL series_moments moments_of(std::span<const double> y) noexcept {
  series_moments m;
  const double k = static_cast<double>(y.size());
  for (const double v : y) m.mean += v;
  m.mean /= k;
  double squares = 0.0;
  double cubes = 0.0;
  double lagged = 0.0;
  double successive = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = y[i] - m.mean;
    squares += d * d;
    cubes += d * d * d;
    if (i + 1 < y.size()) {
      lagged += d * (y[i + 1] - m.mean);
      successive += (y[i + 1] - y[i]) * (y[i + 1] - y[i]);
    }
  }
  if (!(squares > 0.0)) return m;
  m.variance = squares / (k - 1.0);
  m.lag1 = lagged / squares;
  m.von_neumann = 1.0 - successive / (2.0 * squares);
  if (y.size() >= 3)
    m.skewness = k / ((k - 1.0) * (k - 2.0)) * cubes / (m.variance * std::sqrt(m.variance));
  return m;
}

}  // namespace detail
}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {

HEADROOM_DECL conformance_estimate conformance_from_counts(const proportion_counts& counts,
                                                           double z) {
  detail::require_positive("z", z);
  if (counts.successes > counts.trials)
    detail::fail("successes", counts.successes, "must be <= trials");
  return detail::independent_estimate(counts.successes, counts.trials, z);
}

HEADROOM_DECL conformance_estimate exact_conformance(double share) {
  detail::require_unit("share", share);
  conformance_estimate e;
  e.share = share;
  e.lower = e.upper = share;
  e.wilson_lower = share;
  e.wilson_upper = share;
  e.standard_error = 0.0;
  e.degrees_of_freedom = std::numeric_limits<double>::infinity();
  e.basis = interval_basis::exact;
  e.exact = true;
  return e;
}

HEADROOM_DECL auto conformance_series::estimate(double z) const -> conformance_estimate {
  detail::require_positive("z", z);
  const std::size_t n = size();
  if (n < min_batches) return detail::independent_estimate(conforming(), n, z);
  conformance_estimate e = detail::independent_estimate(conforming(), n, z);
  e.basis = interval_basis::batch_means;
  // Candidate levels: groups of 2^j stored sums, aligned to the end of the run (the
  // leading remainder, nearest the warm-up, is left out of the variance only).
  std::array<double, capacity> means{};
  std::size_t group = 1;
  std::size_t k = count_;
  detail::series_moments chosen{};
  std::size_t chosen_k = 0;
  std::size_t chosen_size = 0;
  for (;;) {
    const std::size_t first = count_ - k * group;
    const double size = static_cast<double>(group * batch_size_);
    for (std::size_t i = 0; i < k; ++i) {
      std::uint64_t sum = 0;
      for (std::size_t j = 0; j < group; ++j) sum += sums_[first + i * group + j];
      means[i] = static_cast<double>(sum) / size;
    }
    const auto m = detail::moments_of(std::span<const double>(means.data(), k));
    chosen = m;
    chosen_k = k;
    chosen_size = group * batch_size_;
    const double kd = static_cast<double>(k);
    const bool correlated =
        m.von_neumann > detail::z_one_sided_10 * std::sqrt((kd - 2.0) / (kd * kd - 1.0));
    const double spread = m.mean * (1.0 - m.mean);
    const double design_effect = spread > 0.0 ? size * m.variance / spread : 1.0;
    const bool too_short = size < detail::min_batch_design_effects * design_effect;
    if (!(m.variance > 0.0) || (!correlated && !too_short)) break;
    if (k / 2 < min_batches) break;
    group *= 2;
    k /= 2;
  }
  const double kd = static_cast<double>(chosen_k);
  double variance = chosen.variance / kd;
  const double phi = std::min(chosen.lag1, detail::max_batch_correlation);
  if (phi > 0.0) variance *= (1.0 + phi) / (1.0 - phi);
  e.standard_error = std::sqrt(variance);
  e.degrees_of_freedom = kd - 1.0;
  e.skewness = chosen.skewness / std::sqrt(kd);
  e.batches = chosen_k;
  e.batch_size = chosen_size;
  detail::finish_interval(e);
  return e;
}

HEADROOM_DECL conformance_estimate measure_conformance(std::span<const request_outcome> outcomes,
                                                       const slo& objective,
                                                       const measurement_window& window, double z) {
  validate(objective);
  detail::require_positive("z", z);
  detail::require_non_negative("window.warm_up", window.warm_up.count());
  detail::require_non_negative("window.cool_down", window.cool_down.count());
  if (window.run_end) detail::require_finite("window.run_end", window.run_end->count());
  if (outcomes.empty()) detail::fail("outcomes.size()", 0, "there are no outcomes to measure");
  double last_arrival_s = -std::numeric_limits<double>::infinity();
  for (const auto& o : outcomes) {
    if (!detail::is_finite(o.intended_arrival.count()))
      detail::fail("outcome.intended_arrival", o.intended_arrival, "must be a finite time");
    if (!o.error) {
      if (!detail::is_finite(o.sent.count()))
        detail::fail("outcome.sent", o.sent, "must be a finite time");
      if (!detail::is_finite(o.first_token.count()))
        detail::fail("outcome.first_token", o.first_token, "must be a finite time");
      if (!detail::is_finite(o.finished.count()))
        detail::fail("outcome.finished", o.finished, "must be a finite time");
    }
    last_arrival_s = std::max(last_arrival_s, o.intended_arrival.count());
  }
  const double begin_s = window.warm_up.count();
  const double end_s =
      (window.run_end ? window.run_end->count() : last_arrival_s) - window.cool_down.count();
  const auto inside = [&](const request_outcome& o) {
    const double t = o.intended_arrival.count();
    return t >= begin_s && t <= end_s;
  };
  // One pass, feeding the series while the window's outcomes come in arrival order; the
  // first one out of order sends the window through a sort instead.
  std::size_t n = 0;
  std::size_t errors = 0;
  double latency_sum_s = 0.0;
  bool in_order = true;
  double previous_s = -std::numeric_limits<double>::infinity();
  conformance_series series;
  for (const auto& o : outcomes) {
    if (!inside(o)) continue;
    ++n;
    if (in_order) {
      in_order = o.intended_arrival.count() >= previous_s;
      previous_s = o.intended_arrival.count();
      if (in_order) series.add(meets_slo(objective, o));
    }
    if (o.error) {
      ++errors;
      continue;
    }
    latency_sum_s += end_to_end_latency(o).count();
  }
  if (!in_order) {
    std::vector<std::pair<double, bool>> ordered;
    ordered.reserve(n);
    for (const auto& o : outcomes)
      if (inside(o)) ordered.emplace_back(o.intended_arrival.count(), meets_slo(objective, o));
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    series = conformance_series{};
    for (const auto& [t, hit] : ordered) series.add(hit);
  }
  auto estimate = series.estimate(z);
  estimate.errors = errors;
  estimate.discarded = outcomes.size() - n;
  if (n > errors)
    estimate.mean_latency =
        std::chrono::duration<double>(latency_sum_s / static_cast<double>(n - errors));
  return estimate;
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {
namespace detail {

HEADROOM_DECL void validate_run(const conformance_estimate& e) {
  if (e.exact) fail("runs[i].exact", e.share, "a model value is not a run to combine");
  if (e.conforming > e.n) fail("runs[i].conforming", e.conforming, "must be <= runs[i].n");
  require_unit("runs[i].share", e.share);
  require_non_negative("runs[i].standard_error", e.standard_error);
  require_finite("runs[i].skewness", e.skewness);
  if (!(e.degrees_of_freedom >= 1.0))
    fail("runs[i].degrees_of_freedom", e.degrees_of_freedom, "must be >= 1 (or infinite)");
  require_non_negative("runs[i].mean_latency", e.mean_latency.count());
}

HEADROOM_DECL conformance_estimate totals_of(std::span<const conformance_estimate> runs, double z,
                                             std::size_t& used) {
  conformance_estimate total;
  double latency_sum_s = 0.0;
  used = 0;
  for (const auto& r : runs) {
    validate_run(r);
    total.discarded += r.discarded;
    if (r.empty()) continue;
    ++used;
    total.n += r.n;
    total.conforming += r.conforming;
    total.errors += r.errors;
    latency_sum_s += r.mean_latency.count() * static_cast<double>(r.n - r.errors);
  }
  total.z = z;
  if (total.n == 0) return total;
  auto wilson = independent_estimate(total.conforming, total.n, z);
  total.share = wilson.share;
  total.wilson_lower = wilson.wilson_lower;
  total.wilson_upper = wilson.wilson_upper;
  if (total.n > total.errors)
    total.mean_latency =
        std::chrono::duration<double>(latency_sum_s / static_cast<double>(total.n - total.errors));
  return total;
}

HEADROOM_DECL combined_runs combine_runs(std::span<const conformance_estimate> runs, double z,
                                         interval_basis basis) {
  detail::require_positive("z", z);
  combined_runs c;
  c.totals = detail::totals_of(runs, z, c.used);
  c.totals.basis = basis;
  if (c.used == 0) c.done = c.totals;
  if (c.used == 1)
    for (const auto& r : runs)
      if (!r.empty()) {
        c.done = r;
        c.done->discarded = c.totals.discarded;
        break;
      }
  return c;
}

}  // namespace detail
}  // namespace capacity
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace capacity {

HEADROOM_DECL conformance_estimate
replicated_conformance(std::span<const conformance_estimate> runs, double z) {
  auto [e, used, done] = detail::combine_runs(runs, z, interval_basis::replications);
  if (done) return *done;
  std::vector<double> y;
  y.reserve(used);
  const double mean_n = static_cast<double>(e.n) / static_cast<double>(used);
  for (const auto& r : runs)
    if (!r.empty())
      y.push_back(e.share +
                  (static_cast<double>(r.conforming) - e.share * static_cast<double>(r.n)) /
                      mean_n);
  const auto m = detail::moments_of(y);
  const double runs_d = static_cast<double>(used);
  e.standard_error = std::sqrt(m.variance / runs_d);
  e.degrees_of_freedom = runs_d - 1.0;
  e.skewness = m.skewness / std::sqrt(runs_d);
  e.batches = used;
  e.batch_size = 0;
  detail::finish_interval(e);
  return e;
}

HEADROOM_DECL conformance_estimate pooled_conformance(std::span<const conformance_estimate> runs,
                                                      double z) {
  auto [e, used, done] = detail::combine_runs(runs, z, interval_basis::pooled_runs);
  if (done) return *done;
  const double total = static_cast<double>(e.n);
  double variance = 0.0;
  double df_denominator = 0.0;
  double third = 0.0;
  for (const auto& r : runs) {
    if (r.empty()) continue;
    const double w = static_cast<double>(r.n) / total;
    const double a = w * w * r.standard_error * r.standard_error;
    variance += a;
    if (r.degrees_of_freedom <= std::numeric_limits<double>::max())
      df_denominator += a * a / r.degrees_of_freedom;
    third += w * w * w * r.skewness * r.standard_error * r.standard_error * r.standard_error;
    e.batches += r.batches;
  }
  e.standard_error = std::sqrt(variance);
  e.degrees_of_freedom = df_denominator > 0.0 ? std::max(1.0, variance * variance / df_denominator)
                                              : std::numeric_limits<double>::infinity();
  e.skewness = variance > 0.0 ? third / (variance * e.standard_error) : 0.0;
  e.batch_size = 0;
  detail::finish_interval(e);
  return e;
}

}  // namespace capacity
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

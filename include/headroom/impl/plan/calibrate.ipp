// SPDX-License-Identifier: Apache-2.0
// The definitions of headroom/plan/calibrate.hpp's non-template functions: included at the end of
// that header (header-only, the default) or once, by headroom/src.hpp, with
// HEADROOM_SEPARATE_COMPILATION defined.
#pragma once

#include "../../plan/calibrate.hpp"

#if HEADROOM_HAS_CXX20

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL auto step_recorder::operator()(const sim::step_shape& s) const
    -> std::chrono::duration<double> {
  steps->push_back({roofline->bytes(s), roofline->flops(s),
                    static_cast<double>(s.prefill_tokens + s.decode_tokens)});
  return std::chrono::duration<double>(1e-3);  // any positive time gives the same schedule
}

HEADROOM_DECL void check_row(const calibration_row& r) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_positive;
  if (r.tensor_parallel < 1) fail("rows[i].tensor_parallel", r.tensor_parallel, "must be >= 1");
  if (r.input_tokens < 1) fail("rows[i].input_tokens", r.input_tokens, "must be >= 1");
  if (r.output_tokens < 1) fail("rows[i].output_tokens", r.output_tokens, "must be >= 1");
  if (r.requests < 1) fail("rows[i].requests", r.requests, "must be >= 1");
  require_positive("rows[i].model.parameters", r.model.parameters);
  require_positive("rows[i].model.bytes_per_parameter", r.model.bytes_per_parameter);
  require_positive("rows[i].model.kv_bytes_per_token", r.model.kv_bytes_per_token);
  require_positive("rows[i].gpu.peak_flops_per_second", r.gpu.peak_flops_per_second);
  require_positive("rows[i].gpu.peak_bytes_per_second", r.gpu.peak_bytes_per_second);
  if (r.tensor_parallel > 1 && r.model.hidden_size > 0)
    require_positive("rows[i].interconnect_bytes_per_second", r.interconnect_bytes_per_second);
}

HEADROOM_DECL row_profile profile_of(const calibration_row& r) {
  check_row(r);
  const accelerator_option nominal{
      .spec = r.gpu,
      .price_per_gpu_hour = 1.0,
      .interconnect_bytes_per_second = r.interconnect_bytes_per_second};
  const tensor_parallel_step_time model = make_step_time(r.model, nominal, r.tensor_parallel);
  std::vector<std::array<double, 3>> steps;
  const std::vector<sim::request> requests(
      r.requests, sim::request{.arrival = std::chrono::duration<double>(0.0),
                               .prompt_tokens = r.input_tokens,
                               .output_tokens = r.output_tokens});
  const auto run = sim::simulate(r.engine, std::span<const sim::request>(requests),
                                 step_recorder{&model.roofline, &steps});
  if (run.stats.finished != r.requests)
    ::headroom::detail::fail("rows[i].engine", r.requests,
                             "the engine cannot finish every request (its KV budget or limits "
                             "reject some)");
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
    return a[0] * b[1] > b[0] * a[1];  // bytes_a / flops_a > bytes_b / flops_b, FLOPs > 0
  });
  row_profile p;
  p.ratio.reserve(steps.size());
  p.bytes_prefix.assign(1, 0.0);
  p.flops_prefix.assign(1, 0.0);
  for (const auto& s : steps) {
    p.ratio.push_back(s[0] / s[1]);
    p.bytes_prefix.push_back(p.bytes_prefix.back() + s[0]);
    p.flops_prefix.push_back(p.flops_prefix.back() + s[1]);
    p.tokens += s[2];
  }
  p.steps = static_cast<double>(steps.size());
  const double tp = static_cast<double>(r.tensor_parallel);
  p.peak_bytes_per_second = r.gpu.peak_bytes_per_second * tp;
  p.peak_flops_per_second = roofline::peak_flops_for(r.gpu, r.model.compute_format) * tp;
  p.all_reduces_per_step = model.all_reduces_per_step;
  if (model.all_reduces_per_step > 0.0 && r.interconnect_bytes_per_second > 0.0)
    p.seconds_per_token_on_link =
        2.0 * (tp - 1.0) / tp * model.activation_bytes_per_token / r.interconnect_bytes_per_second;
  p.work = r.unit == measured_unit::requests_per_second
               ? static_cast<double>(r.requests)
               : static_cast<double>(r.requests) * static_cast<double>(r.output_tokens);
  p.measured_makespan = r.measured > 0.0 ? p.work / r.measured : 0.0;  // calibrate checks it
  return p;
}

HEADROOM_DECL double makespan(const row_profile& p, const step_time_parameters& x) {
  const double b = p.peak_bytes_per_second * x.bandwidth_efficiency;
  const double f = p.peak_flops_per_second * x.flops_efficiency;
  // A step is memory-bound when bytes / B >= FLOPs / P, i.e. its ratio >= B / P.
  const double threshold = b / f;
  const auto k = static_cast<std::size_t>(
      std::upper_bound(p.ratio.begin(), p.ratio.end(), threshold, std::greater<>{}) -
      p.ratio.begin());
  const double memory = p.bytes_prefix[k] / b;
  const double compute = (p.flops_prefix.back() - p.flops_prefix[k]) / f;
  const double per_step =
      x.step_overhead.count() + p.all_reduces_per_step * x.all_reduce_latency.count();
  const double link = p.all_reduces_per_step * p.seconds_per_token_on_link * p.tokens;
  return memory + compute + p.steps * per_step + link;
}

HEADROOM_DECL parameter_vector to_vector(const step_time_parameters& x) {
  return {x.flops_efficiency, x.bandwidth_efficiency, x.step_overhead.count(),
          x.all_reduce_latency.count()};
}

HEADROOM_DECL step_time_parameters from_vector(const parameter_vector& v) {
  return {.flops_efficiency = v[0],
          .bandwidth_efficiency = v[1],
          .step_overhead = std::chrono::duration<double>(v[2]),
          .all_reduce_latency = std::chrono::duration<double>(v[3])};
}

HEADROOM_DECL least_squares::least_squares(residual_function residuals,
                                           const calibration_options& o, double difference_step)
    : residuals_(std::move(residuals)),
      free_(free_of(o.fit)),
      low_(to_vector(o.lowest)),
      high_(to_vector(o.highest)),
      difference_step_(difference_step) {
  // Scales: a unit step in each parameter means about the same.
  scale_ = {1.0, 1.0, 1e-3, 1e-5};
}

HEADROOM_DECL auto least_squares::cost(const parameter_vector& v, std::vector<double>& r)
    -> double {
  residuals_(from_vector(v), r);
  double s = 0.0;
  for (const double e : r) s += e * e;
  evaluations_ += r.size();
  return s;
}

HEADROOM_DECL auto least_squares::fit(parameter_vector v,
                                      std::array<bool, parameter_count>& sensitive)
    -> parameter_vector {
  clamp(v);
  std::vector<double> r, trial_r;
  double c = cost(v, r);
  double lambda = 1e-3;
  std::array<std::vector<double>, parameter_count> jacobian;
  for (int iteration = 0; iteration < 200; ++iteration) {
    jacobian_at(v, jacobian, sensitive);
    // Normal equations in scaled variables: (JᵀJ + λ diag(JᵀJ)) δ = −Jᵀr.
    std::array<std::array<double, parameter_count>, parameter_count> a{};
    parameter_vector g{};
    for (std::size_t j = 0; j < parameter_count; ++j) {
      if (!free_[j] || !sensitive[j]) continue;
      for (std::size_t i = 0; i < r.size(); ++i) g[j] += jacobian[j][i] * r[i];
      for (std::size_t k = 0; k < parameter_count; ++k) {
        if (!free_[k] || !sensitive[k]) continue;
        for (std::size_t i = 0; i < r.size(); ++i) a[j][k] += jacobian[j][i] * jacobian[k][i];
      }
    }
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      auto m = a;
      for (std::size_t j = 0; j < parameter_count; ++j)
        m[j][j] = (free_[j] && sensitive[j]) ? a[j][j] * (1.0 + lambda) + 1e-300 : 1.0;
      parameter_vector rhs{};
      for (std::size_t j = 0; j < parameter_count; ++j) rhs[j] = -g[j];
      const parameter_vector step = solve(m, rhs);
      parameter_vector trial = v;
      for (std::size_t j = 0; j < parameter_count; ++j)
        if (free_[j] && sensitive[j]) trial[j] += step[j] * scale_[j];
      clamp(trial);
      const double trial_c = cost(trial, trial_r);
      if (trial_c < c) {
        const double gain = c - trial_c;
        v = trial;
        r.swap(trial_r);
        c = trial_c;
        lambda = std::max(lambda / 10.0, 1e-12);
        improved = true;
        if (gain <= 1e-15 * std::max(c, 1e-300)) return v;
      } else {
        lambda *= 10.0;
      }
    }
    if (!improved) return v;  // no descent from here: a minimum within the box
  }
  return v;
}

HEADROOM_DECL auto least_squares::jacobian_at(
    const parameter_vector& v, std::array<std::vector<double>, parameter_count>& jacobian,
    std::array<bool, parameter_count>& sensitive) -> void {
  std::vector<double> up, down;
  for (std::size_t j = 0; j < parameter_count; ++j) {
    sensitive[j] = false;
    if (!free_[j]) continue;
    const double h = difference_step_ * scale_[j];
    parameter_vector a = v, b = v;
    a[j] = std::min(v[j] + h, high_[j]);
    b[j] = std::max(v[j] - h, low_[j]);
    static_cast<void>(cost(a, up));
    static_cast<void>(cost(b, down));
    const double width = (a[j] - b[j]) / scale_[j];
    jacobian[j].assign(up.size(), 0.0);
    double norm = 0.0;
    for (std::size_t i = 0; i < up.size(); ++i) {
      jacobian[j][i] = (up[i] - down[i]) / width;
      norm += jacobian[j][i] * jacobian[j][i];
    }
    sensitive[j] = norm > 1e-20;
  }
}

HEADROOM_DECL auto least_squares::solve(
    std::array<std::array<double, parameter_count>, parameter_count> m, parameter_vector b)
    -> parameter_vector {
  for (std::size_t c = 0; c < parameter_count; ++c) {
    std::size_t pivot = c;
    for (std::size_t i = c + 1; i < parameter_count; ++i)
      if (std::abs(m[i][c]) > std::abs(m[pivot][c])) pivot = i;
    std::swap(m[c], m[pivot]);
    std::swap(b[c], b[pivot]);
    if (m[c][c] == 0.0) continue;
    for (std::size_t i = c + 1; i < parameter_count; ++i) {
      const double f = m[i][c] / m[c][c];
      for (std::size_t k = c; k < parameter_count; ++k) m[i][k] -= f * m[c][k];
      b[i] -= f * b[c];
    }
  }
  parameter_vector x{};
  for (std::size_t c = parameter_count; c-- > 0;) {
    double s = b[c];
    for (std::size_t k = c + 1; k < parameter_count; ++k) s -= m[c][k] * x[k];
    x[c] = m[c][c] == 0.0 ? 0.0 : s / m[c][c];
  }
  return x;
}

HEADROOM_DECL double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

HEADROOM_DECL void check_options(const calibration_options& o) {
  using ::headroom::detail::fail;
  const parameter_vector low = to_vector(o.lowest), high = to_vector(o.highest),
                         start = to_vector(o.start);
  static constexpr std::array<const char*, parameter_count> names = {
      "options.start.flops_efficiency", "options.start.bandwidth_efficiency",
      "options.start.step_overhead", "options.start.all_reduce_latency"};
  for (std::size_t j = 0; j < parameter_count; ++j) {
    if (!(low[j] >= 0.0 && low[j] <= high[j] && ::headroom::detail::is_finite(high[j])))
      fail("options.lowest", low[j], "must be finite, >= 0 and <= options.highest");
    if (!(start[j] >= low[j] && start[j] <= high[j]))
      fail(names[j], start[j], "must lie within [options.lowest, options.highest]");
  }
  if (!(low[0] > 0.0 && low[1] > 0.0 && high[0] <= 1.0 && high[1] <= 1.0))
    fail("options.lowest.flops_efficiency", low[0], "efficiencies must lie in (0, 1]");
}

HEADROOM_DECL calibration_result fit(const calibration_problem& problem,
                                     const calibration_options& options) {
  calibration_result out;
  const auto best_fit = [&](std::span<const std::size_t> use, parameter_vector from,
                            std::array<bool, parameter_count>& sensitive, bool several_starts) {
    std::vector<least_squares> passes;
    passes.reserve(problem.difference_steps.size());
    for (const double step : problem.difference_steps)
      passes.emplace_back(problem.residuals_of(use), options, step);
    std::vector<double> r;
    // Every pass from where the last stopped; the sensitivity is the first pass's.
    const auto descend = [&](parameter_vector v, std::array<bool, parameter_count>& here) {
      v = passes.front().fit(v, here);
      double c = passes.front().cost(v, r);
      for (std::size_t k = 1; k < passes.size(); ++k) {
        std::array<bool, parameter_count> ignored{};
        const parameter_vector w = passes[k].fit(v, ignored);
        if (const double wc = passes[k].cost(w, r); wc < c) {
          v = w;
          c = wc;
        }
      }
      return std::pair{v, c};
    };
    auto [best, best_cost] = descend(from, sensitive);
    if (several_starts) {
      for (const double e : {0.2, 0.9}) {
        parameter_vector s = from;
        if (options.fit.flops_efficiency) s[0] = e;
        if (options.fit.bandwidth_efficiency) s[1] = e;
        std::array<bool, parameter_count> here{};
        const auto [v, c] = descend(s, here);
        if (c < best_cost) {
          best = v;
          best_cost = c;
          sensitive = here;
        }
      }
    }
    for (const least_squares& pass : passes) out.evaluations += pass.evaluations();
    return best;
  };

  std::vector<std::size_t> all(problem.count);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::array<bool, parameter_count> sensitive{};
  const parameter_vector fitted = best_fit(all, to_vector(options.start), sensitive, true);
  out.fitted = from_vector(fitted);
  const auto free = free_of(options.fit);
  out.identified = {.flops_efficiency = free[0] && sensitive[0],
                    .bandwidth_efficiency = free[1] && sensitive[1],
                    .step_overhead = free[2] && sensitive[2],
                    .all_reduce_latency = free[3] && sensitive[3]};

  std::vector<double> errors;
  double squares = 0.0;
  for (std::size_t i = 0; i < problem.count; ++i) {
    for (figure& f : problem.figures_at(i, out.fitted)) {
      calibration_residual c{.id = std::move(f.id),
                             .measured = f.measured,
                             .predicted = f.predicted,
                             .log_error = std::log(f.predicted / f.measured)};
      squares += c.log_error * c.log_error;
      errors.push_back(std::abs(c.log_error));
      out.rows.push_back(std::move(c));
    }
  }
  out.evaluations += out.rows.size();
  out.rms_log_error = std::sqrt(squares / static_cast<double>(out.rows.size()));
  out.median_abs_log_error = median_of(errors);
  out.max_abs_log_error = *std::max_element(errors.begin(), errors.end());

  if (options.leave_one_out && problem.count > 1) {
    std::vector<double> left_out;
    std::vector<std::size_t> others;
    std::size_t row = 0;
    for (std::size_t i = 0; i < problem.count; ++i) {
      others.clear();
      for (std::size_t k = 0; k < problem.count; ++k)
        if (k != i) others.push_back(k);
      std::array<bool, parameter_count> here{};
      const step_time_parameters without = from_vector(best_fit(others, fitted, here, false));
      for (const figure& f : problem.figures_at(i, without)) {
        out.rows[row].left_out_predicted = f.predicted;
        out.rows[row].left_out_log_error = std::log(f.predicted / f.measured);
        left_out.push_back(std::abs(out.rows[row].left_out_log_error));
        ++row;
      }
    }
    out.left_out_median_abs_log_error = median_of(left_out);
    out.left_out_max_abs_log_error = *std::max_element(left_out.begin(), left_out.end());
  }
  return out;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL double predict(const calibration_row& row, const step_time_parameters& parameters) {
  const detail::row_profile p = detail::profile_of(row);
  return p.work / detail::makespan(p, parameters);
}

HEADROOM_DECL calibration_result calibrate(std::span<const calibration_row> rows,
                                           const calibration_options& options) {
  detail::check_options(options);
  if (rows.empty()) ::headroom::detail::fail("rows.size()", rows.size(), "needs at least one row");
  std::vector<detail::row_profile> profiles;
  profiles.reserve(rows.size());
  for (const calibration_row& r : rows) {
    ::headroom::detail::require_positive("rows[i].measured", r.measured);
    profiles.push_back(detail::profile_of(r));
  }
  static constexpr std::array<double, 1> difference_steps = {1e-6};
  return detail::fit(
      {.count = rows.size(),
       .residuals_of = [&profiles](std::span<const std::size_t> use) -> detail::residual_function {
         return [&profiles, use](const step_time_parameters& x, std::vector<double>& r) {
           r.resize(use.size());
           for (std::size_t i = 0; i < use.size(); ++i) {
             const detail::row_profile& p = profiles[use[i]];
             r[i] = std::log(detail::makespan(p, x) / p.measured_makespan);
           }
         };
       },
       .figures_at = [&](std::size_t i,
                         const step_time_parameters& x) -> std::vector<detail::figure> {
         return {{.id = rows[i].id,
                  .measured = rows[i].measured,
                  .predicted = profiles[i].work / detail::makespan(profiles[i], x)}};
       },
       .difference_steps = difference_steps},
      options);
}

HEADROOM_DECL observed_run observe(std::span<const capacity::request_outcome> outcomes) {
  using ::headroom::detail::fail;
  observed_run o;
  double ttft = 0.0, tpot = 0.0;
  std::size_t decoded = 0;
  for (const capacity::request_outcome& r : outcomes) {
    if (r.error) {
      ++o.errors;
      continue;
    }
    if (r.prompt_tokens == 0) fail("outcomes[i].prompt_tokens", 0, "must be >= 1");
    if (r.output_tokens == 0) fail("outcomes[i].output_tokens", 0, "must be >= 1");
    o.requests.push_back({.arrival = r.intended_arrival,
                          .prompt_tokens = r.prompt_tokens,
                          .output_tokens = r.output_tokens});
    ttft += time_to_first_token(r).count();
    if (r.output_tokens >= 2) {
      tpot += tpot_vllm(r).count();
      ++decoded;
    }
  }
  if (o.requests.empty()) fail("outcomes", outcomes.size(), "needs a successful request");
  // The replay takes arrivals in order; a client's own queue can send out of it.
  std::stable_sort(
      o.requests.begin(), o.requests.end(),
      [](const sim::request& a, const sim::request& b) { return a.arrival < b.arrival; });
  o.mean_ttft = std::chrono::duration<double>(ttft / static_cast<double>(o.requests.size()));
  if (decoded > 0) o.mean_tpot = std::chrono::duration<double>(tpot / static_cast<double>(decoded));
  return o;
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {
namespace detail {

HEADROOM_DECL timed_replay::timed_replay(const timed_run& run) : run_(&run) {
  using ::headroom::detail::fail;
  using ::headroom::detail::require_positive;
  if (run.tensor_parallel < 1) fail("runs[i].tensor_parallel", run.tensor_parallel, "must be >= 1");
  require_positive("runs[i].model.parameters", run.model.parameters);
  require_positive("runs[i].model.bytes_per_parameter", run.model.bytes_per_parameter);
  require_positive("runs[i].model.kv_bytes_per_token", run.model.kv_bytes_per_token);
  require_positive("runs[i].gpu.peak_flops_per_second", run.gpu.peak_flops_per_second);
  require_positive("runs[i].gpu.peak_bytes_per_second", run.gpu.peak_bytes_per_second);
  if (run.tensor_parallel > 1 && run.model.hidden_size > 0)
    require_positive("runs[i].interconnect_bytes_per_second", run.interconnect_bytes_per_second);
  if (run.measured.requests.empty())
    fail("runs[i].measured.requests.size()", 0, "needs at least one request");
  require_positive("runs[i].measured.mean_ttft", run.measured.mean_ttft.count());
  double previous = -std::numeric_limits<double>::infinity();
  for (const sim::request& r : run.measured.requests) {
    if (!::headroom::detail::is_finite(r.arrival.count()))
      fail("runs[i].measured.requests[k].arrival", r.arrival.count(), "must be finite");
    if (r.arrival.count() < previous)
      fail("runs[i].measured.requests[k].arrival", r.arrival.count(),
           "must not precede the one before (sorted, as observe() makes them)");
    previous = r.arrival.count();
    if (r.prompt_tokens < 1 || r.output_tokens < 1)
      fail("runs[i].measured.requests[k].prompt_tokens", r.prompt_tokens,
           "prompt and output tokens must be >= 1");
    decodes_ = decodes_ || r.output_tokens >= 2;
  }
  if (decodes_) require_positive("runs[i].measured.mean_tpot", run.measured.mean_tpot.count());
}

HEADROOM_DECL auto timed_replay::predict(const step_time_parameters& x) -> timed_prediction {
  const accelerator_option gpu{
      .spec = run_->gpu,
      .price_per_gpu_hour = 1.0,
      .step_time = x,
      .interconnect_bytes_per_second = run_->interconnect_bytes_per_second};
  const tensor_parallel_step_time model = make_step_time(run_->model, gpu, run_->tensor_parallel);
  const sim::replica_result& result = sim::simulate(
      run_->engine, std::span<const sim::request>(run_->measured.requests), model, workspace_);
  if (result.stats.finished != run_->measured.requests.size())
    ::headroom::detail::fail("runs[i].engine", result.stats.rejected,
                             "the engine cannot finish every request (its KV budget or "
                             "limits reject some)");
  timed_prediction p;
  std::size_t decoded = 0;
  for (const capacity::request_outcome& o : result.outcomes) {
    p.mean_ttft += time_to_first_token(o).count();
    if (o.output_tokens >= 2) {
      p.mean_tpot += tpot_vllm(o).count();
      ++decoded;
    }
  }
  p.mean_ttft /= static_cast<double>(result.outcomes.size());
  if (decoded > 0) p.mean_tpot /= static_cast<double>(decoded);
  return p;
}

}  // namespace detail
}  // namespace plan
}  // namespace v0
}  // namespace headroom

namespace headroom {
inline namespace v0 {
namespace plan {

HEADROOM_DECL calibration_result calibrate(std::span<const timed_run> runs,
                                           const calibration_options& options) {
  detail::check_options(options);
  if (runs.empty()) ::headroom::detail::fail("runs.size()", runs.size(), "needs at least one run");
  std::vector<detail::timed_replay> replays;
  replays.reserve(runs.size());
  for (const timed_run& r : runs) replays.emplace_back(r);
  // Differences far wider than the rows' 1e-6: a replay's schedule moves in small jumps as the
  // step time changes, which a narrow difference reads as a slope. A coarse pass, then a
  // finer one from where it stopped.
  static constexpr std::array<double, 2> difference_steps = {3e-2, 3e-3};
  return detail::fit(
      {.count = runs.size(),
       .residuals_of = [&replays,
                        runs](std::span<const std::size_t> use) -> detail::residual_function {
         return [&replays, runs, use](const step_time_parameters& x, std::vector<double>& r) {
           r.clear();
           for (const std::size_t i : use) {
             const detail::timed_prediction p = replays[i].predict(x);
             r.push_back(std::log(p.mean_ttft / runs[i].measured.mean_ttft.count()));
             if (replays[i].decodes())
               r.push_back(std::log(p.mean_tpot / runs[i].measured.mean_tpot.count()));
           }
         };
       },
       .figures_at = [&replays, runs](std::size_t i, const step_time_parameters& x)
           -> std::vector<detail::figure> {
         const detail::timed_prediction p = replays[i].predict(x);
         std::vector<detail::figure> f = {{.id = runs[i].id + "/ttft",
                                           .measured = runs[i].measured.mean_ttft.count(),
                                           .predicted = p.mean_ttft}};
         if (replays[i].decodes())
           f.push_back({.id = runs[i].id + "/tpot",
                        .measured = runs[i].measured.mean_tpot.count(),
                        .predicted = p.mean_tpot});
         return f;
       },
       .difference_steps = difference_steps},
      options);
}

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#endif  // HEADROOM_HAS_CXX20

// SPDX-License-Identifier: Apache-2.0
// The simulated day (docs/simulated-day.md): five ways of running a fleet through one day of
// traffic, built from headroom's real autoscaler, cold-start delay and cost formulas.
//
//   simulated_day                       the reference day and its five-row table
//   simulated_day --traffic day.csv     your own traffic (one row per minute, rate last)
//   simulated_day --trace azure-conv AzureLLMInferenceTrace_conv.csv
//                                       the traffic of a public trace, per minute
//                                       (azure-conv, azure-code, burstgpt, mooncake)
//   simulated_day --format csv          machine-readable rows
//   simulated_day --svg day.svg         the figure: the whole day and the hour around its
//                                       largest jump in traffic
//
// Run `simulated_day --help` for every flag. Everything is computed (and the figure written)
// before the table is printed: a failure is one line on stderr, exit 2, and nothing on stdout.
#include <headroom/sim/fleet_day.hpp>
#include <headroom/traces.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "flags.hpp"
#include "inputs.hpp"

namespace {

namespace sim = headroom::sim;

struct options {
  example::traffic_input traffic;  // --traffic, --trace FORMAT FILE, --speed, --from, --to
  double mu = 8.0;
  double target = 0.8;
  long window = 5;
  double slow_start_minutes = 8.0;
  double fast_start_minutes = 1.0;
  long spare = 3;
  double price = 0.0;
  double tokens_per_request = 0.0;
  std::string format = "table";
  std::string svg_file;
};

options parse_options(example::flags& f, int argc, char** argv) {
  options o;
  example::traffic_flags(f, o.traffic);
  f.number("--mu", o.mu, {0, 1e9, true, false}, "requests/s",
           "mu*, the capacity of one replica within the SLO")
      .number("--target", o.target, {0, 1, true, false}, "fraction",
              "rho*, the utilization a replica is run at")
      .whole("--window", o.window, {1, 1e6}, "minutes",
             "recommendations the scale-down looks back over")
      .number("--slow-start", o.slow_start_minutes, {0, 1e6}, "minutes",
              "start time of a replica, slow case")
      .number("--fast-start", o.fast_start_minutes, {0, 1e6}, "minutes",
              "start time of a replica, fast case")
      .whole("--spare", o.spare, {0, 1e6}, "replicas", "spare replicas of the reserve policy")
      .number("--price", o.price, {0, 1e12}, "per replica-hour",
              "price of a replica; with --tokens-per-request adds the cost per million tokens")
      .number("--tokens-per-request", o.tokens_per_request, {0, 1e9}, "tokens",
              "generated tokens per request")
      .choice("--format", o.format, {"table", "csv"}, "output layout")
      .text("--svg", o.svg_file, "FILE", "also write the figure, a self-contained SVG");
  f.parse(argc, argv);
  return o;
}

struct row {
  const char* id = "";     // the csv name
  const char* label = "";  // the table label
  sim::fleet_policy policy{};
  sim::fleet_day_summary summary{};
  std::vector<sim::fleet_step_record> trace{};
};

// ---- the figure ---------------------------------------------------------------------------

struct panel {
  double x = 0, y = 0, w = 0, h = 0;  // pixel box
  std::size_t first = 0, last = 0;    // step range [first, last)
  double y_max = 0;                   // top of the rate axis
};

// "21:00" on the first day, "day 2 03:15" on later ones.
std::string clock_label(std::size_t minute) {
  char buffer[48];
  if (minute <= 1440)  // the first day's end is 24:00
    std::snprintf(buffer, sizeof buffer, "%02zu:%02zu", minute / 60, minute % 60);
  else
    std::snprintf(buffer, sizeof buffer, "day %zu %02zu:%02zu", minute / 1440 + 1, minute / 60 % 24,
                  minute % 60);
  return buffer;
}

// Minutes between the time axis' ticks: a clock-friendly step, at most 12 ticks.
std::size_t tick_minutes_for(std::size_t span) {
  for (const std::size_t m : {1u, 2u, 5u, 10u, 15u, 30u, 60u, 120u, 180u, 240u, 360u, 720u})
    if (m * 12 >= span) return m;
  std::size_t days = 1;
  while (1440 * days * 12 < span) days *= 2;
  return 1440 * days;
}

// A round step (1, 2 or 5 times a power of ten, at least `least`) that cuts span into at most
// `most` intervals: ticks stay few whatever the scale of the axis.
double tick_step(double span, double most, double least) {
  if (!(span > 0) || !std::isfinite(span)) return least;
  const double raw = std::max(span / most, least);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw) return m * decade;
  return 10.0 * decade;
}

void polyline(std::ostringstream& svg, const panel& p, const std::vector<double>& values,
              const char* colour, double width, bool steps) {
  const double span = static_cast<double>(p.last - p.first);
  auto px = [&](double i) { return p.x + (i - static_cast<double>(p.first)) / span * p.w; };
  auto py = [&](double v) { return p.y + p.h - std::min(v, p.y_max) / p.y_max * p.h; };
  svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"" << width
      << "\" points=\"";
  char buffer[64];
  for (std::size_t i = p.first; i < p.last; ++i) {
    const double v = values[i];
    std::snprintf(buffer, sizeof buffer, "%.1f,%.1f ", px(static_cast<double>(i)), py(v));
    svg << buffer;
    if (steps) {
      std::snprintf(buffer, sizeof buffer, "%.1f,%.1f ", px(static_cast<double>(i + 1)), py(v));
      svg << buffer;
    }
  }
  svg << "\"/>\n";
}

void axes(std::ostringstream& svg, const panel& p, const char* title, std::size_t tick_minutes,
          const char* time_axis) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
                "font-weight=\"bold\">%s</text>\n",
                p.x, p.y, p.w, p.h, p.x, p.y - 10, title);
  svg << buffer;
  const double span = static_cast<double>(p.last - p.first);
  for (std::size_t m = (p.first + tick_minutes - 1) / tick_minutes * tick_minutes;
       m <= p.last && m >= p.first; m += tick_minutes) {
    const double x = p.x + static_cast<double>(m - p.first) / span * p.w;
    std::snprintf(buffer, sizeof buffer,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
                  x, p.y, x, p.y + p.h, x, p.y + p.h + 15, clock_label(m).c_str());
    svg << buffer;
  }
  const double y_tick = tick_step(p.y_max, 8, 10);
  for (int k = 0; k <= 10 && k * y_tick <= p.y_max * (1 + 1e-12); ++k) {
    const double v = k * y_tick;
    const double y = p.y + p.h - v / p.y_max * p.h;
    std::snprintf(buffer, sizeof buffer,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
                  p.x, y, p.x + p.w, y, p.x - 5, y + 4, v);
    svg << buffer;
  }
  std::snprintf(buffer, sizeof buffer,
                "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"12\" "
                "text-anchor=\"middle\">requests/s</text>\n<text x=\"%.1f\" y=\"%.1f\" "
                "font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
                p.x - 38, p.y + p.h / 2, p.x + p.w / 2, p.y + p.h + 32, time_axis);
  svg << buffer;
}

std::string render_svg(const std::vector<double>& traffic, const row& chasing, const row& calendar,
                       std::size_t event_minute, bool from_trace) {
  auto capacity_of = [](const row& r) {
    std::vector<double> c;
    c.reserve(r.trace.size());
    for (const auto& s : r.trace) c.push_back(s.capacity_per_second);
    return c;
  };
  const std::vector<double> chase_capacity = capacity_of(chasing);
  const std::vector<double> calendar_capacity = capacity_of(calendar);
  double top = 0;
  for (std::size_t i = 0; i < traffic.size(); ++i)
    top = std::max({top, traffic[i], chase_capacity[i], calendar_capacity[i]});
  top = std::ceil(top / 20.0) * 20.0;
  if (top <= 0) top = 10;

  const std::size_t n = traffic.size();
  const std::size_t zoom_first = event_minute >= 30 ? event_minute - 30 : 0;
  const std::size_t zoom_last = std::min(n, zoom_first + 60);
  const panel day{.x = 70, .y = 50, .w = 860, .h = 260, .first = 0, .last = n, .y_max = top};
  const panel zoom{
      .x = 70, .y = 390, .w = 860, .h = 260, .first = zoom_first, .last = zoom_last, .y_max = top};

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"760\" "
         "viewBox=\"0 0 1000 760\" font-family=\"sans-serif\">\n"
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const char* time_axis = from_trace ? "time from the trace's first request" : "time of day";
  axes(svg, day,
       from_trace ? "The trace: its traffic and the capacity of ready replicas"
                  : "The simulated day: traffic and the capacity of ready replicas",
       tick_minutes_for(n), time_axis);
  const std::string zoom_title = n > 60 ? "The hour around " + clock_label(event_minute)
                                        : std::string("Minute by minute: the whole window");
  axes(svg, zoom, zoom_title.c_str(), 10, time_axis);
  for (const panel* p : {&day, &zoom}) {
    polyline(svg, *p, calendar_capacity, "#2ca02c", 2.4, true);
    polyline(svg, *p, chase_capacity, "#d62728", 1.4, true);
    polyline(svg, *p, traffic, "#1f77b4", 2.0, true);
  }
  const char* labels[] = {"traffic (requests/s)", "capacity, chasing with a slow start",
                          "capacity, slow start with the calendar"};
  const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c"};
  for (int i = 0; i < 3; ++i) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                  "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n",
                  80 + 300 * i, 725, 110 + 300 * i, 725, colours[i], 116 + 300 * i, 729, labels[i]);
    svg << buffer;
  }
  svg << "</svg>\n";
  return svg.str();
}

// The step where the largest one-step jump in traffic happens (21:00 on the reference day).
std::size_t largest_jump(const std::vector<double>& traffic) {
  std::size_t best = 0;
  double jump = -1;
  for (std::size_t i = 1; i < traffic.size(); ++i)
    if (traffic[i] - traffic[i - 1] > jump) jump = traffic[i] - traffic[i - 1], best = i;
  return best;
}

// The largest one-step rise in the replicas a trace's controller requested, as "2 at 20:59,
// 7 at 21:00"; empty when the requests never rise.
std::string largest_step_up(const std::vector<sim::fleet_step_record>& trace) {
  std::size_t best = 0;
  long long rise = 0;
  for (std::size_t i = 1; i < trace.size(); ++i) {
    const long long r = static_cast<long long>(trace[i].requested) - trace[i - 1].requested;
    if (r > rise) rise = r, best = i;
  }
  if (rise == 0) return {};
  return std::to_string(trace[best - 1].requested) + " at " + clock_label(best - 1) + ", " +
         std::to_string(trace[best].requested) + " at " + clock_label(best);
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("simulated_day",
                   "Five ways of running a fleet through a day of traffic, one minute a step: "
                   "always at peak,\nchasing it with a fast and a slow start, with spare "
                   "replicas, and with a calendar of events.");
  const options o = parse_options(f, argc, argv);
  if (o.traffic.trace_format.empty() &&
      (o.traffic.speed != 1.0 || o.traffic.from_minutes != 0 || o.traffic.to_minutes != 0))
    f.fail("--speed, --from and --to need --trace FORMAT FILE");
  const std::vector<double> traffic = example::read_traffic(f, o.traffic);

  // Everything is computed, and the figure written, before anything is printed: bad input
  // leaves stdout empty and says why in one line.
  const sim::fleet_day_config config{
      .capacity_per_replica = o.mu,
      .target_utilization = o.target,
      .scale_down_window_steps = static_cast<std::int32_t>(o.window),
      .price_per_replica_hour = o.price,
      .tokens_per_request = o.tokens_per_request,
  };

  using minutes = std::chrono::duration<double, std::ratio<60>>;
  const auto spare = static_cast<std::int32_t>(o.spare);
  std::vector<row> rows = {
      {.id = "peak", .label = "always at peak"},
      {.id = "chase-fast", .policy = sim::chase(minutes(o.fast_start_minutes))},
      {.id = "chase-slow", .policy = sim::chase(minutes(o.slow_start_minutes))},
      {.id = "spare", .policy = sim::chase(minutes(o.slow_start_minutes), spare)},
      {.id = "calendar", .policy = sim::chase_with_calendar(minutes(o.slow_start_minutes))},
  };
  char label_buffer[4][64];
  std::snprintf(label_buffer[0], 64, "chase, %g-min start", o.fast_start_minutes);
  std::snprintf(label_buffer[1], 64, "chase, %g-min start", o.slow_start_minutes);
  std::snprintf(label_buffer[2], 64, "%g min, %ld spare replicas", o.slow_start_minutes, o.spare);
  std::snprintf(label_buffer[3], 64, "%g min, with the calendar", o.slow_start_minutes);
  for (int i = 0; i < 4; ++i) rows[static_cast<std::size_t>(i) + 1].label = label_buffer[i];

  std::string svg;
  std::string step_up;
  try {
    // Always at peak: enough replicas for the day's maximum at full capacity (no margin).
    rows[0].policy = sim::peak_fleet(traffic, config);
    sim::fleet_day_simulator simulator(config);
    for (auto& r : rows) r.summary = simulator.run(traffic, r.policy, &r.trace);
    if (!o.svg_file.empty())
      svg = render_svg(traffic, rows[2], rows[4], largest_jump(traffic),
                       !o.traffic.trace_format.empty());
    step_up = largest_step_up(rows[1].trace);
  } catch (const std::exception& e) {
    f.fail(e.what());
  }

  example::output_buffer out;
  const bool with_cost = o.price > 0 && o.tokens_per_request > 0;
  if (o.format == "csv") {
    out.printf("policy,hours,short_minutes,backlog_minutes,over_share,use%s\n",
               with_cost ? ",cost_per_million_tokens" : "");
    for (const auto& r : rows) {
      const auto& s = r.summary;
      out.printf("%s,%.6f,%lld,%lld,%.10f,%.10f", r.id, s.replica_hours,
                 static_cast<long long>(s.short_steps), static_cast<long long>(s.backlog_steps),
                 s.over_share, s.mean_use);
      if (with_cost) out.printf(",%.6f", s.cost_per_million_tokens.value_or(0.0));
      out.printf("\n");
    }
  } else {
    if (!o.traffic.trace_format.empty()) {
      // What was read: the minutes, the requests in them (arrivals a minute over 60 s, so
      // each rate × 60 is a whole count), their mean and the busiest minute's rate.
      double requests = 0.0, peak = 0.0;
      for (const double r : traffic) {
        requests += r * 60.0;
        peak = std::max(peak, r);
      }
      out.printf(
          "trace: %s, %.0f requests over %zu minutes: mean %.2f req/s, peak minute %.2f "
          "req/s\n\n",
          o.traffic.trace_file.c_str(), requests, traffic.size(),
          requests / (60.0 * static_cast<double>(traffic.size())), peak);
    }
    out.printf("%-27s%7s%7s%8s%8s%7s%s\n", "policy", "hours", "short", "queued", "over", "use",
               with_cost ? "  per Mtok" : "");
    for (const auto& r : rows) {
      const auto& s = r.summary;
      out.printf("%-27s%7.1f%7lld%8lld%7.2f%%%6.1f%%", r.label, s.replica_hours,
                 static_cast<long long>(s.short_steps), static_cast<long long>(s.backlog_steps),
                 100.0 * s.over_share, 100.0 * s.mean_use);
      if (with_cost) out.printf("%10.3f", s.cost_per_million_tokens.value_or(0.0));
      out.printf("\n");
    }
    // The sharpest rise in what the (fast) chase's controller requested, as the data says.
    if (!step_up.empty()) out.printf("\nreplicas requested, largest step: %s\n", step_up.c_str());
  }
  if (!o.svg_file.empty()) example::write_file(f.program(), o.svg_file, svg);
  out.print(f.program());
  return 0;
}

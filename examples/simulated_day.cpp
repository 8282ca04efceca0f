// SPDX-License-Identifier: Apache-2.0
// The simulated day (SPEC §4): five ways of running a fleet through one day of traffic,
// built from headroom's real autoscaler, cold-start delay and cost formulas.
//
//   simulated_day                       the seed's day and its five-row table
//   simulated_day --traffic day.csv     your own traffic (one row per minute, rate last)
//   simulated_day --format csv          machine-readable rows
//   simulated_day --svg day.svg         the figure: the whole day and the hour around 21:00
//
// Run `simulated_day --help` for every flag. See docs/simulated-day.md.
#include <headroom/sim/fleet_day.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sim = headroom::sim;

struct options {
  std::string traffic_file;
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

constexpr const char* usage =
    "usage: simulated_day [--traffic FILE] [--mu REQ_PER_S] [--target FRACTION] [--window N]\n"
    "                     [--slow-start MIN] [--fast-start MIN] [--spare N] [--price PER_HOUR]\n"
    "                     [--tokens-per-request N] [--format table|csv] [--svg FILE]\n"
    "  --traffic FILE          CSV, one row per minute, the rate (req/s) in the last column;\n"
    "                          a header line is allowed (default: the seed's day)\n"
    "  --mu                    capacity of one replica, req/s within the SLO (default 8)\n"
    "  --target                target utilisation of a replica, (0, 1] (default 0.8)\n"
    "  --window                recommendations the scale-down looks back over (default 5)\n"
    "  --slow-start/--fast-start  replica start time in minutes (defaults 8 and 1)\n"
    "  --spare                 spare replicas of the reserve policy (default 3)\n"
    "  --price, --tokens-per-request  price per replica-hour and tokens per request: add the\n"
    "                          cost per million tokens to the output\n"
    "  --format table|csv      output layout (default table)\n"
    "  --svg FILE              also write the figure as a self-contained SVG\n";

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "simulated_day: %s\n", message.c_str());
  std::exit(2);
}

double parse_number(std::string_view flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value))
    die(std::string(flag) + " needs a number, got '" + text + "'");
  return value;
}

long parse_count(std::string_view flag, const std::string& text) {
  const double value = parse_number(flag, text);
  if (value != std::floor(value) || value < 0 || value > 1e6)
    die(std::string(flag) + " needs a whole number >= 0, got '" + text + "'");
  return static_cast<long>(value);
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) die("missing value after " + std::string(flag) + " (see --help)");
    const std::string value = argv[++i];
    if (flag == "--traffic")
      o.traffic_file = value;
    else if (flag == "--mu")
      o.mu = parse_number(flag, value);
    else if (flag == "--target")
      o.target = parse_number(flag, value);
    else if (flag == "--window")
      o.window = parse_count(flag, value);
    else if (flag == "--slow-start")
      o.slow_start_minutes = parse_number(flag, value);
    else if (flag == "--fast-start")
      o.fast_start_minutes = parse_number(flag, value);
    else if (flag == "--spare")
      o.spare = parse_count(flag, value);
    else if (flag == "--price")
      o.price = parse_number(flag, value);
    else if (flag == "--tokens-per-request")
      o.tokens_per_request = parse_number(flag, value);
    else if (flag == "--format")
      o.format = value;
    else if (flag == "--svg")
      o.svg_file = value;
    else
      die("unknown flag " + std::string(flag) + " (see --help)");
  }
  if (o.format != "table" && o.format != "csv")
    die("--format must be table or csv, got '" + o.format + "'");
  if (!(o.mu > 0)) die("--mu must be > 0, got " + std::to_string(o.mu));
  if (!(o.target > 0 && o.target <= 1))
    die("--target must lie in (0, 1], got " + std::to_string(o.target));
  if (o.window < 1) die("--window must be >= 1");
  if (o.slow_start_minutes < 0 || o.fast_start_minutes < 0) die("start times must be >= 0");
  if (o.price < 0 || o.tokens_per_request < 0) die("--price and --tokens-per-request must be >= 0");
  return o;
}

std::vector<double> load_traffic(const options& o) {
  if (o.traffic_file.empty()) return sim::reference_day_traffic();
  std::ifstream in(o.traffic_file, std::ios::binary);
  if (!in) die("cannot read traffic file '" + o.traffic_file + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = sim::parse_traffic_csv(text);
  if (!parsed.ok())
    die(o.traffic_file + ":" + std::to_string(parsed.error_line) + ": " + parsed.error);
  return std::move(parsed.rates_per_second);
}

struct row {
  const char* id;     // the csv name
  const char* label;  // the table label
  sim::fleet_policy policy;
  sim::fleet_day_summary summary;
  std::vector<sim::fleet_step_record> trace;
};

// ---- the figure ---------------------------------------------------------------------------

struct panel {
  double x, y, w, h;        // pixel box
  std::size_t first, last;  // step range [first, last)
  double y_max;             // top of the rate axis
};

std::string clock_label(std::size_t minute) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%02zu:%02zu", (minute / 60) % 100, minute % 60);
  return buffer;
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

void axes(std::ostringstream& svg, const panel& p, const char* title, std::size_t tick_minutes) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
                "font-weight=\"bold\">%s</text>\n",
                p.x, p.y, p.w, p.h, p.x, p.y - 10, title);
  svg << buffer;
  const double span = static_cast<double>(p.last - p.first);
  for (std::size_t m = (p.first + tick_minutes - 1) / tick_minutes * tick_minutes; m <= p.last;
       m += tick_minutes) {
    const double x = p.x + static_cast<double>(m - p.first) / span * p.w;
    std::snprintf(buffer, sizeof buffer,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
                  x, p.y, x, p.y + p.h, x, p.y + p.h + 15, clock_label(m).c_str());
    svg << buffer;
  }
  const double y_tick = p.y_max > 80 ? 20 : 10;
  for (double v = 0; v <= p.y_max + 1e-9; v += y_tick) {
    const double y = p.y + p.h - v / p.y_max * p.h;
    std::snprintf(buffer, sizeof buffer,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.0f</text>\n",
                  p.x, y, p.x + p.w, y, p.x - 5, y + 4, v);
    svg << buffer;
  }
  std::snprintf(buffer, sizeof buffer,
                "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"12\" "
                "text-anchor=\"middle\">requests/s</text>\n<text x=\"%.1f\" y=\"%.1f\" "
                "font-size=\"12\" text-anchor=\"middle\">time of day</text>\n",
                p.x - 38, p.y + p.h / 2, p.x + p.w / 2, p.y + p.h + 32);
  svg << buffer;
}

std::string render_svg(const std::vector<double>& traffic, const row& chasing, const row& calendar,
                       std::size_t event_minute) {
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
  const panel day{70, 50, 860, 260, 0, n, top};
  const panel zoom{70, 390, 860, 260, zoom_first, zoom_last, top};

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"760\" "
         "viewBox=\"0 0 1000 760\" font-family=\"sans-serif\">\n"
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  axes(svg, day, "The simulated day: traffic and the capacity of ready replicas",
       n > 360 ? 120 : 30);
  std::string zoom_title = "The hour around " + clock_label(event_minute);
  axes(svg, zoom, zoom_title.c_str(), 10);
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

// The step where the largest one-step jump in traffic happens (21:00 on the seed's day).
std::size_t largest_jump(const std::vector<double>& traffic) {
  std::size_t best = 0;
  double jump = -1;
  for (std::size_t i = 1; i < traffic.size(); ++i)
    if (traffic[i] - traffic[i - 1] > jump) jump = traffic[i] - traffic[i - 1], best = i;
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  const std::vector<double> traffic = load_traffic(o);

  sim::fleet_day_config config;
  config.capacity_per_replica = o.mu;
  config.target_utilisation = o.target;
  config.scale_down_window_steps = static_cast<std::int32_t>(o.window);
  config.price_per_replica_hour = o.price;
  config.tokens_per_request = o.tokens_per_request;

  using minutes = std::chrono::duration<double, std::ratio<60>>;
  const double peak = *std::max_element(traffic.begin(), traffic.end());
  // Always at peak: enough replicas for the day's maximum at full capacity (no margin).
  const auto peak_replicas = static_cast<std::int32_t>(std::ceil(peak / o.mu));
  const auto spare = static_cast<std::int32_t>(o.spare);
  std::vector<row> rows = {
      {"peak", "always at peak", sim::fixed_fleet(peak_replicas), {}, {}},
      {"chase-fast", "", sim::chase(minutes(o.fast_start_minutes)), {}, {}},
      {"chase-slow", "", sim::chase(minutes(o.slow_start_minutes)), {}, {}},
      {"spare", "", sim::chase(minutes(o.slow_start_minutes), spare), {}, {}},
      {"calendar", "", sim::chase_with_calendar(minutes(o.slow_start_minutes)), {}, {}},
  };
  char label_buffer[4][64];
  std::snprintf(label_buffer[0], 64, "chase, %g-min start", o.fast_start_minutes);
  std::snprintf(label_buffer[1], 64, "chase, %g-min start", o.slow_start_minutes);
  std::snprintf(label_buffer[2], 64, "%g min, %ld spare replicas", o.slow_start_minutes, o.spare);
  std::snprintf(label_buffer[3], 64, "%g min, with the calendar", o.slow_start_minutes);
  for (int i = 0; i < 4; ++i) rows[static_cast<std::size_t>(i) + 1].label = label_buffer[i];

  // Everything is computed before anything is printed: bad input leaves no partial table.
  try {
    sim::fleet_day_simulator simulator(config);
    for (auto& r : rows) r.summary = simulator.run(traffic, r.policy, &r.trace);
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::string svg;
  const std::size_t event = largest_jump(traffic);
  if (!o.svg_file.empty()) svg = render_svg(traffic, rows[2], rows[4], event);

  const bool with_cost = o.price > 0 && o.tokens_per_request > 0;
  if (o.format == "csv") {
    std::printf("policy,hours,short_minutes,backlog_minutes,over_share,use%s\n",
                with_cost ? ",cost_per_million_tokens" : "");
    for (const auto& r : rows) {
      const auto& s = r.summary;
      std::printf("%s,%.6f,%lld,%lld,%.10f,%.10f", r.id, s.replica_hours,
                  static_cast<long long>(s.short_steps), static_cast<long long>(s.backlog_steps),
                  s.over_share, s.mean_use);
      if (with_cost) std::printf(",%.6f", s.cost_per_million_tokens.value_or(0.0));
      std::printf("\n");
    }
  } else {
    std::printf("%-27s%7s%7s%8s%8s%7s%s\n", "policy", "hours", "short", "queued", "over", "use",
                with_cost ? "  per Mtok" : "");
    for (const auto& r : rows) {
      const auto& s = r.summary;
      std::printf("%-27s%7.1f%7lld%8lld%7.2f%%%6.1f%%", r.label, s.replica_hours,
                  static_cast<long long>(s.short_steps), static_cast<long long>(s.backlog_steps),
                  100.0 * s.over_share, 100.0 * s.mean_use);
      if (with_cost) std::printf("%10.3f", s.cost_per_million_tokens.value_or(0.0));
      std::printf("\n");
    }
    if (traffic.size() > 21 * 60) {
      auto asked = [&](std::size_t minute) {
        return headroom::replicas_needed(traffic[minute], o.target, o.mu);
      };
      std::printf("\nreplicas requested: %lld at 20:59, %lld at 21:00\n",
                  static_cast<long long>(asked(21 * 60 - 1)),
                  static_cast<long long>(asked(21 * 60)));
    }
  }
  if (!o.svg_file.empty()) {
    std::FILE* out = std::fopen(o.svg_file.c_str(), "wb");
    if (!out) die("cannot write '" + o.svg_file + "'");
    const bool written = std::fwrite(svg.data(), 1, svg.size(), out) == svg.size();
    if (std::fclose(out) != 0 || !written) die("cannot write '" + o.svg_file + "'");
  }
  return 0;
}

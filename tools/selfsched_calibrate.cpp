// selfsched-calibrate: measures the virtual power VP of every core of this
// machine and stores it in the system information file (SIA, seed 003
// sec. 3) that libselfsched reads.
//
//   selfsched-calibrate                  # measure, write ~/.cache/selfsched/sia.json
//   selfsched-calibrate --dry-run        # measure and print only
//
// Seed 000 (footnote 1, sec. 6) times the same floating-point test problem
// on each machine type and normalises: VP_k = t_fastest / t_k, so the fastest
// core has VP 1. We do that per core: the calling thread is bound to the
// core's first PU with hwloc, runs a fixed floating-point kernel, and keeps
// the best of --repeat timings. Timings are thread CPU time, not wall time:
// another process sharing the core steals wall time, not CPU time, and that
// load is the run-queue monitor's business (Q_k), not the core's speed.
// Cores whose times differ by less than --tolerance get the same VP, so a
// homogeneous machine stores exactly 1 everywhere and the techniques keep
// their exact integer forms.
#include <algorithm>
#include <exception>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/sia.hpp"
#include "selfsched/machine/topology.hpp"

namespace {

using namespace selfsched::omp;

constexpr const char* kernel_name = "fp64 quadratic map, 4 lanes (selfsched-calibrate 1)";

constexpr const char* usage =
    "usage: selfsched-calibrate [--output PATH] [--repeat N] [--millis MS] [--tolerance T] [--dry-run] [--help]\n"
    "                           [--version]\n"
    "  --output PATH   system information file to update (default: $SELFSCHED_SIA, else\n"
    "                  $XDG_CACHE_HOME/selfsched/sia.json, else ~/.cache/selfsched/sia.json)\n"
    "  --repeat N      timings per core, the best counts (default 5)\n"
    "  --millis MS     length of one timing on the first core (default 50)\n"
    "  --tolerance T   cores within this relative difference get the same VP (default 0.05)\n"
    "  --dry-run       measure and print, write nothing\n";

[[noreturn]] void fail(const std::string& message, int status = 2) {
  std::cerr << "selfsched-calibrate: " << message << '\n';
  std::exit(status);
}

template <typename Number>
Number parse_number(std::string_view option, std::string_view text, Number lowest, Number highest) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lowest || value > highest)
    fail(std::string(option) + " '" + std::string(text) + "' is not a number in [" + std::to_string(lowest) + ", " +
         std::to_string(highest) + "]");
  return value;
}

// The test problem: `units` x 4096 steps of z <- z^2 + c in four independent
// lanes (some instruction-level parallelism, like a real loop body), with c
// inside the Mandelbrot set so z stays bounded. No memory traffic: it
// measures the core, not the caches.
double kernel(std::int64_t units) {
  double zr[4] = {0, 0, 0, 0}, zi[4] = {0, 0, 0, 0};
  const double cr[4] = {-0.5, 0.25, -1.0, -0.12}, ci[4] = {0.1, 0.0, 0.05, 0.75};
  for (std::int64_t step = 0; step < units * 4096; ++step)
    for (int l = 0; l < 4; ++l) {
      const double r = zr[l] * zr[l] - zi[l] * zi[l] + cr[l];
      zi[l] = 2 * zr[l] * zi[l] + ci[l];
      zr[l] = r;
    }
  return zr[0] + zr[1] + zr[2] + zr[3] + zi[0] + zi[1] + zi[2] + zi[3];
}

volatile double sink;  // keeps the kernel's result alive

double cpu_seconds_of(std::int64_t units) {
  const std::int64_t start = thread_cpu_ns();
  sink = kernel(units);
  return static_cast<double>(thread_cpu_ns() - start) * 1e-9;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

struct options {
  std::string output;
  int repeat = 5;
  double millis = 50, tolerance = 0.05;
  bool dry_run = false;
};

// The command line; none when it asked for --help or --version (answered).
std::optional<options> parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view option = argv[i];
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) fail(std::string(option) + " needs a value\n" + usage);
      return argv[++i];
    };
    if (option == "--output") o.output = value();
    else if (option == "--repeat") o.repeat = parse_number(option, value(), 1, 1000);
    else if (option == "--millis") o.millis = parse_number(option, value(), 1.0, 60000.0);
    else if (option == "--tolerance") o.tolerance = parse_number(option, value(), 0.0, 1.0);
    else if (option == "--dry-run") o.dry_run = true;
    else if (option == "--help" || option == "-h") return std::cout << usage, std::nullopt;
    else if (option == "--version") return std::cout << "selfsched-calibrate " SELFSCHED_VERSION "\n", std::nullopt;
    else fail("unknown option '" + std::string(option) + "'; valid: --output, --repeat, --millis, --tolerance, "
              "--dry-run, --help, --version");
  }
  if (o.output.empty()) {
    const char* setting = std::getenv("SELFSCHED_SIA");
    o.output = sia_path(setting ? setting : "");
    if (o.output.empty() && !o.dry_run)
      fail("no place for the file (SELFSCHED_SIA=off, or no XDG_CACHE_HOME and no home directory that exists): give "
           "--output PATH or --dry-run");
  }
  return o;
}

// Kernel units for one timing of about `millis` on the first core (the
// calling thread is bound to it).
std::int64_t units_for(const machine& m, int first_core, double millis) {
  std::string error;
  if (!m.bind_this_thread(first_core, /*one_pu=*/true, error)) fail(error, 1);
  std::int64_t units = 1;
  while (cpu_seconds_of(units) < millis * 1e-3 / 4 && units < (std::int64_t{1} << 40)) units *= 2;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(
                                       static_cast<double>(units) * millis * 1e-3 / std::max(1e-9, cpu_seconds_of(units))));
}

// Each core's best time over `repeat` rounds over all cores, so that a
// burst of load elsewhere hits every core alike.
std::vector<double> best_times(const machine& m, const std::vector<int>& cores, std::int64_t units, int repeat) {
  std::string error;
  std::vector<double> best(cores.size(), 1e300);
  for (int round = 0; round < repeat; ++round)
    for (std::size_t k = 0; k < cores.size(); ++k) {
      if (!m.bind_this_thread(cores[k], /*one_pu=*/true, error)) fail(error, 1);
      best[k] = std::min(best[k], cpu_seconds_of(units));
    }
  return best;
}

// Cores grouped when their times are within the tolerance of the group's
// fastest; each core gets its group's time, the members' mean.
std::vector<double> group_times(const std::vector<double>& best, double tolerance) {
  std::vector<std::size_t> order(best.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return best[a] < best[b]; });
  std::vector<double> group_time(best.size());
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g;
    double sum = 0;
    while (end < order.size() && best[order[end]] <= best[order[g]] * (1 + tolerance)) sum += best[order[end++]];
    for (std::size_t j = g; j < end; ++j) group_time[order[j]] = sum / static_cast<double>(end - g);
    g = end;
  }
  return group_time;
}

// The SIA entry: VP = the fastest group's time / the core's group's time.
system_information measured_information(const machine& m, const std::vector<int>& cores,
                                        const std::vector<double>& best, const std::vector<double>& group_time) {
  const double fastest = *std::min_element(group_time.begin(), group_time.end());
  system_information info;
  info.machine = m.signature();
  info.kernel = kernel_name;
  info.measured = utc_now();
  double slowest_vp = 1;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    core_measurement c;
    c.core = cores[k];
    c.pus = m.cores()[static_cast<std::size_t>(cores[k])].pus;
    c.kind = m.cores()[static_cast<std::size_t>(cores[k])].kind;
    c.seconds = best[k];
    c.vp = fastest / group_time[k];
    slowest_vp = std::min(slowest_vp, c.vp);
    info.cores.push_back(std::move(c));
  }
  info.heterogeneity_ratio = slowest_vp;  // seed 003: HR = slowest / fastest
  return info;
}

void print_information(const system_information& info, std::int64_t units, int repeat) {
  std::printf("machine: %s\nkernel:  %s, %lld units, best of %d\n\n", info.machine.c_str(), kernel_name,
              static_cast<long long>(units), repeat);
  std::printf("%6s  %-12s  %5s  %10s  %6s\n", "core", "PUs", "kind", "seconds", "VP");
  for (const core_measurement& c : info.cores) {
    std::string pus;
    for (int pu : c.pus) pus += (pus.empty() ? "" : ",") + std::to_string(pu);
    std::printf("%6d  %-12s  %5d  %10.6f  %6.3f\n", c.core, pus.c_str(), c.kind, c.seconds, c.vp);
  }
  std::printf("\nheterogeneity ratio (slowest / fastest): %.3f\n", info.heterogeneity_ratio);
}

}  // namespace

static int run(int argc, char** argv) {
  const std::optional<options> o = parse_options(argc, argv);
  if (!o) return 0;
  std::string error;
  const std::unique_ptr<machine> m = machine::load(error);
  if (m == nullptr) fail(error, 1);
  const std::vector<int>& cores = m->usable_cores();
  if (cores.empty()) fail("this process may run on no core", 1);
  const std::int64_t units = units_for(*m, cores.front(), o->millis);
  const std::vector<double> best = best_times(*m, cores, units, o->repeat);
  const system_information info = measured_information(*m, cores, best, group_times(best, o->tolerance));
  print_information(info, units, o->repeat);
  if (o->dry_run) return 0;
  if (!write_sia(o->output, info, error)) fail(error, 1);
  std::printf("written to %s\n", o->output.c_str());
  return 0;
}

// No exception leaves the tool: whatever escapes is one line and status 2.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

// selfsched-chunks: the chunks a technique hands out, without threads.
//
//   selfsched-chunks --technique gss --n 1000 --p 4 --sizes
//
// Requests come from workers in --order (cyclic; default 0, 1, ..., p-1).
// With --times (seconds per iteration for each worker) the workers instead
// run a simulated clock and whoever finishes first asks next; adaptive
// techniques then learn from those times. --instances K repeats the loop
// with one history, as a time-stepping code does.
#include <cerrno>
#include <charconv>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/core.hpp"

namespace {

using namespace selfsched;

constexpr const char* usage =
    "usage: selfsched-chunks --technique NAME --n N --p P [--min K] [--max K]\n"
    "                        [--weights w1,...,wp] [--queue q1,...,qp] [--order i,j,...]\n"
    "                        [--times t1,...,tp] [--mu X] [--sigma X] [--overhead X]\n"
    "                        [--seed S] [--instances K] [--sizes]\n"
    "--instances K runs the loop K times with one adaptive history (awf learns between\n"
    "instances); each instance prints its own line with --sizes, else lines start with it.\n";

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "selfsched-chunks: " << message << '\n';
  std::exit(2);
}

template <typename Int>
Int parse_int(std::string_view option, std::string_view text, Int lowest, Int highest = std::numeric_limits<Int>::max()) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lowest || value > highest)
    fail(std::string(option) + " '" + std::string(text) + "' is not an integer in [" + std::to_string(lowest) + ", " +
         std::to_string(highest) + "]");
  return value;
}

// Checked before anything is allocated for them: per-worker state is O(p),
// and the catalog's property tests cover p up to 4096.
constexpr int most_workers = 4096;
constexpr int most_instances = 100'000;

double parse_real(std::string_view option, std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0)
    fail(std::string(option) + " '" + s + "' is not a number");
  return value;
}

std::vector<std::string_view> split(std::string_view list) {
  std::vector<std::string_view> items;
  while (true) {
    const auto comma = list.find(',');
    items.push_back(list.substr(0, comma));
    if (comma == std::string_view::npos) return items;
    list.remove_prefix(comma + 1);
  }
}

std::vector<double> parse_reals(std::string_view option, std::string_view list) {
  std::vector<double> values;
  for (auto item : split(list)) values.push_back(parse_real(option, item));
  return values;
}

}  // namespace

static int run(int argc, char** argv) {
  std::string technique_name;
  loop_params lp;
  bool have_n = false, have_p = false, sizes_only = false;
  int instances = 1;
  std::vector<double> queues, times;
  std::vector<int> order;

  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--sizes") { sizes_only = true; continue; }
    if (arg == "--help" || arg == "-h") { std::cout << usage; return 0; }
    if (i + 1 >= argc) fail("option '" + std::string(arg) + "' needs a value\n" + usage);
    const std::string_view value = argv[++i];
    if (arg == "--technique") technique_name = value;
    else if (arg == "--n") { lp.n = parse_int<iter_t>(arg, value, 0); have_n = true; }
    else if (arg == "--p") { lp.p = parse_int<int>(arg, value, 1, most_workers); have_p = true; }
    else if (arg == "--min") lp.min_chunk = parse_int<iter_t>(arg, value, 1);
    else if (arg == "--max") lp.max_chunk = parse_int<iter_t>(arg, value, 0);
    else if (arg == "--weights") lp.powers = parse_reals(arg, value);
    else if (arg == "--queue") queues = parse_reals(arg, value);
    else if (arg == "--times") times = parse_reals(arg, value);
    else if (arg == "--mu") lp.mu = parse_real(arg, value);
    else if (arg == "--sigma") lp.sigma = parse_real(arg, value);
    else if (arg == "--overhead") lp.overhead = parse_real(arg, value);
    else if (arg == "--instances") instances = parse_int<int>(arg, value, 1, most_instances);
    else if (arg == "--seed") lp.seed = parse_int<std::uint64_t>(arg, value, 0);
    else if (arg == "--order") for (auto w : split(value)) order.push_back(parse_int<int>(arg, w, 0));
    else fail("unknown option '" + std::string(arg) + "'\n" + usage);
  }
  if (technique_name.empty() || !have_n || !have_p) fail(std::string("--technique, --n and --p are required\n") + usage);

  const parse_result parsed = parse_schedule(technique_name);
  if (!parsed.ok()) fail(parsed.error);
  apply_chunk(parsed.spec, lp);
  if (const std::string bad = validate(lp); !bad.empty()) fail(bad);
  const auto per_worker = [&](const std::vector<double>& v, const char* option, bool positive) {
    if (v.empty()) return;
    if (v.size() != static_cast<std::size_t>(lp.p))
      fail(std::string(option) + " has " + std::to_string(v.size()) + " values for " + std::to_string(lp.p) + " workers");
    for (double x : v)
      if (!(x >= (positive ? 1e-300 : 1.0)) || x > 1e300)
        fail(std::string(option) + " value " + std::to_string(x) + (positive ? " must be > 0" : " must be >= 1"));
  };
  per_worker(queues, "--queue", false);
  per_worker(times, "--times", true);
  for (int w : order)
    if (w >= lp.p) fail("--order names worker " + std::to_string(w) + "; valid: 0.." + std::to_string(lp.p - 1));
  if (order.empty())
    for (int w = 0; w < lp.p; ++w) order.push_back(w);

  // One history across --instances runs, as a loop site carries it in the
  // libomp binding: awf learns between instances.
  adaptive_history history;
  lp.history = &history;
  const auto queue_of = [&](int w) { return queues.empty() ? 1.0 : queues[static_cast<std::size_t>(w)]; };

  for (int instance = 0; instance < instances; ++instance) {
    scheduler s(parsed.spec, lp);
    // Simulated clock: (time the worker becomes idle, worker).
    using idle_at = std::pair<double, int>;
    std::priority_queue<idle_at, std::vector<idle_at>, std::greater<>> idle;
    for (int w = 0; w < lp.p; ++w) idle.push({0.0, w});

    std::string line;
    for (iter_t step = 0;; ++step) {
      int worker = order[static_cast<std::size_t>(step % static_cast<iter_t>(order.size()))];
      double now = 0;
      if (!times.empty()) {
        std::tie(now, worker) = idle.top();
        idle.pop();
      }
      const chunk c = s.next(worker, queue_of(worker));
      if (c.size == 0) break;
      if (!times.empty()) {
        const double seconds = static_cast<double>(c.size) * times[static_cast<std::size_t>(worker)] * queue_of(worker);
        s.record(worker, c.size, seconds);
        idle.push({now + seconds, worker});
      }
      if (sizes_only) {
        if (!line.empty()) line += ' ';
        line += std::to_string(c.size);
      } else {
        if (instances > 1) std::printf("%d ", instance);
        std::printf("%lld %d %lld %lld\n", static_cast<long long>(step), worker, static_cast<long long>(c.start),
                    static_cast<long long>(c.size));
      }
    }
    if (sizes_only) std::cout << line << '\n';
  }
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

#include "chunk_tool.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <queue>
#include <tuple>

namespace selfsched::chunk_tool {

const char* const usage =
    "usage: selfsched-chunks --technique NAME --n N --p P [--min K] [--max K]\n"
    "                        [--weights w1,...,wp] [--queue q1,...,qp] [--order i,j,...]\n"
    "                        [--times t1,...,tp] [--mu X] [--sigma X] [--overhead X]\n"
    "                        [--seed S] [--instances K] [--sizes] [--help] [--version]\n"
    "--p is at most 4096 and --instances at most 100000.\n"
    "--instances K runs the loop K times with one adaptive history (awf learns between\n"
    "instances); each instance prints its own line with --sizes, else lines start with it.\n";

namespace {

template <typename Int>
Int parse_int(std::string_view option, std::string_view text, Int lowest, Int highest = std::numeric_limits<Int>::max()) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lowest || value > highest)
    throw usage_error(std::string(option) + " '" + std::string(text) + "' is not an integer in [" +
                      std::to_string(lowest) + ", " + std::to_string(highest) + "]");
  return value;
}

double parse_real(std::string_view option, std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0) throw usage_error(std::string(option) + " '" + s + "' is not a number");
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

// A list of one value per worker: never longer than the most workers.
std::vector<std::string_view> per_worker_items(std::string_view option, std::string_view list) {
  std::vector<std::string_view> items = split(list);
  if (items.size() > static_cast<std::size_t>(most_workers))
    throw usage_error(std::string(option) + " has " + std::to_string(items.size()) + " values; at most " +
                      std::to_string(most_workers));
  return items;
}

std::vector<double> parse_reals(std::string_view option, std::string_view list) {
  std::vector<double> values;
  for (auto item : per_worker_items(option, list)) values.push_back(parse_real(option, item));
  return values;
}

}  // namespace

run_options parse_options(const std::vector<std::string_view>& args) {
  run_options run;
  loop_params& lp = run.lp;
  std::string technique_name;
  bool have_n = false, have_p = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--sizes") { run.sizes_only = true; continue; }
    if (arg == "--help" || arg == "-h") { run.help = true; return run; }
    if (i + 1 >= args.size()) throw usage_error("option '" + std::string(arg) + "' needs a value\n" + usage);
    const std::string_view value = args[++i];
    if (arg == "--technique") technique_name = value;
    else if (arg == "--n") { lp.n = parse_int<iter_t>(arg, value, 0); have_n = true; }
    else if (arg == "--p") { lp.p = parse_int<int>(arg, value, 1, most_workers); have_p = true; }
    else if (arg == "--min") lp.min_chunk = parse_int<iter_t>(arg, value, 1);
    else if (arg == "--max") lp.max_chunk = parse_int<iter_t>(arg, value, 0);
    else if (arg == "--weights") lp.powers = parse_reals(arg, value);
    else if (arg == "--queue") run.queues = parse_reals(arg, value);
    else if (arg == "--times") run.times = parse_reals(arg, value);
    else if (arg == "--mu") lp.mu = parse_real(arg, value);
    else if (arg == "--sigma") lp.sigma = parse_real(arg, value);
    else if (arg == "--overhead") lp.overhead = parse_real(arg, value);
    else if (arg == "--instances") run.instances = parse_int<int>(arg, value, 1, most_instances);
    else if (arg == "--seed") lp.seed = parse_int<std::uint64_t>(arg, value, 0);
    else if (arg == "--order") {
      run.order.clear();
      for (auto w : per_worker_items(arg, value)) run.order.push_back(parse_int<int>(arg, w, 0, most_workers - 1));
    } else throw usage_error("unknown option '" + std::string(arg) + "'\n" + usage);
  }
  if (technique_name.empty() || !have_n || !have_p)
    throw usage_error(std::string("--technique, --n and --p are required\n") + usage);

  const parse_result parsed = parse_schedule(technique_name);
  if (!parsed.ok()) throw usage_error(parsed.error);
  run.spec = parsed.spec;
  apply_chunk(parsed.spec, lp);
  if (const std::string bad = validate(lp); !bad.empty()) throw usage_error(bad);
  const auto check_per_worker = [&](const std::vector<double>& v, const char* option, bool positive) {
    if (v.empty()) return;
    if (v.size() != static_cast<std::size_t>(lp.p))
      throw usage_error(std::string(option) + " has " + std::to_string(v.size()) + " values for " +
                        std::to_string(lp.p) + " workers");
    for (double x : v)
      if (!(x >= (positive ? 1e-300 : 1.0)) || x > 1e300)
        throw usage_error(std::string(option) + " value " + std::to_string(x) +
                          (positive ? " must be > 0" : " must be >= 1"));
  };
  check_per_worker(run.queues, "--queue", false);
  check_per_worker(run.times, "--times", true);
  for (int w : run.order)
    if (w >= lp.p)
      throw usage_error("--order names worker " + std::to_string(w) + "; valid: 0.." + std::to_string(lp.p - 1));
  if (run.order.empty())
    for (int w = 0; w < lp.p; ++w) run.order.push_back(w);
  return run;
}

void simulate(const run_options& run, const std::function<void(int, iter_t, int, const chunk&)>& on_chunk) {
  // One history across --instances runs, as a loop site carries it in the
  // libomp binding: awf learns between instances.
  adaptive_history history;
  loop_params lp = run.lp;
  lp.history = &history;
  const auto queue_of = [&](int w) { return run.queues.empty() ? 1.0 : run.queues[static_cast<std::size_t>(w)]; };
  for (int instance = 0; instance < run.instances; ++instance) {
    scheduler s(run.spec, lp);
    // Simulated clock: (time the worker becomes idle, worker).
    using idle_at = std::pair<double, int>;
    std::priority_queue<idle_at, std::vector<idle_at>, std::greater<>> idle;
    for (int w = 0; w < lp.p; ++w) idle.push({0.0, w});
    for (iter_t step = 0;; ++step) {
      int worker = run.order[static_cast<std::size_t>(step % static_cast<iter_t>(run.order.size()))];
      double now = 0;
      if (!run.times.empty()) {
        std::tie(now, worker) = idle.top();
        idle.pop();
      }
      const chunk c = s.next(worker, queue_of(worker));
      if (c.size == 0) break;
      if (!run.times.empty()) {
        const double seconds =
            static_cast<double>(c.size) * run.times[static_cast<std::size_t>(worker)] * queue_of(worker);
        s.record(worker, c.size, seconds);
        idle.push({now + seconds, worker});
      }
      on_chunk(instance, step, worker, c);
    }
  }
}

}  // namespace selfsched::chunk_tool

// Helpers shared by the example programs: command line, counter-based random
// numbers, checksum, the per-iteration hook (coverage, busy time, emulated
// slower threads) and the one-line result. Plain OpenMP: the examples know
// nothing about selfsched, which serves their schedule(runtime) loops from
// outside (OMP_SCHEDULE, or a preloaded libselfsched).
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace example {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ------------------------------------------------------------ random numbers
// Value k of a stream is a pure function of (seed, stream, k), so the inputs
// are the same whatever the thread count or schedule. splitmix64's finaliser.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class random_stream {
 public:
  random_stream(std::uint64_t seed, std::uint64_t stream) : key_(mix64(mix64(seed) + stream)) {}
  std::uint64_t bits(std::uint64_t k) const { return mix64(key_ + (k + 1) * 0x9e3779b97f4a7c15ULL); }
  double unit(std::uint64_t k) const { return static_cast<double>(bits(k) >> 11) * 0x1.0p-53; }  // [0, 1)
  std::int64_t between(std::uint64_t k, std::int64_t lo, std::int64_t hi) const {  // [lo, hi]
    return lo + static_cast<std::int64_t>(bits(k) % static_cast<std::uint64_t>(hi - lo + 1));
  }

 private:
  std::uint64_t key_;
};

// ------------------------------------------------------------------ checksum
// FNV-1a over the bytes of the results: equal results, equal checksum.
class checksum {
 public:
  void add_bytes(const void* data, std::size_t size) {
    const auto* byte = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) hash_ = (hash_ ^ byte[i]) * 0x100000001b3ULL;
  }
  template <typename T> void add(const std::vector<T>& values) { add_bytes(values.data(), values.size() * sizeof(T)); }
  std::string hex() const {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016" PRIx64, hash_);
    return text;
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// -------------------------------------------------------------- command line
// `--name value` or `--name=value`; bad input exits 2 with one message naming
// the value and what is valid.
class command_line {
 public:
  command_line(std::string app, std::string summary) : app_(std::move(app)), summary_(std::move(summary)) {}

  void option(const char* name, std::int64_t& value, std::int64_t lowest, const char* help) {
    add(name, "N", help, std::to_string(value), [&value, lowest](std::string_view text) -> std::string {
      std::int64_t parsed = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
      if (ec != std::errc{} || end != text.data() + text.size() || parsed < lowest)
        return "is not an integer >= " + std::to_string(lowest);
      value = parsed;
      return {};
    });
  }
  void option(const char* name, std::string& value, const char* metavar, const char* help) {
    add(name, metavar, help, value, [&value](std::string_view text) -> std::string {
      if (text.empty()) return "is empty";
      value = text;
      return {};
    });
  }
  void choice(const char* name, std::string& value, std::vector<std::string> valid, const char* help) {
    std::string names;
    for (const auto& v : valid) names += (names.empty() ? "" : "|") + v;
    add(name, names, help, value, [&value, valid, names](std::string_view text) -> std::string {
      for (const auto& v : valid) {
        if (text != v) continue;
        value = v;
        return {};
      }
      return "is not one of " + names;
    });
  }
  // As many comma-separated numbers as the default has.
  void reals(const char* name, std::vector<double>& value, const char* metavar, const char* help) {
    std::string shown;
    for (double x : value) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", x);
      shown += (shown.empty() ? "" : ",") + std::string(text);
    }
    add(name, metavar, help, shown, [&value](std::string_view text) -> std::string {
      std::vector<double> parsed;
      if (!parse_reals(text, parsed) || parsed.size() != value.size())
        return "is not " + std::to_string(value.size()) + " comma-separated finite numbers";
      value = parsed;
      return {};
    });
  }
  void flag(const char* name, bool& value, const char* help) {
    entries_.push_back({name, "", help, "", false, [&value](std::string_view) {
                          value = true;
                          return std::string{};
                        }});
  }

  void parse(int argc, char** argv) const {
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::cout << help();
        std::exit(0);
      }
      std::string_view value;
      bool has_value = false;
      if (const auto eq = arg.find('='); eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
      const entry* e = find(arg);
      if (e == nullptr) fail("unknown option '" + std::string(arg) + "'; valid: " + option_names());
      if (e->takes_value && !has_value) {
        if (i + 1 >= argc) fail("option '" + std::string(arg) + "' needs a value " + e->metavar);
        value = argv[++i];
      } else if (!e->takes_value && has_value) {
        fail("option '" + std::string(arg) + "' takes no value");
      }
      if (const std::string problem = e->set(value); !problem.empty())
        fail(std::string(arg) + " '" + std::string(value) + "' " + problem);
    }
  }

  [[noreturn]] void fail(const std::string& message) const {
    std::cerr << app_ << ": " << message << '\n';
    std::exit(2);
  }

  // Comma-separated finite numbers.
  static bool parse_reals(std::string_view list, std::vector<double>& out) {
    while (true) {
      const auto comma = list.find(',');
      const std::string item(list.substr(0, comma));
      char* end = nullptr;
      const double x = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || !std::isfinite(x)) return false;
      out.push_back(x);
      if (comma == std::string_view::npos) return true;
      list.remove_prefix(comma + 1);
    }
  }

 private:
  struct entry {
    std::string name, metavar, help, shown_default;
    bool takes_value;
    std::function<std::string(std::string_view)> set;
  };

  void add(const char* name, std::string metavar, const char* help, std::string shown_default,
           std::function<std::string(std::string_view)> set) {
    entries_.push_back({name, std::move(metavar), help, std::move(shown_default), true, std::move(set)});
  }
  const entry* find(std::string_view arg) const {
    for (const auto& e : entries_)
      if (arg.size() > 2 && arg.substr(0, 2) == "--" && arg.substr(2) == e.name) return &e;
    return nullptr;
  }
  std::string option_names() const {
    std::string names;
    for (const auto& e : entries_) names += "--" + e.name + ", ";
    return names + "--help";
  }
  std::string help() const {
    std::string text = "usage: " + app_ + " [options]\n" + summary_ + "\n\noptions:\n";
    for (const auto& e : entries_) {
      constexpr std::size_t column = 30;
      std::string left = "  --" + e.name + (e.metavar.empty() ? "" : " " + e.metavar);
      if (left.size() + 2 > column) left += "\n";
      left.resize(left.size() > column ? left.size() + column : column, ' ');
      text += left + e.help + (e.shown_default.empty() ? "" : " (default " + e.shown_default + ")") + "\n";
    }
    return text +
           "  --help                      this text\n\n"
           "environment:\n"
           "  OMP_NUM_THREADS, OMP_SCHEDULE  threads and schedule of the schedule(runtime) loop\n"
           "  SELFSCHED_EXAMPLE_SLOWDOWN=f0,f1,...  thread t runs its iterations at f_t of its\n"
           "                              speed (0 < f <= 1; threads not listed: 1)\n\n"
           "output: one line of key=value fields ending in ok=1 or ok=0;\n"
           "exit status 0, 1 if the self-check failed, 2 on bad input.\n";
  }

  std::string app_, summary_;
  std::vector<entry> entries_;
};

// ----------------------------------------------------------------- slowdown
// SELFSCHED_EXAMPLE_SLOWDOWN=f0,f1,...: emulated slower cores. Thread t runs
// its iterations at f_t of its speed: after a batch of iterations (as many as
// take 20 us, or one longer one) it spins until its own CPU time for the
// batch reaches 1/f_t times what the bodies used. CPU time, not wall time, so
// being preempted stretches the batch as it would on a real slower core,
// without being multiplied by 1/f_t. Batches, because reading a thread's CPU
// time is a system call (0.5 us in a VM): read around every iteration, it
// made loops of 0.1 us iterations run at 1/15 of their speed instead of 1/2,
// and is still subtracted from what the spin adds. An invalid list exits 2:
// a benchmark must not silently run without the heterogeneity it asked for.
inline std::vector<double> slowdown_factors(const std::string& app) {
  const char* text = std::getenv("SELFSCHED_EXAMPLE_SLOWDOWN");
  std::vector<double> factors;
  if (text == nullptr || *text == '\0') return factors;
  bool ok = command_line::parse_reals(text, factors);
  for (double f : factors) ok = ok && f > 0 && f <= 1;
  if (!ok) {
    std::cerr << app << ": SELFSCHED_EXAMPLE_SLOWDOWN '" << text
              << "' is not a comma-separated list of factors in (0, 1], one per thread\n";
    std::exit(2);
  }
  return factors;
}

inline double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// What one thread_cpu_seconds() costs: the median step between back-to-back
// readings.
inline double thread_cpu_clock_reading_seconds() {
  constexpr int readings = 65;
  std::array<double, readings - 1> steps{};
  double previous = thread_cpu_seconds();
  for (double& step : steps) {
    const double now = thread_cpu_seconds();
    step = now - previous;
    previous = now;
  }
  const auto median = steps.begin() + steps.size() / 2;
  std::nth_element(steps.begin(), median, steps.end());
  return *median;
}

// ------------------------------------------------------- per-iteration hook
// Wraps the body of the scheduled loop: counts each iteration (the self-check
// that the schedule ran every iteration exactly once), adds its wall time to
// the thread's busy time, and applies the thread's slowdown.
class loop_monitor {
 public:
  loop_monitor(const std::string& app, std::int64_t iterations)
      : runs_(static_cast<std::size_t>(iterations)), threads_(static_cast<std::size_t>(omp_get_max_threads())) {
    const std::vector<double> factors = slowdown_factors(app);
    for (std::size_t t = 0; t < factors.size() && t < threads_.size(); ++t) threads_[t].slowness = 1 / factors[t];
    if (!factors.empty()) clock_reading_s_ = thread_cpu_clock_reading_seconds();
  }

  template <typename Body> void run(std::int64_t i, Body&& body) {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    thread_slot* slot = t < threads_.size() ? &threads_[t] : nullptr;
    const bool slowed = slot != nullptr && slot->slowness > 1;
    const double start = now_seconds();
    if (slowed) enter_slowed(*slot, start);
    body();
    double end = now_seconds();
    if (slowed) end = leave_slowed(*slot, start, end);
    if (slot != nullptr) slot->busy_s += end - start;
    std::atomic_ref<std::uint32_t>(runs_[static_cast<std::size_t>(i)]).fetch_add(1, std::memory_order_relaxed);
  }

  // How often each iteration ran here (the MPI examples add them up across ranks).
  std::vector<std::uint32_t>& runs() { return runs_; }
  double busy_total() const {
    double total = 0;
    for (const auto& t : threads_) total += t.busy_s;
    return total;
  }

  // Empty when every iteration ran exactly once.
  std::string coverage_problem() const {
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = runs_.size(); i-- > 0;)
      if (runs_[i] != 1) ++wrong, first = i;
    if (wrong == 0) return {};
    return std::to_string(wrong) + " of " + std::to_string(runs_.size()) +
           " iterations did not run exactly once (first: iteration " +
           std::to_string(first) + " ran " + std::to_string(runs_[first]) + " times)";
  }
  std::string busy_list() const {
    std::string list;
    for (const auto& t : threads_) list += (list.empty() ? "" : ",") + fixed(t.busy_s);
    return list;
  }
  static std::string fixed(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", seconds);
    return text;
  }

 private:
  static constexpr double slowdown_batch_s = 20e-6;
  struct alignas(64) thread_slot {  // one cache line per thread
    double busy_s = 0;
    double slowness = 1;  // 1 / f
    // A slowed thread's open batch: its start (CPU and wall clock), the wall
    // time of its bodies, and when the thread's last iteration ended.
    double batch_cpu_start = -1, batch_wall_start = -1, batch_bodies_s = 0, last_end = 0;
  };

  static void enter_slowed(thread_slot& slot, double start) {
    // The thread left the loop since its last iteration (a barrier, the code
    // between two loops): the CPU time it spent there is not its bodies', so
    // the open batch is paid by the bodies' wall time.
    if (slot.batch_cpu_start >= 0 && start - slot.last_end > slowdown_batch_s) pay_by_wall_time(slot);
    if (slot.batch_cpu_start < 0) {
      slot.batch_cpu_start = thread_cpu_seconds();
      slot.batch_wall_start = start;
      slot.batch_bodies_s = 0;
    }
  }

  double leave_slowed(thread_slot& slot, double start, double end) const {
    slot.batch_bodies_s += end - start;
    if (end - slot.batch_wall_start >= slowdown_batch_s) {
      slow_down(slot);
      end = now_seconds();
    }
    slot.last_end = end;
    return end;
  }

  // Ends the thread's batch: the batch, clock readings included, lasts what
  // its bodies used times 1/f. The CPU time read less one reading is the
  // bodies' (a reading's time counted from its middle). The thread spins on
  // the wall clock, which needs no system call, and reads its CPU time again
  // at the end: time it was preempted meanwhile is spun again.
  [[gnu::noinline]] void slow_down(thread_slot& slot) const {
    const double c = clock_reading_s_;
    double cpu = thread_cpu_seconds();
    const double bodies = std::max(0.0, cpu - slot.batch_cpu_start - c);
    const double batch_end = slot.batch_cpu_start - 0.5 * c + bodies * slot.slowness;
    for (double left = batch_end - cpu - 1.5 * c; left > 0; left = batch_end - cpu - 1.5 * c) {
      spin_for(left);
      cpu = thread_cpu_seconds();
    }
    slot.batch_cpu_start = slot.batch_wall_start = -1;
  }

  [[gnu::noinline]] static void pay_by_wall_time(thread_slot& slot) {
    spin_for(slot.batch_bodies_s * (slot.slowness - 1));
    slot.batch_cpu_start = slot.batch_wall_start = -1;
  }

  static void spin_for(double seconds) {
    const double until = now_seconds() + seconds;
    while (now_seconds() < until) {
    }
  }

  std::vector<std::uint32_t> runs_;
  std::vector<thread_slot> threads_;
  double clock_reading_s_ = 0;  // what one thread_cpu_seconds() costs
};

// Which lines to recompute serially: all of them with --verify, otherwise the
// first, the last and `sample` more spread over the range.
inline std::vector<std::int64_t> lines_to_check(std::int64_t n, bool all, std::int64_t sample = 32) {
  std::vector<std::int64_t> lines;
  const std::int64_t count = all ? n : std::min(n, sample + 2);
  for (std::int64_t k = 0; k < count; ++k)
    lines.push_back(count == 1 ? 0 : static_cast<std::int64_t>((static_cast<__int128>(k) * (n - 1)) / (count - 1)));
  return lines;
}

// ------------------------------------------------------------- time steps
// --steps N: the scheduled loop run N times in one process, as a
// time-stepping code runs the same loop every step (frames, solver sweeps).
// Techniques that learn across instances of a loop site (auto, awf) only
// show what they learn here. Each step is checked to run every iteration
// exactly once; time_s and busy_s add up over the steps, step_s lists them.
class time_steps {
 public:
  explicit time_steps(command_line& cli) {
    cli.option("steps", steps_, 1, "instances of the loop in this process (a time-stepping code), at most 100000");
  }
  std::int64_t count() const { return steps_; }
  // After cli.parse().
  void check(const command_line& cli) const {
    if (steps_ > 100'000) cli.fail("--steps '" + std::to_string(steps_) + "' is larger than 100000");
  }
  // `prepare` (untimed) restores the loop's input before each step after the
  // first; `loop` runs one instance. Returns the loop time over all steps.
  template <typename Prepare, typename Loop> double run(loop_monitor& monitor, Prepare&& prepare, Loop&& loop) {
    double total = 0;
    for (std::int64_t step = 0; step < steps_; ++step) {
      if (step > 0) {
        if (std::string coverage = monitor.coverage_problem(); !coverage.empty())
          problems_.push_back("step " + std::to_string(step - 1) + ": " + coverage);
        std::fill(monitor.runs().begin(), monitor.runs().end(), 0);
        prepare();
      }
      const double start = now_seconds();
      loop();
      const double seconds = now_seconds() - start;
      total += seconds;
      step_times_ += (step_times_.empty() ? "" : ",") + loop_monitor::fixed(seconds);
    }
    return total;
  }
  // time_steps= and step_s= (with more than one step) and the earlier steps'
  // coverage problems; the last step's is checked by report::finish.
  template <typename Report> void add_to(Report& r) const {
    for (const std::string& p : problems_) r.expect(false, p);
    if (steps_ == 1) return;
    r.add("time_steps", steps_);
    r.add("step_s", step_times_);
  }

 private:
  std::int64_t steps_ = 1;
  std::string step_times_;
  std::vector<std::string> problems_;
};

// ------------------------------------------------------------------- result
// One line of key=value fields, e.g.
//   app=matmul n=300 threads=2 schedule=dynamic,1 slowdown=none time_s=0.01 busy_s=...,... checksum=0x... ok=1
class report {
 public:
  explicit report(std::string app) : app_(std::move(app)), line_("app=" + app_) {}

  template <typename T> void add(std::string_view key, const T& value) {
    line_ += ' ';
    line_ += key;
    line_ += '=';
    if constexpr (std::is_convertible_v<T, std::string_view>) line_ += std::string_view(value);
    else line_ += std::to_string(value);
  }
  // A failed self-check: printed on stderr, and the run ends with ok=0, exit 1.
  void expect(bool ok, const std::string& problem) {
    if (!ok) problems_.push_back(problem);
  }

  int finish(const loop_monitor& monitor, double loop_seconds, const checksum& sum) {
    const std::string coverage = monitor.coverage_problem();
    expect(coverage.empty(), coverage);
    add("threads", omp_get_max_threads());
    add("schedule", env_or("OMP_SCHEDULE", "default"));
    // A preloaded libselfsched moves a technique named in OMP_SCHEDULE here
    // (and leaves OMP_SCHEDULE=dynamic for libomp): report both, as found.
    if (const std::string technique = env_or("SELFSCHED_SCHEDULE", ""); !technique.empty())
      add("selfsched_schedule", technique);
    add("slowdown", env_or("SELFSCHED_EXAMPLE_SLOWDOWN", "none"));
    add("time_s", loop_monitor::fixed(loop_seconds));
    add("busy_s", monitor.busy_list());
    add("checksum", sum.hex());
    add("ok", problems_.empty() ? 1 : 0);
    constexpr std::size_t shown = 10;
    for (std::size_t i = 0; i < problems_.size() && i < shown; ++i)
      std::cerr << app_ << ": self-check failed: " << problems_[i] << '\n';
    if (problems_.size() > shown) std::cerr << app_ << ": ... and " << problems_.size() - shown << " more failures\n";
    std::cout << line_ << std::endl;
    return problems_.empty() ? 0 : 1;
  }

 private:
  static std::string env_or(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    std::string text = value != nullptr && *value != '\0' ? value : fallback;
    std::erase_if(text, [](char c) { return c == ' ' || c == '\t'; });  // keep the line splittable
    return text;
  }

  std::string app_, line_;
  std::vector<std::string> problems_;
};

}  // namespace example

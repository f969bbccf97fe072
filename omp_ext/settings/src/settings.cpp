#include "selfsched/settings.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <strings.h>
#include <vector>

#include <sys/auxv.h>
#include <unistd.h>

namespace selfsched::omp {

namespace {

const setting_row<settings> table[] = {
    {"SELFSCHED_SCHEDULE", "from OMP_SCHEDULE",
     "technique for schedule(runtime) loops, e.g. fss, w-gss,4 (overrides OMP_SCHEDULE)",
     [](std::string_view v, settings& s) { return s.schedule = v, std::string(); }},
    {"SELFSCHED_OVERRIDE", "none",
     "also serve loops written schedule(dynamic) and/or schedule(guided): dynamic,guided",
     [](std::string_view v, settings& s) {
       bool dynamic = false, guided = false, named = false;
       while (!v.empty()) {
         const auto comma = v.find(',');
         const std::string_view item = v.substr(0, comma);
         named = named || !item.empty();
         if (item == "dynamic") dynamic = true;
         else if (item == "guided") guided = true;
         else if (item != "none" && !item.empty())
           return "'" + std::string(item) + "' is not a schedule to override; valid: dynamic, guided, none";
         v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
       }
       if (!named) return std::string("it names no schedule; valid: dynamic, guided, none");
       s.override_dynamic = dynamic, s.override_guided = guided;
       return std::string();
     }},
    {"SELFSCHED_AUTO", "selfsched",
     "who serves schedule(auto) loops and OMP_SCHEDULE=auto: selfsched (its auto) or libomp (libomp's own, static)",
     [](std::string_view v, settings& s) {
       bool selfsched = true;
       std::string why = parse_either(v, selfsched, "selfsched", "libomp");
       if (why.empty()) s.libomp_auto = !selfsched;
       return why;
     }},
    {"SELFSCHED_HOOKS", "auto",
     "with a libomp that takes registered loop schedules (patches/): auto registers ours and lets libomp "
     "decide which loops are selfsched's, off interposes as with any libomp",
     [](std::string_view v, settings& s) { return parse_either(v, s.runtime_hooks, "auto", "off"); }},
    {"SELFSCHED_AUTO_CACHE", "~/.cache/selfsched/auto.json",
     "where auto keeps what it learned per loop site for the next run (mode 0600); off: learn afresh every run",
     [](std::string_view v, settings& s) { return s.auto_cache = v, std::string(); }},
    {"SELFSCHED_DISPLAY_ENV", "false",
     "print these settings once at start-up, like OMP_DISPLAY_ENV (unset: true when OMP_DISPLAY_ENV is true "
     "or verbose)",
     [](std::string_view v, settings& s) { return parse_bool(v, s.display_env); }},
    {"SELFSCHED_VERBOSE", "false", "say which loops selfsched serves, and name once each loop left to libomp with why",
     [](std::string_view v, settings& s) { return parse_bool(v, s.verbose); }},
    {"SELFSCHED_WEIGHTS", "equal",
     "relative speed VP of each thread, e.g. 1,1,0.5 (used by w-*, wf, dtss, dfss, dgss, alpha)",
     [](std::string_view v, settings& s) {
       std::vector<double> weights;
       while (true) {
         const auto comma = v.find(',');
         double w = 0;
         if (!parse_real(v.substr(0, comma), w, 0.0, false).empty())
           return "weight '" + std::string(v.substr(0, comma)) + "' is not a finite number > 0";
         weights.push_back(w);
         if (comma == std::string_view::npos) break;
         v.remove_prefix(comma + 1);
       }
       s.weights = std::move(weights);
       return std::string();
     }},
    {"SELFSCHED_SIA", "~/.cache/selfsched/sia.json",
     "system information file of selfsched-calibrate: VP per core of this machine; off: ignore it",
     [](std::string_view v, settings& s) { return s.sia_path = v, std::string(); }},
    {"SELFSCHED_BIND", "false",
     "bind thread k of the outermost team to core k (mod cores) unless OMP_PROC_BIND/OMP_PLACES bind",
     [](std::string_view v, settings& s) { return parse_bool(v, s.bind); }},
    {"SELFSCHED_RUNQUEUE", "true",
     "measure each thread's run queue Q_k: 1 + runnable tasks of other processes on its CPU, from /proc "
     "(W, wf, dtss, dfss, dgss use VP_k / Q_k); false: Q_k = 1",
     [](std::string_view v, settings& s) { return parse_bool(v, s.run_queue); }},
    {"SELFSCHED_RUNQUEUE_MS", "5",
     "read the run queues at most this often (ms; less often when a reading would cost over 2% of a thread)",
     [](std::string_view v, settings& s) { return parse_real(v, s.run_queue_ms, 0.0, false); }},
    {"SELFSCHED_SHARED_CPU", "sleep",
     "how a thread of an auto loop waits at libomp's barriers while another process shares its CPU: sleep "
     "(kmp_set_blocktime(0) for that thread, unless KMP_BLOCKTIME, OMP_WAIT_POLICY or KMP_LIBRARY is set) or spin "
     "(libomp's wait)",
     [](std::string_view v, settings& s) { return parse_either(v, s.shared_cpu_sleep, "sleep", "spin"); }},
    {"SELFSCHED_MAX_CHUNK", "0 (none)", "upper threshold on every chunk",
     [](std::string_view v, settings& s) { return parse_count(v, s.max_chunk); }},
    {"SELFSCHED_SYNC_POINTS", "0 (3 x threads)",
     "#SP of mechanism S (s-*, sw-*): synchronization points per chunk in wavefronts and doacross rows",
     [](std::string_view v, settings& s) { return parse_count(v, s.sync_points); }},
    {"SELFSCHED_MU", "1", "mean iteration time, for fac, fsc, mfsc, tap, bold",
     [](std::string_view v, settings& s) { return parse_real(v, s.mu, 0.0, false); }},
    {"SELFSCHED_SIGMA", "1", "standard deviation of the iteration time, same techniques (0 makes them static)",
     [](std::string_view v, settings& s) { return parse_real(v, s.sigma, 0.0, true); }},
    {"SELFSCHED_OVERHEAD", "0", "scheduling overhead h per chunk, in units of mu",
     [](std::string_view v, settings& s) { return parse_real(v, s.overhead, 0.0, true); }},
    {"SELFSCHED_SEED", "1", "seed of rnd",
     [](std::string_view v, settings& s) {
       std::int64_t seed = 0;
       std::string error = parse_count(v, seed);
       if (error.empty()) s.seed = static_cast<std::uint64_t>(seed);
       return error;
     }},
    {"SELFSCHED_PROFILE", "off", "write a JSON profile of every selfsched loop to this path at exit (%p pid, %r MPI rank, %h host; one file per rank)",
     [](std::string_view v, settings& s) { return s.profile_path = v, std::string(); }},
    {"SELFSCHED_TOOL_LIBRARIES", "from OMP_TOOL_LIBRARIES",
     "other OMPT tools (':'-separated libraries) started beside selfsched's, through LLVM's ompt-multiplex.h",
     [](std::string_view v, settings& s) { return s.tool_libraries = v, std::string(); }},
    {"SELFSCHED_TOOL_VERBOSE_INIT", "disabled",
     "log how those tools are started (the multiplexer's OMP_TOOL_VERBOSE_INIT): stderr, stdout, a file, or disabled",
     [](std::string_view v, settings& s) { return s.tool_verbose_init = v, std::string(); }},
    {"SELFSCHED_PROFILE_CHUNKS", "false", "with SELFSCHED_PROFILE: record every chunk (thread, start, size, times), up to 250000 a process",
     [](std::string_view v, settings& s) { return parse_bool(v, s.profile_chunks); }},
    {"SELFSCHED_PROFILE_FORWARDED", "false",
     "with SELFSCHED_PROFILE: also loops left to the runtime (its dynamic, guided, runtime loops), each thread's "
     "time in them, as a baseline beside selfsched's",
     [](std::string_view v, settings& s) { return parse_bool(v, s.profile_forwarded); }},
};

}  // namespace

// secure_getenv: in a set-uid or file-capability program the library, which
// may be preloaded into it, takes no setting from the environment.
const char* bridge::setting_value(const char* name) {
  const char* value = secure_getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::string parse_setting(std::string_view name, std::string_view value, settings& s) {
  for (const setting_row<settings>& r : table)
    if (name == r.name) return r.parse(value, s);
  return "'" + std::string(name) + "' is not a selfsched setting";
}

// Never destroyed: the exit handlers (the profile's path, auto's cache,
// SELFSCHED_VERBOSE's last word) read it, and a static's destructor may run
// before handlers registered after it; under ThreadSanitizer it did, and the
// profile went to a path read from freed memory (a truncated name).
const settings& current_settings() {
  static const settings& s = *new settings([] {
    settings read = read_setting_rows(table);
    // OMP_DISPLAY_ENV shows OMP_SCHEDULE as the runtime holds it, `dynamic`
    // for one of ours: what selfsched does is shown beside it.
    const char* omp_display = bridge::setting_value("OMP_DISPLAY_ENV");
    if (bridge::setting_value("SELFSCHED_DISPLAY_ENV") == nullptr && omp_display != nullptr &&
        (strcasecmp(omp_display, "true") == 0 || strcasecmp(omp_display, "verbose") == 0))
      read.display_env = true;
    return read;
  }());
  return s;
}

void display_settings(const char* active_schedule, const char* runtime) {
  std::fprintf(stderr, "\nSELFSCHED DISPLAY ENVIRONMENT BEGIN\n");
  std::fprintf(stderr, "  active technique for schedule(runtime) = '%s'\n", active_schedule);
  std::fprintf(stderr, "  OpenMP runtime = '%s'\n", runtime);
  print_setting_rows(table);
  std::fprintf(stderr, "SELFSCHED DISPLAY ENVIRONMENT END\n\n");
}

namespace {

// Levenshtein distance, capped: beyond `cap` the exact value does not matter.
std::size_t edits_between(std::string_view a, std::string_view b, std::size_t cap) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap) return cap + 1;
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void bridge::report_misspelt_settings(const char* const* names, std::size_t count) {
  const std::vector<std::string_view> valid(names, names + count);
  if (getauxval(AT_SECURE) != 0) return;  // as secure_getenv: the environment is not ours to read
  constexpr std::string_view prefix = "SELFSCHED_";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view variable = *entry;
    const std::string_view name = variable.substr(0, variable.find('='));
    if (name.substr(0, prefix.size()) != prefix || std::find(valid.begin(), valid.end(), name) != valid.end())
      continue;
    std::string_view closest;
    std::size_t fewest = 3;
    for (const std::string_view candidate : valid)
      if (const std::size_t edits = edits_between(name, candidate, 2); edits < fewest)
        fewest = edits, closest = candidate;
    if (!closest.empty())
      warn("%.*s is not a selfsched setting and is ignored; did you mean %.*s?", static_cast<int>(name.size()),
           name.data(), static_cast<int>(closest.size()), closest.data());
  }
}

void bridge::warn(const char* format, ...) {
  static std::atomic<int> printed{0};
  constexpr int cap = 32;
  const int n = printed.fetch_add(1, std::memory_order_relaxed);
  if (n > cap) return;
  if (n == cap) {
    std::fputs("selfsched: further warnings suppressed\n", stderr);
    return;
  }
  char line[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::fprintf(stderr, "selfsched: %s\n", line);
}

}  // namespace selfsched::omp

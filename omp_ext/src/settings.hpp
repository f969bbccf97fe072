// Every SELFSCHED_* environment variable, in one table (settings.cpp): read
// once when the library loads, each invalid value reported once by name and
// value with the default used instead.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace selfsched::omp {

struct settings {
  std::string schedule;            // SELFSCHED_SCHEDULE (else OMP_SCHEDULE when it names ours)
  bool override_dynamic = false;   // SELFSCHED_OVERRIDE=dynamic
  bool override_guided = false;    // SELFSCHED_OVERRIDE=guided
  std::string auto_cache;          // SELFSCHED_AUTO_CACHE: "" = default path, "off" = none
  bool libomp_auto = false;        // SELFSCHED_AUTO=libomp: schedule(auto), OMP_SCHEDULE=auto stay libomp's
  bool display_env = false;        // SELFSCHED_DISPLAY_ENV
  bool verbose = false;            // SELFSCHED_VERBOSE
  std::vector<double> weights;     // SELFSCHED_WEIGHTS: VP per thread
  std::string sia_path;            // SELFSCHED_SIA: "" = default path, "off" = none
  bool bind = false;               // SELFSCHED_BIND
  bool run_queue = true;           // SELFSCHED_RUNQUEUE
  double run_queue_ms = 5.0;       // SELFSCHED_RUNQUEUE_MS
  std::int64_t max_chunk = 0;      // SELFSCHED_MAX_CHUNK
  std::int64_t sync_points = 0;    // SELFSCHED_SYNC_POINTS: #SP of s-/sw- (0: 3 x threads)
  double mu = 1.0;                 // SELFSCHED_MU
  // 1: iteration times vary as much as their mean (coefficient of variation
  // 1) unless told otherwise; 0 would make fac, fsc and bold static splits.
  double sigma = 1.0;              // SELFSCHED_SIGMA
  double overhead = 0.0;           // SELFSCHED_OVERHEAD
  std::uint64_t seed = 1;          // SELFSCHED_SEED
  std::string profile_path;        // SELFSCHED_PROFILE
  bool profile_chunks = false;     // SELFSCHED_PROFILE_CHUNKS
};

// Read once (first call, or the library constructor), never per chunk.
const settings& current_settings();

// One variable's value as the table reads it into `s`: "" or why not (a
// name that is not in the table included). For tests and the fuzzer.
std::string parse_setting(std::string_view name, std::string_view value, settings& s);

// Prints the table with the effective values (SELFSCHED_DISPLAY_ENV=true).
void display_settings(const char* active_schedule);

// The value of a SELFSCHED_* variable, or nullptr when it is unset or empty:
// `VAR= program` (what ctest and many scripts do to clear one) means the default.
const char* setting_value(const char* name);

// The table's value parsers, shared with the MPI layer's own table
// (mpi_bridge/src/settings.cpp): each stores the value, or returns why it
// cannot ("valid: ...") and leaves `out` alone.
std::string parse_bool(std::string_view v, bool& out);
std::string parse_real(std::string_view v, double& out, double lowest, bool inclusive);
std::string parse_count(std::string_view v, std::int64_t& out);

// Variables in the environment that start with SELFSCHED_, are not in
// `valid`, and are within two edits of one that is (a misspelling, not
// another program's variable): each said once, with the valid name.
void report_misspelt_settings(const std::vector<std::string_view>& valid);

// One line on stderr prefixed "selfsched: "; at most a few dozen per process.
void warn(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A settings table (this library's, the MPI layer's): one row per variable,
// whose parser stores the value into S or returns why it cannot.
template <typename S>
struct setting_row {
  const char* name;
  const char* default_text;
  const char* doc;
  std::string (*parse)(std::string_view value, S& s);
};

// Every row's variable, read once: an invalid value is reported (when
// `report`) by name and value, and the row's default stays.
template <typename S, std::size_t N>
S read_setting_rows(const setting_row<S> (&rows)[N], bool report = true) {
  if (report) {
    std::vector<std::string_view> names;
    for (const setting_row<S>& r : rows) names.push_back(r.name);
    report_misspelt_settings(names);
  }
  S s;
  for (const setting_row<S>& r : rows) {
    const char* value = setting_value(r.name);
    if (value == nullptr) continue;
    S attempt = s;
    if (const std::string error = r.parse(value, attempt); !error.empty()) {
      if (report) warn("%s='%s' is invalid (%s); using the default, %s", r.name, value, error.c_str(), r.default_text);
    } else {
      s = std::move(attempt);
    }
  }
  return s;
}

// The rows with the values in force (SELFSCHED_DISPLAY_ENV), on stderr.
template <typename S, std::size_t N>
void print_setting_rows(const setting_row<S> (&rows)[N]) {
  for (const setting_row<S>& r : rows) {
    const char* value = setting_value(r.name);
    std::fprintf(stderr, "  %s = '%s'%s\n      %s\n", r.name, value ? value : r.default_text,
                 value ? "" : " (default)", r.doc);
  }
}

}  // namespace selfsched::omp

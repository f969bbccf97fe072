// Every SELFSCHED_* environment variable, in one table (settings.cpp): read
// once when the library loads, each invalid value reported once by name and
// value with the default used instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace selfsched::omp {

struct settings {
  std::string schedule;            // SELFSCHED_SCHEDULE (else OMP_SCHEDULE when it names ours)
  bool override_dynamic = false;   // SELFSCHED_OVERRIDE=dynamic
  bool override_guided = false;    // SELFSCHED_OVERRIDE=guided
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

// One line on stderr prefixed "selfsched: "; at most a few dozen per process.
void warn(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace selfsched::omp

// Every SELFSCHED_* environment variable, in one table (settings.cpp): read
// once when the library loads, each invalid value reported once by name and
// value with the default used instead.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/settings_table.hpp"

namespace selfsched::omp {

struct settings {
  std::string schedule;            // SELFSCHED_SCHEDULE (else OMP_SCHEDULE when it names ours)
  bool override_dynamic = false;   // SELFSCHED_OVERRIDE=dynamic
  bool override_guided = false;    // SELFSCHED_OVERRIDE=guided
  std::string auto_cache;          // SELFSCHED_AUTO_CACHE: "" = default path, "off" = none
  bool libomp_auto = false;        // SELFSCHED_AUTO=libomp: schedule(auto), OMP_SCHEDULE=auto stay libomp's
  bool runtime_hooks = true;       // SELFSCHED_HOOKS: a patched libomp's registered schedules (libomp_hooks.hpp)
  bool display_env = false;        // SELFSCHED_DISPLAY_ENV
  bool verbose = false;            // SELFSCHED_VERBOSE
  std::vector<double> weights;     // SELFSCHED_WEIGHTS: VP per thread
  std::string sia_path;            // SELFSCHED_SIA: "" = default path, "off" = none
  bool bind = false;               // SELFSCHED_BIND
  bool run_queue = true;           // SELFSCHED_RUNQUEUE
  double run_queue_ms = 5.0;       // SELFSCHED_RUNQUEUE_MS
  bool shared_cpu_sleep = true;    // SELFSCHED_SHARED_CPU=sleep (barrier_wait.hpp)
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
  bool profile_forwarded = false;  // SELFSCHED_PROFILE_FORWARDED
  std::string tool_libraries;      // SELFSCHED_TOOL_LIBRARIES: "" = the tools libomp would have started
  std::string tool_verbose_init;   // SELFSCHED_TOOL_VERBOSE_INIT: "" = no log of the other tools' start
};

// Read once (first call, or the library constructor), never per chunk.
const settings& current_settings();

// One variable's value as the table reads it into `s`: "" or why not (a
// name that is not in the table included). For tests and the fuzzer.
std::string parse_setting(std::string_view name, std::string_view value, settings& s);

// Prints the table with the effective values (SELFSCHED_DISPLAY_ENV=true),
// the technique in force and what is known of the OpenMP runtime.
void display_settings(const char* active_schedule, const char* runtime);

// The settings table's machinery and the functions the MPI layer's table
// shares (selfsched/settings_table.hpp, part of the bridge seam).
using bridge::parse_bool;
using bridge::parse_count;
using bridge::parse_either;
using bridge::parse_real;
using bridge::print_setting_rows;
using bridge::read_setting_rows;
using bridge::setting_row;
using bridge::setting_value;
using bridge::warn;

}  // namespace selfsched::omp

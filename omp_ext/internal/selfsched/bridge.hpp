// The seam between libselfsched and the MPI layer (libselfsched_mpi): the
// few things a rank needs to know of its own threads, exported by
// libselfsched under selfsched::omp::bridge and nothing else of its
// internals (omp_ext/exports.map). Like oneTBB's r1 entry points it is
// internal: it changes with the library, and applications do not use it.
// outer_source.hpp is the other half: how the MPI layer feeds a team's loops.
#pragma once

#include <cstdint>
#include <string>

#include "selfsched/settings_table.hpp"

namespace selfsched::omp::bridge {

// The clock of chunk times and profiles (steady, nanoseconds).
std::int64_t now_ns();

// Did libomp start selfsched's OMPT tool? Without it loops cannot be shared.
bool teams_tracked();

// Would libselfsched serve a worksharing loop of this schedule kind (as the
// compiler passes it to __kmpc_dispatch_init) that the calling thread starts
// now? false: the OpenMP runtime schedules it (a standard kind chosen with
// omp_set_schedule, an ordered loop, a team selfsched does not track).
bool serves_loop(int schedule);

// The library's settings that the ranks' outer technique uses too.
struct library_settings {
  double mu = 1, sigma = 1, overhead = 0;  // SELFSCHED_MU, _SIGMA, _OVERHEAD
  std::uint64_t seed = 1;                  // SELFSCHED_SEED
  bool verbose = false;                    // SELFSCHED_VERBOSE
  bool display_env = false;                // SELFSCHED_DISPLAY_ENV
};
library_settings settings();

// This rank's computing power for `threads` threads: SELFSCHED_WEIGHTS when
// it gives one per thread (absolute: the user's scale across ranks), else
// the sum of the threads' VP (SIA file, hwloc CPU kinds; relative within
// this machine), else `threads`.
double team_power(int threads);

// The run-queue monitor's Q of the CPU the calling thread runs on: 1 + the
// runnable tasks of other processes there.
double run_queue_length();

// A loop site (an ident_t*) as "file:line", or "" when the binary does not say.
std::string site_source_line(const void* ident);

// The source string clang stores in an ident_t (";file;function;line;col;;"),
// or nullptr: the same on every rank of one binary.
const char* site_source(const void* ident);

// A section of this process's profile (SELFSCHED_PROFILE) that the MPI
// layer writes: `json()` gives its JSON text when the profile is written,
// under the key `name` (cluster mode: "cluster_regions").
void add_profile_section(const char* name, std::string (*json)());

// Cluster mode (mpi_bridge/cluster): how a parallel region (its ident_t)
// ran, kept in auto's cache (SELFSCHED_AUTO_CACHE) from one run of the
// program to the next, so that a region that cannot be shared, or costs
// more shared, runs replicated from its first run on; replicated_alike: its
// replicated runs wrote the same bytes on every rank, so they need not be
// compared.
enum class region_choice { unknown, shared, replicated, replicated_alike };
region_choice remembered_region(const void* ident);
void remember_region(const void* ident, region_choice choice);
// Writes what the cache should keep now (the job is about to stop without
// running exit handlers); false when nothing is kept (the cache is off).
bool keep_learned_now();

}  // namespace selfsched::omp::bridge

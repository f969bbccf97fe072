// libselfsched's side of the bridge seam (omp_ext/include/selfsched/bridge.hpp
// and outer_source.hpp), answered for a rank that SMPI simulates: one thread
// per rank, no OpenMP team, no libselfsched in the process. The engine's
// code (mpi_bridge/src) is compiled unchanged against it.
//
// What differs from omp_ext/src/bridge.cpp, and why:
// - the clock is SMPI's simulated time (MPI_Wtime), never the host's: chunk
//   times, round trips and waits must be the simulated ones;
// - a rank's power is its simulated host's speed over the reference speed
//   the driver gives (rank_power.hpp): what a calibration would measure;
// - the run queue is 1: a simulated host runs nothing but its rank;
// - loops come from the driver (loop_driver.cpp) through the engine's
//   outer_source, as cluster mode's agent does, so nothing is installed on
//   a team and no inner technique is set.
// SMPI ranks share one process: nothing here keeps per-rank state.
#include <mpi.h>
#include <omp.h>
#include <simgrid/host.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "rank_power.hpp"
#include "selfsched.h"
#include "selfsched/bridge.hpp"
#include "selfsched/outer_source.hpp"

namespace selfsched::smpi {
namespace {
double reference = 1e9;  // the same on every rank: set alike by each
}  // namespace

void set_reference_flops(double flops) { reference = flops; }

double rank_power() { return sg_host_get_speed(sg_host_self()) / reference; }

}  // namespace selfsched::smpi

namespace selfsched::omp::bridge {

std::int64_t now_ns() { return std::llround(MPI_Wtime() * 1e9); }

// The driver feeds the engine itself: no team is followed, none needs to be.
bool teams_tracked() { return true; }

// libselfsched's defaults (its SELFSCHED_MU ... are not read: no libselfsched here).
library_settings settings() { return {}; }

double team_power(int /*threads*/) { return smpi::rank_power(); }

double run_queue_length() { return 1.0; }

std::string site_source_line(const void* /*ident*/) { return ""; }

const char* site_source(const void* /*ident*/) { return nullptr; }

const char* setting_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

void report_misspelt_settings(const char* const* /*valid*/, std::size_t /*count*/) {}

// No profile is written and no auto cache kept: a simulated run learns
// nothing for the next one, and cluster mode's regions are not simulated.
void add_profile_section(const char* /*name*/, std::string (*/*json*/)()) {}

region_choice remembered_region(const void* /*ident*/) { return region_choice::unknown; }

void remember_region(const void* /*ident*/, region_choice /*choice*/) {}

bool keep_learned_now() { return false; }

void warn(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("selfsched: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
}

}  // namespace selfsched::omp::bridge

// The engine installs itself on a team only when it serves this process's
// threads (region.cpp); the driver runs it as serving::program_elsewhere.
namespace selfsched::omp {
outer_source* install_outer_source(outer_source* /*source*/) { return nullptr; }
}  // namespace selfsched::omp

// One thread per rank and no OpenMP runtime: the answers of a rank outside
// any parallel region, and the threads' technique left as it is.
extern "C" {
int omp_get_level(void) { return 0; }
int omp_in_parallel(void) { return 0; }
int omp_get_max_threads(void) { return 1; }
int omp_get_thread_num(void) { return 0; }
int omp_get_num_threads(void) { return 1; }
void omp_get_schedule(omp_sched_t* kind, int* chunk) {
  *kind = omp_sched_static;
  *chunk = 0;
}
int selfsched_set_schedule(const char* /*name*/, long /*chunk*/) { return 0; }
size_t selfsched_get_schedule(char* /*buf*/, size_t /*size*/) { return 1; }
}

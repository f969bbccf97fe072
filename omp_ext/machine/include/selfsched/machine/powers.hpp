// Virtual power VP_k of each thread of a team (seed 000 sec. 2, seed 004
// sec. 3.1): how fast thread k runs the loop body relative to the others.
//
// In order of precedence:
//  1. SELFSCHED_WEIGHTS, one per thread number;
//  2. the SIA file written by selfsched-calibrate (sia.hpp), VP per core,
//     when it has an entry for this machine;
//  3. hwloc's CPU kinds (topology.hpp: LinuxCapacity, FrequencyMaxMHz or
//     the efficiency rank of performance and efficiency cores);
//  4. all equal.
// 2 and 3 give a VP per core; a thread has the VP of the core it runs on
// (placement.hpp).
#pragma once

#include <string>
#include <vector>

namespace selfsched::omp {

class team_placement;

// One positive power per thread of a team of `team_size`, fastest = 1, or
// empty when all threads are equal (then the techniques use their exact
// integer forms). A thread whose core is not known yet (it has not started
// in the team's first region) gets the mean VP of the usable cores.
std::vector<double> thread_powers(const team_placement& placement, int team_size);

// Finds this machine's powers now (the SIA file and hwloc's topology:
// milliseconds, once per process) unless SELFSCHED_WEIGHTS gives them, so
// that the first loop that reads them does not wait for them with its team.
void find_machine_powers();

// Where the powers come from ("SELFSCHED_WEIGHTS", "SIA file ...", "hwloc CPU
// kinds (...)", "equal ..."), for the profile and SELFSCHED_VERBOSE.
std::string powers_source();

}  // namespace selfsched::omp

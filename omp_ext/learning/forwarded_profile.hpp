// SELFSCHED_PROFILE_FORWARDED: the loops left to the runtime (libomp's or
// libgomp's own dynamic, guided and runtime loops) in the profile too, a
// baseline in the same tool beside selfsched's loops. Their chunks are the
// runtime's and never seen, so each instance records, per thread, its time
// from entering the loop to leaving it (libomp: clang's dispatch_deinit,
// clang 18 and later; libgomp: GOMP_loop_end*): the instance's makespan and
// how unevenly its threads finished, under the technique name
// "libomp dynamic,4" (or libgomp ..., its schedule as written).
// Off by default: it costs two clock reads and a lock per thread and loop.
#pragma once

#include <cstdint>
#include <string>

#include "state/team_state.hpp"

namespace selfsched::omp {

bool profiling_forwarded();  // SELFSCHED_PROFILE and SELFSCHED_PROFILE_FORWARDED

// A runtime loop's schedule as its profile names it: OMP_SCHEDULE's value
// (the runtime's own kinds stay there), else "runtime".
std::string runtime_schedule_text();

// Every member of m's team, entering (then leaving) the same forwarded loop.
void forwarded_loop_begin(membership& m, loop_site site, iter_t n, std::string schedule);
void forwarded_loop_end(membership& m);

}  // namespace selfsched::omp

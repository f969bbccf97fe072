// What serving a libomp loop takes, however the loop reaches selfsched:
// through the interposed __kmpc_dispatch_* entry points (kmpc.cpp) or
// through a patched libomp's registered schedules (libomp_hooks.cpp). One
// decision and one start for both, implemented in kmpc.cpp.
#pragma once

#include <cstdint>

#include "libomp_abi.hpp"
#include "loop.hpp"

namespace selfsched::omp {

// Could a loop of this schedule kind (as the compiler passed it) be ours?
bool served_kind(int schedule);

// The technique for such a loop of m's team: selfsched's auto for
// schedule(auto), else the team's (nullptr: none, the loop is libomp's).
const active_schedule* technique_for_loop(const membership& m, int schedule);

// Said once, when a loop selfsched should serve goes to libomp because
// selfsched cannot tell the thread's team.
void explain_untracked_team();

// Enters m's team's next loop of n iterations with `technique`; the chunk
// written in the clause and the chunk order follow from `schedule`.
void begin_libomp_loop(membership& m, loop_site site, const active_schedule& technique, iter_t n, int schedule,
                       std::int64_t chunk);

}  // namespace selfsched::omp

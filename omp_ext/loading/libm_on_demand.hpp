// libm, opened when libselfsched first computes with it (libm_on_demand.cpp).
#pragma once

namespace selfsched::omp {

// Opens libm now if nothing has: called when a technique comes into force
// (teams.cpp), so that no claim of its first loop, timed or waited for by
// the team, is the one that opens it.
void open_libm();

}  // namespace selfsched::omp

// Virtual power VP_k of each thread of a team (seed 000 sec. 2, seed 004
// sec. 3.1): how fast thread k runs the loop body relative to the others.
#pragma once

#include <vector>

namespace selfsched::omp {

// One positive power per thread of a team of `team_size`, or empty when all
// threads are taken to be equal.
std::vector<double> thread_powers(int team_size);

}  // namespace selfsched::omp

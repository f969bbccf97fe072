// A rank's weight for weighted outer techniques: the sum of its threads'
// virtual powers (seed 004, Sect. 3.1: a master's V is the sum of its
// workers' V_j), divided by the run-queue length Q of the thread that creates
// the region, as mechanism W does per worker (seed 000, Sect. 3: C' = C VP/Q).
#pragma once

#include <mpi.h>

#include <vector>

namespace selfsched::mpi::detail {

// Collective over `comm`: every rank's weight, by rank.
std::vector<double> exchange_rank_weights(MPI_Comm comm, bool load_correction);

}  // namespace selfsched::mpi::detail

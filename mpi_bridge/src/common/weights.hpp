// A rank's power for weighted outer techniques: the sum of its threads'
// virtual powers (seed 004, Sect. 3.1: a master's V is the sum of its
// workers' V_j). The load on it is not part of it: each request carries the
// asking thread's run-queue length Q, by which the technique divides the
// power at that chunk, as mechanism W does per worker (seed 000, Sect. 3:
// C' = C VP/Q), so a rank that becomes loaded mid-region gets smaller chunks.
#pragma once

#include <mpi.h>

#include <vector>

namespace selfsched::mpi::detail {

// Collective over `comm`: every rank's power, by rank.
std::vector<double> exchange_rank_powers(MPI_Comm comm);

}  // namespace selfsched::mpi::detail

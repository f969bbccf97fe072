// Result movement after a shared loop, when every rank has finished it: the
// rows each rank computed go to the root or to every rank; reductions.
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

#include "selfsched/mpi.hpp"

namespace selfsched::mpi::detail {

// Resilience: `own` less the chunks whose copy on a lower rank also ran to
// its end, so that every chunk is one rank's (the same answer everywhere).
// Collective over `comm`.
std::vector<chunk> settle_copies(MPI_Comm comm, std::span<const chunk> own);

// `own`: the outer chunks this rank ran. Collective over `comm`.
void gather_fixed_rows(MPI_Comm comm, const options::fixed_rows& rows, std::span<const chunk> own);
void gather_variable_rows(MPI_Comm comm, const options::variable_rows& rows, std::span<const chunk> own);
void reduce(MPI_Comm comm, const options::reduction& r);

}  // namespace selfsched::mpi::detail

// Result movement after a shared loop, when every rank has finished it: the
// rows each rank computed go to the root or to every rank; reductions.
#pragma once

#include <mpi.h>

#include <span>

#include "selfsched/mpi.hpp"

namespace selfsched::mpi::detail {

// `own`: the outer chunks this rank ran. Collective over `comm`.
void gather_fixed_rows(MPI_Comm comm, const options::fixed_rows& rows, std::span<const chunk> own);
void gather_variable_rows(MPI_Comm comm, const options::variable_rows& rows, std::span<const chunk> own);
void reduce(MPI_Comm comm, const options::reduction& r);

}  // namespace selfsched::mpi::detail

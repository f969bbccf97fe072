// Result movement after a shared loop, when every rank has finished it: the
// rows each rank computed go to the root or to every rank; reductions.
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

#include "selfsched/core/wavefront.hpp"
#include "selfsched/mpi.hpp"
#include "selfsched/mpi_wavefront.hpp"

namespace selfsched::mpi::detail {

// Resilience: `own` less the chunks whose copy on a lower rank also ran to
// its end, so that every chunk is one rank's (the same answer everywhere).
// Collective over `comm`.
std::vector<chunk> settle_copies(MPI_Comm comm, std::span<const chunk> own);

// `own`: the outer chunks this rank ran. Collective over `comm`.
void gather_fixed_rows(MPI_Comm comm, const options::fixed_rows& rows, std::span<const chunk> own);
void gather_variable_rows(MPI_Comm comm, const options::variable_rows& rows, std::span<const chunk> own);
void reduce(MPI_Comm comm, const options::reduction& r);

// A dependence loop's cells (wavefront.cpp): those of the chunks (of c')
// each rank ran, to `root` or every rank (all_ranks). Collective.
void gather_cells(MPI_Comm comm, const wavefront_plan& plan, const wavefront_call& call, std::span<const chunk> own,
                  int root);

}  // namespace selfsched::mpi::detail

// Which ranks share a node, for the two-level schemes: the hier transport
// (seed 004, sec. 4: a master per node under a supermaster) and the
// hier-mediation task pools (seed 001, sec. 5.4: a mediator per node under
// one across nodes).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace selfsched::mpi::detail {

// Collective over comm: for every rank, its node's lowest rank (its leader).
// node_size > 0 makes nodes of that many consecutive ranks, to try a
// hierarchy on one machine (SELFSCHED_MPI_NODE_SIZE); 0 groups the ranks of
// each shared-memory node (MPI_Comm_split_type).
std::vector<int> node_leaders(MPI_Comm comm, std::int64_t node_size);

}  // namespace selfsched::mpi::detail

#include "common/nodes.hpp"

namespace selfsched::mpi::detail {

std::vector<int> node_leaders(MPI_Comm comm, std::int64_t node_size) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int leader = rank;
  if (node_size > 0) {
    leader = static_cast<int>(rank - rank % node_size);
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);  // ordered by rank: the node's lowest
    MPI_Comm_free(&node);
  }
  std::vector<int> leaders(static_cast<std::size_t>(size));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  return leaders;
}

}  // namespace selfsched::mpi::detail

#include "common/weights.hpp"

#include <omp.h>

#include "selfsched/bridge.hpp"

namespace selfsched::mpi::detail {

std::vector<double> exchange_rank_powers(MPI_Comm comm) {
  // The power of the team this rank's loops will run on (SELFSCHED_WEIGHTS as
  // absolute, else the threads' VP; bridge.hpp).
  double weight = omp::bridge::team_power(omp_get_max_threads());
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<double> weights(static_cast<std::size_t>(size));
  MPI_Allgather(&weight, 1, MPI_DOUBLE, weights.data(), 1, MPI_DOUBLE, comm);
  return weights;
}

}  // namespace selfsched::mpi::detail

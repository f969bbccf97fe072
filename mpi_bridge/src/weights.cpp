#include "weights.hpp"

#include <omp.h>

#include "selfsched/bridge.hpp"

namespace selfsched::mpi::detail {

std::vector<double> exchange_rank_weights(MPI_Comm comm, bool load_correction) {
  // The power of the team this rank's loops will run on (SELFSCHED_WEIGHTS as
  // absolute, else the threads' VP; bridge.hpp), divided by the run-queue
  // monitor's Q of the CPU this (the creating) thread runs on: 1 + the
  // runnable tasks of other processes there. Fixed for the region.
  double weight = omp::bridge::team_power(omp_get_max_threads());
  if (load_correction) weight /= omp::bridge::run_queue_length();
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<double> weights(static_cast<std::size_t>(size));
  MPI_Allgather(&weight, 1, MPI_DOUBLE, weights.data(), 1, MPI_DOUBLE, comm);
  return weights;
}

}  // namespace selfsched::mpi::detail

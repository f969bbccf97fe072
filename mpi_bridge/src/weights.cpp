#include "weights.hpp"

#include <omp.h>

#include <numeric>

#include "omp_ext/src/placement.hpp"
#include "omp_ext/src/platform.hpp"
#include "omp_ext/src/powers.hpp"
#include "omp_ext/src/runqueue.hpp"
#include "omp_ext/src/settings.hpp"

namespace selfsched::mpi::detail {

std::vector<double> exchange_rank_weights(MPI_Comm comm, bool load_correction) {
  // The powers of the team this rank's loops will run on. SELFSCHED_WEIGHTS,
  // when given, is taken as absolute (the user's scale across ranks; one
  // weight is also a team of one); otherwise omp_ext's powers (SIA file,
  // hwloc CPU kinds; threads not placed yet get the mean VP of the usable
  // cores), which are relative within this machine and empty when the
  // threads are equal: then each thread counts 1.
  const int threads = omp_get_max_threads();
  const std::vector<double>& declared = omp::current_settings().weights;
  std::vector<double> powers;
  if (declared.size() >= static_cast<std::size_t>(threads)) {
    powers.assign(declared.begin(), declared.begin() + threads);
  } else {
    omp::team_placement placement;
    placement.prepare(threads, /*outermost=*/false);
    powers = omp::thread_powers(placement, threads);
  }
  double weight = powers.empty() ? threads : std::accumulate(powers.begin(), powers.end(), 0.0);
  // The run-queue monitor's Q of the CPU this (the creating) thread runs on:
  // 1 + the runnable tasks of other processes there, read from /proc (first
  // when the library loaded). Fixed for the region.
  if (load_correction) weight /= omp::run_queue_length(omp::now_ns());
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<double> weights(static_cast<std::size_t>(size));
  MPI_Allgather(&weight, 1, MPI_DOUBLE, weights.data(), 1, MPI_DOUBLE, comm);
  return weights;
}

}  // namespace selfsched::mpi::detail

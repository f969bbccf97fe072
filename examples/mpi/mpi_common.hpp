// What the hybrid (MPI + OpenMP) examples add to common.hpp: MPI start and
// end, the --thread-level option, and the fields of the result line that
// describe the ranks. The loops themselves are the threads examples' kernels
// (../mandelbrot.hpp, ...) inside a selfsched::mpi::region.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "../common.hpp"
#include "selfsched/mpi.hpp"

namespace example {

// --thread-level: what the example asks MPI_Init_thread for.
inline void thread_level_option(command_line& cli, std::string& level) {
  cli.choice("thread-level", level, {"multiple", "serialized", "funneled", "single"},
             "MPI thread level to ask for; selfsched works with any");
}

class mpi_session {
 public:
  mpi_session(int& argc, char**& argv, const std::string& level) {
    const int wanted = level == "single"       ? MPI_THREAD_SINGLE
                       : level == "funneled"   ? MPI_THREAD_FUNNELED
                       : level == "serialized" ? MPI_THREAD_SERIALIZED
                                               : MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, wanted, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~mpi_session() { MPI_Finalize(); }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank = 0, size = 1, provided = MPI_THREAD_SINGLE;
};

// Collective. On rank 0: ranks, thread level, transport, outer technique,
// and per rank its busy time (all its threads) and iterations.
inline void add_rank_fields(report& r, const mpi_session& mpi, const loop_monitor& monitor,
                            const selfsched::mpi::statistics& stats) {
  const double mine[2] = {monitor.busy_total(), static_cast<double>(stats.iterations)};
  std::vector<double> all(2 * static_cast<std::size_t>(mpi.size));
  MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (mpi.rank != 0) return;
  std::string busy, iterations;
  for (int k = 0; k < mpi.size; ++k) {
    busy += (k ? "," : "") + loop_monitor::fixed(all[2 * k]);
    iterations += (k ? "," : "") + std::to_string(static_cast<long long>(all[2 * k + 1]));
  }
  r.add("ranks", mpi.size);
  r.add("thread_level", stats.thread_level);
  r.add("transport", stats.transport);
  r.add("outer", stats.schedule);
  r.add("rank_busy_s", busy);
  r.add("rank_iterations", iterations);
}

}  // namespace example

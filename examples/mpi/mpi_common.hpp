// What the hybrid (MPI + OpenMP) examples add to common.hpp: MPI start and
// end, the --thread-level option, and the fields of the result line that
// describe the ranks. The loops themselves are the threads examples' kernels
// (../mandelbrot.hpp, ...) inside a selfsched::mpi::region.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
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

// Proves coverage across ranks: after each shared loop, how often each
// iteration ran on any rank and whose result it is (the rank whose outer
// chunks hold it) are summed on rank 0. Without copies every iteration ran
// exactly once; under SELFSCHED_MPI_RESILIENCE=duplicate a copy may have run
// it twice (or in part), but its result must still be exactly one rank's.
class rank_coverage {
 public:
  rank_coverage(selfsched::mpi::options& moves, loop_monitor& monitor) : monitor_(monitor) {
    moves.after_loop([this](const selfsched::mpi::loop_info& info) { add(info); });
  }
  rank_coverage(const rank_coverage&) = delete;
  rank_coverage& operator=(const rank_coverage&) = delete;

  // After the region, on rank 0: the monitor's counts become the verdict
  // (coverage_problem() wants each at 1).
  void settle(const selfsched::mpi::statistics& stats) {
    if (owners_.empty()) return;  // not rank 0, or no shared loop ran
    std::vector<std::uint32_t>& runs = monitor_.runs();
    const bool copies = stats.resilience == "duplicate";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i] == 0) continue;  // ran nowhere
      // A result held by no rank or by two is wrong with or without copies.
      if (copies || owners_[i] != 1) runs[i] = owners_[i];
    }
  }

 private:
  void add(const selfsched::mpi::loop_info& info) {
    std::vector<std::uint32_t>& runs = monitor_.runs();
    std::vector<std::uint32_t> owners(runs.size());
    for (const selfsched::chunk c : info.own)
      for (selfsched::iter_t i = c.start; i < c.start + c.size; ++i) ++owners[static_cast<std::size_t>(i)];
    int rank = 0;
    MPI_Comm_rank(info.comm, &rank);
    const int n = static_cast<int>(runs.size());
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : runs.data(), runs.data(), n, MPI_UINT32_T, MPI_SUM, 0, info.comm);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : owners.data(), owners.data(), n, MPI_UINT32_T, MPI_SUM, 0, info.comm);
    if (rank != 0) return std::fill(runs.begin(), runs.end(), 0);  // counted on rank 0 now
    if (owners_.empty()) owners_.assign(owners.size(), 0);
    for (std::size_t i = 0; i < owners.size(); ++i) owners_[i] += owners[i];
  }

  loop_monitor& monitor_;
  std::vector<std::uint32_t> owners_;
};

// One shared loop as the kernel examples run it: `loop`, the threads
// example's parallel loop, inside a selfsched::mpi::region that moves
// `moves`, its coverage proven across ranks. The time is the loop's on this
// rank (on rank 0 the gathered rows included).
struct shared_loop {
  double seconds = 0;
  selfsched::mpi::statistics stats;
};
template <typename Loop>
shared_loop run_shared_loop(selfsched::mpi::options& moves, loop_monitor& monitor, Loop&& loop) {
  rank_coverage coverage(moves, monitor);
  shared_loop result;
  {
    selfsched::mpi::region region(MPI_COMM_WORLD, moves);
    const double start = now_seconds();
    loop();
    result.seconds = now_seconds() - start;
    result.stats = region.stats();
  }
  coverage.settle(result.stats);
  return result;
}

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
  r.add("resilience", stats.resilience);
  r.add("rank_busy_s", busy);
  r.add("rank_iterations", iterations);
}

}  // namespace example

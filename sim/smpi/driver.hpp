// What the SMPI drivers (loop_driver.cpp, pool_driver.cpp) share: reading
// their flags, and their ranks' run between MPI_Init and MPI_Finalize.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>

#include "rank_power.hpp"

namespace selfsched::smpi {

// argv[k] is `flag` and a value follows: the value into `out`, k past it.
inline bool take_flag(const std::string& flag, int& k, int argc, char** argv, std::string& out) {
  if (argv[k] != flag || k + 1 >= argc) return false;
  out = argv[++k];
  return true;
}

// Every rank: MPI up, then `run(rank)` (its exit status), or, when the options
// were bad (`bad`, one line), that line on rank 0's stderr and status 2.
template <typename Run>
int run_ranks(const char* program, int& argc, char**& argv, const std::string& bad, double reference_flops,
              Run run) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  set_reference_flops(reference_flops);
  int status = 2;
  if (!bad.empty()) {
    if (rank == 0) std::fprintf(stderr, "%s: %s\n", program, bad.c_str());
  } else {
    status = run(rank);
  }
  MPI_Finalize();
  return status;
}

}  // namespace selfsched::smpi

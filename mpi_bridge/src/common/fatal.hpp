// Misuse the region cannot recover from (ranks in different loops, a rank
// that skipped one): one message, then the whole job stops rather than hang.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace selfsched::mpi::detail {

[[noreturn]] inline void abort_job(MPI_Comm comm, const std::string& message) {
  std::fprintf(stderr, "selfsched-mpi: %s; stopping the job\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 70);  // EX_SOFTWARE
  std::abort();
}

}  // namespace selfsched::mpi::detail

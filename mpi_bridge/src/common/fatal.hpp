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

// Pieces of the messages that name ranks silent past SELFSCHED_MPI_WAIT_LIMIT
// (regions' stopped_ranks.cpp, pools' pool_copies.cpp).
inline std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}
// "rank 2 has" or "ranks 1, 2 have", from a list of `count` ranks written "1, 2".
inline std::string ranks_have(const std::string& list, int count) {
  return std::string(count > 1 ? "ranks " : "rank ") + list + (count > 1 ? " have" : " has");
}

}  // namespace selfsched::mpi::detail

// Waiting for a nonblocking MPI operation without holding a core: the
// agents share the machine with their programs' threads, and a blocking
// MPI call in Open MPI spins. Spins briefly, then sleeps in growing steps
// up to `longest`, running `between` at each wake-up.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace selfsched::cluster {

template <typename Between>
void wait_without_spinning(MPI_Request& r, std::chrono::steady_clock::duration longest, Between between) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (;;) {
    int done = 0;
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) return;
    between();
    const auto waited = clock::now() - start;
    if (waited < std::chrono::microseconds(50)) continue;
    std::this_thread::sleep_for(std::clamp<clock::duration>(waited / 16, std::chrono::microseconds(10), longest));
  }
}

}  // namespace selfsched::cluster

// Waiting for a nonblocking MPI operation without holding a core: the
// agents share the machine with their programs' threads, and a blocking
// MPI call in Open MPI spins.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace selfsched::cluster {

// For an operation that may wait on other ranks for long (they are still
// computing): spins briefly, then sleeps in growing steps up to `longest`,
// running `between` at each wake-up.
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

// For an operation every rank has already joined (the bytes are ready on
// all sides): its data moves only while MPI is called (a large message is
// many fragments, each sent from a progress call), so a sleep between tests
// stalls the transfer; 5 MB between two ranks on one machine took 60 ms
// with wait_without_spinning's sleeps against 1 ms polled. Polls, yielding
// the core to any thread that wants it, for up to `patience`; then sleeps
// as above (a rank stopped or starved: the job must not hold a core).
template <typename Between>
void wait_for_ready_ranks(MPI_Request& r, std::chrono::steady_clock::duration patience,
                          std::chrono::steady_clock::duration longest, Between between) {
  using clock = std::chrono::steady_clock;
  const auto give_up = clock::now() + patience;
  for (unsigned polls = 1;; ++polls) {
    int done = 0;
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (polls % 64 == 0) {
      between();
      if (clock::now() > give_up) break;
    }
    sched_yield();
  }
  wait_without_spinning(r, longest, between);
}

}  // namespace selfsched::cluster

// Waiting for another rank, in the MPI bridge's threads (the clients, the
// checkpoints, the progress thread).
#pragma once

#include <sched.h>
#include <time.h>

#include <cstdint>

#include "selfsched/bridge.hpp"  // the clock

namespace selfsched::mpi::detail {

inline void sleep_ns(long ns) {
  const timespec t{0, ns};
  nanosleep(&t, nullptr);
}

// Waiting for another rank: yield for the first 2 ms (the thread stays
// runnable, so the answer is seen at once, and a thread with work on our core
// goes first), then sleep. A sleeper on a busy core may not run again before
// the next scheduler tick (4 ms at HZ=250), far longer than a claim, so sleep
// only when the wait is long anyway (like libomp's KMP_BLOCKTIME spin).
class back_off {
 public:
  void operator()() {
    const std::int64_t now = omp::bridge::now_ns();
    if (since_ == 0) since_ = now;
    if (now - since_ < 2'000'000) sched_yield();
    else sleep_ns(50'000);
  }

 private:
  std::int64_t since_ = 0;
};

}  // namespace selfsched::mpi::detail

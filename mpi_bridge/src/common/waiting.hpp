// Waiting for another rank, in the MPI bridge's threads (the clients, the
// checkpoints, the progress thread).
#pragma once

#include <sched.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "selfsched/bridge.hpp"  // the clock

namespace selfsched::mpi::detail {

inline void sleep_ns(long ns) {
  const timespec t{0, ns};
  nanosleep(&t, nullptr);
}

// Whether the time from asking another rank to taking its answer (`now`)
// measures the round trip when the asker did not wait for it: the answer
// came after the asker last looked and found none (`looked`, between its
// threads' claims), and that window is at most a quarter of the time.
// A rank of one thread that asks for its next chunk as it starts the current
// one takes the answer only after computing: counting that as the round
// trip made the next ask earlier still, and the rank then held a chunk
// through its whole computing (seed 004's setting under SMPI, 8,192 ranks).
inline bool round_trip_timed(std::int64_t asked, std::int64_t looked, std::int64_t now) {
  return 4 * (now - looked) <= now - asked;
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

// How a serving rank's progress thread waits after a poll that found
// nothing, by how long it has been quiet (engine::serve_forever; sim/smpi's
// serving ranks can wait the same way). While requests flow (one in the last
// ms) it stays runnable, yielding to the rank's computing threads; then it
// naps, longer the longer it is quiet (a sleeper may wake only at the next
// tick on a busy core: back_off). Quiet for long (between loops, in serial
// code), it sleeps until this rank begins a loop, or 2 ms: another rank's
// first request of a loop that this rank has not begun yet waits that long
// at most. Serving for a program elsewhere (cluster mode's agent), the
// program's threads own the cores and ask for their next chunk ahead:
// shorter yielding and longer naps there (at 1 ms and 20 us, rank 0's
// program thread was switched out about 1,800 times a second).
struct serving_pause {
  enum kind { yield, nap, until_activity } what;
  std::int64_t ns;  // a nap's length; the longest sleep until activity
};

inline serving_pause pause_when_quiet(std::int64_t quiet_ns, bool program_elsewhere) {
  if (quiet_ns < (program_elsewhere ? 100'000 : 1'000'000)) return {serving_pause::yield, 0};
  if (quiet_ns < 20'000'000) return {serving_pause::nap, program_elsewhere ? 100'000 : 20'000};
  return {serving_pause::until_activity, 2'000'000};
}

// A sleep that this process's own activity ends at once: the progress
// thread, quiet for long, sleeps here instead of waking every few hundred
// microseconds (each wake-up takes the core from the rank's computing
// threads: on a paravirtualized VM, short sleeps made a program's page
// faults a third slower), and the rank's next loop wakes it as it begins.
class wake_on_activity {
 public:
  void sleep_up_to(std::chrono::nanoseconds longest) {
    std::unique_lock hold(mutex_);
    woken_.wait_for(hold, longest, [this] { return activity_; });
    activity_ = false;
  }
  void wake() {
    {
      std::lock_guard hold(mutex_);
      activity_ = true;
    }
    woken_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable woken_;
  bool activity_ = false;
};

}  // namespace selfsched::mpi::detail

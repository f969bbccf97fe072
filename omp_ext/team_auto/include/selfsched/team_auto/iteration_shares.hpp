// auto's iterations not yet handed out, as one contiguous share per thread,
// stolen from when a thread's own share runs dry.
//
// A thread takes its chunks from the front of its own share, so its chunks
// are neighbours (no cache line written by two threads at each chunk
// boundary), and in a time-stepped loop it runs the same iterations at
// every step, as under static. A thread whose share is empty moves the back
// half of the largest share left into its own (work stealing, as libomp's
// static_steal behind `nonmonotonic:dynamic`), so no thread idles while
// another has iterations not yet begun; the chunk rule (auto_tuning.hpp)
// still bounds what any thread holds at once.
//
// A thread's chunks then need not come in increasing order: only for loops
// whose schedule allows it (OpenMP's nonmonotonic, the default of dynamic
// and runtime schedules since OpenMP 5.0). One order stays: the loop's last
// chunk is handed out after all others and is its thread's last, since
// lastprivate copies out the private value of the thread that ran it (clang
// asks which thread got the last chunk, GCC whose last chunk ended the loop).
#pragma once

#include <atomic>
#include <memory>
#include <span>

#include "selfsched/core/technique.hpp"
#include "selfsched/machine/spin.hpp"

namespace selfsched::omp {

class iteration_shares {
 public:
  // [0, n) split equally among `threads` shares, but for the last `least`
  // iterations (the loop's minimum chunk), kept back as its last chunk. Not
  // concurrent with the calls below: the loop's first thread calls it
  // before the others enter. With a granule (loop_params::granule) every
  // share, stolen half and kept-back start is at a multiple of it, so chunks
  // of whole granules taken from a share stay whole.
  void split(iter_t n, int threads, iter_t least, iter_t granule = 1);

  // At most `wanted` iterations from the front of thread `thread`'s share;
  // size 0 when it is empty.
  chunk take(int thread, iter_t wanted);

  // Thread `thread`'s share is empty: true when the back half of the
  // largest share (all of it, were a half below `least`) is now its own.
  // Otherwise `last` is the loop's last chunk, handed to one thread once
  // every share is empty, or size 0: nothing is left that another thread
  // has not begun, or this thread ran the last chunk.
  bool refill(int thread, iter_t least, chunk& last);

 private:
  struct alignas(64) share {
    spin_lock lock;
    // Written under lock; thieves read them without it to pick a victim.
    std::atomic<iter_t> begin{0}, end{0};
    bool ran_last = false;  // read and written by its owner only
  };

  std::unique_ptr<share[]> shares_;
  int capacity_ = 0;
  int threads_ = 0;
  iter_t last_begin_ = 0, n_ = 0;  // the kept-back last chunk: [last_begin_, n_)
  iter_t granule_ = 1;
  std::atomic<bool> last_taken_{false};
};

}  // namespace selfsched::omp

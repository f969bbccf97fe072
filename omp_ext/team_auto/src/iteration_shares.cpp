#include "selfsched/team_auto/iteration_shares.hpp"

#include <algorithm>
#include <mutex>

namespace selfsched::omp {

void iteration_shares::split(iter_t n, int threads, iter_t least, iter_t granule) {
  if (threads > capacity_) {  // the first loop of a larger team: cold
    shares_ = std::make_unique<share[]>(static_cast<std::size_t>(threads));
    capacity_ = threads;
  }
  threads_ = threads;
  n_ = n;
  granule_ = std::max<iter_t>(granule, 1);
  last_begin_ = std::max<iter_t>(n - std::clamp<iter_t>(least, 1, std::max<iter_t>(n, 1)), 0) / granule_ * granule_;
  last_taken_.store(n == 0, std::memory_order_relaxed);
  const iter_t units = last_begin_ / granule_;
  const iter_t each = units / threads, more = units % threads;  // the first `more` shares get one more
  iter_t begin = 0;
  for (int k = 0; k < threads; ++k) {
    const iter_t end = begin + (each + (k < more ? 1 : 0)) * granule_;
    shares_[k].begin.store(begin, std::memory_order_relaxed);
    shares_[k].end.store(end, std::memory_order_relaxed);
    shares_[k].ran_last = false;
    begin = end;
  }
}

chunk iteration_shares::take(int thread, iter_t wanted) {
  share& mine = shares_[thread];
  std::lock_guard guard(mine.lock);
  const iter_t begin = mine.begin.load(std::memory_order_relaxed);
  const iter_t end = mine.end.load(std::memory_order_relaxed);
  if (begin >= end) return {0, 0};
  const iter_t size = std::min(wanted, end - begin);
  mine.begin.store(begin + size, std::memory_order_relaxed);
  return {begin, size};
}

// Only the owner refills its own share, and only when it is empty; thieves
// only shrink shares. So a share seen empty is either done or its owner's
// to refill: a thread that finds every share empty may leave, and whatever
// was moved meanwhile is run by the thread that moved it.
bool iteration_shares::refill(int thread, iter_t least, chunk& last) {
  last = {0, 0};
  share& mine = shares_[thread];
  if (mine.ran_last) return false;
  for (;;) {
    int victim = -1;
    iter_t most = 0;
    for (int k = 0; k < threads_; ++k) {
      const iter_t left =
          shares_[k].end.load(std::memory_order_relaxed) - shares_[k].begin.load(std::memory_order_relaxed);
      if (left > most) most = left, victim = k;
    }
    if (victim < 0) {  // all handed out but the last chunk
      if (!last_taken_.exchange(true, std::memory_order_relaxed)) {
        mine.ran_last = true;
        last = {last_begin_, n_ - last_begin_};
      }
      return false;
    }
    iter_t from = 0, to = 0;
    {
      share& theirs = shares_[victim];
      std::lock_guard guard(theirs.lock);
      const iter_t begin = theirs.begin.load(std::memory_order_relaxed);
      to = theirs.end.load(std::memory_order_relaxed);
      if (begin >= to) continue;  // emptied meanwhile: look again
      // The back half (from a whole granule); all of it when halves would
      // fall below the minimum chunk (its owner is busy with a chunk of its
      // own meanwhile).
      const iter_t front = (to - begin) / 2 / granule_ * granule_;
      from = front >= least ? begin + front : begin;
      theirs.end.store(from, std::memory_order_relaxed);
    }
    std::lock_guard guard(mine.lock);
    mine.begin.store(from, std::memory_order_relaxed);
    mine.end.store(to, std::memory_order_relaxed);
    return true;
  }
}

}  // namespace selfsched::omp

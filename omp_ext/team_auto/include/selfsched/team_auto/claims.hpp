// One claim of a thread in an `auto` loop: the next chunk from its own
// share (nonmonotonic loops, iteration_shares.hpp) or from the loop's count
// in order (monotonic loops), as large as the core's chunk rule allows
// (auto_tuning.hpp: balance at the team's rate, ramp from the thread's own).
//
// The same code serves libselfsched's threads (omp_ext/loops/loop.cpp) and
// the simulator's (sim/src/threads.cpp): it reads no clock and keeps no
// team. The caller passes when the thread asked and a `settle` callable that
// returns the clock once the claim is done (the runtime reads its clock
// again; the simulator charges the claim's simulated cost first), and a
// loop state with these members, set up by start_loop():
//
//   iter_t n;                          the loop's iterations
//   loop_params params;                min_chunk, max_chunk, granule (clamp_chunk)
//   std::atomic<iter_t> next_step;     iterations handed out, from 0
//   std::int64_t started_ns;           when the loop was set up
//   double learned_rate;               the team's rate in the site's last instance (0: none)
//   bool steals;                       nonmonotonic: claims from shares
//   iteration_shares shares;
//
// and a cursor per thread with `estimate` (auto_estimate), `running_size`
// and `running_since` (the chunk it runs and when it got it, ns).
// Templates, inlined where called, so that the runtime's claim compiles as
// it did when this code was its own (static functions in loop.cpp, inlined
// into its one caller): callgrind counts the same instructions a claim.
#pragma once

#define SELFSCHED_TEAM_AUTO_INLINE [[gnu::always_inline]] inline

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "selfsched/core/auto_tuning.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/team_auto/iteration_shares.hpp"

namespace selfsched::omp::team_auto {

// The loop's first thread, before the others enter (next_step already 0).
template <typename Loop>
void start_loop(Loop& loop, int team_size, bool nonmonotonic, std::int64_t now) {
  loop.steals = nonmonotonic;
  if (loop.steals) loop.shares.split(loop.n, team_size, loop.params.min_chunk, loop.params.granule);
  loop.started_ns = now;
}

// The team's rate over an instance of the loop, kept for the next one at
// its site (iterations a second).
inline double instance_rate(iter_t n, std::int64_t started, std::int64_t ended) {
  return static_cast<double>(n) * 1e9 / static_cast<double>(ended - started);
}

template <typename Loop>
SELFSCHED_TEAM_AUTO_INLINE double team_rate_at(const Loop& loop, iter_t claimed, std::int64_t asked) {
  const std::int64_t elapsed = asked - loop.started_ns;
  // Early on the iterations handed out run ahead of those done: the rate
  // reads high and the balance bound small, the safe side.
  return claimed > 0 && elapsed > 0 ? static_cast<double>(claimed) * 1e9 / static_cast<double>(elapsed)
                                    : loop.learned_rate;
}

// Monotonic loops: one CAS on the count (a CAS, not a fetch-and-add, so the
// count never passes n and a chunk is never larger than what remains).
template <typename Loop>
SELFSCHED_TEAM_AUTO_INLINE chunk claim_in_order(Loop& loop, auto_estimate& estimate, std::int64_t asked) {
  iter_t claimed = loop.next_step.load(std::memory_order_relaxed);
  while (claimed < loop.n) {
    const iter_t remaining = loop.n - claimed;
    const iter_t wanted =
        auto_tuning::next_size(estimate, remaining, team_rate_at(loop, claimed, asked), loop.params.min_chunk);
    const iter_t size = clamp_chunk(wanted, remaining, loop.params);
    if (loop.next_step.compare_exchange_weak(claimed, claimed + size, std::memory_order_relaxed)) {
      estimate.record_size(wanted);
      return {claimed, size};
    }
  }
  return {loop.n, 0};
}

// Nonmonotonic loops: from the thread's own share, else from a share
// stolen into it (iteration_shares.hpp).
template <typename Loop>
SELFSCHED_TEAM_AUTO_INLINE chunk claim_from_shares(Loop& loop, int thread, auto_estimate& estimate, std::int64_t asked) {
  const iter_t claimed = loop.next_step.load(std::memory_order_relaxed);
  const double team_rate = team_rate_at(loop, claimed, asked);
  const iter_t remaining = std::max<iter_t>(loop.n - claimed, 1);
  for (;;) {
    const iter_t wanted = auto_tuning::next_size(estimate, remaining, team_rate, loop.params.min_chunk);
    chunk c = loop.shares.take(thread, clamp_chunk(wanted, loop.n, loop.params));
    if (c.size == 0) {
      if (loop.shares.refill(thread, loop.params.min_chunk, c)) {  // stolen: measured again, from the minimum
        estimate.restart_elsewhere();
        continue;
      }
      if (c.size == 0) return {loop.n, 0};  // else c is the loop's last chunk
    }
    loop.next_step.fetch_add(c.size, std::memory_order_relaxed);
    estimate.record_size(wanted);
    return c;
  }
}

// Thread `thread`'s next chunk, asked for at `asked` (ns): the chunk it ran
// is measured first, then the claim's own cost (to settle()'s reading).
// Size 0: nothing is left for it.
template <typename Loop, typename Cursor, typename Settle>
SELFSCHED_TEAM_AUTO_INLINE chunk claim(Loop& loop, int thread, Cursor& cursor, std::int64_t asked, Settle settle) {
  if (cursor.running_size > 0)
    cursor.estimate.record_chunk(cursor.running_size, static_cast<double>(asked - cursor.running_since) * 1e-9);
  const chunk c = loop.steals ? claim_from_shares(loop, thread, cursor.estimate, asked)
                              : claim_in_order(loop, cursor.estimate, asked);
  const std::int64_t got = settle();
  cursor.estimate.record_claim(static_cast<double>(got - asked) * 1e-9);
  cursor.running_size = c.size;
  cursor.running_since = got;
  return c;
}

}  // namespace selfsched::omp::team_auto

#undef SELFSCHED_TEAM_AUTO_INLINE

// One loop instance shared by a team: where its chunks come from. A thread
// enters the team's next loop slot (team_state.hpp) and claims its chunks
// there, by one of three paths chosen once per instance (docs/architecture.md).
#pragma once

#include <atomic>
#include <cstdint>

#include "state/active_schedule.hpp"
#include "state/team_state.hpp"

namespace selfsched::omp {

namespace detail {
// begin_loop's cold parts: the first thread to reach a slot sets it up, the
// others wait until it is ready (or, ahead of the team, until the instance a
// ring before left it); loops that time, profile or run doacross join them.
void enter_slot(membership& m, loop_slot& slot, std::uint64_t instance, loop_site site,
                const active_schedule& technique, iter_t n, iter_t clause_chunk, chunk_order order);
void join_measured_loop(membership& m, loop_slot& slot);
}

// Enters the team's next selfsched loop of n iterations with `technique`.
// `clause_chunk` is the chunk written in the schedule clause (a minimum).
// The caller then stores the loop's bounds in m.loop.lower / m.loop.stride.
// Inline: a loop run again (every time step) costs a few loads and stores.
inline void begin_loop(membership& m, loop_site site, const active_schedule& technique, iter_t n,
                       iter_t clause_chunk, chunk_order order) {
  const std::uint64_t instance = m.loops_entered++;
  loop_slot& slot = m.team->slot(instance);
  if (technique.reads_placement) m.team->placement.note(m.thread_num);  // whoever sets the loop up reads our CPU
  if (slot.sequence.load(std::memory_order_acquire) != loop_slot::ready(instance))
    detail::enter_slot(m, slot, instance, site, technique, n, clause_chunk, order);
  m.loop.enter(slot, instance);
  if (slot.self_tuning || slot.profile != nullptr || m.doacross.mode == doacross_thread::state::pending)
    detail::join_measured_loop(m, slot);
}

// The hot path. size == 0: this thread is done with the loop.
chunk claim_next_chunk_slow(membership& m);
chunk claim_tuned_chunk(membership& m);
void leave_plain_loop(membership& m);

// Chunk `step` of a plain plan of equal chunks (uniform_size > 0): one
// multiply; size 0 past the last.
inline chunk uniform_chunk(const loop_slot& slot, iter_t step) {
  return step < slot.chunk_count ? chunk{step * slot.uniform_size, slot.uniform_size} : chunk{slot.n, 0};
}

inline chunk claim_next_chunk(membership& m) {
  loop_slot& slot = *m.loop.slot;
  if (!slot.plain_plan) return slot.self_tuning ? claim_tuned_chunk(m) : claim_next_chunk_slow(m);
  const iter_t step = slot.next_step.fetch_add(1, std::memory_order_relaxed);
  chunk c;
  if (slot.uniform_size > 0)
    c = uniform_chunk(slot, step);
  else
    c = slot.plan->at(step, m.loop.plan_hint);
  if (c.size == 0) leave_plain_loop(m);
  return c;
}

}  // namespace selfsched::omp

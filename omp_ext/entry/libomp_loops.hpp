// What serving a libomp loop takes, however the loop reaches selfsched:
// through the interposed __kmpc_dispatch_* entry points (kmpc.cpp) or
// through a patched libomp's registered schedules (libomp_hooks.cpp). One
// decision and one start for both.
#pragma once

#include <cstdint>
#include <type_traits>

#include "loops/loop.hpp"
#include "runtime/libomp_abi.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {

// Could a loop of this schedule kind (as the compiler passed it) be ours?
// Modifier bits are masked: clang marks schedule(runtime) nonmonotonic by
// default, and that must never turn a chosen technique off.
inline bool served_kind(int schedule) {
  const int kind = sched::without_modifiers(schedule);
  if (kind == sched::runtime) return true;
  if (kind == sched::auto_kind) return auto_schedule() != nullptr;
  const settings& s = current_settings();
  if (s.override_dynamic && kind == sched::dynamic_chunked) return true;
  return s.override_guided &&
         (kind == sched::guided_chunked || kind == sched::guided_iterative || kind == sched::guided_analytical);
}

// The technique for such a loop of m's team: selfsched's auto for
// schedule(auto), else the team's (nullptr: none, the loop is libomp's).
inline const active_schedule* technique_for_loop(const membership& m, int schedule) {
  return sched::without_modifiers(schedule) == sched::auto_kind ? auto_schedule() : technique_in_force(m);
}

// Said once, when a loop selfsched should serve goes to libomp because
// selfsched cannot tell the thread's team.
void explain_untracked_team();

// Enters m's team's next loop of n iterations with `technique`; the chunk
// written in the clause and the chunk order follow from `schedule`.
inline void begin_libomp_loop(membership& m, loop_site site, const active_schedule& technique, iter_t n, int schedule,
                       std::int64_t chunk) {
  const int kind = sched::without_modifiers(schedule);
  // runtime and auto loops carry no chunk of their own (clang passes 1).
  const bool chunk_written = kind != sched::auto_kind && kind != sched::runtime;
  // Nonmonotonic only where the compiler says so: clang marks dynamic,
  // guided, runtime and auto loops nonmonotonic from OpenMP 5.0 on, unless
  // written monotonic; a program built for OpenMP 4.5 carries no modifier
  // and expects monotonic order, as does a doacross loop (ordered(n)).
  const bool monotonic = (schedule & sched::modifier_nonmonotonic) == 0 ||
                         m.doacross.mode == doacross_thread::state::pending;
  begin_loop(m, site, technique, n, chunk_written ? static_cast<iter_t>(chunk) : 1,
             monotonic ? chunk_order::monotonic : chunk_order::nonmonotonic);
}

namespace detail {

// A chunk in the loop's own terms, as libomp's __kmpc_dispatch_next_*
// answers (p_last and p_st may be null).
template <typename T, typename ST>
inline int write_libomp_chunk(const membership& m, iter_t n, chunk c, std::int32_t* p_last, T* p_lb, T* p_ub,
                              ST* p_st) {
  using U = std::make_unsigned_t<T>;
  const U lower = static_cast<U>(m.loop.lower);
  const U stride = static_cast<U>(m.loop.stride);
  *p_lb = static_cast<T>(lower + static_cast<U>(c.start) * stride);
  *p_ub = static_cast<T>(lower + static_cast<U>(c.start + c.size - 1) * stride);
  if (p_st != nullptr) *p_st = static_cast<ST>(m.loop.stride);
  if (p_last != nullptr) *p_last = c.start + c.size == n;
  return 1;
}

// Every claim path but the plain plan's equal chunks (loop.hpp).
template <typename T, typename ST>
[[gnu::noinline]] int next_libomp_chunk_general(membership& m, std::int32_t* p_last, T* p_lb, T* p_ub, ST* p_st) {
  const iter_t n = m.loop.slot->n;
  const chunk c = claim_next_chunk(m);  // may leave the loop: read nothing of it after
  if (c.size == 0) return 0;
  return write_libomp_chunk(m, n, c, p_last, p_lb, p_ub, p_st);
}

[[gnu::noinline]] inline int leave_plain_loop_done(membership& m) {
  leave_plain_loop(m);
  return 0;
}

}  // namespace detail

// m's next chunk of its loop in the loop's own terms, as libomp's
// __kmpc_dispatch_next_* answers (p_last and p_st may be null); 0 when the
// thread is done. The bounds come from m.loop.lower and m.loop.stride.
// Equal chunks of a plain plan (ss, css, static) are claimed here with one
// fetch-and-add and no call; every other path is one jump away.
template <typename T, typename ST>
inline int next_libomp_chunk(membership& m, std::int32_t* p_last, T* p_lb, T* p_ub, ST* p_st) {
  loop_slot& slot = *m.loop.slot;
  if (!slot.plain_plan || slot.uniform_size <= 0) return detail::next_libomp_chunk_general(m, p_last, p_lb, p_ub, p_st);
  const chunk c = uniform_chunk(slot, slot.next_step.fetch_add(1, std::memory_order_relaxed));
  if (c.size == 0) return detail::leave_plain_loop_done(m);
  return detail::write_libomp_chunk(m, slot.n, c, p_last, p_lb, p_ub, p_st);
}

}  // namespace selfsched::omp

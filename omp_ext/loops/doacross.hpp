// Doacross loops, `ordered(n)` with depend(sink: ...) and depend(source)
// (OpenMP 4.5 sec. 2.13.8), in loops selfsched schedules, from clang
// (libomp's __kmpc_doacross_*) and from GCC (libgomp's GOMP_doacross_*).
//
// clang calls __kmpc_doacross_init before __kmpc_dispatch_init, so a thread
// keeps its doacross_init arguments (pending) until dispatch_init decides
// whose loop it is. Ours: the loop slot serves wait/post itself (below).
// libomp's: the arguments go to libomp's doacross_init then, before any
// wait. schedule(static) loops never call dispatch_init: their first doacross
// call hands the arguments to libomp.
//
// Bounds. libomp reads kmp_dim as inclusive bounds [lo, up] (its own GOMP
// shim passes up = count - 1), but clang passes lo = 0, up = the trip count,
// st = 1. libomp therefore sees one phantom iteration per dimension that
// nobody posts, and a sink landing on it (depend(sink: i-1, j+1) at the last
// j) waits forever. For our loops the dispatched trip count tells which
// convention the compiler used, and a sink outside the real iteration space
// is satisfied at once, as OpenMP requires.
//
// GCC. GOMP_loop_doacross_runtime_start brings the trip counts of the
// ordered loops (from 0 by 1; collapsed loops come as one) with the loop
// itself, so whether a loop is ours is known at once; post and wait take
// logical iteration numbers, and GOMP_loop_end ends the loop (no fini).
// gomp.cpp decides before the loop starts that it can be served, so a GCC
// loop is never handed back: libgomp could not take it over half begun.
//
// Progress. Each row (one iteration of the dispatched, possibly collapsed,
// loops) runs on one thread in order, so one counter per row, "inner
// iterations done", is the whole state: a sink waits for its row's counter
// to pass it. Under an s-/sw- technique (mechanism S, seed 000 sec. 3) a row
// publishes its counter only every SI = ceil(inner / #SP) iterations and at
// its end, instead of at every depend(source).
#pragma once

#include <cstdint>

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/spec.hpp"
#include "state/doacross_state.hpp"

namespace selfsched::omp {

struct membership;

// Slot set-up, by the thread that sets the slot up: n rows dispatched.
void doacross_set_up(doacross_loop& loop, const doacross_thread& setter, iter_t n, int team_size,
                     const schedule_spec& spec, bool fed_from_outside);
// Every thread, once the slot is ready.
void doacross_join(doacross_thread& thread, const doacross_loop& loop);
// dispatch_init did not take the loop: libomp serves its doacross.
void doacross_not_ours(membership* m);

// The entry points (kmpc.cpp).
void doacross_init(ident_t* loc, std::int32_t gtid, std::int32_t num_dims, const kmp_dim* dims);
void doacross_wait(ident_t* loc, std::int32_t gtid, const std::int64_t* vec);
void doacross_post(ident_t* loc, std::int32_t gtid, const std::int64_t* vec);
void doacross_fini(ident_t* loc, std::int32_t gtid);

// libgomp's (gomp.cpp). A loop of `rows` dispatched rows whose progress
// counters selfsched keeps (beyond, libgomp serves it).
bool gomp_doacross_fits(iter_t rows);
// Before begin_loop: this thread's loop is ordered over `counts`.
void gomp_doacross_begin(doacross_thread& t, int dims, const iter_t* counts);
// Is the calling thread in a doacross loop selfsched serves?
inline bool doacross_ours(const doacross_thread& t) { return t.mode == doacross_thread::state::ours; }
// In such a loop: depend(sink: vec) and depend(source: vec), logical
// iteration numbers.
void gomp_doacross_wait(membership& m, const std::int64_t* vec);
void gomp_doacross_post(membership& m, const std::int64_t* vec);
// GOMP_loop_end*: the loop is over for this thread.
inline void gomp_doacross_end(doacross_thread& t) { t.mode = doacross_thread::state::none; }

}  // namespace selfsched::omp

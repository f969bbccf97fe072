// The part of libgomp's ABI that GCC-generated loops call (GCC 9 and later,
// gfortran alike): its types and schedule numbers (real_libgomp.hpp has
// libgomp's own entry points, which selfsched forwards to).
//
// libgomp lowers `for i in [start, end) by incr` loops: a thread asks for its
// first chunk with GOMP_loop_*_start and the next ones with GOMP_loop_*_next
// (each returns false when there is none), and every thread ends the loop
// with GOMP_loop_end (a barrier) or GOMP_loop_end_nowait. Chunks are
// [istart, iend), iend exclusive. The ull forms take `up` (false: counting
// down, incr is negative in two's complement).
#pragma once

namespace selfsched::omp {

using gomp_body = void (*)(void*);
using gomp_ull = unsigned long long;

// libgomp.h: enum gomp_schedule_type, as GOMP_loop_start receives it.
namespace gomp_sched {
constexpr long runtime = 0;
constexpr long dynamic = 2;
constexpr long guided = 3;
constexpr long monotonic_flag = 0x80000000L;
constexpr long without_modifiers(long kind) { return kind & ~monotonic_flag; }
}  // namespace gomp_sched

}  // namespace selfsched::omp

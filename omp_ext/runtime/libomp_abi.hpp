// The part of libomp's ABI that clang-generated loops call: the types and
// numbers of kmp.h that selfsched reads (real_libomp.hpp has libomp's own
// entry points, which selfsched forwards to).
#pragma once

#include <compare>
#include <cstdint>

namespace selfsched::omp {

// kmp.h: ident_t, the source location clang passes to every entry point.
struct ident_t {
  std::int32_t reserved_1;
  std::int32_t flags;
  std::int32_t reserved_2;
  std::int32_t reserved_3;
  const char* psource;  // ";file;function;line;col;;" or ";unknown;unknown;0;0;;"
};

// A loop in the program: clang's ident_t, plus the address the dispatch
// call returns to. Without debug info clang gives every loop of a function
// the same ident_t (";unknown;unknown;0;0;;"), so the ident alone would mix
// two loops' histories; the return address tells them apart.
struct loop_site {
  const ident_t* ident = nullptr;
  const void* call = nullptr;
  auto operator<=>(const loop_site&) const = default;
};

// kmp.h: enum sched_type, the values we look at.
namespace sched {
constexpr int dynamic_chunked = 35;
constexpr int guided_chunked = 36;
constexpr int runtime = 37;
constexpr int auto_kind = 38;  // schedule(auto)
constexpr int guided_iterative = 42;
constexpr int guided_analytical = 43;
constexpr int modifier_monotonic = 1 << 29;
constexpr int modifier_nonmonotonic = 1 << 30;
constexpr int without_modifiers(int kind) { return kind & ~(modifier_monotonic | modifier_nonmonotonic); }
}  // namespace sched

// omp.h: omp_sched_t, the kinds omp_set_schedule and omp_get_schedule take
// (kmpc.cpp defines those functions itself, so omp.h stays out).
namespace omp_sched {
constexpr int dynamic = 2;
constexpr int auto_kind = 4;
constexpr int monotonic = static_cast<int>(0x80000000u);  // modifier bit
}  // namespace omp_sched

// kmp.h: struct kmp_dim, one loop of a doacross nest (ordered(n)). libomp
// reads [lo, up] as inclusive bounds; clang passes lo = 0, up = the trip
// count, st = 1 (doacross.hpp).
struct kmp_dim {
  std::int64_t lo;
  std::int64_t up;
  std::int64_t st;
};

// kmp.h of a libomp built with patches/0001 (registered loop schedules):
// a loop described to a schedule (trip count, and lb + i * st in its own
// type); the schedule's callbacks; the registration entry point (nullptr in
// a stock libomp).
struct kmp_loop_schedule_loop {
  const ident_t* loc;
  void* codeptr_ra;
  void* team;
  std::int32_t gtid;
  std::int32_t tid;
  std::int32_t nproc;
  std::int32_t schedule;  // as the compiler passed it
  std::uint64_t trip_count;
  std::uint64_t lb;  // the lower bound, as the bits of the loop's type
  std::int64_t st;
  std::int64_t chunk;  // run-sched-var's (0: none given), or the written one
};
constexpr std::uint32_t loop_schedule_takes_auto = 0x1;
constexpr std::uint32_t loop_schedule_takes_dynamic = 0x2;
constexpr std::uint32_t loop_schedule_takes_guided = 0x4;
struct kmp_loop_schedule {
  const char* name;
  std::uint32_t flags;
  void* data;
  int (*init)(void* data, const kmp_loop_schedule_loop* loop, void** thread_data);
  // The next chunk for each loop form, as __kmpc_dispatch_next_* answers.
  int (*next_4)(void* thread_data, std::int32_t* p_last, std::int32_t* p_lb, std::int32_t* p_ub,
                std::int32_t* p_st);
  int (*next_4u)(void* thread_data, std::int32_t* p_last, std::uint32_t* p_lb, std::uint32_t* p_ub,
                 std::int32_t* p_st);
  int (*next_8)(void* thread_data, std::int32_t* p_last, std::int64_t* p_lb, std::int64_t* p_ub,
                std::int64_t* p_st);
  int (*next_8u)(void* thread_data, std::int32_t* p_last, std::uint64_t* p_lb, std::uint64_t* p_ub,
                 std::int64_t* p_st);
  void (*fini)(void* thread_data);
};
using register_loop_schedule_function = int (*)(const kmp_loop_schedule*);

}  // namespace selfsched::omp

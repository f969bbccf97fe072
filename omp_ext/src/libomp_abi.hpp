// The part of libomp's ABI that clang-generated loops call, and the real
// entry points we forward to (found with dlsym(RTLD_NEXT), so libselfsched
// works linked before libomp or preloaded into an unmodified binary).
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

struct real_entry_points {
  void (*init_4)(ident_t*, std::int32_t, int, std::int32_t, std::int32_t, std::int32_t, std::int32_t);
  void (*init_4u)(ident_t*, std::int32_t, int, std::uint32_t, std::uint32_t, std::int32_t, std::int32_t);
  void (*init_8)(ident_t*, std::int32_t, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  void (*init_8u)(ident_t*, std::int32_t, int, std::uint64_t, std::uint64_t, std::int64_t, std::int64_t);
  int (*next_4)(ident_t*, std::int32_t, std::int32_t*, std::int32_t*, std::int32_t*, std::int32_t*);
  int (*next_4u)(ident_t*, std::int32_t, std::int32_t*, std::uint32_t*, std::uint32_t*, std::int32_t*);
  int (*next_8)(ident_t*, std::int32_t, std::int32_t*, std::int64_t*, std::int64_t*, std::int64_t*);
  int (*next_8u)(ident_t*, std::int32_t, std::int32_t*, std::uint64_t*, std::uint64_t*, std::int64_t*);
  void (*fini_4)(ident_t*, std::int32_t);
  void (*fini_4u)(ident_t*, std::int32_t);
  void (*fini_8)(ident_t*, std::int32_t);
  void (*fini_8u)(ident_t*, std::int32_t);
  void (*deinit)(ident_t*, std::int32_t);  // libomp >= 18 only; may be null
  // distribute parallel for, as some compilers emit it (clang does not): libomp's.
  void (*dist_init_4)(ident_t*, std::int32_t, int, std::int32_t*, std::int32_t, std::int32_t, std::int32_t,
                      std::int32_t);
  void (*dist_init_4u)(ident_t*, std::int32_t, int, std::int32_t*, std::uint32_t, std::uint32_t, std::int32_t,
                       std::int32_t);
  void (*dist_init_8)(ident_t*, std::int32_t, int, std::int32_t*, std::int64_t, std::int64_t, std::int64_t,
                      std::int64_t);
  void (*dist_init_8u)(ident_t*, std::int32_t, int, std::int32_t*, std::uint64_t, std::uint64_t, std::int64_t,
                       std::int64_t);
  int (*get_num_threads)();
  void (*doacross_init)(ident_t*, std::int32_t, std::int32_t, const kmp_dim*);
  void (*doacross_wait)(ident_t*, std::int32_t, const std::int64_t*);
  void (*doacross_post)(ident_t*, std::int32_t, const std::int64_t*);
  void (*doacross_fini)(ident_t*, std::int32_t);
};

// Resolved on first use; aborts with a clear message if libomp is absent.
namespace detail {
extern real_entry_points resolved;  // filled when the library loads
const real_entry_points& resolve_real();
void resolve_libomp_at_load();  // start-up step (startup.cpp)
}
inline const real_entry_points& real() {
  return detail::resolved.next_8 != nullptr ? detail::resolved : detail::resolve_real();
}

}  // namespace selfsched::omp

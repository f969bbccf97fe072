// The libomp entry points selfsched interposes. clang lowers a
// schedule(runtime|dynamic|guided) loop to dispatch_init, then dispatch_next
// until it returns 0, then (clang >= 18) dispatch_deinit. Loops selfsched does
// not own go to libomp untouched.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "entry/kmpc.hpp"

#include "entry/libomp_hooks.hpp"
#include "entry/libomp_loops.hpp"
#include "learning/forwarded_profile.hpp"
#include "learning/profile.hpp"
#include "learning/sites.hpp"
#include "loops/doacross.hpp"
#include "runtime/libomp_abi.hpp"
#include "runtime/real_libomp.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched.h"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {

namespace {

// SELFSCHED_VERBOSE: which loop went to libomp and why, once per loop site.
// Cold and off the claim path: a forwarded loop's init pays one test.
enum class forwarded_because { written, no_team, no_technique, too_long };

[[gnu::cold, gnu::noinline]] void explain_forwarded(loop_site site, int schedule, forwarded_because because) {
  const int kind = sched::without_modifiers(schedule);
  const bool dynamic = kind == sched::dynamic_chunked;
  const bool guided =
      kind == sched::guided_chunked || kind == sched::guided_iterative || kind == sched::guided_analytical;
  const char* written = dynamic ? "schedule(dynamic)"
                        : guided ? "schedule(guided)"
                        : kind == sched::runtime ? "schedule(runtime)"
                        : kind == sched::auto_kind ? "schedule(auto)"
                        : kind >= 64 ? "ordered"
                                     : "schedule(static)";
  const char* why = because == forwarded_because::no_team ? "selfsched cannot tell its team"
                    : because == forwarded_because::no_technique ? "OMP_SCHEDULE names no selfsched technique"
                    : because == forwarded_because::too_long ? "its trip count does not fit 64 bits"
                    : dynamic ? "as written (SELFSCHED_OVERRIDE=dynamic hands it to selfsched)"
                    : guided ? "as written (SELFSCHED_OVERRIDE=guided hands it to selfsched)"
                    : kind >= 64 ? "ordered loops keep libomp's order"
                                 : "as written";
  explain_runtime_loop(site, "libomp", written, why);
}

// Iterations of lb..ub (inclusive) by st; false if it does not fit int64.
template <typename T, typename ST>
bool trip_count(T lb, T ub, ST st, iter_t& n) {
  using U = std::make_unsigned_t<T>;
  using UST = std::make_unsigned_t<ST>;
  if (st > 0 ? ub < lb : lb < ub) return n = 0, true;
  const std::uint64_t span = st > 0 ? std::uint64_t(U(ub) - U(lb)) : std::uint64_t(U(lb) - U(ub));
  const std::uint64_t step = st > 0 ? std::uint64_t(UST(st)) : std::uint64_t(UST(0) - UST(st));
  const std::uint64_t trips = span / step + 1;
  if (span / step == std::numeric_limits<std::uint64_t>::max() ||
      trips > std::uint64_t(std::numeric_limits<iter_t>::max()))
    return false;
  n = static_cast<iter_t>(trips);
  return true;
}

// A forwarded loop's schedule as written, for its profile: dynamic,4;
// a runtime loop's is OMP_SCHEDULE's (libomp's own kinds stay there).
[[gnu::cold]] std::string kind_text(int schedule, std::int64_t chunk) {
  const int kind = sched::without_modifiers(schedule);
  const std::string k = std::to_string(chunk);
  if (kind == sched::dynamic_chunked) return "dynamic," + k;
  if (kind == sched::guided_chunked || kind == sched::guided_iterative || kind == sched::guided_analytical)
    return "guided," + k;
  if (kind == sched::runtime) return runtime_schedule_text();
  return kind == sched::auto_kind ? "auto" : "kind " + std::to_string(kind);
}

// Out of line, its strings with it (see the tail call below).
[[gnu::noinline, gnu::cold]] void profile_forwarded_loop(membership& m, loop_site site, iter_t n, int schedule,
                                                         std::int64_t chunk) {
  forwarded_loop_begin(m, site, n, "libomp " + kind_text(schedule, chunk));
}

// m's next dispatch calls (next, deinit) are libomp's.
void hand_loop_to_libomp(membership* m) {
  if (m != nullptr) m->loop.slot = nullptr, m->last_loop_ours = false;
}

template <typename T, typename ST, typename Forward>
void dispatch_init(loop_site site, int schedule, T lb, T ub, ST st, ST chunk, Forward forward) {
  const bool could_be_ours = served_kind(schedule);
  membership* m = could_be_ours ? membership_for_new_loop() : teams_tracked() ? current_membership() : nullptr;
  const active_schedule* technique = !could_be_ours || m == nullptr ? nullptr : technique_for_loop(*m, schedule);
  iter_t n = 0;
  if (could_be_ours && m == nullptr) explain_untracked_team();
  if (technique == nullptr || m == nullptr || st == 0 || !trip_count(lb, ub, st, n)) {
    if (current_settings().verbose) [[unlikely]]
      explain_forwarded(site, schedule,
                        !could_be_ours         ? forwarded_because::written
                        : m == nullptr         ? forwarded_because::no_team
                        : technique == nullptr ? forwarded_because::no_technique
                                               : forwarded_because::too_long);
    hand_loop_to_libomp(current_membership());  // m, or a stale one left from before libomp ended our tool
    doacross_not_ours(m);  // its doacross_init, held back, goes to libomp first
    if (m != nullptr && profiling_forwarded()) [[unlikely]]
      profile_forwarded_loop(*m, site, st != 0 && trip_count(lb, ub, st, n) ? n : 0, schedule,
                             static_cast<std::int64_t>(chunk));
    // Last, as a tail call: libomp reports its caller's address to tools
    // (OMPT's codeptr_ra), which must be the program's loop, not ours. No
    // local's address may escape here, or the call could not be a tail call.
    forward();
    return;
  }
  begin_libomp_loop(*m, site, *technique, n, schedule, static_cast<std::int64_t>(chunk));
  m->loop.lower = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(lb));
  m->loop.stride = static_cast<std::int64_t>(st);
  m->last_loop_ours = true;
}

// The part of dispatch_next for loops we serve, out of line: the test in
// front of it and the forwarding then compile to tail jumps.
template <typename T, typename ST>
[[gnu::noinline]] int serve_next(membership* m, std::int32_t* p_last, T* p_lb, T* p_ub, ST* p_st) {
  return next_libomp_chunk(*m, p_last, p_lb, p_ub, p_st);
}

inline membership* serving() {
  membership* m = current_membership();
  return m != nullptr && m->loop.slot != nullptr ? m : nullptr;
}

// The four loop forms of the dispatch entry points (clang's 4, 4u, 8, 8u):
// suffix, bound type, stride type.
#define SELFSCHED_LOOP_FORMS(X)          \
  X(4, std::int32_t, std::int32_t)       \
  X(4u, std::uint32_t, std::int32_t)     \
  X(8, std::int64_t, std::int64_t)       \
  X(8u, std::uint64_t, std::int64_t)

// The entry points as libselfsched serves them when it interposes (a stock
// libomp): each is reached by a tail jump from the exported one below, so
// its return address is still the program's loop (the loop site, OMPT's
// codeptr_ra).
#define SELFSCHED_INTERPOSED_INIT(suffix, T, ST)                                                               \
  void interposed_init_##suffix(ident_t* loc, std::int32_t gtid, int schedule, T lb, T ub, ST st, ST chunk) { \
    dispatch_init({loc, __builtin_return_address(0)}, schedule, lb, ub, st, chunk,                             \
                  [&] { real().init_##suffix(loc, gtid, schedule, lb, ub, st, chunk); });                      \
  }
#define SELFSCHED_INTERPOSED_NEXT(suffix, T, ST)                                                               \
  int interposed_next_##suffix(ident_t* loc, std::int32_t gtid, std::int32_t* p_last, T* p_lb, T* p_ub,       \
                               ST* p_st) {                                                                     \
    if (membership* m = serving()) return serve_next(m, p_last, p_lb, p_ub, p_st);                            \
    return real().next_##suffix(loc, gtid, p_last, p_lb, p_ub, p_st);                                         \
  }
SELFSCHED_LOOP_FORMS(SELFSCHED_INTERPOSED_INIT)
SELFSCHED_LOOP_FORMS(SELFSCHED_INTERPOSED_NEXT)
#undef SELFSCHED_INTERPOSED_INIT
#undef SELFSCHED_INTERPOSED_NEXT

// clang >= 18 calls this after every dispatch loop; libomp < 18 lacks it, so
// a clang-19 binary also runs on libomp 14 with libselfsched loaded.
void interposed_deinit(ident_t* loc, std::int32_t gtid) {
  membership* m = current_membership();
  if (m != nullptr && m->last_loop_ours) return;
  if (m != nullptr && m->forwarded.record != nullptr) forwarded_loop_end(*m);
  if (real().deinit != nullptr) real().deinit(loc, gtid);
}

}  // namespace

// What the exported dispatch entry points run: libselfsched's own until
// start-up finds a libomp that took our schedules (libomp_hooks.hpp); then
// libomp decides every loop, and each entry point is one jump into libomp's,
// so a loop libomp serves costs what it costs without libselfsched.
struct dispatch_entry_points {
  decltype(real_entry_points::init_4) init_4 = interposed_init_4;
  decltype(real_entry_points::init_4u) init_4u = interposed_init_4u;
  decltype(real_entry_points::init_8) init_8 = interposed_init_8;
  decltype(real_entry_points::init_8u) init_8u = interposed_init_8u;
  decltype(real_entry_points::next_4) next_4 = interposed_next_4;
  decltype(real_entry_points::next_4u) next_4u = interposed_next_4u;
  decltype(real_entry_points::next_8) next_8 = interposed_next_8;
  decltype(real_entry_points::next_8u) next_8u = interposed_next_8u;
  decltype(real_entry_points::deinit) deinit = interposed_deinit;
};
// Named for the assembler (the jumps below); not exported (exports.map).
[[gnu::visibility("hidden")]] dispatch_entry_points dispatch asm("selfsched_dispatch_entry_points");

void hand_dispatch_to_runtime() {
  const real_entry_points& r = detail::resolved;
  if (r.next_8 == nullptr || r.deinit == nullptr) return;  // libomp not loaded yet: keep serving
  dispatch = {r.init_4, r.init_4u, r.init_8, r.init_8u, r.next_4, r.next_4u, r.next_8, r.next_8u, r.deinit};
}

}  // namespace selfsched::omp

using selfsched::omp::ident_t;
using selfsched::omp::real;
namespace so = selfsched::omp;

// Each exported dispatch entry point is one jump through its slot of
// `dispatch`, so the callee sees the program's return address (the loop
// site, OMPT's codeptr_ra). On x86-64 it is written out: clang makes a tail
// call through memory a load and a jump, and one instruction is what a
// chunk of a loop libomp serves may cost (patches/README.md).
#if defined(__x86_64__) && defined(__ELF__)
#if defined(__CET__) && (__CET__ & 1)
#define SELFSCHED_BRANCH_TARGET "endbr64\n"
#else
#define SELFSCHED_BRANCH_TARGET ""
#endif
#define SELFSCHED_JUMP_THROUGH(name, slot, ...)                                                                 \
  static_assert(offsetof(so::dispatch_entry_points, slot) == 8 * (__VA_ARGS__));                            \
  asm(".text\n.globl " #name "\n.type " #name ", @function\n.p2align 4\n" #name ":\n" SELFSCHED_BRANCH_TARGET \
      "jmp *selfsched_dispatch_entry_points+8*" #__VA_ARGS__ "(%rip)\n.size " #name ", .-" #name "\n");
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_init_4, init_4, 0)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_init_4u, init_4u, 1)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_init_8, init_8, 2)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_init_8u, init_8u, 3)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_next_4, next_4, 4)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_next_4u, next_4u, 5)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_next_8, next_8, 6)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_next_8u, next_8u, 7)
SELFSCHED_JUMP_THROUGH(__kmpc_dispatch_deinit, deinit, 8)
#undef SELFSCHED_JUMP_THROUGH
#else
extern "C" {
#if defined(__has_cpp_attribute) && __has_cpp_attribute(clang::musttail)
#define SELFSCHED_TAIL_CALL [[clang::musttail]]
#else
#define SELFSCHED_TAIL_CALL  // an optimizing build makes it a tail call anyway
#endif
#define SELFSCHED_EXPORT_INIT(suffix, T, ST)                                                                  \
  void __kmpc_dispatch_init_##suffix(ident_t* loc, std::int32_t gtid, int schedule, T lb, T ub, ST st, ST chunk) { \
    SELFSCHED_TAIL_CALL return so::dispatch.init_##suffix(loc, gtid, schedule, lb, ub, st, chunk);              \
  }
#define SELFSCHED_EXPORT_NEXT(suffix, T, ST)                                                                        \
  int __kmpc_dispatch_next_##suffix(ident_t* loc, std::int32_t gtid, std::int32_t* p_last, T* p_lb, T* p_ub,      \
                                    ST* p_st) {                                                                     \
    SELFSCHED_TAIL_CALL return so::dispatch.next_##suffix(loc, gtid, p_last, p_lb, p_ub, p_st);                    \
  }
SELFSCHED_LOOP_FORMS(SELFSCHED_EXPORT_INIT)
SELFSCHED_LOOP_FORMS(SELFSCHED_EXPORT_NEXT)
#undef SELFSCHED_EXPORT_INIT
#undef SELFSCHED_EXPORT_NEXT
void __kmpc_dispatch_deinit(ident_t* loc, std::int32_t gtid) { SELFSCHED_TAIL_CALL return so::dispatch.deinit(loc, gtid); }
}  // extern "C"
#endif

extern "C" {

// distribute parallel for through libomp's dist_dispatch (compilers other
// than clang emit it): always libomp's. Recorded, so that the next
// dispatch_next and dispatch_deinit go to libomp too.
#define SELFSCHED_FORWARD_DIST_INIT(suffix, T, ST)                                                              \
  void __kmpc_dist_dispatch_init_##suffix(ident_t* loc, std::int32_t gtid, int schedule, std::int32_t* p_last, \
                                          T lb, T ub, ST st, ST chunk) {                                       \
    so::hand_loop_to_libomp(so::current_membership());                                                          \
    real().dist_init_##suffix(loc, gtid, schedule, p_last, lb, ub, st, chunk);                                 \
  }
SELFSCHED_LOOP_FORMS(SELFSCHED_FORWARD_DIST_INIT)
#undef SELFSCHED_FORWARD_DIST_INIT

// Only ordered loops call fini, and those are always libomp's.
void __kmpc_dispatch_fini_4(ident_t* loc, std::int32_t gtid) { real().fini_4(loc, gtid); }
void __kmpc_dispatch_fini_4u(ident_t* loc, std::int32_t gtid) { real().fini_4u(loc, gtid); }
void __kmpc_dispatch_fini_8(ident_t* loc, std::int32_t gtid) { real().fini_8(loc, gtid); }
void __kmpc_dispatch_fini_8u(ident_t* loc, std::int32_t gtid) { real().fini_8u(loc, gtid); }

// Doacross loops (ordered(n) with depend(sink/source)): selfsched serves
// those it schedules, libomp the rest (doacross.hpp).
void __kmpc_doacross_init(ident_t* loc, std::int32_t gtid, std::int32_t num_dims, const so::kmp_dim* dims) {
  so::doacross_init(loc, gtid, num_dims, dims);
}
void __kmpc_doacross_wait(ident_t* loc, std::int32_t gtid, const std::int64_t* vec) {
  so::doacross_wait(loc, gtid, vec);
}
void __kmpc_doacross_post(ident_t* loc, std::int32_t gtid, const std::int64_t* vec) {
  so::doacross_post(loc, gtid, vec);
}
void __kmpc_doacross_fini(ident_t* loc, std::int32_t gtid) { so::doacross_fini(loc, gtid); }

// A standard kind chosen from code takes runtime loops back from selfsched,
// for the calling task's next regions, as libomp's own choice; but `auto`
// is selfsched's (as OMP_SCHEDULE=auto is), and a kind omp_get_schedule gave
// for a selfsched technique brings that technique back.
void omp_set_schedule(int kind, int chunk) {
  static const so::set_schedule_function runtime_own = so::runtime_set_schedule();
  // libomp with our schedules registered knows their kinds itself.
  if (so::runtime_hooks_in_use() && runtime_own != nullptr) return runtime_own(kind, chunk);
  const int plain_kind = kind & ~so::omp_sched::monotonic;
  const so::active_schedule* technique = so::technique_of_kind(plain_kind);
  if (technique == nullptr && plain_kind == so::omp_sched::auto_kind && so::auto_schedule() != nullptr)
    so::parse_technique("auto", chunk > 1 ? chunk : 0, "omp_set_schedule", technique);
  if (technique != nullptr) {
    so::set_task_technique(technique);
    so::read_what_loops_need(technique);
    return;
  }
  so::set_task_technique(nullptr);
  if (runtime_own != nullptr) runtime_own(kind, chunk);
}

// The calling task's schedule: selfsched's auto as OpenMP's auto, any other
// technique as its own kind (and its ",k", else 0), never as the `dynamic`
// OMP_SCHEDULE was rewritten to.
void omp_get_schedule(int* kind, int* chunk) {
  static const so::get_schedule_function runtime_own = so::runtime_get_schedule();
  if (so::runtime_hooks_in_use() && runtime_own != nullptr) return runtime_own(kind, chunk);
  if (const so::active_schedule* technique = so::tool_ended_for_good() ? nullptr : so::task_technique()) {
    const bool standard_auto = so::is_plain_auto(technique->spec);
    const std::int64_t k = standard_auto ? std::max<std::int64_t>(technique->spec.min_chunk, 1)
                                         : technique->spec.min_chunk;  // auto's default minimum, as libomp says 1
    if (kind != nullptr) *kind = standard_auto ? so::omp_sched::auto_kind : so::technique_kind(technique);
    if (chunk != nullptr) *chunk = static_cast<int>(std::min<std::int64_t>(k, INT_MAX));
    return;
  }
  if (runtime_own != nullptr) runtime_own(kind, chunk);
}

// The Fortran bindings (omp_lib), by reference; libgomp's _8_ forms take an
// integer(8) chunk (-fdefault-integer-8). Both runtimes forward these to
// their C functions, as these do to ours.
void omp_set_schedule_(const int* kind, const int* chunk) { omp_set_schedule(*kind, *chunk); }
void omp_get_schedule_(int* kind, int* chunk) { omp_get_schedule(kind, chunk); }
void omp_set_schedule_8_(const int* kind, const std::int64_t* chunk) {
  omp_set_schedule(*kind, static_cast<int>(std::clamp<std::int64_t>(*chunk, INT_MIN, INT_MAX)));
}
void omp_get_schedule_8_(int* kind, std::int64_t* chunk) {
  int value = 0;
  omp_get_schedule(kind, &value);
  *chunk = value;
}

int selfsched_set_schedule(const char* name, long chunk) {
  const so::active_schedule* technique = nullptr;
  if (!so::parse_technique(name, chunk, "selfsched_set_schedule", technique)) return -1;
  if (so::runtime_hooks_in_use()) {
    if (!so::set_runtime_schedule(technique)) return -1;
  } else {
    if (technique != nullptr && !so::loops_reach_selfsched("selfsched_set_schedule", name)) return -1;
    so::set_task_technique(technique);
  }
  so::read_what_loops_need(technique);
  return 0;
}

size_t selfsched_get_schedule(char* buf, size_t size) {
  const so::active_schedule* a = so::tool_ended_for_good()   ? nullptr
                                 : so::runtime_hooks_in_use() ? so::runtime_task_technique()
                                                              : so::task_technique();
  const char* text = a ? a->text.c_str() : "";
  const size_t length = std::strlen(text);
  if (buf != nullptr && size > 0) {
    const size_t copied = length < size - 1 ? length : size - 1;
    std::memcpy(buf, text, copied);
    buf[copied] = '\0';
  }
  return length;
}

int selfsched_write_profile(const char* path) {
  return path != nullptr && so::profiling() && so::write_profile(path) ? 0 : -1;
}

}  // extern "C"

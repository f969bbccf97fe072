// The libgomp entry points selfsched interposes: what GCC and gfortran
// -fopenmp programs call (libgomp_abi.hpp). The techniques, loop slots,
// profiles and heterogeneity are the libomp binding's (loop.hpp); what
// differs is how a loop is asked for and how a team is known.
//
// libgomp has no OMPT, so selfsched follows its regions itself: every
// GOMP_parallel* call is forwarded with a body of ours that joins the team
// (teams.hpp), runs the program's body, and leaves. A loop found at another
// nesting level than its thread's team (a region started through an entry
// point not followed here) is libgomp's, and so are its chunks and its end.
//
// Served: schedule(runtime) loops, in all their GCC forms (monotonic,
// nonmonotonic, maybe_nonmonotonic; long and unsigned long long; combined
// with the parallel construct), and schedule(dynamic|guided) under
// SELFSCHED_OVERRIDE; doacross loops (ordered(n) with depend) under
// schedule(runtime), on x86-64 (doacross.hpp). Ordered, reduction-registering
// and static loops stay libgomp's. GCC compiles schedule(auto) as static,
// without a call: OMP_SCHEDULE=auto with schedule(runtime) reaches
// selfsched's auto.
#include <cstdarg>
#include <cstdint>
#include <limits>
#include <optional>

#include "entry/real_libgomp.hpp"
#include "learning/forwarded_profile.hpp"
#include "learning/sites.hpp"
#include "loops/doacross.hpp"
#include "loops/loop.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/settings.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {
namespace {

enum class written_kind { runtime, dynamic, guided };

// Levels (omp_get_level(), modulo 64) where this thread is in a loop that
// started in a region selfsched did not see: that loop's next chunks and its
// end are libgomp's. Almost always 0: one test per chunk.
__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t unseen_loop_levels = 0;

std::uint64_t level_bit() { return std::uint64_t{1} << (gomp().get_level() & 63); }

bool in_unseen_loop() { return unseen_loop_levels != 0 && (unseen_loop_levels & level_bit()) != 0; }

// Is the calling thread at m's level, not in a region selfsched did not
// follow nested inside it? (Under libomp's GOMP_* layer OMPT follows every
// region: always.)
bool at_level_of(const membership& m) { return !gomp().follows_regions || gomp().get_level() == m.level; }

// This thread's team for a loop starting now, if it is the team selfsched
// followed into this level.
membership* membership_for_loop() {
  membership* m = membership_for_new_loop();
  return m != nullptr && at_level_of(*m) ? m : nullptr;
}

const active_schedule* technique_for(const active_schedule* team_technique, written_kind written) {
  const settings& s = current_settings();
  if (written == written_kind::dynamic && !s.override_dynamic) return nullptr;
  if (written == written_kind::guided && !s.override_guided) return nullptr;
  return team_technique;
}

// Iterations of [start, end) by incr, counting up or down, in the loop's own
// type; false if there is no step or the count does not fit int64.
template <typename T>
bool trip_count(bool up, T start, T end, T incr, iter_t& n) {
  if (incr == 0) return false;
  if (up ? !(start < end) : !(end < start)) return n = 0, true;
  const auto bits = [](T v) { return static_cast<std::uint64_t>(v); };
  const std::uint64_t span = up ? bits(end) - bits(start) : bits(start) - bits(end);
  const std::uint64_t step = up ? bits(incr) : std::uint64_t{0} - bits(incr);
  const std::uint64_t trips = span / step + (span % step != 0 ? 1 : 0);
  if (trips > static_cast<std::uint64_t>(std::numeric_limits<iter_t>::max())) return false;
  n = static_cast<iter_t>(trips);
  return true;
}

// SELFSCHED_VERBOSE: why a loop that could be ours is libgomp's.
[[gnu::cold, gnu::noinline]] void explain_forwarded(loop_site site, written_kind written, bool team_known,
                                                    bool countable) {
  const char* why = !team_known                          ? "selfsched cannot tell its team"
                    : written == written_kind::dynamic ? "as written (SELFSCHED_OVERRIDE=dynamic hands it to selfsched)"
                    : written == written_kind::guided  ? "as written (SELFSCHED_OVERRIDE=guided hands it to selfsched)"
                    : countable                        ? "OMP_SCHEDULE names no selfsched technique"
                                                       : "its trip count does not fit 64 bits";
  explain_runtime_loop(site, "libgomp",
                       written == written_kind::runtime   ? "schedule(runtime)"
                       : written == written_kind::dynamic ? "schedule(dynamic)"
                                                          : "schedule(guided)",
                       why);
}

// A forwarded loop's schedule as written, for its profile; a runtime
// loop's is OMP_SCHEDULE's (libgomp read it at start).
[[gnu::cold]] std::string written_text(written_kind written, long long chunk) {
  if (written == written_kind::dynamic) return "dynamic," + std::to_string(chunk);
  if (written == written_kind::guided) return "guided," + std::to_string(chunk);
  return runtime_schedule_text();
}

// Out of line, its strings with it: start_loop's forwarding stays a tail call.
[[gnu::noinline, gnu::cold]] void profile_forwarded_loop(membership& m, loop_site site, iter_t n, written_kind written,
                                                         long long chunk) {
  forwarded_loop_begin(m, site, n, "libgomp " + written_text(written, chunk));
}

// A loop left to libgomp: its next chunks and its end are libgomp's too.
void leave_loop_to_libgomp(membership* m) {
  if (m != nullptr)
    m->last_loop_ours = false;
  else if (gomp().follows_regions)
    unseen_loop_levels |= level_bit();
}

// The minimum chunk a loop carries: what its clause wrote (dynamic,k or
// guided,k taken over); runtime loops carry none of their own.
iter_t clause_chunk_of(written_kind written, long long chunk) {
  return written == written_kind::runtime || chunk <= 0 ? 1 : static_cast<iter_t>(chunk);
}

// Enters a loop selfsched serves: every member of the team does, alike.
template <typename T>
void enter_loop(membership& m, loop_site site, const active_schedule& technique, iter_t n, T start, T end, T incr,
                iter_t clause_chunk, chunk_order order) {
  m.last_loop_ours = true;  // GOMP_loop_end is ours to answer, even with nothing to run
  if (n == 0) return;
  begin_loop(m, site, technique, n, clause_chunk, order);
  m.loop.lower = static_cast<std::uint64_t>(start);
  m.loop.stride = static_cast<std::int64_t>(incr);
  m.loop.end = static_cast<std::uint64_t>(end);
}

// The next chunk of a loop m is in, as [istart, iend).
template <typename T>
[[gnu::noinline]] bool serve_next(membership* m, T* istart, T* iend) {
  const chunk c = claim_next_chunk(*m);  // size 0: m has left the loop, whose slot may be reused
  if (c.size == 0) return false;
  const loop_cursor& cursor = m->loop;
  const auto stride = static_cast<std::uint64_t>(cursor.stride);
  *istart = static_cast<T>(cursor.lower + static_cast<std::uint64_t>(c.start) * stride);
  // The last chunk ends at the loop's end: start + n * incr may pass it, and
  // overflow near the type's limits.
  *iend = c.start + c.size == cursor.slot->n
              ? static_cast<T>(cursor.end)
              : static_cast<T>(cursor.lower + static_cast<std::uint64_t>(c.start + c.size) * stride);
  return true;
}

template <typename T, typename Forward>
bool start_loop(loop_site site, written_kind written, chunk_order order, bool up, T start, T end, T incr, T chunk,
                T* istart, T* iend, Forward forward) {
  membership* m = membership_for_loop();
  const active_schedule* technique =
      m != nullptr && m->team != nullptr ? technique_for(technique_in_force(*m), written) : nullptr;
  iter_t n = 0;
  const bool countable = trip_count(up, start, end, incr, n);
  if (technique == nullptr || !countable) {
    if (current_settings().verbose) [[unlikely]]
      explain_forwarded(site, written, m != nullptr && m->team != nullptr, countable);
    leave_loop_to_libgomp(m);
    if (m != nullptr && profiling_forwarded()) [[unlikely]]
      profile_forwarded_loop(*m, site, n, written, static_cast<long long>(chunk));
    return forward();
  }
  enter_loop(*m, site, *technique, n, start, end, incr, clause_chunk_of(written, static_cast<long long>(chunk)), order);
  return n > 0 && serve_next(m, istart, iend);
}

// A loop's next chunk. The hot path is two thread-local loads and the claim
// (or one jump to libgomp). A thread in a loop of a region not followed
// asks libgomp for its level, out of line, so that the hot path keeps no
// register live across that call.
template <typename T, typename Forward>
[[gnu::always_inline]] inline bool next_chunk_in_followed_loop(T* istart, T* iend, Forward forward) {
  membership* m = current_membership();
  if (m != nullptr) [[likely]] {
    if (m->loop.slot != nullptr) return serve_next(m, istart, iend);
    if (m->last_loop_ours) return false;  // an empty loop of ours
  }
  return forward(istart, iend);
}

template <typename T, typename Forward>
[[gnu::noinline, gnu::cold]] bool next_chunk_beside_unseen_loops(T* istart, T* iend, Forward forward) {
  if (in_unseen_loop()) return forward(istart, iend);
  return next_chunk_in_followed_loop(istart, iend, forward);
}

template <typename T, typename Forward>
[[gnu::always_inline]] inline bool next_chunk(T* istart, T* iend, Forward forward) {
  if (unseen_loop_levels != 0) [[unlikely]]
    return next_chunk_beside_unseen_loops(istart, iend, forward);
  return next_chunk_in_followed_loop(istart, iend, forward);
}

// GOMP_loop_end*: true if the loop was selfsched's (the caller then waits
// at the team's barrier, or not for nowait).
bool close_loop() {
  if (unseen_loop_levels != 0 && in_unseen_loop()) {
    unseen_loop_levels &= ~level_bit();
    return false;
  }
  membership* m = current_membership();
  if (m != nullptr && m->forwarded.record != nullptr && at_level_of(*m)) [[unlikely]]
    forwarded_loop_end(*m);  // profiled, left to libgomp: it ends now
  if (m == nullptr || !m->last_loop_ours) return false;
  // An ordered loop (whose start is not ours) in a region we did not see,
  // nested in a loop of ours: libgomp's.
  if (!at_level_of(*m)) return false;
  // Still in it: the loop was cancelled (omp cancel for). What is left is
  // dropped, so that the slot is freed for the team's later loops.
  while (m->loop.slot != nullptr && claim_next_chunk(*m).size > 0) {
  }
  m->last_loop_ours = false;
  gomp_doacross_end(m->doacross);
  return true;
}

// Doacross loops: GOMP_doacross_wait is variadic, and forwarding a variadic
// call in C++ loses its arguments, so its entry is a few instructions of
// assembly that keep the argument registers, ask which function serves the
// call, and jump there. x86-64 System V only; elsewhere libgomp keeps
// doacross loops.
#if defined(__x86_64__) && defined(__ELF__)
constexpr bool serves_doacross = true;
#else
constexpr bool serves_doacross = false;
#endif

// The member whose doacross loop selfsched serves, if the calling thread is
// in one at its team's level (not in a region nested inside it).
membership* doacross_member() {
  membership* m = current_membership();
  return m != nullptr && doacross_ours(m->doacross) && at_level_of(*m) ? m : nullptr;
}

template <typename T, typename Forward>
bool start_doacross_loop(loop_site site, unsigned ncounts, const T* counts, T* istart, T* iend, Forward forward) {
  membership* m = membership_for_loop();
  const active_schedule* technique = m != nullptr && m->team != nullptr ? technique_in_force(*m) : nullptr;
  iter_t rows[doacross_max_dims] = {};
  bool fits = ncounts >= 1 && ncounts <= doacross_max_dims;
  for (unsigned d = 0; fits && d < ncounts; ++d) {
    fits = counts[d] >= 0 && static_cast<std::uint64_t>(counts[d]) <= std::numeric_limits<iter_t>::max();
    rows[d] = fits ? static_cast<iter_t>(counts[d]) : 0;
  }
  const char* why = !serves_doacross          ? "doacross loops are served on x86-64 only"
                    : m == nullptr || m->team == nullptr ? "selfsched cannot tell its team"
                    : technique == nullptr      ? "OMP_SCHEDULE names no selfsched technique"
                    : !fits                     ? "more than 8 ordered loops, or more iterations than 64 bits count"
                    : m->team->outer != nullptr ? "in an MPI region, ranks cannot honour its dependences"
                    : !gomp_doacross_fits(rows[0]) ? "more than 2^27 rows"
                                                   : nullptr;
  if (why != nullptr) {
    if (current_settings().verbose) [[unlikely]]
      explain_runtime_loop(site, "libgomp", "schedule(runtime) ordered(n)", why);
    leave_loop_to_libgomp(m);
    return forward();
  }
  gomp_doacross_begin(m->doacross, static_cast<int>(ncounts), rows);
  // Rows are handed out in order: a row waits only on rows handed out before it.
  enter_loop(*m, site, *technique, rows[0], T{0}, counts[0], T{1}, 1, chunk_order::monotonic);
  return rows[0] > 0 && serve_next(m, istart, iend);
}

// depend(sink) in a loop selfsched serves, its logical iteration numbers
// as the variadic call gave them.
template <typename T>
void wait_for_sink(T first, va_list rest) {
  membership& m = *current_membership();
  std::int64_t vec[doacross_max_dims];
  vec[0] = static_cast<std::int64_t>(first);
  for (int d = 1; d < m.doacross.dims; ++d) vec[d] = static_cast<std::int64_t>(va_arg(rest, T));
  gomp_doacross_wait(m, vec);
}

// A region's body, as every member runs it under selfsched.
struct followed_region {
  // GOMP_parallel_reductions reads the region's reductions through the
  // first word of its data: the program's, copied here.
  void* leading_word;
  gomp_body body;
  void* data;
  team_state* team;
  // Combined parallel loops selfsched serves: each member enters the loop
  // before the body, which asks for chunks with GOMP_loop_*_next.
  const active_schedule* loop_technique = nullptr;
  loop_site site{};
  iter_t n = 0, clause_chunk = 1;
  chunk_order order = chunk_order::monotonic;
  long start = 0, end = 0, incr = 1;
};

void run_member(void* data) {
  const followed_region& region = *static_cast<const followed_region*>(data);
  const gomp_entry_points& g = gomp();
  join_team(region.team, g.get_thread_num(), g.get_num_threads(), g.get_level());
  if (region.loop_technique != nullptr)
    if (membership* m = current_membership(); m != nullptr && m->team == region.team)
      enter_loop(*m, region.site, *region.loop_technique, region.n, region.start, region.end, region.incr,
                 region.clause_chunk, region.order);
  region.body(region.data);
  leave_team();
}

// fork(body, data) starts the team the program asked for.
template <typename Fork>
auto in_followed_region(gomp_body body, void* data, unsigned threads, Fork fork, bool reads_leading_word = false) {
  if (!gomp().follows_regions) return fork(body, data);
  followed_region region{nullptr, body, data, open_region(threads)};
  if (reads_leading_word) region.leading_word = *static_cast<void**>(data);
  struct closer {
    ~closer() { close_region(); }
  } close_after_join;
  return fork(run_member, static_cast<void*>(&region));
}

// GOMP_parallel_loop_*: served by selfsched, the team is started with
// GOMP_parallel and every member enters the loop first; otherwise libgomp
// sets its loop up (fork_with_loop) and selfsched only follows the team.
template <typename ForkWithLoop>
void parallel_loop(loop_site site, written_kind written, chunk_order order, gomp_body body, void* data,
                   unsigned threads, long start, long end, long incr, long chunk, unsigned flags,
                   ForkWithLoop fork_with_loop) {
  const gomp_entry_points& g = gomp();
  if (!g.follows_regions) return fork_with_loop(body, data);
  followed_region region{nullptr, body, data, open_region(threads)};
  const active_schedule* technique =
      region.team != nullptr ? technique_for(region.team->technique, written) : nullptr;
  iter_t n = 0;
  const bool countable = trip_count(incr > 0, start, end, incr, n);
  if (technique != nullptr && countable) {
    region.loop_technique = technique;
    region.site = site;
    region.n = n;
    region.clause_chunk = clause_chunk_of(written, chunk);
    region.order = order;
    region.start = start;
    region.end = end;
    region.incr = incr;
    g.parallel(run_member, &region, threads, flags);
  } else {
    if (current_settings().verbose) [[unlikely]]
      explain_forwarded(site, written, region.team != nullptr, countable);
    fork_with_loop(run_member, &region);
  }
  close_region();
}

// GOMP_loop_start's schedule argument.
// GCC's generic entries carry the monotonic modifier as a flag.
chunk_order generic_order(long sched) {
  return (sched & gomp_sched::monotonic_flag) != 0 ? chunk_order::monotonic : chunk_order::nonmonotonic;
}

std::optional<written_kind> generic_kind(long sched) {
  switch (gomp_sched::without_modifiers(sched)) {
    case gomp_sched::runtime: return written_kind::runtime;
    case gomp_sched::dynamic: return written_kind::dynamic;
    case gomp_sched::guided: return written_kind::guided;
    default: return std::nullopt;
  }
}

}  // namespace
}  // namespace selfsched::omp

using selfsched::omp::gomp;
using selfsched::omp::gomp_body;
using selfsched::omp::gomp_ull;
namespace so = selfsched::omp;
using so::written_kind;

#define SELFSCHED_SITE \
  so::loop_site { nullptr, __builtin_return_address(0) }

extern "C" {

// Regions.
void GOMP_parallel(gomp_body body, void* data, unsigned threads, unsigned flags) {
  so::in_followed_region(body, data, threads, [&](gomp_body b, void* d) { gomp().parallel(b, d, threads, flags); });
}
unsigned GOMP_parallel_reductions(gomp_body body, void* data, unsigned threads, unsigned flags) {
  return so::in_followed_region(
      body, data, threads, [&](gomp_body b, void* d) { return gomp().parallel_reductions(b, d, threads, flags); },
      /*reads_leading_word=*/true);
}
void GOMP_parallel_sections(gomp_body body, void* data, unsigned threads, unsigned count, unsigned flags) {
  so::in_followed_region(body, data, threads,
                         [&](gomp_body b, void* d) { gomp().parallel_sections(b, d, threads, count, flags); });
}

// Combined parallel loops.
#define SELFSCHED_PARALLEL_LOOP_RUNTIME(name, order)                                                                 \
  void name(gomp_body body, void* data, unsigned threads, long start, long end, long incr, unsigned flags) {    \
    so::parallel_loop(SELFSCHED_SITE, written_kind::runtime, order, body, data, threads, start, end, incr, 0, flags,  \
                      [&](gomp_body b, void* d) { gomp().parallel_loop_runtime(b, d, threads, start, end, incr, flags); }); \
  }
SELFSCHED_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime, so::chunk_order::monotonic)
SELFSCHED_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime, so::chunk_order::nonmonotonic)
SELFSCHED_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime, so::chunk_order::nonmonotonic)
#undef SELFSCHED_PARALLEL_LOOP_RUNTIME

#define SELFSCHED_PARALLEL_LOOP_CHUNKED(name, written, order, real)                                                     \
  void name(gomp_body body, void* data, unsigned threads, long start, long end, long incr, long chunk,           \
            unsigned flags) {                                                                                     \
    so::parallel_loop(SELFSCHED_SITE, written, order, body, data, threads, start, end, incr, chunk, flags,             \
                      [&](gomp_body b, void* d) { gomp().real(b, d, threads, start, end, incr, chunk, flags); }); \
  }
SELFSCHED_PARALLEL_LOOP_CHUNKED(GOMP_parallel_loop_dynamic, written_kind::dynamic, so::chunk_order::monotonic, parallel_loop_dynamic)
SELFSCHED_PARALLEL_LOOP_CHUNKED(GOMP_parallel_loop_nonmonotonic_dynamic, written_kind::dynamic, so::chunk_order::nonmonotonic, parallel_loop_dynamic)
SELFSCHED_PARALLEL_LOOP_CHUNKED(GOMP_parallel_loop_guided, written_kind::guided, so::chunk_order::monotonic, parallel_loop_guided)
SELFSCHED_PARALLEL_LOOP_CHUNKED(GOMP_parallel_loop_nonmonotonic_guided, written_kind::guided, so::chunk_order::nonmonotonic, parallel_loop_guided)
#undef SELFSCHED_PARALLEL_LOOP_CHUNKED

// schedule(static) combined loops are libgomp's; the team is followed.
void GOMP_parallel_loop_static(gomp_body body, void* data, unsigned threads, long start, long end, long incr,
                               long chunk, unsigned flags) {
  so::in_followed_region(body, data, threads, [&](gomp_body b, void* d) {
    gomp().parallel_loop_static(b, d, threads, start, end, incr, chunk, flags);
  });
}

// Loops inside a region: the first chunk.
#define SELFSCHED_LOOP_RUNTIME_START(name, order)                                                                  \
  bool name(long start, long end, long incr, long* istart, long* iend) {                                    \
    return so::start_loop(SELFSCHED_SITE, written_kind::runtime, order, incr > 0, start, end, incr, 0L, istart, iend, \
                          [&] { return gomp().loop_runtime_start(start, end, incr, istart, iend); });       \
  }
SELFSCHED_LOOP_RUNTIME_START(GOMP_loop_runtime_start, so::chunk_order::monotonic)
SELFSCHED_LOOP_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start, so::chunk_order::nonmonotonic)
SELFSCHED_LOOP_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start, so::chunk_order::nonmonotonic)
#undef SELFSCHED_LOOP_RUNTIME_START

#define SELFSCHED_LOOP_ULL_RUNTIME_START(name, order)                                                                    \
  bool name(bool up, gomp_ull start, gomp_ull end, gomp_ull incr, gomp_ull* istart, gomp_ull* iend) {             \
    return so::start_loop(SELFSCHED_SITE, written_kind::runtime, order, up, start, end, incr, gomp_ull{0}, istart, iend, \
                          [&] { return gomp().loop_ull_runtime_start(up, start, end, incr, istart, iend); });     \
  }
SELFSCHED_LOOP_ULL_RUNTIME_START(GOMP_loop_ull_runtime_start, so::chunk_order::monotonic)
SELFSCHED_LOOP_ULL_RUNTIME_START(GOMP_loop_ull_nonmonotonic_runtime_start, so::chunk_order::nonmonotonic)
SELFSCHED_LOOP_ULL_RUNTIME_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, so::chunk_order::nonmonotonic)
#undef SELFSCHED_LOOP_ULL_RUNTIME_START

#define SELFSCHED_LOOP_CHUNKED_START(name, written, order, real)                                                 \
  bool name(long start, long end, long incr, long chunk, long* istart, long* iend) {                      \
    return so::start_loop(SELFSCHED_SITE, written, order, incr > 0, start, end, incr, chunk, istart, iend,       \
                          [&] { return gomp().real(start, end, incr, chunk, istart, iend); });            \
  }
SELFSCHED_LOOP_CHUNKED_START(GOMP_loop_dynamic_start, written_kind::dynamic, so::chunk_order::monotonic, loop_dynamic_start)
SELFSCHED_LOOP_CHUNKED_START(GOMP_loop_nonmonotonic_dynamic_start, written_kind::dynamic, so::chunk_order::nonmonotonic, loop_dynamic_start)
SELFSCHED_LOOP_CHUNKED_START(GOMP_loop_guided_start, written_kind::guided, so::chunk_order::monotonic, loop_guided_start)
SELFSCHED_LOOP_CHUNKED_START(GOMP_loop_nonmonotonic_guided_start, written_kind::guided, so::chunk_order::nonmonotonic, loop_guided_start)
#undef SELFSCHED_LOOP_CHUNKED_START

#define SELFSCHED_LOOP_ULL_CHUNKED_START(name, written, order, real)                                                    \
  bool name(bool up, gomp_ull start, gomp_ull end, gomp_ull incr, gomp_ull chunk, gomp_ull* istart,              \
            gomp_ull* iend) {                                                                                     \
    return so::start_loop(SELFSCHED_SITE, written, order, up, start, end, incr, chunk, istart, iend,                    \
                          [&] { return gomp().real(up, start, end, incr, chunk, istart, iend); });               \
  }
SELFSCHED_LOOP_ULL_CHUNKED_START(GOMP_loop_ull_dynamic_start, written_kind::dynamic, so::chunk_order::monotonic, loop_ull_dynamic_start)
SELFSCHED_LOOP_ULL_CHUNKED_START(GOMP_loop_ull_nonmonotonic_dynamic_start, written_kind::dynamic, so::chunk_order::nonmonotonic, loop_ull_dynamic_start)
SELFSCHED_LOOP_ULL_CHUNKED_START(GOMP_loop_ull_guided_start, written_kind::guided, so::chunk_order::monotonic, loop_ull_guided_start)
SELFSCHED_LOOP_ULL_CHUNKED_START(GOMP_loop_ull_nonmonotonic_guided_start, written_kind::guided, so::chunk_order::nonmonotonic, loop_ull_guided_start)
#undef SELFSCHED_LOOP_ULL_CHUNKED_START

// GCC 9+'s generic start: served for plain runtime, dynamic and guided loops;
// task reductions (reductions), conditional lastprivate or scan (mem) and
// initialisation-only calls (istart == nullptr) need libgomp's work share.

bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long* istart, long* iend,
                     std::uintptr_t* reductions, void** mem) {
  const auto forward = [&] { return gomp().loop_start(start, end, incr, sched, chunk, istart, iend, reductions, mem); };
  const std::optional<written_kind> kind = so::generic_kind(sched);
  if (!kind || reductions != nullptr || mem != nullptr || istart == nullptr) {
    so::leave_loop_to_libgomp(so::membership_for_loop());
    return forward();
  }
  return so::start_loop(SELFSCHED_SITE, *kind, so::generic_order(sched), incr > 0, start, end, incr, chunk, istart, iend, forward);
}

bool GOMP_loop_ull_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr, long sched, gomp_ull chunk,
                         gomp_ull* istart, gomp_ull* iend, std::uintptr_t* reductions, void** mem) {
  const auto forward = [&] {
    return gomp().loop_ull_start(up, start, end, incr, sched, chunk, istart, iend, reductions, mem);
  };
  const std::optional<written_kind> kind = so::generic_kind(sched);
  if (!kind || reductions != nullptr || mem != nullptr || istart == nullptr) {
    so::leave_loop_to_libgomp(so::membership_for_loop());
    return forward();
  }
  return so::start_loop(SELFSCHED_SITE, *kind, so::generic_order(sched), up, start, end, incr, chunk, istart, iend, forward);
}

// The next chunks.
#define SELFSCHED_LOOP_NEXT(name, T, real)                                                       \
  bool name(T* istart, T* iend) {                                                               \
    return so::next_chunk(istart, iend, so::call_gomp<&so::gomp_entry_points::real, T*, T*>);    \
  }
SELFSCHED_LOOP_NEXT(GOMP_loop_runtime_next, long, loop_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next, long, loop_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, long, loop_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_dynamic_next, long, loop_dynamic_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next, long, loop_dynamic_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_guided_next, long, loop_guided_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next, long, loop_guided_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_runtime_next, gomp_ull, loop_ull_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next, gomp_ull, loop_ull_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, gomp_ull, loop_ull_runtime_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_dynamic_next, gomp_ull, loop_ull_dynamic_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, gomp_ull, loop_ull_dynamic_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_guided_next, gomp_ull, loop_ull_guided_next)
SELFSCHED_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_guided_next, gomp_ull, loop_ull_guided_next)
#undef SELFSCHED_LOOP_NEXT

// Doacross loops under schedule(runtime).
bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long* counts, long* istart, long* iend) {
  return so::start_doacross_loop(SELFSCHED_SITE, ncounts, counts, istart, iend,
                                 [&] { return gomp().loop_doacross_runtime_start(ncounts, counts, istart, iend); });
}
bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, gomp_ull* counts, gomp_ull* istart, gomp_ull* iend) {
  return so::start_doacross_loop(SELFSCHED_SITE, ncounts, counts, istart, iend, [&] {
    return gomp().loop_ull_doacross_runtime_start(ncounts, counts, istart, iend);
  });
}

void GOMP_doacross_post(long* counts) {
  if (so::membership* m = so::doacross_member()) return so::gomp_doacross_post(*m, counts);
  gomp().doacross_post(counts);
}
void GOMP_doacross_ull_post(gomp_ull* counts) {
  if (so::membership* m = so::doacross_member()) {
    std::int64_t vec[so::doacross_max_dims];
    for (int d = 0; d < m->doacross.dims; ++d) vec[d] = static_cast<std::int64_t>(counts[d]);
    return so::gomp_doacross_post(*m, vec);
  }
  gomp().doacross_ull_post(counts);
}

// GOMP_doacross_wait and GOMP_doacross_ull_wait (below, in assembly) jump to
// what these return: ours for a loop selfsched serves, else libgomp's.
[[gnu::visibility("hidden")]] void selfsched_gomp_doacross_wait_served(long first, ...) {
  va_list rest;
  va_start(rest, first);
  so::wait_for_sink(first, rest);
  va_end(rest);
}
[[gnu::visibility("hidden")]] void selfsched_gomp_doacross_ull_wait_served(gomp_ull first, ...) {
  va_list rest;
  va_start(rest, first);
  so::wait_for_sink(first, rest);
  va_end(rest);
}
[[gnu::visibility("hidden")]] void* selfsched_gomp_doacross_wait_target() {
  if (so::doacross_member() != nullptr) return reinterpret_cast<void*>(&selfsched_gomp_doacross_wait_served);
  return reinterpret_cast<void*>(gomp().doacross_wait);
}
[[gnu::visibility("hidden")]] void* selfsched_gomp_doacross_ull_wait_target() {
  if (so::doacross_member() != nullptr) return reinterpret_cast<void*>(&selfsched_gomp_doacross_ull_wait_served);
  return reinterpret_cast<void*>(gomp().doacross_ull_wait);
}

// The end of every loop (libgomp's own loops included, static and ordered
// ones too): ours end at the team's barrier.
void GOMP_loop_end() {
  if (so::close_loop()) return gomp().barrier();
  gomp().loop_end();
}
bool GOMP_loop_end_cancel() {
  if (so::close_loop()) return gomp().barrier_cancel();
  return gomp().loop_end_cancel();
}
void GOMP_loop_end_nowait() {
  if (so::close_loop()) return;
  gomp().loop_end_nowait();
}

}  // extern "C"

#if defined(__x86_64__) && defined(__ELF__)
// name(first, ...): the six argument registers and %rax (the count of
// vector registers a variadic call sets) are kept across the call that
// picks the target (seven pushes also align the stack for it), then the
// call goes on to the target as it came.
#define SELFSCHED_VARIADIC_ENTRY(name, target)                                         \
  asm(".text\n"                                                                         \
      ".globl " #name "\n"                                                              \
      ".type " #name ", @function\n"                                                    \
      ".p2align 4\n" #name ":\n"                                                        \
      ".cfi_startproc\n"                                                                \
      "endbr64\n"                                                                       \
      "pushq %rdi\n.cfi_adjust_cfa_offset 8\n"                                          \
      "pushq %rsi\n.cfi_adjust_cfa_offset 8\n"                                          \
      "pushq %rdx\n.cfi_adjust_cfa_offset 8\n"                                          \
      "pushq %rcx\n.cfi_adjust_cfa_offset 8\n"                                          \
      "pushq %r8\n.cfi_adjust_cfa_offset 8\n"                                           \
      "pushq %r9\n.cfi_adjust_cfa_offset 8\n"                                           \
      "pushq %rax\n.cfi_adjust_cfa_offset 8\n"                                          \
      "call " #target "\n"                                                              \
      "movq %rax, %r11\n"                                                               \
      "popq %rax\n.cfi_adjust_cfa_offset -8\n"                                          \
      "popq %r9\n.cfi_adjust_cfa_offset -8\n"                                           \
      "popq %r8\n.cfi_adjust_cfa_offset -8\n"                                           \
      "popq %rcx\n.cfi_adjust_cfa_offset -8\n"                                          \
      "popq %rdx\n.cfi_adjust_cfa_offset -8\n"                                          \
      "popq %rsi\n.cfi_adjust_cfa_offset -8\n"                                          \
      "popq %rdi\n.cfi_adjust_cfa_offset -8\n"                                          \
      "jmp *%r11\n"                                                                     \
      ".cfi_endproc\n"                                                                  \
      ".size " #name ", .-" #name "\n")
SELFSCHED_VARIADIC_ENTRY(GOMP_doacross_wait, selfsched_gomp_doacross_wait_target);
SELFSCHED_VARIADIC_ENTRY(GOMP_doacross_ull_wait, selfsched_gomp_doacross_ull_wait_target);
#undef SELFSCHED_VARIADIC_ENTRY
#endif

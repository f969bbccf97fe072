#include "loops/doacross.hpp"

#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>

#include "runtime/real_libomp.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/core/wavefront.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {
namespace {

using state = doacross_thread::state;

// Up to this many rows get a cache line each, so neighbouring rows on
// different threads do not invalidate each other's counters.
constexpr iter_t padded_rows = iter_t{1} << 14;  // 1 MiB of counters per slot at most
constexpr iter_t max_counters = iter_t{1} << 27;  // 1 GiB of counters

[[gnu::cold, gnu::noinline]] void say_once(std::atomic<bool>& said, const char* why) {
  if (!said.exchange(true)) warn("%s", why);
}

// Iterations of one dimension: `inclusive` reads [lo, up] as libomp does,
// otherwise up is one past the end (clang). -1: not a loop.
iter_t iterations(const kmp_dim& d, bool inclusive) {
  if (d.st == 0) return -1;
  const bool rising = d.st > 0;
  if (rising ? d.up < d.lo : d.up > d.lo) return 0;
  using u64 = std::uint64_t;
  const u64 span = rising ? u64(d.up) - u64(d.lo) : u64(d.lo) - u64(d.up);
  const u64 step = rising ? u64(d.st) : u64(0) - u64(d.st);
  const u64 whole = span / step;
  const u64 n = inclusive ? whole + 1 : whole + (span % step != 0);
  if (whole == std::numeric_limits<u64>::max() || n > u64(std::numeric_limits<iter_t>::max())) return -1;
  return static_cast<iter_t>(n);
}

// Finds the dispatched loops and the compiler's bounds convention: the first
// k (collapse) whose trip counts multiply to the dispatched n, trying clang's
// reading before libomp's for each k. Fills `loop` on success.
bool match_bounds(doacross_loop& loop, const doacross_thread& t, iter_t n) {
  for (int k = 1; k <= t.dims; ++k) {
    for (const bool inclusive : {false, true}) {
      iter_t rows = 1;
      bool fits = true;
      for (int d = 0; d < k && fits; ++d) {
        const iter_t c = iterations(t.bounds[d], inclusive);
        fits = c >= 0 && !__builtin_mul_overflow(rows, c, &rows);
      }
      if (!fits || rows != n) continue;
      iter_t inner = 1;
      for (int d = 0; d < t.dims; ++d) {
        const iter_t c = iterations(t.bounds[d], inclusive);
        if (c < 0 || (d >= k && __builtin_mul_overflow(inner, c, &inner))) return false;
        loop.first[d] = t.bounds[d].lo;
        loop.step[d] = t.bounds[d].st;
        loop.count[d] = c;
      }
      loop.dims = t.dims;
      loop.outer_dims = k;
      loop.inner = inner;
      return true;
    }
  }
  return false;
}

// Index of v along dimension d, -1 outside the iteration space.
iter_t index_of(const doacross_loop& l, int d, std::int64_t v) {
  using u64 = std::uint64_t;
  const iter_t lo = l.first[d], st = l.step[d];
  u64 offset = 0;
  if (st == 1) {  // clang's normalised loops: no division
    if (v < lo) return -1;
    offset = u64(v) - u64(lo);
  } else if (st > 0) {
    if (v < lo) return -1;
    offset = (u64(v) - u64(lo)) / u64(st);
  } else {
    if (v > lo) return -1;
    offset = (u64(lo) - u64(v)) / (u64(0) - u64(st));
  }
  return offset < u64(l.count[d]) ? static_cast<iter_t>(offset) : -1;
}

// Row and position in the row of iteration `vec`; false outside the space.
bool locate(const doacross_loop& l, const std::int64_t* vec, iter_t& row, iter_t& position) {
  row = position = 0;
  for (int d = 0; d < l.dims; ++d) {
    const iter_t i = index_of(l, d, vec[d]);
    if (i < 0) return false;
    iter_t& linear = d < l.outer_dims ? row : position;
    linear = linear * l.count[d] + i;  // within n x inner, checked at set-up
  }
  return true;
}

void hand_to_libomp(doacross_thread& t) {
  t.mode = state::none;
  // gomp.cpp checked every other reason before the loop began; libgomp
  // itself stops when its doacross bookkeeping finds no memory.
  if (t.from_libgomp) {
    warn("no memory for the progress counters of a doacross loop; stopping, as libgomp does out of memory");
    std::abort();
  }
  real().doacross_init(t.loc, t.gtid, t.dims, t.bounds);
}

// Does selfsched serve this thread's doacross loop? If not, libomp does; a
// pending schedule(static) loop gets its libomp init now.
bool served(membership* m) {
  if (m == nullptr) return false;
  if (m->doacross.mode == state::ours) return true;
  if (m->doacross.mode == state::pending) hand_to_libomp(m->doacross);
  return false;
}

}  // namespace

void doacross_set_up(doacross_loop& loop, const doacross_thread& setter, iter_t n, int team_size,
                     const schedule_spec& spec, bool fed_from_outside) {
  loop.active = false;
  if (setter.mode != state::pending) return;
  if (fed_from_outside) {
    static std::atomic<bool> said{false};
    return say_once(said, "a doacross loop in an MPI region: its rows are spread over ranks, whose dependences "
                          "no thread can honour; use the wavefront API (selfsched/wavefront.hpp)");
  }
  if (!match_bounds(loop, setter, n)) {
    static std::atomic<bool> said{false};
    return say_once(said, "doacross bounds do not match the loop's trip count; libomp serves its dependences");
  }
  loop.team_size = team_size;
  loop.stride = n <= padded_rows ? 8 : 1;
  if (n > max_counters) {
    static std::atomic<bool> said{false};
    return say_once(said, "a doacross loop with more than 2^27 rows: libomp serves its dependences");
  }
  const iter_t counters = n * loop.stride;
  if (counters > loop.capacity) {
    loop.capacity = 0;
    loop.done.reset(new (std::nothrow) std::atomic<iter_t>[static_cast<std::size_t>(counters)]);
    if (!loop.done) {
      static std::atomic<bool> said{false};
      return say_once(said, "no memory for doacross progress counters: libomp serves the dependences");
    }
    loop.capacity = counters;
  }
  for (iter_t r = 0; r < n; ++r) loop.done[r * loop.stride].store(0, std::memory_order_relaxed);
  const std::int64_t configured = current_settings().sync_points;
  const iter_t sync_points = configured > 0 ? configured : 3 * iter_t{team_size};  // seed 000 sec. 3.3
  loop.publish_every = spec.synchronized ? sync_interval(loop.inner, sync_points) : 1;
  loop.active = true;
}

void doacross_join(doacross_thread& t, const doacross_loop& loop) {
  if (t.mode != state::pending) return;
  if (!loop.active) return hand_to_libomp(t);
  t.mode = state::ours;
  t.row = -1;
}

void doacross_not_ours(membership* m) {
  if (m != nullptr && m->doacross.mode == state::pending) hand_to_libomp(m->doacross);
}

void doacross_init(ident_t* loc, std::int32_t gtid, std::int32_t num_dims, const kmp_dim* dims) {
  // No technique for this team: no loop can be ours, libomp from the start.
  // A libomp with our schedules registered keeps every doacross loop (the
  // patch series carries its bound fix).
  if (runtime_hooks_in_use()) return real().doacross_init(loc, gtid, num_dims, dims);
  membership* m = num_dims >= 1 && num_dims <= doacross_max_dims ? membership_for_new_loop() : nullptr;
  if (m == nullptr || technique_in_force(*m) == nullptr) return real().doacross_init(loc, gtid, num_dims, dims);
  doacross_thread& t = m->doacross;
  t.mode = state::pending;
  t.dims = num_dims;
  for (int d = 0; d < num_dims; ++d) t.bounds[d] = dims[d];
  t.loc = loc;
  t.gtid = gtid;
  t.from_libgomp = false;
}

namespace {

void wait_for(membership* m, const std::int64_t* vec) {
  if (m->loop.slot == nullptr) return;  // past its last chunk: nothing left to order
  const doacross_loop& l = m->loop.slot->doacross;
  if (l.team_size == 1) return;  // one thread runs every row in order
  iter_t row = 0, position = 0;
  // Outside the iteration space: satisfied at once (OpenMP 4.5 sec. 2.13.8).
  if (!locate(l, vec, row, position)) return;
  if (row == m->doacross.row) return;  // this thread's own row: earlier positions ran before
  const std::atomic<iter_t>& done = l.done[row * l.stride];
  if (done.load(std::memory_order_acquire) > position) return;
  spin_until([&] { return done.load(std::memory_order_acquire) > position; });
}

void post_for(membership* m, const std::int64_t* vec) {
  if (m->loop.slot == nullptr) return;  // past its last chunk: nothing left to publish
  const doacross_loop& l = m->loop.slot->doacross;
  if (l.team_size == 1) return;
  iter_t row = 0, position = 0;
  if (!locate(l, vec, row, position)) return;
  doacross_thread& t = m->doacross;
  if (row != t.row) t.row = row, t.publish_at = l.publish_every;
  const iter_t done = position + 1;
  // S: publish at synchronization points and at the row's end only.
  if (done < t.publish_at && done != l.inner) return;
  t.publish_at = done + l.publish_every;
  l.done[row * l.stride].store(done, std::memory_order_release);
}

}  // namespace

void doacross_wait(ident_t* loc, std::int32_t gtid, const std::int64_t* vec) {
  membership* m = current_membership();
  if (!served(m)) return real().doacross_wait(loc, gtid, vec);
  wait_for(m, vec);
}

void doacross_post(ident_t* loc, std::int32_t gtid, const std::int64_t* vec) {
  membership* m = current_membership();
  if (!served(m)) return real().doacross_post(loc, gtid, vec);
  post_for(m, vec);
}

bool gomp_doacross_fits(iter_t rows) { return rows <= max_counters; }

void gomp_doacross_begin(doacross_thread& t, int dims, const iter_t* counts) {
  t.mode = state::pending;
  t.from_libgomp = true;
  t.dims = dims;
  for (int d = 0; d < dims; ++d) t.bounds[d] = kmp_dim{0, counts[d], 1};  // [0, count): clang's reading
  t.loc = nullptr;
  t.gtid = 0;
}

void gomp_doacross_wait(membership& m, const std::int64_t* vec) { wait_for(&m, vec); }
void gomp_doacross_post(membership& m, const std::int64_t* vec) { post_for(&m, vec); }

void doacross_fini(ident_t* loc, std::int32_t gtid) {
  membership* m = current_membership();
  if (m != nullptr && m->doacross.mode == state::ours) {
    m->doacross.mode = state::none;
    return;
  }
  served(m);  // a pending schedule(static) loop: libomp gets its init first
  real().doacross_fini(loc, gtid);
}

}  // namespace selfsched::omp

// The OpenMP entry points cluster mode changes inside a shared region: the
// team's size and numbers, static loops, barriers, master, masked, single,
// reductions, and the constructs that make a region run replicated.
// Everywhere else (serial code, nested regions, replicated regions) each
// forwards to the runtime untouched.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "allocation.hpp"
#include "selfsched/bridge.hpp"
#include "interposed.hpp"
#include "static_split.hpp"

namespace selfsched::cluster {

namespace {

cluster_process& process() { return *cluster_process::get(); }
const cluster_team& team() { return *process().region().team; }

// schedule(static) and schedule(static, k) in the runtime's terms (kmp.h).
constexpr std::int32_t sch_static_chunked = 33, sch_static = 34, sch_static_greedy = 40, sch_static_balanced = 41,
                       sch_static_balanced_chunked = 45, ord_lower = 64, ord_upper = 72;
constexpr std::int32_t without_modifiers(std::int32_t s) { return s & ~((1 << 29) | (1 << 30)); }

// Like libomp's __kmp_for_static_init, over the cluster-wide team.
template <typename T>
void static_split(member_state& m, std::int32_t schedule, std::int32_t* last, T* lower, T* upper,
                  std::make_signed_t<T>* stride, std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  if (incr > 0 ? *upper < *lower : *lower < *upper) {  // no iteration at all
    if (last != nullptr) *last = 0;
    *stride = incr;
    return;
  }
  const U trip = incr == 1    ? static_cast<U>(*upper - *lower) + 1
                 : incr == -1 ? static_cast<U>(*lower - *upper) + 1
                 : incr > 0   ? static_cast<U>(*upper - *lower) / static_cast<U>(incr) + 1
                              : static_cast<U>(*lower - *upper) / static_cast<U>(-incr) + 1;
  const T first_value = *lower;
  if (schedule == sch_static_chunked) {
    const U k = chunk < 1 ? 1 : static_cast<U>(chunk) > trip ? trip : static_cast<U>(chunk);
    const static_share s = static_chunks(team(), trip, k, m.number);
    if (s.first < trip) {
      *lower = static_cast<T>(first_value + static_cast<S>(s.first) * incr);
      *upper = static_cast<T>(*lower + static_cast<S>(k) * incr - incr);
    } else {
      *lower = static_cast<T>(*upper + (incr > 0 ? 1 : -1));
    }
    *stride = static_cast<S>(s.stride) * incr;
    if (last != nullptr) *last = s.last;
    return;
  }
  const static_share s = static_block(team(), trip, m.number);
  if (s.count > 0) {
    *lower = static_cast<T>(first_value + static_cast<S>(s.first) * incr);
    *upper = static_cast<T>(*lower + static_cast<S>(s.count - 1) * incr);
  } else {
    *lower = static_cast<T>(*upper + (incr > 0 ? 1 : -1));
  }
  *stride = static_cast<S>(trip);
  if (last != nullptr) *last = s.last;
}

template <typename T>
bool split_here(ident* loc, std::int32_t schedule, std::int32_t* last, T* lower, T* upper,
                std::make_signed_t<T>* stride, std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {
  member_state* m = shared_member();
  if (m == nullptr || incr == 0) return false;
  const std::int32_t kind = without_modifiers(schedule);
  if (kind == sch_static || kind == sch_static_greedy || kind == sch_static_balanced ||
      kind == sch_static_balanced_chunked) {
    static_split(*m, sch_static, last, lower, upper, stride, incr, chunk);
    return true;
  }
  if (kind == sch_static_chunked) {
    static_split(*m, sch_static_chunked, last, lower, upper, stride, incr, chunk);
    return true;
  }
  (void)loc;
  return false;  // distribute: inside teams, never shared
}

// Reductions: this rank's threads hand their private copies to thread 0,
// which combines them in thread order; then rank 0's thread 0 combines every
// rank's in rank order and is the one that updates the shared variables.
// Another rank's private copies live on its thread 0's stack, between the
// reduction call and the region's start: rank 0 gets that stretch of stack
// and the addresses in the reduction's list moved into it.
struct reduction_slots {
  void* data[1024];
};
reduction_slots slots;

struct reduction_message {
  std::uint64_t stack_low, stack_high, list_bytes;
  std::uint32_t unshareable;
};

using reduce_function = void (*)(void* lhs, void* rhs);

// Is `list` (the reduction's list of addresses, list_bytes long) made of
// addresses inside [low, high) and small numbers (array sections' sizes),
// each private copy there holding its value, not a pointer? The copy moves
// to rank 0 as bytes; a pointer in it still names an address of the other
// rank, where rank 0 has its own bytes (the stacks and the heap are laid out
// alike): flang's descriptor of a privatized array points to the array
// beside it on the stack, or in the heap, and rank 0 added its own partial
// sum twice, silently. So a copy whose first word points into the stack
// stretch or the program's heap makes the region run replicated (as a value
// that happens to equal such an address does: slower, never wrong). A
// pointer past a copy's first word is not seen.
bool list_within(void* list, std::size_t list_bytes, std::uintptr_t low, std::uintptr_t high, const program_heap& heap) {
  const auto* entries = static_cast<const std::uintptr_t*>(list);
  for (std::size_t i = 0; i < list_bytes / sizeof(std::uintptr_t); ++i) {
    const std::uintptr_t e = entries[i];
    if (e < (std::uintptr_t{1} << 20)) continue;
    if (e < low || e >= high) return false;
    std::uintptr_t first = 0;
    std::memcpy(&first, reinterpret_cast<const void*>(e), std::min<std::uintptr_t>(sizeof first, high - e));
    if ((first >= low && first < high) || heap.contains(reinterpret_cast<const void*>(first))) return false;
  }
  return true;
}

void combine_ranks(void* list, std::size_t list_bytes, reduce_function combine) {
  cluster_process& p = process();
  region_state& r = p.region();
  const auto low = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const std::uintptr_t high = r.fork_sp;
  const bool fits = list_within(list, list_bytes, low, high, p.heap());
  if (!fits) r.flags.fetch_or(flag_reduction_pointers);
  std::vector<std::byte> message;
  if (p.rank() != 0) {
    runtime_scope scope;  // cluster mode's memory, not the program's
    const reduction_message head{low, high, list_bytes, fits ? 0u : 1u};
    message.resize(sizeof head + list_bytes + (high - low));
    std::memcpy(message.data(), &head, sizeof head);
    std::memcpy(message.data() + sizeof head, list, list_bytes);
    std::memcpy(message.data() + sizeof head + list_bytes, reinterpret_cast<const void*>(low), high - low);
  }
  const auto received = p.gather_to_rank_zero(message);
  if (p.rank() != 0) return;
  for (int q = 1; q < p.ranks(); ++q) {
    const auto& bytes = received[static_cast<std::size_t>(q)];
    reduction_message head{};
    std::memcpy(&head, bytes.data(), sizeof head);
    if (head.unshareable || head.list_bytes != list_bytes) {
      r.flags.fetch_or(flag_reduction_pointers);
      continue;
    }
    // The other rank's copies, here, and its list pointing at them.
    std::vector<std::byte> stack;
    std::vector<std::uintptr_t> moved;
    {
      runtime_scope scope;
      stack.assign(bytes.begin() + static_cast<long>(sizeof head + list_bytes), bytes.end());
      moved.resize(list_bytes / sizeof(std::uintptr_t));
    }
    std::memcpy(moved.data(), bytes.data() + sizeof head, list_bytes);
    for (std::uintptr_t& e : moved)
      if (e >= head.stack_low && e < head.stack_high) e = reinterpret_cast<std::uintptr_t>(stack.data()) + (e - head.stack_low);
    combine(list, moved.data());  // the program's combiner: its allocations are the program's
  }
}

std::int32_t reduce(ident* loc, std::int32_t gtid, std::int32_t vars, std::size_t size, void* list,
                    reduce_function combine, void* lock, bool blocking) {
  member_state* m = shared_member();
  (void)vars;
  (void)lock;
  const int threads = process().region().local_threads;
  if (m->thread < 1024) slots.data[m->thread] = list;
  local_barrier(loc, gtid);  // every thread's copies are published
  if (m->thread == 0) {
    for (int t = 1; t < threads && t < 1024; ++t) combine(list, slots.data[t]);
    combine_ranks(list, size, combine);
  }
  const bool updates = m->thread == 0 && process().rank() == 0;
  if (!blocking) {
    local_barrier(loc, gtid);  // thread 0 has read every copy: they may go
    return updates ? 1 : 0;
  }
  if (updates) return 1;  // __kmpc_end_reduce merges and lets the others go
  // The reduction's barrier, a synchronization point, for every other
  // thread: the same two barriers rank 0's thread 0 meets in
  // __kmpc_end_reduce, each rank's thread 0 merging between them. (One
  // barrier here left rank 0's other threads a barrier short of its thread
  // 0: a blocking reduction, `omp for reduction` in a region or any flang
  // reduction, hung with two threads a rank.)
  synchronize(loc, gtid, *m);
  return 0;
}

// A critical section's name (kmp_critical_name, 32 bytes the compiler puts
// in the program's data) is where libomp keeps the section's lock: its
// first user stores there a pointer to a lock libomp allocated in this
// process's own heap. Program data is merged, rolled back and adopted from
// rank 0, so a rank would be left with a pointer into another rank's heap
// (or none, after a roll back, beside a lock libomp thinks it made). So
// libomp gets a name of this process's own for each of the program's, kept
// outside the program's memory, and the program's stays as the compiler
// made it, alike on every rank.
struct alignas(16) critical_name {
  std::int32_t words[8];
};

critical_name* own_name(void* program_name) {
  if (program_name == nullptr || cluster_process::get() == nullptr) return static_cast<critical_name*>(program_name);
  // A critical section in a loop body enters and leaves the same name at
  // every iteration: each thread remembers its last one, so the table's
  // lock is taken once per thread and name, not twice per iteration.
  // Names are never freed, so a remembered one stays valid.
  thread_local void* last_program __attribute__((tls_model("initial-exec"))) = nullptr;
  thread_local critical_name* last_own __attribute__((tls_model("initial-exec"))) = nullptr;
  if (program_name == last_program) return last_own;
  runtime_scope scope;  // the runtime's memory, never merged
  static std::mutex lock;
  static auto* names = new std::unordered_map<void*, critical_name*>;
  std::lock_guard hold(lock);
  critical_name*& own = (*names)[program_name];
  if (own == nullptr) own = new critical_name{};
  last_program = program_name;
  last_own = own;
  return own;
}

}  // namespace
}  // namespace selfsched::cluster

using namespace selfsched::cluster;

extern "C" {

// ---- The team: cluster-wide numbers at the shared region's level, for the
// program (the runtime's own calls get its process's team).

namespace {
using selfsched::cluster::code_of_runtime;
bool asks_for_program(void* caller) { return !code_of_runtime(reinterpret_cast<std::uintptr_t>(caller)); }

int thread_num(void* caller) {
  SELFSCHED_NEXT(omp_get_thread_num);
  if (member_state* m = shared_member(); m != nullptr && asks_for_program(caller)) return m->number;
  return real();
}
int num_threads(void* caller) {
  SELFSCHED_NEXT(omp_get_num_threads);
  if (shared_member() != nullptr && asks_for_program(caller)) return team().size();
  return real();
}
int team_size(int level, void* caller) {
  SELFSCHED_NEXT(omp_get_team_size);
  cluster_process* p = cluster_process::get();
  if (level == 1 && p != nullptr && p->region().active && p->region().shared && asks_for_program(caller))
    return team().size();
  return real(level);
}
int ancestor_thread_num(int level, void* caller) {
  SELFSCHED_NEXT(omp_get_ancestor_thread_num);
  const int local = real(level);
  cluster_process* p = cluster_process::get();
  if (level == 1 && p != nullptr && p->region().active && p->region().shared && local >= 0 && asks_for_program(caller))
    return team().number(p->rank(), local);
  return local;
}
}  // namespace

__attribute__((visibility("default"))) int omp_get_thread_num() { return thread_num(__builtin_return_address(0)); }
__attribute__((visibility("default"))) int omp_get_num_threads() { return num_threads(__builtin_return_address(0)); }
__attribute__((visibility("default"))) int omp_get_team_size(int level) {
  return team_size(level, __builtin_return_address(0));
}
__attribute__((visibility("default"))) int omp_get_ancestor_thread_num(int level) {
  return ancestor_thread_num(level, __builtin_return_address(0));
}
// Fortran's names (omp_lib): the same, arguments by reference.
__attribute__((visibility("default"))) int omp_get_thread_num_() { return thread_num(__builtin_return_address(0)); }
__attribute__((visibility("default"))) int omp_get_num_threads_() { return num_threads(__builtin_return_address(0)); }
__attribute__((visibility("default"))) int omp_get_team_size_(const int* level) {
  return team_size(*level, __builtin_return_address(0));
}
__attribute__((visibility("default"))) int omp_get_ancestor_thread_num_(const int* level) {
  return ancestor_thread_num(*level, __builtin_return_address(0));
}

// ---- Static loops (and sections, which clang lowers the same way).

#define SELFSCHED_STATIC_INIT(name, T)                                                                           \
  __attribute__((visibility("default"))) void name(ident* loc, std::int32_t gtid, std::int32_t schedule,        \
                                                   std::int32_t* last, T* lower, T* upper,                        \
                                                   std::make_signed_t<T>* stride, std::make_signed_t<T> incr,     \
                                                   std::make_signed_t<T> chunk) {                                 \
    SELFSCHED_NEXT(name);                                                                                        \
    if (!split_here<T>(loc, schedule, last, lower, upper, stride, incr, chunk))                                  \
      real(loc, gtid, schedule, last, lower, upper, stride, incr, chunk);                                       \
  }
SELFSCHED_STATIC_INIT(__kmpc_for_static_init_4, std::int32_t)
SELFSCHED_STATIC_INIT(__kmpc_for_static_init_4u, std::uint32_t)
SELFSCHED_STATIC_INIT(__kmpc_for_static_init_8, std::int64_t)
SELFSCHED_STATIC_INIT(__kmpc_for_static_init_8u, std::uint64_t)
#undef SELFSCHED_STATIC_INIT

// ---- Synchronization points.

__attribute__((visibility("default"))) void __kmpc_barrier(ident* loc, std::int32_t gtid) {
  if (member_state* m = shared_member()) return synchronize(loc, gtid, *m);
  local_barrier(loc, gtid);
}

// ---- One thread of the team: rank 0's, so its writes reach every rank at
// the next synchronization point.

__attribute__((visibility("default"))) std::int32_t __kmpc_master(ident* loc, std::int32_t gtid) {
  SELFSCHED_NEXT(__kmpc_master);
  static const auto end = next_definition<void (*)(ident*, std::int32_t)>("__kmpc_end_master");
  const std::int32_t mine = real(loc, gtid);
  if (shared_member() == nullptr || process().rank() == 0 || mine == 0) return mine;
  end(loc, gtid);  // this rank's thread 0 is not the team's
  return 0;
}

__attribute__((visibility("default"))) std::int32_t __kmpc_masked(ident* loc, std::int32_t gtid, std::int32_t filter) {
  SELFSCHED_NEXT(__kmpc_masked);
  member_state* m = shared_member();
  if (m == nullptr) return real(loc, gtid, filter);
  const cluster_team& t = team();
  const int rank = process().rank();
  // The filter names a thread of the cluster-wide team.
  if (filter < t.first(rank) || filter >= t.first(rank) + t.threads(rank)) return 0;
  return real(loc, gtid, filter - t.first(rank));
}

// The first thread of the cluster-wide team to reach a `single` runs it:
// this rank's first thread there claims it (single_claims.hpp), and if
// another rank's did first, lets it go as libomp's losers do. Without
// one-sided MPI between the ranks, singles go round the ranks in turn.
__attribute__((visibility("default"))) std::int32_t __kmpc_single(ident* loc, std::int32_t gtid) {
  SELFSCHED_NEXT(__kmpc_single);
  static const auto end = next_definition<void (*)(ident*, std::int32_t)>("__kmpc_end_single");
  const std::int32_t mine = real(loc, gtid);
  member_state* m = shared_member();
  if (m == nullptr) return mine;
  const std::uint64_t count = ++m->singles;  // every thread counts, so the winner's count is the construct's
  cluster_process& p = process();
  if (mine == 0 || p.ranks() == 1) return mine;
  using claim = single_claim_outcome;
  static std::atomic<bool> by_turns{false};  // the agent cannot claim: singles go round the ranks
  std::int64_t results[8] = {static_cast<std::int64_t>(claim::by_turns)};
  if (!by_turns.load(std::memory_order_relaxed))
    p.ask_agent(request_kind::single_claim,
                {static_cast<std::int64_t>(p.region().number), static_cast<std::int64_t>(count)}, results);
  claim answer = static_cast<claim>(results[0]);
  if (answer == claim::by_turns) {
    by_turns.store(true, std::memory_order_relaxed);
    const bool mine_in_turn = static_cast<int>((count - 1) % static_cast<std::uint64_t>(p.ranks())) == p.rank();
    answer = mine_in_turn ? claim::taken : claim::taken_elsewhere;
  }
  if (answer == claim::taken) return mine;
  if (answer == claim::too_far_apart)
    p.stop("selfsched-mpirun --cluster: the threads of the parallel region at " + describe_site(loc) +
           " are more than " + std::to_string(single_claim_slots) +
           " single constructs apart (nowait singles without a barrier between): cluster mode cannot tell which "
           "thread runs each; stopping the job");
  end(loc, gtid);
  return 0;
}

// ---- Reductions.

__attribute__((visibility("default"))) std::int32_t __kmpc_reduce_nowait(ident* loc, std::int32_t gtid,
                                                                          std::int32_t vars, std::size_t size,
                                                                          void* list, reduce_function combine,
                                                                          void* lock) {
  SELFSCHED_NEXT(__kmpc_reduce_nowait);
  if (shared_member() == nullptr) return real(loc, gtid, vars, size, list, combine, own_name(lock));
  return reduce(loc, gtid, vars, size, list, combine, lock, false);
}

__attribute__((visibility("default"))) std::int32_t __kmpc_reduce(ident* loc, std::int32_t gtid, std::int32_t vars,
                                                                   std::size_t size, void* list,
                                                                   reduce_function combine, void* lock) {
  SELFSCHED_NEXT(__kmpc_reduce);
  if (shared_member() == nullptr) return real(loc, gtid, vars, size, list, combine, own_name(lock));
  return reduce(loc, gtid, vars, size, list, combine, lock, true);
}

__attribute__((visibility("default"))) void __kmpc_end_reduce_nowait(ident* loc, std::int32_t gtid, void* lock) {
  SELFSCHED_NEXT(__kmpc_end_reduce_nowait);
  if (shared_member() == nullptr) real(loc, gtid, own_name(lock));
}

__attribute__((visibility("default"))) void __kmpc_end_reduce(ident* loc, std::int32_t gtid, void* lock) {
  SELFSCHED_NEXT(__kmpc_end_reduce);
  member_state* m = shared_member();
  if (m == nullptr) return real(loc, gtid, own_name(lock));
  // Rank 0's thread 0 has updated the shared variables: the reduction's
  // barrier, which the others wait at.
  synchronize(loc, gtid, *m);
}

// ---- What a rank cannot share: updates made under a lock to its own copy,
// and constructs that order or wait on other threads' iterations.

#define SELFSCHED_FLAGGED(ret, name, params, args)                      \
  __attribute__((visibility("default"))) ret name params {               \
    SELFSCHED_NEXT(name);                                                 \
    if (shared_member() != nullptr) process().region().flags.fetch_or(flag_critical); \
    return real args;                                                     \
  }
SELFSCHED_FLAGGED(void, __kmpc_critical, (ident * loc, std::int32_t gtid, void* crit), (loc, gtid, own_name(crit)))
SELFSCHED_FLAGGED(void, __kmpc_critical_with_hint, (ident * loc, std::int32_t gtid, void* crit, std::uint32_t hint),
                  (loc, gtid, own_name(crit), hint))
SELFSCHED_FLAGGED(void, omp_set_lock, (omp_lock_t * lock), (lock))
SELFSCHED_FLAGGED(void, omp_set_nest_lock, (omp_nest_lock_t * lock), (lock))
SELFSCHED_FLAGGED(int, omp_test_lock, (omp_lock_t * lock), (lock))
SELFSCHED_FLAGGED(int, omp_test_nest_lock, (omp_nest_lock_t * lock), (lock))
SELFSCHED_FLAGGED(void, omp_set_lock_, (omp_lock_t * lock), (lock))
SELFSCHED_FLAGGED(void, omp_set_nest_lock_, (omp_nest_lock_t * lock), (lock))
#undef SELFSCHED_FLAGGED

__attribute__((visibility("default"))) void __kmpc_end_critical(ident* loc, std::int32_t gtid, void* crit) {
  SELFSCHED_NEXT(__kmpc_end_critical);
  real(loc, gtid, own_name(crit));
}

__attribute__((visibility("default"))) void __kmpc_flush(ident* loc) {
  SELFSCHED_NEXT(__kmpc_flush);
  // A flush orders memory between threads that then read each other's
  // writes without a barrier: across ranks they never would.
  if (shared_member() != nullptr) process().region().flags.fetch_or(flag_unshareable);
  real(loc);
}

// A dispatched loop libselfsched does not serve is the runtime's: it would
// run every iteration on every rank, and writes of a value a location held
// before are invisible to the merge, so the result could be silently wrong.
// Decided before the runtime sets the loop up (its dispatch buffers must not
// be left half used).
static void leave_if_unshared_loop(ident* loc, std::int32_t gtid, std::int32_t schedule) {
  const std::int32_t kind = without_modifiers(schedule);
  if (kind > ord_lower && kind < ord_upper) run_region_again_replicated(loc, gtid, "an ordered loop");
  if (!selfsched::omp::bridge::serves_loop(schedule))
    run_region_again_replicated(loc, gtid, "a loop the OpenMP runtime schedules (a kind omp_set_schedule chose)");
}

#define SELFSCHED_DISPATCH_INIT(name, T)                                                                        \
  __attribute__((visibility("default"))) void name(ident* loc, std::int32_t gtid, std::int32_t schedule, T lb,  \
                                                   T ub, std::make_signed_t<T> st, std::make_signed_t<T> chunk) { \
    SELFSCHED_NEXT(name);                                                                                       \
    if (shared_member() != nullptr) leave_if_unshared_loop(loc, gtid, schedule);                               \
    real(loc, gtid, schedule, lb, ub, st, chunk);                                                              \
  }
SELFSCHED_DISPATCH_INIT(__kmpc_dispatch_init_4, std::int32_t)
SELFSCHED_DISPATCH_INIT(__kmpc_dispatch_init_4u, std::uint32_t)
SELFSCHED_DISPATCH_INIT(__kmpc_dispatch_init_8, std::int64_t)
SELFSCHED_DISPATCH_INIT(__kmpc_dispatch_init_8u, std::uint64_t)
#undef SELFSCHED_DISPATCH_INIT

__attribute__((visibility("default"))) void __kmpc_doacross_init(ident* loc, std::int32_t gtid, std::int32_t dims,
                                                                  const void* bounds) {
  SELFSCHED_NEXT(__kmpc_doacross_init);
  if (shared_member() != nullptr) run_region_again_replicated(loc, gtid, "a doacross loop (ordered(n) with depend)");
  real(loc, gtid, dims, bounds);
}

__attribute__((visibility("default"))) void __kmpc_copyprivate(ident* loc, std::int32_t gtid, std::size_t size,
                                                                void* data, void (*copy)(void*, void*),
                                                                std::int32_t didit) {
  SELFSCHED_NEXT(__kmpc_copyprivate);
  if (shared_member() != nullptr) run_region_again_replicated(loc, gtid, "single copyprivate");
  real(loc, gtid, size, data, copy, didit);
}

}  // extern "C"

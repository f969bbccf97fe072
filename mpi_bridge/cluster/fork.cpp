// Parallel regions of the initial thread. __kmpc_fork_call (fork_stub.S)
// asks prepare_fork, before libomp forks, whether the region is shared or
// replicated; every thread of the team then runs the region's function
// through run_member below, which numbers it, gives it its arena, and ends
// the region with a synchronization point. A conflict (a merge that found
// two ranks changing one byte, or a construct that cannot be shared) sends
// every thread back to run_member's start: memory goes back to what the
// region found and the region runs again, replicated.
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "allocation.hpp"
#include "interposed.hpp"

namespace selfsched::cluster {

// The cluster-wide team the program asked for: omp_set_num_threads (every
// region after), num_threads(n) (the next one); 0: the ranks' own counts.
int team_request = 0;
int pushed_request = 0;
void choose_technique_for_runtime_loops();  // outer_chunks.cpp
void feed_next_region(bool shared);          // outer_chunks.cpp

namespace {

using microtask_t = void (*)(std::int32_t*, std::int32_t*, ...);
using invoke_t = int (*)(microtask_t, int gtid, int tid, int argc, void** argv, void** exit_frame);

thread_local member_state member __attribute__((tls_model("initial-exec")));
thread_local bool in_member __attribute__((tls_model("initial-exec"))) = false;
thread_local int initial __attribute__((tls_model("initial-exec"))) = -1;  // -1: not known yet

bool is_initial_thread() {
  if (initial < 0) initial = syscall(SYS_gettid) == getpid() ? 1 : 0;
  return initial == 1;
}

int real_level() {
  static const auto f = next_definition<int (*)()>("omp_get_level");
  return f != nullptr ? f() : 0;
}

// Inside a host `teams` construct of several teams (OpenMP 5.0): the league
// is the runtime's own, and a region its teams start is theirs, run on every
// rank as one process runs it, as serial code is (omp_get_level() does not
// count teams, so without this the initial thread's inner region looked
// like a top-level one, shared with the other ranks while the other teams'
// were not: a crash at the end).
// A league of one team reports one team, as no league does: the initial
// thread counts the host teams constructs it is inside (__kmpc_fork_teams
// below).
thread_local int teams_depth __attribute__((tls_model("initial-exec"))) = 0;
bool in_host_teams() {
  static const auto f = next_definition<int (*)()>("omp_get_num_teams");
  return teams_depth > 0 || (f != nullptr && f() > 1);
}

// This rank's part of a team of n threads: a share of them, or all n when
// the team is smaller than the ranks (such a region runs replicated).
int local_part(int n, const cluster_process& p) {
  if (n < p.ranks()) return n;
  return spread_team(n, p.ranks())[static_cast<std::size_t>(p.rank())];
}

// Will libomp run a region with exactly `threads` threads? Not when it may
// give fewer (OMP_DYNAMIC, a thread limit): the same answer on every rank,
// whose environments are the same.
bool runtime_gives(int threads) {
  static const auto dynamic = next_definition<int (*)()>("omp_get_dynamic");
  static const auto limit = next_definition<int (*)()>("omp_get_thread_limit");
  return (dynamic == nullptr || dynamic() == 0) && (limit == nullptr || threads <= limit());
}

// The next fork runs the cluster-wide team's number of threads here.
void run_whole_team(const region_state& r) {
  static const auto push = next_definition<void (*)(ident*, std::int32_t, std::int32_t)>("__kmpc_push_num_threads");
  static const auto gtid = next_definition<std::int32_t (*)(ident*)>("__kmpc_global_thread_num");
  auto* loc = static_cast<ident*>(const_cast<void*>(r.site));
  if (r.team && r.team->size() > 0) push(loc, gtid(loc), r.team->size());
}

void say_replicated(cluster_process& p) {
  region_state& r = p.region();
  if (p.rank() != 0) return;
  p.say("selfsched-mpirun --cluster: the parallel region at " + describe_site(r.site) +
        " runs replicated on every rank from now on: " + r.why);
}

}  // namespace

member_state* shared_member() {
  if (!in_member || !member.shared) return nullptr;
  return real_level() == 1 ? &member : nullptr;
}

member_state* region_member() {
  if (!in_member) return nullptr;
  return real_level() == 1 ? &member : nullptr;
}

void local_barrier(ident* loc, std::int32_t gtid) {
  static const auto real = next_definition<void (*)(ident*, std::int32_t)>("__kmpc_barrier");
  real(loc, gtid);
}

std::string describe_site(const void* loc) {
  const auto* id = static_cast<const ident*>(loc);
  if (id == nullptr || id->psource == nullptr) return "(unknown place)";
  // ";file;function;line;col;;"
  std::string fields[4];
  const char* s = id->psource;
  for (int f = -1; *s != '\0' && f < 4; ++s) {
    if (*s == ';') {
      ++f;
      continue;
    }
    if (f >= 0) fields[f] += *s;
  }
  if (fields[0].empty() || fields[0] == "unknown") return "(a place the binary does not name: build with -g)";
  return fields[0] + ":" + fields[2] + " in " + fields[1];
}

void synchronize(ident* loc, std::int32_t gtid, member_state& m, bool region_end) {
  cluster_process& p = *cluster_process::get();
  region_state& r = p.region();
  local_barrier(loc, gtid);  // this rank's threads are done writing
  if (m.thread == 0) {
    if (r.abort_here.load()) r.replay.store(true);
    else if (!p.merge_shared(region_end)) r.replay.store(true);
  }
  local_barrier(loc, gtid);  // everyone knows the answer
  if (r.replay.load()) std::longjmp(m.again, 1);
}

void run_region_again_replicated(ident* loc, std::int32_t gtid, const char* construct) {
  cluster_process& p = *cluster_process::get();
  region_state& r = p.region();
  if (!r.abort_here.exchange(true)) {
    runtime_scope scope;
    r.why = std::string("it contains ") + construct + ", which ranks cannot share";
  }
  local_barrier(loc, gtid);  // every thread of this rank met the construct
  r.replay.store(true);
  std::longjmp(member.again, 1);
}

// Every thread of the team runs the region's function here.
static void run_member(std::int32_t* gtid, std::int32_t* btid, ...) {
  static const auto invoke = next_definition<invoke_t>("__kmp_invoke_microtask");
  cluster_process& p = *cluster_process::get();
  region_state& r = p.region();
  auto* loc = static_cast<ident*>(const_cast<void*>(r.site));
  member.thread = *btid;
  in_member = true;
  if (setjmp(member.again) == 0) {
    member.shared = r.shared;
    member.singles = 0;
    member.number = r.shared ? r.team->number(p.rank(), member.thread) : member.thread;
    // Replicated, every thread allocates from the serial arena: rank 0's
    // memory is every rank's afterwards anyway.
    set_thread_arena(r.shared ? 1 + member.number : 0, r.shared);
    void* exit_frame = nullptr;
    invoke(reinterpret_cast<microtask_t>(r.microtask), *gtid, member.thread, static_cast<int>(r.args.size()),
           r.args.data(), &exit_frame);
    // The region's end is a synchronization point; an unchecked replicated
    // region's is not: it ends as in one process, at libomp's join.
    if (member.shared) {
      synchronize(loc, *gtid, member, true);
    } else if (!r.unchecked) {
      local_barrier(loc, *gtid);  // this rank's threads are done writing
      if (member.thread == 0) p.adopt_rank_zero();
    }
  }
  // Done, or back from a conflict (every thread of this rank, at the same
  // construct): the team joins at libomp's barrier after this function, and
  // after_fork decides what comes next. libomp's join is the runtime's work,
  // on the initial thread too (after_fork gives it the serial arena back).
  set_thread_arena(-1, false);
  in_member = false;
}

}  // namespace selfsched::cluster

using namespace selfsched::cluster;

// Called by __kmpc_fork_call (fork_stub.S) with the caller's registers
// (rdi, rsi, rdx, rcx, r8, r9) and its stack arguments: which function libomp
// should run on every thread, and libomp's fork.
struct fork_choice {
  void* microtask;
  void* fork;
};
extern "C" __attribute__((visibility("hidden"))) fork_choice selfsched_cluster_prepare_fork(
    const std::uint64_t* registers, const std::uint64_t* stack_arguments) {
  static void* const real = dlsym(RTLD_NEXT, "__kmpc_fork_call");
  runtime_scope scope;
  auto* microtask = reinterpret_cast<void*>(registers[2]);
  cluster_process* p = cluster_process::get();
  if (p == nullptr || p->ranks() < 1 || !is_initial_thread() || in_member || real_level() > 0 || p->region().active ||
      in_host_teams())
    return {microtask, real};
  static const bool chosen = (choose_technique_for_runtime_loops(), true);
  (void)chosen;
  const auto argc = static_cast<int>(registers[1]);
  std::vector<void*> args(static_cast<std::size_t>(argc > 0 ? argc : 0));
  for (int i = 0; i < argc; ++i)
    args[static_cast<std::size_t>(i)] = reinterpret_cast<void*>(i < 3 ? registers[3 + i] : stack_arguments[i - 3]);
  const void* site = reinterpret_cast<const void*>(registers[0]);
  const int request = pushed_request != 0 ? pushed_request : team_request;
  pushed_request = 0;
  const std::vector<int>& each_rank = p->threads_per_rank();  // the first region's hello, whatever the request
  const std::vector<int> threads = request != 0 ? spread_team(request, p->ranks()) : each_rank;
  const bool shareable = p->ranks() > 1 && runtime_gives(threads[static_cast<std::size_t>(p->rank())]) &&
                         std::find(threads.begin(), threads.end(), 0) == threads.end();
  const bool shared =
      p->begin_region(site, microtask, std::move(args), reinterpret_cast<std::uintptr_t>(stack_arguments), shareable, threads);
  feed_next_region(shared);
  // Replicated, every rank runs the region as one process would: with the
  // whole cluster-wide team.
  if (!shared) run_whole_team(p->region());
  // libomp's fork, until run_member, is the runtime's work: what it asks the
  // C library for there (OMP_DYNAMIC's scan of /proc opens a directory per
  // process, sized by the machine's state) must not land in the serial arena.
  set_thread_arena(-1, false);
  return {reinterpret_cast<void*>(&run_member), real};
}

// The two variadic entry points below share their frame: the argument
// registers saved at 0(%rsp) (rdi, rsi, rdx, rcx, r8, r9, rax), %rbx
// pointing at them, %r12 the function to call with them (argc in the second
// register: arguments past the third are copied from the caller's stack).
asm(R"(
    .macro selfsched_enter
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    pushq %rbx
    pushq %r12
    .cfi_offset %rbx, -24
    .cfi_offset %r12, -32
    subq $64, %rsp
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    .endm

    .macro selfsched_call_saved
    movslq 8(%rbx), %rcx
    subq $3, %rcx
    jle 3f
    leaq 1(%rcx), %rax
    andq $-2, %rax                  # a multiple of 16 bytes
    shlq $3, %rax
    subq %rax, %rsp
    xorq %rax, %rax
2:
    movq 16(%rbp,%rax,8), %rdx
    movq %rdx, (%rsp,%rax,8)
    incq %rax
    cmpq %rcx, %rax
    jl 2b
3:
    movq 0(%rbx), %rdi
    movq 8(%rbx), %rsi
    movq 16(%rbx), %rdx
    movq 24(%rbx), %rcx
    movq 32(%rbx), %r8
    movq 40(%rbx), %r9
    movq 48(%rbx), %rax
    call *%r12
    movq %rbx, %rsp
    .endm

    .macro selfsched_leave
    addq $64, %rsp
    popq %r12
    popq %rbx
    popq %rbp
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .endm
)");

// __kmpc_fork_call(loc, argc, microtask, ...): clang's call to start a
// parallel region. Variadic, so it cannot be written in C++ and still pass
// its arguments on untouched: it saves the argument registers, asks
// selfsched_cluster_prepare_fork (above) which function libomp should run
// (given the caller's stack pointer: above it lie the caller's locals,
// shared memory), calls libomp's __kmpc_fork_call with the same registers
// and a copy of the stack arguments, then asks selfsched_cluster_after_fork
// whether the region runs again (a conflict), and if so calls libomp again.
// x86-64 only.
asm(R"(
    .text
    .globl __kmpc_fork_call
    .type __kmpc_fork_call, @function
    .p2align 4
__kmpc_fork_call:
    selfsched_enter
    movq %rsp, %rdi                 # the registers
    leaq 16(%rbp), %rsi             # the stack arguments: the caller's stack pointer at the call
    call selfsched_cluster_prepare_fork
    movq %rax, 16(%rsp)             # the function every thread runs
    movq %rdx, %r12                 # libomp's __kmpc_fork_call
    movq %rsp, %rbx                 # the saved registers
1:
    selfsched_call_saved
    call selfsched_cluster_after_fork
    testq %rax, %rax
    jz 4f
    movq %rax, 16(%rbx)
    jmp 1b
4:
    selfsched_leave
    .size __kmpc_fork_call, .-__kmpc_fork_call
)");

// __kmpc_fork_teams(loc, argc, microtask, ...): a host teams construct.
// Variadic as __kmpc_fork_call is: the arguments go on to libomp's untouched
// (the stack ones copied), between a count of the constructs the thread is
// inside, up and down again. x86-64 only.
asm(R"(
    .text
    .globl __kmpc_fork_teams
    .type __kmpc_fork_teams, @function
    .p2align 4
__kmpc_fork_teams:
    selfsched_enter
    call selfsched_cluster_teams_begin
    movq %rax, %r12                 # libomp's __kmpc_fork_teams
    movq %rsp, %rbx                 # the saved registers
    selfsched_call_saved
    call selfsched_cluster_teams_end
    selfsched_leave
    .size __kmpc_fork_teams, .-__kmpc_fork_teams
)");

extern "C" {

__attribute__((visibility("hidden"))) void* selfsched_cluster_teams_begin() {
  static void* const real = dlsym(RTLD_NEXT, "__kmpc_fork_teams");
  ++teams_depth;
  return real;
}
__attribute__((visibility("hidden"))) void selfsched_cluster_teams_end() { --teams_depth; }

void __kmpc_fork_call(ident* loc, std::int32_t argc, void* microtask, ...);  // fork_stub.S

// After libomp joined the region's team (fork.cpp's stub calls it): the
// function to run the region again with, or nullptr when it is over. A
// conflict sends the region back to its start, replicated, with the whole
// cluster-wide team on every rank, as one process would run it.
extern "C" __attribute__((visibility("hidden"))) void* selfsched_cluster_after_fork() {
  cluster_process* p = cluster_process::get();
  if (p == nullptr || !p->region().active || in_member || !is_initial_thread()) return nullptr;
  region_state& r = p->region();
  if (!r.replay.load()) {
    p->end_region();
    set_thread_arena(0, false);  // serial code again: the program's
    return nullptr;
  }
  runtime_scope scope;
  p->roll_back_region();
  r.shared = false;
  r.replayed = true;
  r.replay.store(false);
  r.abort_here.store(false);
  if (p->remember_replicated(r.site)) say_replicated(*p);
  feed_next_region(false);
  run_whole_team(r);
  return reinterpret_cast<void*>(&run_member);
}

// clang's `parallel if(...)`: a true condition is a fork like any other.
__attribute__((visibility("default"))) void __kmpc_fork_call_if(ident* loc, std::int32_t argc, void* microtask,
                                                                std::int32_t cond, void* args) {
  SELFSCHED_NEXT(__kmpc_fork_call_if);
  if (cond && cluster_process::get() != nullptr) {
    if (args != nullptr) __kmpc_fork_call(loc, argc, microtask, args);
    else __kmpc_fork_call(loc, argc, microtask);
    return;
  }
  real(loc, argc, microtask, cond, args);
}

// num_threads(n): n threads cluster-wide, a share on each rank (all n on
// each when n < ranks: the region runs replicated).
__attribute__((visibility("default"))) void __kmpc_push_num_threads(ident* loc, std::int32_t gtid,
                                                                    std::int32_t n) {
  SELFSCHED_NEXT(__kmpc_push_num_threads);
  cluster_process* p = cluster_process::get();
  if (p == nullptr || in_member || !is_initial_thread()) return real(loc, gtid, n);
  pushed_request = n;
  real(loc, gtid, n > 0 ? local_part(n, *p) : n);
}

namespace {
void set_num_threads(int n, void* caller) {
  static const auto real = next_definition<void (*)(int)>("omp_set_num_threads");
  cluster_process* p = cluster_process::get();
  if (p == nullptr || in_member || !is_initial_thread() || n <= 0 || code_of_runtime(reinterpret_cast<std::uintptr_t>(caller)))
    return real(n);
  team_request = n;
  real(local_part(n, *p));
}
// Outside any region: what the next one will have, cluster-wide.
int max_threads(void* caller) {
  static const auto real = next_definition<int (*)()>("omp_get_max_threads");
  cluster_process* p = cluster_process::get();
  if (p == nullptr || in_member || !is_initial_thread() || p->region().active ||
      code_of_runtime(reinterpret_cast<std::uintptr_t>(caller)))
    return real();
  if (team_request != 0) return team_request;
  int sum = 0;
  for (int t : p->threads_per_rank()) sum += t;
  return sum;
}
}  // namespace

__attribute__((visibility("default"))) void omp_set_num_threads(int n) { set_num_threads(n, __builtin_return_address(0)); }
__attribute__((visibility("default"))) void omp_set_num_threads_(const int* n) {
  set_num_threads(*n, __builtin_return_address(0));
}
__attribute__((visibility("default"))) int omp_get_max_threads() { return max_threads(__builtin_return_address(0)); }
__attribute__((visibility("default"))) int omp_get_max_threads_() { return max_threads(__builtin_return_address(0)); }

}  // extern "C"

// A team's shared state: the ring of loop slots its threads claim chunks
// from, and each member's place in the team and in its current loop.
//
// A team owns a ring of loop_slots. Each thread counts the selfsched loops it
// has entered in the team; loop number i lives in slot i % ring size. The
// first thread to arrive sets the slot up, the last one to leave frees it, so
// nowait loops may run ahead of each other by up to a ring's worth (more
// than that, and the thread ahead waits for the slot, as libomp does with its
// dispatch buffers). The claim paths over this state are loop.hpp's; which
// team a thread is in, teams.hpp's.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/auto_tuning.hpp"
#include "selfsched/core/plan.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/machine/placement.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/outer_source.hpp"
#include "state/doacross_state.hpp"
#include "state/profile_records.hpp"
#include "selfsched/team_auto/iteration_shares.hpp"

namespace selfsched::omp {

struct active_schedule;  // active_schedule.hpp
struct site_state;       // site_state.hpp

constexpr int loop_ring_size = 16;

// The loop's schedule modifier (OpenMP 5.0): under monotonic, each thread
// gets its chunks in increasing order of iterations. Unmodified dynamic,
// guided and runtime schedules are nonmonotonic, ordered ones monotonic.
enum class chunk_order { monotonic, nonmonotonic };

// What a fixed technique's chunk_plan depends on.
struct plan_key {
  const technique_info* base = nullptr;
  iter_t n = 0, chunk = 0, min_chunk = 0, max_chunk = 0, granule = 0;
  int p = 0;
  double mu = 0, sigma = 0, overhead = 0;
  std::uint64_t seed = 0;
  bool operator==(const plan_key&) const = default;
  static plan_key of(const schedule_spec& spec, const loop_params& lp) {
    return {spec.base, lp.n, lp.chunk, lp.min_chunk, lp.max_chunk, lp.granule, lp.p, lp.mu, lp.sigma, lp.overhead,
            lp.seed};
  }
};

struct alignas(64) loop_slot {
  // 3 * instance + {0: free for it, 1: being set up, 2: ready}.
  std::atomic<std::uint64_t> sequence{0};
  static constexpr std::uint64_t free_for(std::uint64_t instance) { return 3 * instance; }
  static constexpr std::uint64_t setting_up(std::uint64_t instance) { return 3 * instance + 1; }
  static constexpr std::uint64_t ready(std::uint64_t instance) { return 3 * instance + 2; }

  // Set up by the first thread, then read-only until the slot is freed.
  iter_t n = 0;
  int team_size = 1;
  std::shared_ptr<const chunk_plan> plan;  // fixed techniques: one fetch-and-add per claim
  plan_key planned;                        // what `plan` was built for
  std::unique_ptr<scheduler> serial;   // weighted and adaptive: a short critical section
  bool adaptive = false;
  bool uses_queue = false;             // weighted: each request carries Q_k (runqueue.hpp)
  site_state* history_owner = nullptr;  // adaptive: whose history `serial` uses
  // auto (auto_tuning.hpp): each thread sizes its own chunks from what it
  // measured, and next_step counts iterations handed out, claimed by CAS.
  bool self_tuning = false;
  iter_t min_chunk = 1;
  site_state* tuning_site = nullptr;  // where threads start from and leave what they learned
  double learned_rate = 0;            // the team's rate in the site's last instance (iterations/s)
  std::int64_t started_ns = 0;
  // Nonmonotonic auto loops: each thread claims from its own share first
  // (team_auto/iteration_shares.hpp); next_step then counts the iterations handed out.
  bool steals = false;
  iteration_shares shares;
  loop_instance_profile* profile = nullptr;  // nullptr unless SELFSCHED_PROFILE

  // Loops fed by an outer_source (MPI regions): `serial` splits the current
  // outer chunk, which starts at outer_start; the next one is fetched under
  // serial_lock when it runs dry.
  outer_source* outer = nullptr;
  std::uint64_t outer_loop = 0;  // the source's name for this loop
  iter_t outer_start = 0;
  bool outer_done = false;  // next_outer() said size 0: never ask it again for this loop
  bool outer_dropped = false;  // progress() said the rest of the current outer chunk is not wanted
  loop_params params;
  iter_t program_max_chunk = 0;  // the program's max_chunk, before the source's inner_chunk_limit()
  schedule_spec spec;

  // Fixed plans with nothing to time, weigh or profile; of one run (ss,
  // css, static ...) a claim is step * uniform_size, without a lookup.
  bool plain_plan = false;
  iter_t uniform_size = 0;  // 0: look the step up in plan
  iter_t chunk_count = 0;
  // A plain plan's loop as it was set up: the next instance with the same
  // key (every time step of a simulation) reuses the whole set-up.
  struct replay_key {
    loop_site site{};
    const active_schedule* technique = nullptr;  // nullptr: nothing to replay
    iter_t n = 0, clause_chunk = 0;
    int team_size = 0;
    chunk_order order = chunk_order::monotonic;
    bool operator==(const replay_key&) const = default;
  };
  replay_key replay;

  alignas(64) std::atomic<iter_t> next_step{0};
  alignas(64) std::atomic<int> finished{0};
  spin_lock serial_lock;

  doacross_loop doacross;  // ordered(n) loops: dependences served here (doacross_state.hpp)
};

struct team_state {
  // The ring, allocated by the team's first selfsched loop: a team whose
  // loops are all the runtime's (every region of a program that uses no
  // selfsched technique, and each thread's team for loops outside any
  // region) never touches its 15 KB. Kept across regions once allocated.
  loop_slot& slot(std::uint64_t instance) {
    loop_slot* ring = ring_.load(std::memory_order_acquire);
    if (ring == nullptr) [[unlikely]] ring = allocate_ring();
    return ring[instance % loop_ring_size];
  }
  // The last plan a slot built: the next slots' loops of the same shape
  // (successive instances go round the ring) share it.
  spin_lock plan_lock;
  std::shared_ptr<const chunk_plan> last_plan;
  plan_key last_planned;
  // Serves the team's schedule(runtime) loops; fixed when the region begins,
  // as libomp fixes the team's run-sched-var, so every member decides alike.
  const active_schedule* technique = nullptr;
  outer_source* outer = nullptr;  // feeds this team's loops (MPI regions)
  team_placement placement;       // which CPU each member runs on
  // Its threads are libomp's (regions seen through OMPT), not those of a
  // runtime that reports its regions itself (libgomp, gomp.cpp).
  bool libomp_threads = true;
  // SELFSCHED_PROFILE_FORWARDED (forwarded_profile.hpp): each loop left to
  // the runtime, by its place among them: its record, members that left it.
  std::mutex forwarded_lock;
  std::unordered_map<std::uint64_t, std::pair<loop_instance_profile*, int>> forwarded;
  void reset();  // only when no thread uses the team

  team_state() = default;
  team_state(const team_state&) = delete;
  team_state& operator=(const team_state&) = delete;
  ~team_state() { delete[] ring_.load(std::memory_order_relaxed); }

 private:
  loop_slot* allocate_ring();
  std::atomic<loop_slot*> ring_{nullptr};
};

// One member in a loop left to the runtime, when those are profiled.
struct forwarded_probe {
  std::uint64_t entered = 0;  // forwarded loops this member entered
  std::uint64_t index = 0;    // the current one's place among them
  loop_instance_profile* record = nullptr;
  std::int64_t entered_ns = 0;
};

// What one thread knows of the loop it is in.
struct loop_cursor {
  loop_slot* slot = nullptr;  // nullptr: the current loop is libomp's
  std::uint64_t instance = 0;
  std::uint64_t lower = 0;    // the loop's lb, as bits of its own type
  std::int64_t stride = 1;
  std::uint64_t end = 0;      // libgomp: the loop's end, the last chunk's iend
  std::size_t plan_hint = 0;
  iter_t running_size = 0;         // adaptive: the chunk being run ...
  std::int64_t running_since = 0;  // ... and when it was handed out (ns)
  auto_estimate estimate;          // auto: this thread's rates, carried between instances of a site

  // A new loop: what its claims read before they write. The caller sets the
  // bounds; auto loops set `estimate` (join_measured_loop), libgomp `end`.
  void enter(loop_slot& s, std::uint64_t i) {
    slot = &s;
    instance = i;
    plan_hint = 0;
    running_size = 0;
  }
};

// A thread's place in one team.
struct membership {
  team_state* team = nullptr;
  int thread_num = 0;
  int team_size = 1;
  std::uint64_t loops_entered = 0;
  loop_cursor loop;
  thread_probe probe;           // used only when profiling
  // libgomp: omp_get_level() in the region; a loop at another level is in
  // a region selfsched did not see.
  int level = 0;
  bool last_loop_ours = false;  // decides what __kmpc_dispatch_deinit (libgomp: GOMP_loop_end) does
  // This implicit task's own choice (omp_set_schedule in the region): what
  // the regions it starts inherit, never the team's current loops.
  const active_schedule* task_technique = nullptr;
  doacross_thread doacross;     // this thread's ordered(n) loop, if any (doacross_state.hpp)
  forwarded_probe forwarded;    // SELFSCHED_PROFILE_FORWARDED only
};

}  // namespace selfsched::omp

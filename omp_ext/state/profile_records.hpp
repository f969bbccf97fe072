// What a profile records of a loop instance: each thread's share of it and,
// when asked, its chunks. The threads fill these while they run the loop
// (thread_probe, part of their membership: team_state.hpp); profile.hpp
// keeps the finished records and writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched::omp {

struct chunk_event {
  int thread;
  iter_t start, size;
  std::int64_t begin_ns, end_ns;
};

// One thread's share of one loop instance.
struct thread_share {
  int thread = 0;
  int cpu = -1;
  double power = 1.0;             // VP relative to the team's fastest (fixed techniques ignore it)
  double queue_sum = 0;           // Q_k at each request that had one (runqueue.hpp) ...
  iter_t queue_requests = 0;      // ... and how many those were
  iter_t iterations = 0;
  iter_t chunks = 0;
  std::int64_t busy_ns = 0;       // running chunks
  std::int64_t scheduling_ns = 0; // inside claim_next_chunk, less ...
  std::int64_t ranks_wait_ns = 0; // ... waiting there for outer chunks (MPI regions: other ranks)
  std::int64_t first_ns = 0;      // entered the loop
  std::int64_t last_ns = 0;       // found it exhausted
  bool sleeps_at_barriers = false;  // its CPU was shared, so it slept at barriers (barrier_wait.hpp)
};

struct loop_instance_profile {
  loop_site site;
  std::string technique;
  iter_t n = 0;
  int p = 1;
  std::vector<double> powers;  // VP per thread (loop_params::powers); empty: all 1
  std::uint64_t instance = 0;  // of this site
  bool left_to_runtime = false;  // SELFSCHED_PROFILE_FORWARDED: the runtime's loop (forwarded_profile.hpp)
  std::vector<thread_share> threads;
  std::vector<chunk_event> chunks;  // with SELFSCHED_PROFILE_CHUNKS=1
  std::uint64_t chunks_not_kept = 0;  // past the process's bound (profile.cpp)
  std::mutex lock;                  // threads leaving the loop add their share
};

// Per thread, per loop: what the thread measures while it runs the loop.
struct thread_probe {
  thread_share share;
  std::int64_t handed_ns = 0;  // when the running chunk was handed out
  std::size_t open_event = SIZE_MAX;
  std::vector<chunk_event> chunks;
  std::size_t chunk_room = 0;  // chunks this thread may still keep (taken from the process's room)
  std::uint64_t chunks_not_kept = 0;
};

}  // namespace selfsched::omp

// Profiles: who got how much of each loop, how long everyone waited, how far
// from balanced. On only with SELFSCHED_PROFILE=path (then the hot path pays
// two clock reads per chunk); off, it costs one predictable branch.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "libomp_abi.hpp"
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

// ";file;function;line;col;;" -> {"file:line", "function"}; without debug
// info, the call's place in its binary ("app+0x1a2b") and its symbol if any.
std::pair<std::string, std::string> describe_site(loop_site site);

bool profiling();  // SELFSCHED_PROFILE set

// At start: says now, not at exit, when the profile could not be written.
void check_profile_path();
bool profiling_chunks();

// A new instance of the loop at `site` (called by the thread setting it up).
loop_instance_profile* profile_begin(loop_site site, const std::string& technique, iter_t n, int p,
                                     const std::vector<double>& powers);
void probe_enter(thread_probe& probe, int thread);
// A request at `asked_ns` by a thread whose run queue was `queue`, answered
// with chunk c at `got_ns`. Only weighted techniques read Q; a profile does
// not read it for the others (a reading stops its thread for about a
// millisecond: runqueue.hpp), and says so with no_queue_read.
inline constexpr double no_queue_read = 0;
void probe_claim(thread_probe& probe, std::int64_t asked_ns, std::int64_t got_ns, chunk c, double queue,
                 std::int64_t ranks_wait_ns = 0);
// The thread found the loop exhausted at `now`: its share joins the record.
void probe_leave(thread_probe& probe, loop_instance_profile* record, std::int64_t now);
// The last thread out hands the complete record to the profile.
void profile_end(loop_instance_profile* record);

// Writes the JSON profile (also done at exit when SELFSCHED_PROFILE is set).
// false, and why (the file and the system's error), when it cannot.
bool write_profile(const char* path, std::string* why = nullptr);

// The file SELFSCHED_PROFILE names for this process: %p the process id, %r
// the MPI rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or SLURM_PROCID; 0
// without a launcher), %h the host name, %% a percent sign. Under an MPI
// launcher with several ranks and neither %p nor %r, ".rank<r>" goes before
// the extension. `env` is getenv (a parameter for the tests).
std::string profile_path_for_process(const std::string& pattern, const char* (*env)(const char*), long pid);
// The MPI rank a launcher gave this process (OMPI_COMM_WORLD_RANK, PMIX_RANK,
// PMI_RANK, SLURM_PROCID), or nullptr.
const char* launcher_rank(const char* (*env)(const char*));
// Its rank among the launcher's processes on this node
// (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID), or nullptr.
const char* launcher_local_rank(const char* (*env)(const char*));

}  // namespace selfsched::omp

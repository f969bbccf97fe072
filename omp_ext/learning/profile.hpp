// Profiles: who got how much of each loop, how long everyone waited, how far
// from balanced. On only with SELFSCHED_PROFILE=path (then the hot path pays
// two clock reads per chunk); off, it costs one predictable branch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/technique.hpp"
#include "state/profile_records.hpp"

namespace selfsched::omp {

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

// Another layer's section of the profile (bridge::add_profile_section).
void add_profile_producer(const char* name, std::string (*json)());

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

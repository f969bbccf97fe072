// The profile libselfsched writes (SELFSCHED_PROFILE,
// omp_ext/learning/profile.cpp), read back into plain structs with every
// field type- and range-checked, so that selfsched-report never meets a
// surprise: a tampered or truncated profile is refused with the field that is
// wrong, never shown as negative counts and never an exception.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace selfsched::report {

struct thread_record {
  long long thread = 0, cpu = -1;  // cpu -1: unknown
  long long rank = -1, rank_thread = -1;  // merged profiles: its rank, and its number there
  double power = 1;
  std::optional<double> mean_queue;  // absent: the technique did not read Q (not weighted)
  long long iterations = 0, chunks = 0;
  double busy_s = 0, scheduling_s = 0, wait_s = 0;  // wait may dip below 0 by clock skew
  double ranks_wait_s = 0;  // MPI regions: in claims, waiting for outer chunks (other ranks)
};

struct chunk_record {
  long long thread = 0, start = 0, size = 0;
  double begin_s = 0, end_s = 0;
};

struct loop_record {
  long long instance = 0, n = 0, p = 1;
  double wall_begin_s = 0;             // when it began, wall clock (0: not recorded)
  std::string technique;
  double makespan_s = 0, max_over_mean = 1, cov = 0, percent_imbalance = 0, scheduling_s = 0;
  std::vector<thread_record> threads;  // sorted by thread number
  bool has_chunks = false;             // written with SELFSCHED_PROFILE_CHUNKS=1
  bool left_to_runtime = false;        // SELFSCHED_PROFILE_FORWARDED: a loop the runtime served
  std::vector<chunk_record> chunks;
};

struct site_record {
  std::string site, function;
  long long instances = 0;
  double mean_makespan_s = 0;
  std::vector<loop_record> loops;
};

// Cluster mode's section (mpi_bridge/cluster/program.cpp): per parallel
// region, whether it ran shared across the ranks or replicated on each, and
// what its merges moved from this rank.
struct cluster_region_record {
  std::string region, next_run, unshareable_because;
  long long runs_shared = 0, runs_replicated = 0, runs_unchecked = 0, merges = 0, pages_sent = 0, bytes_sent = 0;
  double merge_s = 0, last_shared_s = 0, last_replicated_s = 0;  // 0: not run that way
};
struct cluster_record {
  long long rank = 0, ranks = 1, hot_page_windows = 0;
  std::string write_tracking;
  std::vector<cluster_region_record> regions;
};

struct profile {
  std::string powers_from = "?";
  long long rank = -1;  // the MPI rank that wrote it (-1: none, or not recorded)
  std::string host;
  long long pid = 0;
  std::vector<site_record> sites;
  std::optional<cluster_record> cluster;  // a cluster-mode run's (not merged across profiles)
};

// The profiles of several processes (an MPI job's ranks) as one: per site
// and instance number, one loop over all their threads (renumbered; `rank`
// and `rank_thread` say whose), its chunks on one time line when the
// profiles recorded wall-clock starts, makespan and imbalance over all.
// A profile's rank is the one it recorded, else its place in the list.
profile merge_profiles(const std::vector<profile>& profiles);

// `document` as a profile, or nullopt and why: the first wrong field by its
// path in the document ("sites[0].loops[2].n"), what it holds and what was
// expected. No exception leaves it.
std::optional<profile> parse_profile(const nlohmann::json& document, std::string& why) noexcept;

}  // namespace selfsched::report

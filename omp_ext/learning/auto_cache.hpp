// What auto learned, kept across runs: the second run of a program starts
// each loop site where the first ended (issue 13; auto_tuning.hpp).
//
// One file for every program (SELFSCHED_AUTO_CACHE, default
// ~/.cache/selfsched/auto.json, mode 0600), keyed by the binary (its GNU
// build id, else its path, size and modification time) and the site's call
// offset inside that binary, which ASLR does not move:
//   {"selfsched_auto_cache": 1,
//    "binaries": {"<build id>": {"used": <unix seconds>,
//                 "sites": {"0x1a2b": {"threads": 2, "team_rate": 1.5e7, "runs": 3,
//                                      "estimates": [[busy_s, iterations, claim_s, largest_chunk], ...]}}}}}
// Read once per process, when auto comes into force (read_what_loops_need,
// teams.hpp), else at the first auto loop; written at exit, merged
// with what the file holds then (processes that share it lose at most an
// update, never the file). Bounded: the 16 binaries used last, 256 sites
// each, 1 MiB in all (fewer binaries if need be: every auto process reads
// it). A bad file is named once and ignored (and replaced at exit).
#pragma once

#include <string>

#include "runtime/libomp_abi.hpp"

namespace selfsched::omp {

struct site_state;

// Reads the file now (once per process; a large one takes milliseconds),
// so that the first auto loop does not wait for it with its team.
void read_auto_cache();

// Seeds a new site's auto estimates from the cache (once per site, under
// the caller's care); true when something was found.
bool seed_from_auto_cache(site_state& state, loop_site site);

// The site learned something worth keeping at exit.
void remember_for_auto_cache(site_state& state, loop_site site);

// Cluster mode's choice for a parallel region (bridge::remembered_region):
// "shared", "replicated", "replicated_alike", or "" when none is kept. Kept per binary under
// "regions", keyed by the offset of the region's ident_t in its module.
std::string cached_region_choice(const void* ident);
void cache_region_choice(const void* ident, const char* choice);
// Writes the cache now, not at exit; false when it is off.
bool write_auto_cache_now();

}  // namespace selfsched::omp

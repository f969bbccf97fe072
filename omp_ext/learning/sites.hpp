// What selfsched remembers about a loop site across its instances: the
// adaptive techniques' history (AWF learns from one time step to the next)
// and, for `auto`, each thread's measured rates.
// Keyed by the ident_t* clang passes and the call's return address
// (loop_site), never by its source string, which is ";unknown;unknown;0;0;;"
// in every binary built without debug info.
#pragma once

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/auto_tuning.hpp"
#include "state/site_state.hpp"

namespace selfsched::omp {

// The site's state for an auto loop: the first time, seeded from the auto
// cache and remembered for it (once per site, never per chunk).
site_state& tuning_site_of(loop_site site);

// auto: thread `thread`'s estimate to start an instance of `site` from.
auto_estimate tuned_start(site_state& site, int thread);
// ... and what it measured in that instance.
void keep_tuned(site_state& site, int thread, const auto_estimate& estimate);

// Found or created under a lock: called once per loop instance, never per chunk.
site_state& site_of(loop_site site);

// The site's history for one loop instance, or nullptr while another instance
// of the same site (a nowait loop run again before all threads left it) uses it.
adaptive_history* borrow_history(site_state& site);
void return_history(site_state& site);

}  // namespace selfsched::omp

namespace selfsched::omp {

// SELFSCHED_VERBOSE: a loop left to the OpenMP runtime, named once per site
// with why ("loop f.c:12 in f, schedule(dynamic): libomp's schedule, as
// written"). Cold: a forwarded loop pays one test of the verbose setting.
void explain_runtime_loop(loop_site site, const char* runtime, const char* written, const char* why);

}  // namespace selfsched::omp

// What selfsched keeps per loop site across its instances (a site: the
// ident_t* clang passes and the call's return address, loop_site): the
// adaptive techniques' history and, for `auto`, each thread's measured rates.
// sites.hpp finds a site's state; the auto cache (auto_cache.hpp) fills and
// keeps the rates across runs.
#pragma once

#include <atomic>
#include <vector>

#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/auto_tuning.hpp"
#include "selfsched/machine/spin.hpp"

namespace selfsched::omp {

struct site_state {
  adaptive_history history;
  std::atomic<bool> history_in_use{false};
  // auto: what each thread number learned in the site's last instance, and
  // the team's rate then (iterations per second, 0 = none yet). Instances
  // of one site may overlap (nowait): a short lock, twice per thread and
  // instance, never per chunk.
  spin_lock tuning_lock;
  std::vector<auto_estimate> tuned;
  double team_rate = 0;
  int cached_runs = 0;         // earlier runs the auto cache learned from (auto_cache.hpp)
  bool tuning_ready = false;   // seeded from the cache, and remembered for it (tuning_site_of)
};

}  // namespace selfsched::omp

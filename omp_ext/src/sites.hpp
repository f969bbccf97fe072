// What selfsched remembers about a loop site across its instances: the
// adaptive techniques' history (AWF learns from one time step to the next)
// and, for `auto`, how fast each technique ran it.
// Keyed by the ident_t* clang passes, never by its source string, which is
// ";unknown;unknown;0;0;;" in every binary built without debug info.
#pragma once

#include <atomic>
#include <mutex>

#include "libomp_abi.hpp"
#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/auto_selection.hpp"

namespace selfsched::omp {

struct site_state {
  adaptive_history history;
  std::atomic<bool> history_in_use{false};
  std::mutex selection_lock;  // instances of one site may overlap (nowait)
  auto_selection selection;   // for OMP_SCHEDULE=auto
};

// Found or created under a lock: called once per loop instance, never per chunk.
site_state& site_of(const ident_t* site);

// The site's history for one loop instance, or nullptr while another instance
// of the same site (a nowait loop run again before all threads left it) uses it.
adaptive_history* borrow_history(site_state& site);
void return_history(site_state& site);

}  // namespace selfsched::omp

#include "entry/libomp_loops.hpp"

#include <atomic>

#include "runtime/real_libomp.hpp"

namespace selfsched::omp {

// Cold: said once.
[[gnu::cold, gnu::noinline]] void explain_untracked_team() {
  if (active_technique() == nullptr) return;
  // A team of one thread runs its loop in order whoever schedules it.
  if (teams_tracked() && real().get_num_threads() == 1) return;
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  warn(teams_tracked()           ? "parallel regions nested deeper than selfsched tracks run with libomp's schedule"
       : tool_ended_for_good() ? "libomp ended selfsched's OpenMP tool (omp_pause_resource_all with omp_pause_hard "
                                 "ends it for good); schedule(runtime) loops run with libomp's schedule from now on"
                               : "libomp did not start selfsched's OpenMP tool (OMP_TOOL=disabled, or the program "
                                 "has its own); schedule(runtime) loops run with libomp's schedule");
}

}  // namespace selfsched::omp

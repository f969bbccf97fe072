// What serves a schedule(runtime) loop: a technique as selfsched parsed it
// (schedule_choice.hpp chooses it; teams.hpp gives each team its own).
#pragma once

#include <string>

#include "selfsched/core/spec.hpp"

namespace selfsched::omp {

struct active_schedule {
  schedule_spec spec;
  std::string text;  // as the user wrote it, in lowercase without blanks
  // Its loops read the threads' powers (weighted and adaptive techniques),
  // or a profile reports them: each thread notes its CPU at loop entry.
  bool reads_placement = true;
};

}  // namespace selfsched::omp

// What the simulation's inputs must satisfy beyond their own parsing.
#pragma once

#include "selfsched/sim.hpp"

namespace selfsched::sim::detail {

// Every worker a slowdown, loss or late start names is one of the
// platform's `workers`; -1 when not known yet (a platform file's workers
// are counted once it is loaded). Throws sim_error naming the first that is not.
void check_named_workers(const platform_spec& platform, int workers);

}  // namespace selfsched::sim::detail

// What the simulation's inputs must satisfy beyond their own parsing.
#pragma once

#include <string>

#include "selfsched/sim.hpp"

namespace selfsched::sim::detail {

// Every worker a slowdown, loss or late start names is one of the
// platform's `workers`; -1 when not known yet (a platform file's workers
// are counted once it is loaded). Throws sim_error naming the first that is not.
void check_named_workers(const platform_spec& platform, int workers);

// A time share's pattern (ON > 0, OFF >= 0, START in (-ON, OFF]) or its
// recorded slices (in order, each ending after it begins); `form` opens the
// sim_error's message.
void check_slices(const time_share& share, const std::string& form);

}  // namespace selfsched::sim::detail

// Cluster mode's merge at the loop's end (merge.cpp).
#pragma once

#include <vector>

#include "world.hpp"

namespace selfsched::sim::detail {

// With run_spec::merge_bytes and more than one worker: every worker's
// writes merged to every other after the loop (run on `engine` once the
// loop's actors are done), its time added to the makespan.
void run_merge(sg4::Engine& engine, world* w, const std::vector<sg4::Host*>& workers);

}  // namespace selfsched::sim::detail

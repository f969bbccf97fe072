// The hier transport (hier.cpp, seed 004 sec. 4): node masters under a
// supermaster.
#pragma once

#include <vector>

#include "world.hpp"

namespace selfsched::sim::detail {

// With losses, rDLB runs within a node: throws sim_error naming the first
// node whose every worker is lost (none would run its lost chunks again).
void check_every_node_keeps_a_worker(const platform_spec& platform, int masters);

// Starts a node master for each node of workers on `master_hosts` (those
// without workers take no part), and the supermaster on `super`.
void start_hier(world* w, const std::vector<sg4::Host*>& master_hosts, sg4::Host* super);

}  // namespace selfsched::sim::detail

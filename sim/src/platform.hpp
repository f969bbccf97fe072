// The simulated platform (platform.cpp): built as a star, or loaded from
// a SimGrid file.
#pragma once

#include <simgrid/s4u.hpp>

#include <vector>

#include "selfsched/sim.hpp"

namespace selfsched::sim::detail {

// The hosts of the workers, masters, supermaster (hier) and nodes' memories.
struct hosts {
  std::vector<simgrid::s4u::Host*> workers, masters, memories;
  simgrid::s4u::Host* super = nullptr;
};

// Fills the hosts, speeds as given; a platform file must name every host
// the run needs (throws sim_error naming the first missing).
hosts build_platform(simgrid::s4u::Engine& engine, const platform_spec& platform, const run_spec& run, int masters);

// Slowdowns as speed profiles of the workers' hosts.
void apply_slowdowns(const platform_spec& platform, const std::vector<simgrid::s4u::Host*>& workers);

}  // namespace selfsched::sim::detail

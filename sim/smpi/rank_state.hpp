// State kept for each simulated rank. SMPI's ranks are actors of one
// process (smpi/privatization:no): a global is every rank's, so what one
// rank keeps for itself is kept by its actor id.
#pragma once

#include <simgrid/actor.h>

#include <cstddef>
#include <vector>

namespace selfsched::smpi {

// The calling rank's entry of `by_actor`, made (value-initialized) at its
// first call.
template <typename T>
T& this_ranks(std::vector<T>& by_actor) {
  const auto id = static_cast<std::size_t>(sg_actor_self_get_pid());
  if (id >= by_actor.size()) by_actor.resize(id + 1);
  return by_actor[id];
}

}  // namespace selfsched::smpi

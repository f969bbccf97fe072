// The master and rma transports (master.cpp): one actor at rank 0's host
// serves every worker.
#pragma once

#include "world.hpp"

namespace selfsched::sim::detail {

// master: claim_seconds a request, the scheduler learning from each; rma:
// the window owner in its place, a fetch-and-add (atomic_seconds) a claim.
void master_actor(world* w);

}  // namespace selfsched::sim::detail

// The workers' side of every transport (worker.cpp): what a worker sends a
// master and gets back, and the actor of a worker of one thread.
#pragma once

#include "world.hpp"

namespace selfsched::sim::detail {

// Takes in the results workers send to master m (rendezvous); a daemon.
void results_actor(int m);

// Worker k's next chunk (size 0: none left), answered to `mine`, after the
// previous one of `done` iterations that took `seconds`: its results, then
// the request. `sequence`, if given, gets the chunk's place in hand-out order.
chunk ask_for_chunk(world* w, int k, sg4::Mailbox* mine, iter_t done, double seconds, iter_t* sequence = nullptr);

// The chunk log's entry of `c` (run_spec::record_chunks): who ran it, when.
void log_chunk(world* w, chunk c, int k, double begin, double end);

// A worker of one thread: asks, computes, asks again.
void worker_actor(world* w, int k);

}  // namespace selfsched::sim::detail

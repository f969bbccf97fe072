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

// An exponential average that starts at its first sample (the runtime's).
inline void fade_in(double& mean, double sample) { mean = mean > 0 ? 0.75 * mean + 0.25 * sample : sample; }

// What a rank of the runtime knows to ask for its next outer chunk early
// (mpi_bridge engine::time_to_ask): its rate over its earlier outer chunks
// and its requests' round trips, each faded as the runtime fades them.
struct early_asking {
  double rate = 0;        // iterations a second from one chunk taken to the next; 0: none yet
  double round_trip = 0;  // seconds from asking to taking the answer (0 on a free network)
  bool timed = false;     // a round trip was measured
  void time_round_trip(double seconds) {
    fade_in(round_trip, seconds);
    timed = true;
  }
  // An outer chunk of `size` iterations, `seconds` from its taking to the next's.
  void time_chunk(iter_t size, double seconds) {
    if (size > 0 && seconds > 0) fade_in(rate, static_cast<double>(size) / seconds);
  }
  // At a claim that leaves `left` of the current chunk (`size` iterations,
  // taken at `begin`): once 15% of it is left (SELFSCHED_MPI_PREFETCH's
  // default) and it is expected to end within two round trips.
  bool time_to_ask(iter_t left, iter_t size, double begin, double now) const;
};

// The chunk log's entry of `c` (run_spec::record_chunks): who ran it, when.
void log_chunk(world* w, chunk c, int k, double begin, double end);

// A worker of one thread: asks, computes, sends its results, asks again; or,
// as the runtime's rank of one thread does, asks for the next chunk as it
// takes one that should end within two round trips.
void worker_actor(world* w, int k);

}  // namespace selfsched::sim::detail

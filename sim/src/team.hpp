// The team model (team.cpp): a worker of several threads, a rank and its
// team as the runtime's two levels.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "worker.hpp"
#include "world.hpp"

namespace selfsched::sim::detail {

// A worker of several threads (a rank and its team, the runtime's two
// levels): the rank asks for outer chunks, its threads split each with the
// inner technique, paying inner_claim_seconds a claim on their own core,
// and the rank asks for the next outer chunk early, as the runtime's ranks
// do (mpi_bridge engine::time_to_ask): once 15% of the current one is left
// (SELFSCHED_MPI_PREFETCH's default) and it is expected to end within two
// round trips, from the rank's rate over its earlier outer chunks (so never
// during its first), so that it comes while the threads finish this one.
struct team {
  int rank = 0;
  std::deque<chunk> outer;              // outer chunks received, not started
  std::deque<iter_t> outer_sequence;    // dependence loops: their places in hand-out order
  chunk current{};                      // the one being split
  iter_t current_sequence = 0;
  // Outer chunks with inner chunks still running, by start: logged with
  // their real end once the last of them ends and the chunk is cut whole.
  struct open_chunk {
    chunk c;
    double begin = 0, end = 0;
    int running = 0;
    bool cut = false;
    bool dropped = false;  // with losses: a copy another rank finished first (not logged here)
  };
  std::map<iter_t, open_chunk> open;
  // Dependence loops: intervals finished by each inner chunk of `current`,
  // in the order they were handed out (inner chunk i waits for i - 1).
  std::shared_ptr<std::vector<iter_t>> progress;
  std::unique_ptr<scheduler> inner;     // its split among the threads
  double current_begin = 0, current_end = 0;
  early_asking early;    // when the rank asks for the next outer chunk
  bool want = true, done = false;       // the rank should ask; no outer chunk is left
  int running = 0;                      // threads still working
  sg4::MutexPtr lock = sg4::Mutex::create();
  sg4::ConditionVariablePtr changed = sg4::ConditionVariable::create();
};

// The rank: asks for outer chunks when its threads want one.
void team_rank_actor(world* w, team* t);
// A thread: splits the rank's outer chunks with the inner technique.
void team_thread_actor(world* w, team* t, int thread);

}  // namespace selfsched::sim::detail

// How simulated ranks wait (waits.cpp): which may block, and what waiting cost.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace selfsched::smpi {

// The calling rank serves nobody: its waits may block in MPI_Wait (false:
// it polls, a simulated microsecond a yield). Each rank starts polling.
void block_in_waits(bool may_block);

// The whole run's, every rank's: MPI_Test calls, yields that blocked in
// MPI_Wait, yields that slept a simulated microsecond.
struct wait_counts {
  std::int64_t tests = 0, blocked = 0, polls = 0;
};
wait_counts waits();

// MPI_Test of a request that may be a tree allreduce's (tree_allreduce.cpp):
// false when it is not one, and the caller tests it as usual.
bool test_tree_allreduce(MPI_Request* request, int* flag, MPI_Status* status);

}  // namespace selfsched::smpi

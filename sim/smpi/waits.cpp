// How a simulated rank waits (smpi_workarounds.h, 1): the bridge's yield
// (sched_yield) and MPI_Test, as SMPI runs them.
//
// The bridge waits by polling: MPI_Test, yield, MPI_Test again
// (mpi_bridge/src/common/waiting.hpp). Under SMPI every poll is a few simulation
// events (the test's injected time, the yield's simulated microsecond, a
// context switch), so a rank waiting W seconds costs W / 1 us polls and a
// run costs ranks x simulated time: 512 ranks of `master` waiting for a
// saturated master did not finish in 20 minutes. Here a rank that serves
// nobody (it only waits for its own answers) blocks instead: its yield
// becomes MPI_Wait on the request its last MPI_Test found incomplete, which
// is what its poll loop is waiting for. One event a wait, and the answer is
// seen when it arrives (a real rank's poll sees it within a yield, about a
// microsecond). A rank that serves others (a master, a node master) must
// keep answering while it waits: it polls as before, a simulated
// microsecond a yield. SELFSCHED_SMPI_WAIT=poll makes every rank poll (the
// build's behaviour before, for comparison).
//
// SMPI ranks share this process and one OS thread: the per-rank state is
// kept by SimGrid actor id, the counters are the whole run's.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "rank_state.hpp"
#include "smpi_waits.hpp"

#undef MPI_Test
#undef sched_yield

namespace {

struct rank_wait {
  bool may_block = false;
  MPI_Request* pending = nullptr;  // where the request of the last incomplete MPI_Test is kept
  MPI_Request request = MPI_REQUEST_NULL;
};

std::vector<rank_wait> ranks;  // by actor id
selfsched::smpi::wait_counts counts;

bool polling_forced() {
  static const bool forced = [] {
    const char* mode = std::getenv("SELFSCHED_SMPI_WAIT");
    return mode != nullptr && std::strcmp(mode, "poll") == 0;
  }();
  return forced;
}

rank_wait& mine() { return selfsched::smpi::this_ranks(ranks); }

}  // namespace

namespace selfsched::smpi {

void block_in_waits(bool may_block) { mine().may_block = may_block && !polling_forced(); }

wait_counts waits() { return counts; }

}  // namespace selfsched::smpi

extern "C" int selfsched_smpi_test(MPI_Request* request, int* flag, MPI_Status* status) {
  ++counts.tests;
  if (selfsched::smpi::test_tree_allreduce(request, flag, status)) {  // tree_allreduce.cpp
    rank_wait& w = mine();
    if (!*flag) w.pending = request, w.request = *request;  // the tree's next receive
    else w.pending = nullptr;
    return MPI_SUCCESS;
  }
  // SMPI 3.32 sets no flag for MPI_REQUEST_NULL when the status is ignored
  // (MPI: true, with an empty status). The bridge never tests a null
  // request; after the wait below it does.
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) {
      status->MPI_SOURCE = MPI_ANY_SOURCE, status->MPI_TAG = MPI_ANY_TAG, status->MPI_ERROR = MPI_SUCCESS;
      MPI_Status_set_elements(status, MPI_BYTE, 0);
    }
    mine().pending = nullptr;
    return MPI_SUCCESS;
  }
  const int rc = MPI_Test(request, flag, status);
  rank_wait& w = mine();
  // Only a test whose status nobody reads: the status of a request completed
  // by the wait below is gone, and the next test (of MPI_REQUEST_NULL) gives
  // an empty one.
  if (!*flag && status == MPI_STATUS_IGNORE) w.pending = request, w.request = *request;
  else w.pending = nullptr;
  return rc;
}

extern "C" int selfsched_smpi_yield(void) {
  rank_wait& w = mine();
  if (w.may_block && w.pending != nullptr && *w.pending == w.request && w.request != MPI_REQUEST_NULL) {
    MPI_Request* request = std::exchange(w.pending, nullptr);
    ++counts.blocked;
    return MPI_Wait(request, MPI_STATUS_IGNORE);  // the next MPI_Test finds it complete
  }
  ++counts.polls;
  return smpi_usleep(1);
}

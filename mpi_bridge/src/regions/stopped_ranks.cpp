// Resilience: a rank that never reaches a checkpoint. With copies, the loop's
// work is done by the others (rDLB), but the checkpoint that ends it needs
// every rank (results move collectively), so a rank stopped for good
// (SIGSTOP, a hung node) would hold the job for ever. Each rank tells rank 0
// when it arrives; once rank 0 has waited SELFSCHED_MPI_WAIT_LIMIT seconds
// there, the job ends with one message naming the ranks that did not come.
// If rank 0 itself does not come, the others end the job after twice the
// limit, naming rank 0; so does a rank whose server stops answering. Without copies a late rank is still computing its own
// chunks, so nobody is timed then.
#include <algorithm>
#include <cstdio>
#include <string>

#include "common/fatal.hpp"
#include "regions/engine.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: the clock

namespace selfsched::mpi::detail {

using omp::bridge::now_ns;

void engine::announce_arrival(arrival_watch& watch) {
  watch.since = now_ns();
  watch.arrived.assign(static_cast<std::size_t>(size_), 0);
  watch.arrived[static_cast<std::size_t>(rank_)] = 1;
  watch.number = static_cast<std::int64_t>(checkpoints_++);
  if (rank_ != 0) MPI_Isend(&watch.number, 1, MPI_INT64_T, 0, tag_arrived, comm_, &watch.sent);
}

// Rank 0: the arrivals in so far. Every rank sends one per checkpoint, in
// order, so the next message from a rank is always this checkpoint's.
void engine::note_arrivals(arrival_watch& watch) {
  for (int from = 1; from < size_; ++from) {
    if (watch.arrived[static_cast<std::size_t>(from)]) continue;
    int waiting = 0;
    MPI_Iprobe(from, tag_arrived, comm_, &waiting, MPI_STATUS_IGNORE);
    if (!waiting) continue;
    std::int64_t number = 0;  // a rank in another checkpoint is named by report_mismatch()
    MPI_Recv(&number, 1, MPI_INT64_T, from, tag_arrived, comm_, MPI_STATUS_IGNORE);
    watch.arrived[static_cast<std::size_t>(from)] = 1;
  }
}

// While the checkpoint's collective has not completed: past the limit, the
// ranks that did not come are named and the job ends.
void engine::check_arrivals(arrival_watch& watch) {
  if (!duplicate_ || wait_limit_s_ <= 0) return;
  if (rank_ == 0) note_arrivals(watch);
  const double waited = static_cast<double>(now_ns() - watch.since) * 1e-9;
  const double limit = rank_ == 0 ? wait_limit_s_ : 2 * wait_limit_s_;
  if (waited < limit) return;
  std::string missing;
  for (int r = 0; r < size_; ++r)
    if (rank_ == 0 ? !watch.arrived[static_cast<std::size_t>(r)] : r == 0)
      missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  const int count = 1 + static_cast<int>(std::count(missing.begin(), missing.end(), ','));
  fatal(ranks_have(missing, count) + " not reached the end of the region's shared loops " + std::to_string(static_cast<long long>(waited)) +
        " s after rank " + std::to_string(rank_) +
        " did (stopped or hung? the loops' work is done; SELFSCHED_MPI_WAIT_LIMIT=" + seconds_text(wait_limit_s_) +
        ")");
}

// A rank waiting for its next chunk from a server (rank 0, or its node
// master) that has stopped: nothing else would end the wait. A live server
// answers within its next inner chunk at worst, and those are small with
// copies on (copies.cpp), so twice the limit names it safely.
void engine::check_server_alive(std::int64_t asked_at) {
  const int server = parent_ == rank_ ? 0 : parent_;  // a hier node master's batches come from rank 0
  if (!duplicate_ || wait_limit_s_ <= 0 || server == rank_) return;
  const double waited = static_cast<double>(now_ns() - asked_at) * 1e-9;
  if (waited < 2 * wait_limit_s_) return;
  fatal("rank " + std::to_string(server) + ", which hands rank " + std::to_string(rank_) +
        " its chunks, has not answered for " + std::to_string(static_cast<long long>(waited)) +
        " s (stopped or hung? SELFSCHED_MPI_WAIT_LIMIT=" + seconds_text(wait_limit_s_) + ")");
}

// After the collective: every rank is in, so its arrival is sent, and rank 0
// takes the ones it has not seen yet.
void engine::finish_arrivals(arrival_watch& watch) {
  if (rank_ != 0) {
    MPI_Wait(&watch.sent, MPI_STATUS_IGNORE);
    return;
  }
  for (int from = 1; from < size_; ++from)
    if (!watch.arrived[static_cast<std::size_t>(from)]) {
      std::int64_t number = 0;
      MPI_Recv(&number, 1, MPI_INT64_T, from, tag_arrived, comm_, MPI_STATUS_IGNORE);
    }
}
}  // namespace selfsched::mpi::detail

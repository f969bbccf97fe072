// Which thread of the cluster-wide team runs each `single` (the agent's side).
//
// A `single` is run by the first thread of the team to reach it. Run by rank
// 0's threads only, a program whose singles wait for a later one
// (`single nowait` blocks spinning on a flag that the next `single` sets)
// waits for ever once rank 0's threads are all inside: the team has more
// threads than rank 0. So every rank's first thread at a `single` claims it
// cluster-wide: a fetch-and-max on a slot of rank 0's window, the slot and
// value named by the region's number and the construct's count within it,
// alike on every rank. The first claim raises the slot to its value; later
// ones find it there. Where MPI has no one-sided communication between the
// ranks (Open MPI over TCP with MPI_THREAD_MULTIPLE), singles go round the
// ranks in turn instead: the kth to rank (k - 1) mod ranks, no message.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "channel.hpp"

namespace selfsched::cluster {

class single_claims {
 public:
  explicit single_claims(MPI_Comm comm);  // collective
  ~single_claims();                       // collective
  single_claims(const single_claims&) = delete;
  single_claims& operator=(const single_claims&) = delete;

  using outcome = single_claim_outcome;
  // The `count`th single (from 1) of parallel region `region`.
  outcome claim(std::uint64_t region, std::uint64_t count);

  static constexpr std::uint64_t slots = single_claim_slots;

 private:
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t* memory_ = nullptr;
};

}  // namespace selfsched::cluster

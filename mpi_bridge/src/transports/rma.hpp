// The master-less transport: a claim is one MPI_Fetch_and_op on a step
// counter in rank 0's window; every rank turns the step into its chunk with
// the same closed form (chunk_plan) of a fixed outer technique, so no rank
// serves another.
//
// Loops use the counters of a ring in turn. A counter is never reset: every
// rank makes exactly one claim past the end of each loop, so a loop of c
// chunks moves its counter by c + ranks, and the next loop on that counter
// starts from there. Before reusing a counter, a rank waits until it shows
// that every rank has made its last claim of the loop that used it before
// (ring size loops ago; with the region's checkpoints this never waits in
// practice).
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>

#include "selfsched/core/plan.hpp"
#include "selfsched/core/scheduler.hpp"

namespace selfsched::mpi::detail {

class rma_counter {
 public:
  // Collective. nullptr on every rank when any rank cannot create the window
  // (e.g. Open MPI's osc/pt2pt under MPI_THREAD_MULTIPLE).
  static std::unique_ptr<rma_counter> create(MPI_Comm comm, int ranks);
  ~rma_counter();  // collective

  // A loop begins (no MPI call: may run on any thread).
  void begin(std::uint64_t index, const schedule_spec& outer, const loop_params& lp);
  // Issues the claim of the current loop (MPI_Fetch_and_op, not yet flushed).
  void issue();
  // Completes it: the chunk, size 0 past the end.
  chunk complete();
  bool issued() const { return issued_; }

 private:
  rma_counter(MPI_Win win, int ranks) : win_(win), ranks_(ranks) {}
  static constexpr int ring = 16;

  MPI_Win win_;
  int ranks_;
  std::int64_t next_base_[ring] = {};  // where the next loop on each counter starts
  // The current loop.
  int counter_ = 0;
  std::int64_t base_ = 0;
  bool gated_ = true;  // reuse check done
  std::optional<chunk_plan> plan_;
  std::unique_ptr<scheduler> replay_;  // when the plan would be too large: replayed forward
  iter_t n_ = 0;
  iter_t chunk_count_ = 0;
  iter_t replayed_ = 0;
  std::size_t hint_ = 0;
  bool issued_ = false;
  std::int64_t fetched_ = 0;
};

}  // namespace selfsched::mpi::detail

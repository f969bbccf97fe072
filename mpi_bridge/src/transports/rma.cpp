#include "transports/rma.hpp"

#include <sched.h>

namespace selfsched::mpi::detail {

std::unique_ptr<rma_counter> rma_counter::create(MPI_Comm comm, int ranks) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // A failure must come back to us, not abort the job: we fall back to two-sided.
  MPI_Errhandler previous;
  MPI_Comm_get_errhandler(comm, &previous);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ops", "same_op_no_op");  // only SUM and NO_OP: hardware atomics may serve
  std::int64_t* memory = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  const MPI_Aint bytes = rank == 0 ? ring * static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
  const int rc = MPI_Win_allocate(bytes, sizeof(std::int64_t), info, comm, &memory, &win);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(comm, previous);
  MPI_Errhandler_free(&previous);

  int everywhere = rc == MPI_SUCCESS;
  MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!everywhere) return nullptr;  // a window made on some ranks only cannot be freed collectively: left alone

  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  if (rank == 0) {
    const std::int64_t zeros[ring] = {};
    MPI_Put(zeros, ring, MPI_INT64_T, 0, 0, ring, MPI_INT64_T, win);
    MPI_Win_flush(0, win);
  }
  MPI_Barrier(comm);
  return std::unique_ptr<rma_counter>(new rma_counter(win, ranks));
}

rma_counter::~rma_counter() {
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

void rma_counter::begin(std::uint64_t index, const schedule_spec& outer, const loop_params& lp) {
  counter_ = static_cast<int>(index % ring);
  base_ = next_base_[counter_];
  gated_ = index < static_cast<std::uint64_t>(ring);
  n_ = lp.n;
  technique_ptr rule = make_schedule(outer, lp);
  plan_ = chunk_plan::build(*rule, lp);
  replay_.reset();
  if (plan_) {
    chunk_count_ = plan_->chunk_count();
  } else {  // too many distinct chunks for a plan: count them, then replay forward as steps come
    scheduler counting(make_schedule(outer, lp), lp);
    for (chunk_count_ = 0; counting.next(0).size > 0;) ++chunk_count_;
    replay_ = std::make_unique<scheduler>(make_schedule(outer, lp), lp);
    replayed_ = 0;
  }
  hint_ = 0;
  issued_ = false;
  next_base_[counter_] = base_ + chunk_count_ + ranks_;
}

void rma_counter::issue() {
  if (!gated_) {  // the loop `ring` loops ago must be over on every rank
    for (std::int64_t seen = -1;; sched_yield()) {
      MPI_Fetch_and_op(nullptr, &seen, MPI_INT64_T, 0, counter_, MPI_NO_OP, win_);
      MPI_Win_flush(0, win_);
      if (seen >= base_) break;
    }
    gated_ = true;
  }
  const std::int64_t one = 1;
  MPI_Fetch_and_op(&one, &fetched_, MPI_INT64_T, 0, counter_, MPI_SUM, win_);
  issued_ = true;
}

chunk rma_counter::complete() {
  MPI_Win_flush(0, win_);
  issued_ = false;
  const iter_t step = fetched_ - base_;
  // step < 0 only when ranks disagree on the loops; the checkpoint reports it.
  if (step < 0 || step >= chunk_count_) return {n_, 0};
  if (plan_) return plan_->at(step, hint_);
  chunk c;
  while (replayed_ <= step) c = replay_->next(0), ++replayed_;  // a rank's steps only grow
  return c;
}

}  // namespace selfsched::mpi::detail

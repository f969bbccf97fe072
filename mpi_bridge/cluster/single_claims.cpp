#include "single_claims.hpp"

namespace selfsched::cluster {

single_claims::single_claims(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // A failure comes back here (the job goes on by turns), not as an abort.
  MPI_Errhandler previous;
  MPI_Comm_get_errhandler(comm, &previous);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const MPI_Aint bytes = rank == 0 ? static_cast<MPI_Aint>(slots * sizeof(std::int64_t)) : 0;
  const int rc = MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm, &memory_, &window_);
  MPI_Comm_set_errhandler(comm, previous);
  MPI_Errhandler_free(&previous);
  int everywhere = rc == MPI_SUCCESS;
  MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!everywhere) {  // made on some ranks only, it cannot be freed collectively: left alone
    window_ = MPI_WIN_NULL;
    return;
  }
  if (rank == 0)
    for (std::uint64_t i = 0; i < slots; ++i) memory_[i] = 0;
  MPI_Barrier(comm);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
}

single_claims::~single_claims() {
  if (window_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

single_claims::outcome single_claims::claim(std::uint64_t region, std::uint64_t count) {
  if (window_ == MPI_WIN_NULL) return outcome::by_turns;
  // Regions are numbered from 1 and counts stay below 2^32: values only grow.
  const auto value = static_cast<std::int64_t>(region << 32 | count);
  std::int64_t before = 0;
  MPI_Fetch_and_op(&value, &before, MPI_INT64_T, 0, static_cast<MPI_Aint>(count % slots), MPI_MAX, window_);
  MPI_Win_flush(0, window_);
  if (before < value) return outcome::taken;
  if (before == value) return outcome::taken_elsewhere;
  // A later single of this region took the slot first: whether this one was
  // taken cannot be known.
  return outcome::too_far_apart;
}

}  // namespace selfsched::cluster

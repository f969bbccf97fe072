// The messages of the two-sided transports, on the region's own
// communicator (a duplicate of the user's, so no tag can meet the
// application's). All are arrays of int64.
//
//   request  rank -> its master           index, n, site, reported size, reported ns, in order, min, max
//   reply    master -> rank               index, start, size            (size 0: no more)
//   refill   node master -> supermaster   index, n, site, min, max, then (rank, size, ns) reports
//   batch    supermaster -> node master   index, then (rank, start, size) chunks (none: no more)
//   finished rank -> master               index, start, size   (resilience: its copy is handed out)
//   cancel   master -> rank               index, start, size   (resilience: a copy finished elsewhere)
//   arrived  rank -> rank 0               checkpoint number    (resilience: this rank is at the checkpoint)
//
// `index` counts the region's shared loops on the sending rank; `n` and the
// source site let the receiver check that every rank is in the same loop
// (seed 004, Sect. 3.2: the master keeps a request queue and answers each
// request with the next chunk of the technique).
#pragma once

#include <mpi.h>

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "selfsched/core/technique.hpp"

namespace selfsched::mpi::detail {

enum tag : int { tag_request = 1, tag_reply = 2, tag_refill = 3, tag_batch = 4, tag_finished = 5, tag_cancel = 6,
                 tag_arrived = 7 };

// Thresholds on a loop's outer chunks (seed 000 Table 4), set by the loop
// itself (dependence loops); 0: the technique's own.
struct chunk_bounds {
  iter_t min = 0, max = 0;

  // Onto the loop's parameters, where set (the technique's own otherwise).
  void apply_to(loop_params& lp) const {
    if (min > 0) lp.min_chunk = min;
    if (max > 0) lp.max_chunk = max;
  }
};

// A run-queue length Q in one int64 slot of a message (a request, a refill):
// its bits. A malformed one (not a number, below 1) unpacks as none.
inline std::int64_t pack_queue(double q) { return std::bit_cast<std::int64_t>(q); }
inline double unpack_queue(std::int64_t bits) {
  const double q = std::bit_cast<double>(bits);
  return q >= 1.0 && q < 1e6 ? q : 1.0;
}
// In a refill's slot of a rank's Q: that rank runs no chunk (a node master
// that only serves, as seed 004's do), so its node's batch holds none for
// it. Kept for it, such a chunk would wait in the pool until a rank came
// for a second one (64 ranks in 4 nodes, Mandelbrot columns under SMPI: 23%
// slower than one master). 0.0's bits: never a Q, which is at least 1.
inline constexpr std::int64_t queue_runs_no_chunks = 0;

// A rank's request for its next outer chunk. `reported_*`: the outer chunk
// it finished last and how long its threads took (adaptive outer techniques
// learn from it; 0 when there is nothing to report). `in_order`: every
// rank must get this loop's chunks in increasing order (dependence loops:
// a rank runs its chunks in the order it gets them, and chunk k waits for
// chunk k-1). `bounds`: the loop's thresholds.
struct request_msg {
  std::uint64_t index = 0;
  iter_t n = 0;
  std::uint64_t site = 0;
  iter_t reported_size = 0;
  std::int64_t reported_ns = 0;
  bool in_order = false;
  chunk_bounds bounds;
  // The asking rank's run-queue length Q now (1: no correction): weighted
  // outer techniques divide its power by it, as mechanism W does per thread
  // (seed 000, Sect. 3), so a rank that becomes loaded gets smaller chunks
  // within the region.
  double queue = 1.0;

  static constexpr int length = 9;
  std::array<std::int64_t, length> pack() const {
    return {static_cast<std::int64_t>(index), n, static_cast<std::int64_t>(site), reported_size, reported_ns,
            in_order ? 1 : 0, bounds.min, bounds.max, pack_queue(queue)};
  }
  static request_msg unpack(const std::int64_t* m) {
    return {static_cast<std::uint64_t>(m[0]), m[1], static_cast<std::uint64_t>(m[2]), m[3], m[4], m[5] != 0,
            {m[6], m[7]}, unpack_queue(m[8])};
  }
};

constexpr int reply_length = 3;
constexpr int refill_header = 5;  // index, n, site, min, max; then each group rank's Q, then triples
constexpr int batch_header = 1;   // index; then triples
constexpr int chunk_note_length = 3;  // finished, cancel: index, start, size

// A message of `type` elements with `tag` from `source` (or
// MPI_ANY_SOURCE), if one has arrived: received into `into`; its sender.
// A matched probe, so that no other thread of the rank can take the message
// between the probe and the receive. Where MPI lacks it
// (SELFSCHED_NO_MATCHED_PROBE: SimGrid's SMPI 3.32 declares MPI_Improbe and
// MPI_Mrecv but aborts in them), a plain probe and a receive from the
// sender it names: there a rank has one thread (sim/smpi/).
template <typename T>
std::optional<int> receive_any(MPI_Comm comm, int source, int tag, MPI_Datatype type, std::vector<T>& into) {
  int arrived = 0;
  MPI_Status status;
#ifndef SELFSCHED_NO_MATCHED_PROBE
  MPI_Message handle;
  MPI_Improbe(source, tag, comm, &arrived, &handle, &status);
#else
  MPI_Iprobe(source, tag, comm, &arrived, &status);
#endif
  if (!arrived) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, type, &count);
  into.resize(static_cast<std::size_t>(count));
#ifndef SELFSCHED_NO_MATCHED_PROBE
  MPI_Mrecv(into.data(), count, type, &handle, MPI_STATUS_IGNORE);
#else
  MPI_Recv(into.data(), count, type, status.MPI_SOURCE, status.MPI_TAG, comm, MPI_STATUS_IGNORE);
#endif
  return status.MPI_SOURCE;
}

inline std::optional<int> receive_int64s(MPI_Comm comm, int source, int tag, std::vector<std::int64_t>& into) {
  return receive_any(comm, source, tag, MPI_INT64_T, into);
}

}  // namespace selfsched::mpi::detail

// The ranks compare, and on request merge, the bytes their shared loops
// changed outside every declared movement (undeclared_writes.hpp).
//
// Bytes every rank changed to the same values are code every rank ran alike
// (a replicated assignment beside the loop): nothing to report or move. The
// rest would stay on the rank that wrote them: reported once per loop site,
// or, when merging, each rank's bytes written into every other rank's
// memory, the multiple-writer protocol of TreadMarks (Keleher et al., 1994)
// as cluster mode runs it. Two ranks that wrote the same byte with
// different values have raced: a conflict, never merged; the job stops with
// one message naming the bytes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "regions/undeclared_writes.hpp"

namespace selfsched::mpi::detail {

struct exchange_outcome {
  std::uint64_t undeclared_bytes = 0;  // bytes not written alike by every rank, over all ranks
  std::uint64_t received_bytes = 0;    // merging: the other ranks' bytes written into this rank's memory
  std::string message;                 // detection: the warning, on every rank (rank 0 prints it)
};

// Collective over `comm`. `site`: the window's loops, for messages.
// Detection sends each run's place and a hash of its bytes; merging sends
// the bytes.
exchange_outcome exchange_writes(MPI_Comm comm, const write_window& window, const changed_bytes& mine, bool merge,
                                 const std::string& site);

}  // namespace selfsched::mpi::detail

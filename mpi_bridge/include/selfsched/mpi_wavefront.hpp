// Dependence loops across the ranks of a region: mechanism S (Ciorba et al.,
// seed 000, secs. 3 and 5) with chunks of the chunk dimension u_c going to
// ranks by the region's outer technique and transport, each rank's threads
// splitting its chunks by the inner one, and the rank of chunk k sending the
// boundary of each synchronization interval to the rank of chunk k+1.
//
//   selfsched::mpi::region r(MPI_COMM_WORLD);
//   selfsched::mpi::wavefront<3>(r, {loops, 4, n - 1}, dependences,
//       [&](std::int64_t l, std::int64_t j, std::int64_t k) { za(l, j, k) = ...; },
//       [&](std::int64_t l, std::int64_t j, std::int64_t k) { return &za(l, j, k); }, sizeof(double));
//   // every rank holds every za(l, j, k) now (gather = all_ranks)
//
// What a distributed body may do: iteration x writes its own cell (the
// `cell_bytes` bytes at cell(x)) and nothing else that another iteration
// reads, and reads only its own cell and the cells of x - d for its
// dependence vectors d (and data no iteration writes). Every rank holds the
// whole array; a rank's copy of a cell is right once the rank computed it or
// received it. Loops written in place over the synchronization dimension, or
// that accumulate into later iterations' cells (push form), must be written
// in this pull form first (examples/mpi/floyd_steinberg.cpp shows one,
// bit-identical to the push form).
//
// options: technique is the threads' (default s-fss); the outer technique
// is the region's (SELFSCHED_MPI_SCHEDULE: s-fss, sw-gss ...; W weighs ranks
// by their powers). min_chunk and max_chunk bound the outer chunks, the
// seed's chunks (Table 4's thresholds); #SP defaults to 3 x ranks x threads.
//
// Collective over the region's ranks, called by the thread that created the
// region, outside parallel regions; every rank passes the same problem. It
// counts as one shared loop of the region, over the skewed chunk dimension
// c' (its n is the report's chunk_extent): after_loop callbacks see it, and
// the region's gather_rows moves rows of c', which fit only unskewed
// problems whose chunk dimension is the array's outermost; `gather` moves
// cells whatever the shape. A bad problem or technique throws
// selfsched::wavefront_error on every rank before anything runs; a body that
// throws ends the job with one message naming the rank (the other ranks
// would wait for its boundaries forever).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "selfsched/mpi.hpp"
#include "selfsched/wavefront.hpp"

namespace selfsched::mpi {

// `gather`: no cell moves after the loop (each rank holds what it computed
// and the boundaries it received).
inline constexpr int no_gather = -2;

struct wavefront_report {
  selfsched::wavefront_report threads{};  // this rank's threads: their technique, u_s, u_c, skew, #SP, SI,
                                          // the chunks they ran, seconds, time waiting at sync points
  std::string outer;                      // the ranks' technique (the region's)
  std::string transport;                  // as the region's statistics say
  std::int64_t outer_chunks = 0;          // outer chunks this rank ran
  std::int64_t iterations = 0;            // iterations this rank ran
  std::int64_t boundaries_sent = 0;       // messages to the ranks of following chunks
  std::int64_t boundary_bytes = 0;        // their payload
};

namespace detail {

// The template's erased form; mpi_bridge/src/wavefront/wavefront.cpp.
struct wavefront_call {
  int rank = 2;
  const std::int64_t* extents = nullptr;
  const std::int64_t* dependences = nullptr;
  int dependence_count = 0;
  const wavefront_options* options = nullptr;
  selfsched_wavefront_run run = nullptr;
  void* (*cell)(void* context, const std::int64_t* x) = nullptr;
  const char* (*failure)(void* context) = nullptr;  // why run returned non-zero
  void* context = nullptr;
  std::size_t cell_bytes = 0;
  int gather = all_ranks;
};

wavefront_report run_wavefront(region& r, const wavefront_call& call);

template <std::size_t Rank, typename Body, typename Cell>
struct distributed_runner {
  Body& body;
  Cell& cell;
  std::string failure;

  using along = selfsched::detail::wavefront_runner<Rank, Body>;

  static int run(void* self, const std::int64_t* start, int dim, std::int64_t count) {
    auto& r = *static_cast<distributed_runner*>(self);
    try {
      std::array<std::int64_t, Rank> x;
      for (std::size_t d = 0; d < Rank; ++d) x[d] = start[d];
      if (dim == 0) along::template along<0>(r.body, x, count);
      else if (dim == 1) along::template along<1>(r.body, x, count);
      else if constexpr (Rank > 2) along::template along<2>(r.body, x, count);
    } catch (const std::exception& e) {
      r.failure = e.what();
      return 1;
    } catch (...) {
      r.failure = "an exception that is not a std::exception";
      return 1;
    }
    return 0;
  }

  static void* at(void* self, const std::int64_t* start) {
    auto& r = *static_cast<distributed_runner*>(self);
    std::array<std::int64_t, Rank> x;
    for (std::size_t d = 0; d < Rank; ++d) x[d] = start[d];
    if constexpr (std::is_invocable_v<Cell&, const std::array<std::int64_t, Rank>&>)
      return const_cast<void*>(static_cast<const void*>(r.cell(x)));
    else
      return const_cast<void*>(static_cast<const void*>(std::apply(r.cell, x)));
  }

  static const char* why(void* self) { return static_cast<distributed_runner*>(self)->failure.c_str(); }
};

}  // namespace detail

// Runs body over [0, extents[0]) x ... x [0, extents[Rank-1]) (Rank 2 or 3)
// across the region's ranks so that iteration x runs after x - d for every
// dependence vector d. cell(x) (the index as body takes it) points to the
// cell_bytes bytes of x's result. `gather`: a rank that receives every cell
// afterwards, all_ranks, or no_gather.
template <std::size_t Rank, typename Body, typename Cell>
wavefront_report wavefront(region& r, const std::array<std::int64_t, Rank>& extents,
                           const std::vector<std::array<std::int64_t, Rank>>& dependences, Body&& body, Cell&& cell,
                           std::size_t cell_bytes, const wavefront_options& options = {}, int gather = all_ranks) {
  static_assert(Rank == 2 || Rank == 3, "selfsched::mpi::wavefront: rank 2 or 3");
  std::vector<std::int64_t> flat;
  flat.reserve(dependences.size() * Rank);
  for (const auto& d : dependences) flat.insert(flat.end(), d.begin(), d.end());
  using runner = detail::distributed_runner<Rank, std::remove_reference_t<Body>, std::remove_reference_t<Cell>>;
  runner state{body, cell, {}};
  detail::wavefront_call call;
  call.rank = static_cast<int>(Rank);
  call.extents = extents.data();
  call.dependences = flat.data();
  call.dependence_count = static_cast<int>(dependences.size());
  call.options = &options;
  call.run = &runner::run;
  call.cell = &runner::at;
  call.failure = &runner::why;
  call.context = &state;
  call.cell_bytes = cell_bytes;
  call.gather = gather;
  return detail::run_wavefront(r, call);
}

}  // namespace selfsched::mpi

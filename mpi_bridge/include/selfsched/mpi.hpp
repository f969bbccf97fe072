// selfsched::mpi: the same schedule(runtime) loops, shared by the ranks of a
// communicator.
//
//   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
//   {
//     selfsched::mpi::region r(MPI_COMM_WORLD,
//                              selfsched::mpi::options().gather_rows(image, row_bytes, 0));
//     #pragma omp parallel for schedule(runtime)
//     for (std::int64_t row = 0; row < rows; ++row) compute(row);
//   }   // rank 0 holds every row
//
// Inside a region, every schedule(runtime) loop that selfsched serves (the
// outermost parallel level of the thread that created the region, and its
// loops outside parallel regions) is ONE loop shared by all ranks of the
// communicator: outer chunks go to ranks by the outer technique
// (SELFSCHED_MPI_SCHEDULE, or options::schedule), and each rank's threads
// split its outer chunks by the inner one (OMP_SCHEDULE). Every rank must run
// the same shared loops, with the same bounds, in the same order; the region
// detects when they do not and stops the job with a message naming the ranks.
//
// Everything else in the region runs as before on every rank: loops with
// another schedule (static, dynamic, guided ... unless SELFSCHED_OVERRIDE
// hands them to selfsched), code outside loops, nested parallel regions.
//
// Results stay where they were computed unless the region moves them: rows
// gathered to one rank or to all, reductions, or a callback, after each
// shared loop (at the end of the parallel region that contains it), on the
// thread that created the region. See mpi_bridge/README.md.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "selfsched/core/technique.hpp"

namespace selfsched::mpi {
namespace detail {
class engine;
struct engine_access;  // loops the MPI layer runs itself (mpi_wavefront.hpp)
}

// Target of a gather or reduction: every rank instead of one root.
inline constexpr int all_ranks = -1;

// What a callback learns about a shared loop that every rank has finished.
struct loop_info {
  MPI_Comm comm = MPI_COMM_NULL;  // the region's communicator, for the callback's own messages
  std::uint64_t index = 0;        // 0 for the region's first shared loop
  iter_t n = 0;                   // its iterations, 0 .. n-1 (the loop's own bounds map onto these)
  std::span<const chunk> own;     // the outer chunks this rank ran
};

// When a reduction happens.
enum class when {
  each_loop,   // after every shared loop: the buffer holds that loop's contribution
  region_end,  // once, when the region ends: the buffer accumulates over its loops
};

class options {
 public:
  // Fixed-size rows: iteration i of a shared loop wrote bytes
  // [i * row_bytes, (i + 1) * row_bytes) of `rows` (and nothing else of it).
  // After each loop the rows a rank computed reach `root`, or every rank.
  options& gather_rows(void* rows, std::size_t row_bytes, int root = all_ranks);

  // Variable-size rows: on the rank that ran iteration i, `row(i)` gives the
  // bytes it produced; every receiver gets `store(i, bytes)` for each row it
  // did not compute itself.
  using row_reader = std::function<std::span<const std::byte>(iter_t i)>;
  using row_writer = std::function<void(iter_t i, std::span<const std::byte> bytes)>;
  options& gather_rows(row_reader row, row_writer store, int root = all_ranks);

  // In place: `buffer` holds this rank's part (count elements of type); then
  // the combination by `op` on `root` (other ranks keep their part) or on
  // every rank.
  options& reduce(void* buffer, int count, MPI_Datatype type, MPI_Op op, int root = all_ranks,
                  when at = when::each_loop);

  // Called on every rank after each shared loop, after the moves above,
  // outside any parallel region: it may use MPI collectives on info.comm.
  options& after_loop(std::function<void(const loop_info&)> callback);

  // Writes of a shared loop that no movement above covers would stay on the
  // rank that made them. The region tracks the pages its shared loops write
  // (the program's global data, and the ranges named by track_writes) and,
  // by default, warns once per loop site, naming the bytes
  // (SELFSCHED_MPI_WRITES=warn; off: not tracked). merge_writes() merges
  // them instead, as cluster mode does: each rank's changed bytes, found
  // against a copy from before the loop, reach every rank; bytes two ranks
  // wrote with different values are a conflict, never merged: the job stops
  // naming them. Rank 0's choice holds.
  options& merge_writes();
  // Memory beyond the program's global data whose writes are tracked too
  // (a heap array): `bytes` bytes from `data`, the same size on every rank.
  options& track_writes(void* data, std::size_t bytes);

  // The outer technique and transport for this region, instead of
  // SELFSCHED_MPI_SCHEDULE / SELFSCHED_MPI_TRANSPORT. Rank 0's choice holds.
  options& schedule(std::string technique);
  options& transport(std::string name);

  struct fixed_rows { void* rows; std::size_t row_bytes; int root; };
  struct variable_rows { row_reader row; row_writer store; int root; };
  struct reduction { void* buffer; int count; MPI_Datatype type; MPI_Op op; int root; when at; };
  struct tracked_range { void* data; std::size_t bytes; };

 private:
  friend class region;
  friend class detail::engine;
  std::vector<fixed_rows> fixed_;
  std::vector<variable_rows> variable_;
  std::vector<reduction> reductions_;
  std::vector<std::function<void(const loop_info&)>> callbacks_;
  std::string schedule_, transport_;
  std::vector<tracked_range> tracked_;
  bool merge_writes_ = false;
};

// What a region did on this rank (statistics()).
struct statistics {
  std::string transport;     // the one in use (after any fallback)
  std::string schedule;      // outer technique
  std::string thread_level;  // MPI thread level provided
  std::string resilience;    // "duplicate" when copies of unfinished chunks may run, else "off"
  double weight = 1;         // this rank's power (sum of its threads' powers; its load Q goes with each request)
  std::uint64_t loops = 0;         // shared loops finished
  std::uint64_t outer_chunks = 0;  // outer chunks this rank ran
  iter_t iterations = 0;           // iterations this rank ran
  double wait_seconds = 0;         // time its threads waited for outer chunks
  std::uint64_t requests_served = 0;  // chunk requests this rank answered (master / node masters)
  // SELFSCHED_MPI_RESILIENCE=duplicate: copies of unfinished chunks handed
  // out (the master), and chunks this rank left to a copy that finished first.
  std::uint64_t copies_handed_out = 0;
  std::uint64_t chunks_dropped = 0;
  // Writes of shared loops that no declared movement covers: bytes not
  // written alike by every rank (summed over the ranks), bytes this rank
  // received from the others (merge_writes), and the time the checks and
  // merges took on this rank.
  std::uint64_t undeclared_bytes = 0;
  std::uint64_t merged_bytes_received = 0;
  double writes_seconds = 0;
};

class region {
 public:
  // Collective over `comm`: every rank creates it, from the thread that runs
  // the loops' parallel regions (the main thread under MPI_THREAD_FUNNELED).
  explicit region(MPI_Comm comm, options opts = {});
  // Collective: checks that every rank ran the same shared loops.
  ~region();
  region(const region&) = delete;
  region& operator=(const region&) = delete;

  statistics stats() const;
  // Every rank's power, by rank (what weighted outer techniques use, divided
  // by the rank's run-queue length Q at each of its requests).
  std::vector<double> rank_weights() const;

 private:
  friend struct detail::engine_access;
  std::unique_ptr<detail::engine> engine_;
};

}  // namespace selfsched::mpi

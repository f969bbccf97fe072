// Mechanism S (Ciorba et al., seed 000, sec. 3): a loop nest with uniform
// dependences, cut into chunks along the chunk dimension u_c by any technique
// and run in synchronization intervals of SI iterations along u_s. The worker
// of chunk k starts interval t only when the worker of chunk k-1 has passed
// synchronization point SP_{t+1}; that wavefront honours every dependence
// found legal here.
//
// Pure: the tiling, the legality check and the master's transaction
// accounting (who computes chunk k-1, who chunk k+1). Threads publish progress
// through shared memory (omp_ext), ranks exchange the boundary of each
// interval (mpi_bridge); both walk the same plan.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched {

constexpr int wavefront_max_rank = 3;
using wavefront_index = std::array<iter_t, wavefront_max_rank>;

// The loop nest as written: dimension 0 outermost, indices 0 .. extent-1.
struct wavefront_problem {
  int rank = 2;                              // 2 or 3
  wavefront_index extents{};                 // U_0, U_1 (, U_2)
  std::vector<wavefront_index> dependences;  // distance vectors d: x needs x - d first
  int chunk_dim = -1;                        // u_c; -1: chosen (see plan_wavefront)
  int sync_dim = -1;                         // u_s; -1: chosen
};

// SI = ceil(U_s / #SP) (seed 000, eq. 1), at least 1.
iter_t sync_interval(iter_t sync_extent, iter_t sync_points);

// How a legal problem runs. Chunks are cut along c' = c + skew * s: when a
// dependence steps back along u_c while stepping forward along u_s
// (Floyd-Steinberg's (1, -1), Hydro's (1, 0, -1)), skewing the chunk
// dimension by the smallest such factor makes every distance along c'
// non-negative, so chunk k only ever needs chunks before it.
struct wavefront_plan {
  int rank = 2;
  wavefront_index extents{};
  int chunk_dim = 0;      // u_c
  int sync_dim = 0;       // u_s
  int other_dim = -1;     // the third dimension (rank 3), run whole inside each interval
  int run_dim = 0;        // innermost dimension of the order inside an interval
  iter_t skew = 0;        // f >= 0
  iter_t chunk_extent = 0;   // U_c + f (U_s - 1): what the technique divides
  iter_t sync_points = 1;    // #SP asked for
  iter_t interval = 1;       // SI
  iter_t tiles = 0;          // ceil(U_s / SI): synchronization points placed per chunk
  iter_t halo = 0;           // max over d of d_c + f d_s: columns of chunk k-1 that chunk k reads
  iter_t reach = 0;          // max over d of d_s: rows before an interval that it reads

  // Rows [first, second) of u_s in interval t (0 <= t < tiles).
  std::pair<iter_t, iter_t> tile_rows(iter_t t) const;
  // The u_c range [first, second) of chunk `c` (in c' coordinates) on row s;
  // empty (first >= second) where the skewed chunk misses the row.
  std::pair<iter_t, iter_t> row_span(chunk c, iter_t s) const;
  // Iterations of chunk `c` (for tests and reports).
  iter_t iterations(chunk c) const;
};

// Visits the iterations of chunk `c` (c' coordinates) on rows [first, last)
// of u_s in the order an interval runs them, as runs of consecutive
// iterations: run(x, dim, count) for x, x + e_dim, ... (count of them; x has
// wavefront_max_rank entries, unused ones 0). Stops and returns false when
// run does. Threads run bodies this way; ranks pack and unpack boundaries.
template <typename Run>
bool for_each_run(const wavefront_plan& p, chunk c, iter_t first, iter_t last, Run&& run) {
  iter_t x[wavefront_max_rank] = {0, 0, 0};
  for (iter_t s = first; s < last; ++s) {
    const auto [c0, c1] = p.row_span(c, s);
    if (c0 >= c1) continue;
    x[p.sync_dim] = s;
    if (p.other_dim < 0) {
      x[p.chunk_dim] = c0;
      if (!run(x, p.chunk_dim, c1 - c0)) return false;
    } else if (p.run_dim == p.chunk_dim) {  // the other dimension is written before u_c
      for (iter_t o = 0; o < p.extents[p.other_dim]; ++o) {
        x[p.other_dim] = o;
        x[p.chunk_dim] = c0;
        if (!run(x, p.chunk_dim, c1 - c0)) return false;
      }
    } else {
      for (iter_t j = c0; j < c1; ++j) {
        x[p.chunk_dim] = j;
        x[p.other_dim] = 0;
        if (!run(x, p.other_dim, p.extents[p.other_dim])) return false;
      }
    }
  }
  return true;
}

// The same one iteration at a time, in the same order: visit(x).
template <typename Visit>
void for_each_iteration(const wavefront_plan& p, chunk c, iter_t first, iter_t last, Visit&& visit) {
  for_each_run(p, c, first, last, [&](const iter_t* x, int dim, iter_t count) {
    iter_t at[wavefront_max_rank] = {x[0], x[1], x[2]};
    for (iter_t k = 0; k < count; ++k, ++at[dim]) visit(static_cast<const iter_t*>(at));
    return true;
  });
}

struct wavefront_plan_result {
  wavefront_plan plan;
  std::string error;  // empty when legal; otherwise one paragraph naming the bad value
  bool ok() const { return error.empty(); }
};

// Checks the problem once and plans it with #SP = sync_points (>= 1).
// Legal when every dependence vector d is non-zero, lexicographically
// positive in the written order, never steps back along u_s, and is
// lexicographically positive in the order used inside an interval (u_s,
// then the other dimensions as written). Unset dimensions: u_s the longest
// (seed 000 sec. 3; ties: the outermost), u_c the longest of the rest; if
// that choice is illegal the next legal pair is taken.
wavefront_plan_result plan_wavefront(const wavefront_problem& problem, iter_t sync_points);

// The master side of S (seed 000 sec. 3.2, "transaction accounting"): chunks
// of the plan's c' range from any technique, numbered in the order handed
// out; chunk k's worker receives from the worker of chunk k-1 and sends to
// that of chunk k+1. Sequential: the caller serialises next().
class synchronized_schedule {
 public:
  // lp.n is replaced by plan.chunk_extent.
  synchronized_schedule(const wavefront_plan& plan, const schedule_spec& spec, loop_params lp);

  struct assignment {
    iter_t sequence = 0;    // k: 0, 1, 2 ... in hand-out order
    chunk span;             // along c'; size 0: nothing left
    int receive_from = -1;  // worker of chunk k-1; -1 for the first chunk
  };
  assignment next(int worker, double queue = 1.0);

  // Worker of chunk k+1, or -1 while it is not handed out (or k is the last).
  int send_to(iter_t sequence) const;

  // Adaptive techniques: `worker` computed `size` columns in `seconds`.
  void record(int worker, iter_t size, double seconds) { scheduler_.record(worker, size, seconds); }

  const loop_params& params() const { return scheduler_.params(); }

 private:
  scheduler scheduler_;
  std::vector<int> workers_;  // worker of each chunk handed out
};

}  // namespace selfsched

// A technique answers one question: how big is the next chunk?
//
// It is pure: no threads, clocks, atomics or MPI. The caller (the sequential
// scheduler below, the libomp binding, the MPI bridge, the simulator) owns the
// loop counters and tells the technique, at each request, how much is left
// and who is asking. Adaptive techniques are additionally fed measured chunk
// times through record().
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace selfsched {

struct adaptive_history;  // adaptive_history.hpp

using iter_t = std::int64_t;  // iteration counts: 64-bit throughout

struct chunk {
  iter_t start = 0;
  iter_t size = 0;  // 0: the loop has no more work
};

// Everything fixed for one loop instance.
struct loop_params {
  iter_t n = 0;           // iterations, 0 .. n-1
  int p = 1;              // workers
  iter_t chunk = 0;       // the chunk of a fixed-chunk technique (css); 0 = its default
  iter_t min_chunk = 1;   // lower threshold
  iter_t max_chunk = 0;   // upper threshold, 0 = none
  // Every chunk but the loop's last is a whole number of granules (so each
  // starts at a multiple of it): OpenMP's dynamic,k runs each chunk of k
  // iterations on one thread, and a program may rely on who ran what.
  iter_t granule = 1;
  // Relative speed VP_k of each worker (seed 000 sec. 2). Empty: all equal.
  // Validated (finite, > 0) before a technique sees it.
  std::vector<double> powers;
  // Technique parameters with no natural place elsewhere (validate() checks them).
  double mu = 1.0;        // mean iteration time (fac, fsc, mfsc, bold, tap)
  double sigma = 1.0;     // its standard deviation (1: as large as mu; 0 makes fac, fsc, bold static)
  double overhead = 0.0;  // h: scheduling overhead per chunk, in mu units
  std::uint64_t seed = 1; // rnd
  // Adaptive techniques (awf*, af): what earlier instances of this loop site
  // learned, read at construction and updated by record(). Owned by the
  // caller, one per loop site; null: every instance starts afresh.
  adaptive_history* history = nullptr;
  // The loop's work before each iteration, when known: n + 1 non-decreasing
  // values (work_prefix[i] is the cost of iterations 0 .. i-1), owned by the
  // caller. The alpha phase then splits alpha % of the *work* by speed, as
  // seed 003 (sec. 3.2) does for increasing and decreasing loops, instead of
  // alpha % of the iterations. Null: by iterations (the runtime knows no
  // costs in advance; the simulator does).
  const std::vector<double>* work_prefix = nullptr;
};

// What a technique is told at each request.
struct request {
  iter_t remaining = 0;  // R: iterations not yet handed out (> 0)
  iter_t step = 0;       // chunks handed out before this one
  int worker = 0;        // requesting worker, 0 .. p-1
  double power = 1.0;    // VP_k of the requesting worker
  double queue = 1.0;    // Q_k: runnable tasks on its core (>= 1)
};

class technique {
 public:
  virtual ~technique() = default;

  // Desired size of the next chunk (the caller clamps it to
  // [min_chunk, remaining] and to max_chunk).
  virtual iter_t next_size(const request& r) = 0;

  // Adaptive techniques learn from finished chunks: `worker` ran `size`
  // iterations in `seconds` (busy time, excluding scheduling).
  virtual void record(int /*worker*/, iter_t /*size*/, double /*seconds*/) {}

  // Non-zero when every chunk from this request on has this size (after
  // clamping). Lets a chunk plan cover 10^12 iterations in a few segments.
  virtual iter_t constant_size_from(const request& /*r*/) const { return 0; }

  // Mechanism W asks this first, with the requester's available power
  // (0 < available <= 1): a technique whose chunks follow a count of steps
  // (tss) answers in its own terms, so that what W withholds is not left for
  // the end. 0: none of its own; W scales next_size (mechanisms/weighting.cpp).
  virtual iter_t weighted_size(const request& /*r*/, double /*available*/) { return 0; }
};

using technique_ptr = std::unique_ptr<technique>;

}  // namespace selfsched

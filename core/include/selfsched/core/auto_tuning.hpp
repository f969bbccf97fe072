// `auto`: chunks sized from what is measured, safe from the first one.
//
// A worker's first chunk is the minimum (1, or the ",k" given): nothing is
// known yet about its speed, the iterations' cost or how that cost varies,
// and a loop whose first iterations are the costliest (work sorted by size,
// vertices by degree) loses most to one early large chunk. After each chunk
// the worker knows its own time per iteration (so a loaded core, a slow core
// and a hybrid CPU are all seen, without Q or weights) and what a claim
// costs, and its next chunk is bounded by:
//
//   balance:   at most 1/factor of worker k's share of what remains at the
//              team's measured rate, B = R / (factor * rate * t_k) (factoring with
//              x = 4, weighted by measured speed as in AF, Banicescu & Liu 2000;
//              x = 2 ran Mandelbrot 5% slower: rates measured on a few rows
//              mispredict the next rows' cost)
//   ramp:      at most `growth` times the worker's previous chunk, so a few
//              cheap iterations never buy a large chunk; or, if larger, the
//              overhead bound claim / (claim_share * t_k), a chunk whose claim
//              costs at most claim_share of it, but no more than `jump` times
//              the previous chunk (one cheap first iteration and a claim
//              slowed by 64 threads claiming at once made that bound a whole
//              share of quicksort's rows, 10% over guided, simulated at 64
//              threads; docs/simulation.md).
//
// The next chunk is the smaller of the two. Chunks are as large as balance
// allows once the ramp is done: consecutive iterations share caches, and a
// chunk boundary between two threads running side by side can cost a whole
// iteration (matmul's rows share a cache line at each boundary: rows handed
// out one by one ran at half speed, docs/results.md).
//
// Claims cost under ~1% of the loop; the balance bound keeps the end of the
// loop even; growth makes the first chunks safe. What a worker learned is
// kept per loop site, so the next instance (the next time step) starts from it.
//
// Pure: the caller measures and keeps the estimates. The libomp binding
// keeps one per thread and takes its chunks from the thread's own share of
// the loop (omp_ext/team_auto, which the simulator runs too); the sequential
// technique (make_auto, for selfsched-chunks and outer chunks of MPI regions)
// keeps one per worker.
#pragma once

#include <cstdint>

#include "selfsched/core/technique.hpp"

namespace selfsched {

struct auto_estimate {
  // Faded sums of busy seconds and iterations: recent chunks weigh more, so
  // a core that becomes loaded is seen within a few chunks.
  double busy_seconds = 0;
  double iterations = 0;
  double claim_seconds = 0;  // faded mean cost of one claim; 0 = not measured
  iter_t last_size = 0;      // the previous chunk; 0 = none yet
  iter_t largest_size = 0;   // the largest chunk of this instance (its tail shrinks to the minimum)

  static constexpr double fade = 0.5;        // weight of the past at each chunk
  static constexpr double claim_fade = 0.75;

  // 0 until a chunk has been measured.
  double seconds_per_iteration() const { return iterations > 0 ? busy_seconds / iterations : 0; }

  // The worker ran `size` iterations in `seconds` of busy time.
  void record_chunk(iter_t size, double seconds);
  // One claim (asking, getting the chunk) took `seconds`.
  void record_claim(double seconds);
  // The worker asked for a chunk of `size`.
  void record_size(iter_t size) {
    last_size = size;
    if (size > largest_size) largest_size = size;
  }
  // The worker's next chunks come from another part of the loop (it stole
  // them): what it measured says little of their cost (Mandelbrot's rows
  // differ 100-fold), so it measures again from the minimum chunk. The
  // claim cost stays.
  void restart_elsewhere() {
    busy_seconds = iterations = 0;
    last_size = 0;
  }
  // Carried into the next instance of the same loop site: the rates stay,
  // the ramp restarts a few doublings below the largest chunk of this one.
  auto_estimate for_next_instance() const;
};

struct auto_tuning {
  static constexpr double claim_share = 0.01;  // claims cost at most 1% of a chunk
  static constexpr double factor = 4;          // of a worker's share of what remains
  static constexpr double growth = 2;          // chunk k+1 <= growth x chunk k
  static constexpr double jump = 16;           // ... or jump x chunk k, towards the overhead bound
  // A claim costs at least this much even where the clock cannot see it:
  // the call into the runtime, and the shared counter's cache line moving
  // between cores (libomp's dynamic,1 pays about 0.8 us a claim with two
  // threads on a 2-vCPU EPYC VM, docs/results.md). With claim_share, chunks
  // of at least 20 us.
  static constexpr double least_claim_seconds = 200e-9;
  // How many doublings below its last chunk a worker restarts in the next
  // instance of the same site.
  static constexpr int restart_doublings = 2;

  // The next chunk of worker `me` with `remaining` iterations not yet handed
  // out, the team running `team_rate` iterations per second (0: unknown),
  // never below `min_chunk` (>= 1). Not clamped to `remaining`.
  static iter_t next_size(const auto_estimate& me, iter_t remaining, double team_rate, iter_t min_chunk);
};

}  // namespace selfsched

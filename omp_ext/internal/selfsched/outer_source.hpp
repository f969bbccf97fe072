// Extension point for the MPI bridge: outer chunks from outside the process.
//
// While a source is installed on a thread, the selfsched loops of the teams
// that thread starts (and its own loops outside parallel regions) take their
// iterations from it: one outer chunk at a time, split among the team's
// threads by the active technique (seed 004's master/worker level).
// Nested teams inside those loops are not affected.
#pragma once

#include <cstdint>

#include "selfsched/core/technique.hpp"

namespace selfsched::omp {

// next_outer()'s answer when the chunk is not available yet.
inline constexpr chunk outer_pending{0, -1};

class outer_source {
 public:
  virtual ~outer_source() = default;
  // A loop of n iterations starts in this process (once, by one thread).
  // Returns the source's name for the loop, passed back to progress().
  // `granule` (>= 1) is the loop's chunk size as the program wrote it
  // (dynamic,k's k, or the technique's ",k"): OpenMP runs each chunk of k
  // iterations on one thread, so a source that can should hand out chunks
  // that start at multiples of it (cluster mode does; a region's engine,
  // whose results move by the rows a rank ran, ignores it).
  virtual std::uint64_t loop_begin(const void* site, iter_t n, iter_t granule) = 0;
  // The next outer chunk for this process; size 0 when there is none left.
  // Calls never overlap, but may come from any thread of the team. Once it
  // has returned size 0 it is not called again for that loop, so every call
  // concerns the loop most recently begun. A size < 0 (outer_pending) means
  // "not here yet": the caller releases the loop and asks again, so another
  // thread (e.g. the one allowed to call MPI) can fetch it.
  virtual chunk next_outer() = 0;
  // After each chunk a thread takes from the current outer chunk of `loop`
  // (under nowait, not always the loop begun last): `left` of
  // its `size` iterations are not handed out yet. Lets a source ask for the
  // next outer chunk before this one runs dry (latency hiding). Same
  // serialization as next_outer(). Returns false when the rest of the
  // current outer chunk is not wanted any more (another process finished a
  // copy of it): the taken chunk is not run and the next claim goes to
  // next_outer().
  virtual bool progress(std::uint64_t /*loop*/, iter_t /*left*/, iter_t /*size*/) { return true; }
  // The largest inner chunk a thread may take from an outer chunk of
  // `outer_size` iterations split among `team_size` threads; 0: no limit
  // beyond the program's. A source that cancels chunks (progress() answers
  // false) bounds them, since a thread learns of a cancel only at its next
  // claim: a whole outer chunk taken at once (static, one thread) would run
  // to its end at the straggler's speed.
  virtual iter_t inner_chunk_limit(iter_t /*outer_size*/, int /*team_size*/) { return 0; }
  // Every thread of the team has left the loop (called by the last one).
  virtual void loop_end() = 0;
  // On the installing thread, after each parallel region it started has
  // joined: the place for collective data movement (MPI_THREAD_FUNNELED).
  virtual void parallel_end() {}
};

// Installs `source` for the calling thread (nullptr removes it); returns the
// one it replaces, so scopes can nest.
outer_source* install_outer_source(outer_source* source);

}  // namespace selfsched::omp

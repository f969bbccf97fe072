// The closed form of a fixed technique: step -> (start, size).
//
// Built once per (technique, n, p, params) by running the sequential rule and
// run-length encoding equal chunks, so a claim in a concurrent binding is one
// fetch-and-add on a step counter plus at().
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "selfsched/core/technique.hpp"

namespace selfsched {

class chunk_plan {
 public:
  // nullopt if the plan would need more than max_segments runs, or more
  // than max_segments chunks computed one by one (a long run the technique
  // does not announce through constant_size_from, e.g. a max_chunk clamping
  // gss); then the caller serves the technique sequentially instead, from a
  // fresh instance: build() has advanced `t`.
  static std::optional<chunk_plan> build(technique& t, const loop_params& lp,
                                         std::size_t max_segments = 1u << 20);

  iter_t chunk_count() const { return chunk_count_; }
  std::size_t segment_count() const { return runs_.size(); }

  // Chunk number `step`; {n, 0} past the end. `hint` is the caller's cursor
  // into the runs (start it at 0): claims from one worker increase, so the
  // search is usually one comparison.
  chunk at(iter_t step, std::size_t& hint) const;
  chunk at(iter_t step) const {
    std::size_t hint = 0;
    return at(step, hint);
  }

 private:
  struct run {
    iter_t first_step;  // chunks [first_step, next run's first_step)
    iter_t start;       // of the run's first chunk
    iter_t size;        // of every chunk in the run
  };
  std::vector<run> runs_;  // plus a sentinel {chunk_count_, n, 0}
  iter_t chunk_count_ = 0;
};

}  // namespace selfsched

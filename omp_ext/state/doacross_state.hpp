// What a doacross loop (ordered(n) with depend(sink/source)) keeps: each
// thread's view of the loop it is in (part of its membership) and the shared
// progress counters in the loop slot (team_state.hpp). doacross.hpp has how
// they are served.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "runtime/libomp_abi.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched::omp {

constexpr int doacross_max_dims = 8;  // deeper nests go to libomp

// One thread's view of the doacross loop it is in (part of its membership).
struct doacross_thread {
  enum class state : unsigned char {
    none,     // no doacross loop of ours: calls go to libomp
    pending,  // doacross_init seen, dispatch_init not yet
    ours,     // the current loop slot serves it
  };
  state mode = state::none;
  int dims = 0;
  kmp_dim bounds[doacross_max_dims];
  ident_t* loc = nullptr;
  std::int32_t gtid = 0;
  bool from_libgomp = false;  // a GCC loop: there is no libomp to hand it to
  // The row this thread last posted in (sinks into it need no waiting),
  // and where in it the next synchronization point is.
  iter_t row = -1;
  iter_t publish_at = 0;
};

// The shared part, in the loop slot.
struct doacross_loop {
  bool active = false;  // set up and served by selfsched
  int dims = 0;
  int outer_dims = 1;   // the loops dispatch_init hands out (collapse)
  // Dimension d: index = (v - first[d]) / step[d], valid in [0, count[d]).
  iter_t first[doacross_max_dims] = {};
  iter_t step[doacross_max_dims] = {};
  iter_t count[doacross_max_dims] = {};
  iter_t inner = 1;          // iterations of the inner loops per row
  iter_t publish_every = 1;  // SI under S, else 1
  int team_size = 1;
  iter_t stride = 1;         // counters per row (8: one cache line each)
  std::unique_ptr<std::atomic<iter_t>[]> done;
  iter_t capacity = 0;       // counters allocated
};

}  // namespace selfsched::omp

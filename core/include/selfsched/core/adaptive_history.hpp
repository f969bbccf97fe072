// What the adaptive techniques learned about each worker in earlier instances
// of the same loop site, carried into the next instance.
//
// AWF was made for time-stepping codes (Banicescu, Velusamy & Devaprasad
// 2003): the loop of time step j starts with weights learned in steps
// 1 .. j-1. The core keeps no state between instances, so the caller owns one
// adaptive_history per loop site (the libomp binding keys it by ident_t*)
// and points loop_params::history at it. A technique reads it when it is
// constructed and adds every record() to it as it goes: no end-of-loop call
// is needed, and a loop that stops early leaves a consistent history.
//
// Not thread-safe: one loop instance at a time may use a given history (the
// technique's record() calls are already serialized by its caller).
#pragma once

#include <cstdint>
#include <vector>

namespace selfsched {

struct adaptive_history {
  struct worker {
    // AWF's time-step weighted performance: the sum over instances
    // j = 1, 2, ... of j * (busy seconds, iterations) recorded in instance j,
    // so that recent instances weigh more. Rate = seconds / iterations.
    double weighted_seconds = 0;
    double weighted_iterations = 0;
    // AF: the latest estimates of the mean and standard deviation of one
    // iteration's time on this worker, in seconds. mu = 0: no estimate yet.
    double mu = 0;
    double sigma = 0;
  };

  std::int64_t instances = 0;   // loop instances begun with this history
  std::vector<worker> workers;  // one per worker; started afresh when p changes
};

}  // namespace selfsched

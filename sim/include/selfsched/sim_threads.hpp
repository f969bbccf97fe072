// selfsched::sim, threads: one node's thread team running a loop, each
// thread a SimGrid actor on a core of its own, so that `auto` can be judged
// at 16-128 threads on a machine of 2.
//
// `auto` is served by the runtime's own code (omp_ext/team_auto: the
// iteration shares, stealing, each thread's chunk from its measured rates),
// driven by the simulated clock; the weighted and other catalog techniques
// by the core's scheduler with each thread's run queue, as the runtime's
// serial claim; libomp's `static`, `dynamic,k` and `guided` as libomp's
// kmp_dispatch.cpp hands them out.
//
//   selfsched::sim::threads_spec spec;
//   spec.threads = 64;
//   spec.schedule = "auto";
//   spec.costs = selfsched::sim::cost_model::parse("mandelbrot");
//   selfsched::sim::threads_result r = selfsched::sim::simulate_threads(spec);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "selfsched/sim.hpp"

namespace selfsched::sim {

struct threads_spec {
  int threads = 16;
  // auto (the runtime's), static, dynamic[,k], guided[,k] (libomp's), or a
  // catalog technique (w-tss, fac2 ...) served in order as the runtime does.
  std::string schedule = "auto";
  iter_t n = 10000;
  cost_model costs = cost_model::parse("uniform");
  // Cores' relative speeds, repeated over the threads (slow cores; a hybrid
  // CPU: 1:1:0.6:0.6). Empty: all 1. Weighted techniques are told them, as
  // hwloc's CPU kinds tell the runtime.
  std::vector<double> speeds;
  // Cores shared with another process by time slices (their `worker` is the
  // thread): a weighted technique sees a run queue of 2 there.
  std::vector<time_share> time_shares;
  double flops = 1e9;
  // A claim's cost with no other thread claiming; each thread claiming at
  // the same moment adds as much (the shared count's cache line moves once
  // per claimer). libomp's dynamic,1 paid about 0.8 us a claim beside one
  // other thread on this machine (docs/results.md): 0.4 us each.
  double claim_seconds = 4e-7;
  // The loop's chunk order: nonmonotonic lets auto take from per-thread
  // shares and steal (OpenMP 5's default for dynamic and runtime).
  bool nonmonotonic = true;
  // Instances of the loop run back to back (time steps): auto carries what
  // each thread learned from one to the next, as the runtime does per site.
  int instances = 1;
};

struct threads_result {
  double makespan = 0;    // the last instance's, simulated seconds
  double ideal = 0;       // its work over the cores' total speed
  double efficiency = 0;  // ideal / makespan
  std::int64_t chunks = 0;  // the last instance's
  double claim_seconds = 0; // the last instance's, summed over the threads
  // Every iteration of every instance ran exactly once.
  bool every_iteration_once = false;
};

// Checks the spec, or throws sim_error naming the bad value and the choices.
void validate(const threads_spec& spec);
// Runs it (in a child process, as simulate()). Throws sim_error on bad input.
threads_result simulate_threads(const threads_spec& spec);

}  // namespace selfsched::sim

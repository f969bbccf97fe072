// selfsched::sim: a loop's self-scheduling simulated on SimGrid (S4U), so
// that a technique and a transport can be judged on platforms larger than
// the machine at hand (seed 004's 8,192 workers, seed 001's processors).
//
// Workers, masters and the supermaster are actors on simulated hosts of
// given speeds, each with its own link (latency, bandwidth) to a backbone.
// Every chunk decision comes from selfsched::core's scheduler, the same code
// the runtime uses: techniques, W, alpha, and the adaptive techniques fed
// with simulated chunk times.
//
//   selfsched::sim::platform_spec platform;   // 256 workers, ...
//   platform.workers = 256;
//   selfsched::sim::run_spec run;
//   run.technique = "dfss,5";
//   run.n = 200000;
//   run.costs = selfsched::sim::cost_model::parse("mandelbrot");
//   selfsched::sim::result r = selfsched::sim::simulate(platform, run);
//
// Each simulate() runs in a child process (SimGrid keeps one engine per
// process), so a program may call it many times; it is not for programs
// with other threads running.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "selfsched/core/technique.hpp"

namespace selfsched::sim {

// Bad input (platform, costs, technique): the message names the value and
// the valid choices.
class sim_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A worker running at `factor` of its speed from `from` to `until`
// (simulated seconds): a node shared with another job for a while.
struct slowdown {
  int worker = 0;
  double factor = 0.5;  // (0, 1]
  double from = 0, until = 0;
};

// A worker lost at a time (its host turned off): what it held is run again
// elsewhere, as rDLB does (Mohammed, Cavelan, Ciorba): a worker that finds
// no new chunk gets a copy of the oldest chunk not finished, and the first
// copy to finish counts. Master transport only.
struct loss {
  int worker = 0;
  double at = 0;
};

// A worker that starts asking `after` seconds later than the others: a
// thread that reaches the loop late. With 2 workers it decides who asks
// first, and so who gets a decreasing technique's costly first chunks.
struct late_start {
  int worker = 0;
  double after = 0;
};

// A worker sharing its core with another process by time slices, as the
// kernel shares it fairly (seed 000's resource-expensive process): it runs
// `on` seconds, is stopped `off` seconds, and so on. Its first slice begins
// at `start` (in [0, off]; stopped before it, and asking for its first
// chunk then). Over a long loop it is a worker of speed on / (on + off);
// over a loop a few slices long, which slices its chunks meet decides.
// Or the slices as they fell in a real run (`slices`, seconds from the
// loop's start, in order; the other process's gaps as it recorded them):
// stopped before the first and between them, unshared after the last.
struct time_share {
  int worker = 0;
  double on = 0, off = 0, start = 0;
  std::vector<std::pair<double, double>> slices;  // [begin, end); if given, instead of on, off and start
};

struct platform_spec {
  // A SimGrid platform file instead of the star below: its hosts named
  // worker-0, worker-1 ... are the workers (their speeds over `flops` are
  // the relative speeds), master-0 ... the masters and supermaster the
  // supermaster under hier; its links and routes are the network. `workers`,
  // `speeds`, `latency` and `bandwidth` are then not used.
  std::string xml;
  int workers = 2;
  // Relative speeds, repeated over the workers (1:0.5 makes every other
  // worker half as fast). Empty: all 1.
  std::vector<double> speeds;
  // What weighted and alpha techniques are told of the workers' speeds,
  // repeated over them like `speeds` (a calibration by CPU clock, say, that
  // misjudges them: seed 003). Empty: the speeds themselves.
  std::vector<double> powers;
  double flops = 1e9;        // flop/s of a worker of speed 1
  double latency = 2e-6;     // seconds, per link (worker, master and supermaster each have one)
  double bandwidth = 1.25e9; // bytes/s, per link
  // Memory-bound iterations: the workers of a node share its memory
  // bandwidth. An iteration of cost t moves memory_share x t seconds' worth
  // of the node's full bandwidth while it computes (at a worker's speed s,
  // at s of that rate), and takes the longer of the two: alone max(t, share
  // x t) = t, beside k - 1 others streaming at once max(t, k x share x t).
  // In [0, 1]; 0 (default): iterations compute only. Measure it as the
  // per-iteration time with k workers of a node busy over k times the time
  // of one alone (a matrix product's rows on this machine: 56 us / (2 x
  // 44 us) = 0.64).
  double memory_share = 0;
  // Workers sharing a node's memory: consecutive groups of this many (a
  // worker's own threads, run.threads, always share its node's). >= 1.
  int workers_per_node = 1;
  std::vector<slowdown> slowdowns;
  std::vector<loss> losses;
  std::vector<late_start> late_starts;
  std::vector<time_share> time_shares;  // at most one a worker, and not with a slowdown
};

// Seconds an iteration costs on a worker of speed 1. Models: uniform,
// increasing, decreasing (linear ramps), random (uniform in [0.5, 1.5] x
// mean), mandelbrot and mandelbrot-rows (the columns or rows of [-2,2]^2 at
// n x n, escape counts sampled on 64 points each), adjoint (seed 004's
// adjoint convolution: n - i), quicksort (seed 004's rows of random length
// L in [1, 3000], L log L), each scaled to the given mean.
class cost_model {
 public:
  static cost_model parse(const std::string& name, double mean = 1e-4, std::uint64_t seed = 1);
  // Measured costs, one per iteration (e.g. from a SELFSCHED_PROFILE with
  // chunks: each chunk's time spread over its iterations). The loop's n must
  // be their number.
  static cost_model measured(const std::string& name, std::vector<double> costs);
  // Per-iteration costs for a loop of n iterations.
  std::vector<double> costs(iter_t n) const;
  const std::string& name() const { return name_; }
  bool is_measured() const { return !measured_.empty(); }
  double mean() const { return mean_; }

 private:
  std::string name_;
  double mean_ = 1e-4;
  std::uint64_t seed_ = 1;
  std::vector<double> measured_;  // when set, the costs themselves
};

// master: a master actor serves every request (claim_seconds each).
// rma: no master; a claim is one atomic fetch-and-add at the window owner
//   (rank 0's host), atomic_seconds each, serialised there, with no timing
//   or results carried; fixed techniques only, as in the runtime.
// hier: node masters under a supermaster (seed 004).
enum class transport { master, rma, hier };

struct run_spec {
  std::string technique = "fss";  // any catalog name: chunks for the workers
  transport via = transport::master;
  int masters = 1;                // hier: node masters, each serving workers / masters workers
  iter_t n = 10000;
  cost_model costs = cost_model::parse("uniform");
  double claim_seconds = 1e-6;    // a master's work per request served
  double atomic_seconds = 2e-7;   // rma: the window owner's time per fetch-and-add
  // Two levels, as the runtime: each worker is a rank of `threads` threads
  // (on as many cores of its host) that split its outer chunks with
  // inner_technique, inner_claim_seconds a claim; the rank asks for the next
  // outer chunk once 15% of the current one is left. 1: the worker computes
  // its chunks itself.
  int threads = 1;
  std::string inner_technique = "fss";
  double inner_claim_seconds = 1e-7;
  // Dependence loops (seed 000's mechanism S, sec. 3): the n iterations are
  // the columns of a rows x n wavefront (each point needs its left and upper
  // neighbours), and an iteration's cost is its whole column's. Chunks of
  // columns go out in order (an s-* or sw-* technique, any transport);
  // the worker of chunk k runs it in intervals of SI = ceil(rows / #SP) rows,
  // interval t once the worker of chunk k-1 has finished it and sent its
  // boundary, boundary_bytes a row, straight to it (seed 000's send-to /
  // receive-from). 0 rows: independent iterations.
  iter_t rows = 0;
  iter_t sync_points = 0;         // #SP; 0: 3 x workers (seed 000 sec. 3.3)
  iter_t max_chunk = 0;           // upper threshold on every chunk (seed 000 Table 4); 0: none
  double boundary_bytes = 8;
  double request_bytes = 64;      // a request, a chunk answer
  double result_bytes = 0;        // per iteration, sent back with the next request
  // Cluster mode (docs/cluster.md): instead of travelling to a master, the
  // loop's writes are merged at its end so that every worker holds them all.
  // Each iteration writes merge_bytes; a worker pays merge_page_seconds (at
  // speed 1) for each 4 KiB page it wrote (tracking and diff) and each page
  // it receives (apply), measured by `make bench-cluster`, and the pages go
  // round a ring of the workers (an all-gather over the platform's links, as
  // the agents' MPI_Iallgatherv does for large blocks).
  // 0: no merge (a selfsched::mpi region, results by result_bytes).
  double merge_bytes = 0;
  double merge_page_seconds = 2.5e-6;
  bool record_chunks = false;     // keep every chunk (small runs, tests)
  // Alpha techniques (-NN, -auto) split alpha % of the loop's work, known
  // here from the costs, instead of its iterations (seed 003 sec. 3.2;
  // loop_params::work_prefix). The runtime knows no costs in advance.
  bool alpha_by_work = false;
};

struct chunk_record {
  iter_t start = 0, size = 0;
  int asked_for = 0;          // the worker the scheduler was asked for (hier: one of the node's)
  int ran_on = -1;            // the worker that ran it
  double begin = 0, end = 0;  // simulated seconds, of the computation
};

struct result {
  double makespan = 0;       // until the last worker finished (simulated seconds)
  double ideal = 0;          // total work / total speed: perfect balance, free scheduling
  double efficiency = 0;     // ideal / makespan
  std::int64_t chunks = 0, messages = 0;
  std::int64_t reexecuted = 0;  // chunks handed out again (with losses)
  std::vector<double> busy;  // per worker, seconds computing (summed over its threads)
  double merge_seconds = 0;  // cluster mode: from the loop's last chunk to every worker holding every write
  double master_busy = 0;    // the busiest master's share of the makespan spent serving (its CPU; not its link)
  std::vector<chunk_record> chunk_log;  // in hand-out order, when asked
};

// Checks the platform and the run, or throws sim_error.
void validate(const platform_spec& platform, const run_spec& run);

// Runs the simulation (in a child process). Throws sim_error on bad input,
// std::runtime_error if the simulation itself failed.
result simulate(const platform_spec& platform, const run_spec& run);

// "1:0.5:0.5" -> {1, 0.5, 0.5}; throws sim_error naming `what` (the option's values).
std::vector<double> parse_speeds(const std::string& text, const char* what = "speeds");
// "WORKER:FACTOR:FROM:UNTIL", e.g. "3:0.25:0.5:1" (FROM and UNTIL as for
// parse_seconds); throws sim_error.
slowdown parse_slowdown(const std::string& text);
// "WORKER:TIME", e.g. "3:20ms"; throws sim_error.
loss parse_loss(const std::string& text);
late_start parse_late_start(const std::string& text);
// "WORKER:ON:OFF[:START]", e.g. "1:4ms:4ms:3.8ms", or "WORKER:FILE": the
// slices as they fell, one "BEGIN END" a line (seconds, as parse_seconds;
// '#' starts a comment); throws sim_error.
time_share parse_time_share(const std::string& text);
// "2us", "1.5ms", "0.002" (seconds); throws sim_error naming `what`.
double parse_seconds(const std::string& text, const std::string& what);
transport parse_transport(const std::string& name);
const char* transport_name(transport t);

}  // namespace selfsched::sim

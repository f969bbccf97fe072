// selfsched-smpi-loop: one shared loop run by the real MPI bridge (the
// engine of mpi_bridge/src, compiled unchanged with smpicxx) on the ranks
// SimGrid's SMPI simulates, one thread per rank. Each rank feeds the engine
// as libselfsched's binding feeds it for a team of one thread: it begins the
// loop, takes outer chunks (next_outer), splits each with the inner
// technique and reports every inner chunk it takes (progress), then ends
// the loop (its checkpoint). An inner chunk's compute is charged to the
// rank's simulated host (smpi_execute_flops) from the cost models
// selfsched-sim uses (sim/src/inputs.cpp).
//
// Serving ranks (master: rank 0; hier: each node's first rank, rank 0 the
// supermaster too) only serve, by default, on hosts of their own, as
// seed 004's masters and selfsched-sim's do; --serving computing makes them
// compute too, serving between their inner chunks (the bridge's default on
// a real cluster, with a progress thread there).
//
// Run by smpirun (sim/smpi/run.py writes the platform and the hostfile);
// rank 0 prints one line of key=value figures.
#include <mpi.h>
#include <smpi/smpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "common/waiting.hpp"
#include "regions/engine.hpp"
#include "driver.hpp"
#include "rank_power.hpp"
#include "results.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/sim.hpp"
#include "smpi_waits.hpp"

namespace {

using selfsched::chunk;
using selfsched::iter_t;
using selfsched::smpi::take_flag;
namespace results = selfsched::smpi::results;
namespace detail = selfsched::mpi::detail;

struct driver_options {
  std::string technique = "fss", transport = "master", inner = "static", cost = "uniform";
  iter_t n = 10000;
  double mean = 1e-4, flops = 1e9;
  double request_cost = 0;        // seconds a serving rank works on each request (request_cost.cpp)
  double nic_atomics = 0;         // seconds a target's NIC takes per fetch-and-op; 0: SMPI's own (nic_atomics.cpp)
  std::int64_t result_bytes = 0;  // an iteration's results, sent to the rank's master's sink (results.cpp)
  int sinks = 0;                  // the last ranks: a sink of results a master, on its host
  std::uint64_t seed = 1;
  bool dedicated_servers = true;
  bool serve_as_thread = false;  // serving ranks wait as the progress thread does, not polling every us
};

// Bad input: one line on rank 0's stderr, "" when all is well.
std::string parse_options(int argc, char** argv, driver_options& o) {
  std::string n, mean, flops, seed, serving, request_cost, nic_atomics, result_bytes, serve_wait, sinks;
  for (int k = 1; k < argc; ++k) {
    if (take_flag("--technique", k, argc, argv, o.technique) ||
        take_flag("--transport", k, argc, argv, o.transport) || take_flag("--inner", k, argc, argv, o.inner) ||
        take_flag("--cost", k, argc, argv, o.cost) ||
        take_flag("--n", k, argc, argv, n) || take_flag("--mean", k, argc, argv, mean) ||
        take_flag("--flops", k, argc, argv, flops) || take_flag("--seed", k, argc, argv, seed) ||
        take_flag("--serving", k, argc, argv, serving) ||
        take_flag("--request-cost", k, argc, argv, request_cost) ||
        take_flag("--nic-atomics", k, argc, argv, nic_atomics) ||
        take_flag("--result-bytes", k, argc, argv, result_bytes) ||
        take_flag("--serve-wait", k, argc, argv, serve_wait) || take_flag("--sinks", k, argc, argv, sinks))
      continue;
    return std::string("unknown option or missing value: ") + argv[k];
  }
  if (!n.empty()) o.n = std::strtoll(n.c_str(), nullptr, 10);
  if (!mean.empty()) o.mean = std::strtod(mean.c_str(), nullptr);
  if (!flops.empty()) o.flops = std::strtod(flops.c_str(), nullptr);
  if (!seed.empty()) o.seed = std::strtoull(seed.c_str(), nullptr, 10);
  if (!request_cost.empty()) o.request_cost = std::strtod(request_cost.c_str(), nullptr);
  if (!nic_atomics.empty()) o.nic_atomics = std::strtod(nic_atomics.c_str(), nullptr);
  if (!result_bytes.empty()) o.result_bytes = std::strtoll(result_bytes.c_str(), nullptr, 10);
  if (!sinks.empty()) o.sinks = static_cast<int>(std::strtol(sinks.c_str(), nullptr, 10));
  if ((o.sinks > 0) != (o.result_bytes > 0)) return "--sinks (a rank a master) goes with --result-bytes, and only";
  if (o.n < 1 || !(o.mean > 0) || !(o.flops > 0)) return "--n, --mean and --flops must be > 0";
  if (!(o.request_cost >= 0 && o.request_cost < 1)) return "--request-cost " + request_cost + ": 0 to 1 (seconds)";
  if (!(o.nic_atomics >= 0 && o.nic_atomics < 1)) return "--nic-atomics " + nic_atomics + ": 0 to 1 (seconds)";
  if (!serving.empty() && serving != "dedicated" && serving != "computing")
    return "--serving takes dedicated or computing, not " + serving;
  o.dedicated_servers = serving != "computing";
  if (!serve_wait.empty() && serve_wait != "poll" && serve_wait != "progress")
    return "--serve-wait takes poll or progress, not " + serve_wait;
  o.serve_as_thread = serve_wait == "progress";
  if (o.result_bytes != 0 && !o.dedicated_servers)
    return "--result-bytes needs --serving dedicated (a master that computes takes no results in)";
  if (o.result_bytes != 0 && o.transport == "rma") return "--result-bytes needs a master: master or hier";
  if (const std::string bad = results::reserve(o.result_bytes, o.n); !bad.empty()) return bad;
  if (!selfsched::parse_schedule(o.inner).ok()) return "--inner " + o.inner + " is not a technique";
  try {
    selfsched::sim::cost_model::parse(o.cost, o.mean, o.seed);
  } catch (const selfsched::sim::sim_error& e) {
    return e.what();
  }
  return "";
}

// The loop's work before each iteration (seconds at speed 1). Computed
// before MPI_Init, so SMPI charges it to no rank, and once: the ranks share
// this process (a profile on disk would be read the same way).
const std::vector<double>& work_prefix(const driver_options& o) {
  static const std::vector<double> prefix = [&] {
    const std::vector<double> costs = selfsched::sim::cost_model::parse(o.cost, o.mean, o.seed).costs(o.n);
    std::vector<double> sums(costs.size() + 1, 0.0);
    std::partial_sum(costs.begin(), costs.end(), sums.begin() + 1);
    return sums;
  }();
  return prefix;
}

// hier's ranks a node (the engine's own setting, nodes.cpp); 0: rank 0 serves all.
long node_size() {
  const char* size = std::getenv("SELFSCHED_MPI_NODE_SIZE");
  return size != nullptr ? std::strtol(size, nullptr, 10) : 0;
}

// Each rank's master: rank 0, or its node's first rank under hier (the
// engine's own rule); -1 under rma.
int master_of(const driver_options& o, int rank) {
  if (o.transport == "master") return 0;
  if (o.transport != "hier") return -1;
  const long node = node_size();
  return node > 0 ? static_cast<int>(rank - rank % node) : 0;
}

// Which ranks serve: the master, or every node's first rank.
bool serves(const driver_options& o, int rank) { return master_of(o, rank) == rank; }

// The sinks of results follow the engine's `ranks`, one a master in the
// masters' order (run.py puts each on its master's host).
int sink_of_master(const driver_options& o, int master, int ranks) {
  return ranks + (o.transport == "hier" && node_size() > 0 ? static_cast<int>(master / node_size()) : 0);
}
int master_of_sink(const driver_options& o, int sink, int ranks) {
  return o.transport == "hier" && node_size() > 0 ? static_cast<int>((sink - ranks) * node_size()) : 0;
}

struct rank_figures {
  double last_end = 0;     // when its last inner chunk ended (s after the start)
  double computed = 0;     // seconds of work at speed 1 it ran
  double serving = 0;      // seconds it spent handling messages (serving ranks)
  double power = 0;        // its host's speed (computing ranks)
  std::int64_t outer = 0;  // outer chunks it ran
  std::int64_t results_sent = 0, results_taken = 0;  // result messages (--result-bytes)
  double iterations = 0;   // iterations it ran (all ranks': the loop's n, once each)
};

// An outer chunk as a team of one thread runs it: inner chunks by the inner
// technique, each reported (progress) before it runs, as libselfsched's
// binding does after every claim.
void run_outer_chunk(detail::engine& e, std::uint64_t loop, chunk outer, const driver_options& o, double start,
                     rank_figures& f) {
  selfsched::loop_params lp;
  lp.n = outer.size;
  const selfsched::schedule_spec inner = selfsched::parse_schedule(o.inner).spec;
  selfsched::apply_chunk(inner, lp);
  selfsched::scheduler split(inner, lp);
  const std::vector<double>& prefix = work_prefix(o);
  for (chunk c = split.next(0); c.size > 0; c = split.next(0)) {
    if (!e.progress(loop, split.remaining(), outer.size)) return;  // a copy finished elsewhere
    const iter_t first = outer.start + c.start;
    const double work = prefix[static_cast<std::size_t>(first + c.size)] - prefix[static_cast<std::size_t>(first)];
    // The benched form: it stops SMPI's timer of the rank's own CPU time
    // first. smpi_execute_flops leaves it running while the other ranks
    // run on the same OS thread, and the next MPI call then charges their
    // CPU time to this rank too (ten times the makespan at 64 ranks).
    smpi_execute_flops_benched(work * o.flops);
    f.computed += work;
    f.iterations += static_cast<double>(c.size);
    f.last_end = MPI_Wtime() - start;
  }
  ++f.outer;
}

void compute(detail::engine& e, std::uint64_t loop, const driver_options& o, double start, rank_figures& f) {
  f.power = selfsched::smpi::rank_power();
  const int sink = results::moved() ? sink_of_master(o, master_of(o, e.rank()), e.size()) : -1;
  for (chunk c = e.next_outer(); c.size > 0; c = e.next_outer()) {
    run_outer_chunk(e, loop, c, o, start, f);
    if (results::send(sink, c.size)) ++f.results_sent;
  }
}

// A serving rank that computes nothing: it serves until every computing
// rank has run out of chunks (`everyone_done`), counting the time of the
// polls that handled a message as busy (results go to its sink, a rank of
// their own: results.cpp). Between polls it yields (a simulated
// microsecond), or, with --serve-wait progress, waits as the bridge's
// progress thread does (engine::serve_forever: yields while requests flow,
// naps once quiet), which a long loop's simulation needs: a rank polling
// every microsecond of a 10-second loop makes 10 million polls.
//
// The barrier is tested every 50 simulated us, not at every poll (fewer
// simulation events). The figures do not see it: the makespan ends with
// the last chunk, busy time with the last message served.
void serve(detail::engine& e, const driver_options& o, MPI_Request& everyone_done, rank_figures& f) {
  double tested = -1, quiet_since = MPI_Wtime();
  for (int done = 0; !done;) {
    const double before = MPI_Wtime();
    if (e.serve()) {
      quiet_since = MPI_Wtime();
      f.serving += quiet_since - before;
    }
    if (before - tested >= 50e-6) {
      tested = before;
      MPI_Test(&everyone_done, &done, MPI_STATUS_IGNORE);
    }
    if (done) break;
    // A region's pauses (false): the driver's engine is built for a program
    // elsewhere only so that it installs nothing in this shared process.
    const auto pause = detail::pause_when_quiet(static_cast<std::int64_t>((MPI_Wtime() - quiet_since) * 1e9), false);
    if (!o.serve_as_thread || pause.what == detail::serving_pause::yield) sched_yield();  // smpi_workarounds.h
    else detail::sleep_ns(static_cast<long>(pause.ns));  // nothing of this rank's own wakes it earlier
  }
  // Every send was synchronous: each was taken in before its rank was done.
  if (results::moved()) f.results_taken = results::close(sink_of_master(o, e.rank(), e.size()));
}

void print_figures(const driver_options& o, MPI_Comm comm, const rank_figures& mine, const detail::engine& e) {
  double maxima[2] = {mine.last_end, mine.serving}, max[2] = {0, 0};
  double sums[7] = {mine.computed, mine.power, static_cast<double>(mine.outer), mine.iterations, mine.serving,
                    static_cast<double>(mine.results_sent), static_cast<double>(mine.results_taken)};
  double sum[7] = {0, 0, 0, 0, 0, 0, 0};
  double served = static_cast<double>(e.stats().requests_served), served_all = 0;
  MPI_Reduce(maxima, max, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(sums, sum, 7, MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Reduce(&served, &served_all, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (e.rank() != 0) return;
  const selfsched::smpi::wait_counts waits = selfsched::smpi::waits();  // every rank's, nearly all done
  const double ideal = sum[0] / sum[1], makespan = max[0];
  std::printf("smpi-loop: transport=%s technique=%s ranks=%d makespan=%.6f ideal=%.6f efficiency=%.4f "
              "chunks=%.0f served=%.0f master_busy=%.4f serving_sum=%.6f iterations=%.0f ",
              e.stats().transport.c_str(), o.technique.c_str(), e.size(), makespan, ideal, ideal / makespan, sum[2],
              served_all, makespan > 0 ? max[1] / makespan : 0.0, sum[4], sum[3]);
  std::printf("results_sent=%.0f results_taken=%.0f tests=%lld blocked=%lld polls=%lld\n", sum[5], sum[6],
              static_cast<long long>(waits.tests), static_cast<long long>(waits.blocked),
              static_cast<long long>(waits.polls));
}

int run_loop(const driver_options& o, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool serve_only = o.dedicated_servers && serves(o, rank);
  selfsched::smpi::block_in_waits(!serves(o, rank));  // a rank that serves nobody waits in MPI_Wait
  detail::engine e(comm, selfsched::mpi::options().schedule(o.technique).transport(o.transport),
                   detail::serving::program_elsewhere);
  if (serve_only) e.serve_only();
  rank_figures f;
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  const std::uint64_t loop = e.loop_begin_elsewhere(1, o.n);
  // Every computing rank is done: a nonblocking barrier, as an allreduce
  // (the count of ranks, checked below: the tree's result). SMPI 3.32's MPI_Ibarrier has rank 0 post a receive from every
  // rank at once, which then sit in its mailbox for the whole loop: every
  // request it is sent is matched against them (4,096 workers of master:
  // most of the wall time). The allreduce takes smpi_workarounds.h's
  // binomial tree: rank 0 waits for log2 P children, one at a time.
  MPI_Request everyone_done = MPI_REQUEST_NULL;
  int one = 1, ranks_done = 0;
  const auto all_done = [&] {
    MPI_Iallreduce(&one, &ranks_done, 1, MPI_INT, MPI_SUM, comm, &everyone_done);
  };
  if (serve_only) {
    all_done();
    serve(e, o, everyone_done, f);
  } else {
    compute(e, loop, o, start, f);
    if (o.dedicated_servers) {  // the serving ranks wait for this
      all_done();
      MPI_Wait(&everyone_done, MPI_STATUS_IGNORE);
    }
  }
  e.loop_end();  // the ranks' checkpoint
  print_figures(o, comm, f, e);
  if (o.dedicated_servers && ranks_done != ranks) {
    std::fprintf(stderr, "selfsched-smpi-loop: rank %d counted %d ranks done of %d\n", rank, ranks_done, ranks);
    return 1;
  }
  return 0;
}

// The engine's ranks run the loop on their own communicator; the sinks of
// results, the world's last --sinks ranks, only take results in.
int run(const driver_options& o) {
  int world_rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  const int ranks = world - o.sinks;
  const int masters = o.transport == "master" ? 1 : node_size() > 0 ? static_cast<int>(ranks / node_size()) : 1;
  if (o.sinks > 0 && (ranks < 2 || o.sinks != masters)) {
    if (world_rank == 0)
      std::fprintf(stderr, "selfsched-smpi-loop: --sinks %d: one a master, %d here\n", o.sinks, masters);
    return 2;
  }
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < ranks ? 0 : 1, world_rank, &comm);  // ranks keep their numbers
  int status = 0;
  if (world_rank < ranks) status = run_loop(o, comm);
  else results::take_until_closed(master_of_sink(o, world_rank, ranks));
  MPI_Comm_free(&comm);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  driver_options o;
  const std::string bad = parse_options(argc, argv, o);
  // SMPI's ranks share this process and its global data: one rank's write
  // tracking would see every rank's writes. The driver's loops declare
  // what they move; nothing else is checked.
  setenv("SELFSCHED_MPI_WRITES", "off", 1);
  if (bad.empty()) work_prefix(o);
  selfsched::smpi::set_request_cost(o.request_cost);
  selfsched::smpi::set_nic_atomics(o.nic_atomics);
  return selfsched::smpi::run_ranks("selfsched-smpi-loop", argc, argv, bad, o.flops, [&](int) { return run(o); });
}

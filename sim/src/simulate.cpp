// The simulation itself (sim.hpp): one run assembled from its parts, in a
// child process of its own (child.hpp). The platform is built by
// platform.cpp; the transports are actors, one file a model: master and rma
// (master.cpp), hier (hier.cpp), a worker of one thread (worker.cpp) or a
// rank and its team of threads (team.cpp); what they share is world.hpp;
// losses (rDLB) are losses.cpp, cluster mode's merge merge.cpp.

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "child.hpp"
#include "engine.hpp"
#include "hier.hpp"
#include "inputs.hpp"
#include "master.hpp"
#include "merge.hpp"
#include "platform.hpp"
#include "team.hpp"
#include "worker.hpp"
#include "world.hpp"

namespace selfsched::sim {
namespace detail {
namespace {

// The platform's hosts; from here the workers are the platform's, with
// their speeds.
hosts take_platform(sg4::Engine& engine, platform_spec& platform, const run_spec& run, int masters) {
  hosts h = build_platform(engine, platform, run, masters);
  platform.workers = static_cast<int>(h.workers.size());
  platform.speeds.clear();
  for (sg4::Host* host : h.workers) platform.speeds.push_back(host->get_speed() / platform.flops);
  return h;
}

// The checks that need the platform's workers counted.
void check_against_platform(const platform_spec& platform, const run_spec& run, int masters) {
  if (run.via == transport::hier && masters > platform.workers)
    throw sim_error("masters " + std::to_string(masters) + " must be in [1, workers = " +
                    std::to_string(platform.workers) + "]");
  check_named_workers(platform, platform.workers);
  if (run.via == transport::hier && !platform.losses.empty()) check_every_node_keeps_a_worker(platform, masters);
}

// The costs' prefix sums and the per-worker and per-master tallies.
void size_tallies(world& w, int masters) {
  w.prefix.assign(w.costs.size() + 1, 0);
  std::partial_sum(w.costs.begin(), w.costs.end(), w.prefix.begin() + 1);
  const auto workers = static_cast<std::size_t>(w.platform.workers);
  w.out.busy.assign(workers, 0);
  w.iterations_run.assign(workers, 0);
  w.master_busy.assign(static_cast<std::size_t>(masters), 0);
}

// The core's scheduler for the run's technique over the platform's workers.
std::unique_ptr<scheduler> make_scheduler(const world& w) {
  const platform_spec& platform = w.platform;
  loop_params lp;
  lp.n = w.run.n;
  lp.p = platform.workers;
  const parse_result parsed = parse_schedule(w.run.technique);
  apply_chunk(parsed.spec, lp);
  lp.max_chunk = w.run.max_chunk;
  // The techniques are told the speeds, or the powers declared instead;
  // equal ones give them no powers (as the runtime does).
  const std::vector<double>& told = platform.powers.empty() ? platform.speeds : platform.powers;
  if (std::any_of(told.begin(), told.end(), [&](double s) { return s != told[0]; })) {
    lp.powers.resize(static_cast<std::size_t>(platform.workers));
    for (std::size_t k = 0; k < lp.powers.size(); ++k) lp.powers[k] = told[k % told.size()];
  }
  if (w.run.alpha_by_work) lp.work_prefix = &w.prefix;  // the simulated costs: seed 003's known workload
  if (const std::string bad = selfsched::validate(lp); !bad.empty()) throw sim_error(bad);
  return std::make_unique<scheduler>(parsed.spec, lp);
}

// Dependence loops (run.rows > 0): the intervals of rows each chunk runs in.
wavefront_plan plan_dependences(const run_spec& run, int workers) {
  // Rows are u_s, columns u_c; a point needs its left and upper neighbours.
  wavefront_problem problem;
  problem.extents = {run.rows, run.n, 0};
  problem.dependences = {{1, 0, 0}, {0, 1, 0}};
  problem.chunk_dim = 1;
  problem.sync_dim = 0;
  const iter_t sync_points = run.sync_points > 0 ? run.sync_points : 3 * iter_t{workers};
  wavefront_plan_result planned = plan_wavefront(problem, sync_points);
  if (!planned.ok()) throw sim_error("dependence loop: " + planned.error);
  return planned.plan;
}

// The actors that serve the workers: losses, the masters' result sinks, and
// the master (or the window, rma) or hier's node masters and supermaster.
void start_servers(world& w, const hosts& h, int masters) {
  const auto workers = static_cast<std::size_t>(w.platform.workers);
  w.active = w.platform.workers;
  w.exited.assign(workers, false);
  w.dead.assign(workers, false);
  w.running.assign(workers, chunk{0, 0});
  for (const loss& l : w.platform.losses) {
    sg4::Actor::create("loss-" + std::to_string(l.worker), h.masters[0], loss_actor, &w,
                       h.workers[static_cast<std::size_t>(l.worker)], l.worker, l.at);
  }
  if (w.run.via != transport::rma && w.run.result_bytes > 0)
    for (int m = 0; m < masters; ++m)
      sg4::Actor::create(results_box(m), h.masters[static_cast<std::size_t>(m)], results_actor, m);
  if (w.run.via != transport::hier)
    sg4::Actor::create(w.run.via == transport::rma ? "window" : "master", h.masters[0], master_actor, &w);
  else
    start_hier(&w, h.masters, h.super);
}

// A worker actor on each worker's host, or a rank and its threads; `teams`
// holds the teams for the run's length.
void start_workers(world& w, const std::vector<sg4::Host*>& workers, std::vector<std::unique_ptr<team>>& teams) {
  const int threads = w.run.threads;
  for (int k = 0; k < w.platform.workers; ++k) {
    sg4::Host* host = workers[static_cast<std::size_t>(k)];
    if (threads == 1) {
      sg4::Actor::create(worker_box(k), host, worker_actor, &w, k);
      continue;
    }
    team* t = teams.emplace_back(std::make_unique<team>()).get();
    t->rank = k;
    t->running = threads;
    sg4::Actor::create(worker_box(k), host, team_rank_actor, &w, t);
    for (int thread = 0; thread < threads; ++thread)
      sg4::Actor::create(worker_box(k) + "-thread-" + std::to_string(thread), host, team_thread_actor, &w, t, thread);
  }
}

// The ideal makespan (the work spread over every core at its speed), the
// efficiency against it, and the busiest master's share of the makespan.
void summarise(world& w, const std::vector<sg4::Host*>& workers) {
  double total_work = w.prefix.back(), total_speed = 0;
  for (int k = 0; k < w.platform.workers; ++k)
    total_speed += w.speed(k) * std::min(w.run.threads, workers[static_cast<std::size_t>(k)]->get_core_count());
  w.out.ideal = total_work / total_speed;
  w.out.efficiency = w.out.makespan > 0 ? w.out.ideal / w.out.makespan : 1.0;
  const double busiest = *std::max_element(w.master_busy.begin(), w.master_busy.end());
  w.out.master_busy = w.out.makespan > 0 ? busiest / w.out.makespan : 0;
}

result simulate_here(platform_spec platform, const run_spec& run, std::vector<double> costs) {
  const int masters = run.via == transport::hier ? run.masters : 1;
  sg4::Engine& engine = start_engine();
  const hosts h = take_platform(engine, platform, run, masters);
  check_against_platform(platform, run, masters);
  world w(platform, run, std::move(costs), h.memories);
  size_tallies(w, masters);
  w.sched = make_scheduler(w);
  if (run.rows > 0) w.plan = plan_dependences(run, platform.workers);
  apply_slowdowns(platform, h.workers);
  start_servers(w, h, masters);
  std::vector<std::unique_ptr<team>> teams;
  start_workers(w, h.workers, teams);
  engine.run();
  run_merge(engine, &w, h.workers);
  summarise(w, h.workers);
  return w.out;
}

}  // namespace
}  // namespace detail

result simulate(const platform_spec& platform, const run_spec& run) {
  validate(platform, run);
  // The costs are computed here, once per model and size (a Mandelbrot
  // profile takes seconds), and reach the child with its memory.
  static std::string cached_key;
  static std::vector<double> cached;
  const std::string key = run.costs.name() + "/" + std::to_string(run.n) + "/" + std::to_string(run.costs.mean());
  if (run.costs.is_measured()) {
    cached = run.costs.costs(run.n);
    cached_key.clear();
  } else if (key != cached_key) {
    cached = run.costs.costs(run.n);
    cached_key = key;
  }
  const std::string bytes = detail::in_child([&] {
    const result r = detail::simulate_here(platform, run, cached);
    detail::bytes_out out;
    out.put(r.makespan).put(r.ideal).put(r.efficiency).put(r.master_busy).put(r.merge_seconds);
    out.put(r.chunks).put(r.messages).put(r.reexecuted).put(r.busy).put(r.chunk_log);
    return out.take();
  });
  result r;
  detail::bytes_in in(bytes);
  in.get(r.makespan), in.get(r.ideal), in.get(r.efficiency), in.get(r.master_busy), in.get(r.merge_seconds);
  in.get(r.chunks), in.get(r.messages), in.get(r.reexecuted), in.get(r.busy), in.get(r.chunk_log);
  return r;
}

}  // namespace selfsched::sim

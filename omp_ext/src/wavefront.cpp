// Mechanism S for threads: the wavefront API (selfsched_wavefront.h).
//
// The pure part (core/wavefront.hpp) checks the dependences, skews and tiles
// the space and keeps the master's accounting. Here the team's threads claim
// chunks under a lock (one claim per chunk, chunks are large) and publish,
// per chunk, the synchronization points passed: one cache line per chunk in
// a ring of team size + 1. Chunks finish in order (chunk k's last interval
// waits for chunk k-1's), and at most one chunk per thread is in progress,
// so when chunk k is handed out the reader of ring entry k mod (p+1), chunk
// k-p, is done with it.
#include "selfsched_wavefront.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform.hpp"
#include "powers.hpp"
#include "runqueue.hpp"
#include "schedule_choice.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/core/wavefront.hpp"
#include "settings.hpp"
#include "spin.hpp"
#include "teams.hpp"

namespace selfsched::omp {
namespace {

thread_local std::string last_error;

int fail(int code, const std::string& why) {
  last_error = "selfsched_wavefront: " + why;
  return code;
}

struct alignas(64) progress {
  std::atomic<iter_t> passed{0};  // synchronization points passed by the chunk using this entry
};

struct wavefront_run {
  wavefront_run(const wavefront_plan& p, const schedule_spec& s, selfsched_wavefront_run r, void* c)
      : plan(p), spec(s), run(r), context(c) {}

  const wavefront_plan& plan;
  const schedule_spec& spec;
  loop_params lp;
  selfsched_wavefront_run run;
  void* context;

  // Set up by one thread once the team is known.
  std::optional<synchronized_schedule> schedule;
  std::unique_ptr<progress[]> ring;
  iter_t ring_size = 1;
  bool uses_queue = false;
  bool adaptive = false;

  spin_lock lock;  // guards schedule, ring resets and the chunk log
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> wait_ns{0};
  iter_t chunks = 0;
  selfsched_wavefront_report* report = nullptr;
};

// The rows [first, last) of chunk `c`, as runs along plan.run_dim.
bool run_rows(const wavefront_run& w, chunk c, iter_t first, iter_t last) {
  const wavefront_plan& p = w.plan;
  std::int64_t x[wavefront_max_rank] = {0, 0, 0};
  for (iter_t s = first; s < last; ++s) {
    const auto [c0, c1] = p.row_span(c, s);
    if (c0 >= c1) continue;
    x[p.sync_dim] = s;
    if (p.other_dim < 0) {
      x[p.chunk_dim] = c0;
      if (w.run(w.context, x, p.chunk_dim, c1 - c0) != 0) return false;
    } else if (p.run_dim == p.chunk_dim) {  // the other dimension is written before u_c
      for (iter_t o = 0; o < p.extents[p.other_dim]; ++o) {
        x[p.other_dim] = o;
        x[p.chunk_dim] = c0;
        if (w.run(w.context, x, p.chunk_dim, c1 - c0) != 0) return false;
      }
    } else {
      for (iter_t j = c0; j < c1; ++j) {
        x[p.chunk_dim] = j;
        x[p.other_dim] = 0;
        if (w.run(w.context, x, p.other_dim, p.extents[p.other_dim]) != 0) return false;
      }
    }
  }
  return true;
}

void set_up_team(wavefront_run& w, int team_size) {
  w.lp.p = team_size;
  const membership* m = current_membership();
  static const team_placement unknown_placement;
  const bool weighted = w.spec.weighted || w.spec.base->kind == technique_kind::weighted;
  if (weighted || w.spec.alpha_percent > 0 || w.spec.alpha_auto)
    w.lp.powers = thread_powers(m != nullptr && m->team != nullptr ? m->team->placement : unknown_placement, team_size);
  w.uses_queue = weighted;
  w.adaptive = w.spec.base->kind == technique_kind::adaptive;
  w.schedule.emplace(w.plan, w.spec, w.lp);
  w.ring_size = team_size + 1;
  w.ring = std::make_unique<progress[]>(static_cast<std::size_t>(w.ring_size));
}

void work(wavefront_run& w, int thread) {
  const wavefront_plan& plan = w.plan;
  chunk finished{};
  double busy_seconds = 0;
  std::int64_t waited = 0;
  while (!w.stop.load(std::memory_order_relaxed)) {
    const double queue = w.uses_queue ? run_queue_length(now_ns()) : 1.0;
    w.lock.lock();
    if (w.adaptive && finished.size > 0) w.schedule->record(thread, finished.size, busy_seconds);
    const synchronized_schedule::assignment a = w.schedule->next(thread, queue);
    if (a.span.size > 0) {
      w.ring[a.sequence % w.ring_size].passed.store(0, std::memory_order_relaxed);
      selfsched_wavefront_report* r = w.report;
      if (r != nullptr && r->chunk_log != nullptr && w.chunks < r->chunk_log_capacity)
        r->chunk_log[w.chunks] = {a.span.start, a.span.size, thread};
      ++w.chunks;
    }
    w.lock.unlock();
    if (a.span.size == 0) break;

    progress& mine = w.ring[a.sequence % w.ring_size];
    const progress* before = a.sequence > 0 ? &w.ring[(a.sequence - 1) % w.ring_size] : nullptr;
    const std::int64_t began = now_ns();
    std::int64_t chunk_wait = 0;
    for (iter_t t = 0; t < plan.tiles; ++t) {
      // Receive part: chunk k-1 must have passed SP_{t+1}.
      if (before != nullptr && before->passed.load(std::memory_order_acquire) <= t) {
        const std::int64_t from = now_ns();
        spin_until([&] {
          return before->passed.load(std::memory_order_acquire) > t || w.stop.load(std::memory_order_relaxed);
        });
        chunk_wait += now_ns() - from;
        if (w.stop.load(std::memory_order_relaxed)) break;
      }
      const auto [first, last] = plan.tile_rows(t);
      if (!run_rows(w, a.span, first, last)) {
        w.stop.store(true, std::memory_order_relaxed);
        break;
      }
      // Transmit part: SP_{t+1} passed.
      mine.passed.store(t + 1, std::memory_order_release);
    }
    finished = a.span;
    busy_seconds = static_cast<double>(now_ns() - began - chunk_wait) * 1e-9;
    waited += chunk_wait;
  }
  w.wait_ns.fetch_add(waited, std::memory_order_relaxed);
}

int point_by_point(void* context, const std::int64_t* start, int dim, std::int64_t count) {
  const auto& [body, user] = *static_cast<std::pair<selfsched_wavefront_body, void*>*>(context);
  std::int64_t x[wavefront_max_rank] = {start[0], start[1], start[2]};
  for (std::int64_t k = 0; k < count; ++k, ++x[dim]) body(x, user);
  return 0;
}

}  // namespace
}  // namespace selfsched::omp

namespace so = selfsched::omp;
using selfsched::iter_t;

extern "C" int selfsched_wavefront_runs(int rank, const std::int64_t* extents, const std::int64_t* dependences,
                                        int dependence_count, const selfsched_wavefront_options* options,
                                        selfsched_wavefront_run run, void* context,
                                        selfsched_wavefront_report* report) {
  so::last_error.clear();
  static const selfsched_wavefront_options defaults = SELFSCHED_WAVEFRONT_OPTIONS_INIT;
  const selfsched_wavefront_options o = options != nullptr ? *options : defaults;
  if (rank < 2 || rank > selfsched::wavefront_max_rank)
    return so::fail(-1, "rank " + std::to_string(rank) + " is not supported; valid: 2, 3");
  if (extents == nullptr || run == nullptr || (dependence_count > 0 && dependences == nullptr))
    return so::fail(-1, "extents, body and (when dependence_count > 0) dependences must not be NULL");
  if (dependence_count < 0)
    return so::fail(-1, "dependence_count " + std::to_string(dependence_count) + " must be >= 0");
  if (o.threads < 0) return so::fail(-1, "threads " + std::to_string(o.threads) + " must be >= 0 (0: OpenMP's)");
  if (o.sync_points < 0)
    return so::fail(-1, "sync_points " + std::to_string(o.sync_points) + " must be >= 0 (0: 3 x threads)");
  if (o.min_chunk < 0) return so::fail(-1, "min_chunk " + std::to_string(o.min_chunk) + " must be >= 0 (0: 1)");
  if (o.max_chunk < 0) return so::fail(-1, "max_chunk " + std::to_string(o.max_chunk) + " must be >= 0 (0: none)");

  selfsched::wavefront_problem problem;
  problem.rank = rank;
  for (int d = 0; d < rank; ++d) problem.extents[d] = extents[d];
  for (int v = 0; v < dependence_count; ++v) {
    selfsched::wavefront_index d{};
    for (int k = 0; k < rank; ++k) d[k] = dependences[v * rank + k];
    problem.dependences.push_back(d);
  }
  problem.chunk_dim = o.chunk_dim;
  problem.sync_dim = o.sync_dim;
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const std::int64_t configured = so::current_settings().sync_points;
  const iter_t sync_points = o.sync_points > 0 ? o.sync_points : configured > 0 ? configured : 3 * iter_t{threads};
  const selfsched::wavefront_plan_result planned = selfsched::plan_wavefront(problem, sync_points);
  if (!planned.ok()) return so::fail(-1, planned.error);

  std::string technique = o.technique != nullptr ? o.technique : "";
  if (technique.empty()) {
    const so::active_schedule* active = so::active_technique();
    technique = active != nullptr ? active->text : "s-fss";
  }
  const selfsched::parse_result parsed = selfsched::parse_schedule(technique);
  if (!parsed.ok()) return so::fail(-1, "technique: " + parsed.error);
  selfsched::schedule_spec spec = parsed.spec;
  spec.synchronized = true;

  so::wavefront_run w(planned.plan, spec, run, context);
  w.report = report;
  selfsched::loop_params& lp = w.lp;
  const so::settings& s = so::current_settings();
  lp.n = planned.plan.chunk_extent;
  lp.p = threads;
  lp.min_chunk = std::max<iter_t>(1, o.min_chunk);
  lp.max_chunk = o.max_chunk;
  lp.mu = s.mu;
  lp.sigma = s.sigma;
  lp.overhead = s.overhead;
  lp.seed = s.seed;
  selfsched::apply_chunk(spec, lp);
  if (const std::string bad = selfsched::validate(lp); !bad.empty()) return so::fail(-1, bad);

  const std::int64_t started = so::now_ns();
  int team_size = 1;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    {
      team_size = omp_get_num_threads();
      so::set_up_team(w, team_size);
    }
    so::work(w, omp_get_thread_num());
  }
  const double seconds = static_cast<double>(so::now_ns() - started) * 1e-9;

  const selfsched::wavefront_plan& plan = planned.plan;
  if (report != nullptr) {
    std::snprintf(report->technique, sizeof report->technique, "%s", spec.name().c_str());
    report->threads = team_size;
    report->sync_dim = plan.sync_dim;
    report->chunk_dim = plan.chunk_dim;
    report->skew = plan.skew;
    report->chunk_extent = plan.chunk_extent;
    report->sync_points = plan.sync_points;
    report->sync_interval = plan.interval;
    report->intervals = plan.tiles;
    report->chunks = w.chunks;
    report->seconds = seconds;
    report->wait_seconds = static_cast<double>(w.wait_ns.load()) * 1e-9;
  }
  if (s.verbose)
    so::warn("wavefront: %s on %d threads, u_s = %d, u_c = %d, skew %lld, #SP %lld, SI %lld, %lld chunks",
             spec.name().c_str(), team_size, plan.sync_dim, plan.chunk_dim, static_cast<long long>(plan.skew),
             static_cast<long long>(plan.sync_points), static_cast<long long>(plan.interval),
             static_cast<long long>(w.chunks));
  if (w.stop.load()) return so::fail(-2, "the body stopped the wavefront");
  return 0;
}

extern "C" int selfsched_wavefront(int rank, const std::int64_t* extents, const std::int64_t* dependences,
                                   int dependence_count, const selfsched_wavefront_options* options,
                                   selfsched_wavefront_body body, void* context,
                                   selfsched_wavefront_report* report) {
  if (body == nullptr) return so::fail(-1, "body must not be NULL");
  std::pair<selfsched_wavefront_body, void*> point{body, context};
  return selfsched_wavefront_runs(rank, extents, dependences, dependence_count, options, &so::point_by_point, &point,
                                  report);
}

extern "C" const char* selfsched_wavefront_error(void) { return so::last_error.c_str(); }

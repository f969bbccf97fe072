// Mechanism S for threads: the library side of the wavefront API
// (selfsched_wavefront.h, selfsched/wavefront.hpp).
//
// The pure part (core/wavefront.hpp) checks the dependences, skews and tiles
// the space and keeps the master's accounting. The parallel region is opened
// by the caller (inline in the headers), so this file uses no OpenMP runtime
// symbol: every thread of that region calls selfsched_wavefront_work. The
// threads claim chunks under a lock (one claim per chunk, chunks are large)
// and publish, per chunk, the synchronization points passed: one cache line
// per chunk in a ring of team size + 1. Chunks finish in order (chunk k's
// last interval waits for chunk k-1's), and at most one chunk per thread is
// in progress, so when chunk k is handed out the reader of ring entry
// k mod (p+1), chunk k-p, is done with it.
#include "selfsched_wavefront.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "selfsched/core/registry.hpp"
#include "selfsched/core/wavefront.hpp"
#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/powers.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace so = selfsched::omp;
using selfsched::chunk;
using selfsched::iter_t;

namespace selfsched::omp {
namespace {

struct alignas(64) progress {
  std::atomic<iter_t> passed{0};  // synchronization points passed by the chunk using this entry
};

}  // namespace
}  // namespace selfsched::omp

struct selfsched_wavefront_state {
  // Checked by prepare.
  selfsched::wavefront_problem problem;
  selfsched::wavefront_plan plan;  // re-planned with the team's #SP
  selfsched::schedule_spec spec;
  selfsched::loop_params lp;
  std::int64_t sync_points = 0;    // asked for; 0: SELFSCHED_SYNC_POINTS, else 3 x threads
  selfsched_wavefront_run run = nullptr;
  void* context = nullptr;

  // Set up by the first thread of the team to arrive.
  std::atomic<int> stage{0};  // 0: not yet, 1: being set up, 2: ready
  int team_size = 1;
  std::optional<selfsched::synchronized_schedule> schedule;
  std::unique_ptr<so::progress[]> ring;
  iter_t ring_size = 1;
  bool uses_queue = false;
  bool adaptive = false;
  std::int64_t started_ns = 0;

  so::spin_lock lock;  // guards schedule, ring resets and the chunk log
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> wait_ns{0};
  iter_t chunks = 0;
  std::vector<selfsched_wavefront_chunk> handed_out;  // the first chunks_logged, for the report
};

namespace {
constexpr std::size_t chunks_logged = 1 << 14;
}

namespace selfsched::omp {
namespace {

thread_local std::string last_error;

std::nullptr_t fail(const std::string& why) {
  last_error = "selfsched_wavefront: " + why;
  return nullptr;
}

// The rows [first, last) of chunk `c`, as runs of the body.
bool run_rows(const selfsched_wavefront_t& w, chunk c, iter_t first, iter_t last) {
  return for_each_run(w.plan, c, first, last,
                      [&](const iter_t* x, int dim, iter_t count) { return w.run(w.context, x, dim, count) == 0; });
}

// By the first thread of the team: #SP, powers and the schedule for this team.
void set_up_team(selfsched_wavefront_t& w, int team_size) {
  w.started_ns = now_ns();
  w.team_size = team_size;
  const std::int64_t configured = current_settings().sync_points;
  const iter_t sync_points = w.sync_points > 0 ? w.sync_points : configured > 0 ? configured : 3 * iter_t{team_size};
  w.plan = plan_wavefront(w.problem, sync_points).plan;  // legal: prepare checked it
  w.lp.p = team_size;
  const bool weighted = weighs_askers(w.spec);
  if (weighted || w.spec.alpha_percent > 0 || w.spec.alpha_auto) {
    static const team_placement unknown_placement;
    const membership* m = current_membership();
    w.lp.powers = thread_powers(m != nullptr && m->team != nullptr ? m->team->placement : unknown_placement, team_size);
  }
  w.uses_queue = weighted;
  w.adaptive = w.spec.base->kind == technique_kind::adaptive;
  w.schedule.emplace(w.plan, w.spec, w.lp);
  w.ring_size = team_size + 1;
  w.ring = std::make_unique<progress[]>(static_cast<std::size_t>(w.ring_size));
}

void work(selfsched_wavefront_t& w, int thread) {
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
      if (w.handed_out.size() < w.handed_out.capacity()) w.handed_out.push_back({a.span.start, a.span.size, thread});
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

}  // namespace
}  // namespace selfsched::omp

extern "C" selfsched_wavefront_t* selfsched_wavefront_prepare(int rank, const std::int64_t* extents,
                                                              const std::int64_t* dependences, int dependence_count,
                                                              const selfsched_wavefront_options* options,
                                                              selfsched_wavefront_run run, void* context) {
  so::last_error.clear();
  static const selfsched_wavefront_options defaults = SELFSCHED_WAVEFRONT_OPTIONS_INIT;
  const selfsched_wavefront_options o = options != nullptr ? *options : defaults;
  if (rank < 2 || rank > selfsched::wavefront_max_rank)
    return so::fail("rank " + std::to_string(rank) + " is not supported; valid: 2, 3");
  if (extents == nullptr || run == nullptr || (dependence_count > 0 && dependences == nullptr))
    return so::fail("extents, body and (when dependence_count > 0) dependences must not be NULL");
  if (dependence_count < 0) return so::fail("dependence_count " + std::to_string(dependence_count) + " must be >= 0");
  if (o.threads < 0) return so::fail("threads " + std::to_string(o.threads) + " must be >= 0 (0: OpenMP's)");
  if (o.sync_points < 0)
    return so::fail("sync_points " + std::to_string(o.sync_points) + " must be >= 0 (0: 3 x threads)");
  if (o.min_chunk < 0) return so::fail("min_chunk " + std::to_string(o.min_chunk) + " must be >= 0 (0: 1)");
  if (o.max_chunk < 0) return so::fail("max_chunk " + std::to_string(o.max_chunk) + " must be >= 0 (0: none)");

  auto w = std::make_unique<selfsched_wavefront_t>();
  w->problem.rank = rank;
  for (int d = 0; d < rank; ++d) w->problem.extents[d] = extents[d];
  for (int v = 0; v < dependence_count; ++v) {
    selfsched::wavefront_index d{};
    for (int k = 0; k < rank; ++k) d[k] = dependences[v * rank + k];
    w->problem.dependences.push_back(d);
  }
  w->problem.chunk_dim = o.chunk_dim;
  w->problem.sync_dim = o.sync_dim;
  // Legality does not depend on #SP; the team's #SP is known in work().
  const selfsched::wavefront_plan_result planned = selfsched::plan_wavefront(w->problem, 1);
  if (!planned.ok()) return so::fail(planned.error);
  w->plan = planned.plan;

  std::string technique = o.technique != nullptr ? o.technique : "";
  if (technique.empty()) {
    const so::active_schedule* active = so::active_technique();
    technique = active != nullptr ? active->text : "s-fss";
  }
  const selfsched::parse_result parsed = selfsched::parse_schedule(technique);
  if (!parsed.ok()) return so::fail("technique: " + parsed.error);
  w->spec = parsed.spec;
  w->spec.synchronized = true;

  const so::settings& s = so::current_settings();
  selfsched::loop_params& lp = w->lp;
  lp.n = w->plan.chunk_extent;
  lp.p = 1;  // the team's size in work()
  lp.min_chunk = std::max<std::int64_t>(1, o.min_chunk);
  lp.max_chunk = o.max_chunk;
  lp.mu = s.mu;
  lp.sigma = s.sigma;
  lp.overhead = s.overhead;
  lp.seed = s.seed;
  selfsched::apply_chunk(w->spec, lp);
  if (const std::string bad = selfsched::validate(lp); !bad.empty()) return so::fail(bad);
  w->sync_points = o.sync_points;
  w->handed_out.reserve(static_cast<std::size_t>(std::min<iter_t>(lp.n, chunks_logged)));
  w->run = run;
  w->context = context;
  return w.release();
}

extern "C" void selfsched_wavefront_work(selfsched_wavefront_t* w, int thread, int team_size) {
  int fresh = 0;
  if (w->stage.compare_exchange_strong(fresh, 1, std::memory_order_acquire)) {
    so::set_up_team(*w, std::max(1, team_size));
    w->stage.store(2, std::memory_order_release);
  } else {
    so::spin_until([&] { return w->stage.load(std::memory_order_acquire) == 2; });
  }
  so::work(*w, thread);
}

extern "C" int selfsched_wavefront_finish(selfsched_wavefront_t* wavefront, selfsched_wavefront_report* report) {
  const std::unique_ptr<selfsched_wavefront_t> w(wavefront);
  if (w == nullptr) return -1;
  const double seconds = w->stage.load() == 2 ? static_cast<double>(so::now_ns() - w->started_ns) * 1e-9 : 0.0;
  const selfsched::wavefront_plan& plan = w->plan;
  if (report != nullptr) {
    std::snprintf(report->technique, sizeof report->technique, "%s", w->spec.name().c_str());
    report->threads = w->team_size;
    report->sync_dim = plan.sync_dim;
    report->chunk_dim = plan.chunk_dim;
    report->skew = plan.skew;
    report->chunk_extent = plan.chunk_extent;
    report->sync_points = plan.sync_points;
    report->sync_interval = plan.interval;
    report->intervals = plan.tiles;
    report->chunks = w->chunks;
    report->seconds = seconds;
    report->wait_seconds = static_cast<double>(w->wait_ns.load()) * 1e-9;
    if (report->chunk_log != nullptr)
      std::copy_n(w->handed_out.begin(), std::clamp<std::int64_t>(report->chunk_log_capacity, 0, std::ssize(w->handed_out)),
                  report->chunk_log);
  }
  if (so::current_settings().verbose)
    so::warn("wavefront: %s on %d threads, u_s = %d, u_c = %d, skew %lld, #SP %lld, SI %lld, %lld chunks",
             w->spec.name().c_str(), w->team_size, plan.sync_dim, plan.chunk_dim, static_cast<long long>(plan.skew),
             static_cast<long long>(plan.sync_points), static_cast<long long>(plan.interval),
             static_cast<long long>(w->chunks));
  if (w->stop.load()) {
    so::fail("the body stopped the wavefront");
    return -2;
  }
  return 0;
}

extern "C" const char* selfsched_wavefront_error(void) { return so::last_error.c_str(); }

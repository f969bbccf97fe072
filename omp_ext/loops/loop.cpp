#include "loops/loop.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <utility>

#include "learning/profile.hpp"
#include "learning/sites.hpp"
#include "loops/barrier_wait.hpp"
#include "loops/doacross.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/powers.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/settings.hpp"
#include "selfsched/team_auto/claims.hpp"
#include "teams/schedule_choice.hpp"

namespace selfsched::omp {
namespace {

constexpr auto free_for = loop_slot::free_for;
constexpr auto setting_up = loop_slot::setting_up;
constexpr auto ready = loop_slot::ready;

loop_params params_for(const active_schedule& technique, iter_t n, int team_size, iter_t clause_chunk,
                       const team_placement& placement) {
  const settings& s = current_settings();
  loop_params lp;
  lp.n = n;
  lp.p = team_size;
  apply_chunk(technique.spec, lp);
  if (clause_chunk > lp.min_chunk) lp.min_chunk = clause_chunk;
  // A chunk written in the clause (dynamic,k; guided,k) is OpenMP's unit of
  // work: every chunk a whole number of them.
  if (clause_chunk > 1) lp.granule = clause_chunk;
  lp.max_chunk = s.max_chunk;
  lp.mu = s.mu;
  lp.sigma = s.sigma;
  lp.overhead = s.overhead;
  lp.seed = s.seed;
  // Fixed techniques and auto (which measures) ignore powers; the profile
  // reports them. Found once per process (the topology: milliseconds), when
  // the technique comes into force (read_what_loops_need, teams.hpp).
  if (technique.reads_placement) lp.powers = thread_powers(placement, team_size);
  return lp;
}

// SELFSCHED_VERBOSE: once per loop site, which technique serves it.
[[gnu::cold]] void announce(loop_site site, const active_schedule& technique, iter_t n, int team_size) {
  static std::mutex lock;
  static std::set<loop_site> seen;
  std::lock_guard guard(lock);
  if (!seen.insert(site).second) return;
  const auto [where, function] = describe_site(site);
  warn("loop at %s%s%s (n=%lld, %d threads) served by %s", where.c_str(), function.empty() ? "" : " in ",
       function.c_str(), static_cast<long long>(n), team_size, technique.text.c_str());
}

// The plan for `key`: the team's last one if it matches, else built (and
// kept as the team's last). nullptr if the technique cannot be planned.
std::shared_ptr<const chunk_plan> shared_plan(team_state& team, const plan_key& key, const schedule_spec& spec,
                                              const loop_params& lp) {
  {
    std::lock_guard guard(team.plan_lock);
    if (team.last_plan && team.last_planned == key) return team.last_plan;
  }
  std::optional<chunk_plan> built = chunk_plan::build(*make_schedule(spec, lp), lp);
  if (!built) return nullptr;
  auto plan = std::make_shared<const chunk_plan>(std::move(*built));
  std::lock_guard guard(team.plan_lock);
  team.last_plan = plan;
  team.last_planned = key;
  return plan;
}

[[gnu::noinline]] void set_up(loop_slot& slot, loop_site site, const active_schedule& technique, iter_t n, int team_size,
            iter_t clause_chunk, chunk_order order, team_state& team) {
  const team_placement& placement = team.placement;
  slot.plain_plan = false;
  note_loop_served();
  if (current_settings().verbose) announce(site, technique, n, team_size);
  loop_params lp = params_for(technique, n, team_size, clause_chunk, placement);
  slot.history_owner = nullptr;
  if (technique.spec.base->kind == technique_kind::adaptive) {
    site_state& state = site_of(site);
    if ((lp.history = borrow_history(state)) != nullptr) slot.history_owner = &state;
  }
  slot.profile = profiling() ? profile_begin(site, technique.text, n, team_size, lp.powers) : nullptr;
  slot.n = n;
  slot.team_size = team_size;
  slot.next_step.store(0, std::memory_order_relaxed);
  slot.finished.store(0, std::memory_order_relaxed);
  slot.adaptive = technique.spec.base->kind == technique_kind::adaptive;
  slot.uses_queue = weighs_askers(technique.spec);
  slot.serial.reset();
  // Plain auto: every thread times its own claims. A decorated auto (w-auto,
  // auto-80, s-auto) and outer-chunk loops run the sequential technique
  // under the mechanisms, as any adaptive technique.
  slot.self_tuning = is_plain_auto(technique.spec) && slot.outer == nullptr;
  if (slot.self_tuning) {
    slot.plan.reset();
    slot.params = lp;
    slot.adaptive = false;
    slot.tuning_site = &tuning_site_of(site);
    {
      std::lock_guard guard(slot.tuning_site->tuning_lock);
      slot.learned_rate = slot.tuning_site->team_rate;
    }
    team_auto::start_loop(slot, team_size, order == chunk_order::nonmonotonic, now_ns());
    return;
  }
  if (slot.outer != nullptr) {
    slot.plan.reset();
    // Nothing local yet: the first claim fetches the first outer chunk.
    slot.params = lp;
    slot.program_max_chunk = lp.max_chunk;
    slot.spec = technique.spec;
    slot.params.n = 0;
    slot.outer_done = false;
    slot.outer_dropped = false;
    slot.serial = std::make_unique<scheduler>(make_schedule(slot.spec, slot.params), slot.params);
    slot.outer_loop = slot.outer->loop_begin(site.ident, n, std::max<iter_t>({lp.granule, lp.chunk, 1}));
    return;
  }
  // A loop run again with the same shape (every time step of a simulation)
  // reuses its plan: setting a loop up then costs no allocation.
  if (!is_fixed(technique.spec)) {
    slot.plan.reset();
  } else if (const plan_key key = plan_key::of(technique.spec, lp); !slot.plan || !(slot.planned == key)) {
    slot.plan = shared_plan(team, key, technique.spec, lp);
    slot.planned = key;
  }
  // Not fixed, or too long a plan (build() used up its technique): served in order.
  if (!slot.plan) slot.serial = std::make_unique<scheduler>(make_schedule(technique.spec, lp), lp);
  slot.plain_plan = slot.plan && !slot.profile && !slot.adaptive && !slot.uses_queue;
  slot.chunk_count = slot.plan ? slot.plan->chunk_count() : 0;
  slot.uniform_size = slot.plan && slot.plan->segment_count() == 2 ? slot.plan->at(0).size : 0;
}

// The smaller of two chunk limits, 0 meaning none.
iter_t tighter_limit(iter_t a, iter_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

// Under serial_lock: the next chunk of an outer_source-fed loop; size < 0
// when the source asks the caller to come back (outer_pending). With a
// profile, `waited` gains the time next_outer() took (other ranks).
chunk claim_from_outer(loop_slot& slot, int thread, double queue, std::int64_t& waited) {
  for (;;) {
    const chunk c = slot.outer_dropped ? chunk{0, 0} : slot.serial->next(thread, queue);
    if (c.size > 0) {
      if (slot.outer->progress(slot.outer_loop, slot.serial->remaining(), slot.params.n)) return {slot.outer_start + c.start, c.size};
      slot.outer_dropped = true;  // finished elsewhere (MPI resilience): not run here
      continue;
    }
    if (slot.outer_done) return {slot.n, 0};
    const std::int64_t from = slot.profile ? now_ns() : 0;
    const chunk outer = slot.outer->next_outer();
    if (slot.profile) waited += now_ns() - from;
    if (outer.size < 0) return outer_pending;
    if (outer.size == 0) return slot.outer_done = true, chunk{slot.n, 0};
    slot.outer_start = outer.start;
    slot.params.n = outer.size;
    slot.params.max_chunk = tighter_limit(slot.program_max_chunk,
                                          slot.outer->inner_chunk_limit(outer.size, slot.team_size));
    slot.outer_dropped = false;
    slot.serial = std::make_unique<scheduler>(make_schedule(slot.spec, slot.params), slot.params);
  }
}

void leave_loop(membership& m, std::int64_t now) {
  loop_slot& slot = *m.loop.slot;
  const std::uint64_t instance = m.loop.instance;
  m.loop.slot = nullptr;
  if (slot.profile) probe_leave(m.probe, slot.profile, now);
  // m.team_size, not slot.team_size: once our increment is in, the last
  // thread may free the slot and set it up again for a later loop.
  if (slot.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == m.team_size) {
    if (slot.profile) profile_end(std::exchange(slot.profile, nullptr));
    if (slot.outer) slot.outer->loop_end();
    slot.serial.reset();
    if (slot.history_owner) return_history(*std::exchange(slot.history_owner, nullptr));
    if (slot.self_tuning && now > slot.started_ns) {
      site_state& site = *slot.tuning_site;
      std::lock_guard guard(site.tuning_lock);
      site.team_rate = team_auto::instance_rate(slot.n, slot.started_ns, now);
    }
    slot.sequence.store(free_for(instance + loop_ring_size), std::memory_order_release);
  }
}

}  // namespace

void detail::enter_slot(membership& m, loop_slot& slot, std::uint64_t instance, loop_site site,
                        const active_schedule& technique, iter_t n, iter_t clause_chunk, chunk_order order) {
  spin_until([&] {
    std::uint64_t seen = slot.sequence.load(std::memory_order_acquire);
    if (seen == ready(instance)) return true;
    if (seen == free_for(instance) &&
        slot.sequence.compare_exchange_strong(seen, setting_up(instance), std::memory_order_acquire)) {
      // The same loop as this slot's last (a time step run again) on a plain
      // plan: only the counters start again.
      const loop_slot::replay_key key{site, &technique, n, clause_chunk, m.team_size, order};
      const bool plain = m.team->outer == nullptr && m.doacross.mode != doacross_thread::state::pending;
      if (plain && slot.replay == key) {
        slot.next_step.store(0, std::memory_order_relaxed);
        slot.finished.store(0, std::memory_order_relaxed);
      } else {
        slot.outer = m.team->outer;
        set_up(slot, site, technique, n, m.team_size, clause_chunk, order, *m.team);
        doacross_set_up(slot.doacross, m.doacross, n, m.team_size, technique.spec, slot.outer != nullptr);
        slot.replay = plain && slot.plain_plan ? key : loop_slot::replay_key{};
      }
      slot.sequence.store(ready(instance), std::memory_order_release);
      return true;
    }
    return false;  // being set up, or still used by loop instance - ring size
  });
}

void detail::join_measured_loop(membership& m, loop_slot& slot) {
  if (slot.self_tuning) {
    m.loop.estimate = tuned_start(*slot.tuning_site, m.thread_num);
    const std::int64_t now = now_ns();
    if (m.team->libomp_threads) note_loop_join(m.thread_num, now - slot.started_ns, now, m.loops_entered == 1);
  }
  doacross_join(m.doacross, slot.doacross);
  if (slot.profile) {
    probe_enter(m.probe, m.thread_num);
    m.probe.share.sleeps_at_barriers = sleeps_at_barriers();
  }
}

void leave_plain_loop(membership& m) { leave_loop(m, 0); }

// auto (auto_tuning.hpp): the thread sizes its chunk from its own measured
// rate and claim cost, and the team's rate so far (team_auto/claims.hpp,
// the simulator's code too: here with this machine's clock).
chunk claim_tuned_chunk(membership& m) {
  loop_cursor& cursor = m.loop;
  loop_slot& slot = *cursor.slot;
  const std::int64_t asked = now_ns();
  const chunk c = team_auto::claim(slot, m.thread_num, cursor, asked, [] { return now_ns(); });
  if (slot.profile) probe_claim(m.probe, asked, cursor.running_since, c, no_queue_read);
  if (c.size == 0) {
    keep_tuned(*slot.tuning_site, m.thread_num, cursor.estimate);
    leave_loop(m, asked);
  }
  return c;
}

chunk claim_next_chunk_slow(membership& m) {
  loop_cursor& cursor = m.loop;
  loop_slot& slot = *cursor.slot;
  const std::int64_t asked = slot.profile || slot.adaptive || slot.uses_queue ? now_ns() : 0;
  // Q_k (runqueue.hpp): a cached value, refreshed at most every few ms.
  const double queue = slot.uses_queue ? run_queue_length(asked) : 1.0;
  chunk c;
  std::int64_t ranks_wait = 0;  // profile: this claim waiting for outer chunks (other ranks)
  if (slot.plan) {
    c = slot.plan->at(slot.next_step.fetch_add(1, std::memory_order_relaxed), cursor.plan_hint);
  } else {
    // In an MPI-shared loop the lock is held while a thread fetches the next
    // outer chunk: waiting for it is waiting for other ranks too.
    const bool timed = slot.profile && slot.outer;
    const std::int64_t before_lock = timed ? now_ns() : 0;
    slot.serial_lock.lock();
    if (timed) ranks_wait += now_ns() - before_lock;
    if (slot.adaptive && cursor.running_size > 0)
      slot.serial->record(m.thread_num, cursor.running_size, static_cast<double>(asked - cursor.running_since) * 1e-9);
    c = slot.outer ? claim_from_outer(slot, m.thread_num, queue, ranks_wait) : slot.serial->next(m.thread_num, queue);
    slot.serial_lock.unlock();
    while (c.size < 0) {  // the outer source wants another thread to fetch the chunk
      const std::int64_t from = slot.profile ? now_ns() : 0;
      relax_or_yield();
      slot.serial_lock.lock();
      if (slot.profile) ranks_wait += now_ns() - from;
      c = claim_from_outer(slot, m.thread_num, queue, ranks_wait);
      slot.serial_lock.unlock();
    }
    cursor.running_size = c.size;
    cursor.running_since = asked;
  }
  if (slot.profile) probe_claim(m.probe, asked, now_ns(), c, slot.uses_queue ? queue : no_queue_read, ranks_wait);
  if (c.size == 0) leave_loop(m, asked);
  return c;
}

}  // namespace selfsched::omp

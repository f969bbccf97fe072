#include "loop.hpp"

#include <mutex>
#include <unordered_set>
#include <utility>

#include "platform.hpp"
#include "powers.hpp"
#include "selfsched/core/registry.hpp"
#include "settings.hpp"

namespace selfsched::omp {
namespace {

constexpr std::uint64_t free_for(std::uint64_t instance) { return 3 * instance; }
constexpr std::uint64_t setting_up(std::uint64_t instance) { return 3 * instance + 1; }
constexpr std::uint64_t ready(std::uint64_t instance) { return 3 * instance + 2; }

loop_params params_for(const active_schedule& technique, iter_t n, int team_size, iter_t clause_chunk) {
  const settings& s = current_settings();
  loop_params lp;
  lp.n = n;
  lp.p = team_size;
  apply_chunk(technique.spec, lp);
  if (clause_chunk > lp.min_chunk) lp.min_chunk = clause_chunk;
  lp.max_chunk = s.max_chunk;
  lp.mu = s.mu;
  lp.sigma = s.sigma;
  lp.overhead = s.overhead;
  lp.seed = s.seed;
  lp.powers = thread_powers(team_size);
  return lp;
}

// SELFSCHED_VERBOSE: once per loop site, which technique serves it.
[[gnu::cold]] void announce(const ident_t* site, const active_schedule& technique, iter_t n, int team_size) {
  static std::mutex lock;
  static std::unordered_set<const ident_t*> seen;
  std::lock_guard guard(lock);
  if (!seen.insert(site).second) return;
  const auto [where, function] = describe_site(site);
  warn("loop at %s%s%s (n=%lld, %d threads) served by %s", where.c_str(), function.empty() ? "" : " in ",
       function.c_str(), static_cast<long long>(n), team_size, technique.text.c_str());
}

void set_up(loop_slot& slot, const ident_t* site, const active_schedule& technique, iter_t n, int team_size,
            iter_t clause_chunk) {
  if (current_settings().verbose) announce(site, technique, n, team_size);
  const loop_params lp = params_for(technique, n, team_size, clause_chunk);
  slot.profile = profiling() ? profile_begin(site, technique.text, n, team_size) : nullptr;
  slot.n = n;
  slot.team_size = team_size;
  slot.next_step.store(0, std::memory_order_relaxed);
  slot.finished.store(0, std::memory_order_relaxed);
  slot.adaptive = technique.spec.base->kind == technique_kind::adaptive;
  slot.plan.reset();
  slot.serial.reset();
  if (slot.outer != nullptr) {
    // Nothing local yet: the first claim fetches the first outer chunk.
    slot.params = lp;
    slot.spec = technique.spec;
    slot.params.n = 0;
    slot.serial = std::make_unique<scheduler>(make_schedule(slot.spec, slot.params), slot.params);
    slot.outer->loop_begin(site, n);
    return;
  }
  technique_ptr rule = make_schedule(technique.spec, lp);
  if (is_fixed(technique.spec)) slot.plan = chunk_plan::build(*rule, lp);
  if (!slot.plan) slot.serial = std::make_unique<scheduler>(std::move(rule), lp);
}

// Under serial_lock: the next chunk of an outer_source-fed loop.
chunk claim_from_outer(loop_slot& slot, int thread) {
  chunk c = slot.serial->next(thread);
  while (c.size == 0) {
    const chunk outer = slot.outer->next_outer();
    if (outer.size == 0) return {slot.n, 0};
    slot.outer_start = outer.start;
    slot.params.n = outer.size;
    slot.serial = std::make_unique<scheduler>(make_schedule(slot.spec, slot.params), slot.params);
    c = slot.serial->next(thread);
  }
  return {slot.outer_start + c.start, c.size};
}

void leave_loop(membership& m, std::int64_t now) {
  loop_slot& slot = *m.loop.slot;
  const std::uint64_t instance = m.loop.instance;
  m.loop.slot = nullptr;
  if (slot.profile) probe_leave(m.probe, slot.profile, now);
  if (slot.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == slot.team_size) {
    if (slot.profile) profile_end(std::exchange(slot.profile, nullptr));
    if (slot.outer) slot.outer->loop_end();
    slot.serial.reset();
    slot.sequence.store(free_for(instance + loop_ring_size), std::memory_order_release);
  }
}

}  // namespace

void team_state::reset() {
  for (int i = 0; i < loop_ring_size; ++i) {
    slots[i].serial.reset();
    slots[i].plan.reset();
    slots[i].sequence.store(free_for(static_cast<std::uint64_t>(i)), std::memory_order_relaxed);
  }
  outer = nullptr;
}

void begin_loop(membership& m, const ident_t* site, const active_schedule& technique, iter_t n,
                iter_t clause_chunk) {
  const std::uint64_t instance = m.loops_entered++;
  loop_slot& slot = m.team->slots[instance % loop_ring_size];
  spin_until([&] {
    std::uint64_t seen = slot.sequence.load(std::memory_order_acquire);
    if (seen == ready(instance)) return true;
    if (seen == free_for(instance) &&
        slot.sequence.compare_exchange_strong(seen, setting_up(instance), std::memory_order_acquire)) {
      slot.outer = m.team->outer;
      set_up(slot, site, technique, n, m.team_size, clause_chunk);
      slot.sequence.store(ready(instance), std::memory_order_release);
      return true;
    }
    return false;  // being set up, or still used by loop instance - ring size
  });
  m.loop = loop_cursor{&slot, instance};
  if (slot.profile) probe_enter(m.probe, m.thread_num, 1.0);
}

chunk claim_next_chunk(membership& m) {
  loop_cursor& cursor = m.loop;
  loop_slot& slot = *cursor.slot;
  const std::int64_t asked = slot.profile || slot.adaptive ? now_ns() : 0;
  chunk c;
  if (slot.plan) {
    c = slot.plan->at(slot.next_step.fetch_add(1, std::memory_order_relaxed), cursor.plan_hint);
  } else {
    slot.serial_lock.lock();
    if (slot.adaptive && cursor.running_size > 0)
      slot.serial->record(m.thread_num, cursor.running_size, static_cast<double>(asked - cursor.running_since) * 1e-9);
    c = slot.outer ? claim_from_outer(slot, m.thread_num) : slot.serial->next(m.thread_num);
    slot.serial_lock.unlock();
    cursor.running_size = c.size;
    cursor.running_since = asked;
  }
  if (slot.profile) probe_claim(m.probe, asked, now_ns(), c);
  if (c.size == 0) leave_loop(m, asked);
  return c;
}

}  // namespace selfsched::omp

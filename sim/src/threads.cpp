// One node's thread team (sim_threads.hpp): a SimGrid actor per thread, a
// host per core. `auto`'s claims are the runtime's (team_auto/claims.hpp)
// read with the simulated clock; a claim's cost is simulated time that
// grows with the threads claiming at once.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "child.hpp"
#include "engine.hpp"
#include "inputs.hpp"
#include "selfsched/core/auto_tuning.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/sim_threads.hpp"
#include "selfsched/team_auto/claims.hpp"
#include "world.hpp"

namespace selfsched::sim {
namespace detail {
namespace {

namespace team_auto = selfsched::omp::team_auto;

std::int64_t clock_ns() { return std::llround(sg4::Engine::get_clock() * 1e9); }

// The members team_auto's claims read (claims.hpp), as the runtime's loop
// slot has them.
struct auto_loop {
  iter_t n = 0;
  loop_params params;
  std::atomic<iter_t> next_step{0};
  std::int64_t started_ns = 0;
  double learned_rate = 0;
  bool steals = false;
  omp::iteration_shares shares;
};

struct auto_cursor {
  auto_estimate estimate;
  iter_t running_size = 0;
  std::int64_t running_since = 0;
};

enum class served_by { auto_claims, libomp_static, libomp_dynamic, libomp_guided, technique };

struct schedule_choice {
  served_by how = served_by::auto_claims;
  iter_t chunk = 1;  // dynamic,k and guided,k: k
  schedule_spec spec;  // technique
};

// "auto", "static", "dynamic[,k]", "guided[,k]", or a catalog technique.
schedule_choice choose(const std::string& text) {
  schedule_choice c;
  const std::size_t comma = text.find(',');
  const std::string name = text.substr(0, comma);
  if (name == "auto" && comma == std::string::npos) return c;
  if (name == "static" || name == "dynamic" || name == "guided") {
    c.how = name == "static" ? served_by::libomp_static
            : name == "dynamic" ? served_by::libomp_dynamic : served_by::libomp_guided;
    if (comma != std::string::npos) {
      char* end = nullptr;
      const long long k = std::strtoll(text.c_str() + comma + 1, &end, 10);
      if (k < 1 || *end != '\0')
        throw sim_error("schedule '" + text + "': its chunk must be a whole number >= 1 (static, dynamic,k, guided,k)");
      c.chunk = k;
    }
    return c;
  }
  const parse_result parsed = parse_schedule(text);
  if (!parsed.ok())
    throw sim_error("schedule: " + parsed.error + " (or auto, static, dynamic,k, guided,k: libomp's)");
  c.how = served_by::technique;
  c.spec = parsed.spec;
  return c;
}

struct team {
  team(const threads_spec& s, std::vector<double> c) : spec(s), choice(choose(s.schedule)), costs(std::move(c)) {
    prefix.assign(costs.size() + 1, 0);
    std::partial_sum(costs.begin(), costs.end(), prefix.begin() + 1);
    ran.assign(costs.size(), 0);
    tuned.resize(static_cast<std::size_t>(s.threads));
  }
  const threads_spec& spec;
  schedule_choice choice;
  std::vector<double> costs, prefix;
  std::vector<int> ran;  // per iteration, times run over all instances
  int claiming = 0;      // threads in a claim now
  // The current instance.
  auto_loop loop;
  std::unique_ptr<scheduler> serial;
  iter_t next = 0;  // libomp dynamic and guided: iterations handed out
  double started = 0, finished = 0, claim_seconds = 0;
  std::int64_t chunks = 0;
  // Carried between instances, as the runtime keeps them per loop site.
  std::vector<auto_estimate> tuned;
  sg4::BarrierPtr barrier;

  double speed(int k) const {
    return spec.speeds.empty() ? 1.0 : spec.speeds[static_cast<std::size_t>(k) % spec.speeds.size()];
  }
  const time_share* share_of(int k) const {
    for (const time_share& t : spec.time_shares)
      if (t.worker == k) return &t;
    return nullptr;
  }
};

// A new instance, by thread 0 before the others start it.
void set_up_instance(team& t) {
  const threads_spec& s = t.spec;
  t.next = 0;
  t.chunks = 0;
  t.claim_seconds = 0;
  t.started = sg4::Engine::get_clock();
  loop_params lp;
  lp.n = s.n;
  lp.p = s.threads;
  if (t.choice.how == served_by::technique) {
    apply_chunk(t.choice.spec, lp);
    if (std::any_of(s.speeds.begin(), s.speeds.end(), [&](double v) { return v != s.speeds[0]; })) {
      lp.powers.resize(static_cast<std::size_t>(s.threads));
      for (int k = 0; k < s.threads; ++k) lp.powers[static_cast<std::size_t>(k)] = t.speed(k);
    }
    t.serial = std::make_unique<scheduler>(t.choice.spec, lp);
  }
  if (t.choice.how != served_by::auto_claims) return;
  auto_loop& loop = t.loop;
  loop.n = s.n;
  loop.params = lp;
  loop.next_step.store(0, std::memory_order_relaxed);
  team_auto::start_loop(loop, s.threads, s.nonmonotonic, clock_ns());
}

// Thread k computes `seconds` of work (at speed 1) on its core, stopped
// between its slices when the core is time-shared.
void compute(const team& t, int k, double seconds) {
  double flops = seconds * t.spec.flops;
  const time_share* share = t.share_of(k);
  const double rate = t.speed(k) * t.spec.flops;
  while (share != nullptr && flops > 0) {
    const double until = world::until_off(*share, sg4::Engine::get_clock());
    if (until == kUnshared) break;
    if (until <= 0) {
      sg4::this_actor::sleep_until(world::next_slice(*share, sg4::Engine::get_clock()));
      continue;
    }
    const double now = std::min(flops, until * rate);
    sg4::this_actor::execute(now);
    flops -= now;
  }
  if (flops > 0) sg4::this_actor::execute(flops);
}

// libomp's static: thread k's block of n / p, the first n % p one more.
chunk static_block(iter_t n, int threads, int k) {
  const iter_t each = n / threads, more = n % threads;
  return {k * each + std::min<iter_t>(k, more), each + (k < more ? 1 : 0)};
}

// libomp's guided (kmp_dispatch.cpp, guided_iterative): remaining x 0.5 / p
// while more than 2 p (k + 1) remain, then chunks of k.
iter_t guided_size(iter_t remaining, int threads, iter_t k) {
  if (remaining < 2 * iter_t{threads} * (k + 1)) return k;
  return std::max<iter_t>(k, static_cast<iter_t>(static_cast<double>(remaining) * 0.5 / threads));
}

// A claim of the shared count or the core's scheduler, decided when asked;
// `settle` charges its cost.
template <typename Settle>
chunk claim_shared(team& t, int k, auto_cursor& cursor, Settle settle) {
  const threads_spec& s = t.spec;
  chunk c{0, 0};
  const std::int64_t asked = clock_ns();
  if (t.choice.how == served_by::technique) {
    // The runtime's serial claim: the chunk just run is recorded first, and
    // Q_k is 2 on a core shared with another process (runqueue.hpp).
    if (cursor.running_size > 0)
      t.serial->record(k, cursor.running_size, static_cast<double>(asked - cursor.running_since) * 1e-9);
    c = t.serial->next(k, t.share_of(k) != nullptr ? 2.0 : 1.0);
  } else {
    const iter_t remaining = s.n - t.next;
    const iter_t wanted = t.choice.how == served_by::libomp_dynamic
                              ? t.choice.chunk
                              : guided_size(remaining, s.threads, t.choice.chunk);
    c = {t.next, std::min(wanted, remaining)};
    t.next += c.size;
  }
  const std::int64_t got = settle();
  cursor.running_size = c.size;
  // The runtime's serial claim times a chunk from when it was asked for.
  cursor.running_since = t.choice.how == served_by::technique ? asked : got;
  return c;
}

// Thread k's next chunk, its claim's simulated cost paid.
chunk next_chunk(team& t, int k, auto_cursor& cursor, bool& had_static) {
  if (t.choice.how == served_by::libomp_static) {  // no claim: each thread knows its block
    if (std::exchange(had_static, true)) return {0, 0};
    return static_block(t.spec.n, t.spec.threads, k);
  }
  const double asked = sg4::Engine::get_clock();
  // Each thread claiming at once moves the shared line once more.
  const double cost = t.spec.claim_seconds * ++t.claiming;
  const auto settle = [&] {
    sg4::this_actor::sleep_for(cost);
    --t.claiming;
    return clock_ns();
  };
  const chunk c = t.choice.how == served_by::auto_claims
                      ? team_auto::claim(t.loop, k, cursor, clock_ns(), settle)
                      : claim_shared(t, k, cursor, settle);
  t.claim_seconds += sg4::Engine::get_clock() - asked;
  return c;
}

void run_instance(team& t, int k) {
  auto_cursor cursor;
  if (t.choice.how == served_by::auto_claims) cursor.estimate = t.tuned[static_cast<std::size_t>(k)].for_next_instance();
  bool had_static = false;
  for (;;) {
    const time_share* share = t.share_of(k);
    if (share != nullptr && world::until_off(*share, sg4::Engine::get_clock()) <= 0)  // off its core: it cannot ask
      sg4::this_actor::sleep_until(world::next_slice(*share, sg4::Engine::get_clock()));
    const chunk c = next_chunk(t, k, cursor, had_static);
    if (c.size == 0) break;
    ++t.chunks;
    for (iter_t i = c.start; i < c.start + c.size; ++i) ++t.ran[static_cast<std::size_t>(i)];
    compute(t, k, t.prefix[static_cast<std::size_t>(c.start + c.size)] - t.prefix[static_cast<std::size_t>(c.start)]);
  }
  if (t.choice.how == served_by::auto_claims) t.tuned[static_cast<std::size_t>(k)] = cursor.estimate;
  t.finished = std::max(t.finished, sg4::Engine::get_clock());
}

void thread_actor(team* t, int k) {
  for (int instance = 0; instance < t->spec.instances; ++instance) {
    if (k == 0) set_up_instance(*t);
    t->barrier->wait();
    run_instance(*t, k);
    t->barrier->wait();
    // The team's rate over the instance, for the next (leave_loop's).
    if (k == 0 && t->finished > t->started)
      t->loop.learned_rate = team_auto::instance_rate(t->spec.n, std::llround(t->started * 1e9), clock_ns());
  }
}

// The cores' total speed, each over the share of time it runs.
double total_speed(const team& t) {
  double total = 0;
  for (int k = 0; k < t.spec.threads; ++k) {
    const time_share* s = t.share_of(k);
    const double runs = s != nullptr && s->slices.empty() ? s->on / (s->on + s->off) : 1.0;
    total += t.speed(k) * runs;
  }
  return total;
}

threads_result simulate_here(const threads_spec& spec, std::vector<double> costs) {
  sg4::Engine& engine = start_engine();
  sg4::NetZone* zone = sg4::create_full_zone("node");
  team t(spec, std::move(costs));
  t.barrier = sg4::Barrier::create(static_cast<unsigned>(spec.threads));
  for (int k = 0; k < spec.threads; ++k) {
    sg4::Host* core = zone->create_host("core-" + std::to_string(k), t.speed(k) * spec.flops)->seal();
    sg4::Actor::create("thread-" + std::to_string(k), core, thread_actor, &t, k);
  }
  zone->seal();
  engine.run();
  threads_result r;
  r.makespan = t.finished - t.started;
  r.ideal = t.prefix.back() / total_speed(t);
  r.efficiency = r.makespan > 0 ? r.ideal / r.makespan : 1.0;
  r.chunks = t.chunks;
  r.claim_seconds = t.claim_seconds;
  r.every_iteration_once = std::all_of(t.ran.begin(), t.ran.end(), [&](int times) { return times == spec.instances; });
  return r;
}

}  // namespace
}  // namespace detail

void validate(const threads_spec& spec) {
  if (spec.threads < 1 || spec.threads > 4096)
    throw sim_error("threads " + std::to_string(spec.threads) + " must be in [1, 4096]");
  if (spec.n < 0) throw sim_error("n " + std::to_string(spec.n) + " must be >= 0");
  if (spec.instances < 1) throw sim_error("instances " + std::to_string(spec.instances) + " must be >= 1");
  if (!(spec.claim_seconds >= 0)) throw sim_error("claim cost must be >= 0 seconds");
  for (double s : spec.speeds)
    if (!(s > 0)) throw sim_error("speeds: " + std::to_string(s) + " must be > 0");
  for (const time_share& t : spec.time_shares) {
    const std::string form = "time share of thread " + std::to_string(t.worker) + ": ";
    if (t.worker < 0 || t.worker >= spec.threads)
      throw sim_error(form + "threads are 0 .. " + std::to_string(spec.threads - 1));
    detail::check_slices(t, form);
  }
  (void)detail::choose(spec.schedule);
}

threads_result simulate_threads(const threads_spec& spec) {
  validate(spec);
  const std::vector<double> costs = spec.costs.costs(spec.n);
  const std::string bytes = detail::in_child([&] {
    const threads_result r = detail::simulate_here(spec, costs);
    detail::bytes_out out;
    out.put(r.makespan).put(r.ideal).put(r.efficiency).put(r.chunks).put(r.claim_seconds);
    out.put(static_cast<int>(r.every_iteration_once));
    return out.take();
  });
  threads_result r;
  detail::bytes_in in(bytes);
  int once = 0;
  in.get(r.makespan), in.get(r.ideal), in.get(r.efficiency), in.get(r.chunks), in.get(r.claim_seconds), in.get(once);
  r.every_iteration_once = once != 0;
  return r;
}

}  // namespace selfsched::sim

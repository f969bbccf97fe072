#include "entry/libomp_hooks.hpp"

#include <dlfcn.h>
#include <strings.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <string_view>

#include "entry/libomp_loops.hpp"
#include "runtime/libomp_abi.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {
namespace {

// libomp's registration entry point, found at start-up (nullptr: a stock libomp).
register_loop_schedule_function register_function = nullptr;

// A technique registered with libomp under its name (its text without
// ",k"); the chunk libomp passes with a loop gives the technique with that
// minimum chunk, the last one kept at hand.
struct registered_schedule {
  std::string name;
  const active_schedule* base = nullptr;
  int kind = -1;
  struct with_chunk_of {
    std::int64_t chunk;
    const active_schedule* technique;
  };
  std::atomic<const with_chunk_of*> last{nullptr};
};

// Registered schedules: never freed (libomp keeps pointers to them); the
// list is appended to under its lock and read by kind or name under it.
struct registered_list {
  std::mutex lock;
  std::deque<registered_schedule> list;
};
registered_list& registered() {
  static auto& r = *new registered_list;
  return r;
}

[[gnu::cold, gnu::noinline]] const active_schedule* with_chunk_slow(registered_schedule& r, std::int64_t chunk) {
  const active_schedule* technique = nullptr;
  if (!parse_technique(r.name.c_str(), static_cast<long>(std::min<std::int64_t>(chunk, std::numeric_limits<int>::max())),
                       "OMP_SCHEDULE", technique) ||
      technique == nullptr)
    return r.base;
  // Kept, never freed: a loop of another team may still read the previous.
  r.last.store(new registered_schedule::with_chunk_of{chunk, technique}, std::memory_order_release);
  return technique;
}

const active_schedule* with_chunk(registered_schedule& r, std::int64_t chunk) {
  if (chunk <= 0) return r.base;
  const registered_schedule::with_chunk_of* last = r.last.load(std::memory_order_acquire);
  if (last != nullptr && last->chunk == chunk) return last->technique;
  return with_chunk_slow(r, chunk);
}

// libomp's init hook, on each thread entering a loop: the same decision and
// start as an interposed __kmpc_dispatch_init (kmpc.cpp).
int init_loop(void* data, const kmp_loop_schedule_loop* loop, void** thread_data) {
  auto& r = *static_cast<registered_schedule*>(data);
  membership* m = membership_for_new_loop();
  if (m == nullptr) {
    explain_untracked_team();
    return 0;
  }
  // A runtime loop gets the technique run-sched-var names; a loop written
  // schedule(auto), dynamic or guided, offered to `best`, the one it would
  // get interposed.
  const active_schedule* technique = sched::without_modifiers(loop->schedule) == sched::runtime
                                         ? with_chunk(r, loop->chunk)
                                         : technique_for_loop(*m, loop->schedule);
  if (technique == nullptr || loop->trip_count > static_cast<std::uint64_t>(std::numeric_limits<iter_t>::max()))
    return 0;
  begin_libomp_loop(*m, {loop->loc, loop->codeptr_ra}, *technique, static_cast<iter_t>(loop->trip_count),
                    loop->schedule, loop->chunk);
  m->loop.lower = loop->lb;
  m->loop.stride = loop->st;
  *thread_data = m;
  return 1;
}

// libomp's next hooks, one per loop form: the claim path of every
// selfsched loop, as the interposed __kmpc_dispatch_next_* takes it.
template <typename T, typename ST>
int next_chunk(void* thread_data, std::int32_t* p_last, T* p_lb, T* p_ub, ST* p_st) {
  return next_libomp_chunk(*static_cast<membership*>(thread_data), p_last, p_lb, p_ub, p_st);
}

// Registers `name` for `base`; its kind, or -1 if libomp refused it.
int register_schedule(std::string_view name, const active_schedule* base, std::uint32_t flags) {
  registered_list& r = registered();
  std::lock_guard guard(r.lock);
  for (registered_schedule& known : r.list)
    if (known.name.size() == name.size() && strncasecmp(known.name.data(), name.data(), name.size()) == 0)
      return known.kind;
  registered_schedule& entry = r.list.emplace_back();
  entry.name = std::string(name);
  entry.base = base;
  const kmp_loop_schedule schedule{entry.name.c_str(),
                                   flags,
                                   &entry,
                                   init_loop,
                                   next_chunk<std::int32_t, std::int32_t>,
                                   next_chunk<std::uint32_t, std::int32_t>,
                                   next_chunk<std::int64_t, std::int64_t>,
                                   next_chunk<std::uint64_t, std::int64_t>,
                                   nullptr};
  entry.kind = register_function(&schedule);
  return entry.kind;
}

std::string_view name_of(const active_schedule& technique) {
  const std::string_view text = technique.text;
  return text.substr(0, text.find(','));
}

}  // namespace

void register_runtime_schedules() {
  const settings& s = current_settings();
  // Profiling the loops left to libomp needs them to pass through us.
  if (s.runtime_hooks && !s.profile_forwarded)
    register_function =
        reinterpret_cast<register_loop_schedule_function>(dlsym(RTLD_DEFAULT, "__kmpc_register_loop_schedule"));
  if (register_function == nullptr) {
    if (s.verbose && look_at_runtimes().libomp)
      warn("libomp's loops reach selfsched through its interposed entry points%s",
           !s.runtime_hooks        ? " (SELFSCHED_HOOKS=off)"
           : s.profile_forwarded ? " (SELFSCHED_PROFILE_FORWARDED profiles the loops left to libomp)"
                                 : "");
    return;
  }
  int registered_count = 0;
  for (const technique_info& info : catalog()) {
    for (const std::string_view name : {info.name, info.alias}) {
      if (name.empty()) continue;
      // `best` (auto's other name) also takes the loops the runtime offers
      // to one schedule: schedule(auto), and the overridden dynamic/guided.
      const bool takes = name == "best";
      const std::uint32_t flags =
          !takes ? 0
                 : (auto_schedule() != nullptr ? loop_schedule_takes_auto : 0) |
                       (s.override_dynamic ? loop_schedule_takes_dynamic : 0) |
                       (s.override_guided ? loop_schedule_takes_guided : 0);
      const active_schedule* base = takes ? auto_schedule() : nullptr;
      if (base == nullptr && !parse_technique(std::string(name).c_str(), 0, "catalog", base)) continue;
      // libomp keeps its own names (static, auto): those stay libomp's.
      if (register_schedule(name, base, flags) >= 0) ++registered_count;
    }
  }
  note_runtime_hooks_in_use(registered_count > 0);
  if (s.verbose)
    warn("libomp takes registered loop schedules: %d selfsched schedules registered, libomp decides which "
         "loops are selfsched's (SELFSCHED_HOOKS=off interposes as on any libomp)",
         registered_count);
}

namespace {

// omp_set_schedule's kind for a technique (registered now if new) and its
// chunk; false if libomp refused it (said once).
bool runtime_kind(const active_schedule& technique, int& kind, int& chunk) {
  const std::string_view text = technique.text;
  const std::size_t comma = text.find(',');
  chunk = comma == std::string_view::npos ? 0 : std::atoi(std::string(text.substr(comma + 1)).c_str());
  const active_schedule* base = &technique;
  if (comma != std::string_view::npos && !parse_technique(std::string(name_of(technique)).c_str(), 0, "", base))
    return false;
  kind = register_schedule(name_of(technique), base, 0);
  // libomp keeps its own names (static): ours goes under another.
  if (kind < 0) kind = register_schedule("selfsched." + std::string(name_of(technique)), base, 0);
  if (kind >= 0) return true;
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    warn("libomp refused to register the schedule '%.*s'", static_cast<int>(name_of(technique).size()),
         name_of(technique).data());
  return false;
}

}  // namespace

bool register_in_runtime(const active_schedule& technique) {
  const std::string_view name = name_of(technique);
  if (name.size() == 4 && strncasecmp(name.data(), "auto", 4) == 0) return auto_schedule() != nullptr;
  int kind = 0, chunk = 0;
  return runtime_kind(technique, kind, chunk);
}

bool set_runtime_schedule(const active_schedule* technique) {
  static const set_schedule_function runtime_own = runtime_set_schedule();
  if (runtime_own == nullptr) return false;
  int kind = omp_sched::dynamic, chunk = 0;  // OMP_SCHEDULE's stand-in when selfsched interposes
  if (technique == nullptr) {
    if (runtime_task_technique() == nullptr) return true;
  } else if (!runtime_kind(*technique, kind, chunk)) {
    return false;
  }
  runtime_own(kind, chunk);
  return true;
}

const active_schedule* runtime_task_technique() {
  static const get_schedule_function runtime_own = runtime_get_schedule();
  if (runtime_own == nullptr) return nullptr;
  int kind = 0, chunk = 0;
  runtime_own(&kind, &chunk);
  kind &= ~omp_sched::monotonic;
  if (kind == omp_sched::auto_kind) return auto_schedule();  // libomp offers its loops to `best`
  registered_list& r = registered();
  std::lock_guard guard(r.lock);
  for (registered_schedule& entry : r.list)
    if (entry.kind == kind && entry.base != nullptr) return chunk > 0 ? with_chunk(entry, chunk) : entry.base;
  return nullptr;
}

}  // namespace selfsched::omp

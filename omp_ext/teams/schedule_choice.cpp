#include "teams/schedule_choice.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

#include "learning/profile.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {
namespace detail {
std::atomic<const active_schedule*> active{nullptr};
}

namespace {

// "monotonic:" / "nonmonotonic:" (OpenMP 4.5) apply to our names too.
std::string_view without_modifier(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  for (std::string_view m : {"monotonic:", "nonmonotonic:"})
    if (text.size() >= m.size() && strncasecmp(text.data(), m.data(), m.size()) == 0) return text.substr(m.size());
  return text;
}

bool kind_is(std::string_view text, std::string_view k) {
  const std::string_view kind = text.substr(0, text.find(','));
  return kind.size() >= k.size() && strncasecmp(kind.data(), k.data(), k.size()) == 0 &&
         kind.find_first_not_of(' ', k.size()) == std::string_view::npos;
}

// The kinds libomp serves in OMP_SCHEDULE. `auto` leaves the schedule to the
// implementation (OpenMP 5.2 sec. 11.5.3), and with libselfsched loaded
// that is selfsched's auto unless SELFSCHED_AUTO=libomp.
bool is_standard_kind(std::string_view text) {
  for (std::string_view k : {"static", "dynamic", "guided", "trapezoidal", "static_steal"})
    if (kind_is(text, k)) return true;
  return current_settings().libomp_auto && kind_is(text, "auto");
}

// One spelling of a schedule that parsed: " FSS , 4" is "fss,4" in
// messages, profiles and selfsched_get_schedule, and one technique.
std::string one_spelling(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isspace(byte) == 0) out += static_cast<char>(std::tolower(byte));
  }
  return out;
}

// OMP_SCHEDULE for a libomp that has `technique` registered: its one
// spelling, after the modifier written (libomp refuses "GSS , 3").
std::string as_libomp_reads(std::string_view written, const active_schedule& technique) {
  const std::string_view kind = without_modifier(written);
  const std::string_view modifier = written.substr(0, written.size() - kind.size());
  return one_spelling(modifier) + technique.text;
}

// Every technique the process has parsed, once per distinct text: never
// freed (a team starting on another thread may still read one), since a
// program may switch every time step. The list is never destroyed either: a
// thread may still choose a schedule while static destructors run at exit.
// A technique's index is its kind for omp_get_schedule.
struct known_techniques {
  std::mutex lock;
  std::vector<const active_schedule*> list;
};
known_techniques& known() {
  static auto& k = *new known_techniques;
  return k;
}

}  // namespace

bool parse_technique(const char* text, long chunk, const char* origin, const active_schedule*& technique) {
  technique = nullptr;
  if (text == nullptr || *text == '\0') return true;
  std::string full(without_modifier(text));
  if (chunk > 0 && full.find(',') == std::string::npos) full += "," + std::to_string(chunk);
  parse_result parsed = parse_schedule(full);
  if (!parsed.ok()) {
    warn("%s='%s': %s; standard kinds static, dynamic, guided are the OpenMP runtime's", origin, text,
         parsed.error.c_str());
    return false;
  }
  full = one_spelling(full);
  known_techniques& k = known();
  std::lock_guard guard(k.lock);
  for (const active_schedule* a : k.list)
    if (a->text == full) return technique = a, true;
  const bool reads_placement = (!is_fixed(parsed.spec) && !is_plain_auto(parsed.spec)) || profiling();
  technique = k.list.emplace_back(new active_schedule{parsed.spec, std::move(full), reads_placement});
  return true;
}

int technique_kind(const active_schedule* technique) {
  known_techniques& k = known();
  std::lock_guard guard(k.lock);
  const auto at = std::find(k.list.begin(), k.list.end(), technique);
  return first_technique_kind + static_cast<int>(at - k.list.begin());
}

const active_schedule* technique_of_kind(int kind) {
  if (kind < first_technique_kind) return nullptr;
  known_techniques& k = known();
  std::lock_guard guard(k.lock);
  const auto index = static_cast<std::size_t>(kind - first_technique_kind);
  return index < k.list.size() ? k.list[index] : nullptr;
}

bool is_plain_auto(const schedule_spec& spec) {
  return spec.base->self_tuning && !spec.weighted && !spec.synchronized && spec.alpha_percent == 0 &&
         !spec.alpha_auto;
}

const active_schedule* auto_schedule() {
  static const active_schedule* const chosen = [] {
    const active_schedule* a = nullptr;
    if (!current_settings().libomp_auto) parse_technique("auto", 0, "schedule(auto)", a);
    return a;
  }();
  return chosen;
}

void set_active_technique(const active_schedule* technique) {
  detail::active.store(technique, std::memory_order_release);
}

bool loops_reach_selfsched(const char* origin, const char* text) {
  const runtime_report runtimes = look_at_runtimes();
  if (!runtimes.any_loaded() || runtimes.any_served()) return true;
  warn("%s='%s' is not in force: %s", origin, text, describe(runtimes).c_str());
  return false;
}

void choose_technique_from_environment(bool (*register_with_runtime)(const active_schedule& technique)) {
  const settings& s = current_settings();
  const char* omp_schedule = std::getenv("OMP_SCHEDULE");
  // A runtime whose loops never come to us keeps OMP_SCHEDULE as it is (its
  // own warning about our name included): rewriting it would change what
  // that runtime does, and claim a technique that is not in force.
  if (!s.schedule.empty() && !is_standard_kind(without_modifier(s.schedule)) &&
      !loops_reach_selfsched("SELFSCHED_SCHEDULE", s.schedule.c_str()))
    return;
  if (s.schedule.empty() && omp_schedule != nullptr && !is_standard_kind(without_modifier(omp_schedule)) &&
      !loops_reach_selfsched("OMP_SCHEDULE", omp_schedule))
    return;
  if (!s.schedule.empty()) {
    const active_schedule* chosen = nullptr;
    const bool standard = is_standard_kind(without_modifier(s.schedule));
    if (!standard && parse_technique(s.schedule.c_str(), 0, "SELFSCHED_SCHEDULE", chosen))
      set_active_technique(chosen);
    // SELFSCHED_SCHEDULE wins; an OMP_SCHEDULE naming one of ours (a parent
    // set both) must still not reach libomp, which would warn about it. A
    // libomp with our schedules registered reads the technique itself.
    if (chosen != nullptr && register_with_runtime != nullptr && register_with_runtime(*chosen))
      setenv("OMP_SCHEDULE", as_libomp_reads(s.schedule, *chosen).c_str(), 1);
    else if (omp_schedule != nullptr && !is_standard_kind(without_modifier(omp_schedule)))
      setenv("OMP_SCHEDULE", standard ? s.schedule.c_str() : "dynamic", 1);
  } else if (omp_schedule != nullptr && !is_standard_kind(without_modifier(omp_schedule))) {
    // Ours (or bogus): libomp must not see it, or it warns and ignores it.
    // Children that preload us find the value again in SELFSCHED_SCHEDULE.
    const std::string original = omp_schedule;
    const active_schedule* chosen = nullptr;
    if (parse_technique(original.c_str(), 0, "OMP_SCHEDULE", chosen)) {
      set_active_technique(chosen);
      // A libomp with our schedules registered reads OMP_SCHEDULE itself.
      if (chosen != nullptr && register_with_runtime != nullptr && register_with_runtime(*chosen)) {
        setenv("OMP_SCHEDULE", as_libomp_reads(original, *chosen).c_str(), 1);
        return;
      }
      // Overwrite: SELFSCHED_SCHEDULE may be set but empty (it lost to OMP_SCHEDULE
      // here), and children must not find OMP_SCHEDULE=dynamic alone.
      setenv("SELFSCHED_SCHEDULE", original.c_str(), 1);
      setenv("OMP_SCHEDULE", "dynamic", 1);
    } else {
      warn("OMP_SCHEDULE: using the OpenMP runtime's default schedule instead");
      unsetenv("OMP_SCHEDULE");
    }
  }
}

void display_settings_if_asked() {
  static std::once_flag once;
  if (!current_settings().display_env) return;
  std::call_once(once, [] {
    const active_schedule* a = active_technique();
    display_settings(a ? a->text.c_str() : "none (the runtime's run-sched-var)",
                     describe(look_at_runtimes()).c_str());
  });
}

void report_unserved_at_exit() {
  if (!current_settings().verbose) return;
  std::atexit([] {
    if (some_loop_served() || active_technique() == nullptr) return;
    const runtime_report r = look_at_runtimes();
    const settings& s = current_settings();
    const char* taken = s.override_dynamic && s.override_guided ? "schedule(runtime), dynamic or guided"
                        : s.override_dynamic                     ? "schedule(runtime) or dynamic"
                        : s.override_guided                      ? "schedule(runtime) or guided"
                                                                 : "schedule(runtime)";
    if (r.any_loaded() && r.any_served())
      warn("no loop was served by selfsched: no %s loop ran while a selfsched technique was chosen (static "
           "loops, and loops without a schedule clause, are the runtime's alone; %s)",
           taken, describe(r).c_str());
    else
      warn("no loop was served by selfsched: %s", describe(r).c_str());
  });
}


}  // namespace selfsched::omp

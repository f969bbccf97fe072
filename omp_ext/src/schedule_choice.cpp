#include "schedule_choice.hpp"

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "selfsched/core/registry.hpp"
#include "settings.hpp"

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

// The kinds libomp itself understands in OMP_SCHEDULE.
bool is_standard_kind(std::string_view text) {
  const std::string_view kind = text.substr(0, text.find(','));
  for (std::string_view k : {"static", "dynamic", "guided", "auto", "trapezoidal", "static_steal"})
    if (kind.size() >= k.size() && strncasecmp(kind.data(), k.data(), k.size()) == 0 &&
        kind.find_first_not_of(' ', k.size()) == std::string_view::npos)
      return true;
  return false;
}

}  // namespace

bool choose_technique(const char* text, long chunk, const char* origin) {
  if (text == nullptr || *text == '\0') {
    clear_technique();
    return true;
  }
  std::string full(without_modifier(text));
  if (chunk > 0 && full.find(',') == std::string::npos) full += "," + std::to_string(chunk);
  parse_result parsed = parse_schedule(full);
  if (!parsed.ok()) {
    warn("%s='%s': %s; standard kinds static, dynamic, guided, auto are libomp's (selfsched's auto: best)", origin, text,
         parsed.error.c_str());
    return false;
  }
  // Never freed: a loop starting on another thread may still read the old one.
  detail::active.store(new active_schedule{parsed.spec, std::move(full)}, std::memory_order_release);
  return true;
}

void clear_technique() { detail::active.store(nullptr, std::memory_order_release); }

void choose_technique_from_environment() {
  const settings& s = current_settings();
  const char* omp_schedule = std::getenv("OMP_SCHEDULE");
  if (!s.schedule.empty()) {
    if (!is_standard_kind(without_modifier(s.schedule))) choose_technique(s.schedule.c_str(), 0, "SELFSCHED_SCHEDULE");
  } else if (omp_schedule != nullptr && !is_standard_kind(without_modifier(omp_schedule))) {
    // Ours (or bogus): libomp must not see it, or it warns and ignores it.
    // Children that preload us find the value again in SELFSCHED_SCHEDULE.
    const std::string original = omp_schedule;
    if (choose_technique(original.c_str(), 0, "OMP_SCHEDULE")) {
      setenv("SELFSCHED_SCHEDULE", original.c_str(), 0);
      setenv("OMP_SCHEDULE", "dynamic", 1);
    } else {
      warn("OMP_SCHEDULE: using libomp's default schedule instead");
      unsetenv("OMP_SCHEDULE");
    }
  }
  if (s.display_env) {
    const active_schedule* a = active_technique();
    display_settings(a ? a->text.c_str() : "none (libomp's run-sched-var)");
  }
}

}  // namespace selfsched::omp

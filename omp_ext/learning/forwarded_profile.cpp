#include "learning/forwarded_profile.hpp"

#include <cstdlib>
#include <mutex>
#include <utility>

#include "learning/profile.hpp"
#include "selfsched/machine/platform.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {

bool profiling_forwarded() {
  static const bool on = profiling() && current_settings().profile_forwarded;
  return on;
}

std::string runtime_schedule_text() {
  const char* text = std::getenv("OMP_SCHEDULE");
  return text != nullptr && *text != '\0' ? text : "runtime";
}

void forwarded_loop_begin(membership& m, loop_site site, iter_t n, std::string schedule) {
  if (m.team == nullptr) return;
  forwarded_probe& probe = m.forwarded;
  // Every member meets the team's forwarded loops in the same order: the
  // k-th one of each is one instance.
  probe.index = probe.entered++;
  {
    std::lock_guard guard(m.team->forwarded_lock);
    auto& entry = m.team->forwarded[probe.index];
    if (entry.first == nullptr) {
      entry.first = profile_begin(site, std::move(schedule), n, m.team_size, {});
      entry.first->left_to_runtime = true;
    }
    probe.record = entry.first;
  }
  probe.entered_ns = now_ns();
}

void forwarded_loop_end(membership& m) {
  forwarded_probe& probe = m.forwarded;
  if (probe.record == nullptr) return;
  thread_share share;
  share.thread = m.thread_num;
  share.cpu = current_cpu();
  share.first_ns = probe.entered_ns;
  share.last_ns = now_ns();
  share.busy_ns = share.last_ns - share.first_ns;  // in the loop: its chunks and the runtime's claims
  {
    std::lock_guard guard(probe.record->lock);
    probe.record->threads.push_back(share);
  }
  loop_instance_profile* complete = nullptr;
  {
    std::lock_guard guard(m.team->forwarded_lock);
    auto found = m.team->forwarded.find(probe.index);
    if (found != m.team->forwarded.end() && ++found->second.second == m.team_size) {
      complete = found->second.first;
      m.team->forwarded.erase(found);
    }
  }
  if (complete != nullptr) profile_end(complete);  // the last member out
  probe.record = nullptr;
}

}  // namespace selfsched::omp

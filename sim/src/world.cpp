// How a worker's time passes (world.hpp): when it starts, its computation
// on its host and on its node's memory, and the time slices of a worker that
// shares its core with another process.
#include <algorithm>
#include <cmath>

#include "world.hpp"

namespace selfsched::sim::detail {

double world::late_by(int worker) const {
  double after = 0;
  for (const late_start& l : platform.late_starts)
    if (l.worker == worker) after = std::max(after, l.after);
  if (const time_share* t = time_share_of(worker)) after = std::max(after, first_slice(*t));  // its first slice
  return after;
}

// Worker k computes `seconds` of work (at speed 1) on the calling actor's
// host; with a memory share its memory traffic flows meanwhile, at most
// at k's speed, on its node's memory, and the work is done when both are.
// A time-shared worker's computation and traffic stop between its slices.
void world::compute(int k, double seconds) {
  const double flops = seconds * platform.flops;
  const time_share* share = time_share_of(k);
  if (memories.empty() && share == nullptr) {
    sg4::this_actor::execute(flops);
    return;
  }
  sg4::Host* memory = memories.empty() ? nullptr : memories[static_cast<std::size_t>(k / platform.workers_per_node)];
  double left = flops, traffic_left = memory != nullptr ? platform.memory_share * flops : 0;
  for (;;) {
    sg4::ExecPtr computing = left > 0 ? sg4::this_actor::exec_init(left) : nullptr;
    sg4::ExecPtr traffic = traffic_left > 0 ? sg4::this_actor::exec_init(traffic_left) : nullptr;
    if (traffic) traffic->set_host(memory)->set_bound(speed(k) * platform.flops);
    for (const sg4::ExecPtr& e : {computing, traffic})
      if (e) e->start();
    // Until both are done, or a time-shared worker's slice ends.
    const double until = share != nullptr ? sg4::Engine::get_clock() + until_off(*share) : kUnshared;
    try {
      for (const sg4::ExecPtr& e : {computing, traffic})
        if (e && until < kUnshared) e->wait_until(until);
        else if (e) e->wait();
    } catch (const simgrid::TimeoutException&) {
    }
    // What is left waits for the next slice as new activities (SimGrid's
    // suspend and resume held only once here).
    const auto rest = [](const sg4::ExecPtr& e) {
      if (!e || e->test()) return 0.0;
      const double remaining = e->get_remaining();
      e->cancel();
      return remaining;
    };
    left = rest(computing), traffic_left = rest(traffic);
    if (left <= 0 && traffic_left <= 0) return;
    wait_for_slice(k);
  }
}

// Seconds left at `now` of the slice a time-shared worker runs in; 0 when
// it is stopped (a slice's last nanosecond counts as over, a clock a
// rounding error short of a slice's start is in it); kUnshared after the
// last recorded slice.
double world::until_off(const time_share& t, double now) {
  double end = 0;
  if (!t.slices.empty()) {
    if (now >= t.slices.back().second) return kUnshared;
    const auto in = std::find_if(t.slices.begin(), t.slices.end(), [now](const auto& s) { return s.second > now; });
    if (in->first <= now + 1e-9) end = in->second;
  } else if (now + 1e-9 >= t.start) {
    end = t.start + std::floor((now - t.start) / (t.on + t.off) + 1e-9) * (t.on + t.off) + t.on;
  }
  return end - now > 1e-9 ? end - now : 0;
}

// When a stopped time-shared worker's next slice begins, after `now`: by
// the regular pattern, or the next recorded one (the last one's end when
// none is left: unshared from then).
double world::next_slice(const time_share& t, double now) {
  if (t.slices.empty())
    return now < t.start ? t.start : t.start + (std::floor((now - t.start) / (t.on + t.off)) + 1) * (t.on + t.off);
  const auto later = std::find_if(t.slices.begin(), t.slices.end(), [now](const auto& s) { return s.first > now; });
  return later != t.slices.end() ? later->first : std::max(now, t.slices.back().second);
}

}  // namespace selfsched::sim::detail

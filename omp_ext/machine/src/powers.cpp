#include "selfsched/machine/powers.hpp"

#include <algorithm>
#include <atomic>
#include <optional>

#include "selfsched/machine/placement.hpp"
#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/sia.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/machine/topology.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {
namespace {

constexpr std::int64_t max_wait_for_members_ns = 5'000'000;

struct cpu_powers {
  std::vector<double> by_pu;  // VP per PU (OS index), fastest = 1, 0 = unknown; empty: all equal
  double unknown = 1;         // a thread on a PU without a VP, or not seen yet
  std::string source;
};

// From the SIA entry of this machine, or empty (and `why`).
std::vector<double> sia_powers(const machine& m, std::string& source, std::string& why) {
  const std::string path = sia_path(current_settings().sia_path);
  if (path.empty()) return why = "SELFSCHED_SIA=off", std::vector<double>{};
  bool malformed = false;
  const std::optional<system_information> info = read_sia(path, m.signature(), why, malformed);
  // A wrong file is said always (once: the powers are measured once); a
  // missing one only under SELFSCHED_VERBOSE, with the source below.
  if (!info && malformed) warn("%s; thread powers from the CPU kinds, else equal", why.c_str());
  if (!info) return {};
  std::vector<double> by_pu;
  for (const core_measurement& c : info->cores)
    for (int pu : c.pus) {
      if (pu >= static_cast<int>(by_pu.size())) by_pu.resize(static_cast<std::size_t>(pu) + 1, 0.0);
      by_pu[static_cast<std::size_t>(pu)] = c.vp;
    }
  source = "SIA file " + path + " (" + info->kernel + ", " + info->measured + ")";
  return by_pu;
}

cpu_powers measure_machine() {
  cpu_powers p;
  const machine* m = this_machine();
  if (m == nullptr) return p.source = "equal (no topology)", p;
  std::string why;
  p.by_pu = sia_powers(*m, p.source, why);
  if (p.by_pu.empty()) p.by_pu = kind_powers(*m, p.source);
  if (p.by_pu.empty()) p.source = "equal (one CPU kind; SIA: " + why + ")";

  // Mean over the usable cores: what a thread lands on, on average.
  double sum = 0, first = 0;
  int counted = 0;
  bool equal = true;
  for (int core : m->usable_cores()) {
    const auto pu = static_cast<std::size_t>(m->first_usable_pu(core));
    const double vp = pu < p.by_pu.size() ? p.by_pu[pu] : 0.0;
    if (vp <= 0) continue;
    if (counted == 0) first = vp;
    equal = equal && vp == first;
    sum += vp, ++counted;
  }
  p.unknown = counted > 0 ? sum / counted : 1.0;
  if (equal && !p.by_pu.empty()) {
    p.source += ": all usable cores equal";
    p.by_pu.clear();
  }
  if (current_settings().verbose) warn("thread powers: %s", p.source.c_str());
  return p;
}

const cpu_powers& machine_powers() {
  static const cpu_powers* p = new cpu_powers(measure_machine());  // never destroyed: the profile reads it at exit
  return *p;
}

}  // namespace

std::vector<double> thread_powers(const team_placement& placement, int team_size) {
  if (team_size <= 1) return {};
  const settings& s = current_settings();
  if (!s.weights.empty()) {
    if (s.weights.size() < static_cast<std::size_t>(team_size)) {
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        warn("SELFSCHED_WEIGHTS has %zu weights for a team of %d threads; using equal weights",
             s.weights.size(), team_size);
      return {};
    }
    return {s.weights.begin(), s.weights.begin() + team_size};
  }
  const cpu_powers& machine = machine_powers();
  if (machine.by_pu.empty()) return {};
  // In a team's first region a member may not have started yet: wait a
  // little for it to say where it runs (later regions find the CPUs from
  // the previous one, which stay right when threads are bound).
  const std::int64_t deadline = now_ns() + max_wait_for_members_ns;
  const auto all_placed = [&] {
    for (int k = 0; k < team_size; ++k)
      if (placement.cpu_of(k) < 0) return false;
    return true;
  };
  while (!all_placed() && now_ns() < deadline) relax_or_yield();

  std::vector<double> powers(static_cast<std::size_t>(team_size));
  for (int k = 0; k < team_size; ++k) {
    const int pu = placement.cpu_of(k);
    const double vp = pu >= 0 && pu < static_cast<int>(machine.by_pu.size()) ? machine.by_pu[static_cast<std::size_t>(pu)] : 0.0;
    powers[static_cast<std::size_t>(k)] = vp > 0 ? vp : machine.unknown;
  }
  if (std::all_of(powers.begin(), powers.end(), [&](double vp) { return vp == powers.front(); })) return {};
  return powers;
}

void find_machine_powers() {
  if (current_settings().weights.empty()) machine_powers();
}

std::string powers_source() {
  return current_settings().weights.empty() ? machine_powers().source : "SELFSCHED_WEIGHTS";
}

}  // namespace selfsched::omp

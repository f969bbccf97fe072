// The bridge seam (selfsched/bridge.hpp): what the MPI layer may ask of
// libselfsched, answered from the library's own parts.
#include "selfsched/bridge.hpp"

#include <numeric>
#include <vector>

#include "entry/libomp_loops.hpp"
#include "learning/auto_cache.hpp"
#include "learning/profile.hpp"
#include "runtime/libomp_abi.hpp"
#include "selfsched/machine/placement.hpp"
#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/powers.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/settings.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp::bridge {

std::int64_t now_ns() { return omp::now_ns(); }

bool teams_tracked() { return omp::teams_tracked(); }

bool serves_loop(int schedule) {
  if (!served_kind(schedule)) return false;
  const membership* m = membership_for_new_loop();
  return m != nullptr && technique_for_loop(*m, schedule) != nullptr;
}

library_settings settings() {
  const omp::settings& s = current_settings();
  return {s.mu, s.sigma, s.overhead, s.seed, s.verbose, s.display_env};
}

double team_power(int threads) {
  const std::vector<double>& declared = current_settings().weights;
  std::vector<double> powers;
  if (declared.size() >= static_cast<std::size_t>(threads)) {
    powers.assign(declared.begin(), declared.begin() + threads);
  } else {
    // Threads not placed yet get the mean VP of the usable cores.
    team_placement placement;
    placement.prepare(threads, /*outermost=*/false);
    powers = thread_powers(placement, threads);
  }
  return powers.empty() ? threads : std::accumulate(powers.begin(), powers.end(), 0.0);
}

double run_queue_length() { return omp::run_queue_length(omp::now_ns()); }

std::string site_source_line(const void* ident) {
  if (ident == nullptr) return "";
  const auto [where, function] = describe_site({static_cast<const ident_t*>(ident), nullptr});
  return function.empty() ? "" : where;
}

const char* site_source(const void* ident) {
  return ident != nullptr ? static_cast<const ident_t*>(ident)->psource : nullptr;
}

}  // namespace selfsched::omp::bridge

namespace selfsched::omp::bridge {

region_choice remembered_region(const void* ident) {
  const std::string kept = cached_region_choice(ident);
  if (kept == "replicated_alike") return region_choice::replicated_alike;
  return kept == "replicated" ? region_choice::replicated : kept == "shared" ? region_choice::shared : region_choice::unknown;
}

bool keep_learned_now() { return write_auto_cache_now(); }

void add_profile_section(const char* name, std::string (*json)()) { add_profile_producer(name, json); }

void remember_region(const void* ident, region_choice choice) {
  static constexpr const char* names[] = {"", "shared", "replicated", "replicated_alike"};
  if (choice != region_choice::unknown) cache_region_choice(ident, names[static_cast<int>(choice)]);
}

}  // namespace selfsched::omp::bridge

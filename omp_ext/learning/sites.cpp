#include "learning/sites.hpp"

#include "learning/auto_cache.hpp"
#include "learning/profile.hpp"
#include "selfsched/settings.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace selfsched::omp {

site_state& site_of(loop_site site) {
  static std::mutex lock;
  // Never destroyed: loops may still end while the process exits.
  static auto* sites = new std::map<loop_site, std::unique_ptr<site_state>>;
  std::lock_guard guard(lock);
  auto& state = (*sites)[site];
  if (!state) state = std::make_unique<site_state>();
  return *state;
}

adaptive_history* borrow_history(site_state& site) {
  return site.history_in_use.exchange(true, std::memory_order_acquire) ? nullptr : &site.history;
}

void return_history(site_state& site) { site.history_in_use.store(false, std::memory_order_release); }

site_state& tuning_site_of(loop_site site) {
  site_state& state = site_of(site);
  static std::mutex lock;  // sites set up for auto the first time: rare
  std::lock_guard guard(lock);
  if (!state.tuning_ready) {
    state.tuning_ready = true;
    if (seed_from_auto_cache(state, site) && current_settings().verbose)
      warn("loop at %s: auto starts from the cache (learned in %d earlier runs)", describe_site(site).first.c_str(),
           state.cached_runs);
    remember_for_auto_cache(state, site);
  }
  return state;
}

auto_estimate tuned_start(site_state& site, int thread) {
  std::lock_guard guard(site.tuning_lock);
  const auto k = static_cast<std::size_t>(thread);
  return k < site.tuned.size() ? site.tuned[k].for_next_instance() : auto_estimate{};
}

void keep_tuned(site_state& site, int thread, const auto_estimate& estimate) {
  std::lock_guard guard(site.tuning_lock);
  const auto k = static_cast<std::size_t>(thread);
  if (k >= site.tuned.size()) site.tuned.resize(k + 1);
  site.tuned[k] = estimate;
}

}  // namespace selfsched::omp

namespace selfsched::omp {

void explain_runtime_loop(loop_site site, const char* runtime, const char* written, const char* why) {
  static std::mutex lock;
  static auto& said = *new std::set<loop_site>;
  {
    std::lock_guard guard(lock);
    if (said.size() > 4096 || !said.insert(site).second) return;
  }
  const auto [where, function] = describe_site(site);
  warn("loop %s%s%s, %s: %s's schedule, %s", where.c_str(), function.empty() ? "" : " in ", function.c_str(), written,
       runtime, why);
}

}  // namespace selfsched::omp

#include "sites.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace selfsched::omp {

site_state& site_of(const ident_t* site) {
  static std::mutex lock;
  // Never destroyed: loops may still end while the process exits.
  static auto* sites = new std::unordered_map<const ident_t*, std::unique_ptr<site_state>>;
  std::lock_guard guard(lock);
  auto& state = (*sites)[site];
  if (!state) state = std::make_unique<site_state>();
  return *state;
}

adaptive_history* borrow_history(site_state& site) {
  return site.history_in_use.exchange(true, std::memory_order_acquire) ? nullptr : &site.history;
}

void return_history(site_state& site) { site.history_in_use.store(false, std::memory_order_release); }

}  // namespace selfsched::omp

#include "selfsched/machine/spin.hpp"

#include <atomic>

#include "selfsched/machine/placement.hpp"

namespace selfsched::omp {

__attribute__((tls_model("initial-exec"))) thread_local bool waits_yield = true;

namespace {
std::atomic<int> threads_in_regions{0};
}

void count_threads_in_regions(int change) { threads_in_regions.fetch_add(change, std::memory_order_relaxed); }

bool process_oversubscribed() {
  const int cpus = usable_cpu_count();
  return cpus == 0 || threads_in_regions.load(std::memory_order_relaxed) > cpus;
}

}  // namespace selfsched::omp

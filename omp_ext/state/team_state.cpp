#include "state/team_state.hpp"

namespace selfsched::omp {

void team_state::reset() {
  for (int i = 0; i < loop_ring_size; ++i) {
    slots[i].serial.reset();  // plans stay: the next region may run the same loops
    slots[i].sequence.store(loop_slot::free_for(static_cast<std::uint64_t>(i)), std::memory_order_relaxed);
  }
  outer = nullptr;
  // Records of forwarded loops some member never left (a clang before 18
  // calls no dispatch_deinit): dropped with the region.
  std::lock_guard guard(forwarded_lock);
  for (auto& [index, entry] : forwarded) delete entry.first;
  forwarded.clear();
}

}  // namespace selfsched::omp

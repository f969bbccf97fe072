#include "state/team_state.hpp"

namespace selfsched::omp {

namespace {
// Every slot ready for the first loop instance it will hold: instance i in slot i.
void free_for_first_instances(loop_slot* ring) {
  for (int i = 0; i < loop_ring_size; ++i)
    ring[i].sequence.store(loop_slot::free_for(static_cast<std::uint64_t>(i)), std::memory_order_relaxed);
}
}  // namespace

// The first members to enter a selfsched loop of the team may race here:
// one ring is kept, the others are freed before anyone saw them.
loop_slot* team_state::allocate_ring() {
  auto* ring = new loop_slot[loop_ring_size];
  free_for_first_instances(ring);
  loop_slot* expected = nullptr;
  if (ring_.compare_exchange_strong(expected, ring, std::memory_order_acq_rel, std::memory_order_acquire)) return ring;
  delete[] ring;
  return expected;
}

void team_state::reset() {
  if (loop_slot* ring = ring_.load(std::memory_order_relaxed)) {
    for (int i = 0; i < loop_ring_size; ++i) ring[i].serial.reset();  // plans stay: the next region may run the same loops
    free_for_first_instances(ring);
  }
  outer = nullptr;
  // Records of forwarded loops some member never left (a clang before 18
  // calls no dispatch_deinit): dropped with the region.
  std::lock_guard guard(forwarded_lock);
  for (auto& [index, entry] : forwarded) delete entry.first;
  forwarded.clear();
}

}  // namespace selfsched::omp

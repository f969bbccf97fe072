// The agent's side of early writes (early_writes.cpp has the program's and
// says why). A rank whose program waits at a shared region's
// synchronization point for a rank that has not come offers the others its
// diffs of the window, once, after a short wait; a rank whose program is
// still computing in that window takes them and hands them to its program's
// helper thread through the channel's early area.
//
// Three messages, so that nothing large is ever sent that nobody receives:
// the waiting rank's offer (the collective's number and the size), the
// lagging rank's request, then the diffs. The waiting rank cannot leave the
// collective before the lagging rank joins it, and that rank joins only
// after its request is served, so every request is answered.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "channel.hpp"

namespace selfsched::cluster {

class early_writes_relay {
 public:
  // `after`: how long a rank waits in a merge before it offers its diffs
  // (negative: never). `program_ended`: the program's helper is gone.
  early_writes_relay(MPI_Comm comm, channel& ch, std::chrono::milliseconds after,
                     const std::atomic<bool>& program_ended);

  // A collective of the job begins; every rank counts them alike.
  void collective_begins();
  // This rank waits in that collective for ranks that have not joined:
  // `merge` when the request carries a shared region's diffs. Serves
  // requests, and offers the diffs once `after` has passed.
  void while_waiting(bool merge);
  // The program computes: offers of the next collective are taken and
  // applied while its window is open; others are dropped. `check` runs
  // while waiting (the agent's test for a killed program).
  template <typename Check>
  void while_program_runs(Check check) {
    while (take_offer([](void* f) { (*static_cast<Check*>(f))(); }, &check)) {
    }
  }
  // Offers left over (the collective they were for is over): dropped.
  void drop_offers();

 private:
  bool take_offer(void (*check)(void*), void* context);
  void serve_requests();
  void forget_sent_offers();

  MPI_Comm comm_;
  channel& channel_;
  std::chrono::milliseconds after_;
  const std::atomic<bool>& program_ended_;
  int rank_ = 0, ranks_ = 1;
  std::int64_t collectives_ = 0;  // begun so far
  bool offered_ = false;
  std::chrono::steady_clock::time_point waiting_since_{};
  struct sent_offer {
    std::int64_t body[2];
    std::vector<MPI_Request> requests;
  };
  std::vector<std::unique_ptr<sent_offer>> offers_;
};

}  // namespace selfsched::cluster

// Early writes: a spin on a flag another rank sets must not wait for ever.
//
// A shared region's writes reach the other ranks at its synchronization
// points. A program whose threads spin on a flag that a thread of another
// rank sets without a barrier between (`while (release == 0);` in a `nowait`
// loop, released by the next loop) would wait for ever: the rank that sets
// the flag waits at the barrier for the spinning rank, which never sees the
// write. OpenMP lets a racy read see another thread's write at any time, so
// the waiting rank's agent sends its diffs of the window early
// (early_writes_relay.hpp) and this rank applies them to its live memory
// while its threads run. They are written into the pages' shadows too, so
// the merge does not count them as this rank's changes; a byte this rank had
// changed as well is left alone, and the merge finds both ranks' changes of
// it, a conflict. Writes that made this rank take another path (the count
// it incremented after the flag let it go) conflict at the merge in the
// same way, and the region runs again from its start, replicated. The
// threads are held while a window is applied (thread_pause.hpp): they see
// it whole, never a flag without the data written before it.
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include "allocation.hpp"
#include "program.hpp"
#include "thread_pause.hpp"

namespace selfsched::cluster {

void cluster_process::open_shared_window() {
  early_ranges_ = tracked_ranges();
  channel_->control().shared_window.store(1, std::memory_order_seq_cst);
}

void cluster_process::close_shared_window() {
  channel_control& c = channel_->control();
  c.shared_window.store(0, std::memory_order_seq_cst);
  // Dekker's handshake with apply_early_writes: it sets `applying` before it
  // reads `shared_window`, so either it saw the window closed or it is seen here.
  while (c.applying.load(std::memory_order_seq_cst) != 0) sched_yield();
}

void cluster_process::apply_early_writes() {
  channel_control& c = channel_->control();
  c.applying.store(1, std::memory_order_seq_cst);
  if (c.shared_window.load(std::memory_order_seq_cst) != 0) {
    diff_reader reader(channel_->early(), static_cast<std::size_t>(c.early_bytes));
    if (reader.valid()) {
      const thread_pause held;  // the window appears to this rank's threads at once
      tracker_.apply_early(reader, early_ranges_);
    }
  }
  c.applying.store(0, std::memory_order_seq_cst);
}

void cluster_process::start_early_writes_helper() {
  runtime_scope scope;  // the thread's stack and state are the runtime's, never the program's heap
  install_thread_pause();
  std::thread([this] {
    channel_control& c = channel_->control();
    std::uint32_t seen = c.early_seq.load(std::memory_order_acquire);
    for (;;) {
      const std::uint32_t now = c.early_seq.load(std::memory_order_acquire);
      if (now == seen) {
        syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&c.early_seq), FUTEX_WAIT, seen, nullptr, nullptr, 0);
        continue;
      }
      seen = now;
      apply_early_writes();
      c.early_done.store(now, std::memory_order_release);
    }
  }).detach();
}

}  // namespace selfsched::cluster

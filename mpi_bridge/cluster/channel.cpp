#include "channel.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

namespace selfsched::cluster {
namespace {

// Futexes on a shared mapping: not FUTEX_PRIVATE, two processes wait on them.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t value) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, value, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

// Waits until `word` is no longer `value`: spins a few microseconds (the
// answer is often that quick), then sleeps.
void wait_change(std::atomic<std::uint32_t>& word, std::uint32_t value) {
  for (int spin = 0; spin < 2000; ++spin) {
    if (word.load(std::memory_order_acquire) != value) return;
    if (spin > 200) sched_yield();
  }
  while (word.load(std::memory_order_acquire) == value) futex_wait(word, value);
}

}  // namespace

channel::channel(int fd) {
  void* p = mmap(nullptr, channel_layout::total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED) return;
  base_ = static_cast<std::byte*>(p);
  seen_request_ = control().request_seq.load(std::memory_order_acquire);
}

void channel::populate(std::byte* area, std::size_t bytes, bool write) {
  constexpr int populate_read = 22, populate_write = 23;  // Linux 5.14; older kernels: faults as before
  // Whole 64 KiB blocks: a merge of a few bytes maps 16 pages, not the 512
  // of a 2 MiB step (on a memfd each is a fresh page zeroed: the first
  // region's hello took 4-12 ms here for 1.8 KB).
  constexpr std::size_t step = std::size_t{64} << 10;
  std::size_t& done = populated_[area == incoming() ? 1 : 0];
  if (base_ == nullptr || bytes <= done) return;
  const std::size_t limit = area == incoming() ? channel_layout::incoming_bytes : channel_layout::outgoing_bytes;
  const std::size_t end = std::min(limit, (bytes + step - 1) / step * step);
  if (madvise(area + done, end - done, write ? populate_write : populate_read) == 0) done = end;
}

channel::~channel() {
  if (base_ != nullptr) munmap(base_, channel_layout::total);
}

int channel::create() {
  const int fd = static_cast<int>(syscall(SYS_memfd_create, "selfsched-cluster", 0));
  if (fd < 0) return -1;
  if (ftruncate(fd, static_cast<off_t>(channel_layout::total)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void channel::call() {
  channel_control& c = control();
  const std::uint32_t reply = c.reply_seq.load(std::memory_order_acquire);
  c.request_seq.fetch_add(1, std::memory_order_acq_rel);
  c.agent_events.fetch_add(1, std::memory_order_acq_rel);
  futex_wake(c.agent_events);
  wait_change(c.reply_seq, reply);
}

bool channel::wait_request(const std::atomic<bool>& stop) { return wait_request(stop, nullptr, nullptr, 0); }

bool channel::wait_request(const std::atomic<bool>& stop, void (*idle)(void*), void* context, long period_us) {
  channel_control& c = control();
  const timespec period{period_us / 1000000, (period_us % 1000000) * 1000};
  for (;;) {
    const std::uint32_t events = c.agent_events.load(std::memory_order_acquire);
    if (stop.load(std::memory_order_acquire)) return false;
    const std::uint32_t now = c.request_seq.load(std::memory_order_acquire);
    if (now != seen_request_) {
      seen_request_ = now;
      return true;
    }
    if (idle == nullptr) {
      futex_wait(c.agent_events, events);
      continue;
    }
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&c.agent_events), FUTEX_WAIT, events, &period, nullptr, 0);
    if (c.agent_events.load(std::memory_order_acquire) == events) idle(context);
  }
}

void channel::answer() {
  channel_control& c = control();
  c.reply_seq.fetch_add(1, std::memory_order_acq_rel);
  futex_wake(c.reply_seq);
}

void channel::wake_agent() {
  control().agent_events.fetch_add(1, std::memory_order_acq_rel);
  futex_wake(control().agent_events);
}

}  // namespace selfsched::cluster

#include "thread_pause.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace selfsched::cluster {
namespace {

int pause_signal() { return SIGRTMAX - 2; }

// Odd while a pause is on: a handler that runs late (its thread had the
// signal blocked) finds it even and returns at once.
std::atomic<std::uint32_t> pause_epoch{0};
std::atomic<int> threads_held{0};
std::atomic<bool> installed{false};

// A held thread goes on after this long whatever happens: were it holding a
// lock the applying thread needs (a C library arena's, shared once threads
// outnumber arenas), the two would otherwise wait for each other for ever.
constexpr long longest_hold_ns = 1'000'000'000;

void hold_here(int) {
  const int saved = errno;
  const std::uint32_t epoch = pause_epoch.load(std::memory_order_acquire);
  if (epoch % 2 == 1) {
    threads_held.fetch_add(1, std::memory_order_acq_rel);
    timespec started{}, now{};
    clock_gettime(CLOCK_MONOTONIC, &started);
    while (pause_epoch.load(std::memory_order_acquire) == epoch) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      const long waited = (now.tv_sec - started.tv_sec) * 1'000'000'000L + (now.tv_nsec - started.tv_nsec);
      if (waited >= longest_hold_ns) break;
      const long left = longest_hold_ns - waited;
      const timespec timeout{left / 1'000'000'000L, left % 1'000'000'000L};
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&pause_epoch), FUTEX_WAIT_PRIVATE, epoch, &timeout,
              nullptr, 0);
    }
  }
  errno = saved;
}

bool handler_is_ours() {
  struct sigaction now{};
  return installed.load() && sigaction(pause_signal(), nullptr, &now) == 0 && now.sa_handler == hold_here;
}

// Signals every thread of the process but this one; returns how many took it.
int signal_other_threads() {
  const int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid)), process = getpid();
  int signalled = 0;
  alignas(8) char buffer[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
      at += entry->d_reclen;
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
      const auto tid = static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10));
      if (tid != self && syscall(SYS_tgkill, process, tid, pause_signal()) == 0) ++signalled;
    }
  }
  close(dir);
  return signalled;
}

}  // namespace

bool install_thread_pause() {
  struct sigaction old{};
  if (sigaction(pause_signal(), nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return false;
  struct sigaction sa{};
  sa.sa_handler = hold_here;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(pause_signal(), &sa, nullptr) != 0) return false;
  installed.store(true);
  return true;
}

thread_pause::thread_pause(std::chrono::milliseconds patience) {
  if (!handler_is_ours()) return;
  threads_held.store(0, std::memory_order_release);
  pause_epoch.fetch_add(1, std::memory_order_acq_rel);  // odd: on
  active_ = true;
  const int others = signal_other_threads();
  const auto until = std::chrono::steady_clock::now() + patience;
  while (others >= 0 && threads_held.load(std::memory_order_acquire) < others) {
    if (std::chrono::steady_clock::now() > until) return;
    sched_yield();
  }
  all_held_ = others >= 0;
}

thread_pause::~thread_pause() {
  if (!active_) return;
  pause_epoch.fetch_add(1, std::memory_order_acq_rel);  // even: off
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&pause_epoch), FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr, 0);
}

}  // namespace selfsched::cluster

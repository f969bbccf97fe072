// Shared by the OpenMP test programs: named cases, failures counted with the
// case they happened in, and a watchdog that turns a hang (a deadlocked
// doacross, a split team) into a failure naming the case.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace case_watchdog {

inline int failures = 0;
inline std::mutex context_lock;
inline std::string context;
inline std::atomic<std::int64_t> deadline_ms{0};
constexpr std::int64_t limit_ms = 20000;

inline std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// The case from now on; it has limit_ms to finish (or to begin the next).
inline void begin_case(const std::string& what) {
  std::lock_guard<std::mutex> hold(context_lock);
  context = what;
  deadline_ms.store(now_ms() + limit_ms);
}

// No case running: nothing to watch.
inline void end_cases() { deadline_ms.store(0); }

inline void start_watchdog() {
  std::thread([] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::int64_t deadline = deadline_ms.load();
      if (deadline != 0 && now_ms() > deadline) {
        std::lock_guard<std::mutex> hold(context_lock);
        std::fprintf(stderr, "FAIL %s: no progress for %lld s (deadlock?)\n", context.c_str(),
                     static_cast<long long>(limit_ms / 1000));
        std::fflush(stderr);
        std::_Exit(1);
      }
    }
  }).detach();
}

// Counts every failure, prints the first 20.
inline void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  if (failures <= 20) {
    std::lock_guard<std::mutex> hold(context_lock);
    std::fprintf(stderr, "FAIL %s: %s\n", context.c_str(), what.c_str());
  }
}

// The sharded suites' command line: `--shard K/N` (every N-th technique
// from the K-th, for parallel ctest) and technique names (none: the caller's
// default list). A malformed shard is a usage error, never a silent 0/1.
struct sharded_run {
  int shard = 0, shards = 1;
  std::vector<std::string> techniques;
};
inline sharded_run parse_sharded_run(int argc, char** argv) {
  sharded_run run;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "--shard") {
      run.techniques.push_back(arg);
      continue;
    }
    const char* text = i + 1 < argc ? argv[++i] : "";
    char end = 0;
    if (std::sscanf(text, "%d/%d%c", &run.shard, &run.shards, &end) != 2 || run.shards < 1 || run.shard < 0 ||
        run.shard >= run.shards) {
      std::fprintf(stderr, "--shard '%s': expected K/N with 0 <= K < N\n", text);
      std::exit(2);
    }
  }
  return run;
}

}  // namespace case_watchdog

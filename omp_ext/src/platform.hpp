// Clocks and CPU probes: the only place that talks to the OS about time and
// load.
#pragma once

#include <time.h>

#include <cstdint>

namespace selfsched::omp {

// Monotonic nanoseconds through the vDSO: no syscall.
inline std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

}  // namespace selfsched::omp

// A library of OpenMP loops that a program opens and closes again
// (unloading_program.cpp): its schedule(runtime) loop counts how many of
// its iterations did not run exactly once.
#include <atomic>
#include <vector>

extern "C" int loop_library_wrong_iterations(int n) {
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < n; ++i) runs[static_cast<std::size_t>(i)].fetch_add(1, std::memory_order_relaxed);
  int wrong = 0;
  for (const auto& r : runs) wrong += r.load() != 1;
  return wrong;
}

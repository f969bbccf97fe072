// Which OpenMP runtime the program uses, and whether its loops reach
// selfsched: through the interposed entry points, or through the schedules a
// patched libomp took registered (libomp_hooks.hpp). A technique is never
// claimed active where it cannot be: the answer is in SELFSCHED_DISPLAY_ENV,
// decides whether OMP_SCHEDULE is taken at load, and, if no loop was served,
// is said at exit under SELFSCHED_VERBOSE (schedule_choice.hpp).
#pragma once

#include <atomic>
#include <string>

namespace selfsched::omp {

namespace detail {
extern std::atomic<bool> hooks_in_use;
}
// Are selfsched's schedules registered with libomp (set at start-up, before
// any loop, by libomp_hooks.cpp)? One load: asked at every loop start.
inline bool runtime_hooks_in_use() { return detail::hooks_in_use.load(std::memory_order_relaxed); }
inline void note_runtime_hooks_in_use(bool in_use) { detail::hooks_in_use.store(in_use, std::memory_order_relaxed); }

struct runtime_report {
  bool libomp = false;   // LLVM's (clang -fopenmp), loaded in the process
  bool libgomp = false;  // GCC's (gcc, g++, gfortran -fopenmp)
  // Its programs' loop calls come to selfsched first (libselfsched is
  // preloaded or linked before the runtime).
  bool libomp_served = false;
  bool libomp_hooks = false;  // it takes selfsched's schedules registered (libomp_hooks.hpp)
  bool libgomp_served = false;
  bool any_loaded() const { return libomp || libgomp; }
  bool any_served() const { return (libomp && libomp_served) || (libgomp && libgomp_served); }
};

// Looks now (dlsym: cold, never on a loop's path).
runtime_report look_at_runtimes();

// libgomp.so.1 if the process has it (a handle the caller dlcloses), else
// nullptr. Never loads it.
void* loaded_libgomp();

// "libgomp (GCC): its schedule(runtime) loops come to selfsched", or why not.
std::string describe(const runtime_report& report);

// The program's runtime's own omp_set_schedule (libgomp's in a GCC program,
// which never loads libomp); nullptr if none is loaded.
using set_schedule_function = void (*)(int kind, int chunk);
set_schedule_function runtime_set_schedule();
using get_schedule_function = void (*)(int* kind, int* chunk);
get_schedule_function runtime_get_schedule();

namespace detail {
extern std::atomic<bool> loop_served;
}
// Called when a loop instance is set up (once per instance, one thread).
inline void note_loop_served() {
  if (!detail::loop_served.load(std::memory_order_relaxed)) detail::loop_served.store(true, std::memory_order_relaxed);
}
// Did selfsched serve any loop so far?
inline bool some_loop_served() { return detail::loop_served.load(std::memory_order_relaxed); }

}  // namespace selfsched::omp

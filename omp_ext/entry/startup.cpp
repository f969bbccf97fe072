// The library's one start-up: every step that must happen when libselfsched
// loads, in the order they depend on each other. It runs before main and,
// what matters more, before libomp initializes (lazily, at the program's
// first OpenMP construct) and reads its environment. libgomp has read its
// environment already (its own constructor runs before ours), which is why
// GCC programs take SELFSCHED_SCHEDULE (schedule_choice.cpp).
//
// A preloaded library runs in every process of a job (shells, launchers,
// compilers): nothing here walks /proc, loads the topology or allocates
// beyond the settings table; those wait until the process runs OpenMP (what
// a technique's loops read, when it comes into force: read_what_loops_need,
// teams.hpp) or its first loop that needs them.
// At exit, the profile and the auto cache are written by atexit handlers
// registered when they are first used (profile.cpp, auto_cache.cpp), and an
// unserved runtime is reported (schedule_choice.cpp).
#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

#include "entry/kmpc.hpp"
#include "entry/libomp_hooks.hpp"
#include "entry/real_libgomp.hpp"
#include "learning/profile.hpp"
#include "runtime/real_libomp.hpp"
#include "runtime/runtimes.hpp"
#include "selfsched/machine/placement.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {
namespace {

// Settings are shown when libomp starts our tool (ompt_start_tool, once per
// process). Where it will not (OMPT disabled, or a GCC program: libgomp has
// no OMPT), they are shown now.
void display_settings_without_tool() {
  if (!current_settings().display_env) return;
  const char* tool = std::getenv("OMP_TOOL");
  void* libgomp = loaded_libgomp();
  if (libgomp != nullptr) dlclose(libgomp);
  if ((tool != nullptr && std::string_view(tool) == "disabled") || libgomp != nullptr) display_settings_if_asked();
}

__attribute__((constructor)) void start_selfsched() {
  // 1. The CPUs the process may use, before any runtime binds a thread.
  remember_initial_mask();
  // 2. The runtimes' real entry points, so forwarding is one load and one
  //    jump; a runtime loaded later is resolved at its first call.
  detail::resolve_libomp_at_load();
  detail::resolve_libgomp_at_load();
  // 3. The settings table is read (on first use, here) and the run-queue
  //    monitor set up from it. Read here, not when a loop first needs it:
  //    a bad value is reported once, as the program starts, before its own
  //    output, whether or not a loop ever reads that setting; the table
  //    costs about 10,000 instructions (docs/results/overhead.md).
  set_up_run_queues();
  // 4. Other OMPT tools become our clients, before libomp looks for tools.
  chain_tool_libraries();
  // 5. A libomp that takes registered schedules gets ours (libomp_hooks.hpp)
  //    before it reads OMP_SCHEDULE, and the exported dispatch entry points
  //    become jumps into libomp's (kmpc.hpp). Then OMP_SCHEDULE naming one
  //    of our techniques is taken (and, unless libomp has our schedules,
  //    rewritten to `dynamic` for it) unless the process's loops cannot
  //    reach us (runtimes.cpp, which needs step 2).
  register_runtime_schedules();
  if (runtime_hooks_in_use()) hand_dispatch_to_runtime();
  choose_technique_from_environment(runtime_hooks_in_use() ? register_in_runtime : nullptr);
  // 6. A profile path that cannot be written is reported now, not at exit.
  check_profile_path();
  report_unserved_at_exit();
  display_settings_without_tool();
}

}  // namespace
}  // namespace selfsched::omp

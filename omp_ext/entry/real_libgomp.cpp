#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "entry/real_libgomp.hpp"
#include "runtime/runtimes.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/teams.hpp"

namespace selfsched::omp {
namespace {

// Looked up in libgomp.so.1 itself when the process has it: libselfsched
// precedes it in the search order, and RTLD_NEXT could find libomp's
// GOMP_* layer first if both are loaded. `load_if_absent` (a GOMP_* call
// came, and no runtime defines GOMP_*): a program linked with -lselfsched
// whose every OpenMP call libselfsched satisfies lost libgomp to the
// linker's --as-needed; it is loaded here, as the program was built for it.
bool resolve_all(gomp_entry_points& g, const char*& missing, bool load_if_absent) {
  void* libgomp = loaded_libgomp();
  if (libgomp == nullptr && load_if_absent && dlsym(RTLD_NEXT, "GOMP_parallel") == nullptr)
    libgomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_GLOBAL);
  void* where = libgomp != nullptr ? libgomp : RTLD_NEXT;
  missing = nullptr;
  const auto need = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(where, name));
    if (slot == nullptr && missing == nullptr) missing = name;
  };
  g.follows_regions = libgomp != nullptr;
  need(g.parallel, "GOMP_parallel");
  need(g.parallel_reductions, "GOMP_parallel_reductions");
  need(g.parallel_sections, "GOMP_parallel_sections");
  need(g.parallel_loop_runtime, "GOMP_parallel_loop_runtime");
  need(g.parallel_loop_static, "GOMP_parallel_loop_static");
  need(g.parallel_loop_dynamic, "GOMP_parallel_loop_dynamic");
  need(g.parallel_loop_guided, "GOMP_parallel_loop_guided");
  need(g.loop_runtime_start, "GOMP_loop_runtime_start");
  need(g.loop_runtime_next, "GOMP_loop_runtime_next");
  need(g.loop_ull_runtime_start, "GOMP_loop_ull_runtime_start");
  need(g.loop_ull_runtime_next, "GOMP_loop_ull_runtime_next");
  need(g.loop_dynamic_start, "GOMP_loop_dynamic_start");
  need(g.loop_dynamic_next, "GOMP_loop_dynamic_next");
  need(g.loop_guided_start, "GOMP_loop_guided_start");
  need(g.loop_guided_next, "GOMP_loop_guided_next");
  need(g.loop_ull_dynamic_start, "GOMP_loop_ull_dynamic_start");
  need(g.loop_ull_dynamic_next, "GOMP_loop_ull_dynamic_next");
  need(g.loop_ull_guided_start, "GOMP_loop_ull_guided_start");
  need(g.loop_ull_guided_next, "GOMP_loop_ull_guided_next");
  need(g.loop_start, "GOMP_loop_start");
  need(g.loop_ull_start, "GOMP_loop_ull_start");
  need(g.loop_end, "GOMP_loop_end");
  need(g.loop_end_nowait, "GOMP_loop_end_nowait");
  need(g.loop_end_cancel, "GOMP_loop_end_cancel");
  const auto may_have = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(where, name));
  };
  may_have(g.loop_doacross_runtime_start, "GOMP_loop_doacross_runtime_start");
  may_have(g.loop_ull_doacross_runtime_start, "GOMP_loop_ull_doacross_runtime_start");
  may_have(g.doacross_post, "GOMP_doacross_post");
  may_have(g.doacross_ull_post, "GOMP_doacross_ull_post");
  may_have(g.doacross_wait, "GOMP_doacross_wait");
  may_have(g.doacross_ull_wait, "GOMP_doacross_ull_wait");
  need(g.barrier, "GOMP_barrier");
  need(g.barrier_cancel, "GOMP_barrier_cancel");
  need(g.get_level, "omp_get_level");
  need(g.get_thread_num, "omp_get_thread_num");
  need(g.get_num_threads, "omp_get_num_threads");
  // NOLOAD took a reference, which the program's own keeps company; one we
  // loaded stays.
  if (libgomp != nullptr && !load_if_absent) dlclose(libgomp);
  if (missing != nullptr) return false;
  if (g.follows_regions) follow_regions_without_ompt();
  return true;
}

}  // namespace

namespace detail {
gomp_entry_points gomp_resolved{};

const gomp_entry_points& resolve_gomp() {
  static const gomp_entry_points entry_points = [] {
    gomp_entry_points g{};
    const char* missing = nullptr;
    if (!resolve_all(g, missing, /*load_if_absent=*/true)) {
      std::fprintf(stderr, "selfsched: %s not found after libselfsched: link an OpenMP runtime (gcc -fopenmp)\n",
                   missing);
      std::abort();
    }
    // libgomp came after load: the settings were not shown then.
    if (g.follows_regions) display_settings_if_asked();
    return g;
  }();
  return entry_points;
}

// At load (startup.cpp), before any thread exists: only if libgomp is there
// (a clang program has no use for these, and libomp's GOMP_* layer is found
// lazily).
void resolve_libgomp_at_load() {
  void* libgomp = loaded_libgomp();
  if (libgomp == nullptr) return;
  dlclose(libgomp);
  gomp_entry_points g{};
  const char* missing = nullptr;
  if (resolve_all(g, missing, /*load_if_absent=*/false) && g.follows_regions) gomp_resolved = g;
}
}  // namespace detail

}  // namespace selfsched::omp

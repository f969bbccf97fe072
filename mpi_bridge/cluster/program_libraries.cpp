// dlopen and dlclose. A library the program loads while it runs has its
// writable data tracked and merged from the next parallel region on
// (cluster_process::track_modules_loaded_since). What the runtime loads
// (an OpenMP tool, hwloc's plugins and the libraries they need, X11's among
// them) is the runtime's, whatever its name: its data is never merged and
// its allocations, its constructors' included, go to the C library's heap.
// A library the program closes stays loaded, as one opened with
// RTLD_NODELETE: unloaded, its tracked data would be unmapped under the
// tracker.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>

#include "allocation.hpp"
#include "interposed.hpp"
#include "modules.hpp"

namespace {

using open_t = void* (*)(const char*, int);

open_t real_dlopen() {
  static const auto real = selfsched::cluster::next_definition<open_t>("dlopen");
  return real;
}

bool from_runtime(void* caller) {
  return selfsched::cluster::caller_is_runtime(reinterpret_cast<std::uintptr_t>(caller));
}

void* open_for_runtime(open_t real, const char* file, int mode) {
  using namespace selfsched::cluster;
  runtime_scope scope;
  const std::vector<std::uintptr_t> before = loaded_objects();
  void* handle = real(file, mode);
  std::vector<std::uintptr_t> added = loaded_objects();
  std::erase_if(added, [&](std::uintptr_t o) { return std::find(before.begin(), before.end(), o) != before.end(); });
  if (!added.empty()) mark_loaded_by_runtime(added);
  return handle;
}

}  // namespace

// dlopen itself is in dlopen_entry.c: its tail call to the C library's is
// kept in C (C++ gives the function cleanups a tail call may not skip).
extern "C" {

__attribute__((visibility("hidden"))) open_t selfsched_cluster_real_dlopen() { return real_dlopen(); }

__attribute__((visibility("hidden"))) int selfsched_cluster_dlopen_is_runtimes(void* caller) {
  return from_runtime(caller) ? 1 : 0;
}

__attribute__((visibility("hidden"))) void* selfsched_cluster_dlopen_for_runtime(const char* file, int mode) {
  return open_for_runtime(real_dlopen(), file, mode);
}

__attribute__((visibility("default"))) int dlclose(void* handle) {
  using selfsched::cluster::next_definition;
  SELFSCHED_NEXT(dlclose);
  if (from_runtime(__builtin_return_address(0))) return real(handle);
  return 0;
}

}  // extern "C"

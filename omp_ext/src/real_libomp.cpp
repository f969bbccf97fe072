#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "libomp_abi.hpp"

namespace selfsched::omp {
namespace {

template <typename F>
void resolve(F& slot, const char* name, bool required) {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  if (slot == nullptr && required) {
    std::fprintf(stderr, "selfsched: %s not found after libselfsched: link libomp (clang -fopenmp)\n", name);
    std::abort();
  }
}

real_entry_points resolve_all() {
  real_entry_points r{};
  resolve(r.init_4, "__kmpc_dispatch_init_4", true);
  resolve(r.init_4u, "__kmpc_dispatch_init_4u", true);
  resolve(r.init_8, "__kmpc_dispatch_init_8", true);
  resolve(r.init_8u, "__kmpc_dispatch_init_8u", true);
  resolve(r.next_4, "__kmpc_dispatch_next_4", true);
  resolve(r.next_4u, "__kmpc_dispatch_next_4u", true);
  resolve(r.next_8, "__kmpc_dispatch_next_8", true);
  resolve(r.next_8u, "__kmpc_dispatch_next_8u", true);
  resolve(r.fini_4, "__kmpc_dispatch_fini_4", true);
  resolve(r.fini_4u, "__kmpc_dispatch_fini_4u", true);
  resolve(r.fini_8, "__kmpc_dispatch_fini_8", true);
  resolve(r.fini_8u, "__kmpc_dispatch_fini_8u", true);
  resolve(r.deinit, "__kmpc_dispatch_deinit", false);
  resolve(r.set_schedule, "omp_set_schedule", true);
  return r;
}

}  // namespace

const real_entry_points& real() {
  static const real_entry_points entry_points = resolve_all();  // thread-safe, once
  return entry_points;
}

}  // namespace selfsched::omp

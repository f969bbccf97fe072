#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/real_libomp.hpp"

namespace selfsched::omp {
namespace {

// Where dlsym finds nothing: a program that dlopen()s libomp after
// libselfsched was preloaded (a Python extension, say) has none yet at load
// time, so only a call that needs one gives up.
template <typename F>
bool resolve(F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  return slot != nullptr;
}

// All but deinit (libomp >= 18 only) and the dist_dispatch entries are
// required. The first one missing ends the search: a process without libomp
// (a shell the library is preloaded into) would otherwise pay a failed
// lookup of every name, each a walk of every loaded object and an error
// message formatted for dlerror.
bool resolve_all(real_entry_points& r, const char*& missing) {
  missing = nullptr;
  const auto need = [&](auto& slot, const char* name) {
    if (missing == nullptr && !resolve(slot, name)) missing = name;
  };
  need(r.init_4, "__kmpc_dispatch_init_4");
  need(r.init_4u, "__kmpc_dispatch_init_4u");
  need(r.init_8, "__kmpc_dispatch_init_8");
  need(r.init_8u, "__kmpc_dispatch_init_8u");
  need(r.next_4, "__kmpc_dispatch_next_4");
  need(r.next_4u, "__kmpc_dispatch_next_4u");
  need(r.next_8, "__kmpc_dispatch_next_8");
  need(r.next_8u, "__kmpc_dispatch_next_8u");
  need(r.fini_4, "__kmpc_dispatch_fini_4");
  need(r.fini_4u, "__kmpc_dispatch_fini_4u");
  need(r.fini_8, "__kmpc_dispatch_fini_8");
  need(r.fini_8u, "__kmpc_dispatch_fini_8u");
  need(r.get_num_threads, "omp_get_num_threads");
  need(r.doacross_init, "__kmpc_doacross_init");
  need(r.doacross_wait, "__kmpc_doacross_wait");
  need(r.doacross_post, "__kmpc_doacross_post");
  need(r.doacross_fini, "__kmpc_doacross_fini");
  if (missing != nullptr) return false;
  resolve(r.deinit, "__kmpc_dispatch_deinit");
  resolve(r.dist_init_4, "__kmpc_dist_dispatch_init_4");
  resolve(r.dist_init_4u, "__kmpc_dist_dispatch_init_4u");
  resolve(r.dist_init_8, "__kmpc_dist_dispatch_init_8");
  resolve(r.dist_init_8u, "__kmpc_dist_dispatch_init_8u");
  return true;
}

}  // namespace

namespace detail {
real_entry_points resolved{};

// Called when OpenMP code calls us and `resolved` is still empty: libomp must
// be there now.
const real_entry_points& resolve_real() {
  static const real_entry_points entry_points = [] {
    real_entry_points r{};
    const char* missing = nullptr;
    if (!resolve_all(r, missing)) {
      std::fprintf(stderr, "selfsched: %s not found after libselfsched: link libomp (clang -fopenmp)\n", missing);
      std::abort();
    }
    return r;
  }();
  return entry_points;
}

// At load (startup.cpp), before any thread exists: fill `resolved` if libomp
// is loaded, so the forwarding path is one load and one jump.
void resolve_libomp_at_load() {
  real_entry_points r{};
  const char* missing = nullptr;
  if (resolve_all(r, missing)) resolved = r;
}
}  // namespace detail

}  // namespace selfsched::omp

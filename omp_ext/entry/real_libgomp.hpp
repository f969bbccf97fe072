// libgomp's own entry points, which the libgomp binding (gomp.cpp) forwards
// to: looked up in libgomp.so.1 itself, or in libomp's GOMP_* layer where
// that is what the process has (real_libgomp.cpp).
#pragma once

#include <cstdint>

#include "runtime/libgomp_abi.hpp"

namespace selfsched::omp {

struct gomp_entry_points {
  // libgomp itself (no OMPT): the binding follows its regions. false: the
  // GOMP_* calls reach libomp's compatibility layer, which reports its
  // regions through OMPT like any other.
  bool follows_regions = false;

  void (*parallel)(gomp_body, void*, unsigned, unsigned);
  unsigned (*parallel_reductions)(gomp_body, void*, unsigned, unsigned);
  void (*parallel_sections)(gomp_body, void*, unsigned, unsigned, unsigned);
  // GOMP_parallel_loop_{runtime,nonmonotonic_runtime,maybe_nonmonotonic_runtime}
  void (*parallel_loop_runtime)(gomp_body, void*, unsigned, long, long, long, unsigned);
  // GOMP_parallel_loop_{static,dynamic,guided,nonmonotonic_dynamic,nonmonotonic_guided}
  void (*parallel_loop_static)(gomp_body, void*, unsigned, long, long, long, long, unsigned);
  void (*parallel_loop_dynamic)(gomp_body, void*, unsigned, long, long, long, long, unsigned);
  void (*parallel_loop_guided)(gomp_body, void*, unsigned, long, long, long, long, unsigned);

  bool (*loop_runtime_start)(long, long, long, long*, long*);
  bool (*loop_runtime_next)(long*, long*);
  bool (*loop_ull_runtime_start)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull*, gomp_ull*);
  bool (*loop_ull_runtime_next)(gomp_ull*, gomp_ull*);
  bool (*loop_dynamic_start)(long, long, long, long, long*, long*);
  bool (*loop_dynamic_next)(long*, long*);
  bool (*loop_guided_start)(long, long, long, long, long*, long*);
  bool (*loop_guided_next)(long*, long*);
  bool (*loop_ull_dynamic_start)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull, gomp_ull*, gomp_ull*);
  bool (*loop_ull_dynamic_next)(gomp_ull*, gomp_ull*);
  bool (*loop_ull_guided_start)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull, gomp_ull*, gomp_ull*);
  bool (*loop_ull_guided_next)(gomp_ull*, gomp_ull*);
  bool (*loop_start)(long, long, long, long, long, long*, long*, std::uintptr_t*, void**);
  bool (*loop_ull_start)(bool, gomp_ull, gomp_ull, gomp_ull, long, gomp_ull, gomp_ull*, gomp_ull*, std::uintptr_t*,
                         void**);
  void (*loop_end)();
  void (*loop_end_nowait)();
  bool (*loop_end_cancel)();
  void (*barrier)();
  bool (*barrier_cancel)();
  // Doacross (ordered(n)) loops, GCC 6 and later; null where the runtime
  // has none (then no program calls them).
  bool (*loop_doacross_runtime_start)(unsigned, long*, long*, long*);
  bool (*loop_ull_doacross_runtime_start)(unsigned, gomp_ull*, gomp_ull*, gomp_ull*);
  void (*doacross_post)(long*);
  void (*doacross_ull_post)(gomp_ull*);
  void (*doacross_wait)(long, ...);
  void (*doacross_ull_wait)(gomp_ull, ...);

  int (*get_level)();
  int (*get_thread_num)();
  int (*get_num_threads)();
};

// Resolved when the library loads, or at the first call if the runtime came
// later (dlopen): libgomp.so.1 if the process has it, else the next
// definition (libomp's GOMP_* layer). A call with neither there aborts with
// one message, as libomp's binding does: no OpenMP construct could run.
namespace detail {
extern gomp_entry_points gomp_resolved;  // filled when the library loads
const gomp_entry_points& resolve_gomp();
void resolve_libgomp_at_load();  // start-up step (startup.cpp)
}  // namespace detail
inline const gomp_entry_points& gomp() {
  return detail::gomp_resolved.parallel != nullptr ? detail::gomp_resolved : detail::resolve_gomp();
}

// call_gomp<&gomp_entry_points::loop_runtime_next>(istart, iend): the same
// as gomp().loop_runtime_next(istart, iend), as one tail jump on the per-chunk
// forwarding path (resolving, out of line, keeps no registers live there).
namespace detail {
template <auto entry, typename... Args>
[[gnu::noinline, gnu::cold]] auto call_after_resolving(Args... args) {
  return (resolve_gomp().*entry)(args...);
}
}  // namespace detail
template <auto entry, typename... Args>
inline auto call_gomp(Args... args) {
  if (detail::gomp_resolved.parallel != nullptr) [[likely]]
    return (detail::gomp_resolved.*entry)(args...);
  return detail::call_after_resolving<entry>(args...);
}

}  // namespace selfsched::omp

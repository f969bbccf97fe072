// libomp's own entry points, which selfsched forwards to: found with
// dlsym(RTLD_NEXT), so libselfsched works linked before libomp or preloaded
// into an unmodified binary.
#pragma once

#include <cstdint>

#include "runtime/libomp_abi.hpp"

namespace selfsched::omp {

struct real_entry_points {
  void (*init_4)(ident_t*, std::int32_t, int, std::int32_t, std::int32_t, std::int32_t, std::int32_t);
  void (*init_4u)(ident_t*, std::int32_t, int, std::uint32_t, std::uint32_t, std::int32_t, std::int32_t);
  void (*init_8)(ident_t*, std::int32_t, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  void (*init_8u)(ident_t*, std::int32_t, int, std::uint64_t, std::uint64_t, std::int64_t, std::int64_t);
  int (*next_4)(ident_t*, std::int32_t, std::int32_t*, std::int32_t*, std::int32_t*, std::int32_t*);
  int (*next_4u)(ident_t*, std::int32_t, std::int32_t*, std::uint32_t*, std::uint32_t*, std::int32_t*);
  int (*next_8)(ident_t*, std::int32_t, std::int32_t*, std::int64_t*, std::int64_t*, std::int64_t*);
  int (*next_8u)(ident_t*, std::int32_t, std::int32_t*, std::uint64_t*, std::uint64_t*, std::int64_t*);
  void (*fini_4)(ident_t*, std::int32_t);
  void (*fini_4u)(ident_t*, std::int32_t);
  void (*fini_8)(ident_t*, std::int32_t);
  void (*fini_8u)(ident_t*, std::int32_t);
  void (*deinit)(ident_t*, std::int32_t);  // libomp >= 18 only; may be null
  // distribute parallel for, as some compilers emit it (clang does not): libomp's.
  void (*dist_init_4)(ident_t*, std::int32_t, int, std::int32_t*, std::int32_t, std::int32_t, std::int32_t,
                      std::int32_t);
  void (*dist_init_4u)(ident_t*, std::int32_t, int, std::int32_t*, std::uint32_t, std::uint32_t, std::int32_t,
                       std::int32_t);
  void (*dist_init_8)(ident_t*, std::int32_t, int, std::int32_t*, std::int64_t, std::int64_t, std::int64_t,
                      std::int64_t);
  void (*dist_init_8u)(ident_t*, std::int32_t, int, std::int32_t*, std::uint64_t, std::uint64_t, std::int64_t,
                       std::int64_t);
  int (*get_num_threads)();
  void (*doacross_init)(ident_t*, std::int32_t, std::int32_t, const kmp_dim*);
  void (*doacross_wait)(ident_t*, std::int32_t, const std::int64_t*);
  void (*doacross_post)(ident_t*, std::int32_t, const std::int64_t*);
  void (*doacross_fini)(ident_t*, std::int32_t);
};

// Resolved on first use; aborts with a clear message if libomp is absent.
namespace detail {
extern real_entry_points resolved;  // filled when the library loads
const real_entry_points& resolve_real();
void resolve_libomp_at_load();  // start-up step (startup.cpp)
}
inline const real_entry_points& real() {
  return detail::resolved.next_8 != nullptr ? detail::resolved : detail::resolve_real();
}

}  // namespace selfsched::omp

#include "raw_memory.hpp"

#ifdef SELFSCHED_RAW_MEMORY_UNCHECKED
#include <cstdint>

namespace selfsched::cluster {

// no_builtin: the loops must not become calls to memcpy or memcmp, which
// ASan's runtime intercepts and checks.
__attribute__((no_sanitize("address"), no_builtin)) void raw_copy(void* to, const void* from, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  for (std::size_t i = 0; i < bytes; ++i) d[i] = s[i];
}

__attribute__((no_sanitize("address"), no_builtin)) bool raw_equal(const void* a, const void* b, std::size_t bytes) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (std::size_t i = 0; i < bytes; ++i)
    if (x[i] != y[i]) return false;
  return true;
}

}  // namespace selfsched::cluster
#endif

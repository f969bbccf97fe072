#include "common/site_identity.hpp"

#include <dlfcn.h>

#include <cstring>

#include "selfsched/bridge.hpp"  // libselfsched's seam: a site's source

namespace selfsched::mpi::detail {

std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t size) {
  const auto* byte = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ byte[i]) * 0x100000001b3ULL;
  return h;
}

// The same on every rank running the same binary: the module's name, the
// ident_t's offset in it (no ASLR dependence) and its source string.
std::uint64_t site_hash(const void* site) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  Dl_info info{};
  if (site != nullptr && dladdr(site, &info) != 0 && info.dli_fname != nullptr) {
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    h = fnv(h, base, std::strlen(base));
    const auto offset = static_cast<std::uint64_t>(static_cast<const char*>(site) - static_cast<const char*>(info.dli_fbase));
    h = fnv(h, &offset, sizeof offset);
  }
  if (const char* source = omp::bridge::site_source(site); source != nullptr) h = fnv(h, source, std::strlen(source));
  return h & ((1ULL << 62) - 1);  // room to negate in the checkpoint's max/min trick
}

// ", at file:line" when the binary says (omp_ext's describe_site), else "".
std::string describe(const void* site) {
  const std::string where = omp::bridge::site_source_line(site);
  return where.empty() ? "" : ", at " + where;
}
}  // namespace selfsched::mpi::detail

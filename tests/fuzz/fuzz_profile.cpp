// Fuzzes selfsched-report's profile reader: the bounded JSON reader, then
// the profile's records. An accepted profile holds no negative count and no
// chunk that ends before it begins.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "profile_reader.hpp"
#include "selfsched/machine/files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string why;
  const auto document = selfsched::omp::parse_json_text(
      std::string_view(reinterpret_cast<const char*>(data), size), "input", why);
  if (!document) return 0;
  const auto profile = selfsched::report::parse_profile(*document, why);
  if (!profile) {
    if (why.empty()) __builtin_trap();
    return 0;
  }
  for (const auto& site : profile->sites)
    for (const auto& loop : site.loops) {
      if (loop.n < 0 || loop.p < 1 || loop.instance < 0) __builtin_trap();
      for (const auto& t : loop.threads)
        if (t.iterations < 0 || t.chunks < 0 || t.busy_s < 0) __builtin_trap();
      for (const auto& c : loop.chunks)
        if (c.size < 0 || c.start < 0 || c.end_s < c.begin_s) __builtin_trap();
    }
  return 0;
}

// Fuzzes the system information file (SIA) as the library reads it: the
// bounded JSON reader, then the entry of the machine "fuzz machine". An
// entry that is accepted holds only what the library relies on.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "selfsched/machine/files.hpp"
#include "selfsched/machine/sia.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string why;
  const auto document = selfsched::omp::parse_json_text(
      std::string_view(reinterpret_cast<const char*>(data), size), "input", why);
  if (!document) return 0;
  bool malformed = false;
  const auto info = selfsched::omp::parse_sia(*document, "input", "fuzz machine", why, malformed);
  if (!info) {
    if (why.empty()) __builtin_trap();
    return 0;
  }
  if (malformed || info->cores.empty()) __builtin_trap();
  for (const selfsched::omp::core_measurement& c : info->cores) {
    if (!(c.vp > 0 && c.vp <= 1) || c.core < 0) __builtin_trap();
    for (int pu : c.pus)
      if (pu < 0 || pu > 1 << 20) __builtin_trap();
  }
  return 0;
}

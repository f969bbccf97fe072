// Fuzzes auto's cache file as the library reads it: the bounded JSON
// reader, the header, then every site entry of every binary. An accepted
// entry holds only finite numbers >= 0.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/machine/auto_cache_file.hpp"
#include "selfsched/machine/files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string why;
  const auto document = selfsched::omp::parse_json_text(
      std::string_view(reinterpret_cast<const char*>(data), size), "input", why);
  if (!document || !selfsched::omp::is_auto_cache(*document)) return 0;
  for (const auto& binary : (*document)["binaries"]) {
    if (!binary.is_object() || !binary.contains("sites") || !binary["sites"].is_object()) continue;
    for (const auto& entry : binary["sites"]) {
      std::vector<selfsched::auto_estimate> estimates;
      double team_rate = -1;
      int runs = -1;
      if (!selfsched::omp::parse_site_entry(entry, estimates, team_rate, runs, why)) continue;
      if (!(team_rate >= 0) || !std::isfinite(team_rate) || runs < 0) __builtin_trap();
      for (const selfsched::auto_estimate& e : estimates)
        if (!(e.busy_seconds >= 0) || !(e.iterations >= 0) || !(e.claim_seconds >= 0) || e.largest_size < 0)
          __builtin_trap();
    }
  }
  return 0;
}

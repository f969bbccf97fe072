#include "selfsched/machine/auto_cache_file.hpp"

#include <algorithm>
#include <cstdint>

namespace selfsched::omp {

using nlohmann::json;

namespace {

// What the file may hold in any of its numbers: finite, >= 0, and small
// enough to become an iteration count.
bool plausible(const json& x) {
  if (!x.is_number()) return false;
  const double v = x.get<double>();
  return v >= 0 && v <= 1e18;  // also false for NaN
}

}  // namespace

bool is_auto_cache(const json& file) noexcept {
  if (!file.is_object()) return false;
  const auto version = file.find("selfsched_auto_cache");
  const auto binaries = file.find("binaries");
  return version != file.end() && version->is_number_integer() && version->get<std::int64_t>() == 1 &&
         binaries != file.end() && binaries->is_object();
}

bool parse_site_entry(const json& entry, std::vector<auto_estimate>& estimates, double& team_rate, int& runs,
                      std::string& why) noexcept {
  try {
    if (!entry.is_object()) return why = "a site is not an object", false;
    const auto rate = entry.find("team_rate");
    const auto count = entry.find("runs");
    const auto list = entry.find("estimates");
    if (rate == entry.end() || !plausible(*rate)) return why = "'team_rate' is not a finite number >= 0", false;
    if (count == entry.end() || !count->is_number_integer() || count->get<std::int64_t>() < 0)
      return why = "'runs' is not an integer >= 0", false;
    if (list == entry.end() || !list->is_array() || list->size() > 4096)
      return why = "'estimates' is not an array of at most 4096 threads", false;
    std::vector<auto_estimate> read;
    for (const json& e : *list) {
      if (!e.is_array() || e.size() != 4)
        return why = "an estimate is not [busy_s, iterations, claim_s, largest_chunk]", false;
      if (!std::all_of(e.begin(), e.end(), plausible))
        return why = "an estimate holds a value that is not a finite number >= 0", false;
      auto_estimate a;
      a.busy_seconds = e[0].get<double>();
      a.iterations = e[1].get<double>();
      a.claim_seconds = e[2].get<double>();
      a.largest_size = static_cast<iter_t>(e[3].get<double>());
      read.push_back(a);
    }
    estimates = std::move(read);
    team_rate = rate->get<double>();
    runs = static_cast<int>(std::min<std::int64_t>(count->get<std::int64_t>(), 1'000'000));
    return true;
  } catch (const std::exception& e) {  // allocation failure
    return why = e.what(), false;
  }
}

}  // namespace selfsched::omp

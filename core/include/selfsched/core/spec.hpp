// A schedule as a user writes it: "fss", "w-gss,4", "tss-80", "sw-fss-auto".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace selfsched {

struct technique_info;

struct schedule_spec {
  const technique_info* base = nullptr;  // the technique in the registry
  bool weighted = false;      // "w-" prefix: mechanism W (seed 000, eq. 2)
  bool synchronized = false;  // "s-" prefix: mechanism S (dependence loops)
  int alpha_percent = 0;      // "-NN" suffix: two-phase alpha (seeds 002/003); 0 = none
  bool alpha_auto = false;    // "-auto": alpha from the heterogeneity ratio (seed 003)
  std::int64_t min_chunk = 0; // ",k"; 0 = not given

  // The canonical name, e.g. "sw-fss-80".
  std::string name() const;
};

struct parse_result {
  schedule_spec spec;
  std::string error;  // empty on success; otherwise one line naming the bad value
  bool ok() const { return error.empty(); }
};

// Parses "name[,chunk]". Case-insensitive; surrounding blanks are ignored.
parse_result parse_schedule(std::string_view text);

}  // namespace selfsched

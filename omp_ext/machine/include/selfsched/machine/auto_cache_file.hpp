// The auto cache's file format (auto_cache.hpp has the layout), checked
// field by field: what auto_cache.cpp reads once per process, apart
// from the process so that it can be tested and fuzzed on its own.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "selfsched/core/auto_tuning.hpp"

namespace selfsched::omp {

// Does `file` have the cache's header ("selfsched_auto_cache": 1 and a
// "binaries" object)?
bool is_auto_cache(const nlohmann::json& file) noexcept;

// One site's entry: its threads' estimates, the team's rate and how many
// runs it has seen; false and why (one phrase) when it is malformed.
bool parse_site_entry(const nlohmann::json& entry, std::vector<auto_estimate>& estimates, double& team_rate,
                      int& runs, std::string& why) noexcept;

}  // namespace selfsched::omp

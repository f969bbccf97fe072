// The system information file (Yang, Cheng & Li, seed 003 sec. 3: the
// "System Information Array", SIA, stored node performance measured once and
// refreshed only when the hardware changes). selfsched-calibrate writes it;
// the library reads the entry of the machine it runs on.
//
// JSON, one entry per machine signature (topology.hpp), so one file in a
// home directory shared by a cluster's different node types serves them all:
//   {"selfsched_sia": 1,
//    "machines": {"<signature>": {"kernel": ..., "measured": ..., "heterogeneity_ratio": HR,
//                                 "cores": [{"core": 0, "pus": [0, 1], "kind": 0,
//                                            "seconds": 0.052, "vp": 1.0}, ...]}}}
// vp is seed 000's virtual power (footnote 1): the fastest core's time over
// this core's time, so the fastest core has 1.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace selfsched::omp {

struct core_measurement {
  int core = 0;
  std::vector<int> pus;  // OS indices
  int kind = -1;
  double seconds = 0;    // the kernel's best time on this core
  double vp = 1;         // virtual power, fastest = 1
};

struct system_information {
  std::string machine;       // signature
  std::string kernel;        // which benchmark measured it
  std::string measured;      // UTC date and time
  double heterogeneity_ratio = 1;  // slowest / fastest (seed 003's HR)
  std::vector<core_measurement> cores;
};

// $SELFSCHED_SIA if given, else $XDG_CACHE_HOME/selfsched/sia.json, else
// $HOME/.cache/selfsched/sia.json; "" when none can be formed or it is "off".
std::string sia_path(const std::string& setting);

// The entry for `signature`, or nullopt and why not. `malformed` tells a
// file that is wrong (unreadable, not JSON, a field of the wrong type or
// range: worth a message always) from one that is merely absent or has no
// entry for this machine (a cluster's shared home). No exception leaves it.
std::optional<system_information> read_sia(const std::string& path, const std::string& signature, std::string& why,
                                           bool& malformed) noexcept;
// The same for a file already read (`path` names it in messages).
std::optional<system_information> parse_sia(const nlohmann::json& file, const std::string& path,
                                            const std::string& signature, std::string& why, bool& malformed) noexcept;

// Adds or replaces info.machine's entry, keeping the other machines'.
// Creates the directory; replaces the file atomically.
bool write_sia(const std::string& path, const system_information& info, std::string& error);

}  // namespace selfsched::omp

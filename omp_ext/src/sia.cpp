#include "sia.hpp"

#include "files.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

namespace selfsched::omp {

using nlohmann::json;

std::string sia_path(const std::string& setting) { return cache_file_path(setting, "sia.json"); }

std::optional<system_information> read_sia(const std::string& path, const std::string& signature, std::string& why) {
  if (access(path.c_str(), F_OK) != 0) return why = "no file " + path, std::nullopt;
  const std::optional<json> read = read_json_file(path, why);
  if (!read) return std::nullopt;
  const json& file = *read;
  if (!file.is_object() || !file.contains("machines") || !file["machines"].is_object())
    return why = path + " is not a selfsched system information file", std::nullopt;
  const json& machines = file["machines"];
  const auto entry = machines.find(signature);
  if (entry == machines.end())
    return why = path + " has no entry for this machine (" + signature + "); run selfsched-calibrate", std::nullopt;
  try {
    system_information info;
    info.machine = signature;
    info.kernel = entry->value("kernel", "");
    info.measured = entry->value("measured", "");
    info.heterogeneity_ratio = entry->value("heterogeneity_ratio", 1.0);
    for (const json& c : entry->at("cores")) {
      core_measurement m;
      m.core = c.at("core").get<int>();
      m.pus = c.at("pus").get<std::vector<int>>();
      m.kind = c.value("kind", -1);
      m.seconds = c.value("seconds", 0.0);
      m.vp = c.at("vp").get<double>();
      if (!std::isfinite(m.vp) || m.vp <= 0 || m.vp > 1)
        return why = path + ": core " + std::to_string(m.core) + " has vp " + std::to_string(m.vp) +
                     "; valid: 0 < vp <= 1", std::nullopt;
      for (int pu : m.pus)
        if (pu < 0 || pu > 1 << 20) return why = path + ": PU " + std::to_string(pu) + " is not an OS index", std::nullopt;
      info.cores.push_back(std::move(m));
    }
    if (info.cores.empty()) return why = path + ": the entry for this machine lists no cores", std::nullopt;
    return info;
  } catch (const json::exception& e) {
    return why = path + ": malformed entry for this machine (" + e.what() + ")", std::nullopt;
  }
}

bool write_sia(const std::string& path, const system_information& info, std::string& error) {
  json file = {{"selfsched_sia", 1}, {"machines", json::object()}};
  std::string unreadable;
  if (std::optional<json> old = read_json_file(path, unreadable);
      old && old->is_object() && old->contains("machines") && (*old)["machines"].is_object())
    file["machines"] = std::move((*old)["machines"]);
  json cores = json::array();
  for (const core_measurement& c : info.cores)
    cores.push_back({{"core", c.core}, {"pus", c.pus}, {"kind", c.kind}, {"seconds", c.seconds}, {"vp", c.vp}});
  file["machines"][info.machine] = {{"kernel", info.kernel},
                                    {"measured", info.measured},
                                    {"heterogeneity_ratio", info.heterogeneity_ratio},
                                    {"cores", std::move(cores)}};

  return write_file_atomically(path, file.dump(2) + "\n", 0644, error);
}

}  // namespace selfsched::omp

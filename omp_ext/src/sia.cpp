#include "sia.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

namespace selfsched::omp {

using nlohmann::json;

std::string sia_path(const std::string& setting) {
  if (setting == "off") return {};
  const char* home = std::getenv("HOME");
  if (!setting.empty()) {
    if (setting.rfind("~/", 0) == 0 && home != nullptr) return home + setting.substr(1);
    return setting;
  }
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache == '/')
    return std::string(cache) + "/selfsched/sia.json";
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/selfsched/sia.json";
  return {};
}

std::optional<system_information> read_sia(const std::string& path, const std::string& signature, std::string& why) {
  std::ifstream in(path);
  if (!in) return why = "no file " + path, std::nullopt;
  const json file = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (file.is_discarded() || !file.is_object() || !file.contains("machines") || !file["machines"].is_object())
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
  if (std::ifstream in(path); in) {
    json old = json::parse(in, nullptr, false);
    if (!old.is_discarded() && old.is_object() && old.contains("machines") && old["machines"].is_object())
      file["machines"] = std::move(old["machines"]);
  }
  json cores = json::array();
  for (const core_measurement& c : info.cores)
    cores.push_back({{"core", c.core}, {"pus", c.pus}, {"kind", c.kind}, {"seconds", c.seconds}, {"vp", c.vp}});
  file["machines"][info.machine] = {{"kernel", info.kernel},
                                    {"measured", info.measured},
                                    {"heterogeneity_ratio", info.heterogeneity_ratio},
                                    {"cores", std::move(cores)}};

  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return error = "cannot create " + target.parent_path().string() + ": " + ec.message(), false;
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << file.dump(2) << '\n';
    if (!out) return error = "cannot write " + temporary, false;
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) return error = "cannot replace " + path + ": " + ec.message(), false;
  return true;
}

}  // namespace selfsched::omp
